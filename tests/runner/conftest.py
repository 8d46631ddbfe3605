"""Fixtures: a real runner over the test's temporary data dir and the fake provider."""

from __future__ import annotations

from pathlib import Path

import pytest

from tavern.llm.client import LlmClient
from tavern.llm.fake import FakeFunction, FakeMode, FakeProvider
from tavern.llm.wrappers import RetryPolicy
from tavern.records import LlmCallLine
from tavern.runner import Runner
from tavern.store import JournalWriter, Library, SessionStore

from .kit import Kit, KitFactory, no_sleep


@pytest.fixture
def make_kit(tavern_data_dir: Path) -> KitFactory:
    """Build a kit: `make_kit("parrot")`, `make_kit("adversary")`, `make_kit(fn=callable)`."""

    def build(
        mode: FakeMode = "parrot", *, fn: FakeFunction | None = None, attempts: int = 2
    ) -> Kit:
        store = SessionStore(tavern_data_dir, synchronous="OFF")
        library = Library(tavern_data_dir)
        journal = JournalWriter(tavern_data_dir, durable=False)
        provider = FakeProvider("function" if fn else mode, fn=fn)

        def sink(line: LlmCallLine) -> None:
            journal.append(line.session_id, line)

        client = LlmClient(
            provider, sink=sink, retry=RetryPolicy(max_attempts=attempts), sleep=no_sleep
        )
        runner = Runner(store, library, journal, client)
        return Kit(runner, provider, store, library, journal, tavern_data_dir)

    return build
