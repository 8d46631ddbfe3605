"""The two prompts the live counter-canon run saw refused, played through real turns.

A Character whose own thought opens with its own name must be able to play its next turn
(its memory shows `· You thought: Joaquim Serra, ...`), and a compaction over an event the
clamps masked right after a name must be summarized (`happened: Tomé Valadares [...]` in
the run; here `Rosa Aguiar [...]`, the outcome of her attempt, which the agency clamp keeps).
The unit tests on the exact prompts, and the negative controls of the contract rules, are
`tests/contract/test_live_refusals.py`.
"""

from __future__ import annotations

from typing import Any

from tavern.llm.fake import generate_answer
from tavern.llm.provider import ProviderRequest
from tavern.records import EventRecord

from .kit import KitFactory, director_answer, run

THOUGHT = "Joaquim Serra, onde está o meu machado?"


def _woodcutter(request: ProviderRequest) -> Any:
    """The Director asks the woodcutter (C4) every beat; his first reply thinks `THOUGHT`."""
    if request.agent == "director":
        return director_answer(["C4"])
    if request.agent == "prose":
        return {"narration": f"O sino toca {request.turn_number} vezes."}
    if request.agent == "character:C4":
        first = request.turn_number == 1
        return {"speech": f"Boa noite {request.turn_number}.",
                "thought": THOUGHT if first else None, "action_intent": None}  # fmt: skip
    return {"outcome": "Nada acontece."}


def test_a_thought_opening_with_its_own_name_does_not_fail_the_next_turn(
    make_kit: KitFactory,
) -> None:
    kit = make_kit(fn=_woodcutter)
    sid = kit.create("a-capa-verde", "C1")
    kit.play(sid, speech="Boa noite a todos.")
    kit.play(sid, speech="Joaquim Serra, onde está o meu machado?")
    second = [r for r in kit.requests("character:C4") if r.turn_number == 2]
    assert second and "· You thought: " + THOUGHT in second[-1].messages[-1].content
    assert kit.state(sid).turn_number == 2  # both turns committed
    assert not [c for c in kit.calls(sid) if c.provider == "contract"]


EVENTS = {
    1: "Bento está na porta da câmara de gelo.",
    2: "Firmina Braga está no salão.",
    3: "Rosa Aguiar [...] bate três vezes na porta de carvalho.",
}


def _masked_events(request: ProviderRequest) -> Any:
    """One event a turn naming someone (the third masked right after the name, as the clamps
    leave a redacted word); the summarizer parrots its prompt."""
    if request.agent == "director":
        text = EVENTS.get(request.turn_number, "O sino da ponte toca.")
        outcome = request.turn_number == 3  # of Rosa Aguiar's (C1) knocking
        event = {"kind": "action_outcome" if outcome else "world_event", "text": text,
                 "actor_id": "C1" if outcome else None,
                 "witness_ids": ["C1", "C2", "C3"], "utterance_ref": None}  # fmt: skip
        return director_answer([], events=[event])
    if request.agent == "summarizer":
        assert request.schema is not None
        return generate_answer(request.schema, request, "parrot")
    if request.agent.startswith("character"):
        return {"speech": "Ninguém.", "thought": None, "action_intent": None}
    return {"narration": f"O sino toca {request.turn_number} vezes."}


def test_a_masked_event_after_a_name_does_not_refuse_the_compaction(
    make_kit: KitFactory,
) -> None:
    kit = make_kit(fn=_masked_events)
    sid = kit.create("a-capa-verde", "C1")
    for turn in range(1, 6):
        if turn == 3:
            kit.play(sid, action="bate três vezes na porta de carvalho")
        else:
            kit.play(sid, speech="Alguém aqui?")
    events = [r.text for r in kit.history(sid) if isinstance(r, EventRecord)]
    assert EVENTS[3] in events  # the clamps kept the masked event as the Director wrote it
    result = run(kit.runner.compact(sid, retention_turns=1))
    assert result.records > 0
    prompt = "\n".join(m.content for r in kit.requests("summarizer") for m in r.messages)
    assert "happened: Rosa Aguiar [...] bate" in prompt
    assert kit.state(sid).story_summary
