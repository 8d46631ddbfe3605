"""`harness.views` and `harness.analysis.connect`: every view read on a planted run whose
values are known."""

from __future__ import annotations

from pathlib import Path

import duckdb
import httpx
import pytest
from analysis_planted import (
    ALL,
    Planted,
    at,
    probe_result,
    role_prompt,
    run_result,
    write_results,
)
from hypothesis import given
from hypothesis import strategies as st

from harness.analysis import connect, leaks_df, llm_calls_df, turns_df
from harness.latency import TOLERANCE_MS, critical_path_ms
from harness.prompt_blocks import common_prefix_chars, prompt_text
from harness.tokens import TokenizerRefused, count_tokens
from harness.views import VIEWS
from tavern.records import (
    ActionRecord,
    Audience,
    ClampChange,
    CommitLine,
    CompactLine,
    EventRecord,
    FilterCut,
    MemoryRevision,
    NarrationRecord,
    SpeechRecord,
    ThoughtRecord,
)

HIT, MISS = 800, 200
DEEPSEEK_USAGE = {"prompt_tokens": 1000, "completion_tokens": 100}
PROMPTS = {
    "t1": role_prompt("the hall", "Decide."),
    "t2": role_prompt("the hall", "Decide again."),
    "t2b": role_prompt("the cellar", "Decide again."),
}


def _plant(data_dir: Path) -> Planted:
    """Turn 1 (three calls, prose and a Character overlapping), turn 2 undone, turn 2 again."""
    run = Planted(data_dir)
    run.turn_input(1, 0)
    run.call(1, "director", end_ms=100, duration_ms=100, messages=PROMPTS["t1"])
    run.call(1, "prose", end_ms=250, duration_ms=150)
    run.call(1, "character:C2", end_ms=240, duration_ms=120)
    run.commit(
        1,
        300,
        clamps=[
            ClampChange(rule="witness_zone", path="events[0].witness_ids", before=["C3"], after=[]),
            ClampChange(rule="speaker_queue", path="next_speakers", before=[], after=["Narrator"]),
        ],
        cuts=[
            FilterCut(rule="loop", target="narration", language="en", before="a. a.", after="a."),
            FilterCut(
                rule="out_of_world", target="reply:C2.speech", language="pt-BR",
                before="Como IA...", after="",
            ),
        ],
    )  # fmt: skip
    run.turn_input(2, 400)
    run.call(2, "director", end_ms=500, duration_ms=90, messages=PROMPTS["t2"])
    run.commit(2, 520)
    run.undo(2, 600)
    run.turn_input(2, 700)
    run.call(
        2, "director", end_ms=760, duration_ms=50, messages=PROMPTS["t2b"], error_type="schema"
    )
    run.call(2, "director", end_ms=800, duration_ms=40, messages=PROMPTS["t2b"], attempt=2)
    run.call(
        2, "director:outcome", end_ms=810, duration_ms=5, provider="deepseek",
        model="deepseek-chat", usage=DEEPSEEK_USAGE, hit=HIT, miss=MISS,
    )  # fmt: skip
    run.call(2, "suggest", end_ms=815, duration_ms=4, provider="mystery", model="m1")
    run.commit(2, 820)
    return run


@pytest.fixture
def con(tavern_data_dir: Path) -> duckdb.DuckDBPyConnection:
    _plant(tavern_data_dir)
    return connect(tavern_data_dir)


def test_tokens_are_the_providers_or_none_never_an_estimate(con: duckdb.DuckDBPyConnection) -> None:
    rows = con.execute(
        "SELECT agent, token_source, prompt_tokens, completion_tokens FROM calls "
        "WHERE agent IN ('prose', 'director:outcome') ORDER BY agent"
    ).fetchall()
    assert rows == [("director:outcome", "provider", 1000, 100), ("prose", "none", None, None)]
    usage = con.execute(
        "SELECT role, attempts, successes, calls_without_tokens, prompt_tokens FROM usage "
        "ORDER BY role"
    ).fetchall()
    assert usage == [
        ("character", 1, 1, 1, None),
        ("director", 5, 4, 4, 1000),
        ("prose", 1, 1, 1, None),
        ("suggest", 1, 1, 1, None),
    ]


def test_turns_know_undo_and_their_calls(con: duckdb.DuckDBPyConnection) -> None:
    rows = con.execute(
        "SELECT turn_number, undone, attempts, ok_calls, model_ms, clamp_changes, filter_cuts "
        "FROM turns ORDER BY committed_ts"
    ).fetchall()
    assert rows == [
        (1, False, 3, 3, 370.0, 2, 2),
        (2, True, 1, 1, 90.0, 0, 0),
        (2, False, 4, 3, 99.0, 0, 0),
    ]


def test_latency_is_the_critical_path(con: duckdb.DuckDBPyConnection) -> None:
    rows = con.execute(
        "SELECT turn_number, whole_turn_ms, first_text_ms, model_ms, critical_path_ms "
        "FROM latency ORDER BY committed_ts"
    ).fetchall()
    # Turn 1: director 0-100, then prose 100-250 beside a Character call 120-240.
    assert rows[0] == (1, 300.0, 240.0, 370.0, pytest.approx(250.0))
    # The replayed turn 2: a failed attempt 710-760, the retry 760-800, the outcome 805-810,
    # the suggestion 811-815 (one after another); no prose or Character call: no first text.
    assert rows[2][:4] == (2, 120.0, None, 99.0)
    assert rows[2][4] == pytest.approx(99.0)


def test_prompt_diffs_name_the_first_changed_block(con: duckdb.DuckDBPyConnection) -> None:
    rows = con.execute(
        "SELECT agent, first_changed_block, shared_prefix_chars, agent_first_changed_block "
        "FROM prompt_diffs WHERE role = 'director' ORDER BY ts"
    ).fetchall()
    texts = [prompt_text(p) for p in (PROMPTS["t1"], PROMPTS["t2"], PROMPTS["t2b"], PROMPTS["t2b"],
                                      role_prompt())]  # fmt: skip
    common = [common_prefix_chars(a, b) for a, b in zip(texts, texts[1:], strict=False)]
    assert rows == [
        ("director", "(first prompt)", 0, "(first prompt)"),
        ("director", "user: Now", common[0], "user: Now"),
        ("director", "user: Stage", common[1], "user: Stage"),
        ("director", None, len(texts[3]), None),  # the retry repeats the failed attempt whole
        # The outcome call follows the role's last prompt, and is its agent's first.
        ("director:outcome", "user: Stage", common[3], "(first prompt)"),
    ]
    cache = con.execute(
        "SELECT lineage, first_changed_block, prompts FROM cache WHERE role = 'director' "
        "ORDER BY lineage, first_changed_block"
    ).fetchall()
    assert cache == [
        ("agent", "(first prompt)", 2),
        ("agent", "(identical)", 1),
        ("agent", "user: Now", 1),
        ("agent", "user: Stage", 1),
        ("role", "(first prompt)", 1),
        ("role", "(identical)", 1),
        ("role", "user: Now", 1),
        ("role", "user: Stage", 2),
    ]


def test_cost_prices_cached_tokens_apart_and_never_guesses(con: duckdb.DuckDBPyConnection) -> None:
    rows = con.execute(
        "SELECT provider, priced, cost, price_as_of IS NOT NULL FROM cost "
        "WHERE agent IN ('director:outcome', 'prose', 'suggest') ORDER BY provider"
    ).fetchall()
    expected = (HIT * 0.028 + MISS * 0.28 + 100 * 0.42) / 1e6
    assert rows[0][:2] == ("deepseek", True) and rows[0][2] == pytest.approx(expected)
    assert rows[1] == ("fake", True, None, True)  # free, but its tokens are unknown
    assert rows[2] == ("mystery", False, None, False)  # no price: unpriced, not zero


def test_an_edited_price_table_prices_at_its_rates(tavern_data_dir: Path, tmp_path: Path) -> None:
    _plant(tavern_data_dir)
    table = tmp_path / "prices.json"
    table.write_text(
        '{"prices": [{"provider": "deepseek", "model": "*", "input_per_mtok": 1.0, '
        '"cached_input_per_mtok": 0.5, "output_per_mtok": 2.0, "as_of": "2027-01-01"}]}'
    )
    con = connect(tavern_data_dir, prices=table, sweep=False)
    cost, as_of = con.execute(
        "SELECT cost, CAST(price_as_of AS VARCHAR) FROM cost WHERE provider = 'deepseek'"
    ).fetchone()
    assert cost == pytest.approx((HIT * 0.5 + MISS * 1.0 + 100 * 2.0) / 1e6)
    assert as_of == "2027-01-01"


def test_clamps_and_filters_unnest_the_commit_lines(con: duckdb.DuckDBPyConnection) -> None:
    assert con.execute("SELECT rule, path FROM clamps ORDER BY rule").fetchall() == [
        ("speaker_queue", "next_speakers"),
        ("witness_zone", "events[0].witness_ids"),
    ]
    assert con.execute(
        "SELECT rule, target_kind, language, emptied FROM filters ORDER BY rule"
    ).fetchall() == [("loop", "narration", "en", False), ("out_of_world", "reply", "pt-BR", True)]


def test_runs_count_what_the_journal_shows(con: duckdb.DuckDBPyConnection) -> None:
    assert con.execute(
        "SELECT session_id, commits, undos, attempts, failed_attempts, turns, skipped_lines "
        "FROM runs"
    ).fetchall() == [("sess-a", 3, 1, 8, 1, 2, 0)]


WHISPER = Audience(origin="whisper", perceivers=["C1", "C2"], aware=["C3"])
CANARY = "Quill7731"


def _history() -> list[object]:
    return [
        SpeechRecord(seq=1, turn_number=1, speaker="C1", author="human", text="Evening.",
                     audience=ALL),
        SpeechRecord(seq=2, turn_number=1, speaker="C1", author="human",
                     text=f"The code is {CANARY}.", audience=WHISPER),
        ThoughtRecord(seq=3, turn_number=1, speaker="C2", author="character",
                      text="I must keep Saltmarrow5521 to myself.",
                      audience=Audience(origin="private", perceivers=["C2"])),
        EventRecord(seq=4, turn_number=1, speaker="World", author="director",
                    event_kind="sensory_cue", text="Rain drums.", reader_text="Rain drums.",
                    audience=Audience(origin="zone", perceivers=["C1", "C2", "C3"])),
        ActionRecord(seq=5, turn_number=1, speaker="C2", author="character", text="waits",
                     audience=ALL),
        NarrationRecord(seq=6, turn_number=1, speaker="Narrator", author="renderer",
                        text="The lamp gutters.", audience=Audience(origin="public")),
        SpeechRecord(seq=7, turn_number=3, speaker="C2", author="character",
                     text=f"Everyone, the code is {CANARY}!", audience=ALL),
    ]  # fmt: skip


def test_events_and_speech_read_the_exported_history(tavern_data_dir: Path) -> None:
    run = _plant(tavern_data_dir)
    run.export(_history())  # type: ignore[arg-type]
    con = connect(tavern_data_dir, sweep=False)
    assert con.execute("SELECT event_kind, witness_count FROM events").fetchall() == [
        ("sensory_cue", 3)
    ]
    assert con.execute(
        "SELECT seq, speaker_name, origin, aware FROM speech ORDER BY seq"
    ).fetchall() == [
        (1, "Ilse Brandt", "public", []),
        (2, "Ilse Brandt", "whisper", ["C3"]),
        (7, "Maren Holt", "public", []),
    ]


def _boundary_run(data_dir: Path) -> duckdb.DuckDBPyConnection:
    run = Planted(data_dir)
    run.export(_history())  # type: ignore[arg-type]
    said = role_prompt(now=f"You heard: The code is {CANARY}.")
    run.call(1, "character:C2", end_ms=10, messages=said)  # in the whisper's audience
    run.call(1, "character:C3", end_ms=20, messages=said)  # planted: only noticed it
    run.call(1, "prose", end_ms=30, messages=said)  # planted: the renderer never hears words
    run.call(1, "director", end_ms=40, messages=said)  # the Director sees everything
    run.call(3, "character:C3", end_ms=50, messages=said)  # by turn 3 C2 said it aloud
    thought = role_prompt(now="Someone keeps Saltmarrow5521.")
    run.call(2, "character:C3", end_ms=60, messages=thought)  # planted: another's thought
    run.call(2, "suggest", end_ms=70, messages=thought)  # planted: the human's character's view
    return connect(data_dir)


def test_boundary_sweep_catches_canaries_outside_their_audience(tavern_data_dir: Path) -> None:
    con = _boundary_run(tavern_data_dir)
    rows = con.execute(
        "SELECT agent, turn_number, rule, excerpt FROM leaks WHERE sweep = 'boundary' "
        "ORDER BY line_no"
    ).fetchall()
    assert rows == [
        ("character:C3", 1, "outside_audience", CANARY),
        ("prose", 1, "prose_saw_private", CANARY),
        ("character:C3", 2, "outside_audience", "Saltmarrow5521"),
        ("suggest", 2, "outside_audience", "Saltmarrow5521"),
    ]


def test_boundary_sweep_reads_ledger_memory(tavern_data_dir: Path) -> None:
    run = Planted(tavern_data_dir)
    state = run.state()
    ledgers = dict(state.ledgers)
    ledgers["C3"] = ledgers["C3"].model_copy(update={"memory": ["C2 keeps Saltmarrow5521."]})
    ledgers["C2"] = ledgers["C2"].model_copy(update={"memory": ["I keep Saltmarrow5521."]})
    run.export(_history(), state.model_copy(update={"ledgers": ledgers}))  # type: ignore[arg-type]
    rows = leaks_df(tavern_data_dir)
    assert rows[["agent", "rule", "excerpt"]].values.tolist() == [
        ["memory:C3", "memory", "Saltmarrow5521"]
    ]


def test_contract_sweep_catches_a_planted_leak(tavern_data_dir: Path) -> None:
    run = Planted(tavern_data_dir)
    run.call(1, "director", end_ms=10, messages=role_prompt(now="Mara waits at the bar."))
    run.call(1, "character:C2", end_ms=20,
             messages=role_prompt(now="Mara is controlled by the human player."))  # fmt: skip
    leaks = leaks_df(tavern_data_dir, ["Mara"])
    assert set(leaks["agent"]) == {"character:C2"}
    assert set(leaks["sweep"]) == {"contract"}


def test_structural_leaks_need_the_cast_names(tavern_data_dir: Path) -> None:
    # One character block lacks a field the others have: invisible to a word search.
    text = (
        "Mara\nAppearance: tall, red apron\nMood: calm\nSecrets: owes the guild money\n\n"
        "Rui\nAppearance: broad, burnt hands\nMood: tense\nSecrets: a deserter\n\n"
        "Tomas\nAppearance: thin, patched coat\nMood: wary\n"
    )
    run = Planted(tavern_data_dir)
    run.call(1, "director", end_ms=10, messages=role_prompt(now=text))
    assert leaks_df(tavern_data_dir).empty
    leaks = leaks_df(tavern_data_dir, ["Mara", "Rui", "Tomas"])
    assert set(leaks["rule"]) == {"structural_missing_field"}


def test_tokenizer_counts_fill_unreported_calls(tavern_data_dir: Path) -> None:
    _plant(tavern_data_dir)
    con = connect(tavern_data_dir, sweep=False)
    seen: list[str] = []

    def server(request: httpx.Request) -> httpx.Response:
        seen.append(request.url.path)
        if request.url.path == "/apply-template":
            return httpx.Response(200, json={"prompt": "<|im_start|>system ..."})
        return httpx.Response(200, json={"tokens": list(range(42))})

    client = httpx.Client(transport=httpx.MockTransport(server))
    counted = count_tokens(con, "http://127.0.0.1:8080", client=client, model="parrot")
    assert counted == 6  # every fake call, the failed attempt too: its prompt was sent
    assert con.execute(
        "SELECT token_source, count(*), sum(prompt_tokens) FROM calls GROUP BY ALL ORDER BY ALL"
    ).fetchall() == [("none", 1, None), ("provider", 1, 1000), ("tokenizer", 6, 6 * 42)]
    assert seen.count("/apply-template") == 6


def test_tokenizer_refuses_the_network_in_tests(tavern_data_dir: Path) -> None:
    _plant(tavern_data_dir)
    con = connect(tavern_data_dir, sweep=False)
    with pytest.raises(TokenizerRefused):
        count_tokens(con, "http://127.0.0.1:9", client=httpx.Client())


def test_every_example_query_runs(tavern_data_dir: Path) -> None:
    run = _plant(tavern_data_dir)
    run.export(_history())  # type: ignore[arg-type]
    run.call(2, "character:C3", end_ms=900, messages=role_prompt(now=f"Heard {CANARY}."))
    revised = MemoryRevision(owner="C2", outcome="revised", folded_lines=4, summary_chars=80)
    run.write(CommitLine(ts=at(950), session_id="sess-a", turn_number=3, revision=3,
                         record_count=3, tick=3, control_returned=True,
                         memory_revisions=[revised]))  # fmt: skip
    run.write(CompactLine(ts=at(960), session_id="sess-a", turn_number=3, revision=4,
                          checkpoint_id="cp-aaaa", cutoff_turn=1, evicted_records=5))  # fmt: skip
    write_results(
        tavern_data_dir / "results.jsonl",
        [probe_result("r1", "sess-a", "recall", True), run_result("r1", "sess-a")],
    )
    con = connect(tavern_data_dir)
    for view in VIEWS:
        assert con.execute(view.example).fetchall(), view.name
        assert view.doc and view.name in view.example


def test_frames_share_join_keys(tavern_data_dir: Path) -> None:
    _plant(tavern_data_dir)
    calls, turns = llm_calls_df(tavern_data_dir), turns_df(tavern_data_dir)
    joined = calls.merge(turns, on=["session_id", "turn_number"])
    assert len(calls) == 8 and len(turns) == 3 and len(joined) > 0


_SPANS = st.lists(
    st.tuples(st.integers(0, 50), st.integers(1, 20)).map(lambda t: (t[0], t[0] + t[1])),
    max_size=7,
)


@given(_SPANS)
def test_critical_path_is_the_longest_sequential_chain(spans: list[tuple[int, int]]) -> None:
    best = 0
    for mask in range(1 << len(spans)):
        chosen = sorted((spans[i] for i in range(len(spans)) if mask >> i & 1), key=lambda s: s[1])
        if all(b[0] + TOLERANCE_MS >= a[1] for a, b in zip(chosen, chosen[1:], strict=False)):
            best = max(best, sum(e - s for s, e in chosen))
    assert critical_path_ms([(float(s), float(e)) for s, e in spans]) == best


def test_a_stopped_answer_is_marked(tavern_data_dir: Path) -> None:
    run = Planted(tavern_data_dir)
    run.call(1, "director", end_ms=10)
    stopped = run.call(1, "prose", end_ms=20).model_copy(update={"stopped_early": True})
    run.write(stopped)
    calls = llm_calls_df(tavern_data_dir)
    assert calls[["agent", "stopped_early"]].values.tolist() == [
        ["director", False],
        ["prose", False],
        ["prose", True],
    ]


def test_the_readme_lists_every_view_with_its_example() -> None:
    readme = (Path(__file__).parents[2] / "harness" / "README.md").read_text()
    for view in VIEWS:
        assert f"| `{view.name}` |" in readme and view.example in readme, view.name


def test_a_database_file_is_reused_while_the_journals_are_unchanged(
    tavern_data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from harness import analysis, loader, sweeps

    run = _plant(tavern_data_dir)
    database = str(tmp_path / "analysis.duckdb")
    first = connect(tavern_data_dir, database=database)
    counts = first.execute("SELECT count(*) FROM calls").fetchone()
    first.close()
    # Planted: were the journals read or swept again, these would fail.
    monkeypatch.setattr(loader, "_load_journals", lambda *a: pytest.fail("loaded again"))
    monkeypatch.setattr(analysis, "create_leaks", lambda *a: pytest.fail("swept again"))
    again = connect(tavern_data_dir, database=database)
    assert again.execute("SELECT count(*) FROM calls").fetchone() == counts
    assert again.execute("SELECT count(*) FROM leaks").fetchone() == (0,)
    again.close()
    monkeypatch.undo()
    run.call(3, "director", end_ms=5000)  # the journal changed: loaded and swept again
    swept: list[int] = []
    real = sweeps.create_leaks
    monkeypatch.setattr(analysis, "create_leaks", lambda *a: swept.append(1) or real(*a))
    third = connect(tavern_data_dir, database=database)
    assert third.execute("SELECT count(*) FROM calls").fetchone() == (counts[0] + 1,)
    assert swept == [1]


def _plant_variants(data_dir: Path) -> None:
    """Turn 1 played, regenerated twice, then flipped back to its first regeneration;
    turn 2 played, regenerated, then voided by a recovered undo (the store never held it)
    and played again, its commit line recovered after a crash."""
    run = Planted(data_dir)
    run.turn_input(1, 0)
    run.call(1, "director", end_ms=100)
    run.commit(1, 150)
    for number, start in ((1, 200), (2, 400)):
        run.turn_input(1, start)
        run.call(1, "director", end_ms=start + 50)
        run.variant(1, start + 90, "rerun", committed=number, aside=number - 1)
        run.commit(1, start + 100)
    run.variant(1, 600, "flip", committed=1, aside=2)
    run.turn_input(2, 700)
    run.call(2, "director", end_ms=750)
    run.commit(2, 800)
    run.turn_input(2, 900)
    run.variant(2, 990, "rerun", committed=1, aside=0)
    run.commit(2, 1000)
    run.undo(2, 1100, recovered=True)
    run.turn_input(2, 1200)
    run.commit(2, 1300, recovered=True)


def test_turns_know_variants_and_recovered_commits(tavern_data_dir: Path) -> None:
    _plant_variants(tavern_data_dir)
    con = connect(tavern_data_dir)
    rows = con.execute(
        "SELECT turn_number, variant, set_aside, recovered, undone, voided, kept, attempts "
        "FROM turns ORDER BY committed_ts"
    ).fetchall()
    assert rows == [
        (1, 0, True, False, False, False, False, 1),
        (1, 1, False, False, False, False, True, 1),
        (1, 2, True, False, False, False, False, 1),
        (2, 0, True, False, True, True, False, 1),
        (2, 1, False, False, True, True, False, 0),
        (2, 0, False, True, False, False, True, 0),
    ]
    # Commit lines not undone would count four turns; the story holds two.
    assert con.execute("SELECT count(*) FROM turns WHERE NOT undone").fetchone() == (4,)
    assert con.execute("SELECT turns FROM runs").fetchone() == (2,)
    kept = con.execute("SELECT variant FROM turn_calls WHERE kept").fetchall()
    assert kept == [(1,)]


def test_turns_variants_agree_with_the_store(tavern_data_dir: Path) -> None:
    """A fake-provider session regenerated twice and flipped: the view's kept variant of
    the last turn is the one the store holds committed, and it lists every variant."""
    import asyncio

    from tavern.records import TurnInput
    from tavern.records.config import AppConfig, ProviderSettings
    from tavern.runner import build_runner
    from tavern.store import Library, SessionStore

    async def play() -> tuple[str, list[tuple[int, bool]]]:
        config = AppConfig(
            active_provider="fake",
            providers={"fake": ProviderSettings(options={"mode": "parrot"})},
        )
        store = SessionStore(tavern_data_dir, synchronous="OFF")
        runner = build_runner(config=config, library=Library(tavern_data_dir), store=store)
        view = await runner.create_session("the-toll-house")
        await runner.play_turn(view.id, TurnInput(speech="Good evening."))
        await runner.play_turn(view.id, TurnInput(action="looks out of the window"))
        await runner.rerun(view.id)
        await runner.rerun(view.id)
        await runner.flip(view.id, 1)
        variants = [(v.variant, v.committed) for v in store.variants(view.id)]
        await runner.aclose()
        store.close()
        return view.id, variants

    session_id, variants = asyncio.run(play())
    assert sorted(variants) == [(0, False), (1, True), (2, False)]
    con = connect(tavern_data_dir, sweep=False)
    rows = con.execute(
        "SELECT variant, kept FROM turns WHERE session_id = ? AND turn_number = 2 "
        "ORDER BY committed_ts",
        [session_id],
    ).fetchall()
    assert rows == [(0, False), (1, True), (2, False)]
    assert con.execute(
        "SELECT list(turn_number ORDER BY turn_number) FROM turns WHERE kept"
    ).fetchone() == ([1, 2],)
