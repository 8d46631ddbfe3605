"""A GBNF grammar for compact JSON: the answers our schemas allow, with no whitespace at all.

llama.cpp turns a `response_format` JSON Schema into a grammar whose whitespace rule lets the
model indent, and the embedded 0.5B model always pretty-prints. The Director's answers of
three soaks, re-encoded without whitespace, were 28.5% fewer tokens (12,375 -> 8,847 by the
server's tokenizer), and each token is model time; asking for one-line JSON in the prompt did
not change the model's habit. The server also takes a GBNF `grammar` in place of a schema, so
`compact_grammar` writes one for the subset of JSON Schema our agents use:

- `type` (one or a list), `enum`; strings with `minLength` / `maxLength`; integers (a range of
  up to 64 values is listed, any other integer has at most 16 digits); booleans; null;
- arrays with `items`, `minItems`, `maxItems`;
- objects with `properties`, at least one of them `required`, and `additionalProperties:
  false`, written in `property_order` (the first required property, then the others in their
  listed order, each optional one written or left out), or maps (`additionalProperties` a
  schema, no properties; keys of at most `MAX_KEY_CHARS` characters).

Anything else (`pattern`, `number`, an object with nothing required, `$ref`, ...) makes it
return None,
and the caller sends the schema instead. The answer is validated against the schema all the
same (`ValidatingProvider`): the grammar only spares the model its whitespace.
"""

from __future__ import annotations

import json
from typing import Any

CHAR_RULE = r'char ::= [^"\\\x7F\x00-\x1F] | [\\] (["\\bfnrt] | "u" [0-9a-fA-F]{4})'
"""One character of a JSON string, as written inside the quotes (an escape counts as one)."""
MAX_LISTED_RANGE = 64
MAX_KEY_CHARS = 64
"""A map's keys (character ids in `mood_updates`) are at most this long: a bound keeps a small
model from looping inside a key."""
_IGNORED = {"description", "title", "examples", "default"}


class Unsupported(ValueError):
    """The schema uses a keyword or a shape this generator does not write."""


def compact_grammar(schema: dict[str, Any]) -> str | None:
    """The GBNF grammar of `schema`'s compact JSON texts, or None for an unsupported schema.

    >>> print(compact_grammar({"type": "object", "additionalProperties": False,
    ...     "required": ["n"], "properties": {"n": {"type": "string", "maxLength": 3}}}))
    root ::= "{" "\\"n\\"" ":" "\\"" char{0,3} "\\"" "}"
    char ::= [^"\\\\\\x7F\\x00-\\x1F] | [\\\\] (["\\\\bfnrt] | "u" [0-9a-fA-F]{4})
    """
    try:
        root = _value(schema)
    except Unsupported:
        return None
    return f"root ::= {root}\n{CHAR_RULE}"


def _literal(text: str) -> str:
    """A GBNF literal matching `text` exactly."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _check(schema: dict[str, Any], allowed: set[str]) -> None:
    unknown = set(schema) - allowed - _IGNORED
    if unknown:
        raise Unsupported(f"keywords {sorted(unknown)}")


def _value(schema: Any) -> str:
    if not isinstance(schema, dict):
        raise Unsupported("a schema that is not an object")
    if "enum" in schema:
        _check(schema, {"enum", "type"})
        values = [
            _literal(json.dumps(v, ensure_ascii=False, separators=(",", ":")))
            for v in schema["enum"]
        ]
        return "(" + " | ".join(values) + ")"
    kind = schema.get("type")
    if isinstance(kind, list):
        return "(" + " | ".join(_value({**schema, "type": k}) for k in kind) + ")"
    if kind == "string":
        _check(schema, {"type", "minLength", "maxLength"})
        low, high = schema.get("minLength", 0), schema.get("maxLength")
        return f'"\\"" char{_repeat(low, high)} "\\""'
    if kind == "integer":
        _check(schema, {"type", "minimum", "maximum"})
        return _integer(schema.get("minimum"), schema.get("maximum"))
    if kind == "boolean":
        _check(schema, {"type"})
        return '("true" | "false")'
    if kind == "null":
        _check(schema, {"type", "maxLength", "minLength", "minimum", "maximum"})
        return '"null"'
    if kind == "array":
        _check(schema, {"type", "items", "minItems", "maxItems"})
        return _array(schema)
    if kind == "object":
        return _object(schema)
    raise Unsupported(f"type {kind!r}")


def _repeat(low: int, high: int | None) -> str:
    return f"{{{low},}}" if high is None else f"{{{low},{high}}}"


def _integer(low: Any, high: Any) -> str:
    if isinstance(low, int) and isinstance(high, int) and 0 <= high - low < MAX_LISTED_RANGE:
        return "(" + " | ".join(_literal(str(n)) for n in range(low, high + 1)) + ")"
    if isinstance(low, int) and low >= 0:
        return '("0" | [1-9] [0-9]{0,15})'
    return '("-"? ("0" | [1-9] [0-9]{0,15}))'


def _array(schema: dict[str, Any]) -> str:
    if "items" not in schema:
        raise Unsupported("an array without items")
    item = _value(schema["items"])
    low, high = schema.get("minItems", 0), schema.get("maxItems")
    if high == 0:
        return '"[" "]"'
    more = _repeat(max(0, low - 1), None if high is None else high - 1)
    body = f'{item} ("," {item}){more}'
    return f'"[" {body} "]"' if low >= 1 else f'"[" ({body})? "]"'


def property_order(schema: dict[str, Any]) -> list[str]:
    """The order the grammar writes an object's properties in: the first required one leads,
    so that every later member starts with its comma whether or not it is written.

    >>> property_order({"properties": {"a": {}, "b": {}, "c": {}}, "required": ["b"]})
    ['b', 'a', 'c']
    """
    names = list(schema["properties"])
    required = set(schema.get("required", []))
    first = next((name for name in names if name in required), None)
    if first is None:
        raise Unsupported("an object with no required property")
    return [first, *(name for name in names if name != first)]


def _object(schema: dict[str, Any]) -> str:
    _check(schema, {"type", "properties", "required", "additionalProperties", "maxProperties"})
    properties = schema.get("properties")
    extra = schema.get("additionalProperties", True)
    if properties:
        if extra is not False:
            raise Unsupported("an object with extra properties")
        required = set(schema.get("required", []))
        first, *rest = property_order(schema)
        body = [f'{_literal(json.dumps(first))} ":" {_value(properties[first])}']
        for name in rest:
            member = f'"," {_literal(json.dumps(name))} ":" {_value(properties[name])}'
            body.append(member if name in required else f"({member})?")
        return '"{" ' + " ".join(body) + ' "}"'
    if isinstance(extra, dict):
        pair = f'"\\"" char{{0,{MAX_KEY_CHARS}}} "\\"" ":" {_value(extra)}'
        high = schema.get("maxProperties")
        more = _repeat(0, None if high is None else high - 1)
        return f'"{{" ({pair} ("," {pair}){more})? "}}"'
    raise Unsupported("an object without properties or a value schema")
