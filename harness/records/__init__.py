"""Harness-owned records. They join `data_schemas/` through the `tavern.schemas` entry point.

`script.py`: a playtest script and its events; `results.py`: the lines a run writes;
`campaign.py`: campaign files and their manifests; `canon.py`: canon ledgers and the reports
of their evaluation.
"""

from __future__ import annotations

from typing import Any

from harness.records.campaign import (
    Arm,
    ArmManifest,
    ArmStrength,
    Campaign,
    Fingerprint,
    JudgeReport,
    JudgeSection,
    Manifest,
    ManifestSegment,
    Preregistration,
)
from harness.records.canon import (
    FAMILIES,
    CallBound,
    CanonFinding,
    CanonLedger,
    CanonReport,
    CanonRule,
    RecallCheck,
    ViolationFamily,
)
from harness.records.results import (
    RESULT_LINE_ADAPTER,
    ProbeCheck,
    ProbeResult,
    ResultLine,
    RunResult,
    SessionSnapshot,
)
from harness.records.script import (
    BoundaryProbe,
    ConfigOverrides,
    InterviewProbe,
    OpeningsEvent,
    RecallProbe,
    RoutingProbe,
    Script,
    ScriptEvent,
    SuggestEvent,
    TurnEvent,
    UndoEvent,
)

SCHEMAS: dict[str, Any] = {
    "harness_script": Script,
    "harness_result_line": RESULT_LINE_ADAPTER,
    "harness_campaign": Campaign,
    "harness_manifest": Manifest,
    "harness_session_snapshot": SessionSnapshot,
    "harness_judge_report": JudgeReport,
    "harness_canon_ledger": CanonLedger,
    "harness_canon_report": CanonReport,
}
"""Schema name -> pydantic model or TypeAdapter, exported by `tavern schemas export`."""

__all__ = [
    "FAMILIES",
    "RESULT_LINE_ADAPTER",
    "SCHEMAS",
    "Arm",
    "ArmManifest",
    "ArmStrength",
    "BoundaryProbe",
    "CallBound",
    "Campaign",
    "CanonFinding",
    "CanonLedger",
    "CanonReport",
    "CanonRule",
    "ConfigOverrides",
    "Fingerprint",
    "InterviewProbe",
    "JudgeReport",
    "JudgeSection",
    "Manifest",
    "ManifestSegment",
    "OpeningsEvent",
    "Preregistration",
    "ProbeCheck",
    "ProbeResult",
    "RecallCheck",
    "RecallProbe",
    "ResultLine",
    "RoutingProbe",
    "RunResult",
    "Script",
    "ScriptEvent",
    "SessionSnapshot",
    "SuggestEvent",
    "TurnEvent",
    "UndoEvent",
    "ViolationFamily",
]
