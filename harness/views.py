"""The DuckDB views over the loaded tables (`harness.loader`): one name, one SQL definition,
one documented example query each.

`create_views(con)` registers the helper functions the views call and creates every view in
`VIEWS` in order (later views read earlier ones). The example queries are run by the tests,
so none of them can rot.

Token counts are never estimated: `calls.prompt_tokens` is the provider's count, else a
tokenizer's (`harness.tokens`, llama.cpp `/tokenize`), else NULL, and `calls.token_source`
says which (`provider`, `tokenizer`, `none`). `prompt_estimated_tokens` (characters / 4)
keeps its own name.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import duckdb
from duckdb import sqltypes
from duckdb.func import FunctionNullHandling

from harness.latency import critical_path_ms
from harness.prompt_blocks import BLOCK_SEPARATOR, common_prefix_chars


@dataclass(frozen=True)
class View:
    """One view: its name, what a row is, an example query, and its SQL."""

    name: str
    doc: str
    example: str
    sql: str
    swept: bool = False
    """Reads the sweeps' `leak_rows` table: created only once the sweeps have run."""


_SEPARATOR_SQL = " || ".join(
    f"chr({ord(c)})" if c == "\n" else "'" + c + "'" for c in BLOCK_SEPARATOR
)
"""`BLOCK_SEPARATOR` as a SQL expression (SQL string literals have no escapes)."""
_TITLE_SQL = "regexp_extract(b, '^(?:## )?([^\\n]*)', 1)"
"""A block's title: its first line, without the heading mark."""

VIEWS: tuple[View, ...] = (
    View(
        "calls",
        "One row per LLM attempt (retries included): who called, what it cost in tokens and "
        "time, its cache counters, and where in the journal it is (`file`, `line_no`).",
        "SELECT role, count(*) AS attempts, sum(prompt_tokens) AS prompt_tokens, "
        "any_value(token_source) AS token_source FROM calls GROUP BY role ORDER BY role",
        """
        SELECT j.session_id, j.turn_number, j.ts,
               j.ts - to_microseconds(CAST(round(j.duration_ms * 1000) AS BIGINT)) AS started,
               j.agent, split_part(j.agent, ':', 1) AS role,
               CASE WHEN j.agent LIKE 'character:%' THEN split_part(j.agent, ':', 2) END AS slot,
               j.provider, j.model, j.source, j.attempt_number, j.error_type,
               j.error_type IS NULL AS ok, j.stopped_early, j.duration_ms, j.prompt_chars,
               j.prompt_estimated_tokens,
               TRY_CAST(j.usage ->> '$.prompt_tokens' AS BIGINT) AS provider_prompt_tokens,
               TRY_CAST(j.usage ->> '$.completion_tokens' AS BIGINT)
                   AS provider_completion_tokens,
               coalesce(provider_prompt_tokens, k.prompt_tokens) AS prompt_tokens,
               coalesce(provider_completion_tokens, k.completion_tokens) AS completion_tokens,
               CASE WHEN provider_prompt_tokens IS NOT NULL THEN 'provider'
                    WHEN k.prompt_tokens IS NOT NULL THEN 'tokenizer'
                    ELSE 'none' END AS token_source,
               j.prompt_cache.hit_tokens AS cache_hit_tokens,
               j.prompt_cache.miss_tokens AS cache_miss_tokens,
               j.response, j.request.messages AS messages,
               j.file, j.line_no, j.campaign, j.arm, j.run
        FROM journal_lines j LEFT JOIN token_counts k USING (file, line_no)
        WHERE j.kind = 'llm_call'
        """,
    ),
    View(
        "turns",
        "One row per commit line: when its input arrived and when it committed, what it "
        "added, its calls (those of the same session and turn number between its input and "
        "its commit), and what became of it. `variant` is the variant of the turn it "
        "committed (0 when first played; a regenerated alternative takes the number its "
        "`variant` line gave it); `set_aside` when, at the end, another variant of the turn "
        "was committed in its place (a later rerun, or a flip back); `undone` when the turn "
        "was undone afterwards, `voided` when that undo was a recovered one; `recovered` "
        "when the commit line was appended on reopening after a crash (the store held the "
        "turn, the journal had no commit for it). `kept` is the story as it stands: neither "
        "undone nor set aside.",
        "SELECT session_id, turn_number, variant, set_aside, recovered, undone, kept, "
        "record_count, attempts FROM turns ORDER BY session_id, committed_ts",
        """
        WITH marks AS (
            SELECT session_id, coalesce(removed_turn, turn_number) AS turn, ts, line_no, kind,
                   action, committed_variant, recovered, revision, record_count, tick,
                   control_returned, len(coalesce(clamp_changes, [])) AS clamp_changes,
                   len(coalesce(filter_cuts, [])) AS filter_cuts, campaign, arm, run
            FROM journal_lines WHERE kind IN ('commit', 'variant', 'undo')
        ),
        chained AS (
            SELECT *,
                   coalesce(sum(CAST(kind = 'undo' AS INTEGER)) OVER (
                       by_turn ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS chain,
                   CASE WHEN kind = 'commit' THEN
                       CASE WHEN lag(kind) OVER by_turn = 'variant'
                                 AND lag(action) OVER by_turn = 'rerun'
                            THEN lag(committed_variant) OVER by_turn ELSE 0 END
                        WHEN kind = 'variant' THEN committed_variant END AS now_committed
            FROM marks
            WINDOW by_turn AS (PARTITION BY session_id, turn ORDER BY ts, line_no)
        ),
        settled AS (
            SELECT *,
                   last_value(now_committed IGNORE NULLS) OVER whole AS final_variant,
                   bool_or(kind = 'undo') OVER whole AS chain_undone,
                   bool_or(kind = 'undo' AND recovered) OVER whole AS chain_voided
            FROM chained
            WINDOW whole AS (PARTITION BY session_id, turn, chain ORDER BY ts, line_no
                             ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)
        ),
        commits AS (SELECT * FROM settled WHERE kind = 'commit'),
        inputs AS (
            SELECT session_id, turn_number, ts, input FROM journal_lines
            WHERE kind = 'turn_input'
        ),
        spans AS (
            SELECT c.*, c.turn AS turn_number, i.ts AS input_ts, i.input
            FROM commits c ASOF LEFT JOIN inputs i
              ON c.session_id = i.session_id AND c.turn = i.turn_number AND c.ts >= i.ts
        ),
        per_turn AS (
            SELECT s.session_id, s.turn_number, s.ts, count(*) AS attempts,
                   count(*) FILTER (WHERE k.ok) AS ok_calls, sum(k.duration_ms) AS model_ms
            FROM calls k ASOF JOIN spans s
              ON k.session_id = s.session_id AND k.turn_number = s.turn_number AND k.ts <= s.ts
            WHERE s.input_ts IS NULL OR k.ts >= s.input_ts
            GROUP BY s.session_id, s.turn_number, s.ts
        )
        SELECT s.session_id, s.turn_number, s.input_ts, s.ts AS committed_ts, s.input,
               s.revision, s.record_count, s.tick, s.control_returned,
               s.clamp_changes, s.filter_cuts, s.now_committed AS variant,
               s.now_committed <> s.final_variant AS set_aside,
               s.recovered, s.chain_undone AS undone, s.chain_voided AS voided,
               NOT s.chain_undone AND s.now_committed = s.final_variant AS kept,
               coalesce(p.attempts, 0) AS attempts, coalesce(p.ok_calls, 0) AS ok_calls,
               coalesce(p.model_ms, 0) AS model_ms, s.campaign, s.arm, s.run
        FROM spans s LEFT JOIN per_turn p USING (session_id, turn_number, ts)
        """,
    ),
    View(
        "turn_calls",
        "Every call attributed to its commit line: the first commit of the same session and "
        "turn number at or after the call, when the call came after that commit's input "
        "(calls of a turn that never committed, and calls outside turns such as "
        "suggestions, have no row).",
        "SELECT role, count(*) FROM turn_calls GROUP BY role ORDER BY role",
        """
        SELECT t.committed_ts, t.input_ts, t.undone, t.variant, t.set_aside, t.kept, k.*
        FROM calls k ASOF JOIN turns t
          ON k.session_id = t.session_id AND k.turn_number = t.turn_number
         AND k.ts <= t.committed_ts
        WHERE t.input_ts IS NULL OR k.ts >= t.input_ts
        """,
    ),
    View(
        "usage",
        "Tokens per session and role. `calls_without_tokens` counts attempts with no count "
        "from the provider or a tokenizer: their tokens are unknown, never guessed.",
        "SELECT role, attempts, prompt_tokens, calls_without_tokens FROM usage ORDER BY role",
        """
        SELECT session_id, role, count(*) AS attempts, count(*) FILTER (WHERE ok) AS successes,
               count(*) FILTER (WHERE token_source = 'none') AS calls_without_tokens,
               sum(prompt_tokens) AS prompt_tokens, sum(completion_tokens) AS completion_tokens,
               sum(prompt_estimated_tokens) AS prompt_estimated_tokens,
               median(duration_ms) AS median_ms, any_value(campaign) AS campaign,
               any_value(arm) AS arm, any_value(run) AS run
        FROM calls GROUP BY session_id, role
        """,
    ),
    View(
        "prompt_diffs",
        "One row per attempt: its prompt compared, block by block (`## Title` sections of "
        "`tavern.agents.blocks`), with the previous prompt of its role in the session (what "
        "a per-role cache slot last held) and with its own agent's previous prompt. "
        "`first_changed_block` is the first block that differs from the role's previous "
        "prompt, where the reusable prefix ends (`(first prompt)` for a role's first call, "
        "NULL when the prompt repeats whole); `shared_prefix_chars` is the exact common "
        "prefix of the two prompts' text (`text_chars` long); `agent_first_changed_block` "
        "and `agent_shared_prefix_chars` compare with the same agent instead.",
        "SELECT role, agent, turn_number, first_changed_block, shared_prefix_chars, text_chars "
        "FROM prompt_diffs ORDER BY ts LIMIT 5",
        f"""
        WITH blocked AS (
            SELECT session_id, agent, role, turn_number, ts, file, line_no, prompt_chars,
                   cache_hit_tokens, cache_miss_tokens, campaign, arm, run,
                   array_to_string(list_transform(messages, lambda m: m.content), chr(10)) AS text,
                   flatten(list_transform(messages, lambda m: list_transform(
                       string_split(m.content, {_SEPARATOR_SQL}),
                       lambda b: {{'title': m.role || ': ' || {_TITLE_SQL}, 'h': hash(b)}})))
                       AS blocks
            FROM calls
        ), paired AS (
            SELECT *,
                   lag(blocks) OVER by_role AS role_blocks, lag(text) OVER by_role AS role_text,
                   lag(blocks) OVER by_agent AS agent_blocks,
                   lag(text) OVER by_agent AS agent_text
            FROM blocked
            WINDOW by_role AS (PARTITION BY session_id, role ORDER BY ts, line_no),
                   by_agent AS (PARTITION BY session_id, agent ORDER BY ts, line_no)
        )
        SELECT session_id, agent, role, turn_number, ts, len(blocks) AS blocks,
               first_changed_block(blocks, role_blocks) AS first_changed_block,
               coalesce(common_prefix_chars(role_text, text), 0) AS shared_prefix_chars,
               first_changed_block(blocks, agent_blocks) AS agent_first_changed_block,
               coalesce(common_prefix_chars(agent_text, text), 0) AS agent_shared_prefix_chars,
               length(text) AS text_chars, prompt_chars, cache_hit_tokens, cache_miss_tokens,
               file, line_no, campaign, arm, run
        FROM paired
        """,
    ),
    View(
        "cache",
        "Per role and per prompt block: how many prompts first differed at that block from "
        "the previous prompt, and the provider's cache counters for them (`hit_share` is "
        "NULL when the provider reported no counters). `lineage` says which previous prompt: "
        "the role's (`role`) or the same agent's (`agent`); a server that keeps agents of "
        "one role in separate slots follows the second.",
        "SELECT role, first_changed_block, prompts, hit_share FROM cache "
        "WHERE lineage = 'role' ORDER BY role, prompts DESC",
        """
        WITH lineages AS (
            SELECT 'role' AS lineage, role, first_changed_block AS block,
                   shared_prefix_chars AS shared, text_chars, cache_hit_tokens,
                   cache_miss_tokens
            FROM prompt_diffs
            UNION ALL
            SELECT 'agent', role, agent_first_changed_block, agent_shared_prefix_chars,
                   text_chars, cache_hit_tokens, cache_miss_tokens
            FROM prompt_diffs
        )
        SELECT lineage, role, coalesce(block, '(identical)') AS first_changed_block,
               count(*) AS prompts, count(cache_hit_tokens) AS prompts_with_counters,
               sum(cache_hit_tokens) AS hit_tokens, sum(cache_miss_tokens) AS miss_tokens,
               sum(cache_hit_tokens) / nullif(sum(cache_hit_tokens)
                   + sum(cache_miss_tokens), 0) AS hit_share,
               sum(shared) / nullif(sum(text_chars), 0) AS shared_prefix_share
        FROM lineages GROUP BY lineage, role, block
        """,
    ),
    View(
        "cost",
        "One row per attempt with its price (`prices` table: provider, model or `*`, per "
        "million tokens, with the date the prices were read). Cached prompt tokens are "
        "priced at the cached rate; `cost` is NULL when the tokens are unknown or the model "
        "has no price (`priced` says which).",
        "SELECT provider, model, sum(cost) AS cost, any_value(currency) AS currency, "
        "any_value(price_as_of) AS as_of FROM cost GROUP BY provider, model",
        """
        SELECT k.session_id, k.turn_number, k.agent, k.role, k.provider, k.model,
               k.prompt_tokens, k.completion_tokens, k.cache_hit_tokens, k.token_source,
               p.currency, p.as_of AS price_as_of, p.provider IS NOT NULL AS priced,
               CASE WHEN p.provider IS NULL OR k.token_source = 'none' THEN NULL
                    ELSE (least(coalesce(k.cache_hit_tokens, 0), k.prompt_tokens)
                              * p.cached_input_per_mtok
                          + (k.prompt_tokens - least(coalesce(k.cache_hit_tokens, 0),
                                                     k.prompt_tokens)) * p.input_per_mtok
                          + coalesce(k.completion_tokens, 0) * p.output_per_mtok) / 1e6
               END AS cost,
               k.file, k.line_no, k.campaign, k.arm, k.run
        FROM calls k LEFT JOIN prices p
          ON p.provider = k.provider AND (p.model = k.model OR p.model = '*')
        QUALIFY row_number() OVER (PARTITION BY k.file, k.line_no ORDER BY p.model = '*') = 1
        """,
    ),
    View(
        "latency",
        "Per committed turn: `whole_turn_ms` from the input line to the commit line, "
        "`first_text_ms` to the end of its first successful prose or Character call (the "
        "first words the human can read), `model_ms` the sum of its attempts' durations, "
        "and `critical_path_ms` the longest chain of its calls that ran one after another "
        "(concurrent calls overlap and count once).",
        "SELECT session_id, turn_number, whole_turn_ms, critical_path_ms, model_ms "
        "FROM latency ORDER BY session_id, turn_number",
        """
        SELECT t.session_id, t.turn_number, t.committed_ts,
               (epoch_us(t.committed_ts) - epoch_us(t.input_ts)) / 1000.0 AS whole_turn_ms,
               (min(epoch_us(k.ts)) FILTER (WHERE k.ok AND k.role IN ('prose', 'character'))
                   - epoch_us(t.input_ts)) / 1000.0 AS first_text_ms,
               coalesce(sum(k.duration_ms), 0) AS model_ms,
               coalesce(critical_path_ms(
                   list(epoch_us(k.started) / 1000.0) FILTER (WHERE k.ts IS NOT NULL),
                   list(epoch_us(k.ts) / 1000.0) FILTER (WHERE k.ts IS NOT NULL)), 0)
                   AS critical_path_ms,
               count(k.ts) AS attempts, any_value(t.campaign) AS campaign,
               any_value(t.arm) AS arm, any_value(t.run) AS run
        FROM turns t LEFT JOIN turn_calls k
          ON k.session_id = t.session_id AND k.turn_number = t.turn_number
         AND k.committed_ts = t.committed_ts
        GROUP BY t.session_id, t.turn_number, t.committed_ts, t.input_ts
        """,
    ),
    View(
        "clamps",
        "One row per change a clamp made to a Director proposal, from the commit lines; "
        "`kept` when its commit line is a turn of the story as it stands (the `turns` row "
        "of the same commit: neither undone nor a set-aside variant).",
        "SELECT rule, count(*) AS changes FROM clamps WHERE kept GROUP BY rule "
        "ORDER BY changes DESC",
        """
        SELECT c.session_id, c.turn_number, c.ts, c.x.rule AS rule, c.x.path AS path,
               c.x.before AS before, c.x.after AS after, coalesce(t.kept, false) AS kept,
               c.campaign, c.arm, c.run
        FROM (SELECT session_id, turn_number, ts, campaign, arm, run,
                     unnest(clamp_changes) AS x FROM journal_lines
              WHERE kind = 'commit' AND len(clamp_changes) > 0) c
        LEFT JOIN turns t
          ON t.session_id = c.session_id AND t.turn_number = c.turn_number
         AND t.committed_ts = c.ts
        """,
    ),
    View(
        "filters",
        "One row per cut a filter rule made to a model's text, from the commit lines: "
        "`target_kind` is `narration` or `reply`, `emptied` when the rule left nothing, "
        "`kept` when its commit line is a turn of the story as it stands (as in `clamps`).",
        "SELECT rule, language, count(*) AS cuts FROM filters WHERE kept GROUP BY rule, language",
        """
        SELECT c.session_id, c.turn_number, c.ts, c.f.rule AS rule, c.f.target AS target,
               split_part(c.f.target, ':', 1) AS target_kind, c.f.language AS language,
               c.f.before AS before, c.f.after AS after, trim(c.f.after) = '' AS emptied,
               coalesce(t.kept, false) AS kept, c.campaign, c.arm, c.run
        FROM (SELECT session_id, turn_number, ts, campaign, arm, run,
                     unnest(filter_cuts) AS f FROM journal_lines
              WHERE kind = 'commit' AND len(filter_cuts) > 0) c
        LEFT JOIN turns t
          ON t.session_id = c.session_id AND t.turn_number = c.turn_number
         AND t.committed_ts = c.ts
        """,
    ),
    View(
        "events",
        "One row per Director event in the exported history: its kind, text as stored, text "
        "as the blind renderer read it, and its witnesses.",
        "SELECT event_kind, count(*) AS events FROM events GROUP BY event_kind",
        """
        SELECT session_id, seq, turn_number, tick, speaker, author, event_kind, text,
               reader_text, actor_id, utterance_ref, audience.origin AS origin,
               audience.perceivers AS witnesses, len(audience.perceivers) AS witness_count,
               campaign, arm, run
        FROM history WHERE kind = 'event'
        """,
    ),
    View(
        "speech",
        "One row per spoken or whispered line in the exported history, with the speaker's "
        "display name and who heard it (`aware`: noticed a whisper without its words).",
        "SELECT speaker_name, origin, count(*) AS lines FROM speech GROUP BY speaker_name, origin",
        """
        SELECT h.session_id, h.seq, h.turn_number, h.tick, h.speaker,
               (SELECT c.name FROM sessions s, unnest(s.characters) AS t(c)
                WHERE s.session_id = h.session_id AND c.slot = h.speaker) AS speaker_name,
               h.author, h.text, h.reply_to, h.audience.origin AS origin,
               h.audience.perceivers AS perceivers, h.audience.aware AS aware,
               h.campaign, h.arm, h.run
        FROM history h WHERE h.kind = 'speech'
        """,
    ),
    View(
        "runs",
        "One row per session (a run): its campaign, arm and run from its campaign partition, "
        "else from the harness's results file (`run` is then `<script>__r<repeat>`, the key "
        "that pairs one script and seed across arms; `run_id` the harness's own), what the "
        "journal shows of it, and how many of its journal lines were skipped or inherited.",
        "SELECT session_id, turns, attempts, failed_attempts, skipped_lines FROM runs",
        """
        WITH by_session AS (
            SELECT session_id, any_value(campaign) AS campaign, any_value(arm) AS arm,
                   any_value(run) AS run, min(ts) AS first_ts, max(ts) AS last_ts,
                   count(*) FILTER (WHERE kind = 'commit') AS commits,
                   count(*) FILTER (WHERE kind = 'undo') AS undos,
                   count(*) FILTER (WHERE kind = 'llm_call') AS attempts,
                   count(*) FILTER (WHERE kind = 'llm_call' AND error_type IS NOT NULL)
                       AS failed_attempts,
                   list(DISTINCT provider) FILTER (WHERE provider IS NOT NULL) AS providers,
                   list(DISTINCT model) FILTER (WHERE model IS NOT NULL) AS models,
                   list(DISTINCT file) AS files
            FROM journal_lines GROUP BY session_id
        ),
        finished AS (
            SELECT session_id, any_value(campaign) AS campaign, any_value(arm) AS arm,
                   any_value(script) AS script, any_value(repeat) AS repeat,
                   any_value(run_id) AS run_id
            FROM results WHERE kind = 'run' GROUP BY session_id
        )
        SELECT b.* REPLACE (coalesce(b.campaign, r.campaign) AS campaign,
                            coalesce(b.arm, r.arm) AS arm,
                            coalesce(b.run, r.script || '__r' || r.repeat) AS run),
               r.run_id, r.script, r.repeat, (SELECT count(*) FROM turns t
                     WHERE t.session_id = b.session_id AND t.kept) AS turns,
               (SELECT coalesce(sum(f.skipped), 0)::BIGINT FROM journal_files f
                WHERE list_contains(b.files, f.file)) AS skipped_lines,
               (SELECT coalesce(sum(f.inherited), 0)::BIGINT FROM journal_files f
                WHERE list_contains(b.files, f.file)) AS inherited_lines
        FROM by_session b LEFT JOIN finished r USING (session_id)
        """,
    ),
    View(
        "probes",
        "One row per probe result of a finished run, from the harness's results files "
        "(`results.jsonl`; a run whose `run` line is missing did not finish and is left "
        "out): the probe, its verdict and failing label, its checks, and the run's "
        "campaign, arm, script and repeat.",
        "SELECT probe, count(*) AS probes, count(*) FILTER (WHERE passed) AS passed "
        "FROM probes GROUP BY probe ORDER BY probe",
        """
        SELECT p.session_id, p.run_id, r.campaign, r.arm, r.script, r.repeat, p.probe,
               p.probe_id, p.event_index, p.turn_number, p.character, p.passed, p.label,
               len(p.checks) AS checks,
               len(list_filter(p.checks, lambda c: NOT c.passed)) AS failed_checks,
               r.status AS run_status, p.file, p.line_no
        FROM results p JOIN results r
          ON r.kind = 'run' AND r.run_id = p.run_id AND r.file = p.file
        WHERE p.kind = 'probe'
        """,
    ),
    View(
        "memory_revisions",
        "One row per ledger memory revision a commit line reports "
        "(`CommitLine.memory_revisions`): whose ledger, the outcome (`revised`, `refused`, "
        "`failed`, `evicted`), why, and how many lines it folded; `undone` when an undo "
        "line later removed that commit's turn.",
        "SELECT outcome, reason, count(*) AS revisions, sum(folded_lines) AS folded_lines "
        "FROM memory_revisions GROUP BY outcome, reason ORDER BY outcome, reason",
        """
        WITH revisions AS (
            SELECT session_id, turn_number, ts, file, line_no, campaign, arm, run,
                   unnest(memory_revisions) AS r
            FROM journal_lines WHERE kind = 'commit'
        )
        SELECT v.session_id, v.turn_number, v.ts, v.r.owner AS owner, v.r.outcome AS outcome,
               v.r.reason AS reason, v.r.detail AS detail, v.r.folded_lines AS folded_lines,
               v.r.summary_chars AS summary_chars,
               EXISTS (SELECT 1 FROM journal_lines u
                       WHERE u.kind = 'undo' AND u.session_id = v.session_id
                         AND u.removed_turn = v.turn_number AND u.ts > v.ts) AS undone,
               v.file, v.line_no, v.campaign, v.arm, v.run
        FROM revisions v
        """,
    ),
    View(
        "compactions",
        "One row per `compact` or `restore` journal line (`action`): the checkpoint, its "
        "parent and cutoff turn, records evicted or restored, turns evicted and kept, the "
        "summary's size, the trigger and, for an automatic one, the prompt measure that "
        "passed the threshold; `restored` marks a compaction a later restore undid.",
        "SELECT action, trigger, count(*) AS lines, sum(evicted_records) AS evicted, "
        "sum(restored_records) AS restored FROM compactions GROUP BY action, trigger "
        "ORDER BY action, trigger",
        """
        SELECT c.session_id, c.turn_number, c.ts, c.kind AS action, c.checkpoint_id,
               c.parent_id, c.cutoff_turn, c.evicted_records, c.restored_records,
               c.evicted_turns, c.kept_turns, c.summary_chars,
               CASE WHEN c.kind = 'compact' THEN c.trigger END AS trigger,
               c.prompt_tokens, c.token_count, c.context_tokens,
               c.prompt_tokens / c.context_tokens AS prompt_share,
               c.kind = 'compact' AND EXISTS (
                   SELECT 1 FROM journal_lines r
                   WHERE r.kind = 'restore' AND r.session_id = c.session_id
                     AND r.checkpoint_id = c.checkpoint_id AND r.ts >= c.ts
               ) AS restored,
               c.recovered, c.file, c.line_no, c.campaign, c.arm, c.run
        FROM journal_lines c WHERE c.kind IN ('compact', 'restore')
        """,
    ),
    View(
        "leaks",
        "One row per violation the sweeps found in a journaled prompt (`harness.sweeps`): "
        "`sweep` is `contract` (the prompt contract, with the session's display names) or "
        "`boundary` (a whisper's or thought's canary outside its audience, in a prompt, a "
        "memory line, a memory summary or the story summary).",
        "SELECT sweep, rule, count(*) AS violations FROM leaks GROUP BY sweep, rule",
        """
        SELECT l.*, r.campaign, r.arm, r.run
        FROM leak_rows l LEFT JOIN (
            SELECT DISTINCT session_id, campaign, arm, run FROM journal_lines
        ) r USING (session_id)
        """,
        swept=True,
    ),
)
"""Every view, in creation order."""


def view(name: str) -> View:
    """The view called `name`.

    >>> view("calls").name
    'calls'
    """
    for candidate in VIEWS:
        if candidate.name == name:
            return candidate
    raise KeyError(name)


_FIRST_CHANGED = """
CREATE OR REPLACE MACRO changed_at(blocks, previous) AS list_position(list_transform(
    generate_series(1, greatest(len(blocks), len(previous))),
    lambda i: blocks[i].h IS DISTINCT FROM previous[i].h), true);
CREATE OR REPLACE MACRO first_changed_block(blocks, previous) AS
    CASE WHEN previous IS NULL THEN '(first prompt)'
         WHEN changed_at(blocks, previous) IS NULL THEN NULL
         WHEN changed_at(blocks, previous) > len(blocks) THEN '(blocks removed)'
         ELSE blocks[changed_at(blocks, previous)].title END;
"""
"""The first block of `blocks` that differs from `previous` (same position, other text)."""


def register_functions(con: duckdb.DuckDBPyConnection) -> None:
    """The Python functions and macros the views call."""
    con.execute(_FIRST_CHANGED)
    double_list = duckdb.list_type(sqltypes.DOUBLE)
    con.create_function(
        "common_prefix_chars",
        common_prefix_chars,
        [sqltypes.VARCHAR, sqltypes.VARCHAR],
        sqltypes.BIGINT,
        null_handling=FunctionNullHandling.SPECIAL,
    )
    con.create_function(
        "critical_path_ms",
        _critical_path_udf,
        [double_list, double_list],
        sqltypes.DOUBLE,
        null_handling=FunctionNullHandling.SPECIAL,
    )


def _critical_path_udf(
    starts: Sequence[float] | None, ends: Sequence[float] | None
) -> float | None:
    if starts is None or ends is None:
        return None
    return critical_path_ms(list(zip(starts, ends, strict=True)))


def create_views(con: duckdb.DuckDBPyConnection, *, swept: bool = False) -> None:
    """Register the helper functions and create the views (their tables must exist).

    Args:
        con: The connection holding the loaded tables.
        swept: Create the views over the sweeps' table instead of the others.
    """
    if not swept:
        register_functions(con)
    for item in VIEWS:
        if item.swept == swept:
            con.execute(f"CREATE OR REPLACE VIEW {item.name} AS {item.sql}")
