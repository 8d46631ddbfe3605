"""Opening sparks: three scenario-grounded ways an empty session could begin.

Built from the public scenario only (world, stage, cast appearance): nothing private and
nothing about who will play whom.
"""

from __future__ import annotations

from typing import Any

from tavern.agents.blocks import PromptBlock, Stability, assemble
from tavern.agents.render import scene_block, zone_graph_block
from tavern.physics.identity import display_names
from tavern.records import ChatMessage, SessionState
from tavern.text import without_foreign_script

INSTRUCTIONS = """You help start an interactive story. Propose three different opening sparks:
each one or two sentences, concrete, grounded in the world and the stage below, and each
pulling the scene in a different direction (a small incident, an arrival, a discovery...).
Do not write dialogue and do not decide what anyone thinks.

Answer in JSON: {"openings": ["...", "...", "..."]}."""

OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["openings"],
    "properties": {
        "openings": {
            "type": "array",
            "minItems": 3,
            "maxItems": 3,
            "items": {"type": "string", "minLength": 1, "maxLength": 400},
        }
    },
}
"""JSON Schema of the answer."""


def build_messages(state: SessionState) -> list[ChatMessage]:
    """Build the opening-sparks prompt from the public scenario."""
    names = display_names(state.cast)
    cast = "\n".join(
        f"- {c.body.display_name}: {c.body.appearance or '(plain)'}" for c in state.cast.values()
    )
    world = state.world + "".join(f"\n- {d}" for d in state.tone_directives)
    return assemble(
        [
            PromptBlock("Your task", INSTRUCTIONS, Stability.IDENTITY),
            PromptBlock("World", world, Stability.IDENTITY),
            PromptBlock("Cast (appearance)", cast, Stability.IDENTITY),
            PromptBlock("Stage", zone_graph_block(state.scene), Stability.SLOW),
            PromptBlock(
                "Scene",
                scene_block(state.scene, lambda s: names.get(s, s), with_zone_ids=False),
                Stability.VOLATILE,
            ),
        ]
    )


def parse(data: dict[str, Any]) -> list[str]:
    """The three sparks of a schema-valid answer, stripped of letters of another script
    (`text.without_foreign_script`; nothing is committed)."""
    return [without_foreign_script(str(x)).strip() for x in data["openings"]][:3]
