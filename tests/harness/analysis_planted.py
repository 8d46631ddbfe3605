"""Planted runs for the analysis tests: journal lines and exports whose every value is known.

Times are milliseconds after `T0`, so a test states a call's start and end and reads back
the latency it implies. The session is the built-in toll house (C1 Ilse Brandt, the
controlled character; C2 Maren Holt; C3 Teodor Vask) with planted history records.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from harness.export import write_exports
from tavern.agents.blocks import PromptBlock, Stability, assemble
from tavern.records import (
    Audience,
    ChatMessage,
    ClampChange,
    CommitLine,
    FilterCut,
    HistoryRecord,
    LlmCallLine,
    LlmRequestBody,
    PromptCache,
    SessionState,
    TurnInput,
    TurnInputLine,
    UndoLine,
    VariantLine,
)
from tavern.store import JournalWriter, Library, materialize_session, session_dir

T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
SCENARIO = "the-toll-house"
ALL = Audience(origin="public", perceivers=["C1", "C2", "C3"])


def at(ms: float) -> datetime:
    """`T0` plus `ms` milliseconds."""
    return T0 + timedelta(milliseconds=ms)


def prompt(*blocks: tuple[str, str, Stability]) -> list[ChatMessage]:
    """A prompt assembled by the kernel's own block layout."""
    return assemble([PromptBlock(title, body, stability) for title, body, stability in blocks])


def role_prompt(stage: str = "the hall", now: str = "Decide.") -> list[ChatMessage]:
    """A Director-like prompt whose `Stage` and `Now` blocks a test may vary."""
    return prompt(
        ("Your role", "You decide the world.", Stability.IDENTITY),
        ("Stage", stage, Stability.SLOW),
        ("Now", now, Stability.VOLATILE),
    )


class Planted:
    """Writes one session's journal and exports into a data dir."""

    def __init__(self, data_dir: Path, session_id: str = "sess-a") -> None:
        self.data_dir = data_dir
        self.session_id = session_id
        self.writer = JournalWriter(data_dir, durable=False)

    def write(self, line: Any) -> None:
        """Append any journal line as is."""
        self.writer.append(self.session_id, line)

    def call(
        self,
        turn: int,
        agent: str,
        *,
        end_ms: float,
        duration_ms: float = 10.0,
        messages: list[ChatMessage] | None = None,
        usage: dict[str, Any] | None = None,
        hit: int | None = None,
        miss: int | None = None,
        error_type: str | None = None,
        response: str | None = "{}",
        provider: str = "fake",
        model: str = "parrot",
        attempt: int = 1,
    ) -> LlmCallLine:
        """One attempt that ended at `end_ms` after `duration_ms`."""
        messages = messages or role_prompt()
        chars = sum(len(m.content) for m in messages)
        line = LlmCallLine(
            ts=at(end_ms),
            session_id=self.session_id,
            turn_number=turn,
            agent=agent,
            provider=provider,
            model=model,
            source="fake" if provider == "fake" else "live",
            request=LlmRequestBody(messages=messages),
            response=None if error_type else response,
            usage=usage,
            prompt_cache=PromptCache(hit_tokens=hit, miss_tokens=miss),
            error="failed" if error_type else None,
            error_type=error_type,
            duration_ms=duration_ms,
            attempt_number=attempt,
            prompt_chars=chars,
            prompt_estimated_tokens=-(-chars // 4),
        )
        self.write(line)
        return line

    def turn_input(self, turn: int, at_ms: float, **fields: Any) -> None:
        """The human's input line of `turn`."""
        fields = fields or {"speech": "Evening."}
        self.write(
            TurnInputLine(
                ts=at(at_ms), session_id=self.session_id, turn_number=turn,
                input=TurnInput(**fields),
            )
        )  # fmt: skip

    def commit(
        self,
        turn: int,
        at_ms: float,
        *,
        records: int = 3,
        clamps: list[ClampChange] | None = None,
        cuts: list[FilterCut] | None = None,
        recovered: bool = False,
    ) -> None:
        """The commit line of `turn` (`recovered`: appended by reconciling after a crash)."""
        self.write(
            CommitLine(
                ts=at(at_ms), session_id=self.session_id, turn_number=turn, revision=turn,
                record_count=records, tick=turn, control_returned=not recovered,
                clamp_changes=clamps or [], filter_cuts=cuts or [], recovered=recovered,
            )
        )  # fmt: skip

    def undo(self, turn: int, at_ms: float, *, recovered: bool = False) -> None:
        """An undo of `turn` (`recovered`: a commit the store did not hold, voided)."""
        self.write(
            UndoLine(
                ts=at(at_ms), session_id=self.session_id, turn_number=turn, revision=turn + 1,
                removed_turn=turn, removed_records=0 if recovered else 3, recovered=recovered,
            )
        )  # fmt: skip

    def variant(self, turn: int, at_ms: float, action: str, committed: int, aside: int) -> None:
        """A `variant` line: a rerun (its commit line follows) or a flip of `turn`."""
        self.write(
            VariantLine(
                ts=at(at_ms), session_id=self.session_id, turn_number=turn, revision=turn,
                action="rerun" if action == "rerun" else "flip", committed_variant=committed,
                set_aside_variant=aside, record_count=3,
            )
        )  # fmt: skip

    def state(self) -> SessionState:
        """The toll house's turn-0 state under this session id."""
        library = Library(self.data_dir)
        return materialize_session(library.get_scenario(SCENARIO), library, self.session_id)

    def export(
        self, records: list[HistoryRecord], state: SessionState | None = None
    ) -> SessionState:
        """Write the session's exports beside its journal."""
        state = state or self.state()
        write_exports(session_dir(self.data_dir, self.session_id), state, records)
        return state


def run_result(run_id: str, session_id: str, **fields: Any) -> Any:
    """A finished run's results line with plausible values (`fields` override them)."""
    from harness.records.results import RunResult

    values: dict[str, Any] = {
        "run_id": run_id, "campaign": "c", "arm": "a", "script": "whisper-secrecy",
        "script_sha256": "0" * 64, "language": "en", "scenario": SCENARIO,
        "controlled": "C1", "session_id": session_id,
        "journal": f"sessions/{session_id}/journal.jsonl", "target": "in_process",
        "provider": "fake", "model": "parrot", "config_sha256": "1" * 64,
        "started_at": T0, "ended_at": at(1000), "status": "completed", "turns_played": 2,
        "probes": 3, "probes_passed": 2, "calls": 4, "attempts": 4, "failed_attempts": 0,
        "model_ms": 40.0, "wall_ms": 1000.0, "harness_ms": 5.0,
    }  # fmt: skip
    values.update(fields)
    return RunResult(**values)


def probe_result(run_id: str, session_id: str, probe: str, passed: bool, **fields: Any) -> Any:
    """One probe's results line: one check, failing with label `leak` when not `passed`."""
    from harness.records.results import ProbeCheck, ProbeResult

    check = ProbeCheck(name="prompt", passed=passed, label=None if passed else "leak")
    values: dict[str, Any] = {
        "run_id": run_id, "session_id": session_id, "probe": probe,
        "probe_id": f"{probe}-1", "event_index": 1, "turn_number": 1, "passed": passed,
        "label": None if passed else "leak", "checks": [check],
    }  # fmt: skip
    values.update(fields)
    return ProbeResult(**values)


def write_results(path: Path, lines: list[Any]) -> None:
    """A results file holding `lines` in order."""
    path.write_text("".join(line.model_dump_json() + "\n" for line in lines), encoding="utf-8")
