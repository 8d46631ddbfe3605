"""The raw-id rule: internal slot ids (C1..C99) in a prompt that does not map them to names.

A prompt may name characters by slot id only where it also gives a roster ("C1 = Mara",
"Mara (C1)"); anywhere else an id is internal plumbing that must not reach a model.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache

from tavern.contract._prefilter import CACHE_SIZE, CACHES, Recent, shared_base
from tavern.contract._types import Violation
from tavern.records import ChatMessage

SLOT_ID = re.compile(r"\bC[1-9][0-9]?\b")


@lru_cache(maxsize=CACHE_SIZE)
def _roster_regexes(names: tuple[str, ...]) -> tuple[re.Pattern[str], re.Pattern[str]]:
    word = "|".join(re.escape(n) for n in names) if names else r"[A-ZÀ-Ý][\w'-]+"
    forward = re.compile(
        rf"\b(C[1-9][0-9]?)\b[\"']?\s*(?:=|:|->|→|—|–|\(|is\b|[eé]\b)\s*[\"']?(?:{word})"
    )
    backward = re.compile(rf"(?:{word})\s*[\(\[]\s*(C[1-9][0-9]?)\s*[\)\]]")
    return forward, backward


_SLOT_START = re.compile(r"C[1-9]")
_SLOT_TEXT = re.compile(r"C[1-9][0-9]?")
_ALL: frozenset[str] = frozenset()
"""No early stop: the search runs to the end."""


@lru_cache(maxsize=CACHE_SIZE)
def _slot_ids(content: str) -> tuple[tuple[int, int, str], ...]:
    # `SLOT_ID.finditer`, found faster: its leading \b denies the engine its literal-prefix
    # search, so look for "C<digit>" (a literal prefix) and confirm each with SLOT_ID at that
    # position. Slot ids cannot overlap, and none can start inside another "C<digit>".
    found = []
    for candidate in _SLOT_START.finditer(content):
        m = SLOT_ID.match(content, candidate.start())
        if m:
            found.append((m.start(), m.end(), m.group()))
    return tuple(found)


def _starts(content: str, names: tuple[str, ...]) -> list[int]:
    """Every position where some name begins (overlapping occurrences included)."""
    starts: set[int] = set()
    for name in names:
        at = content.find(name)
        while at != -1:
            starts.add(at)
            at = content.find(name, at + 1)
    return sorted(starts)


def _findall_from(
    regex: re.Pattern[str], content: str, starts: Iterable[int], enough: frozenset[str] = _ALL
) -> set[str]:
    """`set(regex.findall(content))` for a one-group regex that can only match at `starts`.

    findall takes the leftmost match, then resumes at its end: walking the only possible
    starts left to right, skipping those inside the last match, is the same walk. The walk
    stops early once it found every group value in `enough` (a prefix of the same walk).
    """
    found: set[str] = set()
    last_end = 0
    for start in starts:
        if start >= last_end and (m := regex.match(content, start)):
            found.add(m.group(1))
            last_end = m.end()
            if enough and found >= enough:
                break
    return found


@lru_cache(maxsize=CACHE_SIZE)
def _mapped_in(
    content: str, names: tuple[str, ...], enough: frozenset[str] = _ALL
) -> frozenset[str]:
    forward, backward = _roster_regexes(names)
    # Both findall scans, without trying every position: a forward match opens with the
    # slot-id pattern itself (its own \b checks tell a real id from a "C1" inside a word),
    # a backward one with a cast name (when there is a cast).
    starts = (m.start() for m in _SLOT_START.finditer(content))
    found = _findall_from(forward, content, starts, enough)
    if enough and found >= enough:
        return frozenset(found)
    if names and all(names):
        found |= _findall_from(backward, content, _starts(content, names), enough - found)
    else:
        found |= set(backward.findall(content))
    return frozenset(found)


def _mapped_ids(
    messages: Sequence[ChatMessage], names: Sequence[str], enough: frozenset[str] = _ALL
) -> set[str]:
    """Slot ids the prompt itself maps to a name (a roster such as "C1 = Mara").

    With `enough`, the search may stop once every id of it is found mapped: the answer is
    then a subset of the full one that still contains `enough`.
    """
    found: set[str] = set()
    for msg in messages:
        found |= _mapped_in(msg.content, tuple(names), frozenset(enough - found))
        if enough and found >= enough:
            break
    return found


_ID_REACH = 3
"""A slot id reaching the end of a shared prefix starts at most this many characters before
it (an id is at most three characters long)."""
_ID_SETS: Recent[str, frozenset[str]] = Recent()


@lru_cache(maxsize=CACHE_SIZE)
def _id_texts(content: str) -> frozenset[str]:
    """A superset of the texts the slot ids of `content` have: all `detect_raw_id` needs.

    Every slot id is a match of `_SLOT_TEXT`'s walk (it opens with "C", which no earlier
    match can cover). A slot id ending before the last character of a prefix shared with a
    recent text reads only shared characters, so it is one there too: that text's set holds
    it, and only the rest is searched.
    """
    base, shared = shared_base(content)
    known = _ID_SETS.get(base) if base is not None else None
    if known is None:
        return _ID_SETS.put(content, frozenset(_SLOT_TEXT.findall(content)))
    tail = _SLOT_TEXT.findall(content, max(0, shared - _ID_REACH))
    return _ID_SETS.put(content, known.union(tail))


def detect_raw_id(messages: Sequence[ChatMessage], names: Sequence[str]) -> list[Violation]:
    """Internal slot ids (C1..C99) in a prompt that does not map them to names."""
    # Any superset of the prompt's slot-id texts serves: when all of it is mapped, so is
    # every slot id (the answer is empty); otherwise the full search runs.
    possible = frozenset().union(*(_id_texts(m.content) for m in messages))
    if not possible:
        return []  # the roster search is only needed when some id appears
    if _mapped_ids(messages, names, possible) >= possible:
        return []  # every id the prompt could hold is mapped: none is raw
    ids = [(i, slot) for i, msg in enumerate(messages) for slot in _slot_ids(msg.content)]
    mapped = _mapped_ids(messages, names)
    return [
        Violation("structural_raw_id", (start, end), slot_id, i)
        for i, (start, end, slot_id) in ids
        if slot_id not in mapped
    ]


CACHES.extend([_slot_ids, _mapped_in, _id_texts])
