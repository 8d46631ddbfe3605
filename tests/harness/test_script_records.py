"""Harness records: generated scripts round-trip through JSON and their exported schema;
every bundled script loads; the overrides merge field by field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from harness.loading import bundled_scripts, load_script
from harness.records import SCHEMAS, ConfigOverrides, Script
from harness.records.results import RESULT_LINE_ADAPTER, ProbeCheck, ProbeResult

REPO = Path(__file__).resolve().parents[2]
SCRIPT_SCHEMA = json.loads((REPO / "data_schemas" / "harness_script.schema.json").read_text())
SCRIPT_VALIDATOR = jsonschema.Draft202012Validator(SCRIPT_SCHEMA)

slots = st.sampled_from(["C1", "C2", "C3", "maren-holt"])
words = st.text(
    st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1, max_size=40
)
patterns = st.sampled_from(["Quill\\d+", "\\bIlse\\b", "código", "[a-z]+7731"])
levels = st.sampled_from([["prompt"], ["reply"], ["prompt", "reply"]])

turns = st.builds(
    dict,
    kind=st.just("turn"),
    speech=words,
    thought=st.none() | words,
    action=st.none() | words,
    whisper_to=st.lists(slots, max_size=2),
    force_speaker=st.none() | slots | st.just("Narrator"),
    hint=st.none() | words,
    skip=st.booleans(),
    repeat=st.integers(1, 5),
)
probes = st.one_of(
    st.builds(dict, kind=st.just("recall"), character=slots, require=st.lists(patterns, max_size=2),
              forbid=st.lists(patterns, max_size=2), levels=levels),
    st.builds(dict, kind=st.just("interview"), character=slots, question=words,
              require=st.lists(patterns, max_size=2), forbid=st.lists(patterns, min_size=1,
              max_size=2), levels=levels),
    st.builds(dict, kind=st.just("routing"), expect=st.lists(slots, min_size=1, max_size=3)),
    st.builds(dict, kind=st.just("boundary"), canaries=st.lists(words, min_size=1, max_size=2)),
    st.builds(dict, kind=st.just("undo"), count=st.integers(1, 3)),
    st.just({"kind": "suggest"}),
    st.just({"kind": "openings"}),
)  # fmt: skip
overrides = st.builds(
    dict,
    provider=st.none() | st.sampled_from(["fake", "local"]),
    seed=st.none() | st.integers(0, 2**31),
    temperature=st.none() | st.floats(0, 2),
    max_tokens=st.dictionaries(st.sampled_from(["director", "prose"]), st.integers(1, 4000)),
    options=st.dictionaries(st.sampled_from(["mode", "ctx"]), st.sampled_from(["parrot", 4096])),
)  # fmt: skip


@st.composite
def scripts(draw: st.DrawFn) -> dict[str, Any]:
    events = [draw(turns), *draw(st.lists(st.one_of(turns, probes), max_size=6))]
    return {
        "schema_version": 1,
        "id": draw(st.from_regex(r"[a-z0-9][a-z0-9_-]{0,20}", fullmatch=True)),
        "title": draw(words),
        "language": draw(st.sampled_from(["en", "pt-BR"])),
        "scenario": draw(st.sampled_from(["the-toll-house", "the-vintners-wake"])),
        "controlled": draw(st.none() | slots),
        "config": draw(overrides),
        "events": events,
    }


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(scripts())
def test_generated_scripts_round_trip_through_json_and_schema(data: dict[str, Any]) -> None:
    try:
        script = Script.model_validate(data)
    except ValidationError:
        assume(False)  # an empty turn, a probe before any turn: refused, as designed
        raise
    dumped = json.loads(script.model_dump_json())
    SCRIPT_VALIDATOR.validate(dumped)  # the exported schema accepts what we write
    assert Script.model_validate(dumped) == script
    assert Script.model_validate_json(script.model_dump_json()) == script


def test_a_refused_script_says_why() -> None:
    base = {"id": "x", "title": "t", "scenario": "the-toll-house"}
    good = {**base, "schema_version": 1, "events": [{"kind": "turn", "skip": True}]}
    assert SCRIPT_VALIDATOR.is_valid(good)
    assert not SCRIPT_VALIDATOR.is_valid({**good, "planted": 1})  # the schema can go red
    assert not SCRIPT_VALIDATOR.is_valid({**good, "events": [{"kind": "dance"}]})
    try:
        Script.model_validate({**base, "events": [{"kind": "routing", "expect": ["C2"]}]})
    except ValidationError as exc:
        assert "needs an earlier turn event" in str(exc)
    forced = [{"kind": "turn", "speech": "Hi.", "force_speaker": "C2"}, {"kind": "routing",
              "expect": ["C2"]}]  # fmt: skip
    try:
        Script.model_validate({**base, "events": forced})
    except ValidationError as exc:
        assert "after a natural turn" in str(exc)
    else:
        raise AssertionError("a routing probe after a forced turn was accepted")


def test_result_lines_round_trip() -> None:
    line = ProbeResult(
        run_id="r", session_id="s", probe="boundary", probe_id="boundary-3", event_index=3,
        turn_number=2, passed=False, label="leak",
        checks=[ProbeCheck(name="canary:Quill7731", passed=False, label="leak", detail="x")],
    )  # fmt: skip
    assert RESULT_LINE_ADAPTER.validate_json(line.model_dump_json()) == line
    assert set(SCHEMAS) == {
        "harness_script",
        "harness_result_line",
        "harness_campaign",
        "harness_manifest",
        "harness_session_snapshot",
        "harness_canon_ledger",
        "harness_canon_report",
        "harness_judge_report",
    }


def test_every_bundled_script_loads_and_both_languages_are_there() -> None:
    found = bundled_scripts()
    assert len(found) >= 9
    loaded = {name: load_script(name).script for name in found}
    assert {s.language for s in loaded.values()} == {"en", "pt-BR"}
    for name, script in loaded.items():
        assert script.id == name
        SCRIPT_VALIDATOR.validate(json.loads(script.model_dump_json()))
    assert loaded["long-session"].turn_count() == 40
    kinds = {e.kind for s in loaded.values() for e in s.events}
    assert kinds == {"turn", "undo", "compact", "restore", "suggest", "openings", "recall",
                     "interview", "routing", "boundary"}  # fmt: skip


def test_overrides_merge_field_by_field() -> None:
    script = ConfigOverrides(provider="local", seed=11, options={"mode": "parrot", "a": 1})
    arm = ConfigOverrides(seed=3, options={"mode": "adversary"}, max_tokens={"prose": 300})
    merged = script.merged(arm)
    assert merged.provider == "local" and merged.seed == 3
    assert merged.options == {"mode": "adversary", "a": 1}
    assert merged.max_tokens == {"prose": 300}
