"""What a blind reader sees of a session, exported under opaque ids with the key kept apart.

`screenplay` renders a session as the human's screen showed it (`tavern.runner.screen`:
what the controlled character perceived, their own records, the narration), as plain lines
with display names: no slot ids, no session or run ids, no arm or configuration.
`export_blind` writes three files a judge may read (`judge/items.jsonl`, `judge/pairs.jsonl`)
and one it never reads (`key/key.jsonl`: which item is which run of which arm), and refuses
to write when any identifying string of the key appears in an item (`check_blind`).

Example:
    >>> entry = KeyEntry(item_id="item-1", session_id="s-ab12", arm="degraded")
    >>> check_blind("Maren nods.", [entry])
    >>> try:
    ...     check_blind("The degraded Director waits.", [entry])
    ... except KeyLeak as exc:
    ...     print(exc)
    item text holds 'degraded' from the key (item-1)
"""

from __future__ import annotations

import random
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from typing import TypeVar

import duckdb

from harness.analysis_records import BlindItem, BlindPair, KeyEntry, SessionExport
from harness.loader import SESSION_SPEC, rows_as_dicts
from harness.sweeps import history_records
from tavern.records import HistoryRecord
from tavern.runner.screen import perceived_by

_R = TypeVar("_R", BlindItem, BlindPair, KeyEntry)

MIN_CHECKED_CHARS = 3
"""Identifying strings shorter than this are not searched for (a one-letter arm label would
match every text); `export_blind` refuses arm labels that short instead."""

_MARKERS = {"time_skip", "deadline"}
"""Kernel markers the reader's screen shows as a line of their own."""


class KeyLeak(ValueError):
    """A string that identifies a run (its session id, arm, or another secret of the key)
    appears in what a judge would read."""


def _name(slot: str, names: dict[str, str]) -> str:
    return names.get(slot, "Someone")


def screenplay(records: Iterable[HistoryRecord], session: SessionExport) -> str:
    """The session as its human read it, one paragraph per record.

    >>> from tavern.records import Audience, SpeechRecord
    >>> from harness.analysis_records import CastEntry
    >>> from datetime import UTC, datetime
    >>> s = SessionExport(session_id="s-1", scenario_id="x", title="t", language="en",
    ...     controlled_id="C1", turn_number=1, tick=0, exported_at=datetime.now(UTC),
    ...     characters=[CastEntry(slot="C1", name="Ana", description_ref="a"),
    ...                 CastEntry(slot="C2", name="Rui", description_ref="r")])
    >>> said = SpeechRecord(seq=1, turn_number=1, speaker="C2", author="character",
    ...     text="Evening.", audience=Audience(origin="public", perceivers=["C1", "C2"]))
    >>> screenplay([said], s)
    'RUI: Evening.'
    """
    names = {c.slot: c.name for c in session.characters}
    lines = []
    for record in perceived_by(list(records), session.controlled_id, names):
        text = " ".join(str(getattr(record, "text", "")).split())
        if not text:
            continue
        if record.kind == "narration" or record.kind == "event":
            lines.append(text)
        elif record.kind == "system":
            if record.marker in _MARKERS:
                lines.append(f"({text})")
        elif record.kind == "speech":
            who = _name(record.speaker, names).upper()
            if record.audience.origin == "whisper":
                to = [_name(s, names) for s in record.audience.perceivers if s != record.speaker]
                who += f" (whispering to {', '.join(to)})"
            lines.append(f"{who}: {text}")
        elif record.kind == "thought":
            lines.append(f"{_name(record.speaker, names).upper()} (thinking): {text}")
        elif record.kind == "action":
            lines.append(f"{_name(record.speaker, names).upper()} (acting): {text}")
    return "\n\n".join(lines)


def session_screenplays(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    """Session id -> screenplay, for every exported session on `con`."""
    exports = {
        str(row["session_id"]): SessionExport.model_validate(row)
        for row in rows_as_dicts(con, "sessions", SESSION_SPEC, order="session_id")
    }
    records = history_records(con)
    return {sid: screenplay(records.get(sid, []), export) for sid, export in exports.items()}


def _needles(entry: KeyEntry) -> list[str]:
    return [s for s in (entry.session_id, entry.arm, *entry.secrets) if len(s) >= MIN_CHECKED_CHARS]


def check_blind(text: str, key: Sequence[KeyEntry]) -> None:
    """Refuse `text` when it holds an identifying string of any key entry (case-folded; an
    arm label or secret as a whole word, an id anywhere).

    Raises:
        KeyLeak: naming the string and the entry.
    """
    folded = text.casefold()
    for entry in key:
        for needle in _needles(entry):
            pattern = re.escape(needle.casefold())
            if re.search(rf"(?<!\w){pattern}(?!\w)", folded) or (
                needle == entry.session_id and needle.casefold() in folded
            ):
                raise KeyLeak(f"item text holds {needle!r} from the key ({entry.item_id})")


@dataclass(frozen=True)
class BlindSource:
    """One run to export: its screenplay and what identifies it."""

    session_id: str
    arm: str
    text: str
    script: str = ""
    repeat: int = 0
    secrets: tuple[str, ...] = ()


@dataclass(frozen=True)
class BlindExport:
    """What `export_blind` wrote."""

    items: list[BlindItem]
    pairs: list[BlindPair]
    key: list[KeyEntry]
    judge_dir: Path
    key_dir: Path


def _write_jsonl(path: Path, rows: Iterable[BlindItem | BlindPair | KeyEntry]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(row.model_dump_json() + "\n" for row in rows), encoding="utf-8")


def export_blind(sources: Sequence[BlindSource], out_dir: Path, seed: int = 0) -> BlindExport:
    """Write `out_dir/judge/{items,pairs}.jsonl` and `out_dir/key/key.jsonl`.

    Items get opaque ids from a seeded RNG and are written in shuffled order. Pairs join
    runs of different arms that played the same script and repeat (every such pair once; the
    judge sees each in both orders).

    Raises:
        KeyLeak: an item holds an identifying string (nothing is written).
        ValueError: an arm label shorter than `MIN_CHECKED_CHARS` (it could not be checked).
    """
    rng = random.Random(seed)
    short = sorted({s.arm for s in sources if len(s.arm) < MIN_CHECKED_CHARS})
    if short:
        raise ValueError(f"arm labels {short} are too short to check for leaks")
    ids = [f"item-{rng.getrandbits(40):010x}" for _ in sources]
    key = [
        KeyEntry(item_id=i, session_id=s.session_id, arm=s.arm, script=s.script,
                 repeat=s.repeat, secrets=list(s.secrets))
        for i, s in zip(ids, sources, strict=True)
    ]  # fmt: skip
    items = [BlindItem(item_id=i, text=s.text) for i, s in zip(ids, sources, strict=True)]
    for item in items:
        check_blind(item.text, key)
    cells: dict[tuple[str, int], list[KeyEntry]] = defaultdict(list)
    for entry in key:
        cells[(entry.script, entry.repeat)].append(entry)
    pairs = []
    for cell in cells.values():
        for left, right in combinations(sorted(cell, key=lambda e: e.arm), 2):
            if left.arm != right.arm:
                first, second = (left, right) if rng.random() < 0.5 else (right, left)
                pairs.append(
                    BlindPair(pair_id=f"pair-{rng.getrandbits(40):010x}", a=first.item_id,
                              b=second.item_id)
                )  # fmt: skip
    rng.shuffle(items)
    rng.shuffle(pairs)
    judge_dir, key_dir = out_dir / "judge", out_dir / "key"
    _write_jsonl(judge_dir / "items.jsonl", items)
    _write_jsonl(judge_dir / "pairs.jsonl", pairs)
    _write_jsonl(key_dir / "key.jsonl", key)
    return BlindExport(items, pairs, key, judge_dir, key_dir)


def read_jsonl(path: Path, model: type[_R]) -> list[_R]:
    """The lines of a blind export file as records of `model`."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [model.model_validate_json(line) for line in lines if line]
