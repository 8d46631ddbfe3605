"""Crash safety: SIGKILL the runner mid-turn at random points, reopen, verify every session.

    python -m benchmarks.crash --kills 200

A forked child plays turns (and some undos, compactions and restores) of a few sessions
through `Runner.play_turn`, `Runner.undo`, `Runner.compact` and `Runner.restore`, the paths
the server runs (durable SQLite, one journal fsync a turn),
answering from an in-process scripted provider, and prints an acknowledgement after each
operation returns. The parent kills it after a random delay, then reopens the data dir as a
new process would: reconciles each session's journal with its store
(`store.reconcile_journal`, what the runner does on its first touch of a session) and checks
that no acknowledged turn was lost (at most the one operation in flight landed beyond the
acknowledgement), that no turn is torn (every turn 1..N holds its records, opening with the
human's line of that turn and session; the checkpoints are 1..N; seqs increase; a journal
commit line counts the records the store holds for its turn), that the journal reads, and
that journal and store agree: the journal's commits minus its undos are exactly the store's
turns. With compactions, a turn at or below the last cutoff is checked in its checkpoint (its
records there, opening with its own line), every checkpoint must still be sealed (its hash
matches its content) and chained to the one before, and the live history holds exactly the
turns after the cutoff. The child announces a compaction or a restore before it starts, so
the report counts the kills that landed inside one.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import signal
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tavern.llm.client import LlmClient
from tavern.llm.fake import FakeProvider
from tavern.llm.provider import ProviderRequest
from tavern.llm.wrappers import RetryPolicy
from tavern.records import CommitLine, LlmCallLine, SpeechRecord, TurnInput, checkpoint_hash
from tavern.runner import Runner
from tavern.runner.interface import ConflictError
from tavern.store import (
    JournalWriter,
    Library,
    SessionStore,
    journal_commits,
    journal_compactions,
    journal_path,
    read_journal,
    read_journal_markers,
    reconcile_journal,
)

SESSIONS = 3
SCENARIO = "the-toll-house"
UNDO_SHARE = 0.15
COMPACT_SHARE = 0.12
"""Share of operations that compact the session (keeping `RETENTION` turns)."""
RESTORE_SHARE = 0.06
"""Share of operations that restore the session's last compaction."""
RETENTION = 3


def said(session_id: str, turn: int) -> str:
    """The human's line of `turn` in `session_id`: a torn or misplaced turn shows in it."""
    return f"Turn {turn} of {session_id}: who keeps the toll box key?"


def _answer(request: ProviderRequest) -> dict[str, Any]:
    """Scripted, schema-valid answers: one queued speaker, a line of narration, a reply."""
    if request.agent == "director":
        return {"events": [], "next_speakers": ["C2"], "time_skip_ticks": 0,
                "nothing_happens": True}  # fmt: skip
    if request.agent == "prose":
        return {"narration": "Rain drums on the shutters of the toll house."}
    if request.agent.startswith("character"):
        return {"speech": "Not tonight.", "thought": None, "action_intent": None}
    if request.agent == "summarizer":
        return {"summary": f"Up to turn {request.turn_number}, nobody gave up the key."}
    return {"outcome": "Nothing comes of it."}


def open_runner(data_dir: Path) -> Runner:
    """A durable runner over `data_dir` (SQLite FULL, a syncing journal), as the server's."""
    store = SessionStore(data_dir)
    journal = JournalWriter(data_dir)

    def sink(line: LlmCallLine) -> None:
        journal.append(line.session_id, line)

    client = LlmClient(FakeProvider("function", fn=_answer), sink=sink, retry=RetryPolicy(1))
    return Runner(store, Library(data_dir), journal, client)


def create_sessions(data_dir: Path) -> list[str]:
    """The sessions every writer plays (created once, before the first kill)."""
    runner = open_runner(data_dir)
    try:
        return [asyncio.run(runner.create_session(SCENARIO)).id for _ in range(SESSIONS)]
    finally:
        runner.store.close()


def warm_up() -> None:
    """Play one turn in a scratch data dir, so every forked writer starts with the imports,
    compiled patterns and caches a running server has (each child would pay them anew)."""
    with tempfile.TemporaryDirectory(prefix="tavern-crash-warm-") as tmp:
        runner = open_runner(Path(tmp))
        sid = asyncio.run(runner.create_session(SCENARIO)).id
        asyncio.run(runner.play_turn(sid, TurnInput(speech=said(sid, 1))))
        runner.store.close()


def run_writer(data_dir: Path, sessions: list[str], seed: int, ack: Callable[[str], None]) -> None:
    """Child process: play and undo forever, acknowledging each operation with `ack`."""
    rng = random.Random(seed)

    async def loop() -> None:
        runner = open_runner(data_dir)
        ack("ready")
        while True:
            sid = rng.choice(sessions)
            turn = runner.store.load(sid).turn_number
            draw = rng.random()
            try:
                if turn > 0 and draw < UNDO_SHARE:
                    restored = await runner.undo(sid)
                    ack(f"ack {sid} {restored.turn_number}")
                    continue
                if draw < UNDO_SHARE + COMPACT_SHARE:
                    ack(f"start compact {sid}")
                    compacted = await runner.compact(sid, retention_turns=RETENTION)
                    ack(f"ack {sid} {compacted.turn_number}")
                    continue
                if draw < UNDO_SHARE + COMPACT_SHARE + RESTORE_SHARE:
                    ack(f"start restore {sid}")
                    back = await runner.restore(sid)
                    ack(f"ack {sid} {back.turn_number}")
                    continue
            except ConflictError:  # nothing to compact, restore or undo (a compacted turn)
                ack(f"ack {sid} {turn}")
                continue
            done = await runner.play_turn(sid, TurnInput(speech=said(sid, turn + 1)))
            ack(f"ack {sid} {done.turn_number}")

    asyncio.run(loop())


@dataclass
class Reopened:
    """What one reopening found."""

    problems: list[str] = field(default_factory=list)
    beyond_ack: int = 0
    recovered: int = 0
    voided: int = 0
    compactions_marked: int = 0


def reopen(data_dir: Path, sessions: list[str], acked: dict[str, int]) -> Reopened:
    """Reconcile each session as a reopening runner does, then check it (see the module)."""
    found = Reopened()
    store, journal = SessionStore(data_dir), JournalWriter(data_dir)
    try:
        for sid in sessions:
            done = reconcile_journal(store, journal, sid)
            found.recovered += len(done.recovered)
            found.voided += len(done.voided)
            found.compactions_marked += len(done.compactions) + len(done.restores)
            problems, beyond = check_session(store, journal, sid, acked.get(sid, 0))
            found.problems += problems
            found.beyond_ack += beyond
    finally:
        store.close()
    return found


def check_session(
    store: SessionStore, journal: JournalWriter, sid: str, acked: int
) -> tuple[list[str], int]:
    """(problems, 1 when the store is one operation beyond the acknowledgement) of a session."""
    problems: list[str] = []
    turn = store.load(sid).turn_number
    if abs(turn - acked) > 1:
        problems.append(f"{sid}: at turn {turn}, acknowledged {acked} (a lost turn)")
    live = store.history(sid)
    cutoff, evicted = check_checkpoints(store, sid, problems)
    history = sorted([*evicted, *live], key=lambda r: r.seq)
    seqs = [r.seq for r in history]
    if seqs != sorted(set(seqs)):
        problems.append(f"{sid}: seqs not strictly increasing")
    held = {t.turn_number: t.record_count for t in store.committed_turns(sid)}
    for r in evicted:
        if r.turn_number > 0:
            held[r.turn_number] = held.get(r.turn_number, 0) + 1
    for t in range(1, turn + 1):
        first = next((r for r in history if r.turn_number == t), None)
        if not isinstance(first, SpeechRecord) or first.text != said(sid, t):
            problems.append(f"{sid}: turn {t} does not open with its own line (torn)")
    if {r.turn_number for r in live} != set(range(cutoff + 1, turn + 1)):
        problems.append(f"{sid}: history holds turns {sorted({r.turn_number for r in live})}")
    rows = store._conn().execute(
        "SELECT turn_number FROM checkpoints WHERE session_id = ? ORDER BY turn_number", (sid,)
    )
    if [r[0] for r in rows] != list(range(1, turn + 1)):
        problems.append(f"{sid}: checkpoints do not match turn {turn}")
    path = journal_path(journal.data_dir, sid)
    read_journal(path)  # every complete line parses
    markers = read_journal_markers(path)
    marked = journal_commits(markers.commits)
    if set(marked) != set(held):
        problems.append(f"{sid}: journal marks turns {sorted(marked)}, store holds {sorted(held)}")
    for t, line in marked.items():
        if isinstance(line, CommitLine) and t in held and line.record_count != held[t]:
            problems.append(f"{sid}: turn {t} journaled {line.record_count}, holds {held[t]}")
    live = journal_compactions(markers.compactions)
    if live != [c.id for c in store.checkpoints(sid)]:
        problems.append(f"{sid}: journal's live compactions {live} are not the store's")
    return problems, int(turn != acked)


def check_checkpoints(store: SessionStore, sid: str, problems: list[str]) -> tuple[int, list[Any]]:
    """(last cutoff turn or -1, every evicted record) of a session's compaction checkpoints,
    each checked sealed (its hash matches) and chained to the one before."""
    parent: str | None = None
    cutoff, evicted = -1, []
    for checkpoint in store.checkpoints(sid):
        if checkpoint_hash(checkpoint) != checkpoint.content_hash:
            problems.append(f"{sid}: checkpoint {checkpoint.id} does not match its hash")
        if checkpoint.parent_id != parent:
            problems.append(f"{sid}: checkpoint {checkpoint.id} is off the parent chain")
        if checkpoint.cutoff_turn <= cutoff:
            problems.append(f"{sid}: checkpoint {checkpoint.id} cuts at or below the last")
        parent, cutoff = checkpoint.id, checkpoint.cutoff_turn
        evicted += checkpoint.records
    return cutoff, evicted


def _kill_one_writer(data_dir: Path, sessions: list[str], seed: int, delay: float) -> list[str]:
    """Fork a writer, SIGKILL it `delay` seconds after its first acknowledged operation;
    return its ack lines.

    A fork (rather than a fresh interpreter) skips seconds of imports per kill; the child
    opens its own SQLite connection, and the parent holds none across the fork.
    """
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # child: never return into the caller's stack
        status = 0
        try:
            os.close(read_fd)
            run_writer(data_dir, sessions, seed, lambda line: _write_line(write_fd, line))
        except BaseException:
            status = 1
        finally:
            os._exit(status)
    os.close(write_fd)
    with os.fdopen(read_fd, "r") as pipe:
        # Ready, then one operation done: the kill lands `delay` later, whatever the load.
        first = pipe.readline() + pipe.readline()
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
    kills_inside_compaction: int = 0
    """Kills that landed after a compaction or restore started and before it returned."""
    compactions_live: dict[str, int] = field(default_factory=dict)
    """Session -> compaction checkpoints it holds at the end."""
    recovered_commits: int = 0
    voided_commits: int = 0
    compaction_lines_marked: int = 0
    """Recovered compact and restore lines appended on reopen."""
    final_turns: dict[str, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0


def run_kills(data_dir: Path, kills: int, seed: int = 0, max_delay: float = 0.4) -> CrashReport:
    """Create the sessions, then start, kill and reopen the writer `kills` times."""
    rng = random.Random(seed)
    report = CrashReport()
    warm_up()
    sessions = create_sessions(data_dir)
    acked = dict.fromkeys(sessions, 0)
    started = time.perf_counter()
    for k in range(kills):
        lines = _kill_one_writer(data_dir, sessions, seed * 100_003 + k, rng.uniform(0, max_delay))
        if not lines or lines[0] != "ready":
            report.problems.append(f"kill {k}: writer did not start")
            break
        if lines[-1].startswith("start "):
            report.kills_inside_compaction += 1
        for line in lines[1:]:
            if line.startswith("start "):
                continue
            _, sid, turn = line.split()
            acked[sid] = int(turn)
            report.acknowledged_ops += 1
        found = reopen(data_dir, sessions, acked)
        report.kills += 1
        report.kills_with_unacknowledged_op += found.beyond_ack
        report.recovered_commits += found.recovered
        report.voided_commits += found.voided
        report.compaction_lines_marked += found.compactions_marked
        report.problems += [f"kill {k}: {p}" for p in found.problems]
        # The store is the truth from here on: resync the acknowledgements to it.
        with SessionStore(data_dir) as store:
            acked = {s: store.load(s).turn_number for s in sessions}
    report.final_turns = acked
    with SessionStore(data_dir) as store:
        report.compactions_live = {s: len(store.checkpoints(s)) for s in sessions}
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
    print(f"acknowledged operations (turns, undos, compactions, restores): "
          f"{report.acknowledged_ops}")  # fmt: skip
    print(f"kills that landed inside a compaction or restore: {report.kills_inside_compaction}")
    print(f"compaction checkpoints live at the end: {report.compactions_live}")
    print(f"kills that landed after an unacknowledged turn/undo: "
          f"{report.kills_with_unacknowledged_op}")  # fmt: skip
    print(f"recovered commit lines appended on reopen: {report.recovered_commits}")
    print(f"journal commits the store did not hold, marked on reopen: {report.voided_commits}")
    print(f"compact/restore lines recovered on reopen: {report.compaction_lines_marked}")
    print(f"final turns: {report.final_turns}")
    print(f"problems (lost or torn turns, journal/store disagreements): {len(report.problems)}")
    for problem in report.problems[:20]:
        print(f"  {problem}")
    print(f"elapsed: {report.seconds:.1f} s")
    sys.exit(1 if report.problems or report.kills < args.kills else 0)


if __name__ == "__main__":
    main()
