"""Clamp rules measured: what each rule changes on clean Director events, and a replay.

    python -m benchmarks.clamps fp [--show]
    python -m benchmarks.clamps replay OUT.jsonl [--turns 30]

`fp` runs every rule of `CLAMP_RULES`, alone, on each beat of the clean corpus (Director
decisions nothing should change, en and pt-BR, `tests/physics/cases/clean/`) and prints, per
rule and language, the events it changed over the events seen (a change of a decision field
outside the events counts as one), against the precision bar `MAX_FP_RATE`.

A beat (`Beat`, one JSON line of a case table or of the clean corpus) is a Director decision
with the context it is judged in: a built-in scenario's stage and cast (the stage may be
overridden, in the beat's language), the records before it, and what the clamps must leave
of it (`expect`; nothing to expect means the decision must come back unchanged). The case
tables (`tests/physics/cases/<rule>.jsonl`) and the clean corpus (`tests/physics/cases/clean/`)
are read through `load_beats`.

`replay` plays fresh sessions of both built-in scenarios on the fake provider (the kernel
benchmark's scripted answers, the hostile `adversary` and the `parrot`) and writes one JSON
line per committed turn: the clamp changes journaled with the commit and the events
committed. Two runs of different code compare line by line (`diff`): the first differing
turn is where a clamp decided otherwise.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import shutil
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import tavern.physics.clamps as clamps
from benchmarks import kernel
from tavern.llm.client import LlmClient
from tavern.llm.fake import FakeMode, FakeProvider
from tavern.llm.wrappers import RetryPolicy
from tavern.physics.clamps import ClampContext
from tavern.physics.perception import audience_for, event_audience
from tavern.records import (
    ActionRecord,
    Audience,
    CommitLine,
    DirectorDecision,
    EventRecord,
    HistoryRecord,
    Language,
    LlmCallLine,
    NarrationRecord,
    Scene,
    SessionState,
    SpeechRecord,
    ThoughtRecord,
    TurnInput,
)
from tavern.runner import Runner
from tavern.runner.turn import PROMPT_SENTENCES
from tavern.store import JournalWriter, Library, SessionStore, journal_path, read_journal
from tavern.store.materialize import materialize_session

CASES = Path(__file__).resolve().parent.parent / "tests" / "physics" / "cases"
"""The clamp case tables (`<rule>.jsonl`) and the clean corpus (`clean/<language>.jsonl`)."""
TURN = 3
"""The beat a case plays: records `now` are of this turn, `last` of the one before (a
Character's there still waits for this beat's Director), `old` of the one before that."""
_WHEN = {"now": TURN, "last": TURN - 1, "old": TURN - 2}


@dataclass(frozen=True)
class Beat:
    """One Director decision and the context the clamps judge it in (see the module)."""

    id: str
    """The row's id, unique in its file."""
    language: Language
    """The session language the beat is played in."""
    source: str
    """Where the row comes from: a live incident ("toll-house #38, seed 52, turn 5") or
    "written" for this table."""
    decision: DirectorDecision
    """The proposal."""
    ctx: ClampContext
    """What the clamps judge it against."""
    expect: dict[str, Any] = field(default_factory=dict)
    """What must be left of it (`expected_of` reads the same keys off a decision); empty:
    the decision itself."""


@lru_cache(maxsize=8)
def _session(scenario: str) -> SessionState:
    """The turn-0 state of a built-in scenario (its stage and cast)."""
    library = Library(Path(tempfile.gettempdir()) / "tavern-beats")
    return materialize_session(library.get_scenario(scenario), library, "s-beat")


def _records(items: list[dict[str, Any]], scene: Scene, controlled: str) -> list[HistoryRecord]:
    records: list[HistoryRecord] = []
    in_order = sorted(items, key=lambda item: _WHEN[item.get("when", "now")])
    for seq, item in enumerate(in_order):
        kind, by, text = item["kind"], item.get("by", controlled), item["text"]
        turn = _WHEN[item.get("when", "now")]
        author = item.get("author", "human" if by == controlled and turn == TURN else "character")
        common: dict[str, Any] = {"seq": seq, "turn_number": turn, "speaker": by, "text": text}
        if kind == "speech":
            audience = audience_for(scene, by, "speech", whisper_to=item.get("to", ()))
            records.append(SpeechRecord(**common, author=author, audience=audience))
        elif kind == "thought":
            audience = audience_for(scene, by, "thought")
            records.append(ThoughtRecord(**common, author=author, audience=audience))
        elif kind == "action":
            audience = audience_for(scene, by, "action")
            resolved = bool(item.get("resolved", False))
            records.append(
                ActionRecord(**common, author=author, audience=audience, resolved=resolved)
            )
        elif kind == "event":
            witnesses = item.get("witnesses", list(scene.present))
            records.append(
                EventRecord(
                    **{**common, "speaker": item.get("actor") or "World"},
                    author="director",
                    event_kind=item.get("event_kind", "world_event"),
                    actor_id=item.get("actor"),
                    audience=event_audience(witnesses),
                )
            )
        elif kind == "narration":
            public = Audience(origin="public")
            records.append(
                NarrationRecord(**{**common, "speaker": "Narrator"}, author="renderer",
                                audience=public)
            )  # fmt: skip
        else:
            raise ValueError(f"unknown record kind {kind!r}")
    return records


def _decision(raw: dict[str, Any], present: list[str], speaker: str) -> DirectorDecision:
    events = []
    for ev in raw.get("events", []):
        ev = {"text": ev} if isinstance(ev, str) else ev
        events.append({"kind": "world_event", "actor_id": None, "witness_ids": present, **ev})
    return DirectorDecision.model_validate({"next_speakers": [speaker], **raw, "events": events})


def beat(row: dict[str, Any]) -> Beat:
    """A `Beat` from one JSON row (see the module and `tests/physics/cases/README.md`)."""
    state = _session(row.get("scenario", "the-toll-house"))
    scene = Scene.model_validate({**state.scene.model_dump(), **row.get("scene", {})})
    present = list(scene.present)
    speaker = next((s for s in present if s != state.controlled_id), present[0])
    cast = state.cast
    items = sorted(row.get("history", []), key=lambda item: _WHEN[item.get("when", "now")])
    history = _records(items, scene, state.controlled_id)
    asked = frozenset(r.seq for r, item in zip(history, items, strict=True) if item.get("asked"))
    public = [state.title, *(c.body.appearance for c in cast.values())]
    public += [c.body.display_name for c in cast.values()]
    ctx = ClampContext(
        scene=scene,
        history=history,
        public_texts=public,
        cast=cast,
        turn_number=TURN,
        prompt_sentences=PROMPT_SENTENCES,
        directives=row.get("directives", state.tone_directives),
        title=state.title,
        language=row.get("language", "en"),
        asked=asked,
    )
    return Beat(
        id=row["id"],
        language=ctx.language,
        source=row.get("source", "written"),
        decision=_decision(row.get("decision", {}), present, speaker),
        ctx=ctx,
        expect=row.get("expect", {}),
    )


def load_beats(path: Path) -> list[Beat]:
    """The beats of a JSONL file, one per non-empty line."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [beat(json.loads(line)) for line in lines if line.strip()]


def expected_of(decision: DirectorDecision, keys: Iterable[str]) -> dict[str, Any]:
    """The parts of `decision` an expectation names: `events` (texts), `kinds`, `actors`,
    `witnesses`, `next_speakers`, `zone_moves` ([character, zone] pairs), `new_location`,
    `add_facts`, `time_skip_ticks`."""
    parts: dict[str, Any] = {
        "events": [ev.text for ev in decision.events],
        "kinds": [ev.kind for ev in decision.events],
        "actors": [ev.actor_id for ev in decision.events],
        "witnesses": [ev.witness_ids for ev in decision.events],
        "next_speakers": decision.next_speakers,
        "zone_moves": [[m.character_id, m.to_zone] for m in decision.zone_moves],
        "new_location": decision.scene.new_location,
        "add_facts": decision.scene.add_facts,
        "time_skip_ticks": decision.time_skip_ticks,
    }
    return {key: parts[key] for key in keys}


SCENARIOS = ("the-vintners-wake", "the-toll-house")
PLAYS: tuple[tuple[str, FakeMode], ...] = (
    ("scripted", "function"),
    ("adversary", "adversary"),
    ("parrot", "parrot"),
)
HOSTILE_INPUTS = [
    TurnInput(speech="Only you: the key is under the cask.", whisper_to=["C2"]),
    TurnInput(action="reaches for the door", thought="The notary is lying."),
    TurnInput(speech="Who keeps the cellar key tonight?"),
    TurnInput(skip=True),
]


def _inputs(play: str) -> list[TurnInput]:
    return kernel.INPUTS if play == "scripted" else HOSTILE_INPUTS


async def _play(data_dir: Path, scenario: str, play: str, mode: FakeMode, turns: int) -> str:
    store, journal = SessionStore(data_dir, synchronous="OFF"), JournalWriter(data_dir)
    provider = FakeProvider(mode, fn=kernel.answer if mode == "function" else None)

    def sink(line: LlmCallLine) -> None:
        journal.append(line.session_id, line)

    client = LlmClient(provider, sink=sink, retry=RetryPolicy(max_attempts=1))
    runner = Runner(store, Library(data_dir), journal, client)
    session = await runner.create_session(scenario)
    inputs = _inputs(play)
    for i in range(turns):
        await runner.play_turn(session.id, inputs[i % len(inputs)])
    return session.id


def replayed(turns: int) -> Iterator[dict[str, Any]]:
    """One dict per committed turn of every (scenario, play)."""
    for scenario in SCENARIOS:
        for play, mode in PLAYS:
            data_dir = Path(tempfile.mkdtemp(prefix="tavern-clamp-replay-"))
            try:
                sid = asyncio.run(_play(data_dir, scenario, play, mode, turns))
                store = SessionStore(data_dir)
                events: dict[int, list[dict[str, Any]]] = {}
                for r in store.history(sid):
                    if isinstance(r, EventRecord):
                        events.setdefault(r.turn_number, []).append(
                            {"kind": r.event_kind, "actor": r.actor_id, "text": r.text,
                             "witnesses": r.audience.perceivers}
                        )  # fmt: skip
                for line in read_journal(journal_path(data_dir, sid)):
                    if isinstance(line, CommitLine):
                        yield {
                            "scenario": scenario,
                            "play": play,
                            "turn": line.turn_number,
                            "changes": [c.model_dump(mode="json") for c in line.clamp_changes],
                            "events": events.get(line.turn_number or 0, []),
                        }
            finally:
                shutil.rmtree(data_dir, ignore_errors=True)


MAX_FP_RATE = 0.01
BOUNDARY_GUARDS = frozenset({"thought_guard", "perception_guard"})
"""Rules that keep the knowledge boundary: never deleted for their rate, which is reported
as a cost (a guard that masks a clean event's word costs the story that word)."""
"""The precision bar: a rule changing more than 1% of clean events in a language it declares
does not stay in the registry as it is."""


def clean_beats() -> dict[str, list[Beat]]:
    """The clean corpus, by language."""
    return {path.stem: load_beats(path) for path in sorted((CASES / "clean").glob("*.jsonl"))}


def false_positives(beats: Sequence[Beat]) -> dict[str, tuple[int, int, list[str]]]:
    """Per rule of `CLAMP_RULES` that handles the beats' language: (events it changed, events
    seen, the ids of the beats it changed), each rule applied alone to each clean decision."""
    found: dict[str, tuple[int, int, list[str]]] = {}
    for rule in clamps.CLAMP_RULES:  # read at call time: a test may plant a rule
        changed, seen, where = 0, 0, []
        for b in beats:
            if not rule.handles(b.language):
                continue
            seen += len(b.decision.events)
            _, changes = rule.apply(b.decision, b.ctx)
            paths = {re.match(r"events\[(\d+)\]", c.path) for c in changes}
            hit = {m.group(1) for m in paths if m} | {"·" for m in paths if m is None}
            if hit:
                changed += len(hit)
                where.append(b.id)
        if seen:
            found[rule.name] = (changed, seen, where)
    return found


def print_false_positives(show: bool) -> None:
    """Print the table `false_positives` gives, per language, and the rules over the bar."""
    over = []
    for language, beats in clean_beats().items():
        events = sum(len(b.decision.events) for b in beats)
        print(f"{language}: {len(beats)} clean decisions, {events} events")
        for name, (changed, seen, where) in false_positives(beats).items():
            rate = changed / seen
            flag = "  OVER THE BAR" if rate > MAX_FP_RATE and name not in BOUNDARY_GUARDS else ""
            if rate > MAX_FP_RATE and name in BOUNDARY_GUARDS:
                flag = "  (boundary guard: a cost, not deleted)"
            print(f"  {name:22} {changed:4d} / {seen:4d} = {rate:6.2%}{flag}")
            if show and where:
                print(f"    changed: {', '.join(where)}")
            if rate > MAX_FP_RATE and name not in BOUNDARY_GUARDS:
                over.append(f"{name} ({language})")
    print(f"precision bar: at most {MAX_FP_RATE:.0%} of clean events changed; over it: "
          f"{', '.join(over) or 'none'}")  # fmt: skip


def main() -> None:
    """Run the chosen measurement and print or write its figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    fp = sub.add_parser("fp", help="false positives of every rule on the clean corpus")
    fp.add_argument("--show", action="store_true", help="list the beats each rule changed")
    rep = sub.add_parser("replay", help="write each committed turn's clamp changes as JSONL")
    rep.add_argument("out", type=Path)
    rep.add_argument("--turns", type=int, default=30)
    args = parser.parse_args()
    if args.command == "fp":
        print_false_positives(args.show)
    elif args.command == "replay":
        with args.out.open("w", encoding="utf-8") as out:
            count = 0
            for line in replayed(args.turns):
                out.write(json.dumps(line, sort_keys=True, ensure_ascii=False) + "\n")
                count += 1
        print(f"{count} committed turns written to {args.out}")


if __name__ == "__main__":
    main()
