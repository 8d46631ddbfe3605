"""`FilterContext`: what a filter rule may read besides the text it repairs.

The runner builds one per narration and one per Character reply (`runner.filtering`); a
rule reads the fields it needs and derives the rest (sentence keys, word runs) from them on
each call, so a rule is a pure function of its text and this object.

Example:
    >>> ctx = FilterContext(language="pt-BR", title="A Casa")
    >>> ctx.lexicon.language, ctx.target_label("narration")
    ('pt-BR', 'narration')
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from tavern.physics.identity import display_names, with_names
from tavern.records import Character, EventRecord, HistoryRecord, NarrationRecord
from tavern.records.scenario import Language
from tavern.text import Lexicon, lexicon_for

Target = Literal["narration", "speech", "thought", "action_intent"]
"""What a rule repairs: the renderer's narration, or one field of a Character's reply."""
REPLY_FIELDS: tuple[Target, ...] = ("speech", "thought", "action_intent")


@dataclass(frozen=True)
class Speaker:
    """The Character whose reply is filtered: its own sheet, as its prompt showed it."""

    slot: str
    """Its cast slot."""
    name: str
    """Its display name."""
    appearance: str = ""
    """Its sheet's appearance."""
    personality: str = ""
    """Its sheet's personality."""
    secrets: tuple[str, ...] = ()
    """Its sheet's secrets."""


@dataclass(frozen=True)
class FilterContext:
    """Everything a filter rule may read besides its text (see the module).

    For a narration, `history` is the window before this beat and `beat` this beat's
    records (the human's, the clamped events); for a reply, `history` is what the speaker
    heard, this beat's records up to its turn included, and `speaker` is set.
    """

    language: Language = "en"
    """The session's language: the language the model was asked to write in."""
    turn: int = 0
    """The beat being played."""
    cast: Mapping[str, Character] = field(default_factory=dict)
    """The session's cast, by slot."""
    title: str = ""
    """The session's title (the first line of every transcript)."""
    stage: tuple[str, ...] = ()
    """The stage as the renderer's prompt shows it: location and description."""
    staging: tuple[str, ...] = ()
    """The parts of the prompt's staging line, who is where ("Lio Mendez in the cellar")."""
    facts: tuple[str, ...] = ()
    """The scene's standing facts before the beat."""
    public: tuple[str, ...] = ()
    """Text any reader may see (stage, the scenario's own facts, the cast's bodies): a
    narration may quote it."""
    directives: tuple[str, ...] = ()
    """The scenario's tone directives."""
    history: tuple[HistoryRecord, ...] = ()
    """The records before this beat (narration) or heard so far (reply), oldest first."""
    beat: tuple[HistoryRecord, ...] = ()
    """This beat's records (narration only)."""
    capped: frozenset[Target] = frozenset()
    """The targets whose answer ran to its schema's length limit (a last sentence may be
    unfinished)."""
    speaker: Speaker | None = None
    """The Character whose reply this is (replies only)."""
    prompt_texts: tuple[str, ...] = ()
    """The fixed texts of the speaker's prompt (its instructions and stock lines)."""
    sheet_labels: tuple[str, ...] = ()
    """The labels of the speaker's own sheet in its prompt ("Personality:")."""

    @property
    def lexicon(self) -> Lexicon:
        """The word classes of `language`."""
        return lexicon_for(self.language)

    @property
    def names(self) -> list[str]:
        """The cast's display names, in slot order."""
        return [c.body.display_name for c in self.cast.values()]

    def named(self, text: str) -> str:
        """`text` with slot ids read as display names (events may hold ids)."""
        return with_names(text, display_names(self.cast))

    def beat_events(self) -> list[str]:
        """This beat's event texts, slot ids read as names (as the renderer read them)."""
        return [self.named(r.text) for r in self.beat if isinstance(r, EventRecord)]

    def narrations(self) -> list[str]:
        """The texts of the narrations of `history`, oldest first."""
        return [r.text for r in self.history if isinstance(r, NarrationRecord)]

    def target_label(self, target: Target) -> str:
        """How a cut's target is journaled: `narration`, or `reply:<slot>.<field>`."""
        if target == "narration" or self.speaker is None:
            return target
        return f"reply:{self.speaker.slot}.{target}"
