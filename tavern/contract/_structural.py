"""Structural rules: one character marked unlike the rest, and raw internal slot ids.

A prompt may reveal the human without a single operator word: a "(you)" tag after one name,
a field every other character card has, a different label form, or one name left out of a
list that names everyone else. Comparisons need at least three character blocks, because two
cannot tell "different" from "normal variety"; marker tags fire on their own.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from tavern.contract._line_index import watch
from tavern.contract._named_lines import _lines, _named_hits
from tavern.contract._prefilter import (
    CACHE_SIZE,
    CACHES,
    folded,
    may_match,
    required_literals,
    shared_base,
)
from tavern.contract._raw_ids import _starts, detect_raw_id
from tavern.contract._reuse import ReusingScanner
from tavern.contract._types import Rule, Violation
from tavern.records import ChatMessage

MIN_BLOCKS = 3
_FEWEST_COMPARED = MIN_BLOCKS
"""Fewer blocks than this in a message are never compared, so they are not built."""
MARKER_TAG = re.compile(
    r"[\(\[<{]\s*(?:you|yourself|pc|player|human|user|me|self|controlled|protagonist|"
    r"jogador|jogadora|humano|usu[aá]rio|voc[eê]|eu|controlad[oa]s?|protagonista)\s*[\)\]>}]",
    re.IGNORECASE,
)
_TAG = re.compile(r"\s*(?:[\(\[<{][^\)\]>}\n]{1,40}[\)\]>}]|[*†★✓✔]+)")
_BULLET = re.compile(r"^\s*(?:[-*•>#]+|\d+[.)])?\s*")
_FIELD = re.compile(r"(?:^|[;|,(:]|\n)\s*[-*•]?\s*([A-Za-zÀ-ÿ][A-Za-zÀ-ÿ _]{0,29}?)\s*:", re.M)
_SELF = re.compile(r"\b(?:you are|you're|voc[eê] [eé]|tu [eé]s)\s+", re.IGNORECASE)
_LIST_SEPARATORS = re.compile(r"(?:[,;|/&.]|\band\b|\be\b|\bor\b|\bou\b|\s)+", re.IGNORECASE)
# A card's body and a prompt extend the previous prompt's: these scans reuse its matches.
_FIELDS = ReusingScanner(_FIELD)
_MARKERS = ReusingScanner(MARKER_TAG, base_of=shared_base)


@dataclass(frozen=True)
class _Block:
    name: str
    start: int
    end: int
    prefix: str
    tag: str
    separator: str
    fields: frozenset[str]


@lru_cache(maxsize=256)
def _header_regex(name: str) -> re.Pattern[str]:
    return re.compile(rf"(?:[^\n:]{{0,30}}?:\s*|\[[^\]\n]{{1,20}}\]\s*)?{re.escape(name)}\b")


@lru_cache(maxsize=256)
def _word_regex(name: str) -> re.Pattern[str]:
    return re.compile(rf"\b{re.escape(name)}\b")


def _headers(content: str, names: Sequence[str]) -> tuple[_Block, ...]:
    """Character blocks: a line opening with a cast name, up to the next such line.

    Only each name's first block counts (a card, or a first transcript line): later lines
    of a transcript are the same speaker again, not another character to compare with.
    A labelled line naming several characters ("Present: Mara, Rui") is a list, not a block.
    A message with fewer than `MIN_BLOCKS` blocks gets none: no rule compares so few.
    """
    return _headers_cached(content, tuple(names))


@lru_cache(maxsize=CACHE_SIZE * 64)
def _line_header(line: str, names: tuple[str, ...]) -> tuple[str, tuple[int, int]] | None:
    """The name a line opens a character block with, and that header's span in the line.

    Cached per line: a transcript repeats most of its lines from one prompt to the next.
    """
    present = [(n, _header_regex(n)) for n in sorted(names, key=len, reverse=True) if n in line]
    if not present:
        return None  # a header match contains its name: lines without any need no regex
    bullet = _BULLET.match(line)
    rest_at = bullet.end() if bullet else 0
    for name, regex in present:
        hit = regex.match(line, rest_at)
        labelled = hit is not None and hit.end() - len(name) > rest_at
        others = [n for n in names if n != name and n in line[hit.end() :]] if hit else []
        if hit and not (labelled and others):
            return name, hit.span()
    return None


@lru_cache(maxsize=CACHE_SIZE)
def _headers_cached(content: str, names: tuple[str, ...]) -> tuple[_Block, ...]:
    # Cached per (content, cast): three rules read the same blocks, and the system message
    # repeats verbatim on every call of a role.
    lines, offsets, _ = _lines(content, names)
    heads: list[tuple[int, str, tuple[int, int]]] = []
    seen: set[str] = set()
    starts: list[int] = []
    for i, (name, hit) in _named_hits(content, names, _line_header):
        starts.append(i)
        if name not in seen:
            heads.append((i, name, hit))
        seen.add(name)
    if len(heads) < _FEWEST_COMPARED:
        return ()  # every rule reading blocks compares at least this many: none reads these
    blocks = []
    for i, name, (hit_start, hit_end) in heads:
        stop = min([j for j in starts if j > i], default=len(lines))
        line = lines[i]
        tag = _TAG.match(line, hit_end)
        after = tag.end() if tag else hit_end
        tail = line[after:].lstrip(" \t")
        body = "".join(lines[i:stop])
        fields = {g[1].strip().casefold() for _, _, g in _FIELDS.scan(body[after:])}
        fields = {f for f in fields if f and f != name.casefold()}
        blocks.append(
            _Block(
                name=name,
                start=offsets[i] + hit_start,
                end=offsets[i] + (tag.end() if tag else hit_end),
                prefix=re.sub(r"\d+", "#", " ".join(line[: hit_end - len(name)].split())),
                tag=tag.group().strip() if tag else "",
                separator=tail[:1] if tail[:1] in ":—–-,|(" else "",
                fields=frozenset(fields),
            )
        )
    return tuple(blocks)


def _odd_one(values: Sequence[object]) -> int | None:
    """Index of the single value unlike all the others (which agree), if there is one."""
    if len(values) < MIN_BLOCKS:
        return None
    # One pass: with three or more values, the odd one is the only value unlike the first,
    # or the first itself when every other value is unlike it and they all agree.
    first = values[0]
    differ = [i for i, v in enumerate(values) if v != first]
    if len(differ) == 1:
        return differ[0]
    if len(differ) == len(values) - 1 and all(values[i] == values[differ[0]] for i in differ):
        return 0
    return None


def _per_message(messages: Sequence[ChatMessage], names: Sequence[str]) -> list[tuple[_Block, ...]]:
    return [_headers(m.content, names) for m in messages] if names else [() for _ in messages]


def _violation(rule: str, content: str, index: int, start: int, end: int) -> Violation:
    return Violation(rule, (start, end), content[start:end], index)


def detect_marker_tag(messages: Sequence[ChatMessage], names: Sequence[str]) -> list[Violation]:
    """A bracketed marker such as "(you)", "[PC]", "<player>", "(você)" anywhere."""
    return [
        _violation("structural_marker_tag", msg.content, i, start, end)
        for i, msg in enumerate(messages)
        for start, end in _marker_tags(msg.content)
    ]


@lru_cache(maxsize=CACHE_SIZE)
def _marker_tags(content: str) -> tuple[tuple[int, int], ...]:
    return tuple((start, end) for start, end, _ in _MARKERS.scan(content))


def detect_odd_tag(messages: Sequence[ChatMessage], names: Sequence[str]) -> list[Violation]:
    """Exactly one character block carries a tag after its name; the others carry none."""
    found = []
    for i, blocks in enumerate(_per_message(messages, names)):
        odd = _odd_one([bool(b.tag) for b in blocks])
        if odd is not None and blocks[odd].tag:
            b = blocks[odd]
            found.append(_violation("structural_odd_tag", messages[i].content, i, b.start, b.end))
    return found


def detect_label_form(messages: Sequence[ChatMessage], names: Sequence[str]) -> list[Violation]:
    """Exactly one character block is introduced in a different form (label or separator)."""
    found = []
    for i, blocks in enumerate(_per_message(messages, names)):
        odd = _odd_one([(b.prefix, b.separator) for b in blocks])
        if odd is not None:
            b = blocks[odd]
            found.append(
                _violation("structural_label_form", messages[i].content, i, b.start, b.end)
            )
    return found


def detect_missing_field(messages: Sequence[ChatMessage], names: Sequence[str]) -> list[Violation]:
    """A field every other character block has is missing from exactly one."""
    found = []
    for i, blocks in enumerate(_per_message(messages, names)):
        if len(blocks) < MIN_BLOCKS:
            continue
        every = set().union(*(b.fields for b in blocks))
        for field in sorted(every):
            odd = _odd_one([field in b.fields for b in blocks])
            if odd is not None and field not in blocks[odd].fields:
                b = blocks[odd]
                content = messages[i].content
                found.append(_violation("structural_missing_field", content, i, b.start, b.end))
                break
    return found


_SELF_NEEDS = required_literals(_SELF)
watch(_SELF_NEEDS[0], _SELF_NEEDS[1][0])  # looked up in every prompt with a cast


_SELF_OPENINGS = ("you are", "you're", "voc", "tu")
"""Every `_SELF` match opens with one of these (case-folded): its matches can only start
where one occurs (a test holds the pattern to it)."""


@lru_cache(maxsize=CACHE_SIZE)
def _self_names_in(content: str, names: tuple[str, ...]) -> frozenset[str]:
    if not may_match(*_SELF_NEEDS, content):
        return frozenset()
    # `_SELF.finditer`, without trying every position (IGNORECASE denies the engine its
    # literal search): matches cannot overlap, so trying the possible starts in order and
    # skipping those inside the last match is the same walk.
    found: list[str] = []
    last_end = 0
    for start in _starts(folded(content), _SELF_OPENINGS):
        if start >= last_end and (m := _SELF.match(content, start)):
            found.extend(n for n in names if content.startswith(n, m.end()))
            last_end = m.end()
    return frozenset(found)


def _self_names(messages: Sequence[ChatMessage], names: Sequence[str]) -> set[str]:
    selves: set[str] = set()
    for msg in messages:
        selves |= _self_names_in(msg.content, tuple(names))
    return selves


@lru_cache(maxsize=CACHE_SIZE)
def _list_lines(content: str, names: tuple[str, ...]) -> tuple[tuple[int, int, str], ...]:
    """(start, end, missing name) of each labelled list line naming all the cast but one.

    Cached per (content, cast), and each line's verdict per (line, cast): a prompt repeats
    most lines of the previous one.
    """
    _, offsets, _ = _lines(content, names)
    return tuple(
        (offsets[i] + found[0], offsets[i] + found[1], found[2])
        for i, found in _named_hits(content, names, _list_line)
    )


@lru_cache(maxsize=CACHE_SIZE * 64)
def _list_line(line: str, names: tuple[str, ...]) -> tuple[int, int, str] | None:
    """(start, end, missing name) within `line` if it is a labelled list of all the cast
    but one. Cheap tests run first; the verdict is the same as testing the list's shape
    first, since every test is a pure condition of the same conjunction."""
    label, colon, rest = line.partition(":")
    listed = [n for n in names if n in rest and _word_regex(n).search(rest)]
    missing = [n for n in names if n not in listed]
    if not (colon and len(label) <= 60 and len(listed) >= 2 and len(missing) == 1):
        return None
    leftover = rest
    for n in sorted(listed, key=len, reverse=True):
        leftover = leftover.replace(n, " ")
    if _LIST_SEPARATORS.sub("", leftover):
        return None
    start = len(label) + 1 + (len(rest) - len(rest.lstrip()))
    return start, len(label) + 1 + len(rest.rstrip()), missing[0]


def detect_excluded(messages: Sequence[ChatMessage], names: Sequence[str]) -> list[Violation]:
    """A labelled list of names that leaves out exactly one cast member named elsewhere.

    The prompt's own subject ("You are Mara") may be left out of a list of others: every
    character's prompt has that shape, so it marks no one.
    """
    if len(names) < MIN_BLOCKS:
        return []
    cast = tuple(names)
    candidates = [(i, c) for i, m in enumerate(messages) for c in _list_lines(m.content, cast)]
    if not candidates:
        return []
    everything = "\n".join(m.content for m in messages)
    selves = _self_names(messages, names)
    found = []
    for i, (start, end, gone) in candidates:
        if gone not in selves and _word_regex(gone).search(everything):
            found.append(_violation("structural_excluded", messages[i].content, i, start, end))
    return found


CACHES.extend(
    [
        _marker_tags,
        _line_header,
        _headers_cached,
        _self_names_in,
        _list_lines,
        _list_line,
        _FIELDS,
        _MARKERS,
    ]
)

STRUCTURAL_RULES = [
    Rule("structural_marker_tag", "structural", detect_marker_tag, "a (you) / [PC] style tag"),
    Rule("structural_odd_tag", "structural", detect_odd_tag, "one block tagged, others not"),
    Rule("structural_label_form", "structural", detect_label_form, "one block labelled apart"),
    Rule("structural_missing_field", "structural", detect_missing_field, "one block lacks a field"),
    Rule("structural_excluded", "structural", detect_excluded, "one name left out of a list"),
    Rule("structural_raw_id", "structural", detect_raw_id, "raw slot ids without a roster"),
]
