"""`harness.metrics`: every metric of the battery on a planted run whose values are known."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pandas as pd
import pytest
from analysis_planted import Planted, probe_result, role_prompt, run_result, write_results

from harness import metrics
from harness.analysis import connect
from tavern.records import (
    ActionRecord,
    Audience,
    EventRecord,
    FilterCut,
    NarrationRecord,
    SpeechRecord,
    ThoughtRecord,
)

ALL = Audience(origin="public", perceivers=["C1", "C2", "C3"])
NOBODY = Audience(origin="zone", perceivers=[])
HUMAN_1 = "Open the north gate at once, Maren Holt."
USAGE = {"prompt_tokens": 1000, "completion_tokens": 50}


def _event(seq: int, turn: int, text: str, audience: Audience = ALL, **kw: object) -> EventRecord:
    return EventRecord(
        seq=seq, turn_number=turn, speaker="World", author="director", event_kind="world_event",
        text=text, reader_text=kw.get("reader_text", text), audience=audience,  # type: ignore[arg-type]
    )  # fmt: skip


HISTORY = [
    SpeechRecord(seq=1, turn_number=1, speaker="C1", author="human", text=HUMAN_1, audience=ALL),
    _event(2, 1, "Maren Holt opens the north gate at once."),  # echoes the human's words
    _event(3, 2, "I will not open it."),  # dialogue the Director wrote
    SpeechRecord(seq=4, turn_number=2, speaker="C2", author="character", text="Not tonight.",
                 audience=ALL),
    NarrationRecord(seq=5, turn_number=2, speaker="Narrator", author="renderer",
                    text="The rain thickens.", audience=Audience(origin="public")),
    _event(6, 3, "Maren Holt opens the north gate.", reader_text="[...] opens the gate."),
    _event(7, 3, "Thunder rolls.", audience=NOBODY),  # nobody perceives it
    ThoughtRecord(seq=8, turn_number=3, speaker="C2", author="character",
                  text="Keep Quill7731 hidden.", audience=Audience(origin="private",
                                                                   perceivers=["C2"])),
    ActionRecord(seq=9, turn_number=3, speaker="C2", author="character", text="waits",
                 audience=ALL),
    SpeechRecord(seq=10, turn_number=4, speaker="C1", author="human", text="Well?", audience=ALL),
]  # fmt: skip


def _decision(*texts: str) -> str:
    return json.dumps({"events": [{"kind": "world_event", "text": t, "witness_ids": ["C2"]}
                                  for t in texts], "next_speakers": ["C2"]})  # fmt: skip


def _plant(data_dir: Path, *, usage: bool = True) -> duckdb.DuckDBPyConnection:
    run = Planted(data_dir)
    state = run.state()
    ledgers = dict(state.ledgers)
    identities = dict(ledgers["C3"].identities)
    identities["C2"] = identities["C2"].model_copy(  # learned at seq 4, in turn 2
        update={"name": "Maren Holt", "learned_from_seq": 4}
    )
    identities["C1"] = identities["C1"].model_copy(  # a false name: the true one stays unknown
        update={"name": "Ilsa", "learned_from_seq": 1}
    )
    ledgers["C3"] = ledgers["C3"].model_copy(update={"identities": identities})
    run.export(HISTORY, state.model_copy(update={"ledgers": ledgers}))  # type: ignore[arg-type]
    kw = {"provider": "deepseek", "model": "deepseek-chat", "usage": USAGE, "hit": 600,
          "miss": 400} if usage else {}  # fmt: skip
    answers = {
        1: _decision("Maren Holt opens the north gate at once."),
        2: _decision("I will not open it.", "Do you hear that?"),  # the question is clamped
        3: _decision("Maren Holt opens the north gate.", "Thunder rolls."),
        4: _decision(),
    }
    for turn in (1, 2, 3, 4):
        base = turn * 1000
        run.turn_input(turn, base, speech=HUMAN_1 if turn == 1 else "Well?")
        run.call(turn, "director", end_ms=base + 100, duration_ms=90, response=answers[turn], **kw)
        prose = "The rain thickens." if turn == 2 else "Nothing moves."
        run.call(turn, "prose", end_ms=base + 300, duration_ms=150, response=prose, **kw)
        cuts = []
        if turn == 4:
            cuts = [FilterCut(rule="loop", target="narration", language="en",
                              before="Nothing moves. Nothing moves.", after="")]  # fmt: skip
        run.commit(turn, base + 400, cuts=cuts)
    character = json.dumps({"speech": "Not tonight.", "thought": None, "action_intent": None})
    run.call(2, "character:C2", end_ms=2350, duration_ms=20, response=character, **kw)
    run.call(1, "character:C3", end_ms=1200, messages=role_prompt(now="Maren Holt waves."), **kw)
    run.call(2, "character:C3", end_ms=2200, messages=role_prompt(now="Maren Holt waves."), **kw)
    run.call(2, "character:C3", end_ms=2210, messages=role_prompt(now="Ilse Brandt waits."), **kw)
    run.call(2, "character:C2", end_ms=2220, messages=role_prompt(now="Ilse Brandt waits."), **kw)
    return connect(data_dir)


@pytest.fixture(scope="module")
def con(tmp_path_factory: pytest.TempPathFactory) -> duckdb.DuckDBPyConnection:
    return _plant(tmp_path_factory.mktemp("planted"))


def test_director_speech_raw_and_committed(con: duckdb.DuckDBPyConnection) -> None:
    row = metrics.director_speech(con).iloc[0]
    assert (row.raw_events, row.raw_authored, row.events, row.authored) == (5, 2, 4, 1)
    assert (row.raw_rate, row.rate) == (2 / 5, 1 / 4)


def test_empty_audience(con: duckdb.DuckDBPyConnection) -> None:
    rows = metrics.empty_audience(con)[["kind", "records", "empty_audience"]].values.tolist()
    assert rows == [["action", 1, 0], ["event", 4, 1], ["speech", 3, 0]]


def test_redaction_markers_by_channel(con: duckdb.DuckDBPyConnection) -> None:
    frame = metrics.redaction_markers(con).set_index("channel")
    assert frame.loc["event:reader", "masks"] == 1
    assert frame.loc["event", "masks"] == 0
    assert frame.loc["prompt:director", "texts"] == 4


def test_leak_counts_count_planted_canaries(con: duckdb.DuckDBPyConnection) -> None:
    rows = metrics.leak_counts(con)
    assert rows["canaries"].tolist() == [1] and rows["violations"].sum() == 0


def test_unlearned_names(con: duckdb.DuckDBPyConnection) -> None:
    rows = metrics.unlearned_names(con)[["turn_number", "viewer", "other", "form"]]
    assert rows.values.tolist() == [
        [1, "C3", "C2", "Maren Holt"],  # C3 learns Maren's name in turn 2
        [1, "C3", "C2", "Maren"],
        [1, "C3", "C2", "Holt"],
        [2, "C3", "C1", "Ilse Brandt"],  # C3 learned a false name for Ilse
        [2, "C3", "C1", "Ilse"],
        [2, "C3", "C1", "Brandt"],
    ]  # C2 was introduced to Ilse by the scenario: its prompt naming her is fine


def test_director_repetition_pairwise_and_echo(con: duckdb.DuckDBPyConnection) -> None:
    rows = metrics.director_repetition(con)[["seq", "repeats", "echoes"]].values.tolist()
    assert rows == [[2, False, True], [3, False, False], [6, True, False], [7, False, False]]


def test_clamps_filters_and_probes(con: duckdb.DuckDBPyConnection) -> None:
    assert metrics.clamps_by_rule(con).empty
    assert metrics.filter_cuts(con)[["rule", "cuts", "emptied"]].values.tolist() == [["loop", 1, 1]]
    assert metrics.probe_pass_rates(con).empty


def test_tokens_cost_and_cache(con: duckdb.DuckDBPyConnection) -> None:
    row = metrics.tokens_and_cost(con).iloc[0]
    attempts = 4 * 2 + 5
    assert (row.turns, row.attempts, row.prompt_tokens) == (4, attempts, attempts * 1000)
    assert row.prompt_tokens_per_turn == attempts * 1000 / 4
    per_call = (600 * 0.028 + 400 * 0.28 + 50 * 0.42) / 1e6
    assert row.cost_per_turn == pytest.approx(attempts * per_call / 4)
    shares = metrics.cache_hit_share(con)
    assert shares["hit_share"].tolist() == [0.6, 0.6, 0.6]


def test_unknown_tokens_leave_cost_unknown(tavern_data_dir: Path) -> None:
    con = _plant(tavern_data_dir, usage=False)
    row = metrics.tokens_and_cost(con).iloc[0]
    assert row.prompt_tokens is None or row.prompt_tokens != row.prompt_tokens  # NULL
    assert metrics.cache_hit_share(con)["hit_share"].isna().all()


def test_story_yield_per_role(con: duckdb.DuckDBPyConnection) -> None:
    rows = metrics.story_yield(con).set_index("role")
    # Director: 5 + 5 + 2 + 4... words in its answers' event texts against those committed.
    generated = sum(
        len(t.split()) for t in ["Maren Holt opens the north gate at once.", "I will not open it.",
                                 "Do you hear that?", "Maren Holt opens the north gate.",
                                 "Thunder rolls."]
    )  # fmt: skip
    committed = generated - len("Do you hear that?".split())
    assert rows.loc["director", ["committed_words", "generated_words"]].tolist() == [
        committed,
        generated,
    ]
    assert rows.loc["prose", ["committed_words", "generated_words"]].tolist() == [3, 3 + 2 * 3]
    # Character C2: "Not tonight." (2) and the thought and attempt it never generated here.
    assert rows.loc["character", "generated_words"] == 2


def test_turn_yield_and_empty_turns_per_filter(con: duckdb.DuckDBPyConnection) -> None:
    rows = metrics.turn_yield(con)[["turn_number", "model_records", "silent", "empty"]]
    assert rows.values.tolist() == [[1, 1, True, False], [2, 3, False, False],
                                    [3, 4, True, False], [4, 0, True, True]]  # fmt: skip
    by_filter = metrics.empty_turns_by_filter(con)
    assert by_filter[["rule", "turns_emptied_by_rule", "empty_turns"]].values.tolist() == [
        ["loop", 1, 1]
    ]


def test_run_metrics_collect_the_battery(con: duckdb.DuckDBPyConnection) -> None:
    row = metrics.run_metrics(con).iloc[0]
    assert row.turns == 4
    assert row.director_speech_rate == 0.25 and row.raw_director_speech_rate == 0.4
    assert row.empty_audience_rate == pytest.approx(1 / 8)
    assert row.unlearned_name_prompts == 2
    assert row.director_repeat_rate == 0.25 and row.director_echo_rate == 0.25
    assert row.filter_cuts_per_turn == 0.25 and row.clamp_changes_per_turn == 0
    assert row.silent_turn_share == 0.75 and row.empty_turn_share == 0.25
    assert row.cache_hit_share == pytest.approx(0.6)
    assert row.leaks == 0 and row.canaries == 1
    assert row.whole_turn_ms == 400.0


def test_probe_pass_rates_read_finished_runs_only(tavern_data_dir: Path) -> None:
    run = Planted(tavern_data_dir)
    run.turn_input(1, 0)
    run.commit(1, 100)
    write_results(
        tavern_data_dir / "results.jsonl",
        [
            probe_result("r1", "sess-a", "recall", True),
            probe_result("r1", "sess-a", "boundary", False),
            probe_result("r1", "sess-a", "invariants", True, probe_id="invariants-1"),
            run_result("r1", "sess-a"),
            # A run killed before its run line: its probes never count.
            probe_result("r2", "sess-a", "recall", False),
        ],
    )
    con = connect(tavern_data_dir)
    rows = metrics.probe_pass_rates(con)[["probe", "probes", "passed"]].values.tolist()
    assert rows == [["boundary", 1, 0], ["invariants", 1, 1], ["recall", 1, 1]]
    assert metrics.run_metrics(con).iloc[0].probe_pass_rate == pytest.approx(2 / 3)
    failed = con.execute(
        "SELECT probe, label, failed_checks, arm, script FROM probes WHERE NOT passed"
    ).fetchall()
    assert failed == [("boundary", "leak", 1, "a", "whisper-secrecy")]


def test_clamp_changes_by_rule_and_latency_per_run(tavern_data_dir: Path) -> None:
    from tavern.records import ClampChange

    run = Planted(tavern_data_dir)
    queue = ClampChange(rule="speaker_queue", path="next_speakers", before=["C9"], after=[])
    zone = ClampChange(rule="witness_zone", path="events[0].witness_ids", before=["C3"], after=[])
    for turn, clamps in ((1, [queue, zone]), (2, [queue]), (3, [])):
        base = turn * 1000
        run.turn_input(turn, base)
        run.call(turn, "director", end_ms=base + 100, duration_ms=100)
        run.call(turn, "prose", end_ms=base + 100 + 50 * turn, duration_ms=50 * turn)
        run.commit(turn, base + 400, clamps=clamps)
    con = connect(tavern_data_dir)
    rows = metrics.clamps_by_rule(con)[["rule", "changes", "turns"]].values.tolist()
    assert rows == [["speaker_queue", 2, 2], ["witness_zone", 1, 1]]
    row = metrics.run_metrics(con).iloc[0]
    assert row.turns == 3 and row.clamp_changes_per_turn == 1.0
    # First text: the prose call ends 150, 200 and 250 ms after each input; median 200.
    assert (row.first_text_ms, row.whole_turn_ms) == (200.0, 400.0)


def test_the_battery_names_every_per_run_column(con: duckdb.DuckDBPyConnection) -> None:
    columns = metrics.run_metrics(con).columns.tolist()
    assert columns[:5] == ["session_id", "turns", "campaign", "arm", "run"]
    assert columns[5:] == list(metrics.METRICS)


def test_invariant_failures_and_calls_per_run(tavern_data_dir: Path) -> None:
    probed = Planted(tavern_data_dir, "sess-a")
    probed.turn_input(1, 0)
    probed.call(1, "director", end_ms=40, error_type="schema")
    probed.call(1, "director", end_ms=80, attempt=2)  # a retry: an attempt, not a call
    probed.call(1, "prose", end_ms=120)
    probed.commit(1, 150)
    probed.call(1, "interview:C2", end_ms=200)
    unprobed = Planted(tavern_data_dir, "sess-b")  # a session no harness run played
    unprobed.turn_input(1, 0)
    unprobed.call(1, "director", end_ms=50)
    unprobed.commit(1, 100)
    write_results(
        tavern_data_dir / "results.jsonl",
        [
            probe_result("r1", "sess-a", "invariants", True, probe_id="invariants-0.1"),
            probe_result("r1", "sess-a", "invariants", False, probe_id="invariants-1.1",
                         label="clock"),
            probe_result("r1", "sess-a", "invariants", False, probe_id="invariants-2.1",
                         label="clock"),
            probe_result("r1", "sess-a", "recall", False),  # a probe, not an invariant
            run_result("r1", "sess-a"),
        ],
    )  # fmt: skip
    con = connect(tavern_data_dir)
    assert metrics.invariant_failures(con)[["session_id", "label", "failures"]].values.tolist() == [
        ["sess-a", "clock", 2]
    ]
    by_role = metrics.calls_by_role(con).set_index(["session_id", "role"])
    director = by_role.loc[("sess-a", "director"), ["calls", "attempts", "failed_attempts"]]
    assert director.tolist() == [1, 2, 1]
    rows = metrics.run_metrics(con).set_index("session_id")
    assert rows.loc["sess-a", "invariant_failures_per_run"] == 2
    assert rows.loc["sess-a", "calls_per_run"] == 3
    assert pd.isna(rows.loc["sess-b", "invariant_failures_per_run"])  # unknown, not 0
    assert rows.loc["sess-b", "calls_per_run"] == 1


def test_clamps_and_filters_per_turn_count_kept_turns_only(tavern_data_dir: Path) -> None:
    """Turn 1 regenerated (its first variant set aside), turn 2 undone and played again:
    only the changes and cuts of the story as it stands count per turn."""
    from tavern.records import ClampChange

    queue = ClampChange(rule="speaker_queue", path="next_speakers", before=["C9"], after=[])
    zone = ClampChange(rule="witness_zone", path="events[0].witness_ids", before=["C3"], after=[])
    emptied = FilterCut(rule="loop", target="narration", language="en", before="a a", after="")
    trimmed = FilterCut(rule="loop", target="narration", language="pt-BR", before="b b",
                        after="b")  # fmt: skip
    run = Planted(tavern_data_dir)
    run.turn_input(1, 0)
    run.call(1, "director", end_ms=50)
    run.commit(1, 100, clamps=[queue, zone], cuts=[emptied])  # set aside by the rerun
    run.turn_input(1, 200)
    run.call(1, "director", end_ms=250)
    run.variant(1, 290, "rerun", committed=1, aside=0)
    run.commit(1, 300, clamps=[zone])
    run.turn_input(2, 400)
    run.call(2, "director", end_ms=450)
    run.commit(2, 500, clamps=[queue], cuts=[emptied])  # undone
    run.undo(2, 600)
    run.turn_input(2, 700)
    run.call(2, "director", end_ms=750)
    run.commit(2, 800, cuts=[trimmed])
    con = connect(tavern_data_dir)
    kept = con.execute("SELECT turn_number, rule, kept FROM clamps ORDER BY ts, rule").fetchall()
    assert kept == [(1, "speaker_queue", False), (1, "witness_zone", False),
                    (1, "witness_zone", True), (2, "speaker_queue", False)]  # fmt: skip
    cuts = con.execute("SELECT turn_number, language, kept FROM filters ORDER BY ts").fetchall()
    assert cuts == [(1, "en", False), (2, "en", False), (2, "pt-BR", True)]
    clamps = metrics.clamps_by_rule(con)[["rule", "changes", "turns", "all_changes"]]
    assert clamps.values.tolist() == [["speaker_queue", 0, 0, 2], ["witness_zone", 1, 1, 2]]
    filters = metrics.filter_cuts(con)[["language", "cuts", "emptied", "all_cuts"]]
    assert filters.values.tolist() == [["en", 0, 0, 2], ["pt-BR", 1, 0, 1]]
    assert metrics.empty_turns_by_filter(con).empty  # the emptying cuts were not kept
    row = metrics.run_metrics(con).iloc[0]
    assert row.turns == 2
    assert row.clamp_changes_per_turn == 0.5  # every commit line would give 2.0
    assert row.filter_cuts_per_turn == 0.5  # every commit line would give 1.5
