"""Knowledge boundaries over many turns with the `parrot` fake.

The parrot copies every salient token of each prompt into its answers, so anything that
reaches a prompt it should not reach surfaces in that call's prompt or its output, and then
in whatever the kernel builds from it next. Each test also shows the canary DID travel where
it is allowed to (a positive control), so the sweep is looking at live data.
"""

from __future__ import annotations

from tavern.physics.perception import perceives

from .kit import Kit, KitFactory, parrot_narrated
from .sweeps import call_texts, leaks, outsider_agents, prompt_of, unlearned_names

WHISPER = "Quillfeather7731"
THOUGHT = "Marrowgate4402"
SPOKEN = "Saltlantern9153"
OUTSIDERS = ["C3", "C4", "C5"]  # cellar (sealed), same hall (only aware), balcony (hears hall)


def _play_many(kit: Kit, sid: str, turns: int) -> None:
    for i in range(turns):
        if i % 3 == 2:
            kit.play(sid, action="paces slowly around the coffin", force_speaker=OUTSIDERS[i % 3])
        else:
            kit.play(sid, skip=True, force_speaker=OUTSIDERS[i % 3])


def test_whisper_canary_never_reaches_an_outsider(make_kit: KitFactory) -> None:
    kit = make_kit("parrot")
    sid = kit.create()
    kit.play(sid, speech=f"The key is {WHISPER}, keep it quiet.", whisper_to=["C2"])
    _play_many(kit, sid, 9)
    state = kit.state(sid)
    calls = kit.calls(sid)
    assert {c.agent for c in calls} >= {"director", "prose", *(f"character:{s}" for s in OUTSIDERS)}
    assert not leaks(WHISPER, call_texts(calls, outsider_agents(state, {"C1", "C2"})))
    # Stored truth of what outsiders perceive: their memory never holds it either.
    for slot in OUTSIDERS:
        assert not leaks(WHISPER, state.ledgers[slot].memory)
    # Positive controls: the Director saw it; the insider's prompt carries it.
    assert leaks(WHISPER, call_texts(calls, {"director"}))
    kit.play(sid, skip=True, force_speaker="C2")
    assert leaks(WHISPER, [prompt_of(kit.requests("character:C2")[-1])])


def test_private_thought_reaches_no_character_and_no_prose(make_kit: KitFactory) -> None:
    kit = make_kit("parrot")
    sid = kit.create()
    kit.play(sid, thought=f"I hid the letter behind the {THOUGHT} cask.")
    _play_many(kit, sid, 7)
    kit.play(sid, skip=True, force_speaker="C2")
    state = kit.state(sid)
    calls = kit.calls(sid)
    assert not leaks(THOUGHT, call_texts(calls, outsider_agents(state, {"C1"})))
    assert leaks(THOUGHT, call_texts(calls, {"director"}))  # positive control
    for slot in state.cast:
        if slot != "C1":
            assert not leaks(THOUGHT, state.ledgers[slot].memory)


def test_spoken_words_never_reach_a_prose_prompt(make_kit: KitFactory) -> None:
    kit = make_kit(fn=parrot_narrated)  # every turn asks a narration (no quiet beat)
    sid = kit.create()
    kit.play(sid, speech=f"Mark my words: {SPOKEN} before midnight.", force_speaker="C4")
    _play_many(kit, sid, 8)
    prose = [prompt_of(r) for r in kit.requests("prose")]
    assert len(prose) == 9
    assert not leaks(SPOKEN, prose)
    # Positive control: a hearer in the hall got the words.
    assert leaks(SPOKEN, [prompt_of(kit.requests("character:C4")[0])])


def test_no_character_uses_a_name_it_did_not_learn(make_kit: KitFactory) -> None:
    kit = make_kit("parrot")
    sid = kit.create()
    kit.play(sid, speech="Good evening. My name is Agnese Corvo.", force_speaker="C2")
    for i in range(8):
        kit.play(sid, skip=True, force_speaker=["C2", "C3", "C4", "C5"][i % 4])
    state = kit.state(sid)
    for request in kit.requests("character:"):
        viewer = request.agent.split(":")[1]
        assert not unlearned_names(state, viewer, prompt_of(request)), request.agent
    for record in kit.history(sid):
        if record.author == "character" and hasattr(record, "text"):
            assert not unlearned_names(state, record.speaker, record.text)
    # Every learned name points at a speech record its learner perceived in full.
    by_seq = {r.seq: r for r in kit.history(sid)}
    for viewer, ledger in state.ledgers.items():
        for entry in ledger.identities.values():
            if entry.learned_from_seq is not None:
                assert perceives(by_seq[entry.learned_from_seq], viewer) == "content"
    # Positive control: the introduction taught the hall her name.
    assert state.ledgers["C2"].identities["C1"].name == "Agnese Corvo"


def test_no_character_call_for_the_controlled_character(make_kit: KitFactory) -> None:
    kit = make_kit("parrot")
    for controlled in ("C1", "C4"):
        sid = kit.create(controlled=controlled)
        result = kit.play(sid, skip=True, force_speaker=controlled)
        assert result.control_returned and result.next_speaker == controlled
        for i in range(4):
            kit.play(sid, skip=True, force_speaker=["C2", "C3", "C4", "C5", "C1"][i])
        assert not [c for c in kit.calls(sid) if c.agent == f"character:{controlled}"]
