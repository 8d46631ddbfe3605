"""Crash safety: a writer SIGKILLed at random points never leaves a lost or partial turn.

The suite runs 10 kills; `python -m benchmarks.crash --kills 200` runs the full figure.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:  # benchmarks/ is a top-level folder, not an installed package
    sys.path.insert(0, str(REPO))

from benchmarks.crash import (  # noqa: E402
    SESSIONS,
    record_text,
    run_kills,
    summary,
    verify,
)


def test_sigkill_at_random_points_loses_nothing(tmp_path: Path) -> None:
    report = run_kills(tmp_path, kills=10, seed=7, max_delay=0.2)
    assert report.problems == []
    assert report.kills == 10
    assert report.acknowledged_ops > 10  # the writer really ran between kills
    assert sum(report.final_turns.values()) > 0


def _planted(tmp_path: Path) -> tuple[Path, dict[str, int]]:
    run_kills(tmp_path, kills=1, seed=3, max_delay=0.1)
    db = sqlite3.connect(tmp_path / "sessions.sqlite3")
    acked = {
        sid: db.execute("SELECT turn_number FROM sessions WHERE id = ?", (sid,)).fetchone()[0]
        for sid in SESSIONS
    }
    db.close()
    return tmp_path / "sessions.sqlite3", acked


def test_verifier_catches_a_partial_turn(tmp_path: Path) -> None:
    db_path, acked = _planted(tmp_path)
    assert verify(tmp_path, acked) == ([], 0)  # control: the untouched store is clean
    sid = SESSIONS[0]
    turn = acked[sid] + 1
    db = sqlite3.connect(db_path)
    with db:  # a record of the next turn without its state: a half-written turn
        body = json.dumps(
            {
                "kind": "speech", "seq": 10_000, "turn_number": turn, "speaker": "C1",
                "author": "character", "audience": {"origin": "public"},
                "text": record_text(sid, turn, 0),
            }
        )  # fmt: skip
        db.execute("INSERT INTO history VALUES (?, 10000, ?, ?)", (sid, turn, body))
    db.close()
    problems, _ = verify(tmp_path, acked)
    assert any("history" in p for p in problems)


def test_verifier_catches_a_lost_turn_and_a_wrong_state(tmp_path: Path) -> None:
    db_path, acked = _planted(tmp_path)
    sid = SESSIONS[1]
    db = sqlite3.connect(db_path)
    with db:
        db.execute(
            "UPDATE sessions SET state = json_set(state, '$.story_summary', ?) WHERE id = ?",
            (summary(sid, 999), sid),
        )
    db.close()
    problems, _ = verify(tmp_path, {**acked, SESSIONS[2]: acked[SESSIONS[2]] + 5})
    assert any("wrong" in p or "has" in p for p in problems if p.startswith(sid))
    assert any(p.startswith(SESSIONS[2]) and "acknowledged" in p for p in problems)
