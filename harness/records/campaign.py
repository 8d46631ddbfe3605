"""Campaigns: arms x scripts x repeats, decided before the run; and the manifest of a run.

A campaign file (`experiments/NAME.toml`) is a `Campaign`. Its pre-registration (metrics and
decision rule) is stored here and copied into the manifest; the analysis applies it.

Example (TOML)::

    scripts = ["whisper-secrecy", "routing-by-address"]
    repeats = 3
    concurrency = 4

    [[arms]]
    name = "parrot"
    config = { provider = "fake", options = { mode = "parrot" } }

    [[arms]]
    name = "adversary"
    config = { provider = "fake", options = { mode = "adversary" } }

    [preregistration]
    metrics = ["probe_pass_rate"]
    primary_metric = "probe_pass_rate"
    control = "parrot"
    treatment = "adversary"
    better = "higher"
    decision_rule = "adversary wins if the 95% interval of the difference excludes 0"
"""

from __future__ import annotations

from typing import Any, Final, Literal

from pydantic import AwareDatetime, Field, model_validator

from harness.records.script import SLUG_PATTERN, ConfigOverrides
from tavern.records import Record

CAMPAIGN_SCHEMA_VERSION: Final = 1
MANIFEST_SCHEMA_VERSION: Final = 1


class Arm(Record):
    """One configuration under comparison."""

    name: str = Field(pattern=SLUG_PATTERN)
    """Arm name, unique in the campaign."""
    description: str = ""
    """What the arm changes."""
    config: ConfigOverrides = Field(default_factory=ConfigOverrides)
    """Overrides on top of the campaign's `defaults` and each script's own."""


class Preregistration(Record):
    """The metrics and the decision rule, fixed before the campaign runs."""

    metrics: list[str] = Field(min_length=1)
    """Metric names the analysis computes per arm."""
    primary_metric: str
    """The metric the decision is taken on (one of `metrics`)."""
    control: str
    """Arm name of the baseline."""
    treatment: str
    """Arm name compared against it."""
    better: Literal["higher", "lower"]
    """Which direction of the primary metric is an improvement."""
    confidence: float = Field(default=0.95, gt=0.5, lt=1)
    """Confidence level of the interval the rule reads."""
    min_effect: float = Field(default=0.0, ge=0)
    """Smallest difference that counts, besides the interval excluding zero."""
    decision_rule: str = Field(min_length=1)
    """The rule in words, as written before the run."""

    @model_validator(mode="after")
    def _primary_is_listed(self) -> Preregistration:
        if self.primary_metric not in self.metrics:
            raise ValueError(f"primary_metric {self.primary_metric!r} is not in metrics")
        if self.control == self.treatment:
            raise ValueError("control and treatment must be different arms")
        return self


class Campaign(Record):
    """A campaign file: what to run, how often, how wide, and how it will be judged."""

    schema_version: Literal[1] = CAMPAIGN_SCHEMA_VERSION
    """Campaign format version."""
    name: str | None = Field(default=None, pattern=SLUG_PATTERN)
    """Campaign name (default: the file's stem)."""
    description: str = ""
    """The question the campaign answers."""
    scripts: list[str] = Field(min_length=1)
    """Bundled script ids, or paths relative to the campaign file."""
    arms: list[Arm] = Field(min_length=1)
    """Configurations under comparison."""
    repeats: int = Field(default=1, ge=1, le=10000)
    """Runs per (arm, script) cell."""
    seeds: list[int] = Field(default_factory=list)
    """Sampling seed of each repeat (default: the repeat index); as long as `repeats`."""
    concurrency: int = Field(default=1, ge=1, le=64)
    """Runs in flight at once."""
    executor: Literal["local", "dask"] = "local"
    """`local`: asyncio in this process; `dask`: cells as tasks on a Dask cluster."""
    scheduler: str | None = None
    """Dask scheduler address (`tcp://host:8786`); None starts a local cluster."""
    defaults: ConfigOverrides = Field(default_factory=ConfigOverrides)
    """Overrides every arm starts from."""
    preregistration: Preregistration
    """Metrics and decision rule, fixed before the run."""

    @model_validator(mode="after")
    def _consistent(self) -> Campaign:
        names = [arm.name for arm in self.arms]
        if len(set(names)) != len(names):
            raise ValueError(f"arm names must be unique: {names}")
        for field in ("control", "treatment"):
            arm = getattr(self.preregistration, field)
            if arm not in names:
                raise ValueError(f"preregistration.{field} {arm!r} is not an arm: {names}")
        if self.seeds and len(self.seeds) != self.repeats:
            raise ValueError(f"seeds has {len(self.seeds)} entries for {self.repeats} repeats")
        return self

    def seed_of(self, repeat: int) -> int:
        """The sampling seed of a repeat."""
        return self.seeds[repeat] if self.seeds else repeat


class Fingerprint(Record):
    """What makes two runs comparable: the code, the interpreter and the libraries."""

    git_commit: str | None = None
    """Commit of the checkout the harness ran from (None outside a git checkout)."""
    git_dirty: bool | None = None
    """Whether tracked files differed from that commit."""
    kernel_sha256: str
    """Hash of the kernel's sources (`tavern/**/*.py` and the built-in scenarios)."""
    harness_sha256: str
    """Hash of the harness's sources and bundled scripts."""
    python: str
    """Python version."""
    packages: dict[str, str] = Field(default_factory=dict)
    """Versions of the libraries the kernel and harness run on."""


class ArmManifest(Record):
    """An arm as it resolved for this campaign."""

    name: str
    """Arm name."""
    provider: str
    """Provider."""
    model: str
    """Model name."""
    model_sha256: str | None = None
    """SHA-256 of the local GGUF model file, when the provider runs one."""
    config: dict[str, Any]
    """Resolved provider settings (no secrets) and kernel limits, seed excluded."""
    config_sha256: str
    """Hash of `config`."""


class ManifestSegment(Record):
    """One invocation that ran cells: `campaign run` or one `campaign resume`."""

    command: Literal["run", "resume"]
    """What started it."""
    started_at: AwareDatetime
    """Start, UTC."""
    ended_at: AwareDatetime | None = None
    """End, UTC; None when the process was killed or is still running."""
    interrupted: bool = False
    """Ended by Ctrl+C before every cell ran."""
    fingerprint: Fingerprint
    """The code it ran."""
    runs_finished: int = Field(default=0, ge=0)
    """Runs it finished."""


class Manifest(Record):
    """`manifest.json` of a campaign directory: what was planned and what ran it."""

    schema_version: Literal[1] = MANIFEST_SCHEMA_VERSION
    """Manifest format version."""
    campaign: str
    """Campaign name."""
    campaign_file: str
    """Path of the campaign file, as given."""
    campaign_sha256: str
    """Hash of the campaign file's text."""
    definition: Campaign
    """The campaign as loaded (its pre-registration included)."""
    scripts: dict[str, str]
    """Script id -> its `script_sha256`."""
    arms: list[ArmManifest]
    """Each arm, resolved."""
    run_ids: list[str]
    """Every planned run, in plan order."""
    created_at: AwareDatetime
    """When the campaign first ran, UTC."""
    segments: list[ManifestSegment] = Field(default_factory=list)
    """Every invocation, in order; the first one's fingerprint is the campaign's."""
