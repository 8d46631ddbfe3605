"""The raw-id rule: internal slot ids (C1..C99) in a prompt that does not map them to names.

A prompt may name characters by slot id only where it also gives a roster ("C1 = Mara",
"Mara (C1)"); anywhere else an id is internal plumbing that must not reach a model.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from tavern.contract._cache import MessageCache
from tavern.contract._types import Violation
from tavern.records import ChatMessage

SLOT_ID = re.compile(r"\bC[1-9][0-9]?\b")


def _slot_ids(content: str, _: tuple[str, ...]) -> tuple[tuple[int, int, str], ...]:
    return tuple((m.start(), m.end(), m.group()) for m in SLOT_ID.finditer(content))


def _mapped(content: str, names: tuple[str, ...]) -> frozenset[str]:
    """Slot ids this text maps to a name (a roster such as "C1 = Mara" or "Mara (C1)")."""
    if "C" not in content:
        return frozenset()  # both forms hold a slot id
    word = "|".join(re.escape(n) for n in names) if names else r"[A-ZÀ-Ý][\w'-]+"
    forward = re.compile(
        rf"\b(C[1-9][0-9]?)\b[\"']?\s*(?:=|:|->|→|—|–|\(|is\b|[eé]\b)\s*[\"']?(?:{word})"
    )
    backward = re.compile(rf"(?:{word})\s*[\(\[]\s*(C[1-9][0-9]?)\s*[\)\]]")
    return frozenset(forward.findall(content)) | frozenset(backward.findall(content))


def detect_raw_id(
    messages: Sequence[ChatMessage], names: Sequence[str], cache: MessageCache
) -> list[Violation]:
    """Internal slot ids (C1..C99) in a prompt that does not map them to names."""
    ids = [
        (i, found)
        for i, msg in enumerate(messages)
        for found in cache.get("slot_ids", msg.content, (), _slot_ids)
    ]
    if not ids:
        return []  # the roster search is only needed when some id appears
    cast = tuple(names)
    mapped = frozenset().union(*(cache.get("mapped", m.content, cast, _mapped) for m in messages))
    return [
        Violation("structural_raw_id", (start, end), slot_id, i)
        for i, (start, end, slot_id) in ids
        if slot_id not in mapped
    ]
