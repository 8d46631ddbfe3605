"""Structural rules: one character marked unlike the rest.

A prompt may reveal the human without a single operator word: a "(you)" tag after one name,
a field every other character card has, a different label form, or one name left out of a
list that names everyone else. Comparisons need at least three character blocks, because two
cannot tell "different" from "normal variety"; marker tags fire on their own.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from tavern.contract._cache import MessageCache
from tavern.contract._raw_ids import detect_raw_id
from tavern.contract._types import Rule, Violation
from tavern.records import ChatMessage

MIN_BLOCKS = 3
MARKER_TAG = re.compile(
    r"[\(\[<{]\s*(?:you|yourself|pc|player|human|user|me|self|controlled|protagonist|"
    r"jogador|jogadora|humano|usu[aá]rio|voc[eê]|eu|controlad[oa]s?|protagonista)\s*[\)\]>}]",
    re.IGNORECASE,
)
MASK = re.compile(r"[\(\[<{]\s*(?:\.{2,}|…)\s*[\)\]>}]")
"""An elision such as the clamps' redaction mask "[...]" (also "(...)", "[…]"): it stands for
words taken out, anywhere in a text, so after a name it is no tag marking that character."""
_TAG = re.compile(r"\s*(?:(?!" + MASK.pattern + r")[\(\[<{][^\)\]>}\n]{1,40}[\)\]>}]|[*†★✓✔]+)")
LOG_MARK = "·"
"""Opens a line of free text (a record, a memory, a fact: the prompt builders'
`agents.render.LOG`): such a line is never a character block, whatever label and name
follow ("· You thought: Joaquim Serra, where is my axe?" is a thought, not a card)."""
_BULLET = re.compile(r"^\s*(?:[-*•>#]+|\d+[.)])?\s*")
_FIELD = re.compile(r"(?:^|[;|,(:]|\n)\s*[-*•]?\s*([A-Za-zÀ-ÿ][A-Za-zÀ-ÿ _]{0,29}?)\s*:", re.M)
_SELF = re.compile(r"\b(?:you are|you're|voc[eê] [eé]|tu [eé]s)\s+", re.IGNORECASE)
_LIST_SEPARATORS = re.compile(r"(?:[,;|/&.]|\band\b|\be\b|\bor\b|\bou\b|\s)+", re.IGNORECASE)

Cast = tuple[str, ...]


@dataclass(frozen=True)
class _Block:
    name: str
    start: int
    end: int
    prefix: str
    tag: str
    separator: str
    fields: frozenset[str]


def _header_regex(name: str) -> re.Pattern[str]:
    return re.compile(rf"(?:[^\n:]{{0,30}}?:\s*|\[[^\]\n]{{1,20}}\]\s*)?{re.escape(name)}\b")


def _word_regex(name: str) -> re.Pattern[str]:
    return re.compile(rf"\b{re.escape(name)}\b")


def _line_header(line: str, names: Cast) -> tuple[str, re.Match[str]] | None:
    """The name and header match of a line opening a character block, if it opens one.

    A labelled line naming several characters ("Present: Mara, Rui") is a list, not a block;
    a line opening with `LOG_MARK` is free text, not a block.

    >>> _line_header("Character: Mara (guest)", ("Mara",))[0]
    'Mara'
    >>> _line_header("· You thought: Mara, where is my axe?", ("Mara",)) is None
    True
    """
    if line.lstrip().startswith(LOG_MARK):
        return None
    bullet = _BULLET.match(line)
    rest_at = bullet.end() if bullet else 0
    for name in sorted(names, key=len, reverse=True):
        if name not in line:
            continue  # a header holds its name
        hit = _header_regex(name).match(line, rest_at)
        if hit is None:
            continue
        labelled = hit.end() - len(name) > rest_at
        if not (labelled and any(n != name and n in line[hit.end() :] for n in names)):
            return name, hit
    return None


def blocks(content: str, names: Cast) -> tuple[_Block, ...]:
    """Character blocks: a line opening with a cast name, up to the next such line.

    Only each name's first block counts (a card, or a first transcript line): later lines
    of a transcript are the same speaker again, not another character to compare with.
    """
    lines = content.splitlines(keepends=True)
    offsets, pos = [], 0
    for line in lines:
        offsets.append(pos)
        pos += len(line)
    heads: list[tuple[int, str, re.Match[str]]] = []
    seen: set[str] = set()
    starts: list[int] = []
    for i, line in enumerate(lines):
        header = _line_header(line, names)
        if header is None:
            continue
        name, hit = header
        starts.append(i)
        if name not in seen:
            heads.append((i, name, hit))
        seen.add(name)
    found = []
    for i, name, hit in heads:
        stop = min([j for j in starts if j > i], default=len(lines))
        line = lines[i]
        tag = _TAG.match(line, hit.end())
        after = tag.end() if tag else hit.end()
        tail = line[after:].lstrip(" \t")
        body = "".join(lines[i:stop])
        fields = {f.strip().casefold() for f in _FIELD.findall(body[after:])}
        fields = {f for f in fields if f and f != name.casefold()}
        found.append(
            _Block(
                name=name,
                start=offsets[i] + hit.start(),
                end=offsets[i] + (tag.end() if tag else hit.end()),
                prefix=re.sub(r"\d+", "#", " ".join(line[: hit.end() - len(name)].split())),
                tag=tag.group().strip() if tag else "",
                separator=tail[:1] if tail[:1] in ":—–-,|(" else "",
                fields=frozenset(fields),
            )
        )
    return tuple(found)


def _odd_one(values: Sequence[object]) -> int | None:
    """Index of the single value unlike all the others (which agree), if there is one.

    >>> _odd_one(["a", "b", "b"]), _odd_one(["b", "a", "b"]), _odd_one(["a", "b", "c"])
    (0, 1, None)
    """
    if len(values) < MIN_BLOCKS:
        return None
    for i, value in enumerate(values):
        others = [v for j, v in enumerate(values) if j != i]
        if all(v == others[0] for v in others) and value != others[0]:
            return i
    return None


def _per_message(
    messages: Sequence[ChatMessage], names: Sequence[str], cache: MessageCache
) -> list[tuple[_Block, ...]]:
    if not names:
        return [() for _ in messages]
    return [cache.get("blocks", m.content, tuple(names), blocks) for m in messages]


def _violation(rule: str, content: str, index: int, start: int, end: int) -> Violation:
    return Violation(rule, (start, end), content[start:end], index)


def _marker_tags(content: str, _: Cast) -> tuple[tuple[int, int], ...]:
    return tuple(m.span() for m in MARKER_TAG.finditer(content))


def detect_marker_tag(
    messages: Sequence[ChatMessage], names: Sequence[str], cache: MessageCache
) -> list[Violation]:
    """A bracketed marker such as "(you)", "[PC]", "<player>", "(você)" anywhere."""
    return [
        _violation("structural_marker_tag", msg.content, i, start, end)
        for i, msg in enumerate(messages)
        for start, end in cache.get("marker_tag", msg.content, (), _marker_tags)
    ]


def detect_odd_tag(
    messages: Sequence[ChatMessage], names: Sequence[str], cache: MessageCache
) -> list[Violation]:
    """Exactly one character block carries a tag after its name; the others carry none."""
    found = []
    for i, found_blocks in enumerate(_per_message(messages, names, cache)):
        odd = _odd_one([bool(b.tag) for b in found_blocks])
        if odd is not None and found_blocks[odd].tag:
            b = found_blocks[odd]
            found.append(_violation("structural_odd_tag", messages[i].content, i, b.start, b.end))
    return found


def detect_label_form(
    messages: Sequence[ChatMessage], names: Sequence[str], cache: MessageCache
) -> list[Violation]:
    """Exactly one character block is introduced in a different form (label or separator)."""
    found = []
    for i, found_blocks in enumerate(_per_message(messages, names, cache)):
        odd = _odd_one([(b.prefix, b.separator) for b in found_blocks])
        if odd is not None:
            b = found_blocks[odd]
            content = messages[i].content
            found.append(_violation("structural_label_form", content, i, b.start, b.end))
    return found


def detect_missing_field(
    messages: Sequence[ChatMessage], names: Sequence[str], cache: MessageCache
) -> list[Violation]:
    """A field every other character block has is missing from exactly one."""
    found = []
    for i, found_blocks in enumerate(_per_message(messages, names, cache)):
        if len(found_blocks) < MIN_BLOCKS:
            continue
        every = set().union(*(b.fields for b in found_blocks))
        for field in sorted(every):
            odd = _odd_one([field in b.fields for b in found_blocks])
            if odd is not None and field not in found_blocks[odd].fields:
                b = found_blocks[odd]
                content = messages[i].content
                found.append(_violation("structural_missing_field", content, i, b.start, b.end))
                break
    return found


def _self_names(content: str, names: Cast) -> frozenset[str]:
    """Names the text addresses as its own subject ("You are Mara", "Você é Joana")."""
    return frozenset(
        n for m in _SELF.finditer(content) for n in names if content.startswith(n, m.end())
    )


def _list_lines(content: str, names: Cast) -> tuple[tuple[int, int, str], ...]:
    """(start, end, missing name) of each labelled list line naming all the cast but one."""
    found = []
    pos = 0
    for line in content.splitlines(keepends=True):
        label, colon, rest = line.partition(":")
        if colon and len(label) <= 60:
            listed = [n for n in names if n in rest and _word_regex(n).search(rest)]
            missing = [n for n in names if n not in listed]
            leftover = rest
            for n in sorted(listed, key=len, reverse=True):
                leftover = leftover.replace(n, " ")
            if len(listed) >= 2 and len(missing) == 1 and not _LIST_SEPARATORS.sub("", leftover):
                start = pos + len(label) + 1 + (len(rest) - len(rest.lstrip()))
                found.append((start, pos + len(label) + 1 + len(rest.rstrip()), missing[0]))
        pos += len(line)
    return tuple(found)


def detect_excluded(
    messages: Sequence[ChatMessage], names: Sequence[str], cache: MessageCache
) -> list[Violation]:
    """A labelled list of names that leaves out exactly one cast member named elsewhere.

    The prompt's own subject ("You are Mara") may be left out of a list of others: every
    character's prompt has that shape, so it marks no one.
    """
    if len(names) < MIN_BLOCKS:
        return []
    cast = tuple(names)
    candidates = [
        (i, c)
        for i, m in enumerate(messages)
        for c in cache.get("lists", m.content, cast, _list_lines)
    ]
    if not candidates:
        return []
    selves = frozenset().union(*(cache.get("self", m.content, cast, _self_names) for m in messages))
    found = []
    for i, (start, end, gone) in candidates:
        named = any(_word_regex(gone).search(m.content) for m in messages)
        if gone not in selves and named:
            found.append(_violation("structural_excluded", messages[i].content, i, start, end))
    return found


STRUCTURAL_RULES = [
    Rule("structural_marker_tag", "structural", detect_marker_tag, "a (you) / [PC] style tag"),
    Rule("structural_odd_tag", "structural", detect_odd_tag, "one block tagged, others not"),
    Rule("structural_label_form", "structural", detect_label_form, "one block labelled apart"),
    Rule("structural_missing_field", "structural", detect_missing_field, "one block lacks a field"),
    Rule("structural_excluded", "structural", detect_excluded, "one name left out of a list"),
    Rule("structural_raw_id", "structural", detect_raw_id, "raw slot ids without a roster"),
]
