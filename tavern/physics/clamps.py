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
from functools import cached_property

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
from tavern.physics.guards import Knowledge, cast_public_texts, knowledge_of
from tavern.physics.masked import drop_emptied_events
from tavern.physics.outcomes import drop_borrowed_outcomes, drop_retold_attempts, label_outcomes
from tavern.physics.redaction import Tokenizer, salient_tokens
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
from tavern.physics.visible import perception_guard, redact_visible, thought_guard
from tavern.records import (
    Character,
    ClampChange,
    DirectorDecision,
    HistoryRecord,
    Language,
    Scene,
)
from tavern.records.scene import ZONE_ID_PATTERN
from tavern.text import LANGUAGES, without_foreign_script

MAX_SPEAKERS = 3
MAX_NEW_FACTS = 2
"""Facts one beat may add. Live, the 0.5B Director added 252 facts over 96 beats, 186 of
them restating an opening fact; a hostile one adds as many as its schema allows, every beat."""
MAX_FACTS = 12
"""Facts the stage may hold. Every prompt shows them all: unbounded, they crowded the rest of
the Director's prompt out of a small model's context."""
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
        language: The session's language: which lexicon the rules read, and which rules run.
        asked: The seqs of the attempts a follow-up call asked about (`runner.follow_up`):
            an outcome by their actors is a follow-up's answer (clamp `borrowed_outcome`).
        known: `knowledge` already walked for this history, scene and public texts (the
            follow-up's context passes the beat's on); None walks it.
        tokens: What the walk tokenizes texts with: the turn's `redaction.TokenTable`.
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
    language: Language = "en"
    asked: frozenset[int] = frozenset()
    known: Knowledge | None = None
    tokens: Tokenizer = salient_tokens

    @property
    def all_public_texts(self) -> list[str]:
        """`public_texts` plus the cast's public words."""
        return [*self.public_texts, *cast_public_texts(self.cast or {})]

    @cached_property
    def knowledge(self) -> Knowledge:
        """Who perceived each non-public word of `history` (`guards.knowledge_of`), walked
        once per context: every guard of a beat, and each follow-up's, reads it."""
        if self.known is not None:
            return self.known
        return knowledge_of(self.history, self.scene, self.all_public_texts, self.tokens)

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


def drop_foreign_script(d: DirectorDecision, ctx: ClampContext) -> tuple[DirectorDecision, Changes]:
    """Cut letters of a non-Latin script from every string of the decision
    (`text.without_foreign_script`), before any rule reads a word.

    Example:
        >>> ctx = ClampContext(scene=Scene(location="inn"))
        >>> d = DirectorDecision(events=[{"kind": "world_event", "text": "Rain中间。"}])
        >>> out, changes = drop_foreign_script(d, ctx)
        >>> out.events[0].text, [c.path for c in changes]
        ('Rain.', ['events[0].text'])
    """
    changes: Changes = []

    def cut(value: object, path: str) -> object:
        if isinstance(value, str):
            new = without_foreign_script(value)
            if new != value:
                changes.append(
                    ClampChange(rule="foreign_script", path=path, before=value, after=new)
                )
            return new
        if isinstance(value, dict):
            return {k: cut(v, f"{path}.{k}" if path else k) for k, v in value.items()}
        if isinstance(value, list):
            return [cut(v, f"{path}[{i}]") for i, v in enumerate(value)]
        return value

    data = cut(d.model_dump(), "")
    return (DirectorDecision.model_validate(data) if changes else d), changes


def bound_facts(d: DirectorDecision, ctx: ClampContext) -> tuple[DirectorDecision, Changes]:
    """Keep at most `MAX_NEW_FACTS` new facts a beat, and none past `MAX_FACTS` standing
    facts (after the beat's removals); the beat's first proposals are kept, the rest refused.

    Refused rather than folding the oldest away: the oldest facts are the scenario's opening
    canon that every character has read, and a Director flooding the stage must not be able
    to push them out. A Director that needs room removes a fact in the same beat. A fact
    already standing adds nothing and costs no room; a fact the beat repeats goes (canon
    would add it twice).

    Example:
        >>> ctx = ClampContext(scene=Scene(location="inn", facts=["The door is shut."]))
        >>> d = DirectorDecision(scene={"add_facts": ["A", "B", "C"]})
        >>> out, changes = bound_facts(d, ctx)
        >>> out.scene.add_facts, [c.path for c in changes]
        (['A', 'B'], ['scene.add_facts[2]'])
    """
    delta = d.scene
    standing = {f for f in ctx.scene.facts if f not in set(delta.remove_facts)}
    room = min(MAX_NEW_FACTS, MAX_FACTS - len(standing))
    added: set[str] = set()
    kept, changes = [], []
    for i, fact in enumerate(delta.add_facts):
        if fact not in standing:
            if fact in added or room <= 0:
                changes.append(
                    ClampChange(rule="fact_bound", path=f"scene.add_facts[{i}]", before=fact)
                )
                continue
            room -= 1
            added.add(fact)
        kept.append(fact)
    if not changes:
        return d, changes  # every fact kept
    return d.model_copy(update={"scene": delta.model_copy(update={"add_facts": kept})}), changes


CLAMP_RULES: list[ClampRule] = [
    ClampRule("foreign_script", drop_foreign_script),
    ClampRule("borrowed_outcome", drop_borrowed_outcomes),
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
    ClampRule("perception_guard", perception_guard),
    ClampRule("redacted_event", drop_emptied_events),
    ClampRule("roster_event", drop_roster_events),
    ClampRule("duplicate_event", drop_duplicate_events),
    ClampRule("fact_bound", bound_facts),
]
"""Clamp rules in application order. Letters of another script go before any rule reads a
word, and a follow-up's answer loses what it borrowed before the rules that judge events
read it, as it did before it was a rule. Loops in an event's text are cut first, cast names
one letter off are spelt right, then names become ids, so every other rule judges ids. An
actor's event telling their waiting attempt becomes its outcome before the rules that judge
outcomes read the kind. Copies of spoken lines and thoughts and recitals of a mind go before
the guards could mask them. The guards run on the final witness lists, and an event they left
with nothing to tell goes; repeats merge last, on the texts as they will be shown (two texts
can become equal once redacted). A merged event's witnesses never make a guard redact more:
copies that the guards left equal hold nothing hidden from any of them. Facts are counted
last, as the guards left them (two can become one)."""


def clamp_decision(
    decision: DirectorDecision, ctx: ClampContext
) -> tuple[DirectorDecision, list[ClampChange]]:
    """Make a (possibly hostile) schema-valid Director proposal admissible, and report each
    change in rule order; clamping the result again changes nothing.

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
    "MAX_FACTS",
    "MAX_NEW_FACTS",
    "ClampContext",
    "ClampRule",
    "apply_canon",
    "bound_facts",
    "clamp_decision",
    "has_unresolved_action",
    "perception_guard",
    "redact_visible",
    "rule_table",
    "thought_guard",
]
