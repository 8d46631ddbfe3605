"""Every agent's answer schema bounds its lists and strings, so a looping small model is
closed by the sampler's grammar instead of running to `max_tokens` and failing to parse.

Live, the 0.5B Director looped inside an unbounded `witness_ids` list until its 900-token
answer was cut off (twice in a 12-turn soak).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tavern.agents import character, director, openings, prose, suggest

SCHEMAS = {
    "director": director.OUTPUT_SCHEMA,
    "prose": prose.OUTPUT_SCHEMA,
    "character": character.OUTPUT_SCHEMA,
    "suggest": suggest.OUTPUT_SCHEMA,
    "openings": openings.OUTPUT_SCHEMA,
}
UNBOUNDABLE = {"director.mood_updates"}
"""A map: llama.cpp's grammar has no `maxProperties` (its keys are bounded by the cast only
after the answer, by the mood clamp)."""


def unbounded(node: Any, path: str) -> list[str]:
    """Paths of arrays without `maxItems`, strings without `maxLength` or `enum`, and open
    maps without `maxProperties`, under `node` (a property's path names its parents)."""
    if not isinstance(node, dict):
        return []
    kinds = node.get("type")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    found = []
    if "array" in kinds and "maxItems" not in node:
        found.append(path)
    if "string" in kinds and "maxLength" not in node and "enum" not in node:
        found.append(path)
    if isinstance(node.get("additionalProperties"), dict) and "maxProperties" not in node:
        found.append(path)
    for name, child in node.get("properties", {}).items():
        found += unbounded(child, f"{path}.{name}")
    for key in ("items", "additionalProperties"):
        found += unbounded(node.get(key), path)
    return sorted(set(found))


@pytest.mark.parametrize("role", sorted(SCHEMAS))
def test_every_list_and_string_of_an_answer_is_bounded(role: str) -> None:
    assert set(unbounded(SCHEMAS[role], role)) <= UNBOUNDABLE


def test_negative_control_an_unbounded_list_is_reported() -> None:
    planted = copy.deepcopy(director.OUTPUT_SCHEMA)
    events = planted["properties"]["events"]["items"]["properties"]
    del events["witness_ids"]["maxItems"]
    assert unbounded(planted, "director") == [
        "director.events.witness_ids",
        "director.mood_updates",
    ]
