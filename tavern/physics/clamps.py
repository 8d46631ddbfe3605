"""Clamps: turn any schema-valid Director proposal into an admissible decision.

A model can narrow perception, never widen it. Each rule (`ClampRule`) is a pure function
`(decision, ctx) -> (decision, changes)` with the languages whose words it reads;
`clamp_decision` runs the rules in `CLAMP_RULES` order, skips a rule that does not handle the
session's language, and reports every change for the journal. Running the clamps twice
changes nothing the second time. This module is the registry (and the context); the rules
live in one module per concept (`rule_table` lists them).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from tavern.physics.agency import drop_unattempted_acts, drop_unattempted_moves
from tavern.physics.awaiting import has_unresolved_action
from tavern.physics.canon import apply_canon
from tavern.physics.copied import (
    drop_directive_copies,
    drop_label_copies,
    drop_mind_copies,
    drop_prompt_copies,
    drop_roster_events,
    drop_spoken_copies,
    drop_thought_copies,
)
from tavern.physics.duplicates import drop_duplicate_events
from tavern.physics.fact_state import drop_state_flips
from tavern.physics.guards import cast_public_texts
from tavern.physics.masked import drop_emptied_events, speech_guard
from tavern.physics.outcomes import drop_retold_attempts, label_outcomes
from tavern.physics.references import collapse_glosses, resolve_names, respell_names
from tavern.physics.structure import (
    clamp_link_updates,
    clamp_location,
    clamp_moods,
    clamp_speakers,
    clamp_time_skip,
    clamp_witnesses,
    clamp_zone_moves,
    queue_hearer,
)
from tavern.physics.unfinished import drop_unfinished_ends
from tavern.physics.unperceived import drop_authored_speech, drop_told_thoughts
from tavern.physics.visible import redact_visible, thought_guard, whisper_guard
from tavern.records import (
    Character,
    ClampChange,
    DirectorDecision,
    HistoryRecord,
    Language,
    Scene,
)
from tavern.records.scene import ZONE_ID_PATTERN
from tavern.text import LANGUAGES

MAX_SPEAKERS = 3
_ZONE_ID = re.compile(ZONE_ID_PATTERN)


@dataclass(frozen=True)
class ClampContext:
    """Everything the clamps need to judge a proposal.

    Attributes:
        scene: The stage before the beat.
        history: Records so far, including this turn's already appended ones.
        max_skip_ticks: Upper bound of a time skip.
        unresolved_action: Whether an action intent awaits adjudication; None derives it
            from `history` with `has_unresolved_action`.
        public_texts: Extra public text (premise, scenario prose) whose words are never secret.
        cast: The session cast; its names, descriptions and appearances count as public.
        turn_number: The beat being played; None: that of the last record in `history`.
        prompt_sentences: The fixed sentences of the Director's prompts (clamp
            `prompt_copy`); none by default.
        directives: The scenario's tone directives (clamp `directive_copy`).
        title: The session's title, the first line of the Director's history (clamp
            `prompt_copy`); none by default.
        world: The session's world text, public (clamp `speech_guard`).
        language: The session's language: which lexicon the rules read, and which rules run.
    """

    scene: Scene
    history: Sequence[HistoryRecord] = ()
    max_skip_ticks: int = 3
    unresolved_action: bool | None = None
    public_texts: Sequence[str] = field(default_factory=tuple)
    cast: Mapping[str, Character] | None = None
    turn_number: int | None = None
    prompt_sentences: Sequence[str] = ()
    directives: Sequence[str] = ()
    title: str = ""
    world: str = ""
    language: Language = "en"

    @property
    def all_public_texts(self) -> list[str]:
        """`public_texts` plus the cast's public words."""
        return [*self.public_texts, *cast_public_texts(self.cast or {})]

    @property
    def present(self) -> list[str]:
        """Slot ids present in the scene."""
        return list(self.scene.present)

    @property
    def mid_action(self) -> bool:
        """Whether a time skip must be refused."""
        if self.unresolved_action is not None:
            return self.unresolved_action
        return has_unresolved_action(self.history)


Changes = list[ClampChange]
RuleFunction = Callable[[DirectorDecision, ClampContext], tuple[DirectorDecision, Changes]]


@dataclass(frozen=True)
class ClampRule:
    """One rule of the registry: the name its changes carry, its pure function, and the
    languages whose words it reads (a rule reading no words handles them all).

    Example:
        >>> rule = ClampRule("speaker_queue", clamp_speakers)
        >>> rule.concept, rule.languages, rule.handles("pt-BR")
        ('structure', ('en', 'pt-BR'), True)
    """

    name: str
    """The rule name every `ClampChange` it reports carries."""
    apply: RuleFunction
    """The rule itself: `(decision, ctx) -> (decision, changes)`."""
    languages: tuple[Language, ...] = LANGUAGES
    """The languages it handles; in a session of another language it does not run."""

    @property
    def concept(self) -> str:
        """The module the rule lives in: one concept per module."""
        return self.apply.__module__.rsplit(".", 1)[-1]

    @property
    def doc(self) -> str:
        """The first sentence of the rule function's docstring."""
        first = (self.apply.__doc__ or "").strip().split("\n\n")[0]
        return " ".join(first.split())

    def handles(self, language: str) -> bool:
        """Whether the rule runs in a session of `language`."""
        return language in self.languages


CLAMP_RULES: list[ClampRule] = [
    ClampRule("misspelt_name", respell_names),
    ClampRule("cast_reference", resolve_names),
    ClampRule("cast_gloss", collapse_glosses),
    ClampRule("unfinished_sentence", drop_unfinished_ends),
    ClampRule("zone_move", clamp_zone_moves),
    ClampRule("agency_move", drop_unattempted_moves),
    ClampRule("link_update", clamp_link_updates),
    ClampRule("location", clamp_location),
    ClampRule("mood_target", clamp_moods),
    ClampRule("witness_zone", clamp_witnesses),
    ClampRule("speaker_queue", clamp_speakers),
    ClampRule("unanswered_question", queue_hearer),
    ClampRule("time_skip", clamp_time_skip),
    ClampRule("outcome_kind", label_outcomes),
    ClampRule("spoken_copy", drop_spoken_copies),
    ClampRule("thought_copy", drop_thought_copies),
    ClampRule("authored_speech", drop_authored_speech),
    ClampRule("mind_copy", drop_mind_copies),
    ClampRule("prompt_label", drop_label_copies),
    ClampRule("prompt_copy", drop_prompt_copies),
    ClampRule("directive_copy", drop_directive_copies),
    ClampRule("told_mind", drop_told_thoughts),
    ClampRule("retold_attempt", drop_retold_attempts),
    ClampRule("agency", drop_unattempted_acts),
    ClampRule("fact_flip", drop_state_flips),
    ClampRule("thought_guard", thought_guard),
    ClampRule("whisper_guard", whisper_guard),
    ClampRule("speech_guard", speech_guard),
    ClampRule("redacted_event", drop_emptied_events),
    ClampRule("roster_event", drop_roster_events),
    ClampRule("duplicate_event", drop_duplicate_events),
]
"""Clamp rules in application order. Loops in an event's text are cut first, cast names
one letter off are spelt right, then names become ids, so every other rule judges ids. An
actor's event telling their waiting attempt becomes its outcome before the rules that judge
outcomes read the kind. Copies of spoken lines and thoughts and recitals of a mind go before
the guards could mask them. The guards run on the final witness lists, and an event they left
with nothing to tell goes; repeats merge last, on the texts as they will be shown (two texts
can become equal once redacted). A merged event's witnesses never make a guard redact more:
copies that the guards left equal hold nothing hidden from any of them."""


def clamp_decision(
    decision: DirectorDecision, ctx: ClampContext
) -> tuple[DirectorDecision, list[ClampChange]]:
    """Make a Director proposal admissible and report each change.

    Args:
        decision: The parsed, schema-valid proposal (possibly hostile).
        ctx: The scene, history and limits to judge it against.

    Returns:
        The admissible decision and the list of changes, in rule order. Clamping the result
        again returns it unchanged with no changes.

    Example:
        >>> ctx = ClampContext(scene=Scene(location="inn", present=["C1", "C2"]))
        >>> d, changes = clamp_decision(DirectorDecision(next_speakers=["C9", "C2", "C2"]), ctx)
        >>> d.next_speakers, [c.rule for c in changes]
        (['C2'], ['speaker_queue'])
    """
    changes: list[ClampChange] = []
    for rule in CLAMP_RULES:
        if rule.handles(ctx.language):
            decision, found = rule.apply(decision, ctx)
            changes.extend(found)
    return decision, changes


def rule_table() -> str:
    """The registry as a Markdown table (name, concept, languages, what it does): the physics
    README's clamp table is this text, and a test fails when they differ."""
    rows = [
        "| # | rule | concept | languages | what it does |",
        "|---|---|---|---|---|",
    ]
    for i, rule in enumerate(CLAMP_RULES, 1):
        languages = "all" if set(rule.languages) >= set(LANGUAGES) else ", ".join(rule.languages)
        rows.append(f"| {i} | `{rule.name}` | `{rule.concept}.py` | {languages} | {rule.doc} |")
    return "\n".join(rows) + "\n"


__all__ = [
    "CLAMP_RULES",
    "ClampContext",
    "ClampRule",
    "apply_canon",
    "clamp_decision",
    "has_unresolved_action",
    "redact_visible",
    "rule_table",
    "thought_guard",
    "whisper_guard",
]
