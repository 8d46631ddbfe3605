"""Every bundled script plays to the end on the clean kernel with the fake provider, and every
probe passes: the baseline the negative controls (test_probe_controls.py) depart from."""

from __future__ import annotations

from pathlib import Path

import pytest
from harness_kit import failed, play

from harness.loading import bundled_scripts, load_script
from harness.progress import planned_plays


@pytest.mark.parametrize("name", sorted(bundled_scripts()))
def test_a_bundled_script_passes_on_the_clean_kernel(tavern_data_dir: Path, name: str) -> None:
    outcome = play(name, tavern_data_dir)
    run = outcome.run
    assert run.status == "completed" and not run.turns_failed, run.error
    assert run.probes_passed == run.probes, failed(outcome)
    assert run.invariant_failures == 0
    # The progress total is right: one invariants probe per play the script made.
    plays = sum(1 for p in outcome.probes if p.probe == "invariants")
    assert plays == planned_plays(load_script(name).script)
