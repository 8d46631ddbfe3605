"""Disk growth and commit time of a session whose ledgers carry realistic memory.

    python -m benchmarks.store_disk [--turns 200]

Three ledgers start with about 30 KB of memory each, beside about 7 KB of other state. Every
turn appends five ~100-character digest lines per ledger, evicting down to `MEMORY_LOW_WATER`
of the budget when over it (`tavern.runner.memory.evict`, as the runner does), and four
records to the history. Prints
the file's growth per turn (after a WAL checkpoint), the sizes of the state row and of a
checkpoint row, and the median commit time (wall and CPU, `synchronous=FULL`) and cold load
time. Only the public store API is used, so it runs against any store format (compare with
a worktree of an older commit).
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

from benchmarks.crash_store import initial_state, turn_state
from tavern.records import Audience, PerspectiveLedger, SessionState, SpeechRecord
from tavern.runner.memory import evict
from tavern.store import SessionStore

OWNERS = ("C1", "C2", "C3")
BUDGET = 32_000
LINES_PER_TURN = 5
_AUDIENCE = Audience(origin="zone", perceivers=["C1", "C2"])
_PAD = "the lamp gutters while someone by the door says something about the harvest and "


def memory_line(owner: str, turn: int, index: int) -> str:
    """One ~100-character digest line."""
    head = f"[{owner} t{turn}.{index}] "
    return head + _PAD[: 100 - len(head)]


def seeded(state: SessionState, chars: int = 30_000) -> SessionState:
    """`state` with a ledger per owner holding about `chars` characters of memory, and about
    7 KB of everything else (a played session's cast, scene and summaries)."""
    count = chars // 101
    ledgers = {
        o: PerspectiveLedger(owner=o, memory=[memory_line(o, 0, i) for i in range(count)])
        for o in OWNERS
    }
    return state.model_copy(update={"ledgers": ledgers, "world": _PAD * 75})


def next_state(state: SessionState, turn: int) -> SessionState:
    """The state after `turn`: new lines on every ledger, evicted as the runner does."""
    ledgers = {
        o: ledger.model_copy(
            update={
                "memory": evict(
                    [*ledger.memory, *(memory_line(o, turn, i) for i in range(LINES_PER_TURN))],
                    BUDGET,
                )
            }
        )
        for o, ledger in state.ledgers.items()
    }
    return turn_state(state, turn).model_copy(update={"ledgers": ledgers})


def records(seq: int, turn: int) -> list[SpeechRecord]:
    """Four ~200-character speech records."""
    return [
        SpeechRecord(
            seq=seq + i, turn_number=turn, speaker="C2", author="character",
            audience=_AUDIENCE, text=f"turn {turn} record {i} " + _PAD * 2,
        )
        for i in range(4)
    ]  # fmt: skip


def file_bytes(data_dir: Path) -> int:
    """Size of the store file after folding the WAL back into it."""
    path = data_dir / "sessions.sqlite3"
    db = sqlite3.connect(path)
    try:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        db.close()
    wal = path.with_name(path.name + "-wal")
    return path.stat().st_size + (wal.stat().st_size if wal.exists() else 0)


def row_sizes(data_dir: Path, session_id: str) -> tuple[int, float]:
    """(bytes of the state column, mean bytes of a checkpoint's pre_state)."""
    db = sqlite3.connect(data_dir / "sessions.sqlite3")
    try:
        state = db.execute("SELECT length(state) FROM sessions WHERE id = ?", (session_id,))
        checkpoints = db.execute(
            "SELECT avg(length(pre_state)) FROM checkpoints WHERE session_id = ?", (session_id,)
        )
        return int(state.fetchone()[0]), float(checkpoints.fetchone()[0] or 0.0)
    finally:
        db.close()


def grow(
    data_dir: Path, turns: int, synchronous: str = "OFF", session_id: str = "disk-bench"
) -> dict[str, float]:
    """Create a seeded session, commit `turns` turns; return growth and timing figures."""
    with SessionStore(data_dir, synchronous=synchronous) as store:
        state = store.create(seeded(initial_state(session_id)))
    before = file_bytes(data_dir)
    wall: list[float] = []
    cpu: list[float] = []
    with SessionStore(data_dir, synchronous=synchronous) as store:
        state = store.load(session_id)
        for turn in range(1, turns + 1):
            new = next_state(state, turn)
            batch = records(store.next_seq(session_id), turn)
            started, started_cpu = time.perf_counter(), time.process_time()
            state = store.commit_turn(session_id, turn, batch, new, state.revision)
            cpu.append(time.process_time() - started_cpu)
            wall.append(time.perf_counter() - started)
    after = file_bytes(data_dir)
    loads = []
    for _ in range(20):
        with SessionStore(data_dir, synchronous=synchronous) as cold:
            cold.exists(session_id)  # opens the connection outside the timed read
            started = time.perf_counter()
            assert cold.load(session_id) == state
            loads.append(time.perf_counter() - started)
    state_bytes, checkpoint_bytes = row_sizes(data_dir, session_id)
    return {
        "bytes_per_turn": (after - before) / turns,
        "file_bytes": float(after),
        "state_bytes": float(state_bytes),
        "checkpoint_bytes": checkpoint_bytes,
        "memory_chars": float(sum(sum(map(len, x.memory)) for x in state.ledgers.values())),
        "commit_ms": statistics.median(wall) * 1000,
        "commit_cpu_ms": statistics.median(cpu) * 1000,
        "cold_load_ms": statistics.median(loads) * 1000,
    }


def main() -> None:
    """Print the figures of one run."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--synchronous", default="FULL")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="tavern-disk-") as tmp:
        r = grow(Path(tmp), args.turns, args.synchronous)
    print(f"{args.turns} commits, memory at the end: {r['memory_chars']:.0f} characters")
    print(f"file growth per turn: {r['bytes_per_turn'] / 1024:.1f} KiB")
    print(f"file after: {r['file_bytes'] / 1024 / 1024:.2f} MiB")
    print(f"state row: {r['state_bytes'] / 1024:.1f} KiB, checkpoint row (mean):"
          f" {r['checkpoint_bytes'] / 1024:.1f} KiB")  # fmt: skip
    print(f"median commit ({args.synchronous}): {r['commit_ms']:.3f} ms wall,"
          f" {r['commit_cpu_ms']:.3f} ms CPU")  # fmt: skip
    print(f"median cold load (fresh store): {r['cold_load_ms']:.3f} ms")


if __name__ == "__main__":
    main()
