"""The suite's Hypothesis profile (tests/conftest.py): no per-example deadline."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st


@settings(max_examples=2)
@given(st.integers())
def _sized_property(n: int) -> None:
    del n


def test_the_suite_profile_has_no_deadline() -> None:
    assert settings().deadline is None


def test_a_property_setting_its_own_size_keeps_the_profiles_deadline() -> None:
    own = _sized_property._hypothesis_internal_use_settings  # type: ignore[attr-defined]
    assert own.max_examples == 2 and own.deadline is None
    assert settings(deadline=200).deadline is not None  # the check can tell them apart
