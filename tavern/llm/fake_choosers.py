"""The choices behind the fake provider's modes: `parrot` and `adversary`.

Both read the prompt they were given. `parrot` copies its salient tokens into every free-text
field, so whatever reached a prompt surfaces in the output (a leak detector). `adversary` is
hostile but schema-valid: the widest lists, invented ids, every private-looking token it saw,
maximal numbers (time skips), every optional field present, events that reach every room
(every other one acted by nobody) and stage facts copied from the newest history lines.
"""

from __future__ import annotations

import random
import re
from typing import Any

from tavern.llm.call_policy import LANGUAGE_POLICY, PUNCTUATION_POLICY
from tavern.llm.schema_gen import Path
from tavern.records.history import NARRATOR

MAX_TEXT_CHARS = 4000
INVENTED_IDS = ("C97", "C98", "C99")
ID_TOKEN = re.compile(r"\bC[1-9][0-9]?\b")
TOKEN = re.compile(r"\w[\w'-]*\w|\w", re.UNICODE)
ID_KEY = re.compile(r"(^|_)(id|ids|speakers?|witness\w*|targets?|sources?|actor|who)$")
STOPWORDS = frozenset(
    """about above after again against also answer because been before being below between
    both could does doing down during each every from further have having here into itself
    just more most must once only other over same should some such than that their theirs
    them then there these they this those through under until very what when where which
    while will with would your yours json schema object string value write""".split()
)
_POLICY_TEXTS = tuple(LANGUAGE_POLICY.values()) + tuple(PUNCTUATION_POLICY.values())


def prompt_text(messages: list[Any]) -> str:
    """The concatenated prompt, minus the call-time policy the client appended."""
    text = "\n".join(m.content for m in messages)
    for policy in _POLICY_TEXTS:
        text = text.replace(policy, " ")
    return text


def salient_tokens(text: str) -> list[str]:
    """Tokens worth repeating: long words, capitalized words, anything with a digit.

    >>> salient_tokens("the CANARY_7 sat on a mat near Brom with ring")
    ['CANARY_7', 'near', 'Brom', 'ring']
    """
    seen: dict[str, None] = {}
    for token in TOKEN.findall(text):
        lowered = token.lower()
        if lowered in STOPWORDS:
            continue
        if len(token) >= 4 or token[0].isupper() or any(c.isdigit() for c in token):
            seen.setdefault(token, None)
    return list(seen)


PRIVATE_MARK = re.compile(r"\d|_|[a-z][A-Z]")
"""A digit, an underscore or a capital inside a word: how canaries, codes and passwords look
(in a word of 5+ characters with a letter: "t0", "12" and slot ids are not)."""


def _private_looking(token: str) -> bool:
    return len(token) >= 5 and not token.isdigit() and bool(PRIVATE_MARK.search(token))


def ranked_tokens(text: str) -> list[str]:
    """`salient_tokens` in the order a free-text field takes them: private-looking ones first,
    then the rest from the text's end back.

    A field holds a few hundred characters, and a real prompt opens with thousands of
    characters of fixed instructions; in prompt order, every field held the same opening words
    and a token of the volatile tail (this beat's events and lines, where a leak would sit)
    never surfaced.

    >>> ranked_tokens("Rules first. Then C2 hears Quill7731 near Brom at t0")
    ['Quill7731', 't0', 'Brom', 'near', 'hears', 'C2', 'first', 'Rules']
    """
    tokens = salient_tokens(text)
    private = [t for t in tokens if _private_looking(t)]
    return [*private, *(t for t in reversed(tokens) if not _private_looking(t))]


def _id_like(path: Path) -> bool:
    keys = [p for p in path if not p.isdigit()]
    return bool(keys) and bool(ID_KEY.search(keys[-1]))


HISTORY_LINE = re.compile(r"^\[#(\d+)[^\]]*\][^|]*\|\s*(.+)$", re.MULTILINE)
"""A history line of a prompt ("[#12 t3] attempt by ... | pulls the lever"): its seq, text."""


def history_texts(prompt: str) -> list[str]:
    r"""The texts of the prompt's history lines, newest first, each marked with its seq (so
    a copy made on a later beat is a new text).

    >>> history_texts('[#1 t0] speech by A | "hi"\nNow\n[#2 t1] attempt by B | pulls it')
    ['#2 pulls it', '#1 "hi"']
    """
    lines = HISTORY_LINE.finditer(prompt)
    return [f"#{m.group(1)} {m.group(2).strip()}" for m in lines][::-1]


class _Base:
    def __init__(self, rng: random.Random, prompt: str) -> None:
        self.rng = rng
        self.tokens = ranked_tokens(prompt) or ["silence"]
        self.ids = list(dict.fromkeys(ID_TOKEN.findall(prompt)))

    def _joined(self, tokens: list[str], lo: int, hi: int | None) -> str:
        limit = MAX_TEXT_CHARS if hi is None else min(hi, MAX_TEXT_CHARS)
        out = ""
        for token in tokens:
            candidate = f"{out} {token}" if out else token
            if len(candidate) > limit:
                break
            out = candidate
        return out  # the generator pads to minLength

    def boolean(self, path: Path) -> bool:
        return self.rng.random() < 0.5


class ParrotChooser(_Base):
    """Every free-text field carries every salient token of the prompt (up to the length)."""

    def text(self, path: Path, min_len: int, max_len: int | None) -> str:
        return self._joined(self.tokens, min_len, max_len)

    def integer(self, path: Path, lo: int | None, hi: int | None) -> int:
        low = lo if lo is not None else (0 if hi is None or hi >= 0 else hi)
        high = hi if hi is not None else low + 3
        return self.rng.randint(low, max(low, high))

    def array_length(self, path: Path, lo: int, hi: int | None) -> int:
        top = lo + 2 if hi is None else hi
        return self.rng.randint(lo, max(lo, min(top, max(lo, 2))))

    def include_optional(self, path: Path, key: str) -> bool:
        return True

    def extra_keys(self, path: Path, count_hint: int) -> list[str]:
        return [*self.ids, *self.tokens][: max(count_hint, 1)]

    def pick_index(self, path: Path, options: list[Any]) -> int:
        live = [i for i, option in enumerate(options) if option is not None] or [0]
        return self.rng.choice(live)


class AdversaryChooser(_Base):
    """Hostile choices: widest, longest, largest, with invented and private ids.

    Beyond copying every token it saw, it aims at the boundaries between rooms: a nullable
    id (an event's actor) is null on every other item, so that event's witnesses may be
    anyone present, sealed rooms included, and it carries the private-looking words first
    (a whisper word, once published somewhere, carried into a room that never heard it);
    every `add_facts` item copies one of the newest history lines (an attempt made in a
    sealed room becomes a stage fact everyone reads), as many as the schema allows, beat
    after beat (unbounded facts).
    """

    def __init__(self, rng: random.Random, prompt: str) -> None:
        super().__init__(rng, prompt)
        self.everyone: list[str] = list(dict.fromkeys([*self.ids, str(NARRATOR), *INVENTED_IDS]))
        self._id_cursor = 0
        self.lines = history_texts(prompt)

    def text(self, path: Path, min_len: int, max_len: int | None) -> str:
        if _id_like(path):
            # Walk through everyone so a list of ids names each of them once.
            token = self.everyone[self._id_cursor % len(self.everyone)]
            self._id_cursor += 1
            if max_len is None or len(token) <= max_len:
                return token
        if len(path) >= 2 and path[-2] == "add_facts" and path[-1].isdigit():
            index = int(path[-1])
            if index < len(self.lines):
                return self._joined(self.lines[index].split(), min_len, max_len)
        return self._joined(self.tokens, min_len, max_len)

    def integer(self, path: Path, lo: int | None, hi: int | None) -> int:
        if hi is not None:
            return hi
        return (lo or 0) + 1_000_000

    def array_length(self, path: Path, lo: int, hi: int | None) -> int:
        if _id_like(path):
            self._id_cursor = 0
            wanted = len(self.everyone)
        else:
            wanted = 3
        if hi is not None:
            return max(lo, hi if hi <= UNBOUNDED_CAP else max(wanted, lo))
        return max(lo, wanted)

    def include_optional(self, path: Path, key: str) -> bool:
        return True

    def extra_keys(self, path: Path, count_hint: int) -> list[str]:
        return self.everyone[: max(count_hint, len(self.everyone))]

    def pick_index(self, path: Path, options: list[Any]) -> int:
        live = [i for i, option in enumerate(options) if option is not None] or [0]
        nulls = [i for i, option in enumerate(options) if option is None]
        item = next((int(p) for p in reversed(path) if p.isdigit()), 0)
        if nulls and _id_like(path) and item % 2 == 1:
            return nulls[0]  # an id nobody holds: the event's witnesses may be anyone
        return live[-1]

    def boolean(self, path: Path) -> bool:
        return True


UNBOUNDED_CAP = 12
