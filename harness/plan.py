"""Checking a script against its scenario before anything runs.

`resolve_script` turns every character reference (a slot id or a library character id) into
a slot of the scenario's cast and checks that each boundary canary is planted by an earlier
turn. Every problem is reported at once, naming the field (`InputError`).

Example::

    script = resolve_script(loaded, scenario)   # "maren-holt" -> "C2", or InputError
"""

from __future__ import annotations

from typing import Any

from harness.loading import InputError, LoadedScript
from harness.records.script import (
    BoundaryProbe,
    InterviewProbe,
    RecallProbe,
    RoutingProbe,
    Script,
    TurnEvent,
)
from tavern.records import NARRATOR, Scenario


class _Resolver:
    def __init__(self, scenario: Scenario) -> None:
        self.scenario = scenario
        self.problems: list[tuple[str, str]] = []
        self.by_character = {character: slot for slot, character in scenario.cast.items()}

    def slot(self, reference: str, field: str, *, narrator: bool = False) -> str:
        if reference in self.scenario.cast or (narrator and reference == NARRATOR):
            return reference
        if reference in self.by_character:
            return self.by_character[reference]
        slots = ", ".join(self.scenario.cast)
        characters = ", ".join(self.scenario.cast.values())
        also = f" or {NARRATOR!r}" if narrator else ""
        self.problems.append(
            (
                field,
                f"expected a slot or character id of the cast of {self.scenario.id!r} "
                f"({slots}; {characters}){also}, got {reference!r}",
            )
        )
        return reference


def resolve_script(loaded: LoadedScript, scenario: Scenario) -> Script:
    """`loaded.script` with every character reference a slot of `scenario`'s cast.

    Raises:
        InputError: an unknown character or slot, or a canary no earlier turn plants.
    """
    script = loaded.script
    resolver = _Resolver(scenario)
    controlled = script.controlled
    if controlled is not None:
        controlled = resolver.slot(controlled, "controlled")
    planted: list[str] = []
    events: list[Any] = []
    for index, event in enumerate(script.events):
        where = f"events[{index}]"
        update: dict[str, Any] = {}
        if isinstance(event, TurnEvent):
            update["whisper_to"] = [
                resolver.slot(s, f"{where}.whisper_to[{i}]") for i, s in enumerate(event.whisper_to)
            ]
            if event.force_speaker is not None:
                update["force_speaker"] = resolver.slot(
                    event.force_speaker, f"{where}.force_speaker", narrator=True
                )
            planted += [t.casefold() for t in (event.speech, event.thought, event.action) if t]
        elif isinstance(event, RecallProbe | InterviewProbe):
            update["character"] = resolver.slot(event.character, f"{where}.character")
        elif isinstance(event, RoutingProbe):
            update["expect"] = [
                resolver.slot(s, f"{where}.expect[{i}]") for i, s in enumerate(event.expect)
            ]
        elif isinstance(event, BoundaryProbe):
            for i, canary in enumerate(event.canaries):
                if not any(canary.casefold() in text for text in planted):
                    resolver.problems.append(
                        (
                            f"{where}.canaries[{i}]",
                            f"expected a token an earlier turn's speech, thought or action "
                            f"plants, got {canary!r}",
                        )
                    )
        events.append(event.model_copy(update=update))
    if resolver.problems:
        raise InputError(loaded.source, resolver.problems)
    return script.model_copy(update={"controlled": controlled, "events": events})
