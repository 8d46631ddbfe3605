"""Characters: a private mind and a public body."""

from __future__ import annotations

from pydantic import Field

from tavern.records._base import Record

CHARACTER_ID_PATTERN = r"^[a-z0-9][a-z0-9_-]{0,63}$"


class Mind(Record):
    """What only the character itself (and the Director) may know."""

    personality: str = ""
    """Temperament, voice and habits, in prose."""
    secrets: list[str] = Field(default_factory=list)
    """Facts the character hides; never rendered to anyone but the owner and the Director."""
    goals: list[str] = Field(default_factory=list)
    """What the character wants, most pressing first."""


class Body(Record):
    """What anyone who can see the character may perceive."""

    display_name: str = Field(min_length=1, max_length=80)
    """The character's true name. Others learn it only from a record they perceived."""
    appearance: str = ""
    """Visible appearance, clothing and bearing."""
    description_ref: str = Field(min_length=1, max_length=120)
    """How a stranger refers to the character before learning a name ("the man in the open
    shirt")."""


class Character(Record):
    """A reusable character sheet from the library (built-in or user-authored)."""

    id: str = Field(pattern=CHARACTER_ID_PATTERN)
    """Library id: lowercase slug, also the file name of a user copy."""
    mind: Mind
    """The private half of the sheet."""
    body: Body
    """The public half of the sheet."""
    revision: int = 0
    """Optimistic-concurrency counter of the library copy."""
