"""Kernel time per turn and the cacheable prompt prefix, with the in-process fake provider.

    python -m benchmarks.kernel [--turns 60] [--long 2000]
    python -m benchmarks.kernel --digest [--turns 30]

Kernel time is the wall time of `Runner.play_turn` less the time spent inside the model
provider (the fake's own answer generation stands in for the model wait): loading the
session, journaling with one fsync, prompt building, the contract gate, validation, clamps,
observations, memory capture and the atomic commit. It is measured on a session with 20 turns
of history and on one with 2,000 (budget: p95 < 100 ms per turn, p95 ratio <= 1.5). Both
sessions are built by committing synthetic turns through the store and the real memory
capture, then played with the same scripted, realistic-length answers.

The cacheable share: for each agent role, the mean share of each prompt that is a common
prefix with a prompt the role sent before in the session (the best of its agents' latest:
see `prefix_shares`), from the journal, i.e. exactly the text that was sent.

`--digest` plays the same sessions and prints digests of everything they sent and kept
(`behaviour_digest`): a change meant to keep behaviour must leave them as they were.
"""

from __future__ import annotations

import argparse
import asyncio
import atexit
import hashlib
import json
import multiprocessing
import random
import shutil
import statistics
import tempfile
import time
import zlib
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from itertools import accumulate
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from tavern.llm.client import LlmClient
from tavern.llm.fake import FakeProvider
from tavern.llm.provider import ProviderRequest, ProviderResponse, Source
from tavern.llm.wrappers import RetryPolicy
from tavern.physics.redaction import redact, salient_tokens
from tavern.records import (
    NARRATOR,
    ActionRecord,
    Audience,
    EventRecord,
    HistoryRecord,
    LlmCallLine,
    LlmRequestBody,
    NarrationRecord,
    SessionState,
    SpeechRecord,
    TurnInput,
)
from tavern.runner import KernelLimits, Runner
from tavern.runner.follow_up import AGENT as FOLLOW_UP
from tavern.runner.memory import capture_memory
from tavern.store import JournalWriter, Library, SessionStore, journal_path, read_journal

SCENARIOS = {
    # scenario -> the slots sharing the controlled character's room (speakers, witnesses)
    "the-vintners-wake": ["C1", "C2", "C4", "C5"],
    "the-toll-house": ["C1", "C2", "C3"],
}
SCENARIO = "the-vintners-wake"
HALL = SCENARIOS[SCENARIO]
STORY_WORDS = (
    "candle wax cellar vine cask ledger notary will coffin balcony trapdoor rain lantern "
    "silk cane habit cross satchel glasses glass wine debt harvest creditor letter seal "
    "midnight bell door stair shadow whisper bargain promise"
).split()
FUNCTION_WORDS = "the a of and to in was his her that it with as on at by from but not".split()
SYLLABLES = "ka ri mo sen tal ver lo min dra quel bor an est ul phi gar nes tor".split()


def _made_up_words(count: int) -> list[str]:
    """Pronounceable non-words, the same on every run (none spells an operator word)."""
    rng = random.Random(1)
    made: dict[str, None] = {}
    while len(made) < count:
        made["".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4)))] = None
    return list(made)


WORDS = [*FUNCTION_WORDS, *STORY_WORDS, *_made_up_words(6000)]
"""A story's vocabulary: thousands of words, not a few dozen. Token sets, secrets folds and
redaction grow with it (a 36-word vocabulary measured 2 ms per turn less, 14%)."""
_ZIPF = list(accumulate(1 / rank for rank in range(1, len(WORDS) + 1)))
"""Cumulative Zipf weights (exponent 1): a few words everywhere, most words rare, as in prose."""


def _sentence(rng: random.Random, n: int) -> str:
    return " ".join(rng.choices(WORDS, cum_weights=_ZIPF, k=n)).capitalize() + "."


WAITING: list[str] | None = None
"""The scripted Director's action_outcome actors: None, C1 on every beat (whatever was
attempted: the benchmark's Director since stop 5, which leaves the Characters' attempts to
the follow-up call, `runner.follow_up`); with `--director thorough`, the actors of the
attempts waiting for the beat, set before each turn (`waiting_actors`)."""


def waiting_actors(runner: Runner, session_id: str, turn: TurnInput) -> list[str]:
    """Who has an attempt waiting for the next beat: the last beat's Characters that
    attempted something, and C1 (the human's slot) when `turn` holds an action."""
    last = runner.store.history_tail(session_id, 1)
    actors = {r.speaker for r in last if isinstance(r, ActionRecord) and r.author == "character"}
    return sorted(actors | ({"C1"} if turn.action else set()))


def answer(request: ProviderRequest) -> dict[str, Any]:
    """Realistic-length scripted answers, deterministic per request."""
    # A digest, not `hash()`: str hashes change with each process's PYTHONHASHSEED, and
    # so would every answer, who speaks, and the Character prompts the shares are taken on.
    rng = random.Random(zlib.crc32(request.messages[-1].content.encode()) & 0xFFFF)
    if request.agent == "director":
        speaker = rng.choice(HALL)
        actors = ["C1"] if WAITING is None else WAITING[:4]
        return {
            "blocking": _sentence(rng, 12),
            "events": [
                {
                    "kind": "action_outcome",
                    "text": _sentence(rng, 14),
                    "actor_id": actor,
                    "witness_ids": HALL,
                    "utterance_ref": None,
                }
                for actor in actors
            ],
            "next_speakers": [speaker],
            "scene": {"add_facts": [], "remove_facts": [], "new_location": None},
            "mood_updates": {speaker: rng.choice(["wary", "calm", "tense"])},
            "zone_moves": [],
            "link_updates": [],
            "time_skip_ticks": 0,
            "nothing_happens": False,
        }
    if request.agent == FOLLOW_UP:
        return {"outcome": _sentence(rng, 14)}
    if request.agent == "prose":
        return {"narration": " ".join(_sentence(rng, 12) for _ in range(8))}
    if request.agent.startswith("reviser:"):  # a ledger's memory revision
        return {"summary": " ".join(_sentence(rng, 16) for _ in range(6))}
    return {
        "speech": _sentence(rng, 18),
        "thought": _sentence(rng, 8),
        "action_intent": _sentence(rng, 6) if rng.random() < 0.5 else None,
    }


class TimedProvider:
    """Delegates to the fake and accumulates the time spent answering (the model wait)."""

    def __init__(self) -> None:
        self.inner = FakeProvider("function", fn=answer)
        self.name, self.model = "fake", "fake-bench"
        self.source: Source = "fake"
        self.waited = 0.0
        self.waited_cpu = 0.0

    def describe(self, request: ProviderRequest) -> LlmRequestBody:
        return self.inner.describe(request)

    async def complete(self, request: ProviderRequest) -> ProviderResponse:
        # Answers whole: a stop-early predicate (the prose role's) runs on the tokens while a
        # real server writes them, inside the model wait; the fake's word-by-word imitation
        # of that would add its own quadratic work to the kernel's time.
        request = replace(request, stop_early=None)
        start, cpu = time.perf_counter(), time.process_time()
        try:
            return await self.inner.complete(request)
        finally:
            self.waited += time.perf_counter() - start
            self.waited_cpu += time.process_time() - cpu


def _synthetic_turn(state: SessionState, seq: int, turn: int, rng: random.Random) -> list[Any]:
    hall = Audience(origin="zone", perceivers=HALL)
    tick = state.clock.tick
    common = {"turn_number": turn, "audience": hall, "tick": tick}
    said, outcome = _sentence(rng, 16), _sentence(rng, 14)  # drawn in their old order
    records: list[HistoryRecord] = [
        SpeechRecord(seq=seq, speaker="C1", author="human", text=said, **common),
        # Events carry a reader text, as the kernel records them (`BeatLog.add_events`): the
        # words spoken so far masked. Without one, an event counts as recorded before reader
        # texts existed, and every prose prompt masks it anew (a path new sessions never take).
        EventRecord(
            seq=seq + 1, speaker="C1", author="director", event_kind="action_outcome",
            text=outcome, actor_id="C1", reader_text=redact(outcome, salient_tokens(said)),
            **common,
        ),
        NarrationRecord(
            seq=seq + 2, speaker=NARRATOR, author="renderer",
            text=" ".join(_sentence(rng, 12) for _ in range(8)),
            turn_number=turn, audience=Audience(origin="public"), tick=tick,
        ),
        SpeechRecord(seq=seq + 3, speaker="C2", author="character", text=_sentence(rng, 18),
                     **common),
        ActionRecord(seq=seq + 4, speaker="C2", author="character", text=_sentence(rng, 6),
                     **common),
    ]  # fmt: skip
    return records


def build_session(runner: Runner, store: SessionStore, turns: int) -> str:
    """A session with `turns` synthetic committed turns (store + real memory capture)."""
    view = asyncio.run(runner.create_session(SCENARIO))
    state = store.load(view.id)
    rng = random.Random(turns)
    for turn in range(1, turns + 1):
        records = _synthetic_turn(state, store.next_seq(state.id), turn, rng)
        budget = runner.limits.character_memory_tokens * 4
        ledgers = capture_memory(state.ledgers, state.cast, records, records, state.scene, budget)
        clock = state.clock.model_copy(update={"tick": state.clock.tick + 1})
        new = state.model_copy(update={"ledgers": ledgers, "clock": clock})
        state = store.commit_turn(state.id, turn, records, new, state.revision)
    return state.id


INPUTS = [
    TurnInput(speech="Who keeps the cellar key tonight?"),
    TurnInput(action="sets the candle on the coffin's edge"),
    TurnInput(thought="The notary is lying."),
    TurnInput(speech="Not here.", whisper_to=["C2"]),
]


async def kernel_times(
    runner: Runner, provider: TimedProvider, sessions: dict[int, str], turns: int
) -> dict[int, tuple[list[float], list[float]]]:
    """Kernel milliseconds of `turns` played turns per session (by turns of history): the
    (wall, process CPU) lists.

    One runner and one event loop, as in the server. The sessions play one turn each in
    rotation, so a change in the machine's speed during the run reaches both alike and their
    ratio stays fair. The time is wall time less the provider's: what a player would wait
    for if the model answered at once (durable I/O and the contract gate included). CPU time
    leaves out waiting for the disk and, on a shared machine, for a core.
    """
    global WAITING
    times: dict[int, tuple[list[float], list[float]]] = {h: ([], []) for h in sessions}
    for i in range(turns):
        for history, sid in sessions.items():
            if THOROUGH:  # outside the timed region: the script reads the store
                WAITING = waiting_actors(runner, sid, INPUTS[i % len(INPUTS)])
            provider.waited = provider.waited_cpu = 0.0
            start, start_cpu = time.perf_counter(), time.process_time()
            await runner.play_turn(sid, INPUTS[i % len(INPUTS)])
            wall, cpu = times[history]
            wall.append((time.perf_counter() - start - provider.waited) * 1000)
            cpu.append((time.process_time() - start_cpu - provider.waited_cpu) * 1000)
    return times


def build_sessions(data_dir: Path, sizes: list[int], scenario: str, limit: str) -> dict[int, str]:
    """Build the sessions (run in a child process, so the measuring process starts the way
    a server does on an existing data dir: with nothing in memory from writing the history)."""
    global SCENARIO, HALL, LIMIT
    SCENARIO, HALL, LIMIT = scenario, SCENARIOS[scenario], limit
    builder, _ = _runner(data_dir, durable=False)
    return {n: build_session(builder, builder.store, n) for n in sizes}


def prefix_shares(calls: list[LlmCallLine]) -> dict[str, list[float]]:
    """Per role (agent name up to `:`): the share of each prompt that is a common prefix with
    a prompt the role sent before: the longest over each of the role's agents' last prompts.

    A provider's cache keeps more than one prompt (llama.cpp's slots and host-RAM cache,
    DeepSeek's prefix cache), and a follow-up call is built on the prompt just sent by
    another agent of its role (`director:outcome` on the `director` prompt), so the best of
    the role's latest prompts is the prefix it can reuse. An agent's first prompt is skipped.
    """
    last: dict[str, dict[str, str]] = defaultdict(dict)
    shares: dict[str, list[float]] = defaultdict(list)
    for call in calls:
        text = "".join(m.role + m.content for m in call.request.messages)
        role = call.agent.split(":")[0]
        earlier = last[role].values()
        if call.agent in last[role] and text:
            shares[role].append(max(_common_prefix(text, prev) for prev in earlier) / len(text))
        last[role][call.agent] = text
    return shares


def _common_prefix(a: str, b: str) -> int:
    common = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        common += 1
    return common


LIMITS = {
    "large": KernelLimits(),
    "local": KernelLimits.for_context(4096),
}
"""Prompt budgets: `large` is the default for large-context providers (deepseek); `local`
is what the runner uses for the embedded local model's 4,096-token slots."""
LIMIT = "large"
THOROUGH = False
"""`--director thorough`: the scripted Director adjudicates every waiting attempt."""


def _runner(data_dir: Path, durable: bool) -> tuple[Runner, TimedProvider]:
    store = SessionStore(data_dir, synchronous="FULL" if durable else "OFF")
    journal = JournalWriter(data_dir, durable=durable)
    provider = TimedProvider()

    def sink(line: LlmCallLine) -> None:
        journal.append(line.session_id, line)

    client = LlmClient(provider, sink=sink, retry=RetryPolicy(max_attempts=1))
    runner = Runner(store, Library(data_dir), journal, client, limits=LIMITS[LIMIT])
    return runner, provider


def p95(values: list[float]) -> float:
    """95th percentile (linear between the closest ranks).

    >>> p95([float(v) for v in range(1, 101)])
    95.05
    """
    return statistics.quantiles(values, n=20, method="inclusive")[-1]


VOLATILE = frozenset({"ts", "duration_ms", "created_at"})
"""Fields that hold clock readings: left out of a digest, since no two runs share them."""


def _plain(value: Any) -> Any:
    """`value` as JSON data without its `VOLATILE` fields, at any depth."""
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json")
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def behaviour_digest(data_dir: Path, sizes: list[int], turns: int) -> dict[str, str]:
    """SHA-256 digests of what `turns` played turns on each benchmark session sent and kept:
    every prompt, every answer, every other journal line, every history record and each
    session's final state (clock readings left out, session ids replaced by their size).

    A change meant to keep behaviour (a cache removed, a loop rewritten) must leave all five
    digests as they were; a part that moves names what changed. The sessions are built and
    played as `kernel_times` plays them (one runner, sessions in rotation, gate on).
    """
    runner, _ = _runner(data_dir, durable=False)
    sessions = {n: build_session(runner, runner.store, n) for n in sizes}

    async def play() -> None:
        global WAITING
        for i in range(turns):
            for sid in sessions.values():
                if THOROUGH:
                    WAITING = waiting_actors(runner, sid, INPUTS[i % len(INPUTS)])
                await runner.play_turn(sid, INPUTS[i % len(INPUTS)])

    asyncio.run(play())
    parts = {k: hashlib.sha256() for k in ("prompts", "answers", "journal", "records", "state")}

    def add(part: str, session_id: str, size: int, value: Any) -> None:
        text = json.dumps(_plain(value), sort_keys=True, ensure_ascii=False)
        parts[part].update(text.replace(session_id, f"<session {size}>").encode() + b"\n")

    for size, sid in sessions.items():
        for line in read_journal(journal_path(data_dir, sid)):
            if isinstance(line, LlmCallLine):
                add("prompts", sid, size, line.request)
                add("answers", sid, size, [line.agent, line.response, line.error])
            else:
                add("journal", sid, size, line)
        for record in runner.store.history(sid):
            add("records", sid, size, record)
        add("state", sid, size, runner.store.load(sid))
    return {k: h.hexdigest() for k, h in parts.items()}


def main() -> None:
    """Run the benchmark and print the figures."""
    global SCENARIO, HALL, LIMIT
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=60, help="played turns per session")
    parser.add_argument("--short", type=int, default=20, help="history turns, short session")
    parser.add_argument("--long", type=int, default=2000, help="history turns, long session")
    parser.add_argument("--scenario", choices=sorted(SCENARIOS), default="the-vintners-wake")
    parser.add_argument(
        "--limits", choices=sorted(LIMITS), default="large", help="prompt budgets (see LIMITS)"
    )
    parser.add_argument(
        "--director",
        choices=["c1-only", "thorough"],
        default="c1-only",
        help="the scripted Director's outcomes: for C1 every beat (the Characters' attempts"
        " go to the follow-up call), or for every waiting attempt (no follow-up)",
    )
    parser.add_argument(
        "--digest",
        action="store_true",
        help="print digests of the prompts, answers, journal, records and state of --turns"
        " played turns (see behaviour_digest) instead of timing",
    )
    args = parser.parse_args()
    global THOROUGH
    THOROUGH = args.director == "thorough"
    SCENARIO, HALL, LIMIT = args.scenario, SCENARIOS[args.scenario], args.limits
    data_dir = Path(tempfile.mkdtemp(prefix="tavern-kernel-bench-"))
    atexit.register(shutil.rmtree, data_dir, True)  # its sessions (up to ~200 MB)
    sizes = [args.short, args.long]
    if args.digest:
        print(f"{SCENARIO}: {args.turns} turns on sessions of {sizes} turns of history")
        for part, digest in behaviour_digest(data_dir, sizes, args.turns).items():
            print(f"  {part:8} {digest}")
        return
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        sessions = pool.submit(build_sessions, data_dir, sizes, SCENARIO, LIMIT).result()
    runner, provider = _runner(data_dir, durable=True)
    asyncio.run(kernel_times(runner, provider, sessions, 2))  # warm-up
    times = asyncio.run(kernel_times(runner, provider, sessions, args.turns))
    print(
        f"{SCENARIO}: kernel time per turn (ms: wall time less the model's), {args.turns} turns"
        f" per session in rotation, fake provider, durable I/O, contract gate, {LIMIT} prompt"
        f" budgets, scripted Director: {args.director}"
    )
    for history in sizes:
        wall, cpu = times[history]
        print(
            f"  {history:>5} turns of history: p95 {p95(wall):7.2f}"
            f"  median {statistics.median(wall):7.2f}"
            f"  (cpu p95 {p95(cpu):7.2f}, median {statistics.median(cpu):7.2f})"
        )
    ratio = p95(times[args.long][0]) / p95(times[args.short][0])
    print(
        f"  p95 ratio {args.long}/{args.short}: {ratio:.2f}  (budget: p95 < 100 ms, ratio <= 1.5)"
    )
    print("cacheable prefix share per role (mean over prompts)")
    for history, sid in sessions.items():
        calls = [c for c in read_journal(journal_path(data_dir, sid))
                 if isinstance(c, LlmCallLine)]  # fmt: skip
        shares = prefix_shares(calls)
        parts = [
            f"{role} {statistics.mean(v):.3f} (n={len(v)}, {sum(x < 0.5 for x in v)} below 0.5)"
            for role, v in sorted(shares.items())
        ]
        print(f"  {history:>5} turns of history: " + "; ".join(parts))


if __name__ == "__main__":
    main()
