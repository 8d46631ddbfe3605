"""Two legitimate prompts the live counter-canon run saw refused, and what must stay refused.

Run `7fc2db0a` (`cases/04-counter-canon/`) failed turn 26: the woodcutter's own thought
"Joaquim Serra, onde está o meu machado?" rendered in his memory as a free-text line
(`· You thought: Joaquim Serra, ...`), which `structural_label_form` read as a third
character block introduced unlike the two roster lines. `live/character_turn26.json` is
that refused prompt, exactly as the run's journal holds it. Run `75c74676` lost a
compaction: the summarizer's event line `(turn 12) happened: Tomé Valadares [...]` carries
the clamp's redaction mask, which `structural_odd_tag` read as a tag after one name. The
summarizer now puts its lines behind `render.LOG` too, so a record opening with a name is
no block there at all (shown with its own builder). Each case has negative controls: the same prompt
with a real difference planted is still refused.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tavern.agents import summarizer
from tavern.agents.render import LOG
from tavern.contract import check_prompt
from tavern.contract._structural import LOG_MARK
from tavern.records import ActionRecord, Audience, ChatMessage, EventRecord, HistoryRecord
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


def _events_as_run(last_event: str, head: str = "- ") -> list[ChatMessage]:
    """The summarizer's event block as run `75c74676` rendered it (each line behind `- `,
    before the summarizer put its lines behind `render.LOG`), `last_event` at turn 12."""
    lines = [
        '(turn 8) Rosa Aguiar said: "Tomé Valadares, está aí embaixo?"',
        "(turn 9) happened: Bento está na porta da câmara de gelo.",
        "(turn 10) happened: Firmina Braga está no salão.",
        f"(turn 12) happened: {last_event}",
    ]
    content = "## Earlier events to fold in\n" + "\n".join(head + line for line in lines)
    return [ChatMessage(role="user", content=content)]


def test_a_redaction_mask_after_a_name_is_not_a_tag() -> None:
    messages = _events_as_run("Tomé Valadares [...] na câmara de gelo.")
    assert check_prompt(messages, CAST) == []


@pytest.mark.parametrize("tag", ["[guest]", "(the stranger)", "{?}", "†"])
def test_negative_control_a_real_tag_after_one_name_is_still_refused(tag: str) -> None:
    messages = _events_as_run(f"Tomé Valadares {tag} na câmara de gelo.")
    assert [v.rule for v in check_prompt(messages, CAST)] == ["structural_odd_tag"]


def _summarizer_prompt(tmp_path: Path, attempt: str) -> list[ChatMessage]:
    """A summarizer prompt by its own builder: two events opening with a name, then Rosa
    Aguiar's attempt `attempt`."""
    library = Library(tmp_path)
    state = materialize_session(library.get_scenario("a-capa-verde"), library, "s-canon")
    hall = Audience(origin="zone", perceivers=list(state.cast))

    def event(turn: int, slot: str, text: str) -> EventRecord:
        return EventRecord(seq=turn, turn_number=turn, speaker=slot, author="director",
                           audience=hall, event_kind="action_outcome", actor_id=slot,
                           text=text)  # fmt: skip

    evicted: list[HistoryRecord] = [
        event(9, "C2", "Bento está na porta da câmara de gelo."),
        event(10, "C3", "Firmina Braga [...] está no salão."),
        ActionRecord(
            seq=11, turn_number=11, speaker="C1", author="character", audience=hall, text=attempt
        ),  # fmt: skip
    ]
    return summarizer.build_messages(state, evicted)


def test_summarizer_record_lines_opening_with_a_name_are_no_blocks(tmp_path: Path) -> None:
    """Its lines are log lines: "Rosa Aguiar tried: Tomé Valadares, ..." beside two
    "happened: <name>" lines was a third block labelled apart (`structural_label_form`)."""
    messages = _summarizer_prompt(tmp_path, "Tomé Valadares, abra a porta")
    assert "· (turn 11) Rosa Aguiar tried: Tomé Valadares, abra" in messages[-1].content
    assert check_prompt(messages, CAST) == []
    as_before = [
        m.model_copy(update={"content": m.content.replace("\n· (turn", "\n- (turn")})
        for m in messages
    ]  # negative control: the same lines behind "- " are blocks again, one labelled apart
    assert {v.rule for v in check_prompt(as_before, CAST)} == {"structural_label_form"}


def test_the_log_mark_is_the_prompt_builders_free_text_prefix() -> None:
    assert LOG.strip() == LOG_MARK
