"""A straightforward reference evaluation of the contract, kept to check the fast path.

This is the contract's evaluation as it was before it was optimized: every lexical pattern
run over every message, every name's header regex tried on every line, nothing cached or
skipped. It shares the patterns (data) with `tavern.contract` and re-implements only the
evaluation, so `test_fast_path_equals_reference` shows the optimization dropped nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from tavern.contract import TEXT_RULES, Violation
from tavern.contract._lexical import _F, NEGATED, NOUN, ROLE, VERB
from tavern.contract._raw_ids import SLOT_ID
from tavern.contract._structural import (
    _BULLET,
    _FIELD,
    _LIST_SEPARATORS,
    _SELF,
    _TAG,
    MARKER_TAG,
    MIN_BLOCKS,
)
from tavern.records import ChatMessage

Detector = Callable[[Sequence[ChatMessage], Sequence[str]], list[Violation]]


def _lexical(name: str, patterns: Sequence[str]) -> Detector:
    compiled = [re.compile(p, re.UNICODE if "N?PC" in p else _F) for p in patterns]

    def detect(messages: Sequence[ChatMessage], cast_names: Sequence[str]) -> list[Violation]:
        found = []
        for index, message in enumerate(messages):
            for regex in compiled:
                for m in regex.finditer(message.content):
                    found.append(Violation(name, (m.start(), m.end()), m.group(), index))
        return found

    return detect


@dataclass(frozen=True)
class _Block:
    name: str
    start: int
    end: int
    prefix: str
    tag: str
    separator: str
    fields: frozenset[str]


def _headers(content: str, names: Sequence[str]) -> list[_Block]:
    """Character blocks: a line opening with a cast name, up to the next such line.

    Only each name's first block counts (a card, or a first transcript line): later lines
    of a transcript are the same speaker again, not another character to compare with.
    A labelled line naming several characters ("Present: Mara, Rui") is a list, not a block.
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
        bullet = _BULLET.match(line)
        rest_at = bullet.end() if bullet else 0
        for name in sorted(names, key=len, reverse=True):
            m = re.compile(rf"(?:[^\n:]{{0,30}}?:\s*|\[[^\]\n]{{1,20}}\]\s*)?{re.escape(name)}\b")
            hit = m.match(line, rest_at)
            labelled = hit is not None and hit.end() - len(name) > rest_at
            others = [n for n in names if n != name and n in line[hit.end() :]] if hit else []
            if hit and not (labelled and others):
                starts.append(i)
                if name not in seen:
                    heads.append((i, name, hit))
                seen.add(name)
                break
    blocks = []
    for i, name, hit in heads:
        stop = min([j for j in starts if j > i], default=len(lines))
        line = lines[i]
        tag = _TAG.match(line, hit.end())
        after = tag.end() if tag else hit.end()
        tail = line[after:].lstrip(" \t")
        body = "".join(lines[i:stop])
        fields = {f.strip().casefold() for f in _FIELD.findall(body[after:])}
        fields = {f for f in fields if f and f != name.casefold()}
        blocks.append(
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
    return blocks


def _odd_one(values: Sequence[object]) -> int | None:
    """Index of the single value unlike all the others (which agree), if there is one."""
    if len(values) < MIN_BLOCKS:
        return None
    for i, value in enumerate(values):
        others = [v for j, v in enumerate(values) if j != i]
        if all(v == others[0] for v in others) and value != others[0]:
            return i
    return None


def _per_message(messages: Sequence[ChatMessage], names: Sequence[str]) -> list[list[_Block]]:
    return [_headers(m.content, names) for m in messages] if names else [[] for _ in messages]


def _violation(rule: str, content: str, index: int, start: int, end: int) -> Violation:
    return Violation(rule, (start, end), content[start:end], index)


def detect_marker_tag(messages: Sequence[ChatMessage], names: Sequence[str]) -> list[Violation]:
    """A bracketed marker such as "(you)", "[PC]", "<player>", "(você)" anywhere."""
    return [
        _violation("structural_marker_tag", msg.content, i, m.start(), m.end())
        for i, msg in enumerate(messages)
        for m in MARKER_TAG.finditer(msg.content)
    ]


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


def _self_names(messages: Sequence[ChatMessage], names: Sequence[str]) -> set[str]:
    selves = set()
    for msg in messages:
        for m in _SELF.finditer(msg.content):
            selves |= {n for n in names if msg.content.startswith(n, m.end())}
    return selves


def detect_excluded(messages: Sequence[ChatMessage], names: Sequence[str]) -> list[Violation]:
    """A labelled list of names that leaves out exactly one cast member named elsewhere.

    The prompt's own subject ("You are Mara") may be left out of a list of others: every
    character's prompt has that shape, so it marks no one.
    """
    if len(names) < MIN_BLOCKS:
        return []
    everything = "\n".join(m.content for m in messages)
    selves = _self_names(messages, names)
    found = []
    for i, msg in enumerate(messages):
        pos = 0
        for line in msg.content.splitlines(keepends=True):
            label, colon, rest = line.partition(":")
            listed = [n for n in names if re.search(rf"\b{re.escape(n)}\b", rest)]
            leftover = rest
            for n in sorted(listed, key=len, reverse=True):
                leftover = leftover.replace(n, " ")
            pure = colon and len(label) <= 60 and not _LIST_SEPARATORS.sub("", leftover)
            missing = [n for n in names if n not in listed]
            if pure and len(listed) >= 2 and len(missing) == 1:
                gone = missing[0]
                if gone not in selves and re.search(rf"\b{re.escape(gone)}\b", everything):
                    start = pos + len(label) + 1 + (len(rest) - len(rest.lstrip()))
                    end = pos + len(label) + 1 + len(rest.rstrip())
                    found.append(_violation("structural_excluded", msg.content, i, start, end))
            pos += len(line)
    return found


def _mapped_ids(messages: Sequence[ChatMessage], names: Sequence[str]) -> set[str]:
    """Slot ids the prompt itself maps to a name (a roster such as "C1 = Mara")."""
    word = "|".join(re.escape(n) for n in names) if names else r"[A-ZÀ-Ý][\w'-]+"
    forward = re.compile(
        rf"\b(C[1-9][0-9]?)\b[\"']?\s*(?:=|:|->|→|—|–|\(|is\b|[eé]\b)\s*[\"']?(?:{word})"
    )
    backward = re.compile(rf"(?:{word})\s*[\(\[]\s*(C[1-9][0-9]?)\s*[\)\]]")
    found: set[str] = set()
    for msg in messages:
        found |= set(forward.findall(msg.content)) | set(backward.findall(msg.content))
    return found


def detect_raw_id(messages: Sequence[ChatMessage], names: Sequence[str]) -> list[Violation]:
    """Internal slot ids (C1..C99) in a prompt that does not map them to names."""
    mapped = _mapped_ids(messages, names)
    return [
        _violation("structural_raw_id", msg.content, i, m.start(), m.end())
        for i, msg in enumerate(messages)
        for m in SLOT_ID.finditer(msg.content)
        if m.group() not in mapped
    ]


REFERENCE_RULES: dict[str, Detector] = {
    "lexical_noun": _lexical("lexical_noun", NOUN),
    "lexical_role": _lexical("lexical_role", ROLE),
    "lexical_negated": _lexical("lexical_negated", NEGATED),
    "lexical_verb": _lexical("lexical_verb", VERB),
    "structural_marker_tag": detect_marker_tag,
    "structural_odd_tag": detect_odd_tag,
    "structural_label_form": detect_label_form,
    "structural_missing_field": detect_missing_field,
    "structural_excluded": detect_excluded,
    "structural_raw_id": detect_raw_id,
}


def reference_check_prompt(
    messages: Sequence[ChatMessage],
    cast_names: Sequence[str] = (),
    only: Sequence[str] | None = None,
) -> list[Violation]:
    """`check_prompt`, evaluated the slow, obvious way (`only`: rule names to run)."""
    found: list[Violation] = []
    for name, detect in REFERENCE_RULES.items():
        if only is None or name in only:
            found.extend(detect(messages, cast_names))
    return sorted(set(found), key=lambda v: (v.message_index, v.span, v.rule))


def reference_check_text(text: str, cast_names: Sequence[str] = ()) -> list[Violation]:
    """`check_text`, evaluated the slow, obvious way."""
    only = [n for n in REFERENCE_RULES if n.startswith("lexical_") or n in TEXT_RULES]
    message = [ChatMessage(role="user", content=text)]
    return [
        Violation(v.rule, v.span, v.excerpt, -1)
        for v in reference_check_prompt(message, cast_names, only)
    ]
