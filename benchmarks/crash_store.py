"""Store crash safety: SIGKILL a writer committing straight to the store, reopen, verify.

    python -m benchmarks.crash_store --kills 200

The store-level twin of `benchmarks.crash` (which kills the runner's whole commit path):
here every record and state is derived from the turn number, so a reopened store is checked
exactly. A forked child process commits deterministic turns (and some undos) to a few
sessions and prints an acknowledgement after each operation returns. The parent kills it
after a random delay, then checks with a fresh store that every session loads, every
committed turn is whole (its exact records and state), no record of an uncommitted turn is
visible, the checkpoints match, the journal reads, and at most one operation beyond the
last acknowledgement landed.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import sqlite3
import sys
import tempfile
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tavern.records import (
    Audience,
    Body,
    Character,
    CommitLine,
    Mind,
    Scene,
    SessionState,
    SpeechRecord,
    SystemRecord,
    UndoLine,
    utc_now,
)
from tavern.store import JournalWriter, SessionExists, SessionStore, journal_path, read_journal

SESSIONS = ("crash-a", "crash-b", "crash-c")
_AUDIENCE = Audience(origin="public", perceivers=["C1", "C2"])


def records_count(session_id: str, turn: int) -> int:
    """How many records turn `turn` of `session_id` holds (1-4, deterministic)."""
    return 1 + zlib.crc32(f"{session_id}/{turn}".encode()) % 4


def record_text(session_id: str, turn: int, index: int) -> str:
    """The exact text of one record; padded so a turn spans more than one page now and then."""
    return f"{session_id}/{turn}/{index} " + "lorem ipsum " * (turn % 40)


def summary(session_id: str, turn: int) -> str:
    """The story summary the state must carry after `turn`."""
    return f"{session_id} after turn {turn}"


def initial_state(session_id: str) -> SessionState:
    """Turn-0 state of a crash-test session."""
    cast = {
        slot: Character(
            id=f"char-{slot.lower()}",
            mind=Mind(),
            body=Body(display_name=slot, description_ref=f"the figure {slot}"),
        )
        for slot in ("C1", "C2")
    }
    return SessionState(
        id=session_id,
        scenario_id="crash",
        title=session_id,
        created_at=utc_now(),
        world="w",
        cast=cast,
        controlled_id="C1",
        scene=Scene(location="room", present=["C1", "C2"]),
        story_summary=summary(session_id, 0),
    )


def turn_state(before: SessionState, turn: int) -> SessionState:
    """The state after `turn`, derived only from the turn number."""
    clock = before.clock.model_copy(update={"tick": turn})
    return before.model_copy(
        update={
            "story_summary": summary(before.id, turn),
            "clock": clock,
            "moods": {"C1": f"m{turn}", "C2": f"n{turn}"},
            "plugin_state": {"turn": turn},
        }
    )


def run_writer(data_dir: Path, seed: int, ack: Callable[[str], None]) -> None:
    """Child process: commit and undo forever, acknowledging each operation with `ack`."""
    store = SessionStore(data_dir)
    journal = JournalWriter(data_dir)
    rng = random.Random(seed)
    for sid in SESSIONS:
        start = SystemRecord(
            seq=0, turn_number=0, speaker="World", author="kernel", audience=_AUDIENCE,
            marker="session_start",
        )  # fmt: skip
        try:
            store.create(initial_state(sid), [start])
        except SessionExists:
            pass
    ack("ready")
    while True:
        sid = rng.choice(SESSIONS)
        state = store.load(sid)
        if state.turn_number > 0 and rng.random() < 0.15:
            restored = store.undo(sid)
            ack(f"ack {sid} {restored.turn_number}")
            journal.append(
                sid,
                UndoLine(
                    ts=utc_now(), session_id=sid, turn_number=state.turn_number,
                    revision=restored.revision, removed_turn=state.turn_number, removed_records=0,
                ),
            )  # fmt: skip
            continue
        turn = state.turn_number + 1
        seq = store.next_seq(sid)
        records = [
            SpeechRecord(
                seq=seq + i, turn_number=turn, speaker="C1", author="character",
                audience=_AUDIENCE, text=record_text(sid, turn, i),
            )
            for i in range(records_count(sid, turn))
        ]  # fmt: skip
        stored = store.commit_turn(sid, turn, records, turn_state(state, turn), state.revision)
        ack(f"ack {sid} {turn}")
        journal.append(
            sid,
            CommitLine(
                ts=utc_now(), session_id=sid, turn_number=turn, revision=stored.revision,
                record_count=len(records), tick=turn, control_returned=True,
            ),
        )  # fmt: skip


def verify(data_dir: Path, acked: dict[str, int]) -> tuple[list[str], int]:
    """Check every session; return (problems, sessions whose turn differs from the ack)."""
    problems: list[str] = []
    beyond_ack = 0
    with SessionStore(data_dir) as store:
        for sid in SESSIONS:
            if not store.exists(sid):
                if sid in acked:
                    problems.append(f"{sid}: acknowledged but missing")
                continue
            state = store.load(sid)
            turn = state.turn_number
            if sid in acked and turn != acked[sid]:
                beyond_ack += 1
                if abs(turn - acked[sid]) != 1:
                    problems.append(f"{sid}: at turn {turn}, acknowledged {acked[sid]}")
            if state.story_summary != summary(sid, turn):
                problems.append(f"{sid}: state of turn {turn} has {state.story_summary!r}")
            expected = [("session_start", 0)] + [
                (record_text(sid, t, i), t)
                for t in range(1, turn + 1)
                for i in range(records_count(sid, t))
            ]
            history = store.history(sid)
            found = [
                (r.text if isinstance(r, SpeechRecord) else r.marker, r.turn_number)
                for r in history
                if isinstance(r, SpeechRecord | SystemRecord)
            ]
            if found != expected or len(history) != len(expected):
                problems.append(f"{sid}: history of {len(history)} records differs at turn {turn}")
            seqs = [r.seq for r in history]
            if seqs != sorted(set(seqs)):
                problems.append(f"{sid}: seqs not strictly increasing")
            read_journal(journal_path(data_dir, sid))  # must not raise
    db = sqlite3.connect(data_dir / "sessions.sqlite3")
    try:
        for sid in SESSIONS:
            rows = db.execute(
                "SELECT turn_number, pre_state FROM checkpoints WHERE session_id = ?"
                " ORDER BY turn_number",
                (sid,),
            ).fetchall()
            state_row = db.execute("SELECT turn_number FROM sessions WHERE id = ?", (sid,))
            current = (state_row.fetchone() or (0,))[0]
            if [r[0] for r in rows] != list(range(1, current + 1)):
                problems.append(f"{sid}: checkpoints {[r[0] for r in rows]} for turn {current}")
            for t, pre in rows:
                if json.loads(pre)["story_summary"] != summary(sid, t - 1):
                    problems.append(f"{sid}: checkpoint of turn {t} holds the wrong state")
    finally:
        db.close()
    return problems, beyond_ack


def _kill_one_writer(data_dir: Path, seed: int, delay: float) -> list[str]:
    """Fork a writer, SIGKILL it `delay` seconds after it is ready; return its ack lines.

    A fork (rather than a fresh interpreter) skips seconds of imports per kill; the child
    opens its own SQLite connection, and the parent holds none across the fork.
    """
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # child: never return into the caller's stack
        status = 0
        try:
            os.close(read_fd)
            run_writer(data_dir, seed, lambda line: _write_line(write_fd, line))
        except BaseException:
            status = 1
        finally:
            os._exit(status)
    os.close(write_fd)
    with os.fdopen(read_fd, "r") as pipe:
        first = pipe.readline()
        time.sleep(delay)
        os.kill(pid, signal.SIGKILL)
        rest = pipe.read()
    os.waitpid(pid, 0)
    return [line for line in (first + rest).splitlines() if line]


def _write_line(fd: int, line: str) -> None:
    os.write(fd, (line + "\n").encode())


@dataclass
class CrashReport:
    """What a run of kills found."""

    kills: int = 0
    acknowledged_ops: int = 0
    kills_with_unacknowledged_op: int = 0
    final_turns: dict[str, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0


def run_kills(data_dir: Path, kills: int, seed: int = 0, max_delay: float = 0.25) -> CrashReport:
    """Start, kill and verify the writer `kills` times against `data_dir`."""
    rng = random.Random(seed)
    report = CrashReport()
    acked: dict[str, int] = {}
    started = time.perf_counter()
    for k in range(kills):
        lines = _kill_one_writer(data_dir, seed * 100_003 + k, rng.uniform(0.0, max_delay))
        if not lines or lines[0] != "ready":
            report.problems.append(f"kill {k}: writer did not start")
            break
        for line in lines[1:]:
            _, sid, turn = line.split()
            acked[sid] = int(turn)
            report.acknowledged_ops += 1
        problems, beyond = verify(data_dir, acked)
        report.kills += 1
        report.kills_with_unacknowledged_op += beyond
        report.problems += [f"kill {k}: {p}" for p in problems]
        # The database is the truth from here on: resync the acknowledgements to it.
        with SessionStore(data_dir) as store:
            acked = {s: store.load(s).turn_number for s in SESSIONS if store.exists(s)}
    report.final_turns = acked
    report.seconds = time.perf_counter() - started
    return report


def main() -> None:
    """Command line: `--kills N` (default 200), `--seed S`."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="tavern-crash-") as tmp:
        report = run_kills(Path(tmp), args.kills, args.seed)
    print(f"kills: {report.kills}")
    print(f"acknowledged operations: {report.acknowledged_ops}")
    print(f"kills that landed after an unacknowledged commit/undo: "
          f"{report.kills_with_unacknowledged_op}")  # fmt: skip
    print(f"final turns: {report.final_turns}")
    print(f"problems: {len(report.problems)}")
    for problem in report.problems[:20]:
        print(f"  {problem}")
    print(f"elapsed: {report.seconds:.1f} s")
    sys.exit(1 if report.problems or report.kills < args.kills else 0)


if __name__ == "__main__":
    main()
