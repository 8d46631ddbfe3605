"""An intent of speaking words alone ("to talk") is no attempt: it is not committed."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tavern.llm.provider import ProviderRequest
from tavern.records import ActionRecord, CharacterReply, SpeechRecord, TurnInput
from tavern.runner import no_act, replies
from tavern.runner.limits import KernelLimits
from tavern.runner.no_act import (
    FILLER,
    NEEDS_OBJECT,
    SPEAKING,
    names_no_act,
    without_empty_intent,
)

from .kit import director_answer, recording_runner, run, two_replies

LIVE = ["talk", "to talk", "try to talk", "try to do", "Talk.", "None", "swear"]
LIVE += ["call", "to call someone"]
"""The Characters' intents of sixteen soak sessions that name no act (32 of 76 intents),
"swear" (vintners-wake #28, seed 42, turn 2, twice), and "call" and "to call someone"
(toll-house #31, seed 45, turns 1, 2, 8)."""
LIVE_NO_ACT = [
    "fails",
    "follow",
    "take action",
    "open",
    "visit",
    "listen",
    "try this",
    "I don't know what you mean by 'try to do' here",
    "nothing new",
    "not stated",
    "think",
    "thought",
    "speak and act",
    "I am a busy person, not sure what to do right now.",
    "I'm not sure.",
    "To listen to what I'm saying",
]
"""Toll-house #18 and vintners-wake #22 (seed 35), turns 4 and 7, and earlier soaks ("open",
"visit"), toll-house #19 (seed 36, "listen" three times): an outcome, a placeholder, lone
verbs wanting an object or perceiving. Each went to the
follow-up, which answered "Maren Holt failed" or "Felix Aubert tries this to take action".
"try this": toll-house #24 (seed 41), turn 8; "I don't know ...", toll-house #25 (seed 42), turn
5; "nothing new", vintners-wake #29's rerun (seed 44), turn 3; "not stated", toll-house #31
(seed 45), turn 6; "think" and "thought", toll-house #49 (seed 63), turns 6 and 7; "speak and
act", vintners-wake #49 (seed 65), turn 1, the words of the Character's identity line; "I am a
busy person, ...", toll-house #56 (seed 70), turn 1; "To listen to what I'm saying",
vintners-wake #58 (seed 74), turn 1."""
KEPT = [
    "walk",
    "sleep",
    "read",
    "read aloud",
    "follow Maren",
    "listens at the door",
    "takes the key",
    "fails to lift the beam, then tries again",
    "open the door",
    "walks to Maren Holt",
    "hands Maren the ledger",
    "knocks to be let in",
    "walk slowly to the nearest window and looks outside",
    "open it",
    "try that door",
    "asks what the notary knows",
    "swears on the cross and kisses it",
    "notices nothing new at the door",
    "nothing new; opens the ledger",
    "follow someone",
    "walks to everyone in turn and shakes hands",
    "searches for nothing in particular, then sits down",
    "thinks it over and pours the wine",
    "I am trying to open the door",
    "I'm walking out to the landing",
    "I am going to read the will",
    "I'm off to the cellar",
    "listens for footsteps on the stair",
    "watches Maren open the box",
]


@pytest.mark.parametrize("intent", LIVE + LIVE_NO_ACT)
def test_the_live_empty_intents_go(intent: str) -> None:
    assert names_no_act(intent)
    assert without_empty_intent(CharacterReply(action_intent=intent)) is None
    kept = without_empty_intent(CharacterReply(speech="Evening.", action_intent=intent))
    assert kept == CharacterReply(speech="Evening.")


@pytest.mark.parametrize("intent", KEPT)
def test_an_act_stays(intent: str) -> None:
    reply = CharacterReply(action_intent=intent)
    assert without_empty_intent(reply, ["Maren Holt"]) is reply


def test_names_count_as_small_words() -> None:
    assert (
        without_empty_intent(CharacterReply(action_intent="talks to Maren"), ["Maren Holt"]) is None
    )
    assert names_no_act("talks to Maren") is False  # without the cast, "maren" is a word


SMALL = st.sampled_from(sorted(FILLER | SPEAKING | {"maren", "holt"}))
ACT = st.sampled_from(["kneels", "climbs", "door", "lamp", "bows", "runs"])


@given(st.lists(SMALL, min_size=1, max_size=6), ACT, st.integers(0, 6))
def test_one_word_of_an_act_keeps_the_intent(small: list[str], act: str, at: int) -> None:
    assert names_no_act(" ".join(small), ["Maren Holt"])
    words = [*small[:at], act, *small[at:]]
    assert not names_no_act(" ".join(words), ["Maren Holt"])


_answers = two_replies(
    {"speech": None, "thought": None, "action_intent": "try to talk"},
    {"speech": "Not tonight.", "thought": None, "action_intent": "to talk"},
)


def _replies(
    tmp_path: Path,
    answers: Callable[[ProviderRequest], Any] = _answers,
    said: str = "Good evening.",
) -> list[tuple[str, str]]:
    runner, store, _ = recording_runner(tmp_path, answers, KernelLimits())
    sid = run(runner.create_session("the-vintners-wake", "C1")).id
    run(runner.play_turn(sid, TurnInput(speech=said)))
    return [
        (r.kind, r.text)
        for r in store.history(sid)
        if isinstance(r, SpeechRecord | ActionRecord) and r.author == "character"
    ]


def test_a_turn_commits_no_empty_intent(tmp_path: Path) -> None:
    assert _replies(tmp_path) == [("speech", "Not tonight.")]


def test_negative_control_without_the_filter_the_empty_intents_are_committed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(replies, "without_empty_intent", lambda reply, *_: reply)
    assert _replies(tmp_path) == [
        ("action", "try to talk"),
        ("speech", "Not tonight."),
        ("action", "to talk"),
    ]


OBJECT_VERB = st.sampled_from(sorted(NEEDS_OBJECT))
FILLERS = st.lists(st.sampled_from(sorted(FILLER)), max_size=4)


@given(FILLERS, OBJECT_VERB, st.sampled_from(["the door", "Maren", "it", "the lamp"]))
def test_a_verb_wanting_an_object_goes_alone_and_stays_with_one(
    small: list[str], verb: str, what: str
) -> None:
    assert names_no_act(" ".join([*small, verb]), ["Maren Holt"])
    assert not names_no_act(" ".join([*small, verb, what]), ["Maren Holt"])


def test_negative_control_without_the_object_test_a_lone_verb_stays(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(no_act, "NEEDS_OBJECT", frozenset())
    monkeypatch.setattr(no_act, "PERCEIVING", frozenset())
    monkeypatch.setattr(no_act, "THINKING", frozenset())
    monkeypatch.setattr(no_act, "OUTCOME_OR_PLACEHOLDER", frozenset())
    monkeypatch.setattr(no_act, "OUTCOMES", frozenset())
    monkeypatch.setattr(no_act, "DEMONSTRATIVES", frozenset())
    monkeypatch.setattr(no_act, "NOT_KNOWING", re.compile("\x00"))
    monkeypatch.setattr(no_act, "NOTHING_AT_ALL", re.compile("\x00"))
    monkeypatch.setattr(no_act, "SELF_STATE", re.compile("\x00"))
    assert not any(names_no_act(intent) for intent in LIVE_NO_ACT)


def test_negative_control_without_the_placeholder_words_speak_and_act_stays(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert names_no_act("speak and act")
    monkeypatch.setattr(no_act, "OUTCOME_OR_PLACEHOLDER", frozenset())
    assert not names_no_act("speak and act")
    assert names_no_act("speak and talk")


def test_a_placeholder_verb_beside_a_name_alone_acts() -> None:
    """ "take" is a placeholder word only beside a verb of speaking: Hypothesis found "take
    Maren" read as no act once "speak and act" was."""
    assert not names_no_act("take Maren", ["Maren Holt"])
    assert names_no_act("talk and act with Maren", ["Maren Holt"])


def test_negative_control_with_the_old_speaking_words_swear_stays(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    old = no_act.SPEAKING - {"swear", "swears", "swearing"}
    monkeypatch.setattr(no_act, "SPEAKING", old)
    assert not names_no_act("swear")


def test_negative_control_without_anyone_as_a_small_word_to_call_someone_stays(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert names_no_act("to call someone")
    monkeypatch.setattr(no_act, "ANYONE", frozenset())
    assert not names_no_act("to call someone")
    assert names_no_act("call")


CASPAR = "Warm, talkative, quick to bless and quicker to change the subject. Quotes proverbs."
"""Brother Caspar's personality, in part (the-vintners-wake)."""


def test_a_trait_of_the_own_personality_is_no_act() -> None:
    """Vintners-wake #32 (seed 47), turn 8: Brother Caspar's intent was "Talkative"."""
    own = no_act.traits(CASPAR)
    assert own == {"warm", "talkative"}
    assert names_no_act("Talkative", own_traits=own)
    assert without_empty_intent(CharacterReply(action_intent="Talkative"), [], own) is None
    assert not names_no_act("blesses the coffin", own_traits=own)
    assert not names_no_act("Talkative", own_traits=no_act.traits("Courteous and precise."))


WHO = "Who are you, exactly?"


def _caspar_talkative(request: ProviderRequest) -> Any:
    if request.agent == "director":
        return director_answer(["C2"])
    if request.agent == "prose":
        return {"narration": "Rain."}
    return {"speech": "Evening.", "thought": None, "action_intent": "Talkative"}


def test_a_turn_commits_no_trait_as_an_intent(tmp_path: Path) -> None:
    assert _replies(tmp_path, _caspar_talkative, WHO) == [("speech", "Evening.")]


def test_negative_control_without_the_traits_the_trait_is_committed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(replies, "traits", lambda personality: frozenset())
    assert _replies(tmp_path, _caspar_talkative, WHO) == [
        ("speech", "Evening."),
        ("action", "Talkative"),
    ]


DOROTEA_LOOK = (
    "A grey-haired woman in a severe charcoal coat, a leather satchel strapped across her chest,"
    " reading glasses on a chain."
)
"""Dorotea Sand's appearance (the-vintners-wake, slot C4)."""
RECITED = "read glasses on a chain"
"""Vintners-wake #50 (seed 66), turn 1: Dorotea Sand's intent, her own appearance's words."""


def _reciting(slot: str, intent: str) -> Callable[[ProviderRequest], Any]:
    """Answers in which the Character of `slot` attempts `intent`, and any other one asked
    (the question's hearer) attempts nothing: the words are not its own sheet's."""

    def answer(request: ProviderRequest) -> Any:
        if request.agent == "director":
            return director_answer([slot])
        if request.agent == "prose":
            return {"narration": "Rain."}
        own = intent if request.agent == f"character:{slot}" else None
        return {"speech": "Evening.", "thought": None, "action_intent": own}

    return answer


def test_a_turn_commits_no_recited_look_as_an_intent(tmp_path: Path) -> None:
    assert _replies(tmp_path, _reciting("C4", RECITED), WHO) == [("speech", "Evening.")]


def test_negative_control_without_the_look_the_recital_is_committed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(no_act, "recites_sheet", lambda intent, sheet_text: False)
    assert _replies(tmp_path, _reciting("C4", RECITED), WHO) == [
        ("speech", "Evening."),
        ("action", RECITED),
    ]


def test_negative_control_without_the_self_state_pattern_the_busy_person_acts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Toll-house #56 (seed 70), turn 1: Teodor Vask's intent."""
    busy = "I am a busy person, not sure what to do right now."
    assert names_no_act(busy)
    monkeypatch.setattr(no_act, "SELF_STATE", re.compile("\x00"))
    assert not names_no_act(busy)


def test_small_words_inside_an_intents_words_are_no_recital() -> None:
    """ "wanders there" holds the look's "and" and "her" inside its words: an act."""
    look = "A tall woman and her hound."
    assert not no_act.recites_sheet("wanders there", look)
    assert no_act.recites_sheet("tall hound", look)


LIO_MANNER = "Nervous, loyal, overly honest; talks to the casks when alone."
"""Lio Mendez's personality (the-vintners-wake, slot C3)."""
LIO_LOOK = (
    "A lanky young man with wine-stained sleeves, a lantern in one hand and cobwebs in his hair."
)
MANNER_RECITED = "talk to the casks when alone"
"""Vintners-wake #57 (seed 73), turn 4: Lio Mendez's intent, his own personality's words; the
follow-up told the human "Lio Mendez attempts to talk to the casks when alone was
successful."."""


@pytest.mark.parametrize(
    ("sheet", "intent", "recited"),
    [
        ([DOROTEA_LOOK], RECITED, True),
        ([DOROTEA_LOOK], "reading glasses", True),
        ([DOROTEA_LOOK], "a leather satchel", True),
        ([DOROTEA_LOOK], "adjusts her reading glasses", False),
        ([DOROTEA_LOOK], "opens the leather satchel", False),
        ([DOROTEA_LOOK], "glasses", False),  # one word: too little to call a recital
        ([DOROTEA_LOOK], "walks to the window", False),
        ([LIO_LOOK, LIO_MANNER], MANNER_RECITED, True),
        ([LIO_LOOK, LIO_MANNER], "overly honest", True),
        ([LIO_LOOK, LIO_MANNER], "carries the lantern to the casks", False),
        ([LIO_LOOK, LIO_MANNER], "hides behind the oldest cask", False),
        ([LIO_LOOK, LIO_MANNER], "honest", False),
    ],
)
def test_an_intent_of_the_own_sheet_words_alone_is_no_act(
    sheet: list[str], intent: str, recited: bool
) -> None:
    """Words of the look (Dorotea Sand's) or of the personality (Lio Mendez's) alone."""
    assert any(no_act.recites_sheet(intent, text) for text in sheet) is recited
    reply = CharacterReply(speech="Evening.", action_intent=intent)
    kept = without_empty_intent(reply, own_sheet=sheet)
    assert kept == (CharacterReply(speech="Evening.") if recited else reply)


def test_a_turn_commits_no_recited_personality_as_an_intent(tmp_path: Path) -> None:
    assert not no_act.recites_sheet(MANNER_RECITED, LIO_LOOK)
    assert _replies(tmp_path, _reciting("C3", MANNER_RECITED), WHO) == [
        ("speech", "Evening."),
        ("speech", "Evening."),
    ]


def test_negative_control_with_the_look_alone_the_personality_is_committed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    only_look = replies.without_empty_intent

    def without_personality(reply: CharacterReply, *args: Any) -> CharacterReply | None:
        names, own_traits, (look, _manner) = args
        return only_look(reply, names, own_traits, (look,))

    monkeypatch.setattr(replies, "without_empty_intent", without_personality)
    assert _replies(tmp_path, _reciting("C3", MANNER_RECITED), WHO) == [
        ("speech", "Evening."),
        ("speech", "Evening."),
        ("action", MANNER_RECITED),
    ]


def test_negative_control_without_the_hearing_words_the_listening_acts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    listening = "To listen to what I'm saying"
    monkeypatch.setattr(no_act, "_HEARING_SPEECH", frozenset())
    assert not names_no_act(listening)


OWN_OUTCOME = (
    "Look for the old vintner's letter and the trapdoor. If not, read the will aloud over the"
    " coffin. If not, consult the notary's satchel. Lio Mendez succeeds."
)
"""Vintners-wake #63 (seed 79), turn 8: Lio Mendez's intent, its own outcome at the end (the
next beat's follow-up for Agnese Corvo's attempt answered "Lio Mendez succeeds.")."""
VINTNERS = ["Agnese Corvo", "Brother Caspar", "Lio Mendez", "Dorotea Sand", "Felix Aubert"]


def test_a_sentence_of_an_intent_telling_its_outcome_goes() -> None:
    reply = without_empty_intent(CharacterReply(action_intent=OWN_OUTCOME), VINTNERS)
    assert reply is not None
    assert reply.action_intent == OWN_OUTCOME.removesuffix(" Lio Mendez succeeds.")
    alone = CharacterReply(speech="Well.", action_intent="Lio Mendez succeeds.")
    assert without_empty_intent(alone, VINTNERS) == CharacterReply(speech="Well.")
    two_acts = CharacterReply(action_intent="Open the door. Walk out.")
    assert without_empty_intent(two_acts, VINTNERS) == two_acts


def test_negative_control_without_the_outcome_words_the_outcome_is_attempted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(no_act, "OUTCOMES", frozenset())
    reply = without_empty_intent(CharacterReply(action_intent=OWN_OUTCOME), VINTNERS)
    assert reply is not None and reply.action_intent == OWN_OUTCOME


def test_asking_is_speaking() -> None:
    """Toll-house #66 (seed 80), turn 1: Maren Holt's whole intent."""
    assert names_no_act("ask")
    assert names_no_act("asks a question")
    assert names_no_act("question Maren", ["Maren Holt"])
    assert not names_no_act("asks for the key and takes it")


def test_negative_control_with_the_old_speaking_words_ask_acts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    old = no_act.SPEAKING - {"ask", "asks", "asking", "question", "questions", "questioning"}
    monkeypatch.setattr(no_act, "SPEAKING", old)
    assert not names_no_act("ask")
