"""Clamp `restated_event`: an event that only restates what everyone present already knows.

Two live soaks of the embedded 0.5B Director (24 turns): most beats carried events that
repeated a standing scene fact word for word ("The trapdoor to the cellar is shut and bolted
from the hall side.", five beats of twelve), or an event of an earlier beat. Each copy became
a memory line of every witness, so the small context filled with the same sentences, and
the human's screen showed them beat after beat. The facts are in every prompt already.

An event by a character whose attempt awaits adjudication stays when it is about that
attempt: it may be the outcome ("the trapdoor is bolted" after a pull at it); so does a world
event (no actor) about any waiting attempt. "About" is a word of four letters or more shared
(one inside the other: "door" and "trapdoor"), a fact's verb of placing aside
(`STANCE_WORDS`). Without it, a fourth soak (vintners-wake #10, turn 5) kept all three
standing facts as events of the human's "reaches for the door".
Only the attempts since the last Director call can wait (the human's of this beat, the
Characters' replies of the last, `recent_acts`, which clamp `agency` reads too): older ones
were adjudicated by a later Director call. (Characters state an attempt in most beats, so judging
by "any attempt waits" alone, as the time-skip clamp does, would have kept every restatement
of the second soak.) Texts compare as the spoken-copy rule compares them: case, spacing,
quotes and end punctuation aside, and with slot ids read as the names they stand for: live
(toll-house #18, seed 35, turn 7), "Ilse Brandt is presented to C2 and C3 in the toll house at
the river crossing." was committed six beats after the same event with the names written out.

A public text of the clamp context is standing too: live (vintners-wake #27, seed 41, turn 2)
the event "The Vintner's Wake", the session's title, was committed as the outcome of the
human's walk to the window.

An attempt told as done under its actor's name is known too: the same seed on stop 20's final
code (toll-house seed 40, turn 5) answered "reaches for the door" with "Ilse Brandt walks
slowly to the nearest window and looks outside", her turn-2 attempt, as its action_outcome.

One sentence of an earlier event, of `MIN_PART_WORDS` words or more, is known as well:
live (vintners-wake #29, seed 44, turn 6), the outcome "Agnese Corvo attempts to open the
trapdoor ... This does not succeed because the trapdoor was already closed and bolted from
the hall side." came back the next beat as an event of its second sentence alone, and again
two beats later; each was a memory line of every witness.

An action_outcome that only retells its actor's attempt (`attempt_retold`), or tells its
actor doing another character's (`act_borrowed`), or a new attempt joined to the actor's own
(`attempts_joined`), goes too (`physics.attempt_told`).

An event of several sentences is judged sentence by sentence too: each sentence that would
go as an event of its own is cut, and the rest stays. Live (vintners-wake #30, seed 45, turn
5), "reaches for the door" got "The trapdoor to the cellar is closed and bolted from the hall
side. The will is in the notary's satchel. The coffin lies open in the middle of the hall.":
its first sentence may be the outcome, the other two are standing facts about nothing she
attempted.

A bare outcome ("Ilse Brandt fails") of a character whose attempt waits stays, though an
earlier beat said the same words: it answers the new attempt (`bare_outcome`).

A known sentence told of another subject, its last `TAIL_WORDS` words the same, is known too
(the river's "too high to cross until dawn" said of the toll box); so is a standing fact told
with "is" for its verb of placing ("The toll box is now locked ..." for "sits locked":
`_as_placed`).

A recital goes even when an attempt waits: an event of two or more known sentences in a row
(the last one may be cut short), as in a third soak (vintners-wake #8, turn 6), where two
events told all three facts and began again until the length limit: "The trapdoor to the
cellar is shut and bolted from the hall side. The will is in the notary's satchel. The
coffin lies open in the middle of the hall. The trapd".
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from itertools import compress, repeat
from typing import TYPE_CHECKING

from tavern.physics.attempt_told import (
    act_borrowed,
    attempt_retold,
    attempts_joined,
    bare_attempt,
    bare_outcome,
)
from tavern.physics.awaiting import waiting_attempts
from tavern.physics.cast_refs import COPY_WINDOW, line_key
from tavern.physics.dropping import drop_events, rewrite_events
from tavern.physics.identity import display_names, with_names
from tavern.records import (
    ActionRecord,
    ClampChange,
    DirectorDecision,
    EventRecord,
    HistoryRecord,
    PerceptionEvent,
)

if TYPE_CHECKING:
    from tavern.physics.clamps import ClampContext

MIN_PART_WORDS = 6
"""Shorter sentences of an event recur in earnest ("The bell tolls twice.", "Nobody moves.")."""


STATE_ADVERBS = frozenset(("now", "still", "already", "again", "yet"))
"""Words that add no state to a restated fact: live (vintners-wake #31, seed 46, turns 1 and 5),
"The trapdoor to the cellar is now shut and bolted from the hall side" came as an event,
the standing fact "The trapdoor to the cellar is shut and bolted from the hall side." with
"now"."""


def fact_key(text: str) -> str:
    """`line_key` of `text` without `STATE_ADVERBS` and a closing clock time
    (`_CLOCK_TAIL`): what restatements are compared by.

    >>> fact_key("The trapdoor is NOW shut.") == fact_key("The trapdoor is shut")
    True
    >>> fact_key("The lamp has oil at 00:00:00.") == fact_key("The lamp has oil.")
    True
    """
    if ":" in text:
        text = _CLOCK_TAIL.sub("", text)
    key = line_key(text)
    words = key.split()
    if STATE_ADVERBS.isdisjoint(words):
        return key
    return " ".join(w for w in words if w not in STATE_ADVERBS)


_CLOCK_TAIL = re.compile(r"\s+at\s+\d{1,2}:\d{2}(?::\d{2})?(?:\s*[ap]\.?m\.?)?\s*[.!?]?\s*$", re.I)
"""A clock time closing a sentence: live (toll-house #63, seed 77, turn 1), the standing facts
came back as the events "The toll box is locked on the counting table at 00:00:00." and "The
lamp has perhaps two hours of oil at 00:00:00.", a time no prompt showed, and were
committed; toll-house #10 (seed 31) had thought one "at 0:00 AM"."""


def told_as_done(attempt: HistoryRecord, names: Mapping[str, str]) -> str:
    """The key of `attempt` told under its actor's name ("Ilse Brandt walks to the door")."""
    return fact_key(f"{names.get(attempt.speaker, attempt.speaker)} {attempt.text}")


def drop_restated_events(
    d: DirectorDecision, ctx: ClampContext
) -> tuple[DirectorDecision, list[ClampChange]]:
    """Drop events whose text is a standing scene fact, a public text of the context (the
    session title, a name, an appearance), an event of the last `COPY_WINDOW` records or an
    attempt among them told under its actor's name, unless they may be a waiting attempt's
    outcome."""
    if not d.events:
        return d, []
    recent = ctx.history[-COPY_WINDOW:]
    events = list(compress(recent, map(isinstance, recent, repeat(EventRecord))))
    names = display_names(ctx.cast or {})

    def named(text: str) -> str:
        return with_names(text, names)

    def key(record: HistoryRecord) -> str:
        return fact_key(named(record.text))

    names_items = tuple(names.items())
    standing = (*ctx.scene.facts, *ctx.public_texts)
    known = set(_standing_keys(standing, names_items))
    placed = _placed_keys(standing, names_items)
    known.update(key(r) for r in events)
    known.update(*(_part_keys(named(r.text)) for r in events))
    facts_and_events = list(known)  # attempts told as done are `act_borrowed`'s to judge

    def transplanted(text_key: str) -> bool:
        """Ends as a known sentence does, after words of its own ("This is the trapdoor
        ..." too); one quoting it ("Ilse taps the placard: 'Tolls paid in coin ...'") is
        no restatement."""
        tail = _tail(text_key)
        if tail is None:
            return False
        # A known key with a word before the same tail (C-level scans: no index to build).
        ending = " " + " ".join(tail)
        if not any(k.endswith(ending) for k in facts_and_events):
            return False
        head = text_key.rsplit(maxsplit=TAIL_WORDS)[0]
        return not _QUOTING.search(head)

    tried = list(compress(recent, map(isinstance, recent, repeat(ActionRecord))))
    known.update(told_as_done(r, names) for r in tried)
    waiting = waiting_attempts(recent, ctx.turn_number)

    def goes(ev: PerceptionEvent) -> bool:
        text = named(ev.text)
        if ev.actor_id is not None:
            name = names.get(ev.actor_id, ev.actor_id)
            own = [a.text for a in tried if a.speaker == ev.actor_id]
            others = [a.text for a in tried if a.speaker != ev.actor_id]
            if attempt_retold(text, name, own) or act_borrowed(text, name, own, others):
                return True
            if ev.kind == "action_outcome" and (
                bare_attempt(text, name) or attempts_joined(text, name, own)
            ):
                return True
        if _recites(text, known):
            return True
        text_key = fact_key(text)
        if (
            text_key not in known
            and not transplanted(text_key)
            and not (placed and _as_placed(text_key) in placed)
        ):
            return False
        if ev.actor_id is not None:
            attempts = waiting.get(ev.actor_id, [])
            if attempts and bare_outcome(text, names.get(ev.actor_id, ev.actor_id)):
                return False
        else:
            attempts = [text for texts in waiting.values() for text in texts]
        return not any(_about(ev.text, attempt) for attempt in attempts)

    d, changes = drop_events(d, "restated_event", goes)
    return _without_restated_sentences(d, changes, goes)


def _without_restated_sentences(
    d: DirectorDecision, changes: list[ClampChange], goes: Callable[[PerceptionEvent], bool]
) -> tuple[DirectorDecision, list[ClampChange]]:
    """`d` with each kept event of two or more sentences cut to the sentences that would
    stay as events of their own; an event whose rest would go as a whole goes too."""

    def rewrite(ev: PerceptionEvent) -> str:
        sentences = _SENTENCE_BREAK.split(ev.text.strip())
        if len(sentences) < 2:
            return ev.text
        kept = [t for t in sentences if not goes(ev.model_copy(update={"text": t}))]
        if len(kept) == len(sentences):
            return ev.text
        text = " ".join(kept)
        return text if kept and not goes(ev.model_copy(update={"text": text})) else ""

    d, cut = rewrite_events(d, "restated_event", rewrite)
    return d, changes + cut


TAIL_WORDS = 6
"""Last words a sentence shares with a known one, after words of its own, that make it the
known one told again, of another subject or with words before it: live (toll-house #34, seed
48, turns 5 and 8), the standing fact "The river is too high to cross until dawn." came back
as the events "The toll house at Low Water is too high to cross until dawn." and "The toll box
is too high to cross until dawn.", each a memory line of every witness and false; and
(vintners-wake #33's rerun, seed 48, turn 6) "This is the trapdoor to the cellar is shut and
bolted from the hall side."."""


_QUOTING = re.compile(r"[:'\"“”‘’«»]")
"""What opens a quotation before a sentence's last words."""


@lru_cache(maxsize=4096)
def _tail(key: str) -> tuple[str, ...] | None:
    """The last `TAIL_WORDS` words of a key that has more, else None.

    >>> _tail("the toll box is too high to cross until dawn")
    ('too', 'high', 'to', 'cross', 'until', 'dawn')
    """
    words = key.split()
    return tuple(words[-TAIL_WORDS:]) if len(words) > TAIL_WORDS else None


@lru_cache(maxsize=32)
def _standing_keys(texts: tuple[str, ...], names: tuple[tuple[str, str], ...]) -> frozenset[str]:
    """Keys of the standing texts, slot ids read as names: the same on every call of a beat
    and of most beats (the stage and the cast change seldom)."""
    named = dict(names)
    return frozenset(fact_key(with_names(t, named)) for t in texts if t)


@lru_cache(maxsize=32)
def _placed_keys(texts: tuple[str, ...], names: tuple[tuple[str, str], ...]) -> frozenset[str]:
    """`_standing_keys` of the standing texts that place a thing with a `STANCE_WORDS` verb,
    that verb read as "is" (`_as_placed`)."""
    keys = _standing_keys(texts, names)
    return frozenset(_as_placed(k) for k in keys if not STANCE_WORDS.isdisjoint(k.split()))


def _as_placed(key: str) -> str:
    """`key` with its verbs of placing read as "is": a standing fact told with "is" for its
    "sits" is the fact again. Live (toll-house #59, seed 73, turn 1), "The toll box is now
    locked on the counting table." for the fact "The toll box sits locked on the counting
    table." was committed as an event of the human's greeting and narrated.

    >>> _as_placed("the toll box sits locked on the counting table")
    'the toll box is locked on the counting table'
    """
    return " ".join("is" if w in STANCE_WORDS else w for w in key.split())


_SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+")


_PART_BREAK = re.compile(r"(?<=[.!?;])\s+")
"""Where an event's parts end: its sentences, and clauses after a semicolon (live,
vintners-wake #32, seed 47, turn 8: "By custom the will must now be read aloud over the
coffin." came as an event, the second clause of turn 5's "The chapel bell tolls midnight; by
custom the will must now be read aloud over the coffin.")."""


def _part_keys(text: str) -> frozenset[str]:
    """The keys of the parts of `text` (`_PART_BREAK`) with `MIN_PART_WORDS` words or more,
    when it has more than one (a one-part event is known by its own key)."""
    sentences = _PART_BREAK.split(text.strip())
    if len(sentences) < 2:
        return frozenset()
    keys = map(fact_key, sentences)
    return frozenset(k for k in keys if len(k.split()) >= MIN_PART_WORDS)


def _recites(text: str, known: set[str]) -> bool:
    """Whether `text` is two or more known sentences in a row, or clauses (`_CLAUSE_LIST`),
    its last one maybe cut short by the length limit: a recital of the facts is no attempt's
    outcome. Live (vintners-wake #60, seed 76, turn 5), the follow-up answered "reaches for
    the door" with "The trapdoor to the cellar is shut and bolted from the hall side, the will
    is in the notary's satchel, the coffin lies open in the middle of the hall, and the
    trapdoor to the cellar is shut and bolted", committed since "door" is in "trapdoor"."""
    stripped = text.strip()
    if _all_known(_SENTENCE_BREAK.split(stripped), known):
        return True
    if "," not in stripped and ";" not in stripped:
        return False
    first = _FIRST_CLAUSE.match(stripped)  # most texts open with no known clause: no split
    return (
        first is not None
        and fact_key(first[0]) in known
        and _all_known(_CLAUSE_LIST.split(stripped), known)
    )


_FIRST_CLAUSE = re.compile(r"[^,;.!?]+")


_CLAUSE_LIST = re.compile(r"(?:(?<=[.!?])|\s*[,;])\s+(?:and\s+)?")
"""Where a list of sentences or clauses breaks: a sentence's end, or a comma or semicolon
with an "and" after it or not."""


def _all_known(parts: Sequence[str], known: set[str]) -> bool:
    """Whether there are two `parts` or more, each known but the last, which may also begin a
    known one. Read part by part: most texts fail on their first."""
    if len(parts) < 2:
        return False
    *whole, last = parts
    for part in whole:
        if fact_key(part) not in known:
            return False
    key = fact_key(last)
    return bool(key) and (key in known or any(k.startswith(key) for k in known))


_CONTENT_WORD = re.compile(r"[^\W\d_]{4,}")
_FUNCTION_WORDS = frozenset(
    "with from that this into onto over upon them then than they have been were what when"
    " where your their there here some once just very each also"
    " outside inside beside aside alongside toward towards within without behind across"
    " around before after".split()
)
"""Small words and the adverbs of place that hold a noun: live (vintners-wake #29, seed 44,
turn 2), the standing fact "The trapdoor to the cellar is shut and bolted from the hall
side." was kept as the outcome of "walks slowly to the nearest window and looks outside",
"side" being inside "outside"."""


def content_words(text: str) -> set[str]:
    """The lower-cased words of four letters or more of `text`, small words aside.

    >>> sorted(content_words("They reach for the trapdoor"))
    ['reach', 'trapdoor']
    """
    return set(_CONTENT_WORD.findall(text.casefold())) - _FUNCTION_WORDS


def shares_a_word(one: set[str], other: set[str]) -> bool:
    """Whether a word of `one` is inside a word of `other` or the other way round."""
    return any(a in b or b in a for a in one for b in other)


STANCE_WORDS = frozenset("sits lies stands hangs rests leans".split())
"""The verbs a fact places a thing with ("The toll box sits locked"), which an attempt uses of
its actor's body ("sits down by the fire"): such a word of a fact ties it to no attempt. Live
(toll-house #57, seed 71, turn 9), the standing fact "The toll box sits locked on the counting
table." was committed as the outcome of the human's "sits down by the fire"."""


def _about(fact: str, attempt: str) -> bool:
    """Whether a restated `fact` may be the outcome of `attempt`: a word of four letters or
    more of one is in a word of the other ("door" of "reaches for the door" and "trapdoor" of
    "The trapdoor is shut and bolted"), the fact's `STANCE_WORDS` aside."""
    return shares_a_word(content_words(fact) - STANCE_WORDS, content_words(attempt))
