"""A character's own sheet and words, rendered in the names that character knows.

A sheet may mention other characters by their true names ("Tomas owes me money"); the
character did not necessarily learn those names in play. Its own prompt and its own output
therefore pass through `physics.identity.render_for_viewer`, so that no character ever uses
a name it did not learn (an unlearned name becomes the description it knows them by).
"""

from __future__ import annotations

from tavern.physics.identity import render_for_viewer
from tavern.records import Character, CharacterReply, SessionState


def own_sheet(state: SessionState, slot: str) -> Character:
    """The slot's sheet with its mind rendered through its own ledger."""
    sheet = state.cast[slot]
    ledger = state.ledgers.get(slot)
    if ledger is None:
        return sheet

    def own(text: str) -> str:
        return render_for_viewer(text, slot, ledger, state.cast)

    mind = sheet.mind.model_copy(
        update={
            "personality": own(sheet.mind.personality),
            "secrets": [own(s) for s in sheet.mind.secrets],
            "goals": [own(g) for g in sheet.mind.goals],
        }
    )
    return sheet.model_copy(update={"mind": mind})


def own_reply(state: SessionState, slot: str, reply: CharacterReply) -> CharacterReply:
    """The reply with unlearned names and raw ids rewritten into the slot's own references."""
    ledger = state.ledgers.get(slot)
    if ledger is None:
        return reply

    def own(text: str | None) -> str | None:
        return render_for_viewer(text, slot, ledger, state.cast) if text else text

    return CharacterReply(
        speech=own(reply.speech), thought=own(reply.thought), action_intent=own(reply.action_intent)
    )
