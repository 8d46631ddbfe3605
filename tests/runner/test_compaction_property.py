"""Compaction properties: compact then restore is the identity on history and state.

Any turns, a compaction, any turns played after it, then the restore: the session equals a
twin that played the same turns and was never compacted (everything but the id, the
creation time and `revision`, which only grows). Undo across the compaction in between
keeps that true.

The twin comparison holds while the retention window covers every turn the kernel looks
back over (the Director's window, the perception window of the secret guards and of the
ledgers' memory masks): a compaction that takes one of those turns away changes what a
later turn computes, which is what it is for. The runner here looks back over 2 turns; the
default window (`DEFAULT_RETENTION_TURNS`) covers the default limits in the same way.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tavern.records import SessionState, TurnInput
from tavern.runner.limits import KernelLimits

from .compaction_kit import answers
from .kit import Kit, KitFactory, run
from .test_undo_property import TURNS

LOOK_BACK_2 = KernelLimits(director_turns=2, perception_turns=2, window_step=1)


def _comparable(state: SessionState) -> dict[str, object]:
    return state.model_dump(exclude={"id", "created_at", "revision"})


def _history(kit: Kit, sid: str) -> list[dict[str, object]]:
    return [r.model_dump() for r in kit.history(sid)]


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    before=st.lists(TURNS, min_size=3, max_size=6),
    retention=st.integers(2, 3),
    after=st.lists(TURNS, min_size=0, max_size=3),
    undos=st.integers(0, 3),
)
def test_compact_then_restore_is_the_identity(
    make_kit: KitFactory,
    before: list[TurnInput],
    retention: int,
    after: list[TurnInput],
    undos: int,
) -> None:
    kit = make_kit(fn=answers)
    kit.runner.limits = LOOK_BACK_2
    sid, twin = kit.create(), kit.create()
    for turn in before:
        run(kit.runner.play_turn(sid, turn))
        run(kit.runner.play_turn(twin, turn))
    start, history = kit.state(sid), _history(kit, sid)
    done = run(kit.runner.compact(sid, retention_turns=retention))
    assert 0 <= done.cutoff_turn <= len(before) - retention  # a turn may add no record
    assert kit.state(sid).turn_number == start.turn_number
    for turn in after:
        run(kit.runner.play_turn(sid, turn))
        run(kit.runner.play_turn(twin, turn))
    # undo across the compaction, down to its first live turn at most
    for _ in range(min(undos, len(after) + len(before) - done.cutoff_turn - 1)):
        run(kit.runner.undo(sid))
        run(kit.runner.undo(twin))
    run(kit.runner.restore(sid))
    state = kit.state(sid)
    assert state.revision > start.revision
    mine, theirs = _comparable(state), _comparable(kit.state(twin))
    assert {k: v for k, v in mine.items() if theirs[k] != v} == {}
    assert _history(kit, sid) == _history(kit, twin)
    if not after and not undos:  # nothing but the compaction: exactly the session before
        assert state.model_copy(update={"revision": start.revision}) == start
        assert _history(kit, sid) == history
    # and every pre-turn checkpoint holds what the twin's does: undo both down to turn 0
    while kit.state(sid).turn_number > 0:
        run(kit.runner.undo(sid))
        run(kit.runner.undo(twin))
        assert _comparable(kit.state(sid)) == _comparable(kit.state(twin))
