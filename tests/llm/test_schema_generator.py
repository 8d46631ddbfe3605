"""The schema-driven generator: valid output for any schema of the supported subset."""

from __future__ import annotations

import random
import re
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tavern.llm.fake_choosers import AdversaryChooser, ParrotChooser
from tavern.llm.regex_sample import sample_regex
from tavern.llm.schema_gen import SchemaGenerator

KEYS = st.text(alphabet="abcdefghij_", min_size=1, max_size=8)
PATTERNS = st.sampled_from(
    [r"^C[1-9][0-9]?$", r"^[a-z0-9][a-z0-9_-]{0,63}$", r"^(north|south)-\d{2}$", r"x+y?"]
)


def _bounded_int() -> st.SearchStrategy[dict[str, Any]]:
    return st.tuples(st.integers(-50, 50), st.integers(0, 40), st.booleans()).map(
        lambda t: (
            {"type": "integer", "minimum": t[0], "maximum": t[0] + t[1]}
            if t[2]
            else {"type": "integer", "exclusiveMinimum": t[0], "exclusiveMaximum": t[0] + t[1] + 2}
        )
    )


def _string() -> st.SearchStrategy[dict[str, Any]]:
    lengths = st.tuples(st.integers(0, 5), st.integers(0, 30)).map(
        lambda t: {"type": "string", "minLength": t[0], "maxLength": t[0] + t[1]}
    )
    return st.one_of(
        st.just({"type": "string"}),
        lengths,
        PATTERNS.map(lambda p: {"type": "string", "pattern": p}),
        st.lists(st.text(min_size=1, max_size=5), min_size=1, max_size=4, unique=True).map(
            lambda vs: {"type": "string", "enum": vs}
        ),
        st.sampled_from(["date-time", "email", "uuid"]).map(
            lambda f: {"type": "string", "format": f}
        ),
    )


LEAVES = st.one_of(
    _string(),
    _bounded_int(),
    st.just({"type": "integer"}),
    st.just({"type": "number", "minimum": 0.5, "maximum": 2.5}),
    st.just({"type": "boolean"}),
    st.just({"type": "null"}),
    st.just({"const": "fixed"}),
)


def _distinct_values(item: dict[str, Any]) -> float:
    """How many distinct values a leaf schema allows (infinite when unbounded)."""
    if item.get("maxLength") == 0:
        return 1
    if "exclusiveMinimum" in item and "exclusiveMaximum" in item:
        return int(item["exclusiveMaximum"]) - int(item["exclusiveMinimum"]) - 1
    if "minimum" in item and "maximum" in item and item.get("type") == "integer":
        return int(item["maximum"]) - int(item["minimum"]) + 1
    return float("inf")


def _extend(children: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[dict[str, Any]]:
    def obj(props: dict[str, dict[str, Any]], data: st.DataObject) -> dict[str, Any]:
        required = data.draw(st.lists(st.sampled_from(sorted(props)), unique=True)) if props else []
        schema: dict[str, Any] = {"type": "object", "properties": props, "required": required}
        schema["additionalProperties"] = data.draw(
            st.sampled_from([False, True, {"type": "string"}])
        )
        return schema

    def array(item: dict[str, Any], lo: int, span: int | None, unique: bool) -> dict[str, Any]:
        schema: dict[str, Any] = {"type": "array", "items": item, "minItems": lo}
        if span is not None:
            schema["maxItems"] = lo + span
        satisfiable = lo <= _distinct_values(item)  # two distinct "" (or 1 in (0, 2)) are none
        if unique and item.get("type") in ("string", "integer") and "enum" not in item:
            schema["uniqueItems"] = satisfiable
        return schema

    return st.one_of(
        st.builds(obj, st.dictionaries(KEYS, children, max_size=4), st.data()),
        st.builds(array, children, st.integers(0, 2), st.none() | st.integers(0, 4), st.booleans()),
        children.map(lambda c: {"anyOf": [c, {"type": "null"}]}),
        children.map(
            lambda c: (
                {**c, "type": [c["type"], "null"]}
                if isinstance(c.get("type"), str) and c["type"] != "null" and "enum" not in c
                else c
            )
        ),
        st.tuples(children, children).map(lambda cs: {"anyOf": list(cs)}),
    )


SCHEMAS = st.recursive(LEAVES, _extend, max_leaves=12)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schema=SCHEMAS, seed=st.integers(0, 2**32), adversary=st.booleans())
def test_generated_values_validate(schema: dict[str, Any], seed: int, adversary: bool) -> None:
    prompt = "C1 Brom met C2 in the cellar; SECRET_TOKEN_9 whispered. Narrator watches."
    chooser_cls = AdversaryChooser if adversary else ParrotChooser
    value = SchemaGenerator(schema, chooser_cls(random.Random(seed), prompt)).generate()
    jsonschema.Draft202012Validator(schema).validate(value)


def test_refs_and_defs_resolve() -> None:
    schema = {
        "$defs": {
            "Zone": {
                "type": "object",
                "properties": {"id": {"$ref": "#/$defs/Id"}},
                "required": ["id"],
            },
            "Id": {"type": "string", "pattern": "^z[0-9]$"},
        },
        "type": "object",
        "properties": {
            "zones": {"type": "array", "items": {"$ref": "#/$defs/Zone"}, "minItems": 2}
        },
        "required": ["zones"],
    }
    value = SchemaGenerator(schema, ParrotChooser(random.Random(0), "hello")).generate()
    jsonschema.validate(value, schema)
    assert len(value["zones"]) >= 2


def test_generator_catches_its_own_bad_output_in_the_property() -> None:
    # Negative control for the property: a chooser that ignores bounds yields invalid values,
    # and the validator used above does reject them.
    class Sloppy(ParrotChooser):
        def integer(self, path: tuple[str, ...], lo: int | None, hi: int | None) -> int:
            return 10_000

    schema = {"type": "integer", "minimum": 0, "maximum": 5}
    value = SchemaGenerator(schema, Sloppy(random.Random(0), "x")).generate()
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(value, schema)


@given(pattern=PATTERNS, seed=st.integers(0, 2**32))
def test_regex_sampler_matches(pattern: str, seed: int) -> None:
    assert re.search(pattern, sample_regex(pattern, random.Random(seed)))


@pytest.mark.parametrize("role", ["character", "director", "openings", "prose", "suggest"])
@pytest.mark.parametrize("chooser_cls", [ParrotChooser, AdversaryChooser])
def test_every_agent_output_schema_is_answerable(
    role: str, chooser_cls: type[ParrotChooser]
) -> None:
    import importlib

    schema = importlib.import_module(f"tavern.agents.{role}").OUTPUT_SCHEMA
    validator = jsonschema.Draft202012Validator(schema)
    for seed in range(10):
        chooser = chooser_cls(random.Random(seed), "C1 Brom met C2; SECRET_TOKEN_9.")
        validator.validate(SchemaGenerator(schema, chooser).generate())
