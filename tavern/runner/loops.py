"""A Director event's text that says one of its clauses again ends before the repetition.

Reported as the change `event_loop`: vintners-wake soak #23 (seed 36, turn 7) committed "The
trapdoor to the cellar is sealed with a page. The trapdoor is sealed with a page, and the
trapdoor is sealed with a page." The cut is the filter rule `loop`'s for a reply's field
(`filters.loop.before_repeated_clause`, a stutter said once first), in the session's
language.
"""

from __future__ import annotations

from tavern.filters.loop import before_repeated_clause, without_stutter
from tavern.records import ClampChange, DirectorDecision
from tavern.text import Lexicon

EVENT_RULE = "event_loop"


def without_event_loops(
    decision: DirectorDecision, lexicon: Lexicon
) -> tuple[DirectorDecision, list[ClampChange]]:
    """`decision` with each event's text cut before its first repeated clause.

    >>> from tavern.records import PerceptionEvent
    >>> from tavern.text import lexicon_for
    >>> text = "The trapdoor is sealed with a page, and the trapdoor is sealed with a page."
    >>> d = DirectorDecision(events=[PerceptionEvent(kind="world_event", text=text)])
    >>> cut, changes = without_event_loops(d, lexicon_for("en"))
    >>> cut.events[0].text, [c.rule for c in changes]
    ('The trapdoor is sealed with a page', ['event_loop'])
    """
    changes: list[ClampChange] = []
    events = list(decision.events)
    for i, event in enumerate(events):
        cut = before_repeated_clause(without_stutter(event.text), lexicon)
        if cut != event.text:
            path = f"events[{i}].text"
            changes.append(ClampChange(rule=EVENT_RULE, path=path, before=event.text, after=cut))
            events[i] = event.model_copy(update={"text": cut})
    if not changes:
        return decision, []
    return decision.model_copy(update={"events": events}), changes
