"""Writes `format1.sqlite3`: a small session store in store format 1 (memory inside the JSON).

Run once against a checkout of the format-1 store (commit bee3b6b or earlier), e.g.:

    git worktree add --detach /tmp/fmt1 bee3b6b
    cd /tmp/fmt1 && PYTHONPATH=. /path/to/.venv/bin/python \\
        /path/to/tests/store/data/make_format1.py /path/to/tests/store/data/format1.sqlite3

Only the public store API is used. Three sessions: `old-alpha` (six turns; memory appended,
evicted from the front, rewritten by `replace_state`, a ledger dropped and one added),
`old-beta` (two turns) and `old-gamma` (turn 0 only).
"""

from __future__ import annotations

import sqlite3
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from tavern.records import (
    Audience,
    Body,
    Character,
    Mind,
    PerspectiveLedger,
    Scene,
    SessionState,
    SpeechRecord,
    SystemRecord,
)
from tavern.store import SessionStore

_AUDIENCE = Audience(origin="public", perceivers=["C1", "C2"])


def _state(session_id: str, ledgers: dict[str, list[str]]) -> SessionState:
    cast = {
        s: Character(
            id=f"ch-{s.lower()}", mind=Mind(), body=Body(display_name=s, description_ref=f"fig {s}")
        )
        for s in ("C1", "C2", "C3")
    }
    return SessionState(
        id=session_id,
        scenario_id="old-scenario",
        title=f"Old {session_id}",
        created_at=datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC),
        world="An inn before the change of format.",
        cast=cast,
        controlled_id="C1",
        scene=Scene(location="inn", present=["C1", "C2", "C3"]),
        ledgers={o: PerspectiveLedger(owner=o, memory=m) for o, m in ledgers.items()},
    )


def _line(owner: str, turn: int, i: int) -> str:
    return f"{owner} saw thing {i} of turn {turn} — naïve café ✓"


def _speech(seq: int, turn: int) -> SpeechRecord:
    return SpeechRecord(
        seq=seq, turn_number=turn, speaker="C1", author="character", audience=_AUDIENCE,
        text=f"words of turn {turn}",
    )  # fmt: skip


def _turn(state: SessionState, turn: int, memory: dict[str, list[str]]) -> SessionState:
    ledgers = {o: PerspectiveLedger(owner=o, memory=m) for o, m in memory.items()}
    return state.model_copy(
        update={"ledgers": ledgers, "story_summary": f"after {turn}", "moods": {"C1": f"m{turn}"}}
    )


def build(data_dir: Path) -> None:
    """Write the three sessions into `data_dir`."""
    start = SystemRecord(
        seq=0, turn_number=0, speaker="World", author="kernel", audience=_AUDIENCE,
        marker="session_start",
    )  # fmt: skip
    with SessionStore(data_dir, synchronous="OFF") as store:
        memory = {o: [_line(o, 0, i) for i in range(3)] for o in ("C1", "C2")}
        state = store.create(_state("old-alpha", memory), [start])
        for turn in range(1, 7):
            memory = {o: [*m, _line(o, turn, 0), _line(o, turn, 1)] for o, m in memory.items()}
            if turn == 3:
                memory = {o: m[3:] for o, m in memory.items()}  # front eviction
            if turn == 4:
                memory["C3"] = [_line("C3", turn, 0)]  # a ledger appears
            if turn == 5:
                del memory["C1"]  # a ledger vanishes
            seq = store.next_seq(state.id)
            new = _turn(state, turn, memory)
            state = store.commit_turn(state.id, turn, [_speech(seq, turn)], new, state.revision)
            if turn == 2:  # compaction-like rewrite, outside a turn
                memory["C2"] = ["C2 remembers, in short, the first turns", *memory["C2"][-1:]]
                state = store.replace_state(state.id, _turn(state, turn, memory), state.revision)
        beta = store.create(_state("old-beta", {"C1": ["beta line"]}), [start])
        for turn in (1, 2):
            new = _turn(beta, turn, {"C1": [*beta.ledgers["C1"].memory, _line("C1", turn, 0)]})
            beta = store.commit_turn(
                beta.id, turn, [_speech(store.next_seq(beta.id), turn)], new, beta.revision
            )
        store.create(_state("old-gamma", {"C2": ["gamma line"]}))


def main() -> None:
    target = Path(sys.argv[1])
    with tempfile.TemporaryDirectory() as tmp:
        build(Path(tmp))
        db = sqlite3.connect(Path(tmp) / "sessions.sqlite3")
        assert db.execute("PRAGMA user_version").fetchone()[0] == 1
        db.execute("PRAGMA journal_mode = DELETE")  # one self-contained file, no WAL beside it
        db.execute("VACUUM")
        db.close()
        target.write_bytes((Path(tmp) / "sessions.sqlite3").read_bytes())


if __name__ == "__main__":
    main()
