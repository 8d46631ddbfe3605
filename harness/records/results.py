"""What a run writes: typed JSONL lines, a tagged union on `kind`.

A results file holds, for each finished run, its `ProbeResult` lines followed by its one
`RunResult` line, written together: a run whose `RunResult` line is missing did not finish
(`harness.results` drops its lines and a campaign redoes it). The analysis views join
`ProbeResult.run_id` to `RunResult.run_id`, and `RunResult.session_id` to the journals.

Example line::

    {"kind": "probe", "schema_version": 1, "run_id": "a__whisper-secrecy__r0",
     "probe": "recall", "probe_id": "recall-1", "passed": true, ...}
"""

from __future__ import annotations

from typing import Annotated, Any, Final, Literal

from pydantic import AwareDatetime, Discriminator, Field, TypeAdapter

from tavern.records import HistoryRecord, Record, SessionState
from tavern.records.scenario import Language
from tavern.records.views import SessionView

RESULTS_SCHEMA_VERSION: Final = 1

ProbeKind = Literal["recall", "interview", "routing", "boundary", "invariants"]
TargetKind = Literal["in_process", "http"]


class ProbeCheck(Record):
    """One verdict inside a probe: a level of a recall, one invariant, one canary."""

    name: str
    """What was checked: `prompt`, `reply`, `state_unchanged`, `clock`, `names`, `contract`,
    `journal`, `atomic`, `routing`, or `canary:<token>`."""
    passed: bool
    """Whether it held."""
    label: str | None = None
    """Why it failed, as a stable label (`missing_in_prompt`, `forbidden_in_reply`,
    `no_character_call`, `routed_elsewhere`, `leak`, `clock_backwards`, `unlearned_name`,
    `operator_vocabulary`, `journal_disagrees`, `state_changed`, ...); None when it held."""
    detail: str = ""
    """Evidence for a reader: the pattern, the agents, an excerpt around a hit."""


class ProbeResult(Record):
    """The outcome of one probe event, or of the invariants after one turn or undo."""

    kind: Literal["probe"] = "probe"
    schema_version: Literal[1] = RESULTS_SCHEMA_VERSION
    """Results format version."""
    run_id: str
    """The run this probe belongs to (`RunResult.run_id`)."""
    session_id: str
    """The kernel session the probe read."""
    probe: ProbeKind
    """Probe kind; `invariants` are checked by the harness after every turn and undo."""
    probe_id: str
    """The script's id for the probe, or `<kind>-<event index>`; `invariants-<turn>`."""
    event_index: int = Field(ge=0)
    """Position of the script event that produced it (the turn or undo, for invariants)."""
    turn_number: int = Field(ge=0)
    """The turn the probe read (the session's last committed turn for an interview)."""
    character: str | None = None
    """Slot id of the character probed, if any."""
    passed: bool
    """True when every check held."""
    label: str | None = None
    """The first failing check's label; None when the probe passed."""
    checks: list[ProbeCheck] = Field(default_factory=list)
    """Each verdict."""


class RunResult(Record):
    """One script played once: its identity, config, outcome and cost."""

    kind: Literal["run"] = "run"
    schema_version: Literal[1] = RESULTS_SCHEMA_VERSION
    """Results format version."""
    run_id: str
    """Unique in its results file; a campaign's is `<arm>__<script>__r<repeat>`."""
    campaign: str | None = None
    """Campaign name, for runs of a campaign."""
    arm: str | None = None
    """Campaign arm."""
    script: str
    """Script id."""
    script_sha256: str
    """Hash of the script's canonical JSON: two runs played the same script when equal."""
    repeat: int = Field(default=0, ge=0)
    """Repeat index within the campaign cell."""
    seed: int | None = None
    """Sampling seed the run's provider used (None: the provider's default)."""
    language: Language
    """The script's language."""
    scenario: str
    """Scenario id."""
    controlled: str
    """Slot the human played."""
    session_id: str
    """Kernel session of the run; its journal is `journal`."""
    journal: str
    """Path of the session's journal, relative to the results file's folder."""
    target: TargetKind
    """Whether the kernel ran in this process or behind `tavern serve`."""
    provider: str
    """Provider every call went to."""
    model: str
    """Model name as configured."""
    config_sha256: str
    """Hash of the resolved config (provider settings without secrets, kernel limits)."""
    started_at: AwareDatetime
    """When the run started, UTC."""
    ended_at: AwareDatetime
    """When it ended, UTC."""
    status: Literal["completed", "error"]
    """`error`: the run stopped early (the kernel refused an input, a target failed)."""
    error: str | None = None
    """What stopped it."""
    turns_played: int = Field(ge=0)
    """Turns submitted."""
    turns_failed: list[int] = Field(default_factory=list)
    """Turn numbers whose turn failed (a model failure: nothing was committed)."""
    undos: int = Field(default=0, ge=0)
    """Undos performed."""
    probes: int = Field(ge=0)
    """Probe results written (invariants included)."""
    probes_passed: int = Field(ge=0)
    """... of which passed."""
    invariant_failures: int = Field(default=0, ge=0)
    """Invariants results that failed."""
    calls: int = Field(ge=0)
    """Model calls (first attempts) in the session's journal."""
    attempts: int = Field(ge=0)
    """Model attempts, retries included."""
    failed_attempts: int = Field(ge=0)
    """Attempts that failed (contract refusals included)."""
    prompt_tokens: int | None = None
    """Prompt tokens the provider reported, summed; None when it reported none."""
    completion_tokens: int | None = None
    """Completion tokens the provider reported, summed; None when it reported none."""
    model_ms: float = Field(ge=0)
    """Summed duration of every attempt."""
    wall_ms: float = Field(ge=0)
    """Wall time of the run."""
    harness_ms: float = Field(ge=0)
    """Wall time spent in the harness itself (probes, reading evidence), not in the kernel."""


class SessionSnapshot(Record):
    """`final.json` beside a run's journal: the session as the run left it, for replay.

    `state` is the stored state when the kernel ran in this process; over HTTP only the
    human's view and the history can be read.
    """

    session_id: str
    """Session id."""
    view: SessionView
    """The human's view at the end of the run."""
    state: SessionState | None = None
    """The whole stored state (ledgers, memory, clock), when available."""
    history: list[HistoryRecord]
    """Every history record, with its audience."""
    config: dict[str, Any] | None = None
    """The run's resolved config in its public form (provider settings, language, kernel
    limits): replay rebuilds the same prompts from it."""


ResultLine = Annotated[ProbeResult | RunResult, Discriminator("kind")]
RESULT_LINE_ADAPTER: TypeAdapter[ResultLine] = TypeAdapter(ResultLine)
