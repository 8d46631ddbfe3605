"""Instructions every model call carries, appended at call time in this one place.

Prompt builders never repeat them: the response language comes from the app config, and the
punctuation policy (no em or en dashes) holds for every language. The texts name no operator
and no player, so they cannot break the prompt contract.
"""

from __future__ import annotations

from tavern.records.journal import ChatMessage
from tavern.records.scenario import Language

LANGUAGE_POLICY: dict[str, str] = {
    "en": "Write every free-text value in English.",
    "pt-BR": "Escreva todo texto livre em português do Brasil.",
}
# The dash characters themselves are not quoted: a small model tends to copy what it is shown.
PUNCTUATION_POLICY: dict[str, str] = {
    "en": "Never use em dashes or en dashes; use commas, periods, colons or parentheses.",
    "pt-BR": "Nunca use travessão nem meia-risca; use vírgulas, pontos, dois-pontos ou parênteses.",
}


def policy_text(language: Language) -> str:
    """The call-time instructions for `language`."""
    return f"{LANGUAGE_POLICY[language]} {PUNCTUATION_POLICY[language]}"


def apply_call_policy(messages: list[ChatMessage], language: Language) -> list[ChatMessage]:
    """Append the policy to the first system message (or add a system message first).

    >>> out = apply_call_policy([ChatMessage(role="user", content="hi")], "en")
    >>> [m.role for m in out]
    ['system', 'user']
    """
    note = policy_text(language)
    out = list(messages)
    for index, message in enumerate(out):
        if message.role == "system":
            out[index] = ChatMessage(role="system", content=f"{message.content}\n\n{note}")
            return out
    return [ChatMessage(role="system", content=note), *out]
