"""The ordered registries and the profiles: which rules run, in what order, for which model.

`NARRATION_RULES` and `REPLY_RULES` run in order (`rule.apply_rules`): foreign script first
so no rule reads it, loops before anything else reads the text, names spelt before rules
that know the cast by name, copies and assistant words before retelling is judged, a
wordless text last. In replies a stage direction moves to the intent before fields are
judged. `PROFILES`: `small_local` runs every rule, `minimal` those guarding what no model may
do (act or speak for a character, step out of the world, copy its prompt's machinery) and
those that cost a capable model nothing, `off` none; `records.config.filter_profile_for`
picks one per provider and a session may name its own.

Example:
    >>> [rule.name for rule in NARRATION_RULES][:3]
    ['foreign_script', 'loop', 'respelt_name']
    >>> sorted(PROFILES["minimal"])[:3]
    ['foreign_script', 'invented_speech', 'out_of_world']
"""

from __future__ import annotations

from tavern.filters import (
    empty_intent,
    foreign_script,
    invented_speech,
    loop,
    naming,
    out_of_world,
    prompt_copy,
    retold,
    self_greeting,
    stage_direction,
    state_flip,
    unconfirmed_act,
    wordless,
)
from tavern.filters.rule import Rule
from tavern.records.config import FilterProfile

NARRATION_RULES: list[Rule] = [
    foreign_script.RULE,
    loop.RULE,
    naming.RESPELT,
    prompt_copy.RULE,
    invented_speech.RULE,
    out_of_world.RULE,
    retold.RULE,
    state_flip.RULE,
    naming.PRONOUN,
    unconfirmed_act.RULE,
    wordless.RULE,
]
"""Rules over the renderer's narration, in application order (see the module)."""

REPLY_RULES: list[Rule] = [
    foreign_script.RULE,
    stage_direction.RULE,
    prompt_copy.RULE,
    out_of_world.RULE,
    self_greeting.RULE,
    loop.RULE,
    empty_intent.RULE,
    retold.RULE,
    wordless.RULE,
]
"""Rules over a Character's reply, in application order (see the module)."""

ALL_RULES: dict[str, Rule] = {rule.name: rule for rule in (*NARRATION_RULES, *REPLY_RULES)}
"""Every registered rule by name."""

PROFILES: dict[FilterProfile, frozenset[str]] = {
    "small_local": frozenset(ALL_RULES),
    "minimal": frozenset(
        (
            "foreign_script",
            "stage_direction",
            "prompt_copy",
            "invented_speech",
            "out_of_world",
            "unconfirmed_act",
            "wordless",
        )
    ),
    "off": frozenset(),
}
"""Profile -> the rules it runs (see the module)."""
