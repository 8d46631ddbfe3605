"""Prompt blocks: stable order, and windows whose start moves in strides."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tavern.agents.blocks import PromptBlock, Stability, assemble, snapped_start


def test_blocks_are_laid_out_identity_first_then_slow_then_volatile() -> None:
    blocks = [
        PromptBlock("Now", "n", Stability.VOLATILE),
        PromptBlock("Memory", "m", Stability.SLOW),
        PromptBlock("Role", "r", Stability.IDENTITY),
        PromptBlock("Facts", "f", Stability.SLOW),
    ]
    system, user = assemble(blocks)
    assert system.role == "system" and system.content == "## Role\nr"
    assert user.content == "## Memory\nm\n\n## Facts\nf\n\n## Now\nn"


sizes = st.lists(st.integers(1, 50), min_size=1, max_size=60)


@given(sizes=sizes, budget=st.integers(1, 800), stride=st.integers(1, 16), first=st.integers(0, 99))
def test_window_fits_and_starts_on_a_stride(
    sizes: list[int], budget: int, stride: int, first: int
) -> None:
    keys = list(range(first, first + len(sizes)))
    start = snapped_start(keys, sizes, budget, stride, truncated=first > 0)
    if first == 0 and sum(sizes) <= budget:
        assert start == 0  # a whole session that fits is shown whole
    assert sum(sizes[start:]) <= budget
    if 0 < start < len(keys):
        assert keys[start] % stride == 0


@given(sizes=sizes, extra=st.lists(st.integers(1, 50), max_size=5), stride=st.integers(2, 16))
def test_appending_never_moves_the_start_back(
    sizes: list[int], extra: list[int], stride: int
) -> None:
    budget = 400
    keys = list(range(len(sizes)))
    before = snapped_start(keys, sizes, budget, stride)
    grown = sizes + extra
    after = snapped_start(list(range(len(grown))), grown, budget, stride)
    assert after >= before or before == len(sizes)


@given(st.lists(st.text(alphabet=" \t\n\u2028\u3000ab·", max_size=8), max_size=8))
def test_log_lines_fold_each_text_behind_the_log_mark(texts: list[str]) -> None:
    from tavern.agents.render import LOG, log_lines

    plain = "\n".join(LOG + " ".join(t.split()) for t in texts if t and t.strip())
    assert log_lines(texts) == plain
