"""The same scripts give the same probe results in-process and over real HTTP against a
`tavern serve` child process (fake provider): the same verdicts, labels and evidence, and
byte-equal prompts and answers in the two journals."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
import pytest
from serve_process import tavern_serve

from harness.cli import main
from harness.config import resolve_config
from harness.loading import bundled_scripts
from harness.records.results import ProbeResult
from harness.records.script import ConfigOverrides
from harness.results import read_results
from harness.targets import TargetError
from harness.targets.http import HttpTarget
from tavern.records import LlmCallLine, TurnInput
from tavern.records.config import AppConfig, ProviderSettings
from tavern.store import read_journal

SCRIPTS = sorted(set(bundled_scripts()) - {"soak", "contracanone"})
"""Every bundled script but the soak and the counter-canon benchmark, whose sampling settings
a server cannot be given
(`test_over_http_only_what_the_server_can_set_is_accepted`): between them every event and
probe kind, both languages, and the 40-turn session."""


def _verdicts(probe: ProbeResult) -> tuple[object, ...]:
    checks = [(c.name, c.passed, c.label, c.detail) for c in probe.checks]
    return (probe.probe, probe.probe_id, probe.turn_number, probe.passed, probe.label, checks)


def _exchanges(path: Path) -> list[tuple[str, int, object, str | None]]:
    return [
        (line.agent, line.turn_number, line.request.messages, line.response)
        for line in read_journal(path)
        if isinstance(line, LlmCallLine)
    ]


@pytest.mark.timeout(600)
def test_the_same_scripts_give_the_same_probe_results_both_ways(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    local, remote, lossy = tmp_path / "local", tmp_path / "remote", tmp_path / "lossy"
    assert main(["run", *SCRIPTS, "--provider", "fake", "--data-dir", str(local)]) == 0
    with tavern_serve(tmp_path / "server") as url:
        args = ["run", *SCRIPTS, "--provider", "fake", "--url", url, "--data-dir", str(remote)]
        assert main(args) == 0, capsys.readouterr().out
        # Negative control: a client that loses `whisper_to` on the way gives other results.
        honest = HttpTarget.play_turn

        async def unwhispered(self: HttpTarget, session_id: str, turn: TurnInput) -> Any:
            return await honest(self, session_id, turn.model_copy(update={"whisper_to": []}))

        monkeypatch.setattr(HttpTarget, "play_turn", unwhispered)
        args = ["run", "whisper-secrecy", "--url", url, "--data-dir", str(lossy)]
        assert main(args) == 1
        monkeypatch.undo()
    planted = read_results(lossy / "results.jsonl").probes
    clean = [
        p
        for p in read_results(local / "results.jsonl").probes
        if p.run_id.startswith("whisper-secrecy__")
    ]
    assert [_verdicts(p) for p in planted] != [_verdicts(p) for p in clean]
    assert {p.probe_id: p.label for p in planted if not p.passed}["bystander-never-heard-it"] == (
        "forbidden_in_prompt"
    )
    ours, theirs = read_results(local / "results.jsonl"), read_results(remote / "results.jsonl")
    assert [r.target for r in theirs.runs] == ["http"] * len(SCRIPTS)
    assert [r.config_sha256 for r in ours.runs] == [r.config_sha256 for r in theirs.runs]
    assert [_verdicts(p) for p in ours.probes] == [_verdicts(p) for p in theirs.probes]
    kinds = {p.probe for p in ours.probes}
    assert kinds == {"recall", "interview", "routing", "boundary", "invariants"}
    for a, b in zip(ours.runs, theirs.runs, strict=True):
        assert _exchanges(local / a.journal) == _exchanges(remote / b.journal)
        # Over HTTP the export is the history alone (the server serves no stored state).
        mine, yours = (local / a.journal).parent, (remote / b.journal).parent
        assert (mine / "memory.jsonl").exists() and not (yours / "memory.jsonl").exists()
        assert len((mine / "history.jsonl").read_text().splitlines()) == len(
            (yours / "history.jsonl").read_text().splitlines()
        )


def test_over_http_only_what_the_server_can_set_is_accepted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    args = ["run", "soak", "--url", "http://127.0.0.1:9", "--data-dir", str(out)]
    assert main(args) == 2 and not out.exists()
    assert "temperature, seed, max_tokens, max_attempts cannot be set over HTTP" in (
        capsys.readouterr().err
    )


def test_a_server_holding_another_config_is_refused_before_anything_runs(
    tmp_path: Path,
) -> None:
    from tavern.app.main import create_app
    from tavern.app.state import AppServices
    from tavern.app.wiring import close_runner, runner_factory
    from tavern.store import Library, SessionStore

    library, store = Library(tmp_path), SessionStore(tmp_path)
    services = AppServices(
        data_dir=tmp_path,
        library=library,
        sessions=store,
        runner_factory=runner_factory(library, store),
        close_runner=close_runner,
    )
    stored = AppConfig(active_provider="fake", providers={"fake": ProviderSettings(seed=5)})
    app = create_app(services, stored)
    resolved = resolve_config(ConfigOverrides(provider="fake"), "en")

    async def check() -> str:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            target = HttpTarget("http://127.0.0.1", config=resolved, client=client)
            with pytest.raises(TargetError) as refused:
                await target.check_config()
            with pytest.raises(TargetError):
                await target.create_session("the-toll-house", None)  # configure() refuses too
            await target.aclose()  # and puts the server's provider and language back
            config = (await client.get("/config")).json()
            assert config["active_provider"] == "fake" and config["language"] == "en"
            return refused.value.message

    message = asyncio.run(check())
    store.close()
    assert "would not run this config: settings.seed: run None, server 5" in message
