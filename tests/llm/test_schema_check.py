"""The compiled schema check answers exactly as jsonschema's Draft 2020-12 validator.

`parse_json_answer` trusts `compile_schema`'s "valid" without asking jsonschema, so a check
more lenient than jsonschema would let a broken answer through. Every real output schema
and a set of synthetic schemas (one or two keywords each, with JSON's 1 / 1.0 / True edge
cases) are checked on generated valid answers, mutations of them and arbitrary JSON, and
each guard is shown to fail when it is deliberately broken.
"""

from __future__ import annotations

import copy
import functools
import importlib
import json
from collections.abc import Callable, Iterator
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, Phase, find, given, settings
from hypothesis import strategies as st
from hypothesis.errors import NoSuchExample
from hypothesis_jsonschema import from_schema

from tavern.llm import _schema_check, wrappers
from tavern.llm._schema_check import compile_schema
from tavern.llm.errors import LlmCallError
from tavern.llm.local.cache_probe import PROBE_SCHEMA
from tavern.llm.wrappers import parse_json_answer

AGENTS = ("director", "prose", "character", "suggest", "openings")
REAL_SCHEMAS: dict[str, Any] = {
    name: importlib.import_module(f"tavern.agents.{name}").OUTPUT_SCHEMA for name in AGENTS
} | {"cache_probe": PROBE_SCHEMA}

SYNTHETIC_SCHEMAS: dict[str, Any] = {
    "true": True,
    "false": False,
    "empty": {},
    "annotations_only": {"title": "t", "description": "d", "$comment": "c", "default": 3},
    "integer": {"type": "integer"},
    "number": {"type": "number"},
    "integer_or_number": {"type": ["integer", "number"]},
    "boolean": {"type": "boolean"},
    "null": {"type": "null"},
    "type_list": {"type": ["boolean", "integer", "object", "null"]},
    "const_one": {"const": 1},
    "const_true": {"const": True},
    "const_float": {"const": 1.0},
    "const_zero": {"const": 0},
    "const_nested": {"const": {"a": [1, True, None], "b": 0.5}},
    "enum_mixed": {"enum": [1, True, None, "a", 2.5, [1, False], {"k": 1.0}]},
    "enum_bools": {"enum": [False]},
    "enum_strings_null": {"enum": ["open", "sealed", None]},
    "enum_empty": {"enum": []},
    "enum_typed_integer": {"type": "integer", "enum": [1, 2.0, True]},
    "string_lengths": {"type": "string", "minLength": 2, "maxLength": 3},
    "lengths_untyped": {"minLength": 1, "maxLength": 2, "minItems": 1, "maxItems": 2},
    "array": {
        "type": "array",
        "minItems": 1,
        "maxItems": 3,
        "items": {"type": ["integer", "null"]},
    },
    "items_false": {"items": False},
    "items_true": {"type": "array", "items": True},
    "bounds": {"type": "number", "minimum": -1.5, "maximum": 10},
    "bounds_untyped": {"minimum": 0, "maximum": 1},
    "integer_minimum": {"type": "integer", "minimum": 0},
    "object": {
        "type": "object",
        "properties": {"a": {"type": "boolean"}, "b": {"const": 1}},
        "required": ["a", "c"],
        "additionalProperties": {"type": "number", "maximum": 5},
    },
    "object_untyped": {"properties": {"a": False}, "required": ["x"]},
    "object_closed": {"type": "object", "additionalProperties": False},
    "object_open_true": {"properties": {"a": {"type": "string"}}, "additionalProperties": True},
}

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


def _spots(value: Any) -> Iterator[tuple[Any, Any]]:
    """(container, key or index) for every nested value."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield value, key
            yield from _spots(item)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield value, index
            yield from _spots(item)


def _look_alikes(number: Any) -> list[Any]:
    """Values Python calls equal to `number` that JSON Schema may not: 1, 1.0, True."""
    if isinstance(number, bool):
        return [int(number), float(number)]
    return [float(number)] + ([bool(number)] if number in (0, 1) else [])


# mutation -> which values it applies to
MUTATIONS: dict[str, Callable[[Any], bool]] = {
    "replace": lambda target: True,  # a wrong type, a bad enum value, anything
    "drop_key": lambda target: isinstance(target, dict) and bool(target),
    "add_key": lambda target: isinstance(target, dict),
    "grow_string": lambda target: isinstance(target, str),
    "grow_list": lambda target: isinstance(target, list),
    "drop_item": lambda target: isinstance(target, list) and bool(target),
    "nudge_number": lambda target: type(target) in (int, float),
    "swap_look_alike": lambda target: type(target) in (int, bool) and abs(target) < 2**53,
}


@st.composite
def mutated(draw: st.DrawFn, valid: st.SearchStrategy[Any]) -> Any:
    """A valid instance with one thing changed somewhere: usually, but not always, invalid."""
    # How and where to mutate are drawn before the instance: after a large draw, Hypothesis
    # mostly picks the simplest choice, which made most mutations replace the root. Where,
    # and by how much, come from a seeded Random, which Hypothesis does not bias to index 0.
    mutation = draw(st.sampled_from(sorted(MUTATIONS)))
    rng = draw(st.randoms(use_true_random=True))
    root = {"root": copy.deepcopy(draw(valid))}
    spots = [(root, "root"), *_spots(root["root"])]
    spots = [spot for spot in spots if MUTATIONS[mutation](spot[0][spot[1]])]
    if not spots:
        mutation, spots = "replace", [(root, "root")]
    container, key = rng.choice(spots)
    target = container[key]
    if mutation == "drop_key":
        del target[rng.choice(sorted(target))]
    elif mutation == "add_key":
        target[draw(keys)] = draw(json_values)
    elif mutation == "grow_string":
        container[key] = target + rng.choice("xé😀 ") * rng.choice([1, 2, 100, 500, 2000])
    elif mutation == "grow_list":
        more = json_values | st.sampled_from(target or [0])
        target.extend(draw(st.lists(more, min_size=1, max_size=6)))
    elif mutation == "drop_item":
        del target[rng.randrange(len(target))]
    elif mutation == "nudge_number":
        container[key] = target + rng.choice([-1, 1, -0.5, 0.5, -1000, 1000])
    elif mutation == "swap_look_alike":
        container[key] = rng.choice(_look_alikes(target))
    else:
        container[key] = draw(json_values)
    return root["root"]


def candidates(schema: Any) -> st.SearchStrategy[Any]:
    """Valid instances, mutations of them, and arbitrary JSON values."""
    if schema is False or schema == {"enum": []}:
        return json_values
    valid = valid_instances(schema)
    return st.one_of(valid, mutated(valid), mutated(valid), json_values)


def agrees(check: Callable[[Any], bool], schema: Any, value: Any) -> bool:
    return check(value) == _validator(json.dumps(schema)).is_valid(value)


@functools.lru_cache
def _validator(schema_json: str) -> Any:
    return jsonschema.Draft202012Validator(json.loads(schema_json))


def compiled(schema: Any) -> Callable[[Any], bool]:
    check = compile_schema(schema)
    assert check is not None
    return check


PROPERTY_SETTINGS = settings(
    max_examples=30,  # x 38 schemas x 2 properties: ~2,300 answers a run
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


@pytest.mark.parametrize("name", sorted(REAL_SCHEMAS))
@PROPERTY_SETTINGS
@given(data=st.data())
def test_generated_answers_pass_the_compiled_check(name: str, data: st.DataObject) -> None:
    schema = REAL_SCHEMAS[name]
    value = data.draw(valid_instances(schema))
    assert compiled(schema)(value)
    assert jsonschema.Draft202012Validator(schema).is_valid(value)


@pytest.mark.parametrize("name", sorted(REAL_SCHEMAS) + sorted(SYNTHETIC_SCHEMAS))
@PROPERTY_SETTINGS
@given(data=st.data())
def test_compiled_check_agrees_with_jsonschema(name: str, data: st.DataObject) -> None:
    schema = (REAL_SCHEMAS | SYNTHETIC_SCHEMAS)[name]
    value = data.draw(candidates(schema))
    assert agrees(compiled(schema), schema, value)


@pytest.mark.parametrize(
    ("schema", "value", "valid"),
    [
        ({"type": "integer"}, True, False),  # bool is an int in Python, not in JSON
        ({"type": "integer"}, 1.0, True),  # an integral float is an integer since draft 6
        ({"type": "integer"}, 1.5, False),
        ({"type": "integer"}, float("inf"), False),
        ({"type": "number"}, False, False),
        ({"type": "number"}, float("nan"), True),  # json.loads accepts NaN
        ({"type": "boolean"}, 0, False),
        ({"const": 1}, True, False),
        ({"const": 1}, 1.0, True),
        ({"const": True}, 1, False),
        ({"const": False}, 0.0, False),
        ({"const": [1]}, [True], False),
        ({"const": [1]}, [1.0], True),
        ({"const": {"a": 0}}, {"a": False}, False),
        ({"const": {"a": 0}}, {"a": 0.0}, True),
        ({"enum": [1, "a"]}, True, False),
        ({"enum": [True]}, 1, False),
        ({"enum": [10**20]}, 1e20, True),  # exact int/float comparison
        ({"enum": [10**20 + 1]}, 1e20, False),
        ({"enum": ["a", None]}, None, True),
        ({"enum": ["a"]}, None, False),
        ({"maxLength": 1}, "😀", True),  # one code point, two UTF-16 units
        ({"maxLength": 1}, "e\u0301", False),  # two code points, one glyph
        ({"minLength": 1}, "", False),
        ({"maxLength": 0}, 5, True),  # string keywords ignore other types
        ({"minimum": 0}, float("nan"), True),  # jsonschema tests `instance < minimum`
        ({"minimum": 0}, -0.0, True),
        ({"maximum": 1}, True, True),  # bounds ignore booleans
        ({"maximum": 1e20}, 10**20 + 1, False),
        ({"required": ["a"]}, ["a"], True),  # object keywords ignore arrays
        ({"items": {"type": "string"}}, {"a": 1}, True),
        ({"items": False}, [], True),
        ({"items": False}, [None], False),
    ],
)
def test_json_edge_cases(schema: dict[str, Any], value: Any, valid: bool) -> None:
    assert jsonschema.Draft202012Validator(schema).is_valid(value) is valid
    assert compiled(schema)(value) is valid


def test_values_json_never_produces_are_left_to_jsonschema() -> None:
    # A tuple or a subclass is not JSON: the check says "invalid", so parse_json_answer's
    # fallback asks jsonschema, which stays the authority on such values.
    check = compiled({"type": "array"})
    assert not check((1, 2))
    assert not compiled({"type": "string"})(type("Sub", (str,), {})("x"))


def _without(keyword: str, schema: Any) -> Any:
    """`schema` with `keyword` removed at every depth."""
    if isinstance(schema, dict):
        return {k: _without(keyword, v) for k, v in schema.items() if k != keyword}
    if isinstance(schema, list):
        return [_without(keyword, v) for v in schema]
    return schema


def _disagreement(check: Callable[[Any], bool], schema: Any) -> Any:
    """The property tests' machinery hunting for a value where `check` is wrong."""
    return find(
        candidates(schema),
        lambda value: not agrees(check, schema, value),
        # The first disagreement is proof enough: shrinking a Director answer is slow.
        settings=settings(
            max_examples=3000,
            database=None,
            deadline=None,
            phases=[Phase.generate],
            derandomize=True,  # the same search on every run: a control must not flake
        ),
    )


@pytest.mark.parametrize(
    ("name", "dropped"),
    [
        ("director", "required"),
        ("director", "additionalProperties"),
        ("director", "maxLength"),
        ("director", "type"),
        ("openings", "minItems"),
        ("suggest", "maxItems"),
        ("enum_strings_null", "enum"),
        ("const_one", "const"),
        ("bounds", "minimum"),
        ("bounds", "maximum"),
        ("array", "items"),
    ],
)
def test_negative_control_a_checker_ignoring_a_keyword_is_caught(name: str, dropped: str) -> None:
    schema = (REAL_SCHEMAS | SYNTHETIC_SCHEMAS)[name]
    broken = compiled(_without(dropped, schema))
    counterexample = _disagreement(broken, schema)
    assert broken(counterexample)
    assert not jsonschema.Draft202012Validator(schema).is_valid(counterexample)


@pytest.mark.parametrize("name", ["const_one", "enum_mixed", "integer", "const_nested"])
def test_negative_control_python_equality_is_caught(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Group bools with numbers and treat bools as ints, as plain Python would: True == 1.
    monkeypatch.setitem(_schema_check._EQUALITY_GROUP, bool, float)
    monkeypatch.setitem(_schema_check._TYPE_NAMES, "integer", (int, bool))
    monkeypatch.setattr(_schema_check, "json_equal", lambda one, two: one == two)
    schema = SYNTHETIC_SCHEMAS[name]
    naive = compiled(schema)
    counterexample = _disagreement(naive, schema)
    assert naive(counterexample) != jsonschema.Draft202012Validator(schema).is_valid(counterexample)


def test_find_raises_when_the_check_is_right() -> None:
    # The negative controls rely on `find` failing loudly when no disagreement exists.
    with pytest.raises(NoSuchExample):
        find(
            candidates(SYNTHETIC_SCHEMAS["const_one"]),
            lambda v: not agrees(compiled({"const": 1}), {"const": 1}, v),
            settings=settings(max_examples=200, database=None, deadline=None),
        )


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "string", "format": "email"},
        {"type": "object", "patternProperties": {"^a": {"type": "string"}}},
        {"$defs": {"s": {"type": "string"}}, "$ref": "#/$defs/s"},
        {"anyOf": [{"type": "string"}, {"type": "null"}]},
        {"type": "array", "prefixItems": [{"type": "string"}]},
        {"$schema": "http://json-schema.org/draft-07/schema#", "type": "integer"},
        {"properties": {"a": {"type": "string", "pattern": "^x"}}},
        {"type": "string", "maxLength": 2.0},  # valid in 2020-12; left to jsonschema
        {"enum": [float("nan")]},
        {"type": "strings"},
    ],
)
def test_unsupported_schemas_do_not_compile(schema: dict[str, Any]) -> None:
    assert compile_schema(schema) is None


def _reference_message(content: str, schema: dict[str, Any]) -> str | None:
    """The message `parse_json_answer` gave before the quick check existed.

    Like it, this validates a key-sorted copy of the schema: `best_match` breaks ties by
    the order errors come in, which follows the schema's key order.
    """
    value = json.loads(content)
    schema = json.loads(json.dumps(schema, sort_keys=True))
    validator = jsonschema.validators.validator_for(
        schema, default=jsonschema.Draft202012Validator
    )(schema)
    error = jsonschema.exceptions.best_match(validator.iter_errors(value))
    if error is None:
        return None
    where = "/".join(str(p) for p in error.absolute_path) or "(root)"
    return f"answer breaks the schema at {where}: {error.message}"


def _message(content: str, schema: dict[str, Any]) -> str | None:
    try:
        parse_json_answer(content, schema)
    except LlmCallError as exc:
        assert exc.error_type == "schema"
        return exc.message
    return None


def test_unsupported_schema_is_still_validated_by_jsonschema() -> None:
    schema = {"type": "object", "patternProperties": {"^a": {"type": "string"}}}
    assert parse_json_answer('{"abc": "x", "b": 1}', schema) == {"abc": "x", "b": 1}
    message = _message('{"abc": 5}', schema)
    assert message == _reference_message('{"abc": 5}', schema)
    assert message == "answer breaks the schema at abc: 5 is not of type 'string'"


@pytest.mark.parametrize("name", sorted(REAL_SCHEMAS))
@PROPERTY_SETTINGS
@given(data=st.data())
def test_parse_json_answer_keeps_its_messages(name: str, data: st.DataObject) -> None:
    schema = REAL_SCHEMAS[name]
    answer = data.draw(mutated(valid_instances(schema)))
    content = json.dumps(answer)
    try:
        json.dumps(answer, allow_nan=False)
    except ValueError:  # NaN or an infinity: not JSON, refused before any schema check
        with pytest.raises(LlmCallError, match="is not JSON"):
            parse_json_answer(content, schema)
        return
    assert _message(content, schema) == _reference_message(content, schema)


def test_valid_answers_skip_jsonschema(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(errors: Any, *args: Any, **kwargs: Any) -> Any:
        raise AssertionError("jsonschema was asked about a valid answer")

    monkeypatch.setattr(jsonschema.exceptions, "best_match", refuse)
    schema = REAL_SCHEMAS["character"]
    answer = {"speech": "Hello.", "thought": None, "action_intent": None}
    assert parse_json_answer(json.dumps(answer), schema) == answer
    with pytest.raises(AssertionError, match="jsonschema was asked"):
        parse_json_answer(json.dumps({**answer, "speech": 7}), schema)


# The identity memo: an in-place change to a schema dict must never meet a stale check.


def _mutation_is_seen(mutate: Callable[[dict[str, Any]], None], schema: dict[str, Any]) -> bool:
    """Validate '1' against `schema`, mutate it in place so '1' is invalid, validate again."""
    parse_json_answer("1", schema)
    mutate(schema)
    try:
        parse_json_answer("1", schema)
    except LlmCallError:
        return True
    return False


IN_PLACE_MUTATIONS: list[tuple[str, dict[str, Any], Callable[[dict[str, Any]], None]]] = [
    ("const 1 -> True", {"const": 1}, lambda s: s.update(const=True)),
    ("enum 1 -> 1.5", {"enum": [1]}, lambda s: s["enum"].__setitem__(0, 1.5)),
    ("nested type", {"anyOf": [{"type": "integer"}]}, lambda s: s["anyOf"][0].update(type="null")),
    ("added keyword", {"type": "integer"}, lambda s: s.update(maximum=0)),
    ("maximum 1 -> 0", {"maximum": 1}, lambda s: s.update(maximum=0)),
    ("type list", {"type": ["integer"]}, lambda s: s["type"].__setitem__(0, "string")),
]


@pytest.mark.parametrize(
    ("label", "schema", "mutate"), IN_PLACE_MUTATIONS, ids=[m[0] for m in IN_PLACE_MUTATIONS]
)
def test_a_schema_mutated_in_place_is_recompiled(
    label: str, schema: dict[str, Any], mutate: Callable[[dict[str, Any]], None]
) -> None:
    assert _mutation_is_seen(mutate, copy.deepcopy(schema))


class _AlwaysEqual:
    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = None  # type: ignore[assignment]


@pytest.mark.parametrize(
    ("sabotage", "label"),
    [("loose_scalars", "const 1 -> True"), ("no_compare", "nested type")],
)
def test_negative_control_a_weakened_memo_guard_goes_stale(
    sabotage: str, label: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if sabotage == "loose_scalars":  # plain `==`, where 1 == True
        monkeypatch.setattr(
            wrappers._ExactScalar, "__eq__", lambda self, other: other == self.value
        )
    else:
        monkeypatch.setattr(wrappers, "_exact_snapshot", lambda value: _AlwaysEqual())
    _, schema, mutate = next(m for m in IN_PLACE_MUTATIONS if m[0] == label)
    assert not _mutation_is_seen(mutate, copy.deepcopy(schema))


def test_schema_validator_follows_in_place_changes() -> None:
    schema: dict[str, Any] = {"type": "object", "required": ["a"]}
    assert wrappers.schema_validator(schema).schema == schema
    schema["required"].append("b")
    assert wrappers.schema_validator(schema).schema == {"type": "object", "required": ["a", "b"]}


def test_schemas_built_per_call_do_not_pile_up() -> None:
    for limit in range(3 * wrappers._IDENTITY_MEMO_SIZE):
        parse_json_answer('"x"', {"type": "string", "maxLength": limit + 1})
    assert len(wrappers._by_identity) <= wrappers._IDENTITY_MEMO_SIZE


def test_a_schema_that_is_not_plain_json_is_not_memoized() -> None:
    schema: dict[str, Any] = {"enum": ("a", "b")}  # a tuple: json.dumps makes it a list
    assert parse_json_answer('"a"', schema) == "a"
    assert id(schema) not in wrappers._by_identity
    with pytest.raises(LlmCallError):
        parse_json_answer('"c"', schema)


def test_a_broken_schema_still_raises_schema_error() -> None:
    with pytest.raises(jsonschema.SchemaError):
        parse_json_answer("1", {"type": "nonsense"})
