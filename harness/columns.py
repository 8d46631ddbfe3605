"""DuckDB column types generated from a record's JSON Schema: the one definition of a table.

DuckDB's `read_json(..., columns={...})` keeps only the columns it is given, so the list must
follow the records exactly. It is generated here from the pydantic models' JSON Schema (a
tagged union gives the union of its members' fields), never written by hand: a field added
to `LlmCallLine` is a column on the next import.

Example:
    >>> from tavern.records import JOURNAL_LINE_ADAPTER
    >>> spec = table_spec(JOURNAL_LINE_ADAPTER.json_schema())
    >>> spec.columns["duration_ms"], spec.columns["prompt_cache"]
    ('DOUBLE', 'STRUCT("hit_tokens" BIGINT, "miss_tokens" BIGINT)')
    >>> sorted(spec.required["undo"] - spec.required["commit"])
    ['removed_records', 'removed_turn']
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

_SCALARS = {"string": "VARCHAR", "integer": "BIGINT", "number": "DOUBLE", "boolean": "BOOLEAN"}


@dataclass(frozen=True)
class TableSpec:
    """Columns of one table and, per `kind`, what a valid row of that kind must hold."""

    columns: dict[str, str]
    """Column name -> DuckDB type, in the records' field order."""
    fields: dict[str, frozenset[str]]
    """Kind -> the fields a row of that kind has (the empty kind `""` for a plain record)."""
    required: dict[str, frozenset[str]]
    """Kind -> the fields a row of that kind must have (not null). A schema without a
    `kind` discriminator files its fields under the empty kind `""`."""
    defaults: dict[str, Any]
    """Column -> the scalar default a missing value stands for (e.g. `source` -> `live`), in
    rows of the kinds that have that field."""
    versions: dict[str, Any]
    """Kind -> the `schema_version` default of that kind, where the record has one."""

    def select_list(self) -> str:
        """The columns as a SQL select list, missing scalars read as their defaults.

        >>> ab = frozenset({"a", "b"})
        >>> TableSpec({"a": "BIGINT", "b": "VARCHAR"}, {"": ab}, {}, {"b": "x"}, {}).select_list()
        '"a", coalesce("b", \\'x\\') AS "b"'
        """
        out = []
        for name in self.columns:
            if name not in self.defaults:
                out.append(quote(name))
                continue
            default = literal(self.defaults[name])
            kinds = sorted(k for k, fields in self.fields.items() if name in fields)
            if len(kinds) < len(self.fields):
                listed = ", ".join(literal(k) for k in kinds)
                default = f'CASE WHEN "kind" IN ({listed}) THEN {default} END'
            out.append(f"coalesce({quote(name)}, {default}) AS {quote(name)}")
        return ", ".join(out)

    def valid_sql(self) -> str:
        """A SQL condition true for rows whose kind is known and whose required fields are set.

        >>> kn = frozenset({"kind", "n"})
        >>> TableSpec({"kind": "VARCHAR", "n": "BIGINT"}, {"k": kn}, {"k": kn}, {}, {}).valid_sql()
        '(CASE "kind" WHEN \\'k\\' THEN "kind" IS NOT NULL AND "n" IS NOT NULL ELSE false END)'
        """
        if set(self.required) == {""}:
            return " AND ".join(f"{quote(c)} IS NOT NULL" for c in sorted(self.required[""]))
        arms = []
        for kind, fields in sorted(self.required.items()):
            test = " AND ".join(f"{quote(f)} IS NOT NULL" for f in sorted(fields)) or "true"
            arms.append(f"WHEN {literal(kind)} THEN {test}")
        return f'(CASE "kind" {" ".join(arms)} ELSE false END)'


def quote(name: str) -> str:
    """A SQL identifier in double quotes.

    >>> print(quote('a"b'))
    "a""b"
    """
    return '"' + name.replace('"', '""') + '"'


def literal(value: Any) -> str:
    """A SQL literal for a scalar default.

    >>> literal("it's"), literal(True), literal(3)
    ("'it''s'", 'true', '3')
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    raise TypeError(f"no SQL literal for {value!r}")


def duck_type(node: dict[str, Any], defs: dict[str, Any]) -> str:
    """The DuckDB type of one JSON Schema node.

    Objects with declared properties become STRUCTs, free-form objects and `Any` become
    JSON, a nullable type is its non-null member, a union of several types is JSON.

    >>> duck_type({"anyOf": [{"type": "integer"}, {"type": "null"}]}, {})
    'BIGINT'
    >>> duck_type({"type": "array", "items": {"type": "string"}}, {})
    'VARCHAR[]'
    >>> duck_type({"type": "string", "format": "date-time"}, {})
    'TIMESTAMPTZ'
    """
    ref = node.get("$ref")
    if ref:
        return duck_type(defs[ref.rsplit("/", 1)[-1]], defs)
    members = node.get("anyOf") or node.get("oneOf")
    if members:
        kept = [m for m in members if m.get("type") != "null"]
        return duck_type(kept[0], defs) if len(kept) == 1 else "JSON"
    kind = node.get("type")
    if kind == "string" and node.get("format") == "date-time":
        return "TIMESTAMPTZ"
    if kind in _SCALARS:
        return _SCALARS[kind]
    if kind == "array" and "items" in node:
        return duck_type(node["items"], defs) + "[]"
    if kind == "object" and node.get("properties"):
        fields = ", ".join(
            f"{quote(name)} {duck_type(sub, defs)}" for name, sub in node["properties"].items()
        )
        return f"STRUCT({fields})"
    return "JSON"


def table_spec(schema: dict[str, Any]) -> TableSpec:
    """The table of a record's (or a tagged union's) JSON Schema.

    Raises:
        ValueError: two members of a union give one field different types or defaults (a
            column can hold only one).
    """
    defs = schema.get("$defs", {})
    members = schema.get("oneOf") or schema.get("anyOf") or [schema]
    columns: dict[str, str] = {}
    fields: dict[str, frozenset[str]] = {}
    required: dict[str, frozenset[str]] = {}
    defaults: dict[str, Any] = {}
    versions: dict[str, Any] = {}
    for member in members:
        ref = member.get("$ref")
        model = defs[ref.rsplit("/", 1)[-1]] if ref else member
        props: dict[str, Any] = model.get("properties", {})
        kind = props.get("kind", {}).get("const", "")
        for name, sub in props.items():
            typ = duck_type(sub, defs)
            if columns.setdefault(name, typ) != typ:
                raise ValueError(f"field {name!r} is {columns[name]} and {typ} in one union")
            default = sub.get("default")
            if name in ("kind", "schema_version") or not isinstance(default, str | int | float):
                continue
            if defaults.setdefault(name, default) != default:
                raise ValueError(f"field {name!r} has two defaults in one union")
        if "schema_version" in props:
            versions[kind] = props["schema_version"].get("default")
        fields[kind] = frozenset(props)
        required[kind] = frozenset(model.get("required", ())) | ({"kind"} if kind else set())
    return TableSpec(columns, fields, required, defaults, versions)
