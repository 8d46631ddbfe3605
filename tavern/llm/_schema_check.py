"""A compiled yes/no checker for the small subset of JSON Schema our output schemas use.

`jsonschema` builds an error tree for every answer, which costs close to a millisecond for
the Director's schema on every turn. Almost every answer is valid, and a valid answer needs
no message, so `compile_schema` turns a schema into nested closures that only answer "valid
or not", dispatching on the exact type of each value; `wrappers.parse_json_answer` asks
jsonschema only when the answer looks invalid, so error messages stay jsonschema's own.

The closures must agree with `jsonschema.Draft202012Validator(schema).is_valid` for every
value `json.loads` can return. Each supported keyword mirrors jsonschema's implementation
(`jsonschema/_keywords.py`, `_types.py`, `_utils.equal`); anything else, including keyword
values a checked schema would not hold, makes `compile_schema` return None, so an unfamiliar
schema simply keeps the jsonschema path.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable
from typing import Any

SchemaCheck = Callable[[Any], bool]
"""True when the value is valid against the compiled schema."""

_Table = dict[type, SchemaCheck]
"""A compiled schema: the check for each exact JSON type it can accept; a missing type is
invalid. One dict lookup on `type(value)` replaces jsonschema's per-keyword type tests."""

_NULL = type(None)
_JSON_TYPES: tuple[type, ...] = (str, int, float, bool, _NULL, list, dict)
_TYPE_NAMES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),  # and integral floats, added by `_restrict_type`
    "number": (int, float),
    "boolean": (bool,),
    "null": (_NULL,),
    "array": (list,),
    "object": (dict,),
}
_EQUALITY_GROUP: dict[type, type] = {t: t for t in _JSON_TYPES} | {int: float}
"""Values of different groups are never equal for `enum`/`const`; 1 and 1.0 are."""

_ANNOTATIONS = frozenset(
    "title description $comment default examples deprecated readOnly writeOnly".split()
)
"""Keywords that never change validity. `format` is left out on purpose: whether it asserts
depends on the validator's format checker, so a schema using it keeps the jsonschema path."""
_KEYWORDS = _ANNOTATIONS | frozenset(
    """type enum const minLength maxLength minItems maxItems items minimum maximum
    properties required additionalProperties""".split()
)


class _Unsupported(Exception):
    """The schema uses something this module does not implement exactly."""


def compile_schema(schema: Any) -> SchemaCheck | None:
    """A fast validity check for `schema`, or None when it uses an unsupported keyword.

    For values `json.loads` returns, the check answers exactly as
    `jsonschema.Draft202012Validator(schema).is_valid`. A value holding any other type (a
    subclass, a tuple, a Decimal) is reported invalid, so a caller falling back to
    jsonschema on False still gets jsonschema's answer. The schema is read once: later
    changes to it do not reach the check.
    """
    try:
        table = _compile(schema)
    except _Unsupported:
        return None
    return lambda value: table.get(type(value), _never)(value)


def json_equal(one: Any, two: Any) -> bool:
    """Equality as `enum` and `const` see it (`jsonschema._utils.equal`): 1 == 1.0, True != 1."""
    if one is two:
        return True
    if isinstance(one, str) or isinstance(two, str):
        return bool(one == two)
    if isinstance(one, list) and isinstance(two, list):
        return len(one) == len(two) and all(map(json_equal, one, two))
    if isinstance(one, dict) and isinstance(two, dict):
        return len(one) == len(two) and all(
            key in two and json_equal(value, two[key]) for key, value in one.items()
        )
    if isinstance(one, bool | list | dict) or isinstance(two, bool | list | dict):
        return False  # a bool equals only itself (caught by `is`), unlike Python's True == 1
    return bool(one == two)


def _always(value: Any) -> bool:
    return True


def _never(value: Any) -> bool:
    return False


def _compile(schema: Any) -> _Table:
    if schema is True:
        return dict.fromkeys(_JSON_TYPES, _always)
    if schema is False:
        return {}
    if not isinstance(schema, dict) or not schema.keys() <= _KEYWORDS:
        raise _Unsupported
    checks: dict[type, list[SchemaCheck]] = {kind: [] for kind in _JSON_TYPES}
    # Type and enum first: they drop whole kinds, and later keywords attach only to the rest.
    if "type" in schema:
        _restrict_type(checks, schema["type"])
    if "enum" in schema:
        _restrict_enum(checks, schema["enum"])
    if "const" in schema:
        _restrict_enum(checks, [schema["const"]])
    if "minLength" in schema or "maxLength" in schema:
        _attach(checks, (str,), _length_check(schema, "minLength", "maxLength"))
    if "minItems" in schema or "maxItems" in schema:
        _attach(checks, (list,), _length_check(schema, "minItems", "maxItems"))
    if "items" in schema:
        _attach(checks, (list,), _items_check(_compile(schema["items"])))
    if "minimum" in schema or "maximum" in schema:
        _attach(checks, (int, float), _bounds_check(schema))
    if {"properties", "required", "additionalProperties"} & schema.keys():
        _attach(checks, (dict,), _object_check(schema))
    return {kind: _all_of(kind_checks) for kind, kind_checks in checks.items()}


def _attach(
    checks: dict[type, list[SchemaCheck]], kinds: tuple[type, ...], check: SchemaCheck
) -> None:
    for kind in kinds:
        if kind in checks:
            checks[kind].append(check)


def _all_of(checks: list[SchemaCheck]) -> SchemaCheck:
    if not checks:
        return _always
    if len(checks) == 1:
        return checks[0]
    if len(checks) == 2:
        first, second = checks
        return lambda value: first(value) and second(value)
    frozen = tuple(checks)
    return lambda value: all(check(value) for check in frozen)


def _restrict_type(checks: dict[type, list[SchemaCheck]], types: Any) -> None:
    names = [types] if isinstance(types, str) else types
    if not isinstance(names, list) or not names or not all(n in _TYPE_NAMES for n in names):
        raise _Unsupported
    allowed = {kind for name in names for kind in _TYPE_NAMES[name]}
    integral_floats_only = "integer" in names and float not in allowed
    for kind in [kind for kind in checks if kind not in allowed]:
        del checks[kind]
    if integral_floats_only:  # Draft 6 onwards: 1.0 is an integer
        checks[float] = [float.is_integer]


def _is_plain_json(value: Any) -> bool:
    """JSON data of exact types, without NaN or infinities (NaN is not equal to itself)."""
    if type(value) is list:
        return all(map(_is_plain_json, value))
    if type(value) is dict:
        return all(type(k) is str and _is_plain_json(v) for k, v in value.items())
    if type(value) is float:
        return math.isfinite(value)
    return type(value) in _EQUALITY_GROUP


def _restrict_enum(checks: dict[type, list[SchemaCheck]], members: Any) -> None:
    if type(members) is not list or not _is_plain_json(members):
        raise _Unsupported
    for kind in list(checks):
        alike = [m for m in members if _EQUALITY_GROUP[type(m)] is _EQUALITY_GROUP[kind]]
        if not alike:
            del checks[kind]
        elif kind in (list, dict):
            checks[kind].append(_equal_to_any(copy.deepcopy(alike)))
        elif kind is not _NULL:  # within one group `==` is JSON equality, so a set works
            checks[kind].append(frozenset(alike).__contains__)


def _equal_to_any(choices: list[Any]) -> SchemaCheck:
    return lambda value: any(json_equal(value, choice) for choice in choices)


def _count(value: Any) -> int:
    if type(value) is not int or value < 0:
        raise _Unsupported
    return value


def _length_check(schema: dict[str, Any], low_key: str, high_key: str) -> SchemaCheck:
    low = _count(schema.get(low_key, 0))
    high = _count(schema[high_key]) if high_key in schema else math.inf
    return lambda value: low <= len(value) <= high


def _items_check(item: _Table) -> SchemaCheck:
    def check(value: list[Any]) -> bool:
        for element in value:
            if not item.get(type(element), _never)(element):
                return False
        return True

    return check


def _bound(schema: dict[str, Any], key: str, absent: float) -> float:
    if key not in schema:
        return absent
    bound: float = schema[key]
    if type(bound) not in (int, float) or not math.isfinite(bound):
        raise _Unsupported
    return bound


def _bounds_check(schema: dict[str, Any]) -> SchemaCheck:
    low, high = _bound(schema, "minimum", -math.inf), _bound(schema, "maximum", math.inf)
    # `not (x < low)` rather than `x >= low`: jsonschema tests `instance < minimum`, and a
    # NaN (which `json.loads` accepts) is below nothing and above nothing.
    return lambda value: not (value < low or value > high)


def _object_check(schema: dict[str, Any]) -> SchemaCheck:
    properties = schema.get("properties", {})
    required = schema.get("required", [])
    if type(properties) is not dict or type(required) is not list:
        raise _Unsupported
    if not all(type(key) is str for key in [*properties, *required]):
        raise _Unsupported
    property_tables = {key: _compile(sub) for key, sub in properties.items()}
    required_keys = frozenset(required)
    extra = _compile(schema["additionalProperties"]) if "additionalProperties" in schema else None

    def check(value: dict[str, Any]) -> bool:
        if not value.keys() >= required_keys:
            return False
        for key, item in value.items():
            item_table = property_tables.get(key, extra)
            if item_table is not None and not item_table.get(type(item), _never)(item):
                return False
        return True

    return check
