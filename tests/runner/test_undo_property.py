"""Undo round trip: any sequence of turns followed by as many undos restores the session.

Everything but `revision` (which only ever grows, so that a writer holding an old revision
conflicts instead of overwriting) comes back exactly: scene, moods, ledgers, clock, history.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tavern.records import TurnInput

from .kit import KitFactory, run

_TEXT = st.sampled_from(["The lamp.", "Who goes there?", "Rosewater 12", "I wait.", "Hm."])
TURNS = st.one_of(
    st.builds(TurnInput, speech=_TEXT),
    st.builds(TurnInput, speech=_TEXT, whisper_to=st.sampled_from([["C2"], ["C4"], ["C2", "C4"]])),
    st.builds(TurnInput, thought=_TEXT),
    st.builds(TurnInput, action=_TEXT, force_speaker=st.sampled_from(["C2", "C3", "C5", None])),
    st.builds(TurnInput, skip=st.just(True), hint=st.sampled_from([None, "Thunder."])),
    st.builds(TurnInput, skip=st.just(True), force_speaker=st.sampled_from(["C1", "Narrator"])),
)


@settings(
    max_examples=6,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(turns=st.lists(TURNS, min_size=1, max_size=4), warmup=st.integers(0, 1))
def test_turns_then_as_many_undos_restore_the_session(
    make_kit: KitFactory, turns: list[TurnInput], warmup: int
) -> None:
    kit = make_kit("parrot")
    sid = kit.create()
    for _ in range(warmup):
        kit.play(sid, speech="Good evening.", force_speaker="C2")
    before, history = kit.state(sid), kit.history(sid)
    for turn in turns:
        run(kit.runner.play_turn(sid, turn))
    assert kit.state(sid).turn_number == before.turn_number + len(turns)
    for _ in turns:
        run(kit.runner.undo(sid))
    after = kit.state(sid)
    assert after.revision > before.revision
    assert after.model_copy(update={"revision": before.revision}) == before
    assert kit.history(sid) == history
