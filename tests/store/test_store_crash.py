"""Crash safety: a runner SIGKILLed mid-turn never leaves a lost or torn turn, and its journal
agrees with its store once the session is opened again.

The suite runs 10 kills; `python -m benchmarks.crash --kills 200` runs the full figure. The
negative controls plant a lost turn, a torn turn and a journal line lost without a reconcile,
and the verifier catches each.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:  # benchmarks/ is a top-level folder, not an installed package
    sys.path.insert(0, str(REPO))

from benchmarks import crash  # noqa: E402
from tavern.store import JournalWriter, SessionStore, journal_path  # noqa: E402


def test_sigkill_mid_turn_loses_nothing_and_the_journal_agrees(tmp_path: Path) -> None:
    report = crash.run_kills(tmp_path, kills=10, seed=7, max_delay=0.3)
    assert report.problems == []
    assert report.kills == 10
    assert report.acknowledged_ops >= 10  # the writer really ran between kills
    assert sum(report.final_turns.values()) > 0


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str], dict[str, int]]:
    """A data dir after two kills, its sessions and their turns (a clean reopen)."""
    data_dir = tmp_path_factory.mktemp("crash")
    report = crash.run_kills(data_dir, kills=2, seed=3, max_delay=0.3)
    assert report.problems == []
    return data_dir, list(report.final_turns), report.final_turns


def _check(data_dir: Path, sid: str, acked: int, *, reconcile: bool = True) -> list[str]:
    store, journal = SessionStore(data_dir), JournalWriter(data_dir, durable=False)
    try:
        if reconcile:
            crash.reconcile_journal(store, journal, sid)
        return crash.check_session(store, journal, sid, acked)[0]
    finally:
        store.close()


def _copy(played: tuple[Path, list[str], dict[str, int]], tmp_path: Path) -> tuple[Path, str, int]:
    import shutil

    source, sessions, turns = played
    target = tmp_path / "copy"
    shutil.copytree(source, target)
    sid = max(sessions, key=lambda s: turns[s])
    assert turns[sid] >= 1
    assert _check(target, sid, turns[sid]) == []  # control: the untouched copy is clean
    return target, sid, turns[sid]


def test_verifier_catches_a_lost_turn(
    played: tuple[Path, list[str], dict[str, int]], tmp_path: Path
) -> None:
    data_dir, sid, turn = _copy(played, tmp_path)
    assert any("lost" in p for p in _check(data_dir, sid, turn + 2))


def test_verifier_catches_a_torn_turn(
    played: tuple[Path, list[str], dict[str, int]], tmp_path: Path
) -> None:
    data_dir, sid, turn = _copy(played, tmp_path)
    db = sqlite3.connect(data_dir / "sessions.sqlite3")
    with db:  # the human's line of the last turn, taken out of it
        row = db.execute(
            "SELECT seq, body FROM history WHERE session_id = ? AND turn_number = ?"
            " ORDER BY seq LIMIT 1",
            (sid, turn),
        ).fetchone()
        body = json.loads(row[1]) | {"text": "someone else's line"}
        db.execute(
            "UPDATE history SET body = ? WHERE session_id = ? AND seq = ?",
            (json.dumps(body), sid, row[0]),
        )
    db.close()
    assert any("torn" in p for p in _check(data_dir, sid, turn))


def test_verifier_catches_a_lost_commit_line_left_unreconciled(
    played: tuple[Path, list[str], dict[str, int]], tmp_path: Path
) -> None:
    data_dir, sid, turn = _copy(played, tmp_path)
    path = journal_path(data_dir, sid)
    lines = path.read_bytes().splitlines(keepends=True)
    last = max(
        i
        for i, line in enumerate(lines)
        if b'"kind":"commit"' in line[:512] and json.loads(line)["turn_number"] == turn
    )
    path.write_bytes(b"".join(lines[:last] + lines[last + 1 :]))  # the process died first
    assert any("journal marks" in p for p in _check(data_dir, sid, turn, reconcile=False))
    assert _check(data_dir, sid, turn) == []  # reopening reconciles it
