"""A playtest script: a scenario, who the human plays, config overrides, and ordered events.

Events are a tagged union on `kind`. Play events drive the session (`turn`, `undo`,
`compact`, `restore`, `suggest`, `openings`); probe events measure it (`recall`,
`interview`, `routing`, `boundary`). The union is open: a new event is one record here,
one member of `ScriptEvent`, and one handler in `harness.run.HANDLERS`.

Example (JSON, as bundled under `harness/scripts/`)::

    {"schema_version": 1, "id": "whisper-secrecy", "title": "...", "scenario": "the-toll-house",
     "events": [
       {"kind": "turn", "speech": "The code is Quill7731.", "whisper_to": ["C2"],
        "force_speaker": "C2"},
       {"kind": "recall", "character": "C2", "require": ["Quill7731"], "levels": ["prompt"]},
       {"kind": "boundary", "canaries": ["Quill7731"]}]}
"""

from __future__ import annotations

import re
from typing import Annotated, Final, Literal

from pydantic import Discriminator, Field, field_validator, model_validator

from tavern.records import Record, TurnInput
from tavern.records.scenario import Language

SCRIPT_SCHEMA_VERSION: Final = 1
SLUG_PATTERN = r"^[a-z0-9][a-z0-9_-]{0,63}$"
"""Script, arm and campaign names: lowercase slugs, safe in run ids and file names."""

OptionValue = str | int | float | bool


class ConfigOverrides(Record):
    """Session-config overrides applied over the defaults (script, then arm, then command).

    Unset fields (None, empty) leave the value below them alone; `merged` layers two.
    """

    provider: str | None = None
    """Registry name of the provider (`fake`, `local`, `llama_cpp`, `deepseek`, `replay`)."""
    model: str | None = None
    """Model name sent to the provider and written to the journal."""
    api_base: str | None = None
    """Endpoint of a llama.cpp-compatible server."""
    temperature: float | None = Field(default=None, ge=0, le=2)
    """Sampling temperature."""
    seed: int | None = None
    """Sampling seed (a campaign sets it per repeat)."""
    max_tokens: dict[str, int] = Field(default_factory=dict)
    """Output token limit per agent role (`director`, `prose`, `character`, `default`)."""
    max_attempts: int | None = Field(default=None, ge=1, le=10)
    """Attempts per model call, the first included."""
    timeout_s: float | None = Field(default=None, gt=0)
    """Per-attempt timeout in seconds."""
    options: dict[str, OptionValue] = Field(default_factory=dict)
    """Provider-specific options (fake: `mode`)."""
    context_tokens: int | None = Field(default=None, ge=512)
    """The model's context per request: prompts are fitted to it (`KernelLimits`)."""
    director_history_tokens: int | None = Field(default=None, ge=0)
    """Token budget of the Director's history window."""
    prose_transcript_tokens: int | None = Field(default=None, ge=0)
    """Token budget of the prose renderer's transcript."""
    character_memory_tokens: int | None = Field(default=None, ge=0)
    """Token budget of a Character's memory lines."""

    def merged(self, over: ConfigOverrides) -> ConfigOverrides:
        """These overrides with `over`'s set fields on top (mappings are merged by key).

        >>> ConfigOverrides(seed=1, options={"mode": "parrot"}).merged(
        ...     ConfigOverrides(seed=2, options={"x": 1})).model_dump(exclude_defaults=True)
        {'seed': 2, 'options': {'mode': 'parrot', 'x': 1}}
        """
        data = self.model_dump()
        for key, value in over.model_dump().items():
            if isinstance(value, dict):
                data[key] = {**data[key], **value}
            elif value is not None:
                data[key] = value
        return ConfigOverrides.model_validate(data)


class _Event(Record):
    note: str = ""
    """Free text for the reader of the script; never sent anywhere."""


class TurnEvent(_Event):
    """One human turn (the fields of `TurnInput`), played `repeat` times in a row."""

    kind: Literal["turn"] = "turn"
    speech: str | None = Field(default=None, max_length=4000)
    """Words the controlled character says."""
    thought: str | None = Field(default=None, max_length=4000)
    """A private thought (the Director reads it; no character does)."""
    action: str | None = Field(default=None, max_length=4000)
    """A physical attempt."""
    whisper_to: list[str] = Field(default_factory=list, max_length=8)
    """Slot ids the speech is whispered to."""
    force_speaker: str | None = None
    """Collapse the speaker queue to this slot (or `Narrator`)."""
    hint: str | None = Field(default=None, max_length=2000)
    """A direction for the Director."""
    skip: bool = False
    """Let the world move without the controlled character acting."""
    repeat: int = Field(default=1, ge=1, le=500)
    """How many times this turn is played in a row (an idle scene, a long session)."""

    def to_input(self) -> TurnInput:
        """The kernel's input record for this turn."""
        return TurnInput.model_validate(
            self.model_dump(include=set(TurnInput.model_fields), exclude_none=True)
        )

    @model_validator(mode="after")
    def _valid_input(self) -> TurnEvent:
        self.to_input()  # an empty turn or a whisper without speech fails here, at load
        return self


class UndoEvent(_Event):
    """Undo the last `count` committed turns."""

    kind: Literal["undo"] = "undo"
    count: int = Field(default=1, ge=1, le=100)
    """Turns to undo, one at a time."""


class CompactEvent(_Event):
    """Fold the history older than a retention window into the story summary (the kernel's
    compaction); the run checks the compaction invariant after it."""

    kind: Literal["compact"] = "compact"
    retention_turns: int | None = Field(default=None, ge=1, le=10_000)
    """Distinct turns kept live (the session's setting when unset)."""


class RestoreEvent(_Event):
    """Undo the last compaction from its checkpoint (last in, first out)."""

    kind: Literal["restore"] = "restore"


class SuggestEvent(_Event):
    """Ask for three candidate moves for the controlled character (nothing is persisted)."""

    kind: Literal["suggest"] = "suggest"


class OpeningsEvent(_Event):
    """Ask for three opening sparks of the session."""

    kind: Literal["openings"] = "openings"


ProbeLevel = Literal["prompt", "reply"]
BOTH_LEVELS: tuple[ProbeLevel, ...] = ("prompt", "reply")


class _Probe(_Event):
    id: str | None = Field(default=None, pattern=SLUG_PATTERN)
    """Name of the probe in the results (default `<kind>-<event index>`)."""


class _PatternProbe(_Probe):
    require: list[str] = Field(default_factory=list)
    """Regular expressions (case-insensitive) that must each match."""
    forbid: list[str] = Field(default_factory=list)
    """Regular expressions (case-insensitive) that must not match."""
    levels: list[ProbeLevel] = Field(default_factory=lambda: [*BOTH_LEVELS], min_length=1)
    """Where the patterns are checked: the character's prompt, its reply, or both."""

    @field_validator("require", "forbid")
    @classmethod
    def _compiles(cls, patterns: list[str]) -> list[str]:
        for pattern in patterns:
            try:
                re.compile(pattern)
            except re.error as exc:
                message = f"pattern {pattern!r} is not a regular expression: {exc}"
                raise ValueError(message) from None
        return patterns

    @model_validator(mode="after")
    def _something_to_check(self) -> _PatternProbe:
        if not self.require and not self.forbid:
            raise ValueError("a probe needs at least one `require` or `forbid` pattern")
        return self


class RecallProbe(_PatternProbe):
    """Did a fact reach a character's prompt in the last turn, and did its reply say it?

    Reads that turn's journaled `character:<slot>` call; a turn without one fails with the
    label `no_character_call`.
    """

    kind: Literal["recall"] = "recall"
    character: str
    """Slot id (`C2`) or library character id of the character asked."""


class InterviewProbe(_PatternProbe):
    """Ask a character a question out of band: journaled as `interview:<slot>`, never
    committed, never remembered (the probe also checks that the session did not change)."""

    kind: Literal["interview"] = "interview"
    character: str
    """Slot id or library character id of the character interviewed."""
    question: str = Field(min_length=1, max_length=2000)
    """What the character is asked."""


class RoutingProbe(_Probe):
    """After the last turn (a natural one, no forced speaker), one of `expect` answered.

    Failure labels: `routed_elsewhere` (other characters were called), `no_character_call`.
    """

    kind: Literal["routing"] = "routing"
    expect: list[str] = Field(min_length=1)
    """Slot ids or library character ids, any of whom may answer."""


class BoundaryProbe(_Probe):
    """Canaries planted in the script's whispers, thoughts or speech never reach a prompt
    outside their audience (computed by `tavern.physics.perception`)."""

    kind: Literal["boundary"] = "boundary"
    canaries: list[str] = Field(min_length=1)
    """Literal tokens, each planted by an earlier turn event of the script."""


ScriptEvent = Annotated[
    TurnEvent
    | UndoEvent
    | CompactEvent
    | RestoreEvent
    | SuggestEvent
    | OpeningsEvent
    | RecallProbe
    | InterviewProbe
    | RoutingProbe
    | BoundaryProbe,
    Discriminator("kind"),
]
PROBE_KINDS = ("recall", "interview", "routing", "boundary")


class Script(Record):
    """A scripted session: what to play, in which scenario and language, and what to check."""

    schema_version: Literal[1] = SCRIPT_SCHEMA_VERSION
    """Script format version."""
    id: str = Field(pattern=SLUG_PATTERN)
    """Script name; bundled scripts are found by it."""
    title: str = Field(min_length=1)
    """One line saying what the script shows."""
    description: str = ""
    """What it covers and why."""
    language: Language = "en"
    """The language of the script's text; every model is asked to answer in it."""
    scenario: str = Field(pattern=SLUG_PATTERN)
    """Scenario id in the library."""
    controlled: str | None = None
    """Slot id or library character id the human plays (the scenario's default if unset)."""
    config: ConfigOverrides = Field(default_factory=ConfigOverrides)
    """Session-config overrides (a campaign arm and the command line go on top)."""
    events: list[ScriptEvent] = Field(min_length=1)
    """What happens, in order."""
    tags: list[str] = Field(default_factory=list)
    """Free labels (`whisper`, `zones`, `long`, ...)."""

    @model_validator(mode="after")
    def _probes_have_turns(self) -> Script:
        last_turn: TurnEvent | None = None
        for index, event in enumerate(self.events):
            where = f"events[{index}] ({event.kind})"
            if isinstance(event, RecallProbe | RoutingProbe) and last_turn is None:
                raise ValueError(f"{where}: needs an earlier turn event to read")
            if isinstance(event, RoutingProbe) and last_turn is not None:
                if last_turn.force_speaker is not None:
                    raise ValueError(
                        f"{where}: follows a turn with force_speaker; routing is measured "
                        "after a natural turn"
                    )
            if isinstance(event, TurnEvent):
                last_turn = event
        return self

    def turn_count(self) -> int:
        """Turns the script plays (repeats counted, undos not subtracted)."""
        return sum(e.repeat for e in self.events if isinstance(e, TurnEvent))
