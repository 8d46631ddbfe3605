"""Answers are validated by `jsonschema`, with one compiled validator per schema content.

`SchemaValidators` keeps the validators its client compiled; a schema is known by its whole
content, so a schema dict changed in place is compiled afresh and never meets a validator
of what it used to say.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tavern.llm.errors import LlmCallError
from tavern.llm.wrappers import SchemaValidators, parse_json_answer

from .schema_values import REAL_SCHEMAS, json_values, valid_instances


@pytest.mark.parametrize("name", sorted(REAL_SCHEMAS))
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_answers_are_judged_as_jsonschema_judges_them(name: str, data: st.DataObject) -> None:
    schema = REAL_SCHEMAS[name]
    value = data.draw(valid_instances(schema) | json_values)
    validator = SchemaValidators().get(schema)
    content = json.dumps(value)
    if jsonschema.Draft202012Validator(schema).is_valid(value):
        assert parse_json_answer(content, validator) == json.loads(content)
    else:
        with pytest.raises(LlmCallError) as caught:
            parse_json_answer(content, validator)
        assert caught.value.error_type in ("schema", "parse")


def test_the_message_names_where_the_answer_breaks_the_schema() -> None:
    schema = {"type": "object", "patternProperties": {"^a": {"type": "string"}}}
    validator = SchemaValidators().get(schema)
    assert parse_json_answer('{"abc": "x", "b": 1}', validator) == {"abc": "x", "b": 1}
    with pytest.raises(LlmCallError) as caught:
        parse_json_answer('{"abc": 5}', validator)
    assert caught.value.message == "answer breaks the schema at abc: 5 is not of type 'string'"


def _mutation_is_seen(
    validators: SchemaValidators, mutate: Callable[[dict[str, Any]], None], schema: dict[str, Any]
) -> bool:
    """Validate '1' against `schema`, mutate it in place so '1' is invalid, validate again."""
    parse_json_answer("1", validators.get(schema))
    mutate(schema)
    try:
        parse_json_answer("1", validators.get(schema))
    except LlmCallError:
        return True
    return False


IN_PLACE_MUTATIONS: list[tuple[str, dict[str, Any], Callable[[dict[str, Any]], None]]] = [
    ("const 1 -> True", {"const": 1}, lambda s: s.update(const=True)),
    ("enum 1 -> 1.5", {"enum": [1]}, lambda s: s["enum"].__setitem__(0, 1.5)),
    ("nested type", {"anyOf": [{"type": "integer"}]}, lambda s: s["anyOf"][0].update(type="null")),
    ("added keyword", {"type": "integer"}, lambda s: s.update(maximum=0)),
    ("type list", {"type": ["integer"]}, lambda s: s["type"].__setitem__(0, "string")),
]


@pytest.mark.parametrize(
    ("label", "schema", "mutate"), IN_PLACE_MUTATIONS, ids=[m[0] for m in IN_PLACE_MUTATIONS]
)
def test_a_schema_changed_in_place_is_compiled_afresh(
    label: str, schema: dict[str, Any], mutate: Callable[[dict[str, Any]], None]
) -> None:
    assert _mutation_is_seen(SchemaValidators(), mutate, copy.deepcopy(schema))


class _ByIdentity(SchemaValidators):
    """Planted: validators filed by the schema object's identity, not its content."""

    def __init__(self) -> None:
        super().__init__()
        self._by_id: dict[int, Any] = {}

    def get(self, schema: dict[str, Any]) -> Any:
        return self._by_id.setdefault(id(schema), super().get(schema))


@pytest.mark.parametrize("label", [m[0] for m in IN_PLACE_MUTATIONS])
def test_negative_control_validators_filed_by_identity_go_stale(label: str) -> None:
    _, schema, mutate = next(m for m in IN_PLACE_MUTATIONS if m[0] == label)
    assert not _mutation_is_seen(_ByIdentity(), mutate, copy.deepcopy(schema))


def test_schemas_built_per_call_do_not_pile_up() -> None:
    validators = SchemaValidators()
    for limit in range(3 * SchemaValidators.LIMIT):
        parse_json_answer('"x"', validators.get({"type": "string", "maxLength": limit + 1}))
    assert len(validators._by_content) <= SchemaValidators.LIMIT


def test_a_broken_schema_raises_schema_error() -> None:
    with pytest.raises(jsonschema.SchemaError):
        SchemaValidators().get({"type": "nonsense"})
