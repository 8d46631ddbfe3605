"""The blind pairwise judge: a `judge` role called through the kernel's LLM client.

A judge reads a blind export's `judge/` files only (`harness.blind`): items under opaque ids
and the pairs to compare. Every pair is judged in both orders (item `a` first, then item `b`
first). The two answers agree on an item, or the pair is a tie: a judge that prefers a
position rather than a story cannot make a winner that way, and the position-flip rate (pairs
whose two answers picked the same position, so different items) says how much it does.

Each call goes through `tavern.llm.LlmClient` with agent `judge`, so it is journaled like
every other call, retried on an answer that fails the rubric's schema, and recorded as an
abstention when no valid answer came. A rubric is a TOML file (`harness/rubrics/`); every
judgement names it with its version and the SHA-256 of the file.

Example:
    >>> rubric = load_rubric("story-quality")
    >>> rubric.name, rubric.version, sorted(ANSWER_SCHEMA["properties"])
    ('story-quality', 1, ['preferred', 'reason'])
"""

from __future__ import annotations

import hashlib
import tomllib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from harness.analysis_records import BlindItem, BlindPair, Judgement, KeyEntry
from harness.blind import check_blind
from tavern.llm.client import LlmClient
from tavern.llm.errors import LlmCallError
from tavern.records import ChatMessage

RUBRICS = Path(__file__).with_name("rubrics")
"""Bundled rubric files (package data)."""
AGENT = "judge"
"""The role every judge call is journaled under."""
FLIP_LIMIT = 0.3
"""A flip rate above this flags the judge as position-biased: a judge choosing at random
flips half the pairs it answers, a consistent one none."""
ANSWER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["reason", "preferred"],
    "properties": {
        "reason": {"type": "string", "maxLength": 400},
        "preferred": {"type": "string", "enum": ["first", "second", "tie"]},
    },
}
"""What a judge answers: a short reason first (it is generated before the choice), then
`first`, `second` or `tie`."""


@dataclass(frozen=True)
class Rubric:
    """A judging rubric read from its TOML file."""

    name: str
    version: int
    instructions: str
    max_chars_each: int
    sha256: str

    @property
    def label(self) -> str:
        """`name@version`, as judgements record it."""
        return f"{self.name}@{self.version}"


def load_rubric(name_or_path: str | Path) -> Rubric:
    """A bundled rubric by name (`story-quality`) or any rubric file by path."""
    path = Path(name_or_path)
    if not path.suffix:
        path = RUBRICS / f"{name_or_path}.toml"
    raw = path.read_bytes()
    data = tomllib.loads(raw.decode("utf-8"))
    return Rubric(
        name=str(data["name"]),
        version=int(data["version"]),
        instructions=" ".join(str(data["instructions"]).split("\n")).strip(),
        max_chars_each=int(data.get("max_chars_each", 5000)),
        sha256=hashlib.sha256(raw).hexdigest(),
    )


def rubric_source(reference: str, base: Path) -> str | Path:
    """What `load_rubric` reads for a campaign's `judge.rubric`: a bundled name as is, a
    path (it has a suffix) relative to the campaign file's folder `base`.

    >>> rubric_source("story-quality", Path("experiments"))
    'story-quality'
    >>> rubric_source("rubrics/mine.toml", Path("experiments")).as_posix()
    'experiments/rubrics/mine.toml'
    """
    return base / reference if Path(reference).suffix else reference


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit].rstrip() + "\n[... the excerpt goes on]"


def judge_messages(rubric: Rubric, first: str, second: str) -> list[ChatMessage]:
    """The judge's prompt for one order: the rubric, then the two excerpts.

    >>> msgs = judge_messages(load_rubric("story-quality"), "A.", "B.")
    >>> [m.role for m in msgs], msgs[1].content.splitlines()[:2]
    (['system', 'user'], ['## First excerpt', 'A.'])
    """
    system = (
        f"{rubric.instructions}\n\nAnswer in JSON: a one-sentence reason, then preferred: "
        '"first", "second" or "tie".'
    )
    user = (
        f"## First excerpt\n{_cut(first, rubric.max_chars_each)}\n\n"
        f"## Second excerpt\n{_cut(second, rubric.max_chars_each)}\n\n"
        "Which excerpt is the better story: first, second, or tie?"
    )
    return [ChatMessage(role="system", content=system), ChatMessage(role="user", content=user)]


async def judge_pairs(
    client: LlmClient,
    rubric: Rubric,
    items: Sequence[BlindItem],
    pairs: Sequence[BlindPair],
    *,
    session_id: str,
    judge: str,
    done: Iterable[Judgement] = (),
    record: Callable[[Judgement], None] | None = None,
    key: Sequence[KeyEntry] | None = None,
) -> list[Judgement]:
    """Judge every pair in both orders; return every judgement (earlier ones included).

    Args:
        client: The LLM client (its sink journals every attempt under `session_id`).
        rubric: The rubric.
        items: The blind items (`judge/items.jsonl`).
        pairs: The pairs (`judge/pairs.jsonl`).
        session_id: Journal id of the judging run (`turn_number` is the pair's index).
        judge: Judge name for the records, e.g. `local/qwen2.5-coder-0.5b`.
        done: Judgements of an interrupted run: their (pair, order) are not asked again.
        record: Called with each new judgement as soon as it exists (append it to a file).
        key: The key, when the caller holds it: each prompt is checked against it before it
            is sent (`harness.blind.check_blind`); the judge itself never receives it.

    Raises:
        KeyLeak: a prompt holds an identifying string of the key.
    """
    texts = {item.item_id: item.text for item in items}
    out = list(done)
    asked = {(j.pair_id, j.order) for j in out}
    for index, pair in enumerate(pairs):
        for order, (first, second) in ((1, (pair.a, pair.b)), (2, (pair.b, pair.a))):
            if (pair.pair_id, order) in asked:
                continue
            messages = judge_messages(rubric, texts[first], texts[second])
            if key is not None:
                check_blind("\n".join(m.content for m in messages), key)
            judgement = await _ask(client, messages, session_id, index)
            made = Judgement(
                pair_id=pair.pair_id, order=order, first=first, second=second,
                judge=judge, rubric=rubric.label, rubric_sha256=rubric.sha256, **judgement,
            )  # fmt: skip
            out.append(made)
            if record is not None:
                record(made)
    return out


async def _ask(
    client: LlmClient, messages: list[ChatMessage], session_id: str, index: int
) -> dict[str, Any]:
    try:
        answer = await client.call_json(
            agent=AGENT, messages=messages, schema=ANSWER_SCHEMA, session_id=session_id,
            turn_number=index, max_tokens=200,
        )  # fmt: skip
    except LlmCallError as exc:
        return {"preferred": None, "abstained": True, "error_type": exc.error_type}
    return {"preferred": answer["preferred"], "reason": str(answer.get("reason", ""))}


Outcome = str | Literal["tie"] | None


@dataclass(frozen=True)
class PairResult:
    """A pair's two answers, read as items, and what they make together."""

    pair_id: str
    a: str
    b: str
    order1: Outcome
    """The item the judge preferred with `a` first (`tie`, or None: abstained)."""
    order2: Outcome
    """The same with `b` first."""
    outcome: Outcome
    """The winning item when both answers chose it; `tie` when they disagree or either
    says tie; None when either order abstained (the pair counts for nothing)."""
    flipped: bool
    """Both answers chose an item, not the same one: the judge kept a position."""


def _winner(judgement: Judgement) -> Outcome:
    if judgement.preferred is None:
        return None
    if judgement.preferred == "tie":
        return "tie"
    return judgement.first if judgement.preferred == "first" else judgement.second


def pair_results(judgements: Iterable[Judgement]) -> list[PairResult]:
    """One result per pair that has both orders judged (the latest answer of each order)."""
    by_pair: dict[str, dict[int, Judgement]] = {}
    for judgement in judgements:
        by_pair.setdefault(judgement.pair_id, {})[judgement.order] = judgement
    out = []
    for pair_id, orders in by_pair.items():
        if set(orders) != {1, 2}:
            continue
        first, second = _winner(orders[1]), _winner(orders[2])
        flipped = first not in (None, "tie") and second not in (None, "tie") and first != second
        if first is None or second is None:
            outcome: Outcome = None
        elif first == second:
            outcome = first
        else:
            outcome = "tie"
        out.append(
            PairResult(pair_id, orders[1].first, orders[1].second, first, second, outcome, flipped)
        )
    return out


@dataclass(frozen=True)
class FlipReport:
    """How much a judge's choices depend on position rather than on the excerpts."""

    pairs: int
    """Pairs judged in both orders."""
    decided: int
    """... where both answers chose an item (no tie, no abstention)."""
    flips: int
    """... where the two answers chose the same position (different items)."""
    first_share: float | None
    """Share of all item choices that went to the first position (0.5 for no bias)."""
    abstentions: int
    """Answers that never passed the schema."""

    @property
    def flip_rate(self) -> float | None:
        """flips / decided."""
        return self.flips / self.decided if self.decided else None

    @property
    def flagged(self) -> bool:
        """Position-biased beyond `FLIP_LIMIT`: its winners are not evidence."""
        rate = self.flip_rate
        return rate is not None and rate > FLIP_LIMIT


def flip_report(judgements: Sequence[Judgement]) -> FlipReport:
    """The position-flip figures of a set of judgements."""
    results = pair_results(judgements)
    decided = [
        r for r in results if r.order1 not in (None, "tie") and r.order2 not in (None, "tie")
    ]
    choices = [j.preferred for j in judgements if j.preferred in ("first", "second")]
    return FlipReport(
        pairs=len(results),
        decided=len(decided),
        flips=sum(r.flipped for r in decided),
        first_share=choices.count("first") / len(choices) if choices else None,
        abstentions=sum(j.abstained for j in judgements),
    )
