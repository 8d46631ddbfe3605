"""Clamp `agency`: no model decides what a character does; a character acts in an event or
a narration only as its own attempt or line backs it."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import tavern.filters.unconfirmed_act as filter_rule
import tavern.physics.acts as acts
import tavern.physics.clamps as clamps_module
from tavern.filters import FilterContext
from tavern.physics import ClampContext, clamp_decision
from tavern.physics.acts import Names, read_act, sentence_spans
from tavern.records import (
    NARRATOR,
    Audience,
    Body,
    Character,
    DirectorDecision,
    EventRecord,
    HistoryRecord,
    Mind,
    NarrationRecord,
    PerceptionEvent,
    Scene,
    SpeechRecord,
)
from tavern.text import lexicon_for

from .test_rules import attempt


def unconfirmed_acts(text: str, cast: Any, recent: list[Any], turn: int) -> str:
    """The filter rule `unconfirmed_act` on a narration of beat `turn` (`recent`: the records
    so far, that beat's included)."""
    from tavern.filters import FilterContext, apply_rules
    from tavern.filters.unconfirmed_act import RULE

    ctx = FilterContext(
        cast=cast,
        turn=turn,
        history=tuple(r for r in recent if r.turn_number != turn),
        beat=tuple(r for r in recent if r.turn_number == turn),
    )
    return apply_rules([RULE], {"narration": text}, ctx, {RULE.name}).texts.get("narration", "")


CAST = {
    slot: Character(id=slot.lower(), mind=Mind(), body=Body(display_name=name, description_ref="x"))
    for slot, name in [("C1", "Ilse Brandt"), ("C2", "Maren Holt"), ("C3", "Teodor Vask")]
}
SCENE = Scene(location="the toll house", present=["C1", "C2", "C3"])
PUBLIC = Audience(origin="public", perceivers=["C1", "C2", "C3"])
TURN = 4


def _said(seq: int, slot: str, turn: int = TURN, author: str = "human") -> SpeechRecord:
    return SpeechRecord(
        seq=seq, turn_number=turn, speaker=slot, author=author, text="Good evening.",
        audience=PUBLIC,
    )  # fmt: skip


def _clamped(
    texts: list[str],
    history: list[HistoryRecord],
    kind: str = "world_event",
    actor: str | None = None,
) -> list[str]:
    ctx = ClampContext(scene=SCENE, cast=CAST, history=history, turn_number=TURN)
    events = [
        PerceptionEvent(kind=kind, text=t, actor_id=actor, witness_ids=["C1", "C2", "C3"])  # type: ignore[arg-type]
        for t in texts
    ]
    out, _ = clamp_decision(DirectorDecision(events=events, next_speakers=[NARRATOR]), ctx)
    assert clamp_decision(out, ctx) == (out, [])
    return [e.text for e in out.events]


ASKS = "Ilse Brandt asks C2 to sign the toll books tonight."
SEES = "C1 sees the toll box sitting locked on the counting table."
LIVE_SKIP = f"{ASKS} {SEES}"
"""Toll-house soak #7, turn 4: the human skipped the beat; the Director had Ilse ask."""


def test_an_act_on_a_skipped_beat_goes_and_a_perception_stays() -> None:
    earlier = _said(1, "C1", turn=TURN - 1)  # said before the last Director call
    assert _clamped([LIVE_SKIP], [earlier]) == [SEES]


def test_speaking_stays_when_the_character_spoke_since_the_last_director_call() -> None:
    bare = "Ilse Brandt whispers something to Maren Holt."
    assert _clamped([bare], [_said(1, "C1")]) == [bare]
    reply = _said(1, "C1", turn=TURN - 1, author="character")  # a reply after that call
    assert _clamped([bare], [reply]) == [bare]
    assert _clamped([bare], [_said(1, "C1", turn=TURN - 1)]) == []
    # What she asked is her line's, not the Director's to tell (it never authors dialogue).
    assert _clamped([LIVE_SKIP], [_said(1, "C1")]) == [SEES]


WALK = "C1 walks slowly to the nearest window and looks outside."
"""Two earlier toll-house soaks, turns 5 and 9: the human's attempt of turn 2, told again."""


def test_an_old_attempt_told_again_goes_and_a_waiting_one_stays() -> None:
    old = attempt(1, "C1", "walks slowly to the nearest window and looks outside", turn=2)
    assert _clamped([WALK], [old.model_copy(update={"resolved": True})]) == []
    waiting = old.model_copy(update={"turn_number": TURN})
    assert _clamped([WALK], [waiting]) == [WALK]


def test_an_outcome_in_other_words_stays_when_it_adjudicates_the_attempt() -> None:
    reach = attempt(1, "C1", "reaches for the door", turn=TURN)
    told = "Ilse Brandt pulls at the handle, but it will not give."
    assert _clamped([told], [reach], kind="action_outcome", actor="C1") == [told]
    assert _clamped([told], [reach]) == []  # no outcome of hers, no word of the attempt
    assert _clamped(["Ilse Brandt opens the door."], [reach]) == ["Ilse Brandt opens the door."]


READ_WILL = "read the will"
WALKED_OFF = "Ilse Brandt walks slowly to the nearest window."
"""Vintners-wake #64 (seed 80), turn 2, with the toll-house cast of these tests: "Dorotea Sand
walks slowly to the nearest window" was committed as the outcome of her "read the will"."""


def test_an_outcome_that_walks_where_the_attempt_never_moved_goes() -> None:
    read = attempt(1, "C1", READ_WILL, turn=TURN)
    assert _clamped([WALKED_OFF], [read], kind="action_outcome", actor="C1") == []
    both = f"{WALKED_OFF} She unfolds the will."
    # The pronoun of the next sentence named only the walker: it goes with her sentence.
    assert _clamped([both], [read], kind="action_outcome", actor="C1") == []


@pytest.mark.parametrize(
    ("attempted", "told"),
    [
        (READ_WILL, "Ilse Brandt walks to the lamp and reads the will aloud."),  # a word of it
        ("crosses to the far wall", "Ilse Brandt walks over to the shutters."),  # moves too
        ("heads for the cellar stair", "Ilse Brandt goes down into the dark."),
        (READ_WILL, "Ilse Brandt succeeds."),
        (READ_WILL, "Ilse Brandt breaks the seal, but the ink has run."),  # other words
    ],
)
def test_an_outcome_that_moves_stays_when_the_attempt_backs_the_move(
    attempted: str, told: str
) -> None:
    tried = attempt(1, "C1", attempted, turn=TURN)
    assert _clamped([told], [tried], kind="action_outcome", actor="C1") == [told]


def test_every_subject_needs_its_own_backing() -> None:
    walk = attempt(1, "C1", "walks to the window", turn=TURN)
    both = "Ilse Brandt and Maren Holt walk to the window."
    assert _clamped([both], [walk]) == []
    assert _clamped([both], [walk, walk.model_copy(update={"seq": 2, "speaker": "C2"})]) == [both]


@pytest.mark.parametrize(
    "text",
    [
        "The lamp goes out.",  # no cast member is its subject
        "Ilse Brandt hears a knock at the shutters.",  # perceiving
        "Maren Holt is soaked to the skin.",  # undergoing
        "Felix in the doorway, Teodor Vask in the rain.",  # no verb read
        "She waits by the fire.",  # a pronoun with no one named before it
        "Rain falls, as Ilse Brandt runs.",  # a subordinate clause is not read
        "The ferryman says the river will drop by dawn.",  # not a cast member
    ],
)
def test_what_is_no_cast_member_acting_stays(text: str) -> None:
    assert _clamped([text], []) == [text]


SITTING = (
    "Ilse Brandt is sitting on the counting table, holding a toll box and a ledger. Ilse"
    " Brandt is explaining the toll box and how it works. Teodor Vask is not speaking."
)
"""Toll-house soak #9, turn 3 (1338801): a beat in which the human only thought."""


ORPHAN = (
    "Maren Holt makes an attempt to open the cellar. As she opens, she hears a loud, ominous"
    " sound. The sound is sealed."
)
"""Vintners-wake soak #13, turn 2 (names of the toll house): the cut left "she" naming no one."""


def test_a_pronoun_whose_subject_went_goes_with_it() -> None:
    assert unconfirmed_acts(ORPHAN, CAST, [], TURN) == "The sound is sealed."
    hears = "Maren Holt hears a loud sound. She covers her ears."
    assert unconfirmed_acts(hears, CAST, [], TURN) == "Maren Holt hears a loud sound."
    # Alone, the pronoun names no one a reader can tell (`without_pronoun_opening`).
    assert unconfirmed_acts("She hears a sound.", CAST, [], TURN) == ""
    assert (
        unconfirmed_acts("Rain. She hears a sound.", CAST, [], TURN) == "Rain. She hears a sound."
    )


COFFIN = (
    "The coffin is open, and Ilse Brandt decides to take it out. After he has finished, he"
    " looks at the trapdoor again. The lamp gutters."
)
"""Vintners-wake soak #14, turn 2 (names of the toll house): the act in a later clause."""


def test_a_later_clause_is_read_too() -> None:
    assert unconfirmed_acts(COFFIN, CAST, [], TURN) == "The lamp gutters."
    world = "The coffin is open, and the lamp gutters; Maren Holt hears it."
    assert unconfirmed_acts(world, CAST, [], TURN) == world
    bare = "The coffin is now open and Ilse Brandt decides to take it out."
    assert unconfirmed_acts(bare, CAST, [], TURN) == ""
    walk = [attempt(1, "C1", "walks to the window and opens it", turn=TURN)]
    both = "Ilse Brandt walks to the window and opens it."
    assert _clamped([both], walk) == [both]


FRONTED = "The Vintner's Wake, Ilse Brandt speaks."
"""Vintners-wake soak #16, turn 2 (names of the toll house): she had only walked to the window."""
RETOLD = (
    "As Ilse Brandt walks slowly to the nearest window and looks outside, the Vintner's Wake,"
    " Ilse Brandt speaks."
)
"""The same soak, turn 4: a skipped beat, telling turn 2's attempt again."""


def test_a_clause_after_a_fronted_phrase_is_read() -> None:
    assert unconfirmed_acts(FRONTED, CAST, [], TURN) == ""
    # Had she spoken, the title's words would still make more of it than a bare "speaks".
    assert unconfirmed_acts(FRONTED, CAST, [_said(1, "C1")], TURN) == ""
    drawn = "At midnight, Ilse Brandt opens the coffin."
    assert _clamped([drawn], []) == []
    assert _clamped([drawn], [attempt(1, "C1", "opens the coffin", turn=TURN)]) == [drawn]


def test_a_leading_as_clause_is_read() -> None:
    assert unconfirmed_acts(RETOLD, CAST, [], TURN) == ""
    walked = "As Ilse Brandt walks slowly to the nearest window, the lamp gutters."
    beat = [_event(1, "Ilse Brandt walks slowly to the nearest window.", "C1")]
    assert unconfirmed_acts(walked, CAST, beat, TURN) == walked
    assert unconfirmed_acts(walked, CAST, [], TURN) == ""


@pytest.mark.parametrize(
    "text",
    [
        "In the hall, the lamp gutters.",
        "When the bell tolls, Maren Holt hears it.",  # perceiving
        "At dawn, as the river drops, the ferry comes.",
    ],
)
def test_fronted_phrases_without_an_act_stay(text: str) -> None:
    assert unconfirmed_acts(text, CAST, [], TURN) == text


def test_a_stray_article_hides_no_one() -> None:
    live = "A Ilse Brandt walks slowly to the nearest window. The ostler names the horse."
    assert unconfirmed_acts(live, CAST, [], TURN) == "The ostler names the horse."


def test_a_participle_after_be_is_the_act() -> None:
    assert unconfirmed_acts(SITTING, CAST, [], TURN) == "Teodor Vask is not speaking."
    soaked = "Maren Holt is soaked. Ilse Brandt was being dragged. Teodor Vask is nothing."
    assert unconfirmed_acts(soaked, CAST, [], TURN) == soaked


def test_a_pronoun_names_the_one_named_before_or_the_events_actor() -> None:
    text = "A gust slams the shutter. She bolts it again."
    assert _clamped([text], [], kind="world_event", actor="C2") == ["A gust slams the shutter."]
    assert _clamped([text], []) == [text]
    led = "As Ilse Brandt speaks, she opens the toll box."
    assert _clamped([led], [_said(1, "C1")]) == []


def test_a_masked_word_and_a_quotation_keep_the_sentences_as_they_are() -> None:
    names = Names.of(CAST)
    assert read_act("[...] Ilse Brandt bread.", names, None) == (None, None)
    said = "Maren Holt says, 'Sit. Drink. Wait for dawn.' Rain."
    assert sentence_spans(said) == [(0, 46), (46, 51)]


def test_negative_control_without_the_rule_the_act_is_an_event(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    without = [r for r in clamps_module.CLAMP_RULES if r.name != "agency"]
    monkeypatch.setattr(clamps_module, "CLAMP_RULES", without)
    assert _clamped([LIVE_SKIP], []) == [LIVE_SKIP]


# Narration: the renderer reads events and content-free markers only.


def _event(seq: int, text: str, actor: str | None = None, turn: int = TURN) -> EventRecord:
    return EventRecord(
        seq=seq, turn_number=turn, speaker="World", author="director",
        event_kind="action_outcome", text=text, actor_id=actor, audience=PUBLIC,
    )  # fmt: skip


SATCHEL = (
    "As Ilse Brandt speaks, he opens his satchel to read aloud over the coffin. The trapdoor"
    " to the cellar is now shut and bolted from the hall side. The chapel bell tolls midnight."
)
"""Vintners-wake soak #12, turn 5 (names of the toll house): the human spoke and reached for
the door; the renderer had her open a satchel."""


def test_the_live_invented_act_goes_from_the_narration() -> None:
    beat = [_said(1, "C1"), _event(2, "The trapdoor to the cellar is shut and bolted.", "C1")]
    assert unconfirmed_acts(SATCHEL, CAST, beat, TURN) == SATCHEL.split(". ", 1)[1]


def test_an_act_an_event_of_the_beat_confirms_stays() -> None:
    text = "Ilse Brandt tries the trapdoor, but it is bolted."
    beat = [_event(1, "The trapdoor to the cellar is shut and bolted.", "C1")]
    assert unconfirmed_acts(text, CAST, beat, TURN) == text
    last_beat = [_event(1, "The trapdoor to the cellar is shut and bolted.", "C1", TURN - 1)]
    assert unconfirmed_acts(text, CAST, last_beat, TURN) == ""


def test_a_narrated_line_says_only_that_someone_spoke() -> None:
    bare = "Ilse Brandt whispers something to Maren Holt."
    asks = "Ilse Brandt asks Maren Holt to sign the toll books."
    aside = Audience(origin="whisper", perceivers=["C1", "C2"], aware=["C3"])
    whisper = SpeechRecord(
        seq=1, turn_number=TURN, speaker="C1", author="human", text="Sign.", audience=aside
    )
    assert unconfirmed_acts(f"{bare} {asks}", CAST, [whisper], TURN) == bare
    told = NarrationRecord(
        seq=2, turn_number=TURN - 1, speaker=NARRATOR, author="renderer", text="Rain.",
        audience=Audience(origin="public"),
    )  # fmt: skip
    before = [_said(1, "C1", turn=TURN - 1), told]  # her line came before the last narration
    assert unconfirmed_acts(bare, CAST, before, TURN) == ""


NAMES = st.sampled_from(["Ilse Brandt", "Maren Holt", "Teodor Vask", "Ilse", "Vask", "C2"])
ACT = st.tuples(NAMES, st.sampled_from(["draws", "kicks", "grabs", "climbs"])).map(
    lambda t: f"{t[0]} {t[1]} the rope."
)
UNDERGOES = st.tuples(NAMES, st.sampled_from(sorted(lexicon_for("en").perceiving))).map(
    lambda t: f"{t[0]} {t[1]} the rope."
)
WORLD = st.sampled_from(["The lamp gutters.", "Rain drums on the shutters.", "A dog barks."])


@given(
    st.lists(
        st.tuples(st.sampled_from(["act", "undergo", "world"]), st.data()), min_size=1, max_size=6
    )
)
def test_only_the_unbacked_acts_go(plan: list[tuple[str, st.DataObject]]) -> None:
    parts = [
        (kind, data.draw({"act": ACT, "undergo": UNDERGOES, "world": WORLD}[kind]))
        for kind, data in plan
    ]
    text = " ".join(sentence for _, sentence in parts)
    expected = " ".join(sentence for kind, sentence in parts if kind != "act")
    kept = unconfirmed_acts(text, CAST, [], TURN)
    assert kept == expected
    assert unconfirmed_acts(kept, CAST, [], TURN) == kept
    if len(set(parts)) == len(parts):  # a sentence said twice is the loop rule's
        assert _clamped([text], []) == ([expected] if expected else [])


LIVE_PERFECT = (
    "Ilse Brandt spoke. He had been listening to the sound of the river crossing and wondered"
    " if the toll box was still locked. He had also heard that the lamp has been on the"
    " counting table, and he had been thinking about how long it would take"
)
"""Toll-house soak #21 (seed 38), turn 1: the renderer's interiority for the human's
character, in a beat with no event (she only spoke)."""


def test_a_participle_after_have_is_the_act() -> None:
    assert unconfirmed_acts(LIVE_PERFECT, CAST, [_said(1, "C1")], TURN) == "Ilse Brandt spoke."
    undergo = (
        "Maren Holt had a lantern. Maren Holt has heard the bell. Maren Holt had been soaked."
        " Maren Holt has seen the ledger. Maren Holt has not opened the strongbox."
    )
    assert unconfirmed_acts(undergo, CAST, [], TURN) == undergo
    opened = "Maren Holt had already opened the strongbox."
    assert unconfirmed_acts(opened, CAST, [], TURN) == ""
    assert unconfirmed_acts("Maren Holt has often wondered about it.", CAST, [], TURN) == ""
    beat = [_event(1, "Maren Holt opens the strongbox.", "C2")]
    assert unconfirmed_acts(opened, CAST, beat, TURN) == opened


DESCRIBED = {
    slot: c.model_copy(update={"body": c.body.model_copy(update={"description_ref": ref})})
    for (slot, c), ref in zip(
        CAST.items(),
        ["the barefoot girl in the oilskin", "the ferry keeper", "the tall drover"],
        strict=True,
    )
}
RETOLD_BY_DESCRIPTION = (
    "The barefoot girl in the oilskin tried to walk slowly to the nearest window and looks outside."
)
"""Toll-house soak #23, turns 4, 6 and 7: her turn-2 attempt, told as her act three times."""


def _clamped_described(texts: list[str], history: list[HistoryRecord]) -> list[str]:
    ctx = ClampContext(scene=SCENE, cast=DESCRIBED, history=history, turn_number=TURN)
    events = [
        PerceptionEvent(kind="world_event", text=t, witness_ids=["C1", "C2", "C3"]) for t in texts
    ]
    out, _ = clamp_decision(DirectorDecision(events=events, next_speakers=[NARRATOR]), ctx)
    return [e.text for e in out.events]


def test_a_description_names_its_character_as_a_subject() -> None:
    assert _clamped_described([RETOLD_BY_DESCRIPTION], []) == []
    waiting = attempt(1, "C1", "walks slowly to the nearest window", turn=TURN)
    assert _clamped_described([RETOLD_BY_DESCRIPTION], [waiting]) == [RETOLD_BY_DESCRIPTION]
    # Undergoing stays, and a description that is no one's names no one.
    seen = "The ferry keeper is soaked to the skin. The old drover opens the gate."
    assert _clamped_described([seen], []) == [seen]


def _plain(cast: dict[str, Character]) -> acts.Names:
    return acts.Names._build(tuple((s, c.body.display_name, "") for s, c in cast.items()))


WALKED = "Ilse Brandt walks slowly to the nearest window and looks outside"
LIVE_RETOLD_ATTEMPT = (
    "Ilse Brandt makes an attempt to walk slowly to the nearest window and looks outside."
)
"""Toll-house #34's rerun (seed 48), turn 2: the narration of the event WALKED."""


def _walked_beat() -> list[HistoryRecord]:
    walk = attempt(1, "C1", "walks slowly to the nearest window and looks outside", turn=TURN)
    return [walk, _event(2, WALKED, "C1")]


def test_a_narration_retelling_the_beats_attempt_as_an_attempt_loses_it() -> None:
    beat = _walked_beat()
    assert unconfirmed_acts(LIVE_RETOLD_ATTEMPT + " Rain.", CAST, beat, TURN) == "Rain."
    told = f"{WALKED}, but the shutters are nailed."
    assert unconfirmed_acts(told, CAST, beat, TURN) == told
    tried = "Ilse Brandt tries to walk to the window, but the floor gives way."
    assert unconfirmed_acts(tried, CAST, beat, TURN) == tried


def test_negative_control_without_the_attempt_check_the_retelling_stays(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(filter_rule, "retells_attempt", lambda *args: False)
    beat = _walked_beat()
    assert unconfirmed_acts(LIVE_RETOLD_ATTEMPT, CAST, beat, TURN) == LIVE_RETOLD_ATTEMPT


HE_OPENS = (
    "He sees a window behind the trapdoor. He feels a sense of relief and a sense of being"
    " helped. He cautiously opens the door to the cellar."
)
"""Vintners-wake #35's rerun (seed 50), turn 2 (names of the toll house): the narration after
the human's one outcome, which the Director had told with "He" too."""
HE_SEES = (
    "He sees a window behind the trapdoor. He feels a sense of relief and a sense of being helped."
)


def test_a_leading_pronoun_names_the_beats_one_actor() -> None:
    walk = attempt(3, "C1", "walks slowly to the nearest window and looks outside")
    recent = [walk, _event(5, HE_SEES, "C1")]
    assert unconfirmed_acts(HE_OPENS, CAST, recent, TURN) == HE_SEES
    # Two actors in the beat: "He" names no one, so the sentences opening on it go
    # (`without_pronoun_opening`).
    two = [*recent, _event(6, "Maren Holt fails.", "C2")]
    assert unconfirmed_acts(HE_OPENS, CAST, two, TURN) == ""


def test_negative_control_with_no_actor_for_the_pronoun_the_act_is_narrated(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = filter_rule.unsupported

    def no_actor(text: str, names: Names, support: Any, actor: object, lex: Any) -> Any:
        return real(text, names, support, None, lex)

    monkeypatch.setattr(filter_rule, "unsupported", no_actor)
    walk = attempt(3, "C1", "walks slowly to the nearest window and looks outside")
    assert unconfirmed_acts(HE_OPENS, CAST, [walk, _event(5, HE_SEES, "C1")], TURN) == HE_OPENS


WHISPERS = "Ilse Brandt whispers something."
"""Vintners-wake #37 (seed 52), turn 8 (names of the toll house): the human asked aloud."""


def _whispered_then_asked() -> list[HistoryRecord]:
    aside = Audience(origin="whisper", perceivers=["C1", "C2"], aware=["C3"])
    whisper = SpeechRecord(
        seq=1, turn_number=TURN - 2, speaker="C1", author="human", text="Quiet.", audience=aside
    )
    return [whisper, _said(5, "C1")]


def test_a_whisper_is_narrated_only_in_the_beat_of_one() -> None:
    history = _whispered_then_asked()
    assert unconfirmed_acts(WHISPERS, CAST, history, TURN) == ""
    assert unconfirmed_acts(WHISPERS, CAST, history[:1], TURN - 2) == WHISPERS
    assert unconfirmed_acts("Ilse Brandt speaks.", CAST, history, TURN) == "Ilse Brandt speaks."


def test_negative_control_any_speech_backs_a_whisper(monkeypatch: pytest.MonkeyPatch) -> None:
    english = lexicon_for("en")
    monkeypatch.setattr(
        FilterContext, "lexicon", property(lambda ctx: replace(english, whispering=frozenset()))
    )
    # The phantom-whisper rule would also take this marker: set aside, as its own control.
    monkeypatch.setattr(filter_rule, "without_phantom_whispers", lambda text, names, lex: text)
    assert unconfirmed_acts(WHISPERS, CAST, _whispered_then_asked(), TURN) == WHISPERS


PHANTOM = "The ostler whispers something."
"""Vintners-wake #43 (seed 59), turn 8, "The vintner whispers something." (the deceased) in a
beat without a whisper; here with a subject from no cast."""


def test_a_whisper_by_anyone_is_narrated_only_in_the_beat_of_one() -> None:
    history = _whispered_then_asked()
    assert unconfirmed_acts(f"{PHANTOM} The lamp gutters.", CAST, history, TURN) == (
        "The lamp gutters."
    )
    to_her = "A voice whispers something into Maren Holt's ear."
    assert unconfirmed_acts(to_her, CAST, history, TURN) == ""
    # In the beat of a whisper it stays (whose it was is not the renderer's to know), and so
    # does a whisper that tells what was whispered: a story's sentence, not the marker.
    assert unconfirmed_acts(PHANTOM, CAST, history[:1], TURN - 2) == PHANTOM
    told = "The ostler whispers that the ferry is gone."
    assert unconfirmed_acts(told, CAST, history, TURN) == told


def test_negative_control_without_the_phantom_rule_the_copied_marker_stays(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(filter_rule, "without_phantom_whispers", lambda text, names, lex: text)
    assert unconfirmed_acts(PHANTOM, CAST, _whispered_then_asked(), TURN) == PHANTOM


APPOSITIVE = (
    "Ilse Brandt, a girl of about fifteen, sits on the counting table at the low room of tarred"
    " timber."
)
"""Toll-house soak #54 (seed 68), turn 1: the renderer's narration on a beat in which the human
only spoke."""


def test_an_act_behind_a_phrase_between_commas_is_read() -> None:
    assert unconfirmed_acts(APPOSITIVE, CAST, [_said(1, "C1")], TURN) == ""
    sat = [_said(1, "C1"), _event(2, "Ilse Brandt sits on the counting table.", "C1")]
    assert unconfirmed_acts(APPOSITIVE, CAST, sat, TURN) == APPOSITIVE
    assert _clamped([APPOSITIVE], []) == []
    quiet = "Ilse Brandt, a girl of about fifteen, is soaked to the knees."
    assert unconfirmed_acts(quiet, CAST, [], TURN) == quiet


LIVE_ASKS_TOO = "C1 sees the toll box and asks who is on it."
"""Toll-house #64 (seed 78), turn 3: the human only thought; the Director's event."""


def test_a_verb_of_speaking_joined_to_an_act_is_read_too() -> None:
    assert _clamped([LIVE_ASKS_TOO], [], kind="utterance", actor="C1") == []
    # Had she spoken since the Director's last call, what she asked would still be her line's.
    assert _clamped([LIVE_ASKS_TOO], [_said(1, "C1")], actor="C1") == []


@pytest.mark.parametrize(
    "text",
    [
        "C1 sees the toll box and the lamp.",
        "C1 and Maren Holt see the lamp.",
        "The ferryman says nothing and rows on.",  # no cast member
    ],
)
def test_no_joined_speech_of_the_cast_member_stays(text: str) -> None:
    kept = _clamped([text], [_said(1, "C2")], actor="C1")
    assert kept == [text]


LIVE_SHE_OPENS = (
    "She is in the middle of the hall and the coffin is open. She is walking slowly to the"
    " nearest window. The trapdoor is shut."
)
"""Vintners-wake #64 (seed 80), turn 4: the narration after a rule took out its first sentence
(the one naming Agnese Corvo); the last sentence here stands for one that tells the world."""


def test_a_narration_opening_on_a_pronoun_with_no_actor_loses_the_opening() -> None:
    assert unconfirmed_acts(LIVE_SHE_OPENS, CAST, [], TURN) == "The trapdoor is shut."
    named = f"Ilse Brandt is by the fire. {LIVE_SHE_OPENS}"
    assert unconfirmed_acts(named, CAST, [], TURN) == named.replace(
        " She is walking slowly to the nearest window.", ""
    )  # named first: only the unconfirmed walk goes


def test_negative_control_without_the_opening_rule_the_pronoun_is_narrated(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(filter_rule, "without_pronoun_opening", lambda text, language: text)
    kept = unconfirmed_acts(LIVE_SHE_OPENS, CAST, [], TURN)
    assert kept.startswith("She is in the middle of the hall")
