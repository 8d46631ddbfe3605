"""The copy clamps (`physics.copied`): properties and negative controls; the incidents are rows
of the case tables `spoken_copy`, `thought_copy`, `mind_copy`, `prompt_label`, `prompt_copy`,
`directive_copy` and `roster_event`."""

from __future__ import annotations

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import tavern.physics.clamps as clamps_module
from tavern.physics import ClampContext, clamp_decision
from tavern.physics.copied import (
    RUN_WORDS,
    drop_roster_events,
    holds_run,
    line_key,
    without_directive_copies,
    word_runs,
)
from tavern.physics.duplicates import before_repeated_clause
from tavern.records import (
    NARRATOR,
    Body,
    Character,
    DirectorDecision,
    Mind,
    PerceptionEvent,
    Scene,
    SpeechRecord,
)
from tavern.text import lexicon_for, sentences

from .test_properties import SETTINGS, with_planted_event, world_and_decision

SECRETS = [
    "She found a brass seal ring in the bottom of her father's ferry an hour ago and has it in"
    " her pocket.",
    "Maren sold the ferry's papers to the guild for a silver mark.",
]
CAST = {
    f"C{i}": Character(
        id=f"m{i}", mind=Mind(secrets=[secret]), body=Body(display_name=name, description_ref="x")
    )
    for i, (name, secret) in enumerate(zip(["Ilse Brandt", "Maren Holt"], SECRETS, strict=True), 1)
}
SCENE = Scene(location="the toll house", present=list(CAST))
WORDS = st.lists(st.sampled_from("lamp rain bolt door coin rope cask".split()), min_size=2)
SENTENCE = WORDS.map(lambda w: " ".join(w).capitalize() + ".")


def _texts(texts: list[str], history: list[SpeechRecord] | None = None) -> list[str]:
    events = [PerceptionEvent(kind="world_event", text=t, witness_ids=list(CAST)) for t in texts]
    ctx = ClampContext(scene=SCENE, cast=CAST, history=history or [])
    out, _ = clamp_decision(DirectorDecision(events=events, next_speakers=[NARRATOR]), ctx)
    assert clamp_decision(out, ctx) == (out, [])
    return [e.text for e in out.events]


@given(st.lists(st.tuples(SENTENCE, st.booleans()), min_size=1, max_size=5), st.data())
def test_no_recital_survives_and_every_other_sentence_does(
    plan: list[tuple[str, bool]], data: st.DataObject
) -> None:
    words = data.draw(st.sampled_from(SECRETS)).split()
    start = data.draw(st.integers(0, len(words) - RUN_WORDS))
    end = data.draw(st.integers(start + RUN_WORDS, len(words)))
    recital = " ".join(words[start:end]).rstrip(".").capitalize() + "."
    text = " ".join(recital if is_recital else s for s, is_recital in plan)
    assume(before_repeated_clause(text, lexicon_for("en")) == text)  # the loop rule's
    expected = " ".join(s for s, is_recital in plan if not is_recital)
    assert _texts([text]) == ([expected] if expected else [])


def test_negative_control_without_the_mind_rule_the_secret_is_an_event(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    recital = "Someone sold the ferry's papers to the guild."
    assert _texts([recital]) == []
    without = [r for r in clamps_module.CLAMP_RULES if r.name != "mind_copy"]
    monkeypatch.setattr(clamps_module, "CLAMP_RULES", without)
    assert _texts([recital]) == [recital]


@SETTINGS
@given(world_and_decision(), st.data())
def test_no_clamped_event_repeats_a_spoken_line(
    pair: tuple[object, object], data: st.DataObject
) -> None:
    world, proposal = pair
    assert isinstance(proposal, DirectorDecision)
    history = world.history  # type: ignore[attr-defined]
    lines = {line_key(r.text) for r in history if isinstance(r, SpeechRecord)}
    if lines:  # plant a copy of a spoken line among the events
        said = [r.text for r in history if isinstance(r, SpeechRecord)]
        proposal = with_planted_event(proposal, data.draw(st.sampled_from(said)), data)
    context = ClampContext(scene=world.state.scene, history=history)  # type: ignore[attr-defined]
    clamped, _ = clamp_decision(proposal, context)
    assert not [e.text for e in clamped.events if line_key(e.text) in lines]


DIRECTIVES = ["Reveal secrets through action and slips, never through confession on demand."]
RUNS = {run for text in DIRECTIVES for run in word_runs(text, RUN_WORDS)}
LIVE = (
    "This is an unspoken attempt to read the will in the notary's satchel and reveal secrets"
    " through action and slips."
)
_SENTENCES = st.sampled_from([LIVE, "The will is in the satchel.", "Rain.", "The lamp gutters"])


@given(st.lists(_SENTENCES, max_size=6), st.sampled_from([" ", "  ", "\n"]))
def test_what_stays_holds_no_directive_run_and_only_sentences_of_the_text(
    told: list[str], gap: str
) -> None:
    text = gap.join(told)
    kept = without_directive_copies(text, DIRECTIVES)
    for sentence in sentences(kept):
        assert not holds_run(sentence, RUNS, RUN_WORDS)
        assert sentence in text
    assert without_directive_copies(kept, DIRECTIVES) == kept


NAMES = {"C1": "Agnese Corvo", "C2": "Brother Caspar", "C3": "Lio Mendez"}
HALL = {
    slot: Character(id=slot.lower(), mind=Mind(), body=Body(display_name=n, description_ref="x"))
    for slot, n in NAMES.items()
}
HALL_CTX = ClampContext(scene=Scene(location="the hall", present=list(NAMES)), cast=HALL)


@given(
    st.lists(st.sampled_from([*NAMES.values(), *NAMES, "Agnese", "Caspar"]), min_size=1),
    st.sampled_from([", ", " and ", ", and ", " e "]),
    st.sampled_from(["", " wait", " nod at the coffin", " esperam"]),
)
def test_a_list_goes_only_when_it_names_two_and_says_nothing(
    names: list[str], joiner: str, verb: str
) -> None:
    text = joiner.join(names) + verb + "."
    slots = {s for s, n in NAMES.items() for name in names if name in (s, n, *n.split())}
    event = PerceptionEvent(kind="world_event", text=text, witness_ids=list(NAMES))
    gone = drop_roster_events(DirectorDecision(events=[event]), HALL_CTX)[0].events == []
    assert gone == (len(slots) >= 2 and not verb)
