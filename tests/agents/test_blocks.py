"""Prompt blocks: stable order, and windows whose start moves in strides."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
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


def test_record_lines_never_serve_a_line_for_another_record() -> None:
    """Records made and dropped in turn reuse freed identities at once; the memo keeps its
    records alive, so every answer follows its own record's text."""
    from tavern.physics.record_memo import RecordMemo
    from tavern.records import Audience, SystemRecord

    lines: RecordMemo[str] = RecordMemo(limit=16)
    for i in range(200):
        record = SystemRecord(
            seq=i, turn_number=1, speaker="World", author="kernel",
            audience=Audience(origin="public"), marker="m", text=f"line {i}",
        )  # fmt: skip
        assert lines.get(record, lines.number("k"), lambda r: r.text) == f"line {i}"


def _pool(n: int) -> list[Any]:
    from tavern.records import Audience, SystemRecord

    return [
        SystemRecord(
            seq=i, turn_number=1, speaker="World", author="kernel",
            audience=Audience(origin="public"), marker="m", text=f"line {i}",
        )
        for i in range(n)
    ]  # fmt: skip


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 30), st.integers(0, 30), st.integers(0, 31)), max_size=12))
def test_window_values_equal_the_per_record_values(windows: list[tuple[int, int, int]]) -> None:
    """Windows that grow, move, shrink or jump, from some item on made of fresh records
    (new identities, changed text; all fresh, or none): `all` answers exactly what deriving
    each record would."""
    from tavern.physics.record_memo import RecordMemo

    pool, memo = _pool(31), RecordMemo[str](limit=64)
    for start, length, fresh_from in windows:
        window = pool[start : start + length]
        window = window[:fresh_from] + [
            r.model_copy(update={"text": r.text + "'"}) for r in window[fresh_from:]
        ]  # a fresh record must not count as a repeat, nor anything after it
        assert memo.all(window, 0, lambda r: r.text) == [r.text for r in window]


def test_negative_control_reuse_past_the_first_changed_record_is_caught() -> None:
    """Planted: a repeat check that trusts the old list's values after an item that differs
    (comparing only the first and the last item)."""
    from tavern.physics import record_memo

    def ends_only(old: list[Any], old_values: list[str], records: Any) -> list[str]:
        span = min(len(old), len(records))
        if old and old[0] is records[0] and old[span - 1] is records[span - 1]:
            return old_values[:span]
        return []

    pool = _pool(6)
    changed = [*pool[:2], pool[2].model_copy(update={"text": "new"}), *pool[3:]]
    memo = record_memo.RecordMemo[str]()
    memo.all(pool, 0, lambda r: r.text)
    real = record_memo._repeated
    try:
        record_memo._repeated = ends_only
        stale = memo.all(changed, 0, lambda r: r.text)
    finally:
        record_memo._repeated = real
    assert stale != [r.text for r in changed]


def test_negative_control_reuse_by_position_serves_stale_values() -> None:
    """Planted: trust the previous list's values by position, without the identity check."""
    from tavern.physics.record_memo import RecordMemo

    class ByPosition(RecordMemo[str]):
        def all(self, records: Any, key: int, derive: Any) -> list[str]:
            last = self._last.get(key)
            kept = last[1][: len(records)] if last else []
            values = kept + [derive(r) for r in records[len(kept) :]]
            self._last[key] = (list(records), values)
            return values

    pool, memo = _pool(10), ByPosition()
    memo.all(pool[:4], 0, lambda r: r.text)
    moved = pool[2:8]
    assert memo.all(moved, 0, lambda r: r.text) != [r.text for r in moved]


@given(st.lists(st.text(alphabet=" \t\n\u2028\u3000ab·", max_size=8), max_size=8))
def test_remembered_log_lines_equal_the_plain_fold(texts: list[str]) -> None:
    from tavern.agents.render import LOG, log_lines

    plain = "\n".join(LOG + " ".join(t.split()) for t in texts if t and t.strip())
    assert log_lines(texts) == plain
