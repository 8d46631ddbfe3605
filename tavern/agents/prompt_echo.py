"""Narration that copies the renderer's prompt instead of telling the story.

The embedded 0.5B model, live, wrote two kinds of sentence that tell a reader nothing of the
story and show the machinery behind it:
- the transcript's content-free attempt marker, "(Teodor Vask makes an attempt.)", as prose:
  "Teodor Vask makes an attempt." and "Ilse Brandt and Maren Holt make attempts to make an
  attempt." (toll-house soaks #3 and #4, turns 3, 5, 7, 8), or without its make-verb,
  "(Dorotea Sand attempts to...)" (vintners-wake #57, seed 73, turn 10); and its speech
  marker, "(Agnese Corvo speaks.)": "Agnese Corvo speaks. Someone speaks. Someone speaks."
  (vintners-wake soak #23, seed 36, turn 5; the reader has the line itself on screen);
- a labelled line of the scene block: "Present: Agnese Corvo in the long hall with the open
  coffin; Brother Caspar in ..." (vintners-wake soaks #8 and #9, turns 3 and 10);
- the session title, the transcript's first line, as a sentence of its own: "The Vintner's
  Wake" as the whole narration of a first beat (vintners-wake soaks #7, #8 and #9), "The
  Vintner's Wake. A stone house: ..." (#9, turn 6); or as a sentence's heading, before a
  dash, colon or comma, which alone goes (`without_title_heading`);
- the empty beat's placeholder, "Nothing material happens.", as "No material happens." (the
  whole narration of vintners-wake soak #13, turn 7);
- the mask of the words it may not read, copied from an event of its prompt: "Teodor Vask
  tries to [...] the toll box." (toll-house soak #16, seed 33, turn 8), a sentence the reader
  cannot follow and the human's screen showed;
- the scene block's staging without its label: "In the vintner's house on the hill, Agnese
  Corvo in the long hall with the open coffin; Brother Caspar in the long hall with the open
  coffin; Lio Mendez in the vaulted wine cellar ..." (vintners-wake soak #13, turns 3 and 4),
  or as sentences: "Lio Mendez in the vaulted wine cellar beneath the hall. Dorotea Sand in
  the long hall with the open coffin. Felix Aubert in the narrow balcony above the hall."
  (vintners-wake soak #22, seed 35, turn 7);
- an outcome event's bare word, "(event) Fails", as a sentence with nobody who failed:
  "Fails." was the narration of vintners-wake soak #31's rerun (seed 46) on turns 3 and 4,
  after the turn-2 event "Fails" (a sentence with its actor's name, "Agnese Corvo fails.",
  stays);
- the time-skip marker, "(Time passes.)", as a sentence: "Time passes." was the whole
  narration of toll-house soak #32 (seed 46, turn 8), a beat in which no time passed, copied
  from turn 1's marker (the reader's screen shows the marker of a beat that skips time);
- an earlier outcome's pronoun and bare word opening the narration, "It succeeds.", which
  points at nothing (`_orphan_outcome`);
- the stage's zone links told as a fact, "the sound of the trapdoor is sealed"
  (`LINK_STAGING`);
- a speech or whisper marker with the session's title as its speaker: "The Vintner's Wake
  whispers something." (vintners-wake #35's rerun, seed 50, turn 6: Agnese Corvo had
  whispered). A cast member's "Agnese Corvo whispers something." stays, as it stood.

A line break ends a sentence here: the transcript's lines have no stops of their own, and
vintners-wake #22 (turn 3) copied two of them, "The Vintner's Wake\n\nAgnese Corvo makes an
attempt.", which read as one sentence and was shown as "The Vintner's Wake Agnese Corvo makes
an attempt."

`drop_prompt_echo` removes such sentences. Each test is narrow, because what it removes is
only ever a sentence a story would not contain: a marker sentence holds nothing but names and
the marker's own words ("Maren Holt makes an attempt, and the lamp goes out." stays); a label
is the prompt's own, capitalised and followed by a colon; a title sentence is the title and
nothing else; a staging copy holds two or more parts, between semicolons, in which a name is
followed by "in" ("Brother Caspar in the long hall"), the staging line's own form, or is one
of those parts as a sentence, word for word (`staging`: "Lio Mendez in the long hall" stays
copied, "Lio Mendez in the cellar listens." is a story's sentence).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from tavern.agents.repetition import sentence_spans
from tavern.physics.attempt_told import BARE_OUTCOMES
from tavern.physics.redaction import MASK

_WORDS = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*")

_MARKER_WORDS = frozenset(
    "make makes made making an attempt attempts and then both each all also again to "
    "someone somebody he she they it".split()
)
"""What a sentence made from the attempt marker holds besides names."""
_MARKER_VERBS = frozenset("make makes made making".split())
_ATTEMPT_ONLY = frozenset("attempt attempts to and both".split())
"""What a sentence made from the attempt marker holds besides names when the model left out
its make-verb: live (vintners-wake #57, seed 73, turn 10), "(Dorotea Sand attempts to...)"
was the whole committed narration. "Maren Holt attempts it again." points at an act, and
stays."""
_EMPTY_BEAT_WORDS = frozenset("no nothing material happens happen happened here this beat".split())
"""What a copy of the empty beat's placeholder holds ("No material happens.")."""
_MARKER_NOUNS = frozenset(("attempt", "attempts"))
_TIME_MARKER_WORDS = frozenset("the time passes passed pass some a little while then and".split())
_PASSING = frozenset(("passes", "passed", "pass"))
"""What a sentence made from the time-skip marker, "(Time passes.)", holds."""
_SPEECH_MARKER_WORDS = frozenset(("speaks", "speak", "someone", "and"))
"""What a sentence made from the speech marker holds besides names."""
_TITLED_MARKER_WORDS = frozenset(("speaks", "whispers", "something"))
"""What a speech or whisper marker holds besides its speaker, when the speaker is the title."""

PROMPT_LABEL = re.compile(
    r"\b(?:Location|Facts|Present):|\(event\)|\bEvent:|^#{2,} |(?:^|(?<=[.!?;] ))event (?=[A-Z])|"
    + re.escape(MASK),
    re.MULTILINE,
)
"""The scene block's labels, the transcript's event tag (also as "Event:": the narration of
vintners-wake soak #32, seed 47, turn 4, was "Event: Agnese Corvo whispers ...", turn 2's
event again; and bare, "event The chapel bell tolls midnight; ... event Agnese Corvo reaches
for the door ...", vintners-wake #54, seed 70, turn 5), a prompt block's heading, and the
mask that stands in the prompt for words the renderer may not read."""


LINK_GAP_WORDS = 6
"""Words between "sound" or "sight" and its "is sealed": live (vintners-wake #56, seed 72,
turn 2), "The sound of the trapdoor to the cellar is sealed and ..." told the link twice in
each of three sentences, six words apart; five, the first bound, let them all through."""
LINK_STAGING = re.compile(
    r"\b(?:sound|sight)s?\s+(?:sealed|open)\b"
    rf"|\b(?:sound|sight)s?\b(?:\s+[\w'’]+){{0,{LINK_GAP_WORDS}}}?\s+"
    r"(?:is|are|was|were|remains?|remained|stays?"
    r"|stayed)\s+(?:still\s+|now\s+|also\s+)?(?:sealed|open)\b",
    re.IGNORECASE,
)
"""The stage's zone links ("from hall to cellar: sound sealed, sight sealed") told as a fact
of the story: live (vintners-wake #52, seed 68, turn 2), "The room is still locked, and the
sound of the trapdoor is sealed. ... The sound of the trapdoor is sealed.", and "the sound is
sealed" in #51's turns 2 and 7. Links say what carries between rooms, for the kernel's
audiences; no reader's story says a sound is sealed. "No sound came from the sealed
cellar." stays."""


def drop_prompt_echo(
    text: str, names: Sequence[str], title: str = "", staging: Sequence[str] = ()
) -> str:
    """`text` without its sentences that copy the prompt (see the module); `names` are the
    names the prompt gives the cast (each of their words counts as a name), `title` the
    session's title, `staging` the parts of the prompt's staging line ("Lio Mendez in the
    vaulted wine cellar beneath the hall").

    >>> drop_prompt_echo("Teodor Vask makes an attempt. The lamp dies.", ["Teodor Vask"])
    'The lamp dies.'
    >>> drop_prompt_echo("Maren stands. Present: Maren in the hall.", ["Maren Holt"])
    'Maren stands.'
    >>> drop_prompt_echo("The Wake. Rain falls.", [], title="The Wake")
    'Rain falls.'
    >>> drop_prompt_echo("Maren Holt in the hall. Rain.", [], staging=["Maren Holt in the hall"])
    'Rain.'
    """
    text = without_title_heading(without_brackets(text), title)
    folded = text.casefold()
    if (
        "attempt" not in folded
        and "speak" not in folded
        and "material" not in folded
        and "pass" not in folded
        and "fail" not in folded
        and "succeed" not in folded
        and "##" not in text
        and ";" not in text
        and PROMPT_LABEL.search(text) is None
        and LINK_STAGING.search(text) is None
        and not _holds_words(text, folded, (title, *staging))
    ):
        return text  # most narrations: a few passes, no sentence split
    return cut_copies(text, names, title, staging)


_BRACKETED = re.compile(r"(^|[.!?…]\s+|\n\s*)\(([^()]*?[.!?…])\)(?=\s|$)")


def without_brackets(text: str) -> str:
    """`text` with the parentheses taken off each run of whole sentences they enclose: the
    transcript's lines in the prompt are so written ("(Agnese Corvo speaks.)"), and live
    (vintners-wake #61, seed 77, turn 2) the renderer narrated an event of its beat so, "(Dorotea
    Sand attempts to read the will at midnight as the law requires, ... She succeeds and
    remains silent.)", which the reader saw in brackets. The sentences inside are then judged
    like any other (a marker goes). A parenthesis inside a sentence stays.

    >>> without_brackets("Rain. (Maren Holt opens the box. It is empty.) The lamp dies.")
    'Rain. Maren Holt opens the box. It is empty. The lamp dies.'
    >>> without_brackets("Maren (the keeper) nods.")
    'Maren (the keeper) nods.'
    """
    if "(" not in text:
        return text
    return _BRACKETED.sub(lambda m: m.group(1) + m.group(2), text)


def without_title_heading(text: str, title: str) -> str:
    """`text` with the session `title` taken off the front of each sentence it heads, before
    a dash, colon or comma: vintners-wake soaks #27 and #28 (seeds 41 and 42, turns 3 to 5)
    narrated "The Vintner's Wake - The chapel bell tolls midnight; ..." and "The Vintner's
    Wake, the trapdoor to the cellar is shut ...".

    >>> without_title_heading("The Wake - the bell tolls. The Wake: rain.", "The Wake")
    'The bell tolls. Rain.'
    >>> without_title_heading("They speak of the wake, the bell, the will.", "The Wake")
    'They speak of the wake, the bell, the will.'
    """
    if not title or title.casefold() not in text.casefold():
        return text
    return _title_heading(title).sub(lambda m: m.group(1) + m.group(2).upper(), text)


@lru_cache(maxsize=16)
def _title_heading(title: str) -> re.Pattern[str]:
    return re.compile(rf"(^\s*|[.!?…]\s+){re.escape(title)}\s*[-–—:,]\s*(\w)", re.IGNORECASE)


def _holds_words(text: str, folded: str, parts: tuple[str, ...]) -> bool:
    """Whether the words of one of `parts` (one or more) are in `text` (`folded` is its
    casefold), in a row."""
    # A word of a part found in a row lies inside a word of `folded`: a part with a word
    # that `folded` lacks cannot be there, and then the text's words need not be read.
    wanted = [joined for joined, words in _parts_words(parts) if all(w in folded for w in words)]
    if not wanted:
        return False
    plain = " ".join(_words(text))
    return any(joined in plain for joined in wanted)


@lru_cache(maxsize=16)  # the title and the staging line change seldom
def _parts_words(parts: tuple[str, ...]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Each part with words, as its words joined by spaces, and its words."""
    return tuple((" ".join(words), tuple(words)) for part in parts if (words := _words(part)))


def cut_copies(
    text: str, names: Sequence[str], title: str = "", staging: Sequence[str] = ()
) -> str:
    """`drop_prompt_echo` without its shortcut for a text that cannot hold a copy; `text`
    itself when no sentence goes."""
    name_words = frozenset(w for name in names for w in _words(name))
    title_words = frozenset(_words(title)) - name_words
    copies = {tuple(_words(title))} | {tuple(_words(part)) for part in staging}
    copies.discard(())
    spans = _lines_of(text, sentence_spans(text))
    kept: list[tuple[int, int]] = []
    for a, b in spans:
        sentence = text[a:b]
        if (
            not _copies_prompt(sentence, name_words, title_words)
            and tuple(_words(sentence)) not in copies
            and (kept or not _orphan_outcome(sentence))
        ):
            kept.append((a, b))
    if len(kept) == len(spans):
        return text
    return "".join(text[a:b] for a, b in kept).strip()


_POINTING = frozenset(("it", "this", "that", "they"))


def _orphan_outcome(sentence: str) -> bool:
    """Whether `sentence` is a pronoun and a bare outcome ("It succeeds."), which opening a
    narration points at nothing: live (vintners-wake #53, seed 69, turn 5), "It succeeds."
    was the whole narration of a beat in which the human only reached for a door, an earlier
    beat's outcome copied; and "Agnese Corvo speaks. It fails. ..." (#54, seed 70, turn 8),
    the speech marker before it cut. After a kept sentence it may well point at that one's
    act, and stays."""
    words = [w.casefold() for w in _words(sentence)]
    return len(words) >= 2 and words[0] in _POINTING and BARE_OUTCOMES.issuperset(words[1:])


def _lines_of(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """`spans`, each cut after every line break inside it."""
    out = []
    for a, b in spans:
        for m in _LINE_BREAK.finditer(text, a, b):
            if m.end() < b:
                out.append((a, m.end()))
                a = m.end()
        out.append((a, b))
    return out


_LINE_BREAK = re.compile(r"\n\s*")


def _copies_prompt(
    sentence: str, name_words: frozenset[str], title_words: frozenset[str] = frozenset()
) -> bool:
    if (
        PROMPT_LABEL.search(sentence.strip())
        or LINK_STAGING.search(sentence)
        or _copies_staging(sentence, name_words)
    ):
        return True
    rest = [w for w in _words(sentence) if w not in name_words]
    if title_words and _titled_marker(rest, title_words):
        return True
    if "material" in rest and _EMPTY_BEAT_WORDS.issuperset(rest):
        return True
    if "speaks" in rest and _SPEECH_MARKER_WORDS.issuperset(rest):
        return True
    if "time" in rest and not _PASSING.isdisjoint(rest) and _TIME_MARKER_WORDS.issuperset(rest):
        return True
    if rest and len(rest) == len(_words(sentence)) and BARE_OUTCOMES.issuperset(rest):
        return True  # "Fails.": an outcome event's word without anyone who failed
    if not _MARKER_NOUNS.isdisjoint(rest) and _ATTEMPT_ONLY.issuperset(rest):
        return True  # "Dorotea Sand attempts to...": the marker, its make-verb left out
    # Nothing but the marker's own words, with a make-verb and the noun.
    return (
        not _MARKER_NOUNS.isdisjoint(rest)
        and not _MARKER_VERBS.isdisjoint(rest)
        and _MARKER_WORDS.issuperset(rest)
    )


def _titled_marker(words: list[str], title_words: frozenset[str]) -> bool:
    """Whether `words` are the title's (all of them but articles) and a marker's."""
    said = [w for w in words if w not in title_words]
    titled = {w for w in words if w in title_words} >= title_words - _ARTICLES
    return bool(said) and titled and _TITLED_MARKER_WORDS.issuperset(said)


_ARTICLES = frozenset(("the", "a", "an"))


def _copies_staging(sentence: str, name_words: frozenset[str]) -> bool:
    """Two or more `;`-separated parts in which a name word is followed by "in"."""
    placed = 0
    for part in sentence.split(";"):
        words = _words(part)
        if any(w in name_words and nxt == "in" for w, nxt in zip(words, words[1:], strict=False)):
            placed += 1
    return placed >= 2


def _words(text: str) -> list[str]:
    return _WORDS.findall(text.casefold())
