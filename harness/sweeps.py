"""Sweeps over every journaled prompt: the prompt contract and the knowledge boundary.

Two readers of the kernel's own definitions, run over a real run's prompts:

- **contract**: `tavern.contract.check_prompt` on every attempt's messages, with the session's
  display names (from its export) so the structural rules can compare character blocks.
- **boundary**: a canary (a word mixing letters and digits, six characters or more: how a
  script plants a secret) said in a whisper or thought must not reach the prompt of anyone
  outside that record's audience (`tavern.physics.perception.perceives`), nor a prose or
  openings prompt (public readers), nor any ledger's memory, unless that viewer perceived
  another record holding it by then (someone repeated it aloud). A Character call reads as
  its slot, a suggestion as the controlled character (its prompt is that character's view);
  the Director sees everything and is not swept. Turn granularity: a canary made public
  during turn `t` counts as known to every call of turn `t`. The summaries are swept too:
  each ledger's `memory_summary` as its owner's view, and the story summary as a public
  reader (it may hold a canary only once a public record said it: `summarizer.is_public`,
  the records the world summarizer reads). Records a live compaction holds in its
  checkpoint (the `compacted` export) count as history here: a whisper compacted away is
  still a secret.

Both land in the `leaks` table (`sweep` = `contract` or `boundary`), one row per violation.

Example:
    >>> canary_tokens("Keep Quill7731 and the 42 coins, C2")
    ['Quill7731']
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import duckdb
import pandas as pd

from harness.loader import EXPORTS, HISTORY_SPEC, has_table, rows_as_dicts
from tavern.agents.summarizer import is_public
from tavern.contract import check_prompt
from tavern.physics.perception import perceives
from tavern.records import HISTORY_RECORD_ADAPTER, ChatMessage, HistoryRecord

CANARY = re.compile(r"\b(?=[^\W_]*\d)(?=[^\W_]*[^\W\d_])[^\W_]{6,}\b")
"""A word of six or more letters and digits holding at least one of each."""

LEAK_COLUMNS = [
    "sweep", "session_id", "turn_number", "agent", "attempt_number", "rule",
    "message_index", "excerpt", "file", "line_no",
]  # fmt: skip

PROSE = "prose"
"""The viewer standing for the public readers (`prose`, `openings`): narration and the
events' reader text only."""
PUBLIC_READERS = frozenset({"prose", "openings"})


def canary_tokens(text: str) -> list[str]:
    """The canary-looking words of `text`, in order, once each.

    >>> canary_tokens("t0 C2 x9 Saltmarrow5521 and 2024 and Saltmarrow5521")
    ['Saltmarrow5521']
    """
    return list(dict.fromkeys(CANARY.findall(text)))


def _prompts(con: duckdb.DuckDBPyConnection, where: str = "true") -> list[tuple[object, ...]]:
    return con.execute(
        f"""SELECT session_id, turn_number, agent, attempt_number, messages, file, line_no
            FROM calls WHERE {where} ORDER BY session_id, ts, line_no"""
    ).fetchall()


def _messages(raw: Sequence[dict[str, str]]) -> list[ChatMessage]:
    return [ChatMessage.model_validate(m) for m in raw]


def cast_names(con: duckdb.DuckDBPyConnection) -> dict[str, list[str]]:
    """Session id -> the cast's display names, from the session exports."""
    rows = con.execute(
        "SELECT session_id, list_transform(characters, lambda c: c.name) FROM sessions"
    ).fetchall()
    return {str(sid): list(names) for sid, names in rows}


def contract_leaks(
    con: duckdb.DuckDBPyConnection, names: dict[str, list[str]] | None = None
) -> pd.DataFrame:
    """Every contract violation in every journaled prompt, one row each.

    Args:
        con: A connection with the `calls` view.
        names: Session id -> display names; default: the session exports. A session
            without names gets only the lexical and raw-id rules.
    """
    names = cast_names(con) if names is None else names
    rows = []
    for sid, turn, agent, attempt, messages, file, line_no in _prompts(con):
        for v in check_prompt(_messages(messages), names.get(str(sid), ())):  # type: ignore[arg-type]
            rows.append(
                ("contract", sid, turn, agent, attempt, v.rule, v.message_index, v.excerpt,
                 file, line_no)
            )  # fmt: skip
    return pd.DataFrame(rows, columns=LEAK_COLUMNS)


@dataclass(frozen=True)
class _Secret:
    canary: str
    record: HistoryRecord


def history_records(
    con: duckdb.DuckDBPyConnection, *, compacted: bool = False
) -> dict[str, list[HistoryRecord]]:
    """Session id -> the exported history records, parsed back into the kernel's records
    (with `compacted`, the records live compactions hold too, all in `seq` order)."""
    spec = EXPORTS["history"]
    tables = ["history"]
    if compacted and has_table(con, "compacted_history"):
        tables.append("compacted_history")
    out: dict[str, list[HistoryRecord]] = defaultdict(list)
    for table in tables:
        for data in rows_as_dicts(con, table, spec, order="session_id, seq"):
            own = HISTORY_SPEC.fields[str(data["kind"])]
            record = {k: v for k, v in data.items() if k in own and v is not None}
            out[str(data["session_id"])].append(HISTORY_RECORD_ADAPTER.validate_python(record))
    if len(tables) > 1:
        for records in out.values():
            records.sort(key=lambda r: r.seq)
    return out


def _visible_text(record: HistoryRecord, viewer: str) -> str:
    """What `viewer` read of `record`: the prose renderer reads events' reader text and
    narration; a character reads the content it perceived."""
    text = getattr(record, "text", "")
    if viewer == PROSE:
        if record.kind == "event":
            return record.reader_text or ""
        return text if record.kind == "narration" else ""
    return text if perceives(record, viewer) == "content" else ""


def _known_from(records: Sequence[HistoryRecord], canary: str, viewer: str) -> int | None:
    """The first turn at which `viewer` read a record holding `canary`, or None."""
    turns = [r.turn_number for r in records if canary in _visible_text(r, viewer)]
    return min(turns) if turns else None


def _secrets(records: Sequence[HistoryRecord], extra: Sequence[str]) -> list[_Secret]:
    out: list[_Secret] = []
    for r in records:
        private = r.kind == "thought" or (r.kind == "speech" and r.audience.origin == "whisper")
        if not private:
            continue
        text = getattr(r, "text", "")
        words = canary_tokens(text) + [c for c in extra if c in text]
        out.extend(_Secret(c, r) for c in dict.fromkeys(words))
    return out


def _viewer(agent: str, controlled: str | None) -> str | None:
    """Whose perception a call's prompt holds (None: not swept).

    >>> _viewer("character:C2", "C1"), _viewer("openings", "C1"), _viewer("suggest", "C1")
    ('C2', 'prose', 'C1')
    >>> _viewer("reviser:C3", "C1")  # a ledger's memory revision holds its owner's view
    'C3'
    """
    if agent.startswith(("character:", "reviser:")):
        return agent.split(":", 1)[1]
    if agent in PUBLIC_READERS:
        return PROSE
    return controlled if agent == "suggest" else None


def boundary_leaks(con: duckdb.DuckDBPyConnection, canaries: Sequence[str] = ()) -> pd.DataFrame:
    """Canaries of whispers and thoughts found outside their audience, one row each.

    Reads the `history` export (and `compacted`); a session without one has nothing to
    sweep. `rule` is `outside_audience` (a Character's prompt), `prose_saw_private` (a prose
    prompt), `memory` (a ledger's memory line, `agent` = `memory:<slot>`),
    `memory_summary` (a ledger's condensed memory, `agent` = `memory_summary:<slot>`) or
    `story_summary` (the story summary, `agent` = `summarizer`).

    Args:
        con: A connection with the `calls`, `history` and `memory` tables.
        canaries: Words to sweep for besides the canary-looking ones.
    """
    by_session = history_records(con, compacted=True)
    rows: list[tuple[object, ...]] = []
    known: dict[tuple[str, str, str], int | None] = {}

    def learned(sid: str, canary: str, viewer: str) -> int | None:
        key = (sid, canary, viewer)
        if key not in known:
            known[key] = _known_from(by_session[sid], canary, viewer)
        return known[key]

    secrets = {sid: _secrets(records, canaries) for sid, records in by_session.items()}
    controlled = dict(con.execute("SELECT session_id, controlled_id FROM sessions").fetchall())
    where = "role IN ('character', 'reviser', 'prose', 'openings', 'suggest')"
    for sid, turn, agent, attempt, messages, file, line_no in _prompts(con, where):
        sid = str(sid)
        viewer = _viewer(str(agent), controlled.get(sid))
        if viewer is None:
            continue
        text = "\n".join(m["content"] for m in messages)  # type: ignore[attr-defined]
        for secret in secrets.get(sid, ()):
            if secret.record.turn_number > turn or secret.canary not in text:  # type: ignore[operator]
                continue
            since = learned(sid, secret.canary, viewer)
            if since is not None and since <= turn:  # type: ignore[operator]
                continue
            rule = "prose_saw_private" if viewer == PROSE else "outside_audience"
            rows.append(
                ("boundary", sid, turn, agent, attempt, rule, None, secret.canary, file, line_no)
            )
    for sid, owner, text in con.execute("SELECT session_id, owner, text FROM memory").fetchall():
        for secret in secrets.get(str(sid), ()):
            if secret.canary in text and learned(str(sid), secret.canary, str(owner)) is None:
                rows.append(
                    ("boundary", sid, secret.record.turn_number, f"memory:{owner}", None,
                     "memory", None, secret.canary, None, None)
                )  # fmt: skip
    rows.extend(_summary_leaks(con, secrets, by_session, learned))
    return pd.DataFrame(rows, columns=LEAK_COLUMNS)


def _summary_leaks(
    con: duckdb.DuckDBPyConnection,
    secrets: dict[str, list[_Secret]],
    by_session: dict[str, list[HistoryRecord]],
    learned: Callable[[str, str, str], int | None],
) -> list[tuple[object, ...]]:
    """Canaries in a ledger's memory summary its owner never perceived, and in the story
    summary before any public record said them."""
    rows: list[tuple[object, ...]] = []
    found = con.execute("SELECT session_id, memory_summaries, story_summary FROM sessions")
    for sid, summaries, story in found.fetchall():
        sid = str(sid)
        owned = json.loads(summaries) if isinstance(summaries, str) else summaries or {}
        first: dict[str, _Secret] = {}  # one row per canary: the secret that planted it first
        for secret in secrets.get(sid, ()):
            first.setdefault(secret.canary, secret)
        for secret in first.values():
            for owner, text in sorted(owned.items()):
                if secret.canary in text and learned(sid, secret.canary, owner) is None:
                    rows.append(
                        ("boundary", sid, secret.record.turn_number, f"memory_summary:{owner}",
                         None, "memory_summary", None, secret.canary, None, None)
                    )  # fmt: skip
            said = any(
                is_public(r) and secret.canary in getattr(r, "text", "")
                for r in by_session.get(sid, ())
            )
            if story and secret.canary in story and not said:
                rows.append(
                    ("boundary", sid, secret.record.turn_number, "summarizer", None,
                     "story_summary", None, secret.canary, None, None)
                )  # fmt: skip
    return rows


def create_leaks(
    con: duckdb.DuckDBPyConnection,
    names: dict[str, list[str]] | None = None,
    canaries: Sequence[str] = (),
) -> None:
    """Run both sweeps and store their rows in the `leak_rows` table."""
    frame = pd.concat(
        [contract_leaks(con, names), boundary_leaks(con, canaries)], ignore_index=True
    ).astype({"turn_number": "Int64", "attempt_number": "Int64", "message_index": "Int64",
              "line_no": "Int64"})  # fmt: skip
    con.register("leak_frame", frame)
    con.execute("CREATE OR REPLACE TABLE leak_rows AS SELECT * FROM leak_frame")
    con.unregister("leak_frame")
