"""What a session has cost, from its journal: tokens, cache hit share, latency and a price.

The footer of each turn shows the run that committed it (the model calls between its
`turn_input` and its `commit` line, suggestions and openings aside, which run beside turns);
the session total counts every model call journaled for the session, failed, undone, rerun,
suggested and opened ones included: what was spent. Token counts are the provider's
(`usage.prompt_tokens`, `usage.completion_tokens`); where a provider reports none (the fake)
they are the journal's estimates and marked `estimated`. A fork's journal starts as a copy of
its source's: lines of another session count only up to the turn the fork starts after.

Prices are USD per million tokens, per (provider, model), in `PRICES`: one table, kept
small on purpose; a model without an entry has no cost shown (local models cost nothing).

Example:
    >>> price_of("deepseek", "deepseek-chat").output
    1.1
    >>> price_of("local", "qwen") is None
    True
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from pydantic import BaseModel

from tavern.records import (
    CommitLine,
    JournalLine,
    LlmCallLine,
    TurnInputLine,
    UndoLine,
    estimate_tokens,
)
from tavern.records.journal import parse_journal_line


class Price(NamedTuple):
    """USD per million tokens."""

    cache_hit: float
    """Prompt tokens served from the provider's cache."""
    cache_miss: float
    """Prompt tokens evaluated afresh (all prompt tokens when no cache figure is reported)."""
    output: float
    """Completion tokens."""


PRICES: dict[tuple[str, str], Price] = {
    # api-docs.deepseek.com, "Models & Pricing" (USD), standard price.
    ("deepseek", "deepseek-chat"): Price(0.07, 0.27, 1.10),
    ("deepseek", "deepseek-reasoner"): Price(0.14, 0.55, 2.19),
}
SIDE_AGENTS = frozenset({"suggest", "openings"})
"""Agents called beside turns, never inside one (their calls count in the session total)."""


def price_of(provider: str, model: str) -> Price | None:
    """The price of a provider's model, or None when it has none here."""
    return PRICES.get((provider, model))


class UsageFigures(BaseModel):
    """Totals over some model calls."""

    calls: int = 0
    """Model attempts (retries and failures included)."""
    prompt_tokens: int = 0
    """Prompt tokens sent."""
    completion_tokens: int = 0
    """Tokens answered."""
    estimated: bool = False
    """Some token counts are estimates (the provider reported none)."""
    cache_hit_tokens: int | None = None
    """Prompt tokens the provider served from its cache (None: no call reported it)."""
    cache_miss_tokens: int | None = None
    """Prompt tokens evaluated afresh, where reported."""
    cache_hit_share: float | None = None
    """cache hit / (hit + miss) over the calls that reported both, 0..1."""
    model_ms: float = 0.0
    """Time spent waiting for models, summed over the calls."""
    cost_usd: float | None = None
    """Price of the calls, when every call with tokens has one."""


class TurnUsage(UsageFigures):
    """The run that committed one turn."""

    turn_number: int
    """The turn."""
    latency_ms: float | None = None
    """Wall time from the turn's input to its commit."""
    runs: int = 1
    """How many times the turn was committed (reruns, undone and replayed turns)."""


class UsagePublic(BaseModel):
    """A session's usage: per committed turn, and in total."""

    turns: list[TurnUsage]
    """Turns present in the session, in order."""
    total: UsageFigures
    """Every model call of the session."""
    currency: str = "USD"
    """Currency of `cost_usd`."""


@dataclass
class _Sum:
    calls: int = 0
    prompt: int = 0
    completion: int = 0
    estimated: bool = False
    hit: int | None = None
    miss: int | None = None
    ms: float = 0.0
    cost: float | None = 0.0

    def add(self, line: LlmCallLine) -> None:
        self.calls += 1
        self.ms += line.duration_ms
        usage = line.usage or {}
        prompt, completion = usage.get("prompt_tokens"), usage.get("completion_tokens")
        if not isinstance(prompt, int):
            prompt = line.prompt_estimated_tokens if line.response is not None else 0
            self.estimated = self.estimated or line.response is not None
        if not isinstance(completion, int):
            completion = estimate_tokens(len(line.response or ""))
            self.estimated = self.estimated or line.response is not None
        self.prompt += prompt
        self.completion += completion
        hit, miss = line.prompt_cache.hit_tokens, line.prompt_cache.miss_tokens
        if hit is not None and miss is not None:
            self.hit = (self.hit or 0) + hit
            self.miss = (self.miss or 0) + miss
        price = price_of(line.provider, line.model)
        if price is None:
            if prompt or completion:
                self.cost = None
        elif self.cost is not None:
            if hit is None or miss is None:
                hit, miss = 0, prompt
            self.cost += (
                hit * price.cache_hit + miss * price.cache_miss + completion * price.output
            ) / 1e6

    def figures(self) -> UsageFigures:
        share = None
        if self.hit is not None and self.miss is not None and self.hit + self.miss > 0:
            share = self.hit / (self.hit + self.miss)
        return UsageFigures(
            calls=self.calls,
            prompt_tokens=self.prompt,
            completion_tokens=self.completion,
            estimated=self.estimated,
            cache_hit_tokens=self.hit,
            cache_miss_tokens=self.miss,
            cache_hit_share=share,
            model_ms=round(self.ms, 1),
            cost_usd=None if self.cost is None or not self.calls else round(self.cost, 6),
        )


@dataclass
class _Run:
    started: float
    calls: _Sum = field(default_factory=_Sum)


@dataclass
class Ledger:
    """Usage folded from journal lines, one line at a time, in journal order."""

    session_id: str
    forked_at_turn: int | None = None
    total: _Sum = field(default_factory=_Sum)
    runs: dict[int, _Run] = field(default_factory=dict)
    turns: dict[int, tuple[_Sum, float, int]] = field(default_factory=dict)

    def counts(self, line: JournalLine) -> bool:
        """Whether a line is this session's (a fork's copied lines: only up to its start)."""
        if line.session_id == self.session_id:
            return True
        return self.forked_at_turn is not None and line.turn_number <= self.forked_at_turn

    def fold(self, line: JournalLine) -> None:
        """Take one line into the figures."""
        if not self.counts(line):
            return
        n = line.turn_number
        if isinstance(line, LlmCallLine):
            self.total.add(line)
            run = self.runs.get(n)
            if run is not None and line.agent not in SIDE_AGENTS:
                run.calls.add(line)
        elif isinstance(line, TurnInputLine):
            self.runs[n] = _Run(line.ts.timestamp())
        elif isinstance(line, CommitLine):
            run = self.runs.pop(n, None)
            runs = self.turns[n][2] + 1 if n in self.turns else 1
            if run is not None:
                latency = (line.ts.timestamp() - run.started) * 1000
                self.turns[n] = (run.calls, latency, runs)
        elif isinstance(line, UndoLine):
            self.turns.pop(line.removed_turn, None)

    def public(self, last_turn: int) -> UsagePublic:
        """The figures of turns up to `last_turn` (the session's turn now) and the total."""
        turns = [
            TurnUsage(
                turn_number=n,
                latency_ms=round(latency, 1),
                runs=runs,
                **calls.figures().model_dump(),
            )
            for n, (calls, latency, runs) in sorted(self.turns.items())
            if n <= last_turn
        ]
        return UsagePublic(turns=turns, total=self.total.figures())


@dataclass
class _Held:
    inode: tuple[int, int]
    offset: int
    ledger: Ledger


class UsageBooks:
    """Ledgers per journal, extended by the lines appended since the last read.

    A journal only grows, so a ledger read to byte `offset` stays right for that prefix;
    a file with another inode, or shorter than the offset (deleted and made again), is read
    from the start. Held by the app (`app.state.usage`), never at module level.
    """

    def __init__(self) -> None:
        """Hold nothing yet."""
        self._held: dict[Path, _Held] = {}
        self._lock = threading.Lock()

    def read(self, path: Path, session_id: str, forked_at_turn: int | None) -> Ledger:
        """The ledger of the journal at `path` as it is now.

        Raises:
            JournalFormatError: a complete line that cannot be read.
        """
        try:
            stat = os.stat(path)
        except FileNotFoundError:
            return Ledger(session_id, forked_at_turn)
        inode = (stat.st_dev, stat.st_ino)
        with self._lock:
            held = self._held.get(path)
            if (
                held is None
                or held.inode != inode
                or held.offset > stat.st_size
                or held.ledger.forked_at_turn != forked_at_turn
            ):
                held = _Held(inode, 0, Ledger(session_id, forked_at_turn))
            with open(path, "rb") as handle:
                handle.seek(held.offset)
                data = handle.read()
            end = data.rfind(b"\n") + 1  # a torn last line waits for its newline
            self._held.pop(path, None)  # kept again only once every new line is folded
            for number, raw in enumerate(data[:end].splitlines()):
                if raw.strip():
                    held.ledger.fold(parse_journal_line(raw, f"{path}:+{number}"))
            held.offset += end
            self._held[path] = held
            return held.ledger
