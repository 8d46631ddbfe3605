"""Strategies for answers to the agents' output schemas, shared by the schema tests.

`valid_instances(schema)` draws values valid against a schema; `json_values` draws any JSON.
"""

from __future__ import annotations

import functools
import importlib
import json
from typing import Any

import jsonschema
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema

from tavern.llm.local.cache_probe import PROBE_SCHEMA

AGENTS = ("director", "prose", "character", "suggest", "openings")
REAL_SCHEMAS: dict[str, Any] = {
    name: importlib.import_module(f"tavern.agents.{name}").OUTPUT_SCHEMA for name in AGENTS
} | {"cache_probe": PROBE_SCHEMA}

# Keys and scalars the schemas care about, so arbitrary values often hit a property, an
# enum member or a bound instead of missing every keyword.
SCHEMA_WORDS = sorted(
    {"a", "b", "c", "k", "x", "answer", "narration", "speech", "thought", "action_intent"}
    | {"openings", "suggestions", "action", "events", "kind", "open", "sealed", "utterance"}
)
EDGE_SCALARS = [0, 1, -1, 2, 5, 10, 1.0, 0.0, -0.0, 2.0, 2.5, -1.5, 1e20, 10**20, True, False]
EDGE_SCALARS += [None, "", "a", "ab", "abc", "é", "😀", float("nan"), float("inf")]

scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(max_size=8)
    | st.sampled_from(EDGE_SCALARS)
    | st.sampled_from(SCHEMA_WORDS)
)
keys = st.sampled_from(SCHEMA_WORDS) | st.text(max_size=3)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(keys, inner, max_size=6),
    max_leaves=25,
)


def valid_instances(schema: Any) -> st.SearchStrategy[Any]:
    """Values valid against `schema`: `hypothesis_jsonschema.from_schema` for scalars.

    hypothesis-jsonschema 0.23.1 draws object properties through a Hypothesis internal
    (`many.more()`) that the installed Hypothesis no longer has, so whatever may hold an
    object (objects, arrays, untyped schemas) is drawn here; scalar types, `enum` and
    `const` are theirs. Strategies are cached: `from_schema` is slow to build.
    """
    return _valid_instances(json.dumps(schema))


@functools.lru_cache
def _valid_instances(schema_json: str) -> st.SearchStrategy[Any]:
    schema = json.loads(schema_json)
    if schema is True or schema == {}:
        return json_values
    if schema is False:
        return st.nothing()
    if {"enum", "const"} & schema.keys():
        return from_schema(schema)
    types = schema.get("type")
    if isinstance(types, list):
        return st.one_of([valid_instances({**schema, "type": name}) for name in types])
    if types == "object":
        return _objects(schema)
    if types == "array":
        low = schema.get("minItems", 0)
        high = schema.get("maxItems", low + 4)
        items = valid_instances(schema.get("items", True))
        return st.lists(items, min_size=low, max_size=high)
    if types is None:
        untyped = json_values.filter(jsonschema.Draft202012Validator(schema).is_valid)
        return untyped | _objects(schema) if "required" in schema else untyped
    return from_schema(schema)


@st.composite
def _objects(draw: st.DrawFn, schema: dict[str, Any]) -> dict[str, Any]:
    properties = schema.get("properties", {})
    required = schema.get("required", [])
    extra = schema.get("additionalProperties", True)
    value: dict[str, Any] = {}
    for key in [*properties, *(key for key in required if key not in properties)]:
        subschema = properties.get(key, extra)
        if subschema is not False and (key in required or draw(st.booleans())):
            value[key] = draw(valid_instances(subschema))
    if extra is not False:
        extra_keys = keys.filter(lambda key: key not in properties)
        value.update(draw(st.dictionaries(extra_keys, valid_instances(extra), max_size=3)))
    return value
