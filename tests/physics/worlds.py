"""Hypothesis strategies: random casts, stages, histories and hostile Director proposals.

Every secret word is unique to the record that carries it (thought words to one thought,
whisper words to one whisper), so a leak can be traced to exactly one source.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime

from hypothesis import strategies as st

from tavern.physics import audience_for, event_audience
from tavern.records import (
    ActionRecord,
    Body,
    Character,
    DirectorDecision,
    EventRecord,
    HistoryRecord,
    LinkUpdate,
    Mind,
    NarrationRecord,
    PerceptionEvent,
    Scene,
    SceneDelta,
    SessionState,
    SpeechRecord,
    ThoughtRecord,
    Zone,
    ZoneLink,
    ZoneMove,
)

NAMES = ["Ana Prado", "Bruno", "Clara Reis", "Davi", "Elisa"]
FALSE_NAMES = ["Lobo", "Vento", "Sombra"]
DESCRIPTIONS = [
    "the woman in grey",
    "the man in the open shirt",
    "the girl with the scar",
    "the old sailor",
    "the tall stranger",
]
ZONES = ["hall", "cellar", "loft"]
PLAIN = ["bread", "lamp", "door", "rain", "table", "coins", "cider", "window"]


@dataclass
class World:
    """A generated session: state, history, and the secret words each record carries."""

    state: SessionState
    history: list[HistoryRecord]
    thought_words: dict[str, str] = field(default_factory=dict)
    """Secret word -> owner slot."""
    whisper_words: dict[str, frozenset[str]] = field(default_factory=dict)
    """Secret word -> slots inside that whisper's audience."""


def _cast(n: int) -> dict[str, Character]:
    return {
        f"C{i + 1}": Character(
            id=f"ch{i + 1}",
            mind=Mind(secrets=[f"mindsecret{i}"]),
            body=Body(
                display_name=NAMES[i],
                appearance=f"appearance{i} plain clothes",
                description_ref=DESCRIPTIONS[i],
            ),
        )
        for i in range(n)
    }


@st.composite
def scenes(draw: st.DrawFn, slots: list[str]) -> Scene:
    present = draw(st.lists(st.sampled_from(slots), min_size=1, unique=True))
    present = [s for s in slots if s in present]
    if draw(st.booleans()):
        return Scene(location="the inn", present=present)
    zone_ids = ZONES[: draw(st.integers(2, 3))]
    links = []
    for a in zone_ids:
        for b in zone_ids:
            if a != b and draw(st.booleans()):
                links.append(
                    ZoneLink(
                        source=a,
                        target=b,
                        sound=draw(st.sampled_from(["open", "sealed"])),
                        sight=draw(st.sampled_from(["open", "sealed"])),
                    )
                )
    positions = {s: draw(st.sampled_from(zone_ids)) for s in present}
    return Scene(
        location="the inn",
        zones=[Zone(id=z, label=f"the {z}") for z in zone_ids],
        links=links,
        positions=positions,
        present=present,
    )


def _text(draw: st.DrawFn, names: list[str], extra: list[str]) -> str:
    words = draw(st.lists(st.sampled_from(PLAIN + names), min_size=1, max_size=4))
    return " ".join(words + extra)


@st.composite
def worlds(draw: st.DrawFn) -> World:
    cast = _cast(draw(st.integers(2, 5)))
    slots = list(cast)
    scene = draw(scenes(slots))
    speech_names = [c.body.display_name for c in cast.values()] + [
        form for n in NAMES[: len(cast)] for form in {n.split()[0], n.split()[-1]}
    ]
    history: list[HistoryRecord] = []
    thought_words: dict[str, str] = {}
    whisper_words: dict[str, frozenset[str]] = {}
    for seq in range(draw(st.integers(0, 12))):
        speaker = draw(st.sampled_from(scene.present))
        kind = draw(st.sampled_from(["speech", "whisper", "reply", "thought", "action", "event"]))
        base = {"seq": seq, "turn_number": seq // 3 + 1, "speaker": speaker}
        if kind == "thought":
            word = f"thoughtsecret{seq}x"
            thought_words[word] = speaker
            text = _text(draw, speech_names, [word])
            aud = audience_for(scene, speaker, "thought")
            history.append(ThoughtRecord(**base, author="character", text=text, audience=aud))
        elif kind in ("whisper", "reply"):
            prior = [
                r
                for r in history
                if isinstance(r, SpeechRecord)
                and r.audience.origin == "whisper"
                and speaker in r.audience.perceivers
            ]
            reply_to = draw(st.sampled_from(prior)) if kind == "reply" and prior else None
            targets = draw(st.lists(st.sampled_from(slots), min_size=1, max_size=2))
            aud = audience_for(scene, speaker, "speech", whisper_to=targets, reply_to=reply_to)
            word = f"whispersecret{seq}x"
            text = _text(draw, speech_names, [word])
            if aud.origin == "whisper":
                whisper_words[word] = frozenset(aud.perceivers)
            history.append(
                SpeechRecord(
                    **base,
                    author="human",
                    text=text,
                    audience=aud,
                    reply_to=reply_to.seq if reply_to else None,
                )
            )
        elif kind == "speech":
            intro = draw(st.sampled_from(["", "My name is ", "Call me ", "Me chamo "]))
            name = draw(st.sampled_from(FALSE_NAMES + speech_names))
            text = f"{intro}{name}. " + _text(draw, speech_names, [])
            aud = audience_for(scene, speaker, "speech")
            history.append(SpeechRecord(**base, author="character", text=text, audience=aud))
        elif kind == "action":
            aud = audience_for(scene, speaker, "action")
            text = _text(draw, speech_names, [])
            history.append(ActionRecord(**base, author="character", text=text, audience=aud))
        else:
            history.append(
                EventRecord(
                    **{**base, "speaker": "World"},
                    author="director",
                    event_kind="world_event",
                    text=_text(draw, speech_names + slots, list(thought_words)),
                    audience=event_audience(
                        draw(st.lists(st.sampled_from([*slots, "C9"]), max_size=4))
                    ),
                )
            )
    if history and draw(st.booleans()):
        history.append(
            NarrationRecord(
                seq=len(history),
                turn_number=history[-1].turn_number,
                speaker="Narrator",
                author="renderer",
                text="narration " + " ".join([*thought_words, *whisper_words]),
                audience=event_audience([]),
            )
        )
    state = SessionState(
        id="s-prop",
        scenario_id="prop",
        title="prop",
        created_at=datetime(2026, 1, 1, tzinfo=UTC),
        world="a port town",
        cast=cast,
        controlled_id=draw(st.sampled_from(slots)),
        scene=scene,
    )
    return World(state, history, thought_words, whisper_words)


@st.composite
def hostile_decisions(draw: st.DrawFn, world: World) -> DirectorDecision:
    """Schema-valid but hostile: wide witnesses, unknown ids, secrets in texts, odd moves."""
    slots = [*world.state.cast, "C9", "Narrator"]
    secrets = [*world.thought_words, *world.whisper_words]
    names = [c.body.display_name for c in world.state.cast.values()]
    names += [n.split()[-1] for n in names]  # a surname alone is a name too
    zones = [*ZONES, "main", "attic", "Bad Zone"]

    def text() -> str:
        pool = PLAIN + secrets + names + list(world.state.cast)
        return " ".join(draw(st.lists(st.sampled_from(pool), min_size=1, max_size=5)))

    events = [
        PerceptionEvent(
            kind=draw(st.sampled_from(["action_outcome", "world_event", "utterance"])),
            text=text(),
            actor_id=draw(st.one_of(st.none(), st.sampled_from(slots))),
            witness_ids=draw(st.lists(st.sampled_from(slots), max_size=6)),
            utterance_ref=draw(st.one_of(st.none(), st.integers(0, 12))),
        )
        for _ in range(draw(st.integers(0, 3)))
    ]
    if events and draw(st.booleans()):  # a weak model repeats an event verbatim
        events.insert(draw(st.integers(0, len(events))), draw(st.sampled_from(events)))
    moves = [
        ZoneMove(
            character_id=draw(st.sampled_from(slots)),
            to_zone=draw(st.sampled_from(zones)),
            new_zone_label=draw(st.one_of(st.none(), st.just("a new nook " + text()))),
        )
        for _ in range(draw(st.integers(0, 3)))
    ]
    links = [
        LinkUpdate(
            source=draw(st.sampled_from(zones)),
            target=draw(st.sampled_from(zones)),
            sound=draw(st.one_of(st.none(), st.sampled_from(["open", "sealed"]))),
            sight=draw(st.one_of(st.none(), st.sampled_from(["open", "sealed"]))),
        )
        for _ in range(draw(st.integers(0, 2)))
    ]
    return DirectorDecision(
        events=events,
        next_speakers=draw(st.lists(st.sampled_from(slots), max_size=6)),
        scene=SceneDelta(
            add_facts=[text() for _ in range(draw(st.integers(0, 2)))],
            new_location=draw(st.one_of(st.none(), st.just("the docks " + text()))),
        ),
        mood_updates={s: text() for s in draw(st.lists(st.sampled_from(slots), max_size=2))},
        zone_moves=moves,
        link_updates=links,
        time_skip_ticks=draw(st.integers(0, 50)),
    )
