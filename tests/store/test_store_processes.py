"""Two processes writing to one store at once: nothing lost, nothing locked out."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from store_strategies import plain_state

from tavern.records import SpeechRecord
from tavern.store import SessionStore

WORKER = r"""
import sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[3])
from store_strategies import plain_state, speech
from tavern.store import InvalidTurn, RevisionConflict, SessionStore

data_dir, name = Path(sys.argv[1]), sys.argv[2]
store = SessionStore(data_dir)
own = store.create(plain_state(f"own-{name}"))
(data_dir / f"ready-{name}").touch()
go = data_dir / "go"
while not go.exists():
    time.sleep(0.005)
shared_done = 0
for turn in range(1, 31):
    own = store.commit_turn(own.id, turn, [speech(turn, turn, name)], own, own.revision)
    while shared_done < 15 and turn % 2 == 0:
        state = store.load("shared-one")
        nxt = state.turn_number + 1
        try:
            record = speech(store.next_seq(state.id), nxt, name)
            store.commit_turn(state.id, nxt, [record], state, state.revision)
        except (RevisionConflict, InvalidTurn):
            continue  # the other process won this turn: reload and try again
        shared_done += 1
        break
print("done", flush=True)
"""


def test_two_processes_commit_concurrently(tavern_data_dir: Path) -> None:
    here = str(Path(__file__).parent)
    with SessionStore(tavern_data_dir) as store:
        store.create(plain_state("shared-one"))
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, str(tavern_data_dir), name, here],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in ("alpha", "beta")
    ]
    deadline = time.monotonic() + 60
    while not all((tavern_data_dir / f"ready-{n}").exists() for n in ("alpha", "beta")):
        assert time.monotonic() < deadline, [w.poll() for w in workers]
        time.sleep(0.01)
    (tavern_data_dir / "go").touch()
    results = [w.communicate(timeout=120) for w in workers]
    for worker, (out, err) in zip(workers, results, strict=True):
        assert worker.returncode == 0, err
        assert out.strip() == "done"
    with SessionStore(tavern_data_dir) as store:
        for name in ("alpha", "beta"):
            state = store.load(f"own-{name}")
            history = store.history(state.id)
            assert state.turn_number == 30
            assert [r.turn_number for r in history] == list(range(1, 31))
            assert {r.text for r in history if isinstance(r, SpeechRecord)} == {name}
        shared = store.load("shared-one")
        history = store.history("shared-one")
        assert shared.turn_number == 30 and shared.revision == 30
        assert [r.turn_number for r in history] == list(range(1, 31))  # one record per turn
        texts = [r.text for r in history if isinstance(r, SpeechRecord)]
        assert texts.count("alpha") == 15 and texts.count("beta") == 15
