"""Replay a recorded session: re-submit what was asked of the kernel, against its own answers.

`read_recording` turns a session directory (`journal.jsonl`, and `final.json` when the
harness wrote one) into the operations the session's client made (each committed turn's raw
input, each undo, suggestion, opening and interview, in order) and the tape: the successful
calls of those operations. A turn that failed is left out with its calls. `replay` plays the
operations on a fresh session whose provider serves the tape in strict order (`replay`
in-process; over HTTP, the `llama_cpp` adapter of a `tavern serve` pointed at the loopback
replay server), then compares every call's prompt and answer with the recording, byte for
byte, and the final state, and reports the first divergence with a diff.

The session is rebuilt with the recording's language and kernel limits (from `final.json`;
without it, the defaults and the language of the prompts' call policy). Over HTTP the server
sizes prompts for its own provider: a recording made under other limits may diverge there.

Example::

    recording = read_recording(Path("run/sessions/s2026..."))
    report = asyncio.run(replay_in_process(recording, Path("replayed")))
    report.divergence is None and report.state_divergence is None
"""

from __future__ import annotations

import asyncio
import difflib
import json
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from harness.config import ResolvedConfig, resolve_config
from harness.loading import InputError
from harness.records.results import SessionSnapshot
from harness.records.script import ConfigOverrides
from harness.run import SNAPSHOT_NAME
from harness.targets import Target, TargetError
from harness.targets.in_process import InProcessTarget
from tavern.llm.call_policy import LANGUAGE_POLICY
from tavern.records import (
    CommitLine,
    CompactLine,
    JournalLine,
    LlmCallLine,
    RestoreLine,
    TurnInput,
    TurnInputLine,
    UndoLine,
)
from tavern.records.config import AppConfig, ProviderSettings
from tavern.records.scenario import Language
from tavern.runner import KernelLimits
from tavern.store import SessionStore, read_journal, write_atomic

OperationKind = Literal["turn", "undo", "suggest", "openings", "interview"]
TAPE_NAME = "tape.jsonl"


@dataclass(frozen=True)
class Operation:
    """One thing the session's client asked of the kernel."""

    kind: OperationKind
    turn_number: int
    input: TurnInput | None = None
    character: str | None = None
    question: str | None = None


@dataclass
class Recording:
    """A recorded session, read back for replay."""

    session_dir: Path
    session_id: str
    scenario_id: str
    controlled: str
    language: Language
    limits: KernelLimits
    operations: list[Operation]
    tape: list[LlmCallLine]
    """The successful calls of the operations replayed, in journal order."""
    skipped_turns: list[int]
    """Turns that failed when recorded (replayed by nothing: their calls are not taped)."""
    snapshot: SessionSnapshot | None


@dataclass
class _Open:
    operation: Operation
    calls: list[LlmCallLine] = field(default_factory=list)


def _operations(
    lines: Sequence[JournalLine], source: str
) -> tuple[list[Operation], list[LlmCallLine], list[int]]:
    operations: list[Operation] = []
    tape: list[LlmCallLine] = []
    skipped: list[int] = []
    current: _Open | None = None

    def close(committed: bool = False) -> None:
        nonlocal current
        if current is None:
            return
        op, calls = current.operation, current.calls
        if op.kind == "turn" and not committed:
            skipped.append(op.turn_number)
        elif calls or op.kind == "undo":
            operations.append(op)
            tape.extend(calls)
        current = None

    for line in lines:
        if isinstance(line, TurnInputLine):
            close()
            current = _Open(Operation("turn", line.turn_number, input=line.input))
        elif isinstance(line, CommitLine):
            close(committed=current is not None and current.operation.kind == "turn")
        elif isinstance(line, UndoLine):
            close()
            operations.append(Operation("undo", line.removed_turn))
        elif isinstance(line, CompactLine | RestoreLine):
            raise InputError.one(source, line.kind, "a session without compaction (not replayed)")
        elif isinstance(line, LlmCallLine):
            ok = line.error is None and line.response is not None
            if current is None or (current.operation.kind != "turn" and line.attempt_number == 1):
                close()
                current = _Open(_outside_turn(line, source))
            if ok:
                current.calls.append(line)
    close()
    return operations, tape, skipped


def _outside_turn(call: LlmCallLine, source: str) -> Operation:
    role, _, slot = call.agent.partition(":")
    if call.agent in ("suggest", "openings"):
        return Operation("suggest" if call.agent == "suggest" else "openings", call.turn_number)
    if role == "interview" and slot and call.request.messages:
        question = call.request.messages[-1].content
        return Operation("interview", call.turn_number, character=slot, question=question)
    raise InputError.one(
        source, f"turn {call.turn_number}", f"a call the replay can make, got {call.agent!r}"
    )


def read_recording(session_dir: Path) -> Recording:
    """Read a session directory for replay.

    Raises:
        InputError: no journal, a journal the replay cannot drive, or no way to tell the
            session's scenario (neither `final.json` nor the data dir's store).
    """
    journal = session_dir / "journal.jsonl"
    source = str(journal)
    if not journal.is_file():
        raise InputError.one(
            str(session_dir), "", "expected a session directory holding journal.jsonl"
        )
    lines = read_journal(journal)
    operations, tape, skipped = _operations(lines, source)
    snapshot_path = session_dir / SNAPSHOT_NAME
    snapshot = (
        SessionSnapshot.model_validate_json(snapshot_path.read_bytes())
        if snapshot_path.is_file()
        else None
    )
    if snapshot is not None:
        scenario, controlled = snapshot.view.scenario_id, snapshot.view.controlled_id
    else:
        scenario, controlled = _from_store(session_dir)
    config = snapshot.config if snapshot is not None and snapshot.config else {}
    language: Language = config.get("language") or _policy_language(tape)
    limits = _limits(config.get("limits"))
    return Recording(
        session_dir, session_dir.name, scenario, controlled, language, limits, operations, tape,
        skipped, snapshot,
    )  # fmt: skip


def _from_store(session_dir: Path) -> tuple[str, str]:
    data_dir = session_dir.parent.parent
    if not (data_dir / "sessions.sqlite3").is_file():
        raise InputError.one(
            str(session_dir), "", "expected final.json beside the journal, or the session's store"
        )
    with SessionStore(data_dir) as store:
        state = store.load(session_dir.name)
    return state.scenario_id, state.controlled_id


def _policy_language(tape: Sequence[LlmCallLine]) -> Language:
    """The language whose call policy the recorded prompts carry."""
    for call in tape:
        system = call.request.messages[0].content if call.request.messages else ""
        for language, policy in LANGUAGE_POLICY.items():
            if policy in system:
                return "pt-BR" if language == "pt-BR" else "en"
    return "en"


def _limits(data: dict[str, Any] | None) -> KernelLimits:
    return KernelLimits(**data) if data else KernelLimits()


@dataclass(frozen=True)
class Divergence:
    """Where a replay first differs from its recording."""

    call: int
    """Index of the call in the tape (0-based)."""
    agent: str
    turn_number: int
    what: Literal["prompt", "response", "call", "missing", "extra"]
    diff: str
    """A unified diff (recorded, then replayed), or what is missing."""

    def describe(self) -> str:
        """One paragraph for a terminal."""
        head = f"call #{self.call} ({self.agent}, turn {self.turn_number}): {self.what} differs"
        return f"{head}\n{self.diff}"


@dataclass
class ReplayReport:
    """The outcome of a replay."""

    calls: int
    """Calls compared."""
    divergence: Divergence | None
    state_divergence: str | None
    errors: list[str]
    session_id: str

    @property
    def equal(self) -> bool:
        """Every prompt, answer and the final state byte-equal."""
        return self.divergence is None and self.state_divergence is None and not self.errors


def _prompt_lines(call: LlmCallLine) -> list[str]:
    lines = []
    for message in call.request.messages:
        lines.append(f"[{message.role}]")
        lines.extend(message.content.splitlines())
    return lines


def _diff(recorded: list[str], replayed: list[str], limit: int = 60) -> str:
    found = list(difflib.unified_diff(recorded, replayed, "recorded", "replayed", n=2, lineterm=""))
    more = f"\n... {len(found) - limit} more diff lines" if len(found) > limit else ""
    return "\n".join(found[:limit]) + more


def compare_calls(
    recorded: Sequence[LlmCallLine], replayed: Sequence[LlmCallLine]
) -> Divergence | None:
    """The first call whose identity, prompt or answer differs, byte for byte."""
    for index in range(max(len(recorded), len(replayed))):
        if index >= len(replayed):
            ours = recorded[index]
            return Divergence(
                index, ours.agent, ours.turn_number, "missing", "the replay made no such call"
            )
        if index >= len(recorded):
            theirs = replayed[index]
            return Divergence(
                index, theirs.agent, theirs.turn_number, "extra", "the recording has no such call"
            )
        ours, theirs = recorded[index], replayed[index]
        if (ours.agent, ours.turn_number) != (theirs.agent, theirs.turn_number):
            detail = (
                f"recorded {ours.agent} turn {ours.turn_number}, "
                f"replayed {theirs.agent} turn {theirs.turn_number}"
            )
            return Divergence(index, ours.agent, ours.turn_number, "call", detail)
        if ours.request.messages != theirs.request.messages:
            diff = _diff(_prompt_lines(ours), _prompt_lines(theirs))
            return Divergence(index, ours.agent, ours.turn_number, "prompt", diff)
        if ours.response != theirs.response:
            diff = _diff([ours.response or ""], [theirs.response or ""])
            return Divergence(index, ours.agent, ours.turn_number, "response", diff)
    return None


def compare_state(recorded: SessionSnapshot, replayed: SessionSnapshot) -> str | None:
    """The first difference between two final snapshots (ids and creation time aside)."""
    ours = [r.model_dump_json() for r in recorded.history]
    theirs = [r.model_dump_json() for r in replayed.history]
    if ours != theirs:
        for index, (a, b) in enumerate(zip(ours, theirs, strict=False)):
            if a != b:
                return f"history record {index} differs:\n{_diff([a], [b])}"
        return f"history has {len(ours)} records recorded, {len(theirs)} replayed"
    if recorded.state is not None and replayed.state is not None:
        same = {"id": recorded.state.id, "created_at": recorded.state.created_at}
        a_state = recorded.state.model_dump(mode="json")
        b_state = replayed.state.model_copy(update=same).model_dump(mode="json")
        for key in a_state:
            if a_state[key] != b_state.get(key):
                left = json.dumps(a_state[key], indent=1, sort_keys=True).splitlines()
                right = json.dumps(b_state.get(key), indent=1, sort_keys=True).splitlines()
                return f"state.{key} differs:\n{_diff(left, right)}"
    a_view = recorded.view.model_dump(mode="json", exclude={"id"})
    b_view = replayed.view.model_dump(mode="json", exclude={"id"})
    if a_view != b_view:
        key = next(k for k in a_view if a_view[k] != b_view.get(k))
        return f"view.{key} differs"
    return None


async def replay(recording: Recording, target: Target, out_dir: Path) -> ReplayReport:
    """Play the recording's operations on `target` (whose provider serves its tape)."""
    view = await target.create_session(recording.scenario_id, recording.controlled)
    sid = view.id
    errors: list[str] = []
    for op in recording.operations:
        try:
            if op.kind == "turn":
                assert op.input is not None
                await target.play_turn(sid, op.input)
            elif op.kind == "undo":
                await target.undo(sid)
            elif op.kind == "suggest":
                await target.suggestions(sid)
            elif op.kind == "openings":
                await target.openings(sid)
            else:
                assert op.character is not None and op.question is not None
                await target.interview(sid, op.character, op.question)
        except TargetError as exc:
            errors.append(f"{op.kind} at turn {op.turn_number}: {exc.status}: {exc.message}")
            break
    lines = await target.journal_since(sid, 0)
    calls = [
        line for line in lines
        if isinstance(line, LlmCallLine) and line.error is None and line.response is not None
    ]  # fmt: skip
    snapshot = SessionSnapshot(
        session_id=sid,
        view=await target.view(sid),
        state=await target.state(sid),
        history=await target.history_since(sid, -1),
        config=recording.snapshot.config if recording.snapshot else None,
    )
    folder = out_dir / "sessions" / sid
    folder.mkdir(parents=True, exist_ok=True)
    if not (folder / "journal.jsonl").exists():
        write_atomic(folder / "journal.jsonl", b"".join(_encoded(line) for line in lines))
    write_atomic(folder / SNAPSHOT_NAME, snapshot.model_dump_json().encode())
    state = None
    if recording.snapshot is not None:
        state = compare_state(recording.snapshot, snapshot)
    return ReplayReport(
        len(recording.tape), compare_calls(recording.tape, calls), state, errors, sid
    )


def _encoded(line: JournalLine) -> bytes:
    return line.__pydantic_serializer__.to_json(line) + b"\n"


def write_tape(recording: Recording, path: Path) -> Path:
    """The recording's tape as a journal the replay provider and server read."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, b"".join(_encoded(call) for call in recording.tape))
    return path


def replay_config(recording: Recording, tape: Path) -> tuple[AppConfig, KernelLimits]:
    """The config of an in-process replay: the `replay` provider on the tape."""
    settings = ProviderSettings(options={"journal": str(tape)})
    config = AppConfig(
        active_provider="replay", language=recording.language, providers={"replay": settings}
    )
    return config, recording.limits


async def replay_in_process(recording: Recording, out_dir: Path) -> ReplayReport:
    """Replay on a runner in this process over `out_dir`."""
    tape = write_tape(recording, out_dir / TAPE_NAME)
    config, limits = replay_config(recording, tape)
    target = InProcessTarget.open(out_dir, config, limits)
    try:
        return await replay(recording, target, out_dir)
    finally:
        await target.aclose()


@contextmanager
def loopback_replay_server(tape: Path) -> Iterator[str]:
    """Serve `tape` with `tavern.llm.replay_server` on a free loopback port; yield its
    OpenAI-compatible base URL (`http://127.0.0.1:PORT/v1`)."""
    import socket

    import uvicorn

    from tavern.llm.replay import ReplayCursor
    from tavern.llm.replay_server import create_replay_app

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    app = create_replay_app(ReplayCursor.from_journal(tape))
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        while not server.started:
            if not thread.is_alive():
                raise RuntimeError("the replay server did not start")
            threading.Event().wait(0.02)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def http_replay_config(recording: Recording, api_base: str) -> ResolvedConfig:
    """A `tavern serve`'s config for replay: `llama_cpp` at the loopback replay server."""
    return resolve_config(
        ConfigOverrides(provider="llama_cpp", api_base=api_base), recording.language
    )


async def replay_over_http(recording: Recording, url: str, out_dir: Path) -> ReplayReport:
    """Replay through a running `tavern serve` at `url`, its provider pointed at a loopback
    replay server serving the tape."""
    from harness.targets.http import HttpTarget

    tape = write_tape(recording, out_dir / TAPE_NAME)
    with loopback_replay_server(tape) as api_base:
        target = HttpTarget(url, config=http_replay_config(recording, api_base))
        try:
            return await replay(recording, target, out_dir)
        finally:
            await target.aclose()


def run_replay(session_dir: Path, out_dir: Path, url: str | None = None) -> ReplayReport:
    """Read and replay a session directory (in-process, or through `url`)."""
    recording = read_recording(session_dir)
    if url:
        return asyncio.run(replay_over_http(recording, url, out_dir))
    return asyncio.run(replay_in_process(recording, out_dir))
