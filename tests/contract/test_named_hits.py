"""Card headers and list lines read only the named lines that hold one, with the same result.

`_named_lines._named_hits` keeps, per text, only the named lines whose per-line result is not
None (with their index), reusing a base text's up to the lines `_lines` keeps. The old code
kept every named line's result and skipped the Nones in each reader. The properties compare
`_headers_cached` and `_list_lines` with copies of the old code (`_old_named_results`,
`_old_headers`, `_old_list_lines`) on generated prompt families and on the prompts of a
kernel session. The negative control reuses one line past the shared prefix and shows the
same comparison failing.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tavern.contract import _named_lines, _prefilter, _structural, clear_caches
from tavern.contract._named_lines import _LINES_KEPT, _kept, _lines
from tavern.contract._prefilter import MIN_SHARED, Recent, shared_base
from tavern.contract._structural import (
    _FEWEST_COMPARED,
    _FIELDS,
    _TAG,
    _Block,
    _line_header,
    _list_line,
)
from tavern.records import ChatMessage

from .test_incremental_structure import texts
from .test_line_index import kernel_prompts

__all__ = ["kernel_prompts"]  # the fixture, shared with test_line_index

NAMES = ("Mara", "Rui", "Ana Sol")
T = TypeVar("T")
_OLD_KEPT: Recent[tuple[str, tuple[str, ...], object], list[Any]] = Recent(register=False)

# -- the code before `_named_hits`, kept as the reference ---------------------------------------


def _old_named_results(
    content: str, names: tuple[str, ...], per_line: Callable[[str, tuple[str, ...]], T]
) -> list[T]:
    """`per_line(line, names)` for each named line of `content`, in order. A base line that
    `_lines` keeps is the same line here (same index, equally named): its result is reused."""
    lines, _, named = _lines(content, names)
    base, shared = shared_base(content)
    reused: list[T] = []
    if base is not None:
        old = _OLD_KEPT.get((base, names, per_line))
        base_lines = _LINES_KEPT.get((base, names)) if old is not None else None
        if old is not None and base_lines is not None:
            reused = old[: bisect_left(base_lines[2], _kept(base_lines[1], shared))]
    results = reused + [per_line(lines[i], names) for i in named[len(reused) :]]
    return _OLD_KEPT.put((content, names, per_line), results)


def _old_headers(content: str, names: tuple[str, ...]) -> tuple[_Block, ...]:
    lines, offsets, named = _lines(content, names)
    heads: list[tuple[int, str, tuple[int, int]]] = []
    seen: set[str] = set()
    starts: list[int] = []
    for i, found in zip(named, _old_named_results(content, names, _line_header), strict=True):
        if found is not None:
            starts.append(i)
            name, hit = found
            if name not in seen:
                heads.append((i, name, hit))
            seen.add(name)
    if len(heads) < _FEWEST_COMPARED:
        return ()
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


def _old_list_lines(content: str, names: tuple[str, ...]) -> tuple[tuple[int, int, str], ...]:
    _, offsets, named = _lines(content, names)
    return tuple(
        (offsets[i] + found[0], offsets[i] + found[1], found[2])
        for i, found in zip(named, _old_named_results(content, names, _list_line), strict=True)
        if found is not None
    )


def _unchanged(sequence: Sequence[str], names: tuple[str, ...]) -> bool:
    """Each text of `sequence`, in order (so the new code reuses), reads as the old code."""
    clear_caches()
    _OLD_KEPT.clear()
    return all(
        _structural._headers_cached(text, names) == _old_headers(text, names)
        and _structural._list_lines(text, names) == _old_list_lines(text, names)
        for text in sequence
    )


def _family(head: str, tails: list[str]) -> list[str]:
    padded = (head or "x") * (1 + MIN_SHARED // max(1, len(head or "x")))
    return [padded + tail for tail in tails]


CARDS = st.lists(
    st.sampled_from(["Mara: a\n", "Rui (you): b\n", "- Ana Sol: c; Look: d\n", "Present: "]),
    max_size=6,
).map("".join)


@settings(max_examples=200, deadline=None)
@given(st.tuples(CARDS, texts).map("".join), st.lists(texts, min_size=1, max_size=4))
def test_headers_and_list_lines_equal_the_old_code(head: str, tails: list[str]) -> None:
    assert _unchanged(_family(head, tails), NAMES)


@settings(
    max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.data())
def test_kernel_prompts_read_as_before(
    kernel_prompts: list[list[ChatMessage]], data: st.DataObject
) -> None:
    start = data.draw(st.integers(0, len(kernel_prompts) - 30), label="start")
    cast = ("Agnese Corvo", "Brother Caspar", "Lio Mendez", "Dorotea Sand", "Felix Aubert")
    window = [m.content for messages in kernel_prompts[start : start + 30] for m in messages]
    assert _unchanged(window, cast)


def test_negative_control_reusing_a_line_past_the_cut_is_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The shared prefix ends inside "Mara: x" / "Marab": a header in the first text only.
    # Planted: keep one line more, so the second text keeps Mara's stale header (a third).
    family = _family("Rui: a\nAna Sol: b\n", ["Mara: x\n", "Marab\n"])
    assert _unchanged(family, NAMES)
    clear_caches()
    _OLD_KEPT.clear()
    for text in family:
        _prefilter._probe(text)
        _lines(text, NAMES)  # split honestly (and cached) before the fault
    kept = _named_lines._kept
    monkeypatch.setattr(_named_lines, "_kept", lambda offsets, shared: kept(offsets, shared) + 1)
    planted = [_structural._headers_cached(text, NAMES) for text in family]
    monkeypatch.undo()
    assert planted[1] != _old_headers(family[1], NAMES)
