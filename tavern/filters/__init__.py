"""The filter layer: rules that repair a model's narration and replies, one protocol.

Pure: imports `records`, `text` and `physics` only (`tests/test_layering.py`). Each rule
declares its name, targets and languages and returns the repaired texts with typed
`FilterCut`s, which the runner journals with the commit (`CommitLine.filter_cuts`); the
registries order them and a profile picks which run (`registry`).

Example:
    >>> result = apply_rules(NARRATION_RULES, {"narration": "Rain. Rain falls on the roof."
    ...     " Rain falls on the roof."}, FilterContext(), PROFILES["small_local"])
    >>> result.texts["narration"], [cut.rule for cut in result.cuts]
    ('Rain. Rain falls on the roof.', ['loop'])
"""

from __future__ import annotations

from tavern.filters.context import REPLY_FIELDS, FilterContext, Speaker, Target
from tavern.filters.registry import ALL_RULES, NARRATION_RULES, PROFILES, REPLY_RULES
from tavern.filters.rule import FilterResult, Rule, TextRule, apply_rules

__all__ = [
    "ALL_RULES",
    "NARRATION_RULES",
    "PROFILES",
    "REPLY_FIELDS",
    "REPLY_RULES",
    "FilterContext",
    "FilterResult",
    "Rule",
    "Speaker",
    "Target",
    "TextRule",
    "apply_rules",
]
