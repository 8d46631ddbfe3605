"""Hypothesis strategies for the records the store persists, plus small factories."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any

from hypothesis import strategies as st

from tavern.records import (
    ActDeadline,
    ActionRecord,
    Audience,
    Body,
    Character,
    ChatMessage,
    CommitLine,
    CompactLine,
    EventRecord,
    IdentityEntry,
    LlmCallLine,
    LlmRequestBody,
    Mind,
    NarrationRecord,
    NarrativeClock,
    PerspectiveLedger,
    PromptCache,
    RestoreLine,
    Scene,
    SessionState,
    SpeechRecord,
    SystemRecord,
    ThoughtRecord,
    TurnInput,
    TurnInputEffectiveLine,
    TurnInputLine,
    UndoLine,
    Zone,
    ZoneLink,
)
from tavern.records.session import SESSION_ID_PATTERN

SLOTS = ["C1", "C2", "C3"]
slot = st.sampled_from(SLOTS)
text = st.text(max_size=40)
small = st.integers(min_value=0, max_value=10_000)
words = st.text(alphabet="abcdefghij -", min_size=1, max_size=20).filter(str.strip)
session_ids = st.from_regex(SESSION_ID_PATTERN, fullmatch=True)
aware = st.datetimes(
    min_value=datetime(2000, 1, 1),  # noqa: DTZ001 - hypothesis bounds are naive
    max_value=datetime(2100, 1, 1),  # noqa: DTZ001
    timezones=st.builds(
        timezone, st.integers(-12 * 60, 12 * 60).map(lambda m: timedelta(minutes=m))
    ),
)
json_values: st.SearchStrategy[Any] = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(text, inner, max_size=3),
    max_leaves=8,
)

audiences = st.builds(
    Audience,
    origin=st.sampled_from(["public", "zone", "whisper", "private"]),
    perceivers=st.lists(slot, max_size=3),
    aware=st.lists(slot, max_size=2),
)


def _record_fields(seq: int, turn: int) -> dict[str, Any]:
    return {
        "seq": st.just(seq),
        "turn_number": st.just(turn),
        "speaker": st.sampled_from([*SLOTS, "Narrator", "World"]),
        "author": st.sampled_from(["human", "character", "director", "renderer", "kernel"]),
        "audience": audiences,
        "tick": small,
    }


def history_records(seq: int = 0, turn: int = 0) -> st.SearchStrategy[Any]:
    """Any history record with the given seq and turn number."""
    f = _record_fields(seq, turn)
    return st.one_of(
        st.builds(SpeechRecord, text=text, reply_to=st.none() | small, **f),
        st.builds(ThoughtRecord, text=text, **f),
        st.builds(ActionRecord, text=text, resolved=st.booleans(), **f),
        st.builds(NarrationRecord, text=text, **f),
        st.builds(
            EventRecord,
            event_kind=st.sampled_from(
                [
                    "action_outcome",
                    "world_event",
                    "arrival",
                    "departure",
                    "sensory_cue",
                    "utterance",
                ]
            ),
            text=text,
            actor_id=st.none() | slot,
            utterance_ref=st.none() | small,
            **f,
        ),
        st.builds(SystemRecord, marker=words, text=text, **f),
    )


any_history_record = st.builds(lambda s, t: (s, t), small, small).flatmap(
    lambda st_: history_records(*st_)
)


@st.composite
def turn_records(draw: st.DrawFn, first_seq: int, turn: int) -> list[Any]:
    """A turn's worth of records with consecutive seqs from `first_seq`."""
    n = draw(st.integers(0, 4))
    return [draw(history_records(first_seq + i, turn)) for i in range(n)]


characters = st.builds(
    Character,
    id=st.from_regex(r"[a-z][a-z0-9-]{0,10}", fullmatch=True),
    mind=st.builds(
        Mind, personality=text, secrets=st.lists(text, max_size=2), goals=st.lists(text, max_size=2)
    ),
    body=st.builds(Body, display_name=words, appearance=text, description_ref=words),
    revision=small,
)
scenes = st.builds(
    Scene,
    location=words,
    description=text,
    zones=st.lists(
        st.builds(Zone, id=st.sampled_from(["hall", "cellar", "balcony"]), label=text), max_size=3
    ),
    links=st.lists(
        st.builds(
            ZoneLink,
            source=st.sampled_from(["hall", "cellar"]),
            target=st.sampled_from(["hall", "balcony"]),
            sound=st.sampled_from(["open", "sealed"]),
            sight=st.sampled_from(["open", "sealed"]),
        ),
        max_size=3,
    ),
    positions=st.dictionaries(slot, st.sampled_from(["hall", "cellar"]), max_size=3),
    present=st.lists(slot, max_size=3, unique=True),
    facts=st.lists(text, max_size=3),
)
deadlines = st.builds(ActDeadline, id=words, at_tick=st.integers(1, 100), event=text)
ledgers = st.builds(
    PerspectiveLedger,
    owner=slot,
    identities=st.dictionaries(
        slot,
        st.builds(
            IdentityEntry,
            name=st.none() | words,
            learned_from_seq=st.none() | small,
            description_ref=words,
        ),
        max_size=3,
    ),
    memory_summary=text,
    memory=st.lists(text, max_size=3),
)


@st.composite
def session_states(draw: st.DrawFn, session_id: str | None = None) -> SessionState:
    """Any valid session state (turn 0, revision 0 unless drawn otherwise)."""
    return SessionState(
        id=session_id or draw(session_ids),
        scenario_id=draw(words),
        title=draw(text),
        created_at=draw(aware),
        world=draw(text),
        tone_directives=draw(st.lists(text, max_size=2)),
        language=draw(st.sampled_from(["en", "pt-BR"])),
        cast=draw(st.dictionaries(slot, characters, min_size=1, max_size=3)),
        controlled_id=draw(slot),
        scene=draw(scenes),
        moods=draw(st.dictionaries(slot, words, max_size=3)),
        clock=draw(
            st.builds(
                NarrativeClock,
                tick=small,
                deadlines=st.lists(deadlines, max_size=2),
                fired=st.lists(words, max_size=2),
            )
        ),
        story_summary=draw(text),
        ledgers=draw(st.dictionaries(slot, ledgers, max_size=3)),
        plugin_state=draw(st.dictionaries(words, json_values, max_size=3)),
    )


turn_inputs = st.builds(
    TurnInput,
    speech=words,
    thought=st.none() | text,
    action=st.none() | text,
    whisper_to=st.lists(slot, max_size=2),
    force_speaker=st.none() | slot,
    hint=st.none() | text,
    skip=st.booleans(),
)


def _line_fields() -> dict[str, Any]:
    return {"ts": aware, "session_id": session_ids, "turn_number": small}


journal_lines = st.one_of(
    st.builds(
        LlmCallLine,
        agent=words,
        provider=st.sampled_from(["llama_cpp", "deepseek", "fake", "replay", "local"]),
        model=words,
        source=st.sampled_from(["live", "replay", "fake"]),
        request=st.builds(
            LlmRequestBody,
            messages=st.lists(
                st.builds(
                    ChatMessage, role=st.sampled_from(["system", "user", "assistant"]), content=text
                ),
                min_size=1,
                max_size=3,
            ),
            max_tokens=st.none() | small,
            response_format=st.none() | st.dictionaries(words, json_values, max_size=2),
            temperature=st.none() | st.floats(0, 2),
            seed=st.none() | small,
        ),
        response=st.none() | text,
        usage=st.none() | st.dictionaries(words, json_values, max_size=2),
        prompt_cache=st.builds(
            PromptCache, hit_tokens=st.none() | small, miss_tokens=st.none() | small
        ),
        error=st.none() | text,
        error_type=st.none() | st.sampled_from(["http_4xx", "timeout", "schema"]),
        duration_ms=st.floats(0, 1e6),
        attempt_number=st.integers(1, 5),
        prompt_chars=small,
        prompt_estimated_tokens=small,
        **_line_fields(),
    ),
    st.builds(TurnInputLine, input=turn_inputs, **_line_fields()),
    st.builds(
        TurnInputEffectiveLine,
        input=turn_inputs,
        effective_force_speaker=st.none() | slot,
        transformed_fields=st.lists(words, max_size=2),
        **_line_fields(),
    ),
    st.builds(
        CommitLine,
        revision=small,
        record_count=small,
        tick=small,
        control_returned=st.booleans(),
        **_line_fields(),
    ),
    st.builds(
        UndoLine, revision=small, removed_turn=small, removed_records=small, **_line_fields()
    ),
    st.builds(
        CompactLine,
        revision=small,
        checkpoint_id=words,
        cutoff_turn=small,
        evicted_records=small,
        trigger=st.sampled_from(["manual", "auto"]),
        **_line_fields(),
    ),
    st.builds(
        RestoreLine, revision=small, checkpoint_id=words, restored_records=small, **_line_fields()
    ),
)


def plain_state(session_id: str = "sess-one") -> SessionState:
    """A small fixed session state for example-based tests."""
    cast = {
        s: Character(
            id=f"ch-{s.lower()}",
            mind=Mind(),
            body=Body(display_name=s, description_ref=f"figure {s}"),
        )
        for s in ("C1", "C2")
    }
    return SessionState(
        id=session_id,
        scenario_id="sc",
        title="A title",
        created_at=datetime(2026, 1, 1, tzinfo=UTC),
        world="w",
        cast=cast,
        controlled_id="C1",
        scene=Scene(location="room", present=["C1", "C2"]),
    )


def speech(seq: int, turn: int, words_: str = "hello") -> SpeechRecord:
    """One public speech record."""
    return SpeechRecord(
        seq=seq,
        turn_number=turn,
        speaker="C1",
        author="character",
        audience=Audience(origin="public", perceivers=["C1", "C2"]),
        text=words_,
    )
