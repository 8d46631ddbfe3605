"""A careful fake model for the counter-canon benchmark, and slips to plant in it.

`Careful` answers every call of the kernel as a model that keeps canon would: its Director
queues whoever the last spoken line addresses (by first name or by the description a
stranger would use) and stages nothing; its prose renderer writes one neutral sentence, its
world summarizer another; each of its characters answers by quoting back, from the lines of
its own prompt, the earlier lines said aloud that share a word with the line just said to it
(what a character with perfect recall and no imagination would say); its memory reviser
keeps the lines it was given.

A `Plant` replaces one role's answer on every turn, or on one turn: the slip a test shows
the canon evaluator catching.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tavern.llm.provider import ProviderRequest
from tavern.records import NARRATOR, Character

NEUTRAL_NARRATION = "Os vaga-lumes piscam nos potes pendurados; o salão espera."
_SPEECH = re.compile(r'^\[#\d+ t\d+\] speech by .*? \| "(?P<text>.*)"$')
_SAID = re.compile(r'^· .*? said: "(?P<text>.*)"$')


@dataclass(frozen=True)
class Plant:
    """One role's answer replaced: `agent` (`prose`, `director`, `character:C2`), on `turn`
    (None: every turn)."""

    agent: str
    answer: Callable[[ProviderRequest], Any]
    turn: int | None = None

    def applies(self, request: ProviderRequest) -> bool:
        """Whether this request is the one planted."""
        at = self.turn is None or request.turn_number == self.turn
        return at and request.agent == self.agent


def _stems(text: str) -> set[str]:
    return {word[:4] for word in re.findall(r"\w+", text.lower()) if len(word) >= 4}


@dataclass
class Careful:
    """The careful model; `cast` maps slots to their sheets (the Director's addressing)."""

    cast: dict[str, Character]
    plants: list[Plant] = field(default_factory=list)

    def __call__(self, request: ProviderRequest) -> Any:
        for plant in self.plants:
            if plant.applies(request):
                return plant.answer(request)
        text = request.messages[-1].content
        if request.agent == "director":
            return self.director(text)
        if request.agent == "prose":
            return {"narration": NEUTRAL_NARRATION}
        if request.agent.startswith(("character", "interview")):
            return {"speech": self.recall(text), "thought": None, "action_intent": None}
        if request.agent == "summarizer":
            return {"summary": "A noite avança na Estalagem da Clareira."}
        if request.agent.startswith("reviser"):
            return {"summary": text[-1000:]}  # keeps its lines as they were
        return {"outcome": "Nada acontece."}

    def addressed(self, line: str) -> list[str]:
        """Slots the line names by first name or by the description a stranger uses."""
        lowered = line.lower()
        found = []
        for slot, character in self.cast.items():
            first = character.body.display_name.split()[0].lower()
            described = character.body.description_ref.lower().split(" ", 1)[-1]
            if re.search(rf"\b{re.escape(first)}\b", lowered) or described in lowered:
                found.append(slot)
        return found

    def director(self, prompt: str) -> dict[str, Any]:
        """Queue whom the last spoken line addresses; stage nothing."""
        spoken = [m["text"] for line in prompt.splitlines() if (m := _SPEECH.match(line))]
        speakers = self.addressed(spoken[-1])[:1] if spoken else []
        return {
            "events": [],
            "next_speakers": speakers or [NARRATOR],
            "time_skip_ticks": 0,
            "nothing_happens": False,
        }

    @staticmethod
    def recall(prompt: str) -> str:
        """The earlier lines said aloud that share a word with the last one."""
        said = [m["text"] for line in prompt.splitlines() if (m := _SAID.match(line))]
        if not said:
            return "Hum."
        *earlier, last = said
        asked = _stems(last)
        quoted = [line for line in earlier if _stems(line) & asked]
        return ("Lembro: " + " / ".join(quoted[-3:]))[:590] if quoted else "Hum."
