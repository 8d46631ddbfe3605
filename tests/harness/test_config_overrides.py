"""Budget overrides (a script's, an arm's) reach the kernel: the prompts shrink, the probes
that depend on memory notice, and the config hash tells the runs apart."""

from __future__ import annotations

from pathlib import Path

from harness_kit import failed, play

from harness.records.script import ConfigOverrides
from harness.run import RunOutcome
from tavern.records import LlmCallLine
from tavern.store import read_journal


def _prompt_chars(outcome: RunOutcome, data_dir: Path) -> dict[str, int]:
    chars: dict[str, int] = {}
    for line in read_journal(data_dir / outcome.run.journal):
        if isinstance(line, LlmCallLine):
            role = line.agent.split(":")[0]
            chars[role] = chars.get(role, 0) + sum(len(m.content) for m in line.request.messages)
    return chars


def test_budget_overrides_reach_the_kernels_prompts(tavern_data_dir: Path) -> None:
    base = play("long-session", tavern_data_dir / "base")
    assert base.run.probes_passed == base.run.probes, failed(base)
    tight = ConfigOverrides(provider="fake", character_memory_tokens=0, director_history_tokens=0)
    starved = play("long-session", tavern_data_dir / "starved", overrides=tight)
    assert starved.run.config_sha256 != base.run.config_sha256
    before = _prompt_chars(base, tavern_data_dir / "base")
    after = _prompt_chars(starved, tavern_data_dir / "starved")
    assert after["character"] < before["character"] / 2
    assert after["director"] < before["director"]
    # The whispered word is out of the perception window by then: only memory carried it.
    assert failed(starved) == {"insider-remembers": "missing_in_prompt"}
