"""The metric battery: deterministic, offline, each a function over the views.

Each metric has a detail function (rows by rule, role, channel or turn) and a per-run value
in `run_metrics`, one row per session with one column per metric, which is what the
statistics compare between arms. A metric whose input a run does not have (no export, no
provider token counts, no price) is NULL for that run, never zero.

Per-run columns (`run_metrics`), each followed by the function with its detail:

- `director_speech_rate`, `raw_director_speech_rate`: Director events that are dialogue
  (`tavern.physics.unperceived`), committed and in its raw answers (`director_speech`)
- `empty_audience_rate`: speech, action and event records nobody perceives (`empty_audience`)
- `redaction_markers`: masks (`[...]`) in records and prompts, by channel
  (`redaction_markers`)
- `leaks`, `canaries`: sweep violations, canaries planted in whispers and thoughts
  (`leak_counts`)
- `unlearned_name_prompts`: Character prompts naming someone their character has not
  learned (`unlearned_names`)
- `director_repeat_rate`, `director_echo_rate`: Director events repeating an earlier turn's
  event, or the human's words of the turn (`director_repetition`)
- `clamp_changes_per_turn`, `filter_cuts_per_turn`: by rule, by filter and language
  (`clamps_by_rule`, `filter_cuts`)
- `probe_pass_rate`: the harness's probes (`probe_pass_rates`)
- `invariant_failures_per_run`: invariant checks that failed, NULL for a session no
  finished harness run played (`invariant_failures`)
- `calls_per_run`: model calls, first attempts only (`calls_by_role`)
- `prompt_tokens_per_turn`, `completion_tokens_per_turn`, `cost_per_turn`
  (`tokens_and_cost`)
- `cache_hit_share`: prompt tokens served from the provider's cache (`cache_hit_share`)
- `first_text_ms`, `whole_turn_ms`: median latency of a turn (the `latency` view)
- `story_yield`: words committed per word the models generated (`story_yield`)
- `silent_turn_share`, `empty_turn_share`: turns where no other character speaks, turns
  that commit no model-made record (`turn_yield`, `empty_turns_by_filter`)

Example:
    >>> from harness.analysis import connect
    >>> run_metrics(connect([])).columns[:2].tolist()
    ['session_id', 'turns']
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

import duckdb
import pandas as pd

from tavern.llm.fake_choosers import ID_KEY
from tavern.physics.duplicates import told_again
from tavern.physics.identity import _name_forms
from tavern.physics.redaction import MASK
from tavern.physics.unperceived import is_authored_speech
from tavern.records import Body, Character, Mind
from tavern.runner.screen import WHISPER_MARKER
from tavern.text import Lexicon, lexicon_for, words
from tavern.text.words import shares_run

METRICS = (
    "director_speech_rate",
    "raw_director_speech_rate",
    "empty_audience_rate",
    "redaction_markers",
    "leaks",
    "canaries",
    "unlearned_name_prompts",
    "director_repeat_rate",
    "director_echo_rate",
    "clamp_changes_per_turn",
    "filter_cuts_per_turn",
    "probe_pass_rate",
    "invariant_failures_per_run",
    "calls_per_run",
    "prompt_tokens_per_turn",
    "completion_tokens_per_turn",
    "cost_per_turn",
    "cache_hit_share",
    "first_text_ms",
    "whole_turn_ms",
    "story_yield",
    "silent_turn_share",
    "empty_turn_share",
)
"""The battery's per-run metrics: the columns of `run_metrics` a campaign may pre-register
(`leaks` and `canaries` only when the connection ran the sweeps)."""
ECHO_RUN = 5
"""Words in a row an event must share with the human's input of its turn to echo it."""
MODEL_AUTHORS = ("director", "renderer", "character")
"""History authors that are models (the human's records and kernel markers are not)."""
ROLE_OF_AUTHOR = {"director": "director", "renderer": "prose", "character": "character"}
"""Which calls' words a record's author committed."""
_NOT_TEXT_KEYS = frozenset({"kind", "event_kind", "utterance_ref", "sound", "sight"})


def _df(con: duckdb.DuckDBPyConnection, sql: str, params: Iterable[Any] = ()) -> pd.DataFrame:
    return con.execute(sql, list(params)).df()


def _lexicons(con: duckdb.DuckDBPyConnection) -> dict[str, Lexicon]:
    """Session id -> the lexicon of its language (sessions without an export read as `en`)."""
    rows = con.execute("SELECT session_id, language FROM sessions").fetchall()
    return {str(sid): lexicon_for(str(language)) for sid, language in rows}


# -- Director-authored speech ------------------------------------------------------------


def _director_events(response: str | None) -> list[str]:
    """The event texts of a Director answer (none when it is not a decision)."""
    try:
        data = json.loads(response or "")
    except ValueError:
        return []
    events = data.get("events") if isinstance(data, dict) else None
    if not isinstance(events, list):
        return []
    return [e["text"] for e in events if isinstance(e, dict) and isinstance(e.get("text"), str)]


def director_speech(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """Per session: Director events that are dialogue, in its raw answers (every successful
    `director` call) and among the committed events (history export).

    >>> from harness.analysis import connect
    >>> director_speech(connect([])).columns.tolist()[:3]
    ['session_id', 'raw_events', 'raw_authored']
    """
    lexicons, english = _lexicons(con), lexicon_for("en")
    raw: dict[str, list[int]] = {}
    rows = con.execute(
        "SELECT session_id, response FROM calls WHERE agent = 'director' AND ok"
    ).fetchall()
    for sid, response in rows:
        lex = lexicons.get(str(sid), english)
        texts = _director_events(response)
        counts = raw.setdefault(str(sid), [0, 0])
        counts[0] += len(texts)
        counts[1] += sum(is_authored_speech(t, lex) for t in texts)
    committed: dict[str, list[int]] = {}
    for sid, text in con.execute(
        "SELECT session_id, text FROM events WHERE author = 'director'"
    ).fetchall():
        counts = committed.setdefault(str(sid), [0, 0])
        counts[0] += 1
        counts[1] += is_authored_speech(text, lexicons.get(str(sid), english))
    sessions = sorted(set(raw) | set(committed))
    frame = pd.DataFrame(
        [(s, *raw.get(s, [0, 0]), *committed.get(s, [None, None])) for s in sessions],
        columns=["session_id", "raw_events", "raw_authored", "events", "authored"],
    )
    frame["raw_rate"] = frame["raw_authored"] / frame["raw_events"].where(frame["raw_events"] > 0)
    frame["rate"] = frame["authored"] / frame["events"].where(frame["events"] > 0)
    return frame


# -- audiences and redaction -------------------------------------------------------------


def empty_audience(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """Per session and record kind: speech, action and event records that nobody perceives
    (an empty `audience.perceivers`; a thought always has its owner)."""
    return _df(
        con,
        """SELECT session_id, kind, count(*) AS records,
                  count(*) FILTER (WHERE len(audience.perceivers) = 0) AS empty_audience,
                  empty_audience / count(*) AS rate
           FROM history WHERE kind IN ('speech', 'action', 'event')
           GROUP BY session_id, kind ORDER BY session_id, kind""",
    )


def redaction_markers(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """Per session and channel: how many texts hold a mask (`[...]`, a redacted token) or a
    whisper marker, and how many markers. Channels: each history record kind, the events'
    reader text (`event:reader`), and each role's prompts (`prompt:<role>`)."""
    mask, whisper = MASK.replace("'", "''"), WHISPER_MARKER.replace("'", "''")
    return _df(
        con,
        f"""WITH texts AS (
               SELECT session_id, kind AS channel, text FROM history WHERE text IS NOT NULL
               UNION ALL
               SELECT session_id, 'event:reader', reader_text FROM history
               WHERE kind = 'event' AND reader_text IS NOT NULL
               UNION ALL
               SELECT session_id, 'prompt:' || role,
                      array_to_string(list_transform(messages, lambda m: m.content), chr(10))
               FROM calls
           )
           SELECT session_id, channel, count(*) AS texts,
                  count(*) FILTER (WHERE contains(text, '{mask}')) AS texts_with_mask,
                  sum((length(text) - length(replace(text, '{mask}', '')))
                      // length('{mask}')) AS masks,
                  count(*) FILTER (WHERE contains(text, '{whisper}')) AS texts_with_whisper_marker
           FROM texts GROUP BY session_id, channel ORDER BY session_id, channel""",
    )


def leak_counts(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """Per session: canaries planted (canary-looking words of whispers and thoughts) and
    sweep violations by sweep and rule (needs `connect(..., sweep=True)`)."""
    from harness.sweeps import canary_tokens

    planted: dict[str, set[str]] = {}
    for sid, text in con.execute(
        """SELECT session_id, text FROM history
           WHERE kind = 'thought' OR (kind = 'speech' AND audience.origin = 'whisper')"""
    ).fetchall():
        planted.setdefault(str(sid), set()).update(canary_tokens(text))
    found = _df(
        con,
        """SELECT session_id, sweep, rule, count(*) AS violations FROM leaks
           GROUP BY ALL ORDER BY ALL""",
    )
    found["canaries"] = [len(planted.get(str(s), ())) for s in found["session_id"]]
    missing = [s for s in planted if s not in set(found["session_id"])]
    extra = pd.DataFrame(
        [(s, None, None, 0, len(planted[s])) for s in missing], columns=found.columns
    )
    return pd.concat([found, extra], ignore_index=True) if missing else found


# -- names -------------------------------------------------------------------------------


def unlearned_names(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """One row per (Character prompt, name form) where the prompt names another character
    its viewer had not learned by that turn (ledger identities of the export: a name learned
    from record `seq` counts from that record's turn; a false name learned does not teach
    the true one)."""
    seq_turn: dict[tuple[str, int], int] = {
        (str(s), int(q)): int(t)
        for s, q, t in con.execute("SELECT session_id, seq, turn_number FROM history").fetchall()
    }
    cast: dict[str, dict[str, list[str]]] = {}
    learned: dict[tuple[str, str, str], tuple[str | None, int | None]] = {}
    for sid, characters, identities in con.execute(
        "SELECT session_id, characters, identities FROM sessions"
    ).fetchall():
        cast[str(sid)] = {
            c["slot"]: _name_forms(
                Character(
                    id="x",
                    mind=Mind(),
                    body=Body(display_name=c["name"], description_ref=c["description_ref"]),
                )
            )
            for c in characters
        }
        for entry in identities:
            seq = entry["learned_from_seq"]
            turn = None if seq is None else seq_turn.get((str(sid), int(seq)))
            learned[(str(sid), entry["viewer"], entry["other"])] = (entry["name"], turn)
    rows = []
    prompts = con.execute(
        """SELECT session_id, turn_number, slot, attempt_number, file, line_no,
                  array_to_string(list_transform(messages, lambda m: m.content), chr(10))
           FROM calls WHERE role = 'character' ORDER BY file, line_no"""
    ).fetchall()
    for sid, turn, viewer, attempt, file, line_no, text in prompts:
        for other, forms in cast.get(str(sid), {}).items():
            if other == viewer:
                continue
            name, since = learned.get((str(sid), str(viewer), other), (None, None))
            known = name is not None and (since is None or since <= turn)
            for form in forms:
                if known and (form == name or form in str(name).split()):
                    continue
                if re.search(rf"\b{re.escape(form)}\b", text):
                    rows.append((sid, turn, viewer, attempt, other, form, file, line_no))
    return pd.DataFrame(
        rows,
        columns=["session_id", "turn_number", "viewer", "attempt_number", "other", "form",
                 "file", "line_no"],
    )  # fmt: skip


# -- Director repetition -----------------------------------------------------------------


def director_repetition(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """One row per committed Director event: `repeats` when it tells again an event of an
    earlier turn (`tavern.physics.duplicates.told_again`, either way round), `echoes`
    when it shares `ECHO_RUN` words in a row with the human's speech or action of its turn."""
    inputs: dict[tuple[str, int], list[str]] = {}
    for sid, turn, speech, action in con.execute(
        """SELECT session_id, turn_number, input.speech, input.action FROM turns
           WHERE kept"""
    ).fetchall():
        inputs[(str(sid), int(turn))] = [t for t in (speech, action) if t]
    lexicons, english = _lexicons(con), lexicon_for("en")
    rows = []
    earlier: dict[str, list[tuple[int, str]]] = {}
    for sid, seq, turn, text in con.execute(
        """SELECT session_id, seq, turn_number, text FROM events WHERE author = 'director'
           ORDER BY session_id, seq"""
    ).fetchall():
        before = [t for n, t in earlier.get(str(sid), []) if n < turn]
        lex = lexicons.get(str(sid), english)
        repeats = any(told_again(text, e, lex) or told_again(e, text, lex) for e in before)
        said = inputs.get((str(sid), int(turn)), [])
        echoes = any(shares_run(words(text), words(s), ECHO_RUN) for s in said)
        rows.append((sid, seq, turn, text, repeats, echoes))
        earlier.setdefault(str(sid), []).append((int(turn), text))
    return pd.DataFrame(
        rows, columns=["session_id", "seq", "turn_number", "text", "repeats", "echoes"]
    )


# -- clamps, filters, probes -------------------------------------------------------------


def clamps_by_rule(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """Per session and clamp rule: changes in kept turns (the story as it stands, what the
    per-turn metrics divide by), the kept turns they touched, and `all_changes`, set-aside
    variants and undone turns included."""
    return _df(
        con,
        """SELECT session_id, rule, count(*) FILTER (WHERE kept) AS changes,
                  count(DISTINCT turn_number) FILTER (WHERE kept) AS turns,
                  count(*) AS all_changes
           FROM clamps GROUP BY ALL ORDER BY ALL""",
    )


def filter_cuts(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """Per session, filter rule, target kind and language: cuts in kept turns, those that
    left nothing, and `all_cuts`, set-aside variants and undone turns included."""
    return _df(
        con,
        """SELECT session_id, rule, target_kind, language, count(*) FILTER (WHERE kept) AS cuts,
                  count(*) FILTER (WHERE emptied AND kept) AS emptied, count(*) AS all_cuts
           FROM filters GROUP BY ALL ORDER BY ALL""",
    )


def invariant_failures(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """Per session and failing label: the harness's invariant checks that failed (the
    `probes` view, finished runs only; one `invariants` probe per play of the script)."""
    return _df(
        con,
        """SELECT session_id, coalesce(label, '(none)') AS label, count(*) AS failures
           FROM probes WHERE probe = 'invariants' AND NOT passed
           GROUP BY ALL ORDER BY ALL""",
    )


def calls_by_role(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """Per session and role: calls (first attempts, as `RunResult.calls` counts them),
    attempts (retries included) and failed attempts."""
    return _df(
        con,
        """SELECT session_id, role, count(*) FILTER (WHERE attempt_number = 1) AS calls,
                  count(*) AS attempts, count(*) FILTER (WHERE NOT ok) AS failed_attempts
           FROM calls GROUP BY ALL ORDER BY ALL""",
    )


def probe_pass_rates(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """Per session and probe kind: probes run and passed (the `probes` view: the harness's
    results files, finished runs only)."""
    return _df(
        con,
        """SELECT session_id, probe, count(*) AS probes, count(*) FILTER (WHERE passed) AS passed,
                  count(*) FILTER (WHERE passed) / count(*) AS pass_rate
           FROM probes GROUP BY session_id, probe ORDER BY session_id, probe""",
    )


# -- tokens, cost, cache -----------------------------------------------------------------


def tokens_and_cost(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """Per session: committed turns, attempts, tokens and cost in total and per turn. Tokens
    and cost are NULL when any attempt's tokens are unknown (a partial sum would mislead)."""
    return _df(
        con,
        """WITH t AS (SELECT session_id, count(*) AS turns FROM turns WHERE kept
                      GROUP BY session_id),
           c AS (
               SELECT session_id, count(*) AS attempts,
                      bool_and(token_source <> 'none') AS tokens_known,
                      sum(prompt_tokens) AS prompt_tokens,
                      sum(completion_tokens) AS completion_tokens,
                      bool_and(priced) AS priced, sum(cost) AS cost, any_value(currency) AS currency
               FROM cost GROUP BY session_id
           )
           SELECT c.session_id, coalesce(t.turns, 0) AS turns, c.attempts,
                  CASE WHEN tokens_known THEN prompt_tokens END AS prompt_tokens,
                  CASE WHEN tokens_known THEN completion_tokens END AS completion_tokens,
                  CASE WHEN tokens_known AND priced THEN cost END AS cost, currency,
                  CASE WHEN tokens_known THEN prompt_tokens / nullif(t.turns, 0) END
                      AS prompt_tokens_per_turn,
                  CASE WHEN tokens_known THEN completion_tokens / nullif(t.turns, 0) END
                      AS completion_tokens_per_turn,
                  CASE WHEN tokens_known AND priced THEN cost / nullif(t.turns, 0) END
                      AS cost_per_turn
           FROM c LEFT JOIN t USING (session_id) ORDER BY c.session_id""",
    )


def cache_hit_share(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """Per session and role: prompt tokens the provider served from its cache, over those it
    counted (attempts without counters left out, and counted)."""
    return _df(
        con,
        """SELECT session_id, role, count(*) AS attempts,
                  count(cache_hit_tokens) AS attempts_with_counters,
                  sum(cache_hit_tokens) AS hit_tokens, sum(cache_miss_tokens) AS miss_tokens,
                  sum(cache_hit_tokens) / nullif(sum(cache_hit_tokens)
                      + sum(cache_miss_tokens), 0) AS hit_share
           FROM calls GROUP BY ALL ORDER BY ALL""",
    )


# -- story yield -------------------------------------------------------------------------


def generated_words(response: str | None) -> int:
    """Words a model generated in an answer: a JSON answer's text values (ids, kinds and
    keys aside), or the whole text of a prose answer.

    >>> generated_words('{"speech": "Good evening.", "witness_ids": ["C2"], "kind": "x"}')
    2
    >>> generated_words("The lamp gutters out.")
    4
    """
    if not response:
        return 0
    try:
        data = json.loads(response)
    except ValueError:
        return len(words(response))
    if isinstance(data, str):
        return len(words(data))
    return sum(len(words(text)) for text in _texts(data, ""))


def _texts(value: Any, key: str) -> Iterable[str]:
    if isinstance(value, str):
        if key not in _NOT_TEXT_KEYS and not ID_KEY.search(key):
            yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _texts(v, str(k))
    elif isinstance(value, list):
        for item in value:
            yield from _texts(item, key)


def story_yield(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """Per session and role: words committed to the story (history records the role's model
    wrote: events, narration, Characters' speech, thoughts and attempts) per word the role's
    calls generated (every answer that arrived, retries included)."""
    generated: dict[tuple[str, str], int] = {}
    for sid, role, response in con.execute(
        "SELECT session_id, role, response FROM calls WHERE response IS NOT NULL"
    ).fetchall():
        key = (str(sid), str(role))
        generated[key] = generated.get(key, 0) + generated_words(response)
    committed: dict[tuple[str, str], int] = {}
    authors = ", ".join(f"'{a}'" for a in MODEL_AUTHORS)
    for sid, author, text in con.execute(
        f"SELECT session_id, author, text FROM history WHERE author IN ({authors})"
    ).fetchall():
        key = (str(sid), ROLE_OF_AUTHOR[str(author)])
        committed[key] = committed.get(key, 0) + len(words(text or ""))
    keys = sorted(k for k in set(generated) | set(committed) if k[1] in ROLE_OF_AUTHOR.values())
    frame = pd.DataFrame(
        [(s, r, committed.get((s, r), 0), generated.get((s, r), 0)) for s, r in keys],
        columns=["session_id", "role", "committed_words", "generated_words"],
    )
    frame["yield"] = frame["committed_words"] / frame["generated_words"].where(
        frame["generated_words"] > 0
    )
    return frame


def turn_yield(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """Per committed turn (undone turns and set-aside variants aside): model time, records
    the models committed, whether another character spoke, and whether the turn came out
    empty."""
    authors = ", ".join(f"'{a}'" for a in MODEL_AUTHORS)
    return _df(
        con,
        f"""WITH controlled AS (SELECT session_id, controlled_id FROM sessions),
           made AS (
               SELECT h.session_id, h.turn_number,
                      count(*) FILTER (WHERE h.author IN ({authors})) AS model_records,
                      count(*) FILTER (WHERE h.kind = 'speech' AND h.author = 'character'
                                         AND h.speaker <> c.controlled_id) AS other_speech
               FROM history h JOIN controlled c USING (session_id)
               GROUP BY ALL
           )
           SELECT t.session_id, t.turn_number, t.model_ms, t.record_count,
                  coalesce(m.model_records, 0) AS model_records,
                  coalesce(m.other_speech, 0) = 0 AS silent,
                  coalesce(m.model_records, 0) = 0 AS empty
           FROM turns t LEFT JOIN made m USING (session_id, turn_number)
           WHERE t.kept AND t.session_id IN (SELECT session_id FROM controlled)
           ORDER BY t.session_id, t.turn_number""",
    )


def empty_turns_by_filter(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """Per session and filter rule: turns where the rule cut something to nothing, and how
    many of those turns committed no model-made record at all (the filter's empty turns)."""
    yields = turn_yield(con)
    cuts = _df(
        con,
        """SELECT DISTINCT session_id, turn_number, rule FROM filters WHERE emptied AND kept""",
    )
    if cuts.empty:
        return pd.DataFrame(columns=["session_id", "rule", "turns_emptied_by_rule", "empty_turns"])
    merged = cuts.merge(yields[["session_id", "turn_number", "empty"]], how="left")
    merged["empty"] = merged["empty"].fillna(False).astype(bool)
    grouped = merged.groupby(["session_id", "rule"], as_index=False).agg(
        turns_emptied_by_rule=("turn_number", "count"), empty_turns=("empty", "sum")
    )
    grouped["empty_turns"] = grouped["empty_turns"].astype(int)
    return grouped


# -- the per-run table -------------------------------------------------------------------


def run_metrics(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """One row per session (run), one column per metric of the battery (module table)."""
    runs = _df(
        con,
        """SELECT session_id, coalesce((SELECT count(*) FROM turns t
                  WHERE t.session_id = r.session_id AND t.kept), 0) AS turns,
                  campaign, arm, run
           FROM runs r ORDER BY session_id""",
    )
    sessions = set(runs["session_id"])

    def column(frame: pd.DataFrame, value: pd.Series) -> dict[str, Any]:
        return dict(zip(frame["session_id"], value, strict=True))

    out = runs.copy()
    speech = director_speech(con)
    out["director_speech_rate"] = out["session_id"].map(column(speech, speech["rate"]))
    out["raw_director_speech_rate"] = out["session_id"].map(column(speech, speech["raw_rate"]))
    empty = empty_audience(con).groupby("session_id")[["records", "empty_audience"]].sum()
    out["empty_audience_rate"] = out["session_id"].map(
        (empty["empty_audience"] / empty["records"]).to_dict()
    )
    markers = redaction_markers(con)
    out["redaction_markers"] = out["session_id"].map(markers.groupby("session_id")["masks"].sum())
    swept = con.execute("SELECT count(*) FROM duckdb_views() WHERE view_name = 'leaks'").fetchone()
    if swept and swept[0]:
        leaks = leak_counts(con)
        out["leaks"] = out["session_id"].map(leaks.groupby("session_id")["violations"].sum())
        out["leaks"] = out["leaks"].fillna(0).astype(int)
        out["canaries"] = out["session_id"].map(leaks.groupby("session_id")["canaries"].max())
    names = unlearned_names(con)
    exported = set(con.execute("SELECT session_id FROM sessions").df()["session_id"])
    prompts = names.groupby("session_id")[["file", "line_no"]].apply(
        lambda g: len(g.drop_duplicates())
    )
    out["unlearned_name_prompts"] = [
        int(prompts.get(s, 0)) if s in exported else None for s in out["session_id"]
    ]
    repetition = director_repetition(con).groupby("session_id")[["repeats", "echoes"]].mean()
    out["director_repeat_rate"] = out["session_id"].map(repetition["repeats"])
    out["director_echo_rate"] = out["session_id"].map(repetition["echoes"])
    per_turn = out.set_index("session_id")["turns"].replace(0, pd.NA)
    changes = clamps_by_rule(con).groupby("session_id")["changes"].sum()
    out["clamp_changes_per_turn"] = out["session_id"].map(
        (changes.reindex(list(sessions), fill_value=0) / per_turn).to_dict()
    )
    cuts = filter_cuts(con).groupby("session_id")["cuts"].sum()
    out["filter_cuts_per_turn"] = out["session_id"].map(
        (cuts.reindex(list(sessions), fill_value=0) / per_turn).to_dict()
    )
    probes = probe_pass_rates(con)
    if not probes.empty:
        totals = probes.groupby("session_id")[["probes", "passed"]].sum()
        out["probe_pass_rate"] = out["session_id"].map(totals["passed"] / totals["probes"])
    else:
        out["probe_pass_rate"] = None
    probed = set(con.execute("SELECT DISTINCT session_id FROM probes").df()["session_id"])
    failures = invariant_failures(con).groupby("session_id")["failures"].sum()
    out["invariant_failures_per_run"] = [
        int(failures.get(s, 0)) if s in probed else None for s in out["session_id"]
    ]
    made = calls_by_role(con).groupby("session_id")["calls"].sum()
    out["calls_per_run"] = [int(made.get(s, 0)) for s in out["session_id"]]
    tokens = tokens_and_cost(con).set_index("session_id")
    for name in ("prompt_tokens_per_turn", "completion_tokens_per_turn", "cost_per_turn"):
        out[name] = out["session_id"].map(tokens[name])
    hits = (
        cache_hit_share(con).groupby("session_id")[["hit_tokens", "miss_tokens"]].sum(min_count=1)
    )
    out["cache_hit_share"] = out["session_id"].map(
        hits["hit_tokens"] / (hits["hit_tokens"] + hits["miss_tokens"]).where(lambda s: s > 0)
    )
    latency = _df(
        con,
        """SELECT session_id, median(first_text_ms) AS first_text_ms,
                  median(whole_turn_ms) AS whole_turn_ms
           FROM latency GROUP BY session_id""",
    ).set_index("session_id")
    out["first_text_ms"] = out["session_id"].map(latency["first_text_ms"])
    out["whole_turn_ms"] = out["session_id"].map(latency["whole_turn_ms"])
    yields = story_yield(con).groupby("session_id")[["committed_words", "generated_words"]].sum()
    out["story_yield"] = out["session_id"].map(
        yields["committed_words"] / yields["generated_words"].where(lambda s: s > 0)
    )
    turns = turn_yield(con).groupby("session_id")[["silent", "empty"]].mean()
    out["silent_turn_share"] = out["session_id"].map(turns["silent"])
    out["empty_turn_share"] = out["session_id"].map(turns["empty"])
    return out
