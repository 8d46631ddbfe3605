"""Narrative physics: deterministic, pure rules with no I/O and no model.

Perception and audiences, the zone graph, clamps on Director proposals, viewer-relative
identity, redaction guards, observation, and the narrative clock. See README.md.
"""

from tavern.physics.canon import apply_canon
from tavern.physics.clamps import CLAMP_RULES, ClampContext, clamp_decision, has_unresolved_action
from tavern.physics.clock import advance, due_deadlines, fire
from tavern.physics.guards import (
    Knowledge,
    cast_public_texts,
    hidden_tokens_for,
    knowledge_of,
)
from tavern.physics.identity import initial_identities, learn_names, ref_for, render_for_viewer
from tavern.physics.observation import (
    Observation,
    ObservedLine,
    RosterEntry,
    digest_line,
    observe,
)
from tavern.physics.perception import audience_for, event_audience, perceives
from tavern.physics.redaction import redact, salient_tokens
from tavern.physics.zones import FLAT_ZONE, can_hear, can_see, declare_zone, zone_of

__all__ = [
    "CLAMP_RULES",
    "FLAT_ZONE",
    "ClampContext",
    "Knowledge",
    "Observation",
    "ObservedLine",
    "RosterEntry",
    "advance",
    "apply_canon",
    "audience_for",
    "can_hear",
    "can_see",
    "cast_public_texts",
    "clamp_decision",
    "declare_zone",
    "digest_line",
    "due_deadlines",
    "event_audience",
    "fire",
    "has_unresolved_action",
    "hidden_tokens_for",
    "initial_identities",
    "knowledge_of",
    "learn_names",
    "observe",
    "perceives",
    "redact",
    "ref_for",
    "render_for_viewer",
    "salient_tokens",
    "zone_of",
]
