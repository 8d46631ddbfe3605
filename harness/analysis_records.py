"""Records the analysis writes: a session's export beside its journal, and the blind judge's
files. They join `data_schemas/` through the `tavern.schemas` entry point (`analysis`).
"""

from __future__ import annotations

from datetime import date
from typing import Any, Literal

from pydantic import AwareDatetime, Field

from tavern.records import Record


class CastEntry(Record):
    """One character of an exported session, as the human's screen labels it."""

    slot: str
    """Slot id (internal: never shown to a judge)."""
    name: str
    """True display name."""
    appearance: str = ""
    """Visible appearance."""
    description_ref: str
    """How a stranger refers to the character before learning a name."""
    controlled: bool = False
    """Whether the human played this character."""


class IdentityEntryRow(Record):
    """How one viewer knows one other character at the end of the session."""

    viewer: str
    """Slot id of the character whose ledger this is."""
    other: str
    """Slot id of the character known."""
    name: str | None = None
    """The name the viewer learned (possibly false), or None while a stranger."""
    learned_from_seq: int | None = None
    """Seq of the record that taught the name; None with a name means known from the start."""
    description_ref: str
    """How the viewer refers to the other while no name is known."""


class SessionExport(Record):
    """One line of `session.jsonl`: who is who in an exported session, for the views that
    need names (the contract's structural rules, unlearned names, the reader's screenplay)."""

    session_id: str
    """Session id."""
    scenario_id: str
    """Scenario the session was created from."""
    title: str
    """Human-facing title."""
    language: str
    """Response language."""
    controlled_id: str
    """Slot the human played."""
    turn_number: int
    """Last committed turn at export time."""
    tick: int
    """Narrative clock tick at export time."""
    exported_at: AwareDatetime
    """When the export was written, UTC."""
    characters: list[CastEntry]
    """The cast in slot order."""
    identities: list[IdentityEntryRow] = Field(default_factory=list)
    """Every viewer's knowledge of every other character."""
    memory_summaries: dict[str, str] = Field(default_factory=dict)
    """Slot id -> that ledger's condensed memory."""
    story_summary: str = ""
    """The story summary compactions wrote (public records only)."""


class MemoryLine(Record):
    """One line of `memory.jsonl`: a ledger's memory line at export time."""

    session_id: str
    """Session id."""
    owner: str
    """Slot id of the ledger's owner."""
    position: int = Field(ge=0)
    """Index of the line in the ledger's memory, oldest first."""
    text: str
    """The line, in the owner's own names."""


JudgePreference = Literal["first", "second", "tie"]


class BlindItem(Record):
    """One line of a blind export's `items.jsonl`: what a reader sees, under an opaque id."""

    item_id: str
    """Opaque id (`item-` plus hex); the key file alone maps it back to a run."""
    text: str
    """The screenplay: names, narration, speech, actions, as the human's screen shows them."""


class BlindPair(Record):
    """One line of a blind export's `pairs.jsonl`: two items a judge compares."""

    pair_id: str
    """Opaque pair id."""
    a: str
    """Item id shown first in the pair's first order."""
    b: str
    """Item id shown first in the pair's second order."""


class KeyEntry(Record):
    """One line of a blind export's `key.jsonl`, which no judge input may contain."""

    item_id: str
    """The opaque id."""
    session_id: str
    """The session behind it."""
    arm: str
    """Arm of the campaign (or any label of the configuration)."""
    script: str = ""
    """Script or scenario the session played."""
    repeat: int = 0
    """Repeat index within the cell."""
    secrets: list[str] = Field(default_factory=list)
    """Further strings that identify the run (run id, config hash, model name): none may
    appear in a judge's input."""


class Judgement(Record):
    """One line of `judgements.jsonl`: one judge answer on one pair in one order."""

    kind: Literal["judgement"] = "judgement"
    pair_id: str
    """Pair judged."""
    order: Literal[1, 2]
    """1: item `a` shown first; 2: item `b` shown first."""
    first: str
    """Item id shown in the first position."""
    second: str
    """Item id shown in the second position."""
    preferred: JudgePreference | None
    """The answer, by position; None when the judge abstained."""
    reason: str = ""
    """The judge's short reason."""
    abstained: bool = False
    """True when no schema-valid answer came after the retries."""
    error_type: str | None = None
    """Why the judge abstained (`schema`, `parse`, `timeout`, ...)."""
    judge: str
    """Judge name: `provider/model`, or `human:<rater>` for blind-read labels."""
    rubric: str
    """Rubric name and version, e.g. `story-quality@1`."""
    rubric_sha256: str
    """SHA-256 of the rubric file the judge was given."""


class Price(Record):
    """One row of the price table: a provider's model, per million tokens."""

    provider: str
    """Provider name as journaled (`deepseek`, `local`, ...)."""
    model: str
    """Model name as journaled; `*` matches every model of the provider."""
    currency: str = "USD"
    """Currency of the prices."""
    input_per_mtok: float = Field(ge=0)
    """Price of a million prompt tokens evaluated afresh (cache miss)."""
    cached_input_per_mtok: float = Field(ge=0)
    """Price of a million prompt tokens served from the provider's cache."""
    output_per_mtok: float = Field(ge=0)
    """Price of a million completion tokens."""
    as_of: date
    """Date the prices were read or took effect."""
    source: str = ""
    """Where they were read."""


class PriceTable(Record):
    """The editable price table (`harness/prices.json`)."""

    schema_: str = Field(default="", alias="$schema")
    """Path of this file's JSON Schema, for editors."""
    prices: list[Price]
    """One row per provider and model."""


SCHEMAS: dict[str, Any] = {
    "session_export": SessionExport,
    "memory_line": MemoryLine,
    "blind_item": BlindItem,
    "blind_pair": BlindPair,
    "blind_key_entry": KeyEntry,
    "judgement": Judgement,
    "price_table": PriceTable,
}
"""Schema name -> model, exported by `tavern schemas export`."""
