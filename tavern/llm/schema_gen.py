"""A deterministic generator of JSON values valid against an agent's JSON Schema.

The fake provider's modes differ only in *choices* (what text, how many items, which enum
value); this module owns the *structure*. A `Chooser` makes every choice, so a mode is a
small class. It reads the subset the agents' schemas use: `type` (one, or a list with
`null`), `enum`, `properties`, `required`, `additionalProperties` (bool or schema), `items`,
`minItems`/`maxItems`, `minLength`/`maxLength`, `minimum`/`maximum`. Any other keyword is a
`ValueError`, never a value that might not validate.
"""

from __future__ import annotations

import random
from typing import Any, Protocol

Path = tuple[str, ...]
SUPPORTED = frozenset(
    "type enum properties required additionalProperties items minItems maxItems minLength"
    " maxLength minimum maximum description title".split()
)


class Chooser(Protocol):
    """Makes every free choice of the generator. `path` is the JSON path of the value."""

    rng: random.Random

    def text(self, path: Path, min_len: int, max_len: int | None) -> str:
        """Free text for a string without enum."""
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
        """Index of the enum value / type to use; `None` options are hints."""
        ...

    def boolean(self, path: Path) -> bool:
        """A boolean."""
        ...


class SchemaGenerator:
    """Generate values for `root` using `chooser`.

    Example:
        >>> from tavern.llm.fake_choosers import ParrotChooser
        >>> schema = {"type": "object", "required": ["n"], "properties": {"n": {"enum": [1]}}}
        >>> SchemaGenerator(schema, ParrotChooser(random.Random(0), "hi")).generate()
        {'n': 1}
    """

    def __init__(self, root: dict[str, Any], chooser: Chooser) -> None:
        self.root = root
        self.chooser = chooser

    def generate(self) -> Any:
        """One value for the root schema."""
        return self.value(self.root, ())

    def value(self, schema: Any, path: Path) -> Any:
        """One value for `schema` at `path`."""
        if schema is True or schema == {}:
            return self.chooser.text(path, 0, None)
        if not isinstance(schema, dict) or not schema.keys() <= SUPPORTED:
            raise ValueError(f"unsupported schema node at {'/'.join(path)}: {schema!r}")
        if "enum" in schema:
            values = list(schema["enum"])
            return values[self.chooser.pick_index(path, values)]
        kind = schema.get("type")
        if isinstance(kind, list):
            options = [None if t == "null" else t for t in kind]
            kind = kind[self.chooser.pick_index(path, options)]
        if kind == "object" or (kind is None and "properties" in schema):
            return self._object(schema, path)
        if kind == "array":
            return self._array(schema, path)
        if kind == "string" or kind is None:
            lo, hi = schema.get("minLength", 0), schema.get("maxLength")
            text = self.chooser.text(path, lo, hi)
            if len(text) < lo:
                text = (text + " " + "x" * lo)[:lo] if text else "x" * lo
            return text if hi is None else text[:hi]
        if kind == "integer":
            return self.chooser.integer(path, schema.get("minimum"), schema.get("maximum"))
        if kind == "boolean":
            return self.chooser.boolean(path)
        if kind == "null":
            return None
        raise ValueError(f"unsupported type {kind!r} at {'/'.join(path)}")

    def _object(self, schema: dict[str, Any], path: Path) -> dict[str, Any]:
        properties: dict[str, Any] = schema.get("properties", {})
        out: dict[str, Any] = {}
        extra = schema.get("additionalProperties", True)
        extra = False if extra is True else extra  # allowed, but nothing asks for them
        for key in sorted(set(schema.get("required", []))):
            out[key] = self.value(
                properties.get(key, {} if extra is False else extra), (*path, key)
            )
        for key, sub in properties.items():
            if key not in out and self.chooser.include_optional(path, key):
                out[key] = self.value(sub, (*path, key))
        if extra is not False:
            for key in self.chooser.extra_keys(path, 0):
                if key not in out and key not in properties:
                    out[key] = self.value(extra, (*path, key))
        return out

    def _array(self, schema: dict[str, Any], path: Path) -> list[Any]:
        items = schema.get("items", {})
        lo = max(schema.get("minItems", 0), 0)
        count = self.chooser.array_length(path, lo, schema.get("maxItems"))
        return [self.value(items, (*path, str(i))) for i in range(count)]
