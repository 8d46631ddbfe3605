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

A `[judge]` section (`JudgeSection`) has the blind pairwise judge read every run after the
campaign's runs; one arm must then be flagged `degraded = true`, a planted worse arm the
judge must rank last (`JudgeReport.degraded_last`).
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
    degraded: bool = False
    """A planted degraded arm (for example the Director shown no history): the campaign's
    judge must rank it last, or its verdicts are not evidence."""


class JudgeSection(Record):
    """The blind pairwise judge a campaign runs once every run has finished."""

    rubric: str = "story-quality"
    """A bundled rubric's name (`harness/rubrics/`), or a rubric file's path relative to
    the campaign file."""
    config: ConfigOverrides
    """The judge's provider and settings, as an arm's `config` (`provider` required)."""
    seed: int = 0
    """Seed of the blind export: the items' opaque ids and the pairs' order."""
    resamples: int = Field(default=2000, ge=10, le=100000)
    """Bootstrap resamples of the Bradley-Terry intervals."""

    @model_validator(mode="after")
    def _has_provider(self) -> JudgeSection:
        if self.config.provider is None:
            raise ValueError("judge.config.provider is required (the judge's provider)")
        return self


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
    judge: JudgeSection | None = None
    """The blind judge, run after the runs; None: no judging."""

    @model_validator(mode="after")
    def _consistent(self) -> Campaign:
        names = [arm.name for arm in self.arms]
        if len(set(names)) != len(names):
            raise ValueError(f"arm names must be unique: {names}")
        for field in ("control", "treatment"):
            arm = getattr(self.preregistration, field)
            if arm not in names:
                raise ValueError(f"preregistration.{field} {arm!r} is not an arm: {names}")
        degraded = [arm.name for arm in self.arms if arm.degraded]
        if self.judge is not None and len(degraded) != 1:
            raise ValueError(
                f"a judged campaign needs exactly one arm with degraded = true, got {degraded}"
            )
        if self.judge is None and degraded:
            raise ValueError(f"arm {degraded[0]!r} is degraded but no [judge] section ranks it")
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


class ArmStrength(Record):
    """An arm's Bradley-Terry strength from the judge's pair outcomes."""

    arm: str
    """Arm name."""
    strength: float
    """Log-strength (arms sum to zero)."""
    low: float | None
    """Bootstrap interval, low end (None when no resample had the arm)."""
    high: float | None
    """Bootstrap interval, high end."""
    rank: int
    """1 is the strongest; arms of equal strength share a rank."""
    games: int
    """Decided pair outcomes the arm took part in."""


class JudgeReport(Record):
    """`blind/report.json` of a judged campaign: the judge's validity and the ranking."""

    campaign: str
    """Campaign name."""
    judge: str
    """`provider/model` of the judge."""
    rubric: str
    """Rubric name and version."""
    items: int
    """Runs exported blind."""
    pairs: int
    """Pairs judged in both orders."""
    decided: int
    """Pairs both of whose answers chose an item."""
    flips: int
    """Decided pairs whose two answers chose the same position (so different items)."""
    flip_rate: float | None
    """flips / decided (None when nothing was decided)."""
    flagged: bool
    """Position-biased beyond `harness.judge.FLIP_LIMIT`: the winners are not evidence."""
    first_share: float | None
    """Share of item choices that went to the first position."""
    abstentions: int
    """Answers that never passed the schema."""
    degraded: str
    """The planted degraded arm."""
    degraded_last: bool
    """Whether the judge ranked the degraded arm strictly last (it must)."""
    ranking: list[ArmStrength]
    """Arms, strongest first."""
