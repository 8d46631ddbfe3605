"""Two legitimate prompts the live counter-canon run saw refused, and what must stay refused.

Run `7fc2db0a` (`cases/04-counter-canon/`) failed turn 26: the woodcutter's own thought
"Joaquim Serra, onde está o meu machado?" rendered in his memory as a free-text line
(`· You thought: Joaquim Serra, ...`), which `structural_label_form` read as a third
character block introduced unlike the two roster lines. `live/character_turn26.json` is
that refused prompt, exactly as the run's journal holds it. Run `75c74676` lost a
compaction: the summarizer's event line `(turn 12) happened: Tomé Valadares [...]` carries
the clamp's redaction mask, which `structural_odd_tag` read as a tag after one name; the
summarizer's own builder renders it here. Each case has negative controls: the same prompt
with a real difference planted is still refused.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tavern.agents import summarizer
from tavern.contract import check_prompt
from tavern.records import Audience, ChatMessage, EventRecord, SessionState, SpeechRecord
from tavern.store import Library
from tavern.store.materialize import materialize_session

LIVE = json.loads((Path(__file__).parent / "live" / "character_turn26.json").read_text())
CAST: list[str] = LIVE["cast_names"]
THOUGHT = "· You thought: Joaquim Serra, onde está o meu machado?"


def _turn26(replace: str | None = None) -> list[ChatMessage]:
    """The refused prompt, its thought line replaced by `replace` when given."""
    messages = [ChatMessage(**m) for m in LIVE["messages"]]
    if replace is not None:
        assert THOUGHT in messages[1].content
        content = messages[1].content.replace(THOUGHT, replace)
        messages[1] = messages[1].model_copy(update={"content": content})
    return messages


def test_a_character_s_own_thought_opening_with_its_name_passes() -> None:
    assert THOUGHT in _turn26()[1].content
    assert check_prompt(_turn26(), CAST) == []


@pytest.mark.parametrize(
    "line",
    [
        "You thought: Joaquim Serra, onde está o meu machado?",  # no log mark: a label
        "- Joaquim Serra (the stranger). Where: o salão da estalagem.",  # a tagged card
        "Character: Joaquim Serra. Where: o salão da estalagem.",  # a labelled card
    ],
)
def test_negative_control_a_block_marked_apart_is_still_refused(line: str) -> None:
    found = check_prompt(_turn26(line), CAST)
    assert {v.rule for v in found} & {"structural_label_form", "structural_odd_tag"}, line


def _state(tmp_path: Path) -> SessionState:
    library = Library(tmp_path)
    return materialize_session(library.get_scenario("a-capa-verde"), library, "s-canon")


def _summarizer_prompt(tmp_path: Path, last_event: str) -> list[ChatMessage]:
    state = _state(tmp_path)
    hall = Audience(origin="zone", perceivers=list(state.cast))

    def event(turn: int, slot: str, text: str) -> EventRecord:
        return EventRecord(seq=turn, turn_number=turn, speaker=slot, author="director",
                           audience=hall, event_kind="action_outcome", actor_id=slot, text=text)  # fmt: skip

    evicted = [
        SpeechRecord(seq=1, turn_number=1, speaker="C1", author="character", audience=hall,
                     text="Tomé Valadares, está aí embaixo?"),  # fmt: skip
        event(2, "C2", "Bento fareja a porta da câmara de gelo."),
        event(3, "C3", "Firmina Braga conta as chaves da cintura."),
        event(12, "C6", last_event),
    ]
    return summarizer.build_messages(state, evicted)


def test_a_redaction_mask_after_a_name_is_not_a_tag(tmp_path: Path) -> None:
    messages = _summarizer_prompt(tmp_path, "Tomé Valadares [...] na câmara de gelo.")
    assert "(turn 12) happened: Tomé Valadares [...]" in messages[-1].content
    assert check_prompt(messages, CAST) == []


@pytest.mark.parametrize("tag", ["[guest]", "(the stranger)", "{?}", "†"])
def test_negative_control_a_real_tag_after_one_name_is_still_refused(
    tmp_path: Path, tag: str
) -> None:
    messages = _summarizer_prompt(tmp_path, f"Tomé Valadares {tag} na câmara de gelo.")
    assert [v.rule for v in check_prompt(messages, CAST)] == ["structural_odd_tag"]
