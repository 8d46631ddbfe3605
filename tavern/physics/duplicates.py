"""Duplicates: an event tells nothing its witnesses were not already told.

One clamp, `duplicate_event`, on the one sentence key (`tavern.text.sentence_key`), in three
readings. A loop within an event's text is cut from its first repeated clause
(`MIN_CLAUSE_WORDS`), and a run of two to six words said twice is said once. A restatement
goes: a sentence whose key is a standing fact's, a public text's, or that of an event (or
its sentence or clause, `MIN_PART_WORDS`) or settled attempt of the last `COPY_WINDOW`
records, also when it ends as one after words of its own (`TAIL_WORDS`); unless it may be
the outcome of a waiting attempt (it shares a word with one, or is a bare outcome). A
recital of two told sentences in a row goes whatever waits. A repeat within the beat (same
actor, same key) merges into the first event, which takes the union of the witnesses; a
later event of the same actor saying nothing new goes.

Example: beside the standing fact "The river is too high to cross until dawn.", the event
"The toll box is too high to cross until dawn." goes, and so does "Rain falls. Rain falls."'s
second sentence.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from tavern.physics.awaiting import (
    about_words,
    attempt_records,
    shares_a_word,
    waiting_attempts,
)
from tavern.physics.copied import COPY_WINDOW
from tavern.physics.identity import display_names, with_names
from tavern.physics.outcomes import act_stem, bare_outcome
from tavern.physics.quotations import QUOTATION
from tavern.physics.redaction import MASK, salient_tokens
from tavern.records import (
    ActionRecord,
    ClampChange,
    DirectorDecision,
    EventRecord,
    PerceptionEvent,
)
from tavern.text import (
    Lexicon,
    content_words,
    lexicon_for,
    sentence_key,
    sentences,
    without_sentences,
    words,
)

if TYPE_CHECKING:
    from tavern.physics.clamps import ClampContext

Changes = list[ClampChange]
MIN_CLAUSE_WORDS = 4
"""Shorter repeats are said in earnest ("No, no, no!", "Open it, open it.")."""
MIN_PART_WORDS = 6
"""Shorter sentences of an event recur in earnest ("The bell tolls twice.", "Nobody moves.")."""
TAIL_WORDS = 6
"""Last words of a known text that, after words of its own, make a sentence that text again."""
SAME_SHARE = 0.75
"""Shared words over both events' words above which a later event is the earlier told again."""
_CLAUSE = re.compile(r"[^,;.!?…]+[,;.!?…]*")
STUTTER = re.compile(r"\b(\w+(?:[ \t]+\w+){1,5}?)(?:[ \t]+\1\b)+", re.IGNORECASE)
"""A run of two to six words (the shortest that repeats), then one or more copies of it."""
_CLOCK_TAIL = re.compile(
    r"\s+\w{1,3}\s+\d{1,2}:\d{2}(?::\d{2})?(?:\s*[ap]\.?m\.?)?\s*[.!?]?\s*$", re.I
)
"""A clock time closing a sentence ("... at 00:00:00."): no prompt shows one."""
_CLAUSES = re.compile(r"(?:(?<=[.!?])|\s*[,;])\s+")
_PARTS = re.compile(r"(?<=[.!?;])\s+")
_QUOTING = re.compile(r"[:\"“”«»]")


def before_repeated_clause(text: str, lexicon: Lexicon) -> str:
    """`text` said once, up to its first long clause that repeats an earlier one.

    >>> en = lexicon_for("en")
    >>> before_repeated_clause("open the box on the table, open the box on the table again", en)
    'open the box on the table'
    >>> before_repeated_clause("No, no, no!", en)
    'No, no, no!'
    >>> before_repeated_clause("A porta range, e a porta range de novo.", lexicon_for("pt-BR"))
    'A porta range'
    """
    text = STUTTER.sub(r"\1", text)
    seen: set[str] = set()
    for match in _CLAUSE.finditer(text):
        clause = match.group().strip()
        first, _, rest = clause.partition(" ")
        if first.casefold() in lexicon.conjunctions:
            clause = rest
        key = sentence_key(clause, lexicon)
        if key in seen and len(words(clause)) >= MIN_CLAUSE_WORDS:
            return text[: match.start()].rstrip().rstrip(",;")
        seen.add(key)
    return text


class _Window:
    """What the beat's witnesses were already told, as sentence keys, and the attempts
    waiting (see the module)."""

    def __init__(self, ctx: ClampContext, lex: Lexicon) -> None:
        self.lex = lex
        self.names = display_names(ctx.cast or {})
        recent = ctx.history[-COPY_WINDOW:]
        self.waiting = waiting_attempts(recent, ctx.turn_number)
        standing = [t for t in (*ctx.scene.facts, *ctx.public_texts) if t]
        being = lex.placing | lex.progressive_auxiliaries
        self.placed = {
            self.placed_key(k) for k in map(self.key, standing) if being & set(k.split())
        }
        told = [r.text for r in recent if isinstance(r, EventRecord)]
        self.whole = {self.key(t) for t in (*standing, *told)}
        parts = {
            key
            for text in told
            if len(found := _PARTS.split(text.strip())) > 1
            for key in map(self.key, found)
            if len(key.split()) >= MIN_PART_WORDS
        }
        waiting = {r.seq for r in attempt_records(recent, ctx.turn_number)}
        attempts = {
            self.key(f"{self.names.get(r.speaker, r.speaker)} {r.text}")
            for r in recent
            if isinstance(r, ActionRecord) and r.seq not in waiting
        }
        self.known = self.whole | parts | attempts

    def key(self, text: str) -> str:
        """`text` as restatements compare: slot ids read as names, a closing clock time
        aside, then the sentence key."""
        return sentence_key(_CLOCK_TAIL.sub("", with_names(text, self.names)), self.lex)

    def placed_key(self, key: str) -> str:
        """`key` with its verbs of placing and of being read alike ("sits" ~ "is")."""
        alike = self.lex.placing | self.lex.progressive_auxiliaries
        return " ".join("·" if w in alike else w for w in key.split())

    def told(self, sentence: str) -> bool:
        """Whether `sentence` is a known text, ends as one does after words of its own, or
        is a standing fact with its verb of placing told as being."""
        key = self.key(sentence)
        if not key:
            return False
        if key in self.known or self.placed_key(key) in self.placed:
            return True
        said = key.split()
        if len(said) <= TAIL_WORDS or _QUOTING.search(sentence) or QUOTATION.search(sentence):
            return False
        tail = " " + " ".join(said[-TAIL_WORDS:])
        return any(k.endswith(tail) for k in self.whole)

    def recites(self, text: str) -> bool:
        """Whether `text` is two or more known sentences or clauses in a row, the last
        perhaps cut short: a recital answers no attempt."""
        for parts in (sentences(text), _CLAUSES.split(text.strip())):
            keys = [self.key(p.removeprefix("and ").removeprefix("e ")) for p in parts]
            if len(keys) < 2 or not keys[-1] or not all(k in self.known for k in keys[:-1]):
                continue
            if keys[-1] in self.known or any(k.startswith(keys[-1]) for k in self.known):
                return True
        return False

    def may_answer(self, sentence: str, actor: str | None) -> bool:
        """Whether a told `sentence` may be the outcome of a waiting attempt (see the
        module)."""
        if actor is not None:
            attempts = self.waiting.get(actor, [])
            name = self.names.get(actor, actor)
            if attempts and bare_outcome(with_names(sentence, self.names), name, self.lex):
                return True
        else:
            attempts = [text for texts in self.waiting.values() for text in texts]
        said = about_words(sentence, self.lex) - self.lex.placing
        return any(shares_a_word(said, about_words(a, self.lex)) for a in attempts)

    def restated(self, sentence: str, actor: str | None) -> bool:
        return self.told(sentence) and not self.may_answer(sentence, actor)

    def without_restated(self, text: str, actor: str | None) -> str:
        """`text` without what it restates; "" when nothing of it is news."""
        if self.recites(text) or self.restated(text, actor):
            return ""
        kept = without_sentences(text, lambda sentence: self.restated(sentence, actor))
        return "" if kept != text and kept and self.restated(kept, actor) else kept


def _merge_key(text: str, lex: Lexicon) -> tuple[tuple[str, ...], frozenset[str]]:
    """A text as repeats within a beat compare: its sentence key with the masks in place,
    and its salient words (so merged copies show their witnesses the same words)."""
    return tuple(sentence_key(part, lex) for part in text.split(MASK)), salient_tokens(text)


def told_again(later: str, earlier: str, lex: Lexicon) -> bool:
    """Whether `later` says no content word `earlier` did not (verbs of attempting aside),
    keeps most of its words and negates as it does.

    >>> en = lexicon_for("en")
    >>> told_again("Ilse tries this, walks to the nearest window and looks outside.",
    ...            "Ilse walks to the nearest window and looks outside", en)
    True
    >>> told_again("Maren lifts the lamp and smashes it", "Maren lifts the lamp", en)
    False
    >>> told_again("The trapdoor is not shut", "The trapdoor is shut", en)
    False
    """

    def stems(text: str) -> set[str]:
        return {act_stem(w, lex.language) for w in content_words(text, lex)}

    said, told = stems(later), stems(earlier)
    trying = {act_stem(w, lex.language) for w in lex.attempting} | {"thi", "this", "isso"}
    if not said or not said - told <= trying:
        return False
    if len(said & told) < SAME_SHARE * len(said | told):
        return False
    negations = [
        sum(w in lex.negations or w.endswith("n't") for w in words(t)) for t in (later, earlier)
    ]
    return negations[0] == negations[1]


def drop_duplicate_events(
    d: DirectorDecision, ctx: ClampContext
) -> tuple[DirectorDecision, Changes]:
    """Cut or drop what an event tells again: a loop in its text, a restatement of the
    window, a repeat of an earlier event of the beat (merged into it)."""
    if not d.events:
        return d, []
    lex = lexicon_for(ctx.language)
    window = _Window(ctx, lex)
    changes: Changes = []
    kept: list[tuple[int, PerceptionEvent]] = []
    for i, ev in enumerate(d.events):
        text = before_repeated_clause(ev.text, lex)
        text = window.without_restated(text, ev.actor_id) if text else text
        if not text:
            changes.append(_dropped(i, ev))
            continue
        current = ev if text == ev.text else ev.model_copy(update={"text": text})
        key = _merge_key(text, lex)
        same = next(
            (at for at, (_, k) in enumerate(kept)
             if k.actor_id == ev.actor_id and _merge_key(k.text, lex) == key),
            None,
        )  # fmt: skip
        if same is not None:
            j, first = kept[same]
            witnesses = list(dict.fromkeys([*first.witness_ids, *current.witness_ids]))
            ref = first.utterance_ref if first.utterance_ref == current.utterance_ref else None
            kept[same] = (
                j,
                first.model_copy(update={"witness_ids": witnesses, "utterance_ref": ref}),
            )
            changes.append(_dropped(i, ev))
            continue
        if any(
            k.actor_id == ev.actor_id
            and set(current.witness_ids) <= set(k.witness_ids)
            and told_again(text, k.text, lex)
            for _, k in kept
        ):
            changes.append(_dropped(i, ev))
            continue
        if text != ev.text:
            changes.append(
                ClampChange(
                    rule="duplicate_event", path=f"events[{i}].text", before=ev.text, after=text
                )
            )
        kept.append((i, current))
    for j, event in kept:
        original = d.events[j]
        merged = original.model_copy(update={"text": event.text})
        if event != merged:
            changes.append(
                ClampChange(
                    rule="duplicate_event", path=f"events[{j}]",
                    before=merged.model_dump(), after=event.model_dump(),
                )
            )  # fmt: skip
    if not changes:
        return d, []
    return d.model_copy(update={"events": [event for _, event in kept]}), changes


def _dropped(i: int, ev: PerceptionEvent) -> ClampChange:
    return ClampChange(
        rule="duplicate_event", path=f"events[{i}]", before=ev.model_dump(), after=None
    )
