"""The reviser: a character folds its oldest memory lines into its own first-person summary.

A ledger's memory lines (`PerspectiveLedger.memory`) grow by one line per perceived record;
when they outgrow the Character prompt's budget, the runner asks this role to condense the
oldest ones into `PerspectiveLedger.memory_summary` (`runner.memory`). It is one character
remembering, blind as that character is: the prompt holds only its own sheet (rendered in
its own names), its summary so far and the lines to fold, which are already its own
perception, masked and named as it knows them. So a summary can hold nothing its owner did
not perceive (the parrot proof in `tests/runner/test_memory_revision.py`).

The prompt is cache-friendly: the system message (role, rules, sheet) is the same for every
revision of one character while it learns no new name, and the summary so far comes before
the lines to fold.

The runner checks the answer with code, not with this wording: codes and numbers of the
folded lines kept verbatim (`physics.verbatim`), no name its owner has not learned
(`physics.identity.unlearned_names`), no word hidden from it.
"""

from __future__ import annotations

from typing import Any

from tavern.agents.blocks import PromptBlock, Stability, assemble
from tavern.agents.character import SHEET_LABELS
from tavern.agents.render import log_lines
from tavern.records import Character, ChatMessage

SUMMARY_MAX_CHARS = 1200
"""Longest summary the schema lets a model write (about 300 tokens): the summary rides in
every Character prompt of its owner, beside the memory lines."""

OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["summary"],
    "properties": {"summary": {"type": "string", "minLength": 1, "maxLength": SUMMARY_MAX_CHARS}},
}
"""JSON Schema of the answer: the new summary, which replaces the old one."""

INSTRUCTIONS = """You are {name}. You are keeping your own memory: the older things you
remember are written down below as lines, and you fold them into one short account of your
own, so that nothing that matters is lost.

Rules:
- Write in the first person (I, me, my), as you yourself remember it.
- Start from your account so far and add the lines below to it; keep what still matters
  from both: promises, debts, plans, who said what, what was given or hidden, and where.
- Copy every code, password, number and secret word exactly as it is written, letter for
  letter and digit for digit.
- Call each person exactly as the lines call them. Use no other name.
- What someone said stays something they said: "the tall man said the seal was forged",
  not "the seal was forged".
- Keep it under {words} words. Answer as {{"summary": "..."}}."""
"""Opens every reviser prompt. It speaks to the character as the Character prompt does:
never a word of fiction, story or role ("characters" included: its length is told in
words)."""

NOTHING_YET = "(nothing yet)"
"""The account so far of a character whose memory was never folded."""

ASK = "Now write your new account, in your own words, as I remember it."
"""The request that closes the prompt (a small model copies a request that names the
blocks: "Your account so far and these lines, folded into one." opened two live summaries
of four)."""


def head(name: str, sheet: Character) -> str:
    """The stable head: role, rules and the character's own sheet.

    Example:
        >>> from tavern.records import Body, Mind
        >>> sheet = Character(id="ana", mind=Mind(secrets=["I owe Rui 30 coins"]),
        ...     body=Body(display_name="Ana", description_ref="the woman"))
        >>> head("Ana", sheet).splitlines()[-2]
        'Secrets: I owe Rui 30 coins'
    """
    mind = sheet.mind
    looks, nature, secrets, goals = SHEET_LABELS
    return (
        INSTRUCTIONS.format(name=name, words=SUMMARY_MAX_CHARS // 6)
        + f"\n\n{looks} {sheet.body.appearance or '(plain)'}"
        + f"\n{nature} {mind.personality or '(unremarkable)'}"
        + f"\n{secrets} {'; '.join(mind.secrets) or '(none)'}"
        + f"\n{goals} {'; '.join(mind.goals) or '(none)'}"
    )


def build_messages(
    name: str, sheet: Character, summary: str, lines: list[str], keep: list[str] | None = None
) -> list[ChatMessage]:
    """Build a reviser prompt.

    Args:
        name: The character's own name.
        sheet: Its own sheet, already rendered in its own names
            (`runner.own_view.own_sheet`).
        summary: Its summary so far, '' when none.
        lines: The oldest memory lines to fold, oldest first, as its ledger holds them.
        keep: The codes of `lines` the summary must hold verbatim (`physics.verbatim.codes`),
            listed again on their own: a small model told only in the rules dropped them (two
            live summaries of four lost "4471" and "23:15").

    Returns:
        System (the stable head) and user messages.

    Example:
        >>> from tavern.records import Body, Mind
        >>> sheet = Character(id="ana", mind=Mind(), body=Body(display_name="Ana",
        ...     description_ref="the woman"))
        >>> lines = ['Someone said: "Gate code 4471."']
        >>> print(build_messages("Ana", sheet, "", lines, ["4471"])[1].content)
        ## Your account so far
        (nothing yet)
        <BLANKLINE>
        ## Older lines to fold in
        · Someone said: "Gate code 4471."
        <BLANKLINE>
        ## Words to copy exactly
        4471
        <BLANKLINE>
        ## Now
        Now write your new account, in your own words, as I remember it.
    """
    blocks = [
        PromptBlock("Who you are", head(name, sheet), Stability.IDENTITY),
        PromptBlock("Your account so far", summary or NOTHING_YET, Stability.SLOW),
        PromptBlock("Older lines to fold in", log_lines(lines), Stability.VOLATILE),
        PromptBlock("Words to copy exactly", ", ".join(keep or ()), Stability.VOLATILE),
        PromptBlock("Now", ASK, Stability.VOLATILE),
    ]
    return assemble(blocks)


def parse(data: dict[str, Any]) -> str:
    """The summary of a schema-valid answer, blanks trimmed ('' when only blanks).

    >>> parse({"summary": "  I keep the code 4471. "})
    'I keep the code 4471.'
    """
    return str(data["summary"]).strip()
