"""`RetryingProvider` hands its request on uncopied when it already bears the attempt number.

The reference is the old code, `dataclasses.replace(request, attempt_number=attempt)`: the
property checks field for field that `_numbered` gives the same request for any attempt and
any numbering of the incoming one (bools and subclasses included). The negative control, a
variant that never renumbers, is caught.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from tavern.llm import wrappers
from tavern.llm.provider import ProviderRequest
from tavern.records import ChatMessage


class _Subclass(ProviderRequest):
    pass


def reference(request: ProviderRequest, attempt: int) -> ProviderRequest:
    return dataclasses.replace(request, attempt_number=attempt)


def _fields(request: ProviderRequest) -> list[tuple[type, Any]]:
    values = [getattr(request, f.name) for f in dataclasses.fields(request)]
    return [(type(request), None), *((type(v), v) for v in values)]


requests = st.builds(
    lambda kind, number, agent: kind(
        agent=agent, messages=[ChatMessage(role="user", content="hi")], attempt_number=number
    ),
    st.sampled_from([ProviderRequest, _Subclass]),
    st.one_of(st.integers(0, 4), st.booleans()),
    st.text(max_size=5),
)


def _agrees(numbered: Any, request: ProviderRequest, attempt: int) -> bool:
    return _fields(numbered(request, attempt)) == _fields(reference(request, attempt))


@given(requests, st.integers(1, 4))
def test_numbered_equals_replace(request: ProviderRequest, attempt: int) -> None:
    assert _agrees(wrappers._numbered, request, attempt)


def test_negative_control_a_request_never_renumbered_is_caught() -> None:
    request = ProviderRequest(agent="a", messages=[])
    assert _agrees(wrappers._numbered, request, 2)
    assert not _agrees(lambda r, attempt: r, request, 2)
    assert not _agrees(lambda r, attempt: r, dataclasses.replace(request, attempt_number=True), 1)
