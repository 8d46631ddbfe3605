"""Automatic compaction: opt-in per session, after a turn whose upcoming Director prompt
passes the threshold share of the context, counted by the provider's tokenizer when it has
one (journaled as `tokenizer`) and estimated otherwise (journaled as `estimate`)."""

from __future__ import annotations

from pathlib import Path

from tavern.llm.client import LlmClient
from tavern.llm.fake import FakeProvider
from tavern.llm.wrappers import RetryPolicy
from tavern.records import CompactionSettings, CompactLine, LlmCallLine
from tavern.runner import Runner
from tavern.store import JournalWriter, Library, SessionStore, journal_path, read_journal

from .compaction_kit import answers
from .kit import Kit, KitFactory, no_sleep, run

AUTO = CompactionSettings(auto=True, threshold=0.05, retention_turns=2, auto_min_turns=1)


def _session(kit: Kit, settings: CompactionSettings, turns: int = 5) -> str:
    sid = run(kit.runner.create_session("the-vintners-wake", compaction=settings)).id
    for i in range(turns):
        kit.play(sid, speech=f"Line {i} about the cask.")
    return sid


def _compact_lines(data_dir: Path, sid: str) -> list[CompactLine]:
    lines = read_journal(journal_path(data_dir, sid))
    return [x for x in lines if isinstance(x, CompactLine)]


def test_auto_compaction_runs_past_the_threshold_with_an_estimate(make_kit: KitFactory) -> None:
    kit = make_kit(fn=answers)
    sid = _session(kit, AUTO)
    lines = _compact_lines(kit.data_dir, sid)
    assert lines and all(x.trigger == "auto" for x in lines)
    first = lines[0]
    assert first.token_count == "estimate"  # the fake has no tokenizer endpoint
    assert first.context_tokens == 4096 and first.prompt_tokens is not None
    assert first.prompt_tokens >= AUTO.threshold * 4096
    assert kit.state(sid).story_summary
    assert len({r.turn_number for r in kit.history(sid)}) <= AUTO.retention_turns + 1


def test_negative_controls_off_by_default_and_below_the_threshold(make_kit: KitFactory) -> None:
    kit = make_kit(fn=answers)
    off = _session(kit, CompactionSettings(threshold=0.05, retention_turns=2))
    high = _session(kit, CompactionSettings(auto=True, threshold=1.0, retention_turns=2))
    assert _compact_lines(kit.data_dir, off) == [] and _compact_lines(kit.data_dir, high) == []
    assert kit.store.compacted_through(off) == -1 == kit.store.compacted_through(high)


def test_auto_compaction_waits_for_enough_turns_to_evict(make_kit: KitFactory) -> None:
    kit = make_kit(fn=answers)
    sid = _session(kit, AUTO.model_copy(update={"auto_min_turns": 3}), turns=10)
    lines = _compact_lines(kit.data_dir, sid)
    assert lines and all(x.evicted_turns >= 3 for x in lines)
    assert len(lines) <= 3  # not after every turn past the threshold
    once = _session(kit, AUTO, turns=10)  # negative control: one turn is enough
    assert len(_compact_lines(kit.data_dir, once)) > len(lines)


class _Tokenizing(FakeProvider):
    """The fake with a tokenizer endpoint: one token per word."""

    async def count_tokens(self, text: str) -> int:
        return len(text.split())


def test_a_provider_tokenizer_is_used_and_journaled(tavern_data_dir: Path) -> None:
    store = SessionStore(tavern_data_dir, synchronous="OFF")
    journal = JournalWriter(tavern_data_dir, durable=False)
    provider = _Tokenizing("function", fn=answers)
    client = LlmClient(
        provider,
        sink=lambda line: journal.append(line.session_id, line),
        retry=RetryPolicy(max_attempts=1),
        sleep=no_sleep,
    )
    runner = Runner(store, Library(tavern_data_dir), journal, client)
    kit = Kit(runner, provider, store, Library(tavern_data_dir), journal, tavern_data_dir)
    sid = _session(kit, AUTO.model_copy(update={"context_tokens": 2048}))
    first = _compact_lines(tavern_data_dir, sid)[0]
    assert first.token_count == "tokenizer" and first.context_tokens == 2048


def test_a_failed_automatic_compaction_never_fails_the_turn(make_kit: KitFactory) -> None:
    def broken(request):  # type: ignore[no-untyped-def]
        if request.agent == "summarizer":
            return {"summary": ""}  # schema-invalid
        return answers(request)

    kit = make_kit(fn=broken, attempts=1)
    sid = _session(kit, AUTO, turns=4)
    assert kit.state(sid).turn_number == 4
    assert _compact_lines(kit.data_dir, sid) == []
    failed = [c for c in kit.calls(sid) if c.agent == "summarizer"]
    assert failed and all(isinstance(c, LlmCallLine) and c.error for c in failed)
