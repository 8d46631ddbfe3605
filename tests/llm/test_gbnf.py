"""`llm.gbnf.compact_grammar`: the grammar accepts exactly the compact JSON our schemas allow.

The grammar is read back into a Python regex (our schemas have no recursion, so their
grammars are regular): every compact instance of each agent schema must match, and a
pretty-printed one, or one past a bound, must not.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tavern.agents import director
from tavern.llm.gbnf import compact_grammar, property_order

from .schema_values import AGENTS, REAL_SCHEMAS, valid_instances

SCHEMAS = {name: REAL_SCHEMAS[name] for name in AGENTS}
_TOKEN = re.compile(
    r'\s*(?:(?P<lit>"(?:[^"\\]|\\.)*")|(?P<cls>\[(?:[^\]\\]|\\.)*\])|(?P<ref>[a-z_]+)'
    r"|(?P<rep>\{\d+(?:,\d*)?\})|(?P<op>[()|?*+]))"
)


def _regex(grammar: str) -> re.Pattern[str]:
    """The grammar as one regex: each rule inlined where it is referenced."""
    rules = dict(line.split(" ::= ", 1) for line in grammar.splitlines())

    def expand(body: str) -> str:
        out, at = [], 0
        while at < len(body.rstrip()):
            m = _TOKEN.match(body, at)
            assert m is not None, body[at:]
            at = m.end()
            if m["lit"]:
                out.append(re.escape(json.loads(m["lit"])))
            elif m["cls"]:
                out.append(m["cls"])
            elif m["ref"]:
                out.append(f"(?:{expand(rules[m['ref']])})")
            elif m["rep"]:
                out.append(m["rep"])
            else:
                out.append("(?:" if m["op"] == "(" else m["op"])
        return "".join(out)

    return re.compile(expand(rules["root"]), re.DOTALL)


def _digits_fit(value: Any) -> bool:
    """Integers of up to 16 digits, map keys of up to 64 characters: the grammar's bounds."""
    if isinstance(value, dict):
        return all(len(k) <= 64 for k in value) and all(map(_digits_fit, value.values()))
    if isinstance(value, list):
        return all(map(_digits_fit, value))
    return not isinstance(value, int) or isinstance(value, bool) or abs(value) < 10**16


def _ordered(value: Any, schema: dict[str, Any]) -> Any:
    """`value` with each object's keys in the grammar's order (`property_order`)."""
    if isinstance(value, dict) and "properties" in schema:
        props = schema["properties"]
        return {k: _ordered(value[k], props[k]) for k in property_order(schema) if k in value}
    if isinstance(value, dict) and isinstance(schema.get("additionalProperties"), dict):
        return {k: _ordered(v, schema["additionalProperties"]) for k, v in value.items()}
    if isinstance(value, list) and "items" in schema:
        return [_ordered(v, schema["items"]) for v in value]
    return value


def _compact(value: Any, schema: dict[str, Any] = director.OUTPUT_SCHEMA) -> str:
    """The compact text; DEL escaped, as the grammar (like llama.cpp's own) never writes it raw."""
    text = json.dumps(_ordered(value, schema), ensure_ascii=False, separators=(",", ":"))
    return text.replace("\x7f", "\\u007f")


@pytest.mark.parametrize("role", sorted(SCHEMAS))
def test_every_agent_schema_has_a_grammar(role: str) -> None:
    assert compact_grammar(SCHEMAS[role]) is not None


@pytest.mark.parametrize("role", sorted(SCHEMAS))
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_each_compact_answer_matches_and_a_pretty_one_does_not(
    role: str, data: st.DataObject
) -> None:
    schema = SCHEMAS[role]
    grammar = compact_grammar(schema)
    assert grammar is not None
    pattern = _regex(grammar)
    answer = _ordered(data.draw(valid_instances(schema)), schema)
    assume(_digits_fit(answer))
    assert pattern.fullmatch(_compact(answer, schema))
    assert not pattern.fullmatch(json.dumps(answer, indent=2, ensure_ascii=False))


def test_a_list_past_its_bound_and_a_string_past_its_length_do_not_match() -> None:
    pattern = _regex(compact_grammar(director.OUTPUT_SCHEMA) or "")
    base = {
        "blocking": "b", "events": [], "next_speakers": [], "mood_updates": {},
        "scene": {"add_facts": [], "remove_facts": [], "new_location": None},
        "zone_moves": [], "link_updates": [], "time_skip_ticks": 0, "nothing_happens": True,
    }  # fmt: skip
    assert pattern.fullmatch(_compact(base))
    assert not pattern.fullmatch(_compact(base | {"next_speakers": ["C1"] * 4}))
    assert not pattern.fullmatch(_compact(base | {"blocking": "b" * 201}))
    assert not pattern.fullmatch(_compact(base | {"nothing_happens": "yes"}))
    optional = [k for k in base if k not in director.REQUIRED_FIELDS]
    assert pattern.fullmatch(_compact({k: v for k, v in base.items() if k not in optional}))
    assert not pattern.fullmatch(_compact({k: v for k, v in base.items() if k != "events"}))


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "number"},
        {"type": "string", "pattern": "^C[0-9]+$"},
        {"type": "object", "properties": {"a": {"type": "string"}}, "required": []},
        {"$ref": "#/$defs/x"},
        {"type": "array"},
    ],
)
def test_an_unsupported_schema_gets_no_grammar(schema: dict[str, Any]) -> None:
    assert compact_grammar(schema) is None
