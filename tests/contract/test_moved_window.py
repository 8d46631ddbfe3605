"""Lookups in a prompt whose history window moved skip what it copies, exactly.

When a role's prompt loses its oldest history lines, it shares no long prefix with the
role's previous prompt; `_moved.moved_copy` finds where it goes on with that prompt's text
further along, and a literal that prompt lacks is searched only outside the copies
(`first_outside`). The properties: the copy is true, `first_outside` equals a plain
`find` for every literal the earlier text lacks, and a probe's lookups and folded text equal
a plain search. The negative control drops the search across the border of the two copies
and shows a literal spanning it going missing.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tavern.contract import _moved, _prefilter, clear_caches
from tavern.contract._moved import first_outside, moved_copy
from tavern.contract._prefilter import MIN_SHARED, fold

HEAD = "## Recent history of the vintner's house, as the Director sees it.\n"
LINES = [
    "[#1 t0] speech by Mara (C1) | the cellar key\n", "event: the player waits\n", "ab ba\n",
    "keyboard\n", "key", "board\n", "the user\n", "ſ İ Σ\n", "word " * 12 + "\n", "x" * 50 + "\n",
]  # fmt: skip
LITERALS = ["keyboard", "user", "ab", "ba", "player", "board\nkey", "ss", "ey", "xw"]
histories = st.lists(st.sampled_from(LINES), min_size=20, max_size=60)


@st.composite
def moves(draw: st.DrawFn) -> tuple[str, str]:
    """(earlier prompt, later prompt): the window drops lines, new ones come at the end."""
    lines = draw(histories)
    dropped = draw(st.integers(0, len(lines) // 2))
    new = draw(st.lists(st.sampled_from(LINES), max_size=6))
    padding = "".join(lines) * (1 + MIN_SHARED // len("".join(lines)))
    return HEAD + padding + "".join(lines), HEAD + padding[dropped * 7 :] + "".join(lines + new)


@settings(max_examples=300, deadline=None)
@given(moves())
def test_the_copy_is_true_and_lookups_outside_it_are_plain_finds(pair: tuple[str, str]) -> None:
    base, text = pair
    copy = moved_copy(text, base)
    if copy is None:
        return
    start, end, offset = copy
    assert text[:start] == base[:start]
    assert text[start:end] == base[start + offset : end + offset]
    for literal in LITERALS:
        if literal not in base:
            assert first_outside(text, literal, copy) == text.find(literal)


@settings(max_examples=200, deadline=None)
@given(moves())
def test_probe_lookups_equal_a_plain_search(pair: tuple[str, str]) -> None:
    clear_caches()
    for text in pair:
        probe = _prefilter._probe(text)
        assert probe.folded == fold.__wrapped__(text)
        for literal in LITERALS:
            assert probe.first(False, literal) == text.find(literal)
            assert probe.first(True, fold(literal)) == fold(text).find(fold(literal))


def test_a_moved_window_is_found() -> None:
    clear_caches()
    lines = [f"[#{i} t{i // 3}] event | the cask rolls toward the cellar door\n" for i in range(60)]
    first = HEAD + "".join(lines[:50]) + "## Now\n"
    second = HEAD + "".join(lines[8:55]) + "## Now\n"
    _prefilter._probe(first).first(True, "keyboard")
    probe = _prefilter._probe(second)
    assert probe.shared[False] < MIN_SHARED and probe.moved is not None
    start, end, _ = probe.moved
    assert end - start > len(second) // 2
    assert probe.first(True, "keyboard") == -1


def test_negative_control_skipping_the_border_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    # "key" ends the shared opening and "board" opens the copy: "keyboard" spans the border,
    # and the earlier text has no "keyboard" at all.
    base = (
        HEAD
        + "the key\n"
        + "x" * 60
        + "board and more text to copy, long enough to hold an anchor\n"
    )
    text = HEAD + "the key" + "board and more text to copy, long enough to hold an anchor\n"
    copy = moved_copy(text, base)
    assert copy is not None and "keyboard" not in base

    def after_the_copy_only(haystack: str, literal: str, copy: _moved.Copy) -> int:
        return haystack.find(literal, max(0, copy[1] - len(literal) + 1))  # planted

    honest = first_outside(text, "keyboard", copy)
    monkeypatch.setattr(_moved, "first_outside", after_the_copy_only)
    assert honest == text.find("keyboard") != -1
    assert _moved.first_outside(text, "keyboard", copy) != honest
