"""`python -m harness.soak`: a scripted session, its report, and refusals that write nothing."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from harness import soak
from tavern.llm.fake import FakeProvider
from tavern.llm.provider import ProviderRequest, ProviderResponse
from tavern.store import SessionStore


def test_a_fake_soak_plays_every_turn_and_reports_the_calls(tmp_path: Path) -> None:
    out = io.StringIO()
    status = soak.main(
        ["the-vintners-wake", "--provider", "fake", "--turns", "7", "--data-dir", str(tmp_path)],
        out=out,
    )
    text = out.getvalue()
    assert status == 0, text
    assert [line.split(":")[0] for line in text.splitlines() if line.startswith("turn ")] == [
        f"turn {n}" for n in range(1, 8)
    ]
    assert "7 of 7 turns committed" in text
    assert "director" in text and "prose" in text and "FAILED" not in text
    assert "human attempts with an outcome" in text and "clamp changes:" in text
    store = SessionStore(tmp_path)
    try:
        (session,) = store.list()
        assert store.load(session.id).turn_number == 7
    finally:
        store.close()


def test_a_failing_model_is_counted_and_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def unparsable(self: FakeProvider, request: ProviderRequest) -> ProviderResponse:
        return ProviderResponse(content="I'm sorry, I can't answer in JSON.")

    monkeypatch.setattr(FakeProvider, "complete", unparsable)
    out = io.StringIO()
    args = ["the-toll-house", "--provider", "fake", "--turns", "2", "--data-dir", str(tmp_path)]
    assert soak.main(args, out=out) == 1
    text = out.getvalue()
    assert "turn 1: FAILED" in text and "turn 2: FAILED" in text
    assert "failed: turn 1 director attempt 1" in text and "0 of 2 turns committed" in text


@pytest.mark.parametrize(
    "args",
    [
        ["no-such-scenario", "--provider", "fake"],
        ["the-toll-house", "--provider", "no-such-provider"],
        ["the-toll-house", "--provider", "fake", "--turns", "0"],
    ],
)
def test_bad_arguments_are_refused_and_nothing_is_written(
    tmp_path: Path, args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "data"
    with pytest.raises(SystemExit) as exit_info:
        soak.main([*args, "--data-dir", str(target)], out=io.StringIO())
    assert exit_info.value.code == 2
    assert not target.exists()
    assert "error:" in capsys.readouterr().err


def test_without_a_data_dir_an_unknown_scenario_names_the_built_ins(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def no_temp_dir(**kwargs: object) -> str:
        raise AssertionError("a data dir was made for refused arguments")

    monkeypatch.setattr(soak.tempfile, "mkdtemp", no_temp_dir)
    with pytest.raises(SystemExit) as exit_info:
        soak.main(["no-such-scenario", "--provider", "fake"], out=io.StringIO())
    assert exit_info.value.code == 2
    assert "known: ['the-toll-house', 'the-vintners-wake']" in capsys.readouterr().err
