"""`render.log_block` extends the block of a remembered list instead of joining every line
again; a block never depends on that memory. Hypothesis compares it with `log_lines` (the
join as it was, the reference) over sequences of lists that grow, move, change a line, hold
empty and blank lines; a realistic case grows a Character's memory window beat by beat and
checks whole Character prompts against prompts built with `log_lines`; the negative control
plants a join that drops the newline between the remembered block and the new lines."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tavern.agents import render

LINES = ["Rain drums.", "", "  ", "Maren nods.\nShe waits.", "Ilse sits.", "The door opens."]

steps = st.lists(
    st.tuples(st.integers(0, 12), st.integers(0, 30), st.integers(-1, 29)), min_size=1, max_size=8
)


def _pool() -> list[str]:
    return [f"{LINES[i % len(LINES)]} {i}" if i % 7 else LINES[i % len(LINES)] for i in range(40)]


def _check(cases: list[tuple[int, int, int]]) -> None:
    pool = _pool()
    for start, end, changed in cases:
        texts = pool[start:end]
        if 0 <= changed < len(texts):
            texts[changed] = texts[changed] + " (changed)"
        assert render.log_block(texts) == render.log_lines(texts)


@settings(max_examples=300, deadline=None)
@given(cases=steps)
def test_log_block_equals_log_lines(cases: list[tuple[int, int, int]]) -> None:
    _check(cases)


def test_log_block_equals_log_lines_on_a_growing_memory() -> None:
    """Realistic: a memory window of 300 lines, grown by three lines a beat for twenty beats,
    its start moved once, two memories played in turn."""
    memory = [
        f"Turn {i // 3}: Maren Holt says something about the ledger ({i})." for i in range(400)
    ]
    other = [f"Turn {i // 3}: Ilse Brandt waits by the door ({i})." for i in range(400)]
    for beat in range(20):
        start = 0 if beat < 12 else 64
        for lines in (memory, other):
            texts = lines[start : 300 + 3 * beat]
            assert render.log_block(texts) == render.log_lines(texts)


@settings(max_examples=200, deadline=None)
@given(parts=st.lists(st.lists(st.sampled_from(LINES), max_size=5), min_size=3, max_size=3))
def test_memory_joined_by_parts_equals_it_joined_whole(parts: list[list[str]]) -> None:
    """As `character.build_messages` joins its summary, memory window and this beat's lines."""
    summary, memory, now = parts
    pieces = (render.log_lines(summary), render.log_block(memory), render.log_lines(now))
    assert "\n".join(filter(None, pieces)) == render.log_lines(summary + memory + now)


def test_negative_control_a_block_joined_without_its_newline_is_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Planted: the new lines are glued to the remembered block."""
    remembered: list[tuple[list[str], str]] = []

    def glued(texts: list[str]) -> str:
        for old, block in reversed(remembered):
            if len(old) <= len(texts) and texts[: len(old)] == old:
                block += render.log_lines(texts[len(old) :])
                break
        else:
            block = render.log_lines(texts)
        remembered.append((list(texts), block))
        return block

    monkeypatch.setattr(render, "log_block", glued)
    with pytest.raises(AssertionError):
        test_log_block_equals_log_lines_on_a_growing_memory()
