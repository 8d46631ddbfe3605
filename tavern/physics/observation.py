"""The one function deciding what a character may see: `observe`.

Everything a Character prompt holds about the world comes from an `Observation`: the public
stage, the roster as the viewer knows it, the records it perceived rendered in its own names,
and its own memory. Minds of others, narration, and anything outside the viewer's perception
never enter it. Records carry no author here: the internal human marker stays in storage.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from tavern.physics.guards import cast_public_texts, hidden_tokens_for
from tavern.physics.identity import (
    initial_identities,
    learn_all,
    ref_for,
    renderer,
)
from tavern.physics.perception import perceives
from tavern.physics.redaction import Tokenizer, redact, salient_tokens
from tavern.physics.zones import can_hear, can_see, zone_of
from tavern.records import (
    ActionRecord,
    Character,
    EventRecord,
    HistoryRecord,
    PerspectiveLedger,
    SessionState,
    SpeechRecord,
    ThoughtRecord,
)

LineMode = Literal["content", "aware", "own_thought"]


@dataclass(frozen=True)
class RosterEntry:
    """Another present character as the viewer perceives them."""

    ref: str
    """Learned name, or description while a stranger."""
    named: bool
    """Whether `ref` is a learned name."""
    zone: str | None
    """Label of their zone (None in a flat scene)."""
    appearance: str | None
    """Visible appearance, or None when the viewer cannot see them (only hear)."""


@dataclass(frozen=True)
class ObservedLine:
    """One perceived record, projected for the viewer."""

    seq: int
    """Seq of the source record."""
    turn_number: int
    """Turn of the source record."""
    kind: str
    """Source record kind (`speech`, `action`, `thought`, `event`)."""
    mode: LineMode
    """Content, bare awareness of a whisper, or the viewer's own thought."""
    text: str
    """Rendered text in the viewer's names."""


@dataclass(frozen=True)
class Observation:
    """Everything one character may perceive, already projected."""

    viewer: str
    """Slot id of the viewer (for the caller; never rendered into text by this module)."""
    self_name: str
    """The viewer's own name."""
    location: str
    """Scene location."""
    description: str
    """Public description of the location."""
    zone: str | None
    """Label of the viewer's zone (None in a flat scene)."""
    facts: tuple[str, ...]
    """Public scene facts, rendered and redacted for the viewer."""
    roster: tuple[RosterEntry, ...]
    """Other present characters the viewer can see or hear."""
    lines: tuple[ObservedLine, ...]
    """Perceived records, oldest first."""
    memory_summary: str
    """The viewer's condensed older memory."""
    memory: tuple[str, ...]
    """The viewer's recent digest lines."""

    def texts(self) -> list[str]:
        """Every string of the observation, for leak sweeps and tests."""
        roster = [t for r in self.roster for t in (r.ref, r.zone, r.appearance) if t]
        return [
            self.self_name,
            self.location,
            self.description,
            *([self.zone] if self.zone else []),
            *self.facts,
            *roster,
            *(line.text for line in self.lines),
            self.memory_summary,
            *self.memory,
        ]


def _project_line(
    record: HistoryRecord,
    viewer: str,
    ledger: PerspectiveLedger,
    cast: Mapping[str, Character],
    hidden: frozenset[str],
    render: Callable[[str], str] | None = None,
) -> tuple[LineMode, str] | None:
    parts = _line_parts(record, viewer, ledger, cast, render or renderer(viewer, ledger, cast))
    return None if parts is None else _redacted(parts, hidden)


_Parts = tuple[LineMode, str, str, str]
"""(mode, before, shown, after): the line is `before + redact(shown, hidden) + after`."""


def _redacted(parts: _Parts, hidden: frozenset[str]) -> tuple[LineMode, str]:
    mode, before, shown, after = parts
    return mode, before + (redact(shown, hidden, normalized=True) if shown else "") + after


def _line_parts(
    record: HistoryRecord,
    viewer: str,
    ledger: PerspectiveLedger,
    cast: Mapping[str, Character],
    render: Callable[[str], str],
) -> _Parts | None:
    """A line in the viewer's names, with the record's text (all that redaction may touch)
    kept apart from the frame around it ("Someone said: ...")."""
    mode = perceives(record, viewer)
    if mode == "none":
        return None

    def who(slot: str) -> str:
        return "you" if slot == viewer else ref_for(slot, viewer, ledger, cast)

    actor = "You" if record.speaker == viewer else who(record.speaker)
    actor = actor[:1].upper() + actor[1:]
    if isinstance(record, ThoughtRecord):
        return "own_thought", f"You think: {render(record.text)}", "", ""
    if isinstance(record, SpeechRecord):
        if record.audience.origin != "whisper":
            return mode, f'{actor} said: "', render(record.text), '"'
        targets = [who(s) for s in record.audience.perceivers if s != record.speaker]
        to = " and ".join(targets) or "no one"
        if mode == "aware":
            return mode, f"{actor} whispered something to {to}.", "", ""
        return mode, f'{actor} whispered to {to}: "', render(record.text), '"'
    if isinstance(record, ActionRecord):
        return mode, f"{actor} attempted: ", render(record.text), ""
    if isinstance(record, EventRecord) and mode == "content":
        return mode, "", render(record.text), ""
    return None


def digest_line(
    record: HistoryRecord,
    viewer: str,
    ledger: PerspectiveLedger,
    cast: Mapping[str, Character],
    hidden: frozenset[str] = frozenset(),
    render: Callable[[str], str] | None = None,
) -> str | None:
    """One memory line of `viewer` for a perceived speech, action or event; None for anything
    else. `hidden`: normalized tokens to redact (as `guards.hidden_tokens_for` gives them);
    `render`: `identity.renderer(viewer, ledger, cast)`, when the caller has it already.

    Example:
        >>> from tavern.records import Audience
        >>> r = SpeechRecord(seq=0, turn_number=1, speaker="C1", author="character", text="Hi",
        ...      audience=Audience(origin="public", perceivers=["C1", "C2"]))
        >>> digest_line(r, "C2", PerspectiveLedger(owner="C2"), {})
        'Someone said: "Hi"'
    """
    if isinstance(record, ThoughtRecord):
        return None
    projected = _project_line(record, viewer, ledger, cast, hidden, render)
    if projected is None:
        return None
    text = projected[1]
    return text[:1].upper() + text[1:]


def _roster(state: SessionState, viewer: str, ledger: PerspectiveLedger) -> list[RosterEntry]:
    scene = state.scene
    labels = {z.id: z.label for z in scene.zones}
    roster = []
    for slot in scene.present:
        zone = zone_of(scene, slot)
        if slot == viewer or zone is None or slot not in state.cast:
            continue
        seen = can_see(scene, viewer, zone)
        if not (seen or can_hear(scene, viewer, zone)):
            continue
        entry = ledger.identities.get(slot)
        roster.append(
            RosterEntry(
                ref=ref_for(slot, viewer, ledger, state.cast),
                named=bool(entry and entry.name),
                zone=labels.get(zone),
                appearance=state.cast[slot].body.appearance if seen else None,
            )
        )
    return roster


def observe(
    state: SessionState,
    history: Sequence[HistoryRecord],
    viewer: str,
    tokens: Tokenizer = salient_tokens,
) -> Observation:
    """Project the session for one character: only what it perceived, in its own names.

    Names heard in `history` are learned on the way (a pure fold over `learn_names`), so the
    observation never depends on the caller having updated the ledger first. `tokens`
    tokenizes the record texts (the turn's `redaction.TokenTable`).

    Example:
        >>> from tavern.records import Body, Mind, Scene
        >>> from datetime import UTC, datetime
        >>> ch = Character(id="ana", mind=Mind(secrets=["x"]), body=Body(display_name="Ana",
        ...      description_ref="the tall woman"))
        >>> st = SessionState(id="s01", scenario_id="t", title="t", world="w",
        ...      created_at=datetime(2026, 1, 1, tzinfo=UTC), cast={"C1": ch}, controlled_id="C1",
        ...      scene=Scene(location="the inn", present=["C1"]))
        >>> observe(st, [], "C1").self_name
        'Ana'
    """
    cast = state.cast
    ledger = state.ledgers.get(viewer) or initial_identities(cast).get(
        viewer, PerspectiveLedger(owner=viewer)
    )
    ledger = learn_all(ledger, history, cast, viewer)
    scene = state.scene
    hidden = hidden_tokens_for(history, scene, viewer, cast_public_texts(cast), tokens)
    render = renderer(viewer, ledger, cast)
    lines = []
    for record in history:
        projected = _project_line(record, viewer, ledger, cast, hidden, render)
        if projected is not None:
            mode, text = projected
            lines.append(ObservedLine(record.seq, record.turn_number, record.kind, mode, text))

    def public(text: str) -> str:
        return redact(render(text), hidden, normalized=True)

    own_zone = zone_of(scene, viewer)
    labels = {z.id: z.label for z in scene.zones}
    return Observation(
        viewer=viewer,
        self_name=cast[viewer].body.display_name if viewer in cast else "",
        location=public(scene.location),
        description=public(scene.description),
        zone=labels.get(own_zone) if own_zone else None,
        facts=tuple(public(f) for f in scene.facts),
        roster=tuple(_roster(state, viewer, ledger)),
        lines=tuple(lines),
        memory_summary=render(ledger.memory_summary),
        memory=tuple(render(line) for line in ledger.memory),
    )
