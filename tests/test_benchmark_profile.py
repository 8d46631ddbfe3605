"""`benchmarks.profile`: the sampler keeps the kernel's stacks and leaves the model wait out.

The benchmarks are not a package the project installs, so the checkout's root goes on the
path for this module; the tables are checked on planted stacks, the sampler on real frames.
"""

from __future__ import annotations

import asyncio
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def profile(monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    monkeypatch.syspath_prepend(str(ROOT))
    import benchmarks.profile as module

    yield module


STACKS: Counter[tuple[str, ...]] = Counter(
    {
        ("a:turn", "b:direct", "c:gate"): 5,
        ("a:turn", "b:direct"): 2,
        ("a:turn", "d:speak", "c:gate"): 3,
        ("e:narrate",): 4,
    }
)


def test_tables_of_planted_stacks(profile: ModuleType) -> None:
    assert profile.cumulative(STACKS) == {
        "a:turn": 10, "b:direct": 7, "c:gate": 8, "d:speak": 3, "e:narrate": 4,
    }  # fmt: skip
    assert profile.exclusive(STACKS) == {"c:gate": 8, "b:direct": 2, "e:narrate": 4}
    assert profile.under(STACKS, "direct") == {"c:gate": 5, "<self>": 2}
    assert profile.under(STACKS, "a:turn", depth=2) == {
        "b:direct > c:gate": 5, "b:direct": 2, "d:speak > c:gate": 3,
    }  # fmt: skip
    assert next(iter(profile.collapsed(STACKS))) == "a:turn;b:direct;c:gate 5"


def test_a_recursive_function_counts_once_in_cumulative(profile: ModuleType) -> None:
    assert profile.cumulative(Counter({("f:walk", "f:walk", "f:walk"): 3})) == {"f:walk": 3}


def _sample_inside(sampler: object) -> None:
    def leaf() -> None:
        sampler._take(0, sys._getframe())  # type: ignore[attr-defined]

    leaf()


def test_sampler_names_frames_and_leaves_the_model_wait_out(
    profile: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    sampler = profile.Sampler()
    _sample_inside(sampler)
    assert not sampler.stacks, "a sample outside a turn counts"
    sampler.active = True
    _sample_inside(sampler)
    (stack,) = sampler.stacks
    assert stack[-2:] == (
        "tests.test_benchmark_profile:_sample_inside",
        "tests.test_benchmark_profile:_sample_inside.<locals>.leaf",
    )
    # Negative control of the exclusion: the same frames, with `_sample_inside` planted as
    # the fake provider's answering, are the model wait.
    monkeypatch.setattr(profile, "_MODEL_WAIT", _sample_inside.__code__)
    _sample_inside(sampler)
    assert sampler.model_wait == 1 and sum(sampler.stacks.values()) == 1


def test_sampler_stacks_start_where_the_loop_steps_a_task(profile: ModuleType) -> None:
    sampler = profile.Sampler()
    sampler.active = True

    async def task() -> None:
        sampler._take(0, sys._getframe())

    asyncio.run(task())
    (stack,) = sampler.stacks
    assert stack == ("tests.test_benchmark_profile:test_sampler_stacks_start_where_the_loop_"
                     "steps_a_task.<locals>.task",)  # fmt: skip
