"""Bad input fails before anything runs, naming the file, the field and what was expected."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from harness.cli import main
from harness.config import resolve_config
from harness.loading import InputError, load_campaign, load_script
from harness.records.script import ConfigOverrides
from harness.run import prepare
from harness.targets.in_process import LibraryCatalog
from tavern.store import Library


def _write(path: Path, data: object) -> Path:
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


BASE = {"schema_version": 1, "id": "bad", "title": "t", "scenario": "the-toll-house"}


def _prepare(path: Path, data_dir: Path) -> object:
    loaded = load_script(str(path))
    resolved = resolve_config(ConfigOverrides(provider="fake"), loaded.script.language)
    catalog = LibraryCatalog(Library(data_dir))
    return asyncio.run(prepare(loaded, catalog, resolved))


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ("{not json", "line 1 column 2: expected JSON"),
        ([1, 2], "expected an object at the top, got list"),
        ({**BASE, "events": []}, "events: List should have at least 1 item"),
        ({**BASE, "planted": 1, "events": [{"kind": "turn", "skip": True}]},
         "planted: unknown field"),
        ({**BASE, "events": [{"kind": "turn"}]}, "events[0]: an empty turn"),
        ({**BASE, "events": [{"kind": "turn", "skip": True, "repeat": 0}]},
         "events[0].repeat: Input should be greater than or equal to 1, got 0"),
        ({**BASE, "events": [{"kind": "turn", "skip": True},
                             {"kind": "recall", "character": "C2", "require": ["(unclosed"]}]},
         "events[1].require: pattern '(unclosed' is not a regular expression"),
        ({**BASE, "events": [{"kind": "dance"}]}, "events[0]: Input tag 'dance'"),
        ({**BASE, "schema_version": 2, "events": [{"kind": "turn", "skip": True}]},
         "schema_version: Input should be 1, got 2"),
    ],
)  # fmt: skip
def test_a_malformed_script_names_file_field_and_expectation(
    tmp_path: Path, data: object, expected: str
) -> None:
    path = _write(tmp_path / "bad.json", data)
    with pytest.raises(InputError) as caught:
        load_script(str(path))
    assert str(caught.value).startswith(f"{path}: ")
    assert expected in str(caught.value)


@pytest.mark.parametrize(
    ("events", "expected"),
    [
        ([{"kind": "turn", "speech": "Psst.", "whisper_to": ["C9"]}],
         "events[0].whisper_to[0]: expected a slot or character id of the cast of "
         "'the-toll-house' (C1, C2, C3; ilse-brandt, maren-holt, teodor-vask), got 'C9'"),
        ([{"kind": "turn", "skip": True, "force_speaker": "nobody"}],
         "events[0].force_speaker: expected a slot or character id"),
        ([{"kind": "turn", "skip": True}, {"kind": "interview", "character": "lio-mendez",
          "question": "Who?", "forbid": ["x"]}], "events[1].character: expected a slot"),
        ([{"kind": "turn", "skip": True}, {"kind": "boundary", "canaries": ["Never7"]}],
         "events[1].canaries[0]: expected a token an earlier turn's speech, thought or action "
         "plants, got 'Never7'"),
    ],
)  # fmt: skip
def test_unknown_characters_and_unplanted_canaries_are_refused(
    tmp_path: Path, events: list[object], expected: str
) -> None:
    path = _write(tmp_path / "bad.json", {**BASE, "events": events})
    with pytest.raises(InputError) as caught:
        _prepare(path, tmp_path / "data")
    assert expected in str(caught.value)


def test_an_unknown_scenario_is_refused(tmp_path: Path) -> None:
    data = {**BASE, "scenario": "no-such-place", "events": [{"kind": "turn", "skip": True}]}
    with pytest.raises(InputError, match="scenario: expected a scenario id of the library"):
        _prepare(_write(tmp_path / "bad.json", data), tmp_path / "data")


def test_the_command_refuses_bad_input_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "out"
    bad = _write(tmp_path / "bad.json", {**BASE, "events": [{"kind": "turn"}]})
    cases = [
        ["whisper-secrecy", "--provider", "no-such-provider"],
        ["no-such-script"],
        [str(bad)],
        ["whisper-secrecy", "--scenario", "no-such-place"],
        ["whisper-secrecy", str(bad)],  # one bad script: none plays
    ]
    for args in cases:
        assert main(["run", *args, "--data-dir", str(target)]) == 2, args
        assert not target.exists(), args
    with pytest.raises(SystemExit) as exit_info:
        main(["run", "whisper-secrecy", "--option", "mode", "--data-dir", str(target)])
    assert exit_info.value.code == 2 and not target.exists()
    err = capsys.readouterr().err
    assert "unknown provider 'no-such-provider'" in err
    assert "expected a bundled script id" in err and "KEY=VALUE" in err


def test_a_malformed_campaign_names_file_field_and_expectation(tmp_path: Path) -> None:
    path = tmp_path / "ab.toml"
    path.write_text('scripts = ["whisper-secrecy"]\nrepeats = 0\n[[arms]]\nname = "A B"\n')
    with pytest.raises(InputError) as caught:
        load_campaign(path)
    text = str(caught.value)
    assert f"{path}: repeats: Input should be greater than or equal to 1, got 0" in text
    assert f"{path}: arms[0].name: String should match pattern" in text
    assert f"{path}: preregistration: required field is missing" in text
    path.write_text("scripts = [")
    with pytest.raises(InputError, match="expected TOML"):
        load_campaign(path)


def test_the_command_refuses_an_unknown_character_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "out"
    events = [
        {"kind": "turn", "skip": True},
        {"kind": "recall", "character": "C7", "forbid": ["x"]},
    ]
    bad = _write(tmp_path / "bad.json", {**BASE, "events": events})
    assert main(["run", "whisper-secrecy", str(bad), "--data-dir", str(target)]) == 2
    assert not target.exists()
    err = capsys.readouterr().err
    assert f"{bad}: events[1].character: expected a slot or character id" in err


CAMPAIGN = """
scripts = ["whisper-secrecy", "bad.json"]
[[arms]]
name = "parrot"
config = { provider = "fake" }
[[arms]]
name = "adversary"
config = { provider = "fake", options = { mode = "adversary" } }
[preregistration]
metrics = ["probe_pass_rate"]
primary_metric = "probe_pass_rate"
control = "parrot"
treatment = "adversary"
better = "higher"
decision_rule = "none"
"""


@pytest.mark.parametrize(
    ("script", "expected"),
    [
        ({**BASE, "scenario": "no-such-place", "events": [{"kind": "turn", "skip": True}]},
         "bad.json: scenario: expected a scenario id of the library"),
        ({**BASE, "events": [{"kind": "turn", "skip": True, "force_speaker": "nobody"}]},
         "bad.json: events[0].force_speaker: expected a slot or character id"),
        ({**BASE, "events": [{"kind": "turn"}]}, "bad.json: events[0]: an empty turn"),
    ],
)  # fmt: skip
def test_a_campaign_with_a_bad_script_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], script: object, expected: str
) -> None:
    _write(tmp_path / "bad.json", script)
    path = _write(tmp_path / "ab.toml", CAMPAIGN)
    out = tmp_path / "out"
    for action in ("run", "resume"):
        assert main(["campaign", action, str(path), "--out", str(out)]) == 2
        assert not out.exists()
        assert expected in capsys.readouterr().err
    assert main(["campaign", "status", str(path), "--out", str(out)]) == 2


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("scripts = [", "ab.toml: expected TOML (Invalid value (at end of document))"),
        ('scripts = ["soak"]\nrepeats = = 3\n', "ab.toml: expected TOML (Invalid value (at line 2"),
        (CAMPAIGN.replace('"bad.json"', '"zones-cellar"') + "\n[[arms]]\nname = 3\n",
         "ab.toml: arms[2].name: Input should be a valid string"),
        (CAMPAIGN.replace("[[arms]]", "colour = 'red'\n[[arms]]", 1),
         "ab.toml: colour: unknown field"),
    ],
)  # fmt: skip
def test_a_malformed_campaign_file_is_refused_by_the_command_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, expected: str
) -> None:
    path = _write(tmp_path / "ab.toml", text)
    out = tmp_path / "out"
    for action in ("run", "resume", "status"):
        assert main(["campaign", action, str(path), "--out", str(out)]) == 2, action
        assert not out.exists()
        assert expected in capsys.readouterr().err
