"""A deterministic generator of JSON values valid against a JSON Schema.

The fake provider's modes differ only in *choices* (what text, how many items, which enum
value); this module owns the *structure*: objects, arrays, enums, consts, nullable types,
`anyOf`/`oneOf`/`allOf`, local `$ref`s and numeric/length bounds. A `Chooser` makes every
choice, so a mode is a small class.

Supported subset (what pydantic-generated and hand-written agent schemas use): `type` (single
or list), `enum`, `const`, `properties`, `required`, `additionalProperties` (bool or schema),
`minProperties`/`maxProperties`, `items`, `prefixItems`, `minItems`/`maxItems`,
`uniqueItems`, `minLength`/`maxLength`, `pattern`, `format` (date-time, date, email, uri,
uuid), `minimum`/`maximum`/`exclusiveMinimum`/`exclusiveMaximum`/`multipleOf`,
`anyOf`/`oneOf`/`allOf`, `$ref` into `$defs`/`definitions`.
"""

from __future__ import annotations

import math
import random
import re
from typing import Any, Protocol

import jsonschema

from tavern.llm.regex_sample import sample_regex

Path = tuple[str, ...]
UNBOUNDED_ITEMS = 12
FORMATS = {
    "date-time": "2026-01-01T00:00:00Z",
    "date": "2026-01-01",
    "email": "someone@example.com",
    "uri": "https://example.com/",
    "uuid": "00000000-0000-4000-8000-000000000000",
}


class Chooser(Protocol):
    """Makes every free choice of the generator. `path` is the JSON path of the value."""

    rng: random.Random

    def text(self, path: Path, min_len: int, max_len: int | None) -> str:
        """Free text for a string without enum, pattern or format."""
        ...

    def pattern_candidates(self, path: Path) -> list[str]:
        """Strings worth trying first for a `pattern` string (e.g. ids seen in the prompt)."""
        ...

    def integer(self, path: Path, lo: int | None, hi: int | None) -> int:
        """An integer within the (inclusive) bounds."""
        ...

    def array_length(self, path: Path, lo: int, hi: int | None) -> int:
        """How many items; must lie within [lo, hi]."""
        ...

    def include_optional(self, path: Path, key: str) -> bool:
        """Whether to emit a non-required property."""
        ...

    def extra_keys(self, path: Path, count_hint: int) -> list[str]:
        """Keys for `additionalProperties` schemas (at least `count_hint` of them)."""
        ...

    def pick_index(self, path: Path, options: list[Any]) -> int:
        """Index of the enum value / branch / type to use; `None` options are hints."""
        ...

    def boolean(self, path: Path) -> bool:
        """A boolean."""
        ...


class SchemaGenerator:
    """Generate values for `root` (a whole schema with its `$defs`) using `chooser`."""

    def __init__(self, root: dict[str, Any], chooser: Chooser) -> None:
        self.root = root
        self.chooser = chooser

    def generate(self) -> Any:
        """One value for the root schema."""
        return self.value(self.root, ())

    def _resolve(self, schema: dict[str, Any]) -> dict[str, Any]:
        seen = 0
        while "$ref" in schema:
            ref = schema["$ref"]
            if not isinstance(ref, str) or not ref.startswith("#/"):
                raise ValueError(f"only local $ref is supported, got {ref!r}")
            node: Any = self.root
            for part in ref[2:].split("/"):
                node = node[part.replace("~1", "/").replace("~0", "~")]
            siblings = {k: v for k, v in schema.items() if k != "$ref"}
            schema = {**node, **siblings}
            seen += 1
            if seen > 50:
                raise ValueError("recursive $ref")
        return schema

    def value(self, schema: Any, path: Path) -> Any:
        """One value for `schema` at `path`."""
        if schema is True or schema == {}:
            return self.chooser.text(path, 0, None)
        if not isinstance(schema, dict):
            raise ValueError(f"unsupported schema node at {'/'.join(path)}: {schema!r}")
        schema = self._resolve(schema)
        if "const" in schema:
            return schema["const"]
        if "enum" in schema:
            values = list(schema["enum"])
            return values[self.chooser.pick_index(path, values)]
        if "allOf" in schema:
            merged = dict(schema)
            for part in merged.pop("allOf"):
                merged = _merge(merged, self._resolve(part))
            return self.value(merged, path)
        for key in ("anyOf", "oneOf"):
            if key in schema:
                branches = [self._resolve(b) for b in schema[key]]
                hints = [None if b.get("type") == "null" else b for b in branches]
                rest = {k: v for k, v in schema.items() if k != key}
                return self.value(
                    _merge(rest, branches[self.chooser.pick_index(path, hints)]), path
                )
        kind = schema.get("type")
        if isinstance(kind, list):
            options = [None if t == "null" else t for t in kind]
            kind = kind[self.chooser.pick_index(path, options)]
        if kind is None:
            kind = _infer_type(schema)
        return self._typed(kind, schema, path)

    def _typed(self, kind: str, schema: dict[str, Any], path: Path) -> Any:
        if kind == "object":
            return self._object(schema, path)
        if kind == "array":
            return self._array(schema, path)
        if kind == "string":
            return self._string(schema, path)
        if kind == "integer":
            return self._integer(schema, path)
        if kind == "number":
            return self._number(schema, path)
        if kind == "boolean":
            return self.chooser.boolean(path)
        if kind == "null":
            return None
        raise ValueError(f"unsupported type {kind!r} at {'/'.join(path)}")

    def _object(self, schema: dict[str, Any], path: Path) -> dict[str, Any]:
        properties: dict[str, Any] = schema.get("properties", {})
        required = set(schema.get("required", []))
        max_props = schema.get("maxProperties")
        out: dict[str, Any] = {}
        extra = _extra_schema(schema)
        for key in sorted(required):
            fallback = {} if extra is False else extra
            out[key] = self.value(properties.get(key, fallback), (*path, key))
        for key, sub in properties.items():
            if key in out or (max_props is not None and len(out) >= max_props):
                continue
            if self.chooser.include_optional(path, key):
                out[key] = self.value(sub, (*path, key))
        min_props = schema.get("minProperties", 0)
        if extra is not False:
            hint = max(0, min_props - len(out))
            for key in self.chooser.extra_keys(path, hint):
                if max_props is not None and len(out) >= max_props:
                    break
                if key not in out and key not in properties:
                    out[key] = self.value(extra, (*path, key))
        return out

    def _array(self, schema: dict[str, Any], path: Path) -> list[Any]:
        prefix: list[Any] = schema.get("prefixItems", [])
        items = schema.get("items", {} if not prefix else False)
        lo = max(schema.get("minItems", 0), 0)
        hi = schema.get("maxItems")
        if items is False:
            hi = len(prefix) if hi is None else min(hi, len(prefix))
        count = self.chooser.array_length(path, max(lo, 0), hi)
        out: list[Any] = []
        unique = schema.get("uniqueItems", False)
        tries = 0
        while len(out) < count and tries < count * 8 + 8:
            index = len(out)
            sub = prefix[index] if index < len(prefix) else items
            candidate = self.value(sub, (*path, str(index)))
            tries += 1
            if unique and candidate in out:
                candidate = self._distinct(sub, candidate, out, tries)
                if candidate is None:
                    continue
            out.append(candidate)
        return out

    def _distinct(self, sub: Any, candidate: Any, taken: list[Any], salt: int) -> Any:
        """A variant of `candidate` not in `taken` that still fits `sub`, or None."""
        if isinstance(candidate, bool) or not isinstance(candidate, str | int):
            return None
        if isinstance(candidate, int):
            variants: list[Any] = [candidate + d for d in range(-salt, salt + 1) if d]
        else:
            variants = [f"{candidate} {salt}", f"{salt} {candidate}", f"{candidate[:-1]}{salt}"]
        if not isinstance(sub, dict):
            return None
        # Keep the root's definitions so `$ref`s inside the item schema still resolve.
        defs = {k: self.root[k] for k in ("$defs", "definitions") if k in self.root}
        checker = jsonschema.Draft202012Validator({**defs, **sub})
        for variant in variants:
            if variant not in taken and checker.is_valid(variant):
                return variant
        return None

    def _string(self, schema: dict[str, Any], path: Path) -> str:
        lo = schema.get("minLength", 0)
        hi = schema.get("maxLength")
        pattern = schema.get("pattern")
        if pattern is not None:
            for candidate in self.chooser.pattern_candidates(path):
                if re.search(pattern, candidate) and _fits(candidate, lo, hi):
                    return candidate
            for _ in range(20):
                candidate = sample_regex(pattern, self.chooser.rng)
                if _fits(candidate, lo, hi):
                    return candidate
            return candidate
        if schema.get("format") in FORMATS:
            return FORMATS[schema["format"]]
        text = self.chooser.text(path, lo, hi)
        if len(text) < lo:
            text = (text + " " + "x" * lo)[:lo] if text else "x" * lo
        return text if hi is None else text[:hi]

    def _integer(self, schema: dict[str, Any], path: Path) -> int:
        lo, hi = _bounds(schema)
        lo_i = None if lo is None else math.ceil(lo)
        hi_i = None if hi is None else math.floor(hi)
        value = self.chooser.integer(path, lo_i, hi_i)
        step = schema.get("multipleOf")
        if isinstance(step, int) and step > 0:
            value = value - value % step
            if lo_i is not None and value < lo_i:
                value += step
        return value

    def _number(self, schema: dict[str, Any], path: Path) -> float:
        lo, hi = _bounds(schema)
        if isinstance(schema.get("multipleOf"), int | float):
            return float(self._integer(schema, path))
        value = float(self.chooser.integer(path, _ceil(lo), _floor(hi)))
        if lo is not None and value < lo:
            value = lo if hi is None else (lo + hi) / 2
        if hi is not None and value > hi:
            value = hi if lo is None else (lo + hi) / 2
        return value


def _ceil(x: float | None) -> int | None:
    return None if x is None else math.ceil(x)


def _floor(x: float | None) -> int | None:
    return None if x is None else math.floor(x)


def _bounds(schema: dict[str, Any]) -> tuple[float | None, float | None]:
    """Inclusive bounds; exclusive ones are nudged inward (by 1 for integers' sake)."""
    lo, hi = schema.get("minimum"), schema.get("maximum")
    ex_lo, ex_hi = schema.get("exclusiveMinimum"), schema.get("exclusiveMaximum")
    integer = schema.get("type") == "integer"
    nudge = 1 if integer else 1e-6
    if isinstance(ex_lo, int | float) and not isinstance(ex_lo, bool):
        candidate = (math.floor(ex_lo) + 1) if integer else ex_lo + nudge
        lo = candidate if lo is None else max(lo, candidate)
    if isinstance(ex_hi, int | float) and not isinstance(ex_hi, bool):
        candidate = (math.ceil(ex_hi) - 1) if integer else ex_hi - nudge
        hi = candidate if hi is None else min(hi, candidate)
    return lo, hi


def _fits(text: str, lo: int, hi: int | None) -> bool:
    return len(text) >= lo and (hi is None or len(text) <= hi)


def _extra_schema(schema: dict[str, Any]) -> Any:
    extra = schema.get("additionalProperties", True)
    if extra is True:
        # Unlisted keys are allowed but nothing asks for them; emit none unless required.
        return False if "minProperties" not in schema else {"type": "string"}
    return extra


def _infer_type(schema: dict[str, Any]) -> str:
    if "properties" in schema or "additionalProperties" in schema or "required" in schema:
        return "object"
    if "items" in schema or "prefixItems" in schema:
        return "array"
    if "minimum" in schema or "maximum" in schema:
        return "number"
    return "string"


def _merge(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    merged = {**base, **extra}
    if "properties" in base and "properties" in extra:
        merged["properties"] = {**base["properties"], **extra["properties"]}
    if "required" in base and "required" in extra:
        merged["required"] = sorted(set(base["required"]) | set(extra["required"]))
    return merged
