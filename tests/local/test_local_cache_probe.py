"""The prompt-cache probe: its verdict rules, its calls and journal, and its negative controls."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import httpx
import pytest

import tavern.llm
from tavern.cli import main
from tavern.llm.local.cache_probe import (
    LABELS,
    ProbeCall,
    ProbeResult,
    judge,
    probe_messages,
    run_cache_probe,
)
from tavern.llm.local.paths import LocalPaths
from tavern.llm.local.provider import LocalProvider
from tavern.llm.local.server import LocalServer, ServerOptions
from tavern.records.journal import LlmCallLine


def _calls(
    hits: list[int | None], prompt_ms: list[float | None], wall: list[float]
) -> list[ProbeCall]:
    return [
        ProbeCall(label, hit, None if hit is None else 100 - hit, ms, w)
        for label, hit, ms, w in zip(LABELS, hits, prompt_ms, wall, strict=True)
    ]


NONE5: list[float | None] = [None] * 5


def test_counters_pass_only_when_every_repeat_beats_the_control() -> None:
    method, repeat, control, passed, _ = judge(_calls([0, 99, 99, 99, 2], NONE5, [1.0] * 5))
    assert (method, repeat, control, passed) == ("counters", 99.0, 2.0, True)
    # negative controls: no reuse at all; one cold repeat; a control that reuses as much
    assert not judge(_calls([0, 0, 0, 0, 0], NONE5, [1.0] * 5))[3]
    assert not judge(_calls([0, 99, 0, 99, 2], NONE5, [1.0] * 5))[3]
    assert not judge(_calls([0, 99, 99, 99, 99], NONE5, [1.0] * 5))[3]


def test_without_counters_the_prefill_time_ratio_decides_and_says_so() -> None:
    hits: list[int | None] = [None] * 5
    method, repeat, control, passed, text = judge(
        _calls(hits, [900.0, 20.0, 22.0, 24.0, 880.0], [1000.0] * 5)
    )
    assert (method, repeat, control, passed) == ("prefill_time", 22.0, 880.0, True)
    assert "no cache counters" in text
    assert not judge(_calls(hits, [900.0, 800.0, 850.0, 900.0, 880.0], [1000.0] * 5))[3]


def test_wall_time_needs_a_margin_and_a_slow_enough_control() -> None:
    hits: list[int | None] = [None] * 5
    assert judge(_calls(hits, NONE5, [900.0, 100.0, 100.0, 100.0, 900.0]))[3]
    fast = judge(_calls(hits, NONE5, [2.0, 0.1, 0.1, 0.1, 2.0]))
    assert fast[0] == "wall_time" and not fast[3] and "inconclusive" in fast[4]


def test_a_failed_call_fails_the_probe() -> None:
    calls = _calls([0, 99, 99, 99, 2], NONE5, [1.0] * 5)
    calls[2] = ProbeCall("repeat-2", None, None, None, 1.0, error="timeout")
    assert judge(calls)[3] is False


def test_the_prefix_is_long_unique_and_changes_from_the_start() -> None:
    a, b = probe_messages("aaaa"), probe_messages("bbbb")
    assert len(a[0].content) > 3000
    assert a == probe_messages("aaaa")  # deterministic given the nonce
    assert a[0].content[:6] == "Probe " and a[0].content[6] != b[0].content[6]
    assert a[1] == b[1]


def _probe_fake_server(paths: LocalPaths) -> ProbeResult:
    server = LocalServer(paths.server_binary, paths.model_file, ServerOptions(startup_timeout_s=15))
    sunk: list[LlmCallLine] = []

    async def run() -> ProbeResult:
        async with httpx.AsyncClient() as http:
            provider = LocalProvider(http_client=http, server=lambda: server)
            return await run_cache_probe(provider, sink=sunk.append, session_id="probe-t")

    try:
        result = asyncio.run(run())
    finally:
        server.stop()
    assert sunk == result.lines and len(sunk) == 5
    return result


def test_probe_passes_against_a_server_that_caches(
    fake_install: LocalPaths, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tavern.llm, "ALLOW_LIVE_CALLS", True)  # loopback fake only
    result = _probe_fake_server(fake_install)
    assert result.method == "counters" and result.passed
    assert [c.label for c in result.calls] == list(LABELS)
    assert result.calls[0].hit_tokens == 0  # the prefix was new
    assert [line.turn_number for line in result.lines] == [0, 1, 2, 3, 4]
    assert all(line.agent == "probe" and line.provider == "local" for line in result.lines)


def test_probe_fails_against_a_server_that_does_not(
    fake_install: LocalPaths, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tavern.llm, "ALLOW_LIVE_CALLS", True)
    monkeypatch.setenv("FAKE_NO_CACHE", "1")
    result = _probe_fake_server(fake_install)
    assert result.method == "counters" and not result.passed


def test_cli_runs_the_probe_on_the_fake_provider_and_journals_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    journal = tmp_path / "probe.jsonl"
    code = main(["probe", "cache", "--provider", "fake", "--journal", str(journal)])
    out = capsys.readouterr().out
    assert code == 1  # an in-process fake shows no reuse: the honest answer is a failure
    assert "method: wall_time" in out and "FAIL" in out
    lines = [LlmCallLine.model_validate(json.loads(x)) for x in journal.read_text().splitlines()]
    assert [line.provider for line in lines] == ["fake"] * 5
    assert lines[0].request.messages[0].content.startswith("Probe ")


def test_cli_default_journal_is_under_the_data_dir(
    tavern_data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tavern.settings import get_settings

    get_settings.cache_clear()
    try:
        main(["probe", "cache", "--provider", "fake", "--notes", "5"])
    finally:
        get_settings.cache_clear()
    files = list((tavern_data_dir / "probes").glob("cache-fake-*.jsonl"))
    assert len(files) == 1 and len(files[0].read_text().splitlines()) == 5


def test_cli_refuses_an_unknown_provider(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["probe", "cache", "--provider", "nope"]) == 2
    assert "unknown provider" in capsys.readouterr().out
