"""The schema-driven generator: valid output for any schema of the agents' subset."""

from __future__ import annotations

import random
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tavern.llm.fake_choosers import AdversaryChooser, ParrotChooser
from tavern.llm.schema_gen import SchemaGenerator

KEYS = st.text(alphabet="abcdefghij_", min_size=1, max_size=8)


def _string() -> st.SearchStrategy[dict[str, Any]]:
    lengths = st.tuples(st.integers(0, 5), st.integers(0, 30)).map(
        lambda t: {"type": "string", "minLength": t[0], "maxLength": t[0] + t[1]}
    )
    enums = st.lists(st.text(min_size=1, max_size=5), min_size=1, max_size=4, unique=True)
    return st.one_of(st.just({"type": "string"}), lengths, enums.map(lambda vs: {"enum": vs}))


LEAVES = st.one_of(
    _string(),
    st.tuples(st.integers(-50, 50), st.integers(0, 40)).map(
        lambda t: {"type": "integer", "minimum": t[0], "maximum": t[0] + t[1]}
    ),
    st.just({"type": "integer"}),
    st.just({"type": "boolean"}),
    st.just({"type": "null"}),
)


def _extend(children: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[dict[str, Any]]:
    def obj(props: dict[str, dict[str, Any]], data: st.DataObject) -> dict[str, Any]:
        required = data.draw(st.lists(st.sampled_from(sorted(props)), unique=True)) if props else []
        schema: dict[str, Any] = {"type": "object", "properties": props, "required": required}
        schema["additionalProperties"] = data.draw(
            st.sampled_from([False, True, {"type": "string"}])
        )
        return schema

    def array(item: dict[str, Any], lo: int, span: int | None) -> dict[str, Any]:
        schema: dict[str, Any] = {"type": "array", "items": item, "minItems": lo}
        if span is not None:
            schema["maxItems"] = lo + span
        return schema

    return st.one_of(
        st.builds(obj, st.dictionaries(KEYS, children, max_size=4), st.data()),
        st.builds(array, children, st.integers(0, 2), st.none() | st.integers(0, 4)),
        children.map(
            lambda c: (
                {**c, "type": [c["type"], "null"]}
                if isinstance(c.get("type"), str) and c["type"] != "null"
                else c
            )
        ),
    )


SCHEMAS = st.recursive(LEAVES, _extend, max_leaves=12)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schema=SCHEMAS, seed=st.integers(0, 2**32), adversary=st.booleans())
def test_generated_values_validate(schema: dict[str, Any], seed: int, adversary: bool) -> None:
    prompt = "C1 Brom met C2 in the cellar; SECRET_TOKEN_9 whispered. Narrator watches."
    chooser_cls = AdversaryChooser if adversary else ParrotChooser
    value = SchemaGenerator(schema, chooser_cls(random.Random(seed), prompt)).generate()
    jsonschema.Draft202012Validator(schema).validate(value)


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


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "string", "pattern": "^C[0-9]$"},
        {"anyOf": [{"type": "string"}]},
        {"type": "number"},
        {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
    ],
)
def test_a_keyword_outside_the_subset_is_refused(schema: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="unsupported"):
        SchemaGenerator(schema, ParrotChooser(random.Random(0), "x")).generate()


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
