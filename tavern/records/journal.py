"""Journal lines: one JSONL line per LLM attempt or state marker, tagged by `kind`.

Field names follow DESIGN.md. Every line carries `schema_version`; a reader refuses lines
from another version with a clear error.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import AwareDatetime, Discriminator, Field, TypeAdapter

from tavern.records._base import Record
from tavern.records.decisions import ClampChange, FilterCut
from tavern.records.turn import TurnInput

JOURNAL_SCHEMA_VERSION = 1


class ChatMessage(Record):
    """One chat message sent to a model."""

    role: Literal["system", "user", "assistant"]
    """Message role."""
    content: str
    """Message text."""


class LlmRequestBody(Record):
    """The provider-neutral request as it was sent (credentials never included)."""

    messages: list[ChatMessage]
    """Chat messages, after the call-time language and punctuation policy."""
    max_tokens: int | None = None
    """Output token limit."""
    response_format: dict[str, Any] | None = None
    """Response format as sent to the provider."""
    temperature: float | None = None
    """Sampling temperature."""
    seed: int | None = None
    """Sampling seed, where supported."""
    provider_options: dict[str, Any] = Field(default_factory=dict)
    """Non-secret transport options (api base host, forced settings)."""


class PromptCache(Record):
    """Normalized prompt-cache evidence. None means the provider reported nothing."""

    hit_tokens: int | None = None
    """Prompt tokens served from the provider's cache."""
    miss_tokens: int | None = None
    """Prompt tokens evaluated afresh."""


class _LineBase(Record):
    schema_version: int = JOURNAL_SCHEMA_VERSION
    """Journal format version."""
    ts: AwareDatetime
    """When the line was written, UTC."""
    session_id: str
    """Session the line belongs to (or a probe/run id outside sessions)."""
    turn_number: int = Field(ge=0)
    """Turn the line belongs to."""


class LlmCallLine(_LineBase):
    """One LLM attempt, successful or not."""

    kind: Literal["llm_call"] = "llm_call"
    agent: str
    """Calling role, e.g. `director`, `prose`, `character:C2`, `suggest`."""
    provider: str
    """Provider name, e.g. `llama_cpp`, `deepseek`, `fake`, `replay`."""
    model: str
    """Model name as configured."""
    source: Literal["live", "replay", "fake"] = "live"
    """Where the answer came from."""
    request: LlmRequestBody
    """The request as sent."""
    response: str | None = None
    """Raw response content, or None when the attempt failed before one arrived."""
    usage: dict[str, Any] | None = None
    """Raw provider usage object."""
    prompt_cache: PromptCache = Field(default_factory=PromptCache)
    """Normalized cache counters."""
    stopped_early: bool = False
    """The caller ended the answer while it streamed (a runaway loop): `response` is the
    answer so far, closed into JSON. Lines written before this field read as False."""
    error: str | None = None
    """Error message of a failed attempt."""
    error_type: str | None = None
    """Error class: `http_4xx`, `http_5xx`, `timeout`, `parse`, `schema`, `transport`."""
    duration_ms: float = Field(ge=0)
    """Wall time of the attempt."""
    attempt_number: int = Field(ge=1)
    """1 for the first attempt of a call, then 2, 3, ... for retries."""
    prompt_chars: int = Field(ge=0)
    """Characters across all request messages."""
    prompt_estimated_tokens: int = Field(ge=0)
    """Estimated prompt tokens (characters / 4, rounded up)."""


class TurnInputLine(_LineBase):
    """The raw human input, journaled before any model call."""

    kind: Literal["turn_input"] = "turn_input"
    input: TurnInput
    """The raw input."""


class TurnInputEffectiveLine(_LineBase):
    """The input after input filters."""

    kind: Literal["turn_input_effective"] = "turn_input_effective"
    input: TurnInput
    """The effective input."""
    effective_force_speaker: str | None = None
    """Force speaker after normalization."""
    transformed_fields: list[str] = Field(default_factory=list)
    """Fields the filters changed."""


class MemoryRevision(Record):
    """One ledger's memory revision in a turn: its oldest lines folded into its summary by a
    model call (`runner.memory`), or why they were not."""

    owner: str
    """Slot id of the ledger's owner."""
    outcome: Literal["revised", "refused", "failed", "evicted"]
    """`revised`: the summary replaced and the folded lines dropped; `refused`: the answer
    broke a check, lines and summary unchanged; `failed`: the call failed or timed out,
    lines and summary unchanged; `evicted`: after a refusal or a failure the lines stood
    past their ceiling and the oldest were dropped unsummarized."""
    reason: (
        Literal[
            "unlearned_name", "dropped_code", "unperceived", "empty", "model", "timeout", "contract"
        ]
        | None
    ) = None
    """Why a revision was refused or failed; None when revised."""
    detail: list[str] = Field(default_factory=list)
    """What broke the check (the names, codes or words), or the error's message."""
    folded_lines: int
    """Memory lines the call was asked to fold (`evicted`: the lines dropped)."""
    summary_chars: int
    """Length of the owner's summary after the turn."""


class CommitLine(_LineBase):
    """A turn committed atomically."""

    kind: Literal["commit"] = "commit"
    revision: int
    """Session revision after the commit."""
    record_count: int
    """History records the turn added."""
    tick: int
    """Clock tick after the commit."""
    control_returned: bool
    """Whether the speaker queue reached the controlled character."""
    clamp_changes: list[ClampChange] = Field(default_factory=list)
    """What the clamps changed in the Director's proposal."""
    filter_cuts: list[FilterCut] = Field(default_factory=list)
    """What the filter rules changed in the turn's narration and replies."""
    recovered: bool = False
    """Appended when the session was opened again: the store held this committed turn and
    the journal had no commit line for it (the process ended between the two). Revision,
    tick and record count come from the store; the clamp changes and filter cuts are lost
    and `control_returned` is unknown (False)."""
    filter_profile: str | None = None
    """The filter profile the turn's texts were repaired under (`small_local`, `minimal`,
    `off`); None on lines written before profiles existed."""
    filter_skipped: list[str] = Field(default_factory=list)
    """Rules of that profile skipped because they do not read the session's language."""
    memory_revisions: list[MemoryRevision] = Field(default_factory=list)
    """Every ledger memory revision of the turn, in cast order."""
    quiet: bool = False
    """A legal silence: the admitted decision said nothing material happens and held no
    event, so no narration was asked; the turn holds a `quiet` kernel marker instead."""


class UndoLine(_LineBase):
    """A turn undone."""

    kind: Literal["undo"] = "undo"
    revision: int
    """Session revision after the undo."""
    removed_turn: int
    """Turn number removed."""
    removed_records: int
    """How many history records were removed."""
    recovered: bool = False
    """Appended when the session was opened again: the journal marked this turn committed
    and the store does not hold it (a commit the store never made, or an undo whose line
    was lost with the process); `removed_records` is 0."""


class VariantLine(_LineBase):
    """The last turn's committed variant changed: a rerun set the old one aside (its commit
    line follows), or a flip swapped a set-aside one back in."""

    kind: Literal["variant"] = "variant"
    revision: int
    """Session revision after the change."""
    action: Literal["rerun", "flip"]
    """What changed it."""
    committed_variant: int
    """Number of the variant now committed."""
    set_aside_variant: int
    """Number of the variant set aside."""
    record_count: int
    """History records of the committed variant."""


class CompactLine(_LineBase):
    """Old history folded into the story summary, in one store transaction."""

    kind: Literal["compact"] = "compact"
    revision: int
    """Session revision after the compaction."""
    checkpoint_id: str
    """Checkpoint holding the evicted records and the summary they replaced."""
    parent_id: str | None = None
    """The checkpoint before it (None for the session's first)."""
    cutoff_turn: int
    """Turns at or below this number were evicted."""
    evicted_records: int
    """How many records were evicted."""
    evicted_turns: int = 0
    """How many distinct turns those records belonged to."""
    kept_turns: int = 0
    """Distinct turns left live in the history (the retention window)."""
    summary_chars: int = 0
    """Length of the new story summary."""
    trigger: Literal["manual", "auto"] = "manual"
    """What started the compaction: a request, or the automatic threshold."""
    prompt_tokens: int | None = None
    """Automatic only: size of the upcoming Director prompt that passed the threshold."""
    token_count: Literal["tokenizer", "estimate"] | None = None
    """Automatic only: `tokenizer` when `prompt_tokens` is the provider's own count (e.g.
    llama.cpp `/tokenize`), `estimate` when the provider has no tokenizer endpoint."""
    context_tokens: int | None = None
    """Automatic only: the model context the threshold is a share of."""
    recovered: bool = False
    """Appended when the session was opened again: the store held this compaction and the
    journal had no line for it (the process ended between the two); the counts but
    `evicted_records` are unknown (0) and the trigger reads `manual`."""


class RestoreLine(_LineBase):
    """A compaction undone from its checkpoint (last in, first out)."""

    kind: Literal["restore"] = "restore"
    revision: int
    """Session revision after the restore."""
    checkpoint_id: str
    """Checkpoint restored."""
    cutoff_turn: int = 0
    """The restored compaction's cutoff turn."""
    restored_records: int
    """How many records came back."""
    recovered: bool = False
    """Appended when the session was opened again: the journal marked this compaction and
    the store no longer holds it (a restore whose line was lost); `restored_records` is
    0."""


JournalLine = Annotated[
    LlmCallLine
    | TurnInputLine
    | TurnInputEffectiveLine
    | CommitLine
    | UndoLine
    | VariantLine
    | CompactLine
    | RestoreLine,
    Discriminator("kind"),
]
JOURNAL_LINE_ADAPTER: TypeAdapter[JournalLine] = TypeAdapter(JournalLine)


class JournalFormatError(ValueError):
    """A complete journal line that cannot be read: not JSON, another version, or no known kind."""


def parse_journal_line(raw: str | bytes, where: str) -> JournalLine:
    """Parse one complete JSONL line; the one parser every journal reader uses.

    Args:
        raw: The line, without its newline.
        where: Location for error messages, e.g. `path:12`.

    Raises:
        JournalFormatError: naming `where`, and both versions when they differ.

    Example:
        >>> try:
        ...     parse_journal_line('{"kind": "undo", "schema_version": 0}', "j:1")
        ... except JournalFormatError as exc:
        ...     print(exc)
        j:1: journal line has schema_version 0, this Tavern reads schema_version 1
    """
    try:
        data = json.loads(raw)
    except ValueError as exc:
        raise JournalFormatError(f"{where}: not JSON ({exc})") from None
    found = data.get("schema_version") if isinstance(data, dict) else None
    if found != JOURNAL_SCHEMA_VERSION:
        raise JournalFormatError(
            f"{where}: journal line has schema_version {found}, this Tavern reads "
            f"schema_version {JOURNAL_SCHEMA_VERSION}"
        )
    try:
        return JOURNAL_LINE_ADAPTER.validate_python(data)
    except ValueError as exc:
        raise JournalFormatError(f"{where}: invalid journal line: {exc}") from None


def estimate_tokens(chars: int) -> int:
    """Estimate tokens from characters the way every reader of the journal does.

    >>> estimate_tokens(10)
    3
    """
    return -(-chars // 4)
