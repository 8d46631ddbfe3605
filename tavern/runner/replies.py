"""What of a Character's answer is said: the reply filters, in the order they run.

Each filter owns one way the embedded model's answers stepped out of a person's own words
(its module tells the live cases); each returns the reply with what it refused taken out, or
None when nothing is left, and a reply left empty says nothing this beat. The order matters:
words of an assistant and of the prompt go first (`in_world`), then recitals of the sheet
(`recited_look`), a greeting of oneself (`self_address`), loops and intents naming no act
(`loops`, `no_act`), and last what the speaker heard or saw this beat said back (`echo`),
which must judge the reply as it will be said.
"""

from __future__ import annotations

from collections.abc import Sequence

from tavern.agents.prose import cast_names
from tavern.records import CharacterReply, HistoryRecord, SessionState
from tavern.runner.echo import without_echo
from tavern.runner.in_world import in_world
from tavern.runner.loops import without_loops
from tavern.runner.no_act import traits, without_empty_intent
from tavern.runner.recited_look import look_runs, without_recited_looks, without_recited_secrets
from tavern.runner.self_address import without_self_greeting


def said_reply(
    reply: CharacterReply, staged: SessionState, slot: str, heard: Sequence[HistoryRecord]
) -> CharacterReply | None:
    """What `slot` says of `reply` (see the module); `heard`: the records it perceived this
    beat before answering. None when nothing is left."""
    member = staged.cast[slot]
    said = in_world(reply)
    if said is not None:
        looks = look_runs(tuple(c.body.appearance for c in staged.cast.values()))
        said = without_recited_looks(said, looks)
    if said is not None:
        said = without_recited_secrets(said, tuple(member.mind.secrets))
    if said is not None:
        said = without_self_greeting(said, member.body.display_name)
    if said is not None:
        said = without_empty_intent(
            without_loops(said),
            cast_names(staged),
            traits(member.mind.personality),
            (member.body.appearance, member.mind.personality),
        )
    if said is not None:
        said = without_echo(said, heard, slot)
    return said
