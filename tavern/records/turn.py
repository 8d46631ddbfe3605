"""What the human submits for one turn."""

from __future__ import annotations

from pydantic import Field, model_validator

from tavern.records._base import Record


class TurnInput(Record):
    """One human turn. Empty turns are refused before anything is written."""

    speech: str | None = Field(default=None, max_length=4000)
    """Words the controlled character says."""
    thought: str | None = Field(default=None, max_length=4000)
    """A private thought: reaches the Director only."""
    action: str | None = Field(default=None, max_length=4000)
    """A physical attempt."""
    whisper_to: list[str] = Field(default_factory=list, max_length=8)
    """Slot ids the speech is whispered to; empty means spoken aloud."""
    force_speaker: str | None = None
    """Collapse the speaker queue to this slot id (or `Narrator`)."""
    hint: str | None = Field(default=None, max_length=2000)
    """A direction for the Director, outside the fiction's records."""
    skip: bool = False
    """Let the world move without the controlled character acting."""

    @model_validator(mode="after")
    def _not_empty(self) -> TurnInput:
        filled = [v for v in (self.speech, self.thought, self.action, self.hint) if v and v.strip()]
        if not filled and not self.skip:
            raise ValueError("an empty turn: give speech, thought, action, a hint, or skip")
        if self.whisper_to and not (self.speech and self.speech.strip()):
            raise ValueError("whisper_to needs speech to whisper")
        return self
