"""Viewer-relative identity: who knows whom, by which name, and how text is rendered for them.

A name is learned only from a speech record the viewer perceived in full: a self-introduction
("my name is Lia", "me chamo Lia", false names included), or hearing a present character's
name spoken (being addressed, or overhearing it). Until then the viewer refers to that
character by its description. Internal slot ids never survive rendering.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from functools import lru_cache
from operator import attrgetter
from typing import TypeVar

from tavern.physics.perception import perceives
from tavern.physics.record_memo import RecordMemo
from tavern.records import Character, HistoryRecord, IdentityEntry, PerspectiveLedger, SpeechRecord

SLOT_ID = re.compile(r"\bC[1-9][0-9]?\b")
"""Internal slot ids as they look in text (`C1` .. `C99`)."""
_SLOT_START = re.compile(r"C[1-9]")


def slot_id_matches(text: str) -> Iterator[re.Match[str]]:
    """`SLOT_ID.finditer(text)`, found ~40x faster on a long prompt.

    The leading \b denies the engine its literal-prefix search (it tries every position),
    so look for "C<digit>" (a literal prefix) and confirm each with `SLOT_ID` at that
    position, where \b still sees the character before. Slot ids cannot overlap, and none
    can start inside another "C<digit>".

    >>> [m.group() for m in slot_id_matches("C1 met C12; XC2, C3x and C99 stay")]
    ['C1', 'C12', 'C99']
    """
    for candidate in _SLOT_START.finditer(text):
        found = SLOT_ID.match(text, candidate.start())
        if found:
            yield found


def replace_slot_ids(text: str, replace: Callable[[re.Match[str]], str]) -> str:
    """`SLOT_ID.sub(replace, text)`, through `slot_id_matches`."""
    parts, last = [], 0
    for found in slot_id_matches(text):
        parts += [text[last : found.start()], replace(found)]
        last = found.end()
    return "".join([*parts, text[last:]]) if parts else text


def with_names(text: str, names: Mapping[str, str]) -> str:
    """`text` with each slot id that `names` maps replaced by its name; others kept.

    >>> with_names("C1 greets C9.", {"C1": "Ana"})
    'Ana greets C9.'
    """
    return replace_slot_ids(text, lambda m: names.get(m.group(), m.group()))


def display_names(cast: Mapping[str, Character]) -> dict[str, str]:
    """Slot id -> display name: the true names, as the Director, the renderer and the human
    read them (a Character reads its own names: `render_for_viewer`)."""
    return {slot: c.body.display_name for slot, c in cast.items()}


UNKNOWN_REF = "someone"
"""What an id outside the cast renders as."""

_NAME = r"([A-ZÀ-Ý][\w'-]+(?:\s+[A-ZÀ-Ý][\w'-]+)?)"
_INTRO = re.compile(
    r"(?i:\b(?:my name is|my name's|name's|i am|i'm|call me|they call me|"
    r"meu nome é|meu nome e|me chamo|eu sou|sou o|sou a|pode me chamar de|me chamam de))\s+" + _NAME
)


def initial_identities(
    cast: Mapping[str, Character], introductions: Mapping[str, Sequence[str]] | None = None
) -> dict[str, PerspectiveLedger]:
    """One ledger per slot: every other character a stranger, unless introduced by the scenario.

    Example:
        >>> from tavern.records import Body, Mind
        >>> c = {s: Character(id=s.lower(), mind=Mind(), body=Body(display_name=n,
        ...      description_ref=f"the {n.lower()}-looking one")) for s, n in [("C1", "Ana"),
        ...      ("C2", "Rui")]}
        >>> initial_identities(c, {"C1": ["C2"]})["C1"].identities["C2"].name
        'Rui'
    """
    intro = introductions or {}
    ledgers = {}
    for viewer in cast:
        ids = {
            slot: IdentityEntry(
                name=ch.body.display_name if slot in intro.get(viewer, ()) else None,
                description_ref=ch.body.description_ref,
            )
            for slot, ch in cast.items()
            if slot != viewer
        }
        ledgers[viewer] = PerspectiveLedger(owner=viewer, identities=ids)
    return ledgers


def _name_forms(character: Character) -> list[str]:
    """The full display name, plus its first and its last word where each alone is a usable
    name: "Ilse Brandt", "Ilse", "Brandt". A surname alone is a name too: a Director writing
    "Brandt nods." would otherwise show it to viewers who never learned it.

    >>> from tavern.records import Body, Mind
    >>> _name_forms(Character(id="x", mind=Mind(), body=Body(display_name="Ilse Brandt",
    ...     description_ref="the woman in grey")))
    ['Ilse Brandt', 'Ilse', 'Brandt']
    """
    full = character.body.display_name.strip()
    words = full.split() or [full]
    parts = dict.fromkeys(w for w in (words[0], words[-1]) if w != full and len(w) >= 3)
    return [full, *parts]


@lru_cache(maxsize=1024)
def _whole_word(form: str) -> re.Pattern[str]:
    # Every viewer's fold over the history searches every record for the same few names.
    return re.compile(rf"\b{re.escape(form)}\b")


def _teach(ledger: PerspectiveLedger, slot: str, name: str, seq: int) -> PerspectiveLedger:
    entry = ledger.identities.get(slot)
    if entry is None or SLOT_ID.fullmatch(name) or entry.name == name:
        return ledger
    learned = entry.model_copy(update={"name": name, "learned_from_seq": seq})
    return ledger.model_copy(update={"identities": {**ledger.identities, slot: learned}})


def learn_names(
    ledger: PerspectiveLedger, record: HistoryRecord, cast: Mapping[str, Character], viewer: str
) -> PerspectiveLedger:
    """Update `viewer`'s ledger from one record, if the viewer perceived its content.

    Example:
        >>> from tavern.records import Audience, Body, Mind
        >>> c = {s: Character(id=s.lower(), mind=Mind(), body=Body(display_name=n,
        ...      description_ref="the stranger")) for s, n in [("C1", "Ana"), ("C2", "Rui")]}
        >>> led = initial_identities(c)["C2"]
        >>> r = SpeechRecord(seq=3, turn_number=1, speaker="C1", author="character",
        ...      text="Call me Lobo.", audience=Audience(origin="public", perceivers=["C1", "C2"]))
        >>> learn_names(led, r, c, "C2").identities["C1"].name
        'Lobo'
    """
    return name_learner(cast, viewer)(ledger, record)


def learn_all(
    ledger: PerspectiveLedger,
    records: Sequence[HistoryRecord],
    cast: Mapping[str, Character],
    viewer: str,
) -> PerspectiveLedger:
    """`learn_names` folded over `records`, in order.

    What a record teaches does not depend on the ledger (only whether the lesson is news
    does), so each record's lessons are found once per viewer and cast names and remembered
    (`RecordMemo`): a window's records teach again on every beat they stay in it.
    """
    names = _cast_names(cast)
    key = _LESSONS.number((viewer, names))
    for lessons in _LESSONS.all(records, key, lambda r: _lessons(r, cast, viewer, names)):
        for slot, name, seq in lessons:
            ledger = _teach(ledger, slot, name, seq)
    return ledger


def name_learner(
    cast: Mapping[str, Character], viewer: str
) -> Callable[[PerspectiveLedger, HistoryRecord], PerspectiveLedger]:
    """`learn_names` for one cast and viewer, the cast's names and their memo key read once
    (a beat's memory capture learns from each record, viewer by viewer)."""
    names = _cast_names(cast)
    key = _LESSONS.number((viewer, names))

    def lessons(record: HistoryRecord) -> tuple[Lesson, ...]:
        return _lessons(record, cast, viewer, names)

    def learn(ledger: PerspectiveLedger, record: HistoryRecord) -> PerspectiveLedger:
        if not isinstance(record, SpeechRecord):
            return ledger  # only speech teaches names (`_lessons`): no memo entry to file
        for slot, name, seq in _LESSONS.get(record, key, lessons):
            ledger = _teach(ledger, slot, name, seq)
        return ledger

    return learn


Lesson = tuple[str, str, int]
"""(slot, name, seq): `viewer` hears `slot` called `name` in record `seq`."""
_LESSONS: RecordMemo[tuple[Lesson, ...]] = RecordMemo()


_DISPLAY_NAME = attrgetter("body.display_name")


def _cast_names(cast: Mapping[str, Character]) -> tuple[tuple[str, str], ...]:
    """(slot, display name) of each cast member, in cast order: what `_lessons` reads
    besides the record and the viewer (built in C-level passes, once a call)."""
    return tuple(zip(cast, map(_DISPLAY_NAME, cast.values()), strict=True))


def _lessons(
    record: HistoryRecord,
    cast: Mapping[str, Character],
    viewer: str,
    names: tuple[tuple[str, str], ...],
) -> tuple[Lesson, ...]:
    """The names one record teaches `viewer`, in the order they are taught."""
    if not isinstance(record, SpeechRecord) or perceives(record, viewer) != "content":
        return ()
    names_key = _HEARD.number(names)
    intros, named = _HEARD.get(record, names_key, lambda r: _heard(r, cast))
    found = [(record.speaker, name, record.seq) for name in intros if record.speaker != viewer]
    hearers = record.audience.perceivers
    found += [
        (slot, form, record.seq) for slot, form in named if slot != viewer and slot in hearers
    ]
    return tuple(found)


Heard = tuple[tuple[str, ...], tuple[tuple[str, str], ...]]
_HEARD: RecordMemo[Heard] = RecordMemo()
"""What a speech says, whoever hears it: searched once per record, not once per viewer."""


def _heard(record: HistoryRecord, cast: Mapping[str, Character]) -> Heard:
    """(names the speaker introduces, (slot, name form) of each cast member the text names,
    in cast order with the first form found): what `_lessons` filters per viewer."""
    intros = tuple(match.group(1) for match in _INTRO.finditer(record.text))
    named = []
    for slot, character in cast.items():
        for form in _name_forms(character):
            if _whole_word(form).search(record.text):
                named.append((slot, form))
                break
    return intros, tuple(named)


def ref_for(
    slot: str, viewer: str, ledger: PerspectiveLedger, cast: Mapping[str, Character]
) -> str:
    """How `viewer` refers to `slot`: its own name, a learned name, or a description.

    Example:
        >>> ref_for("C7", "C1", PerspectiveLedger(owner="C1"), {})
        'someone'
    """
    if slot == viewer and slot in cast:
        return cast[slot].body.display_name
    entry = ledger.identities.get(slot)
    if entry is not None:
        return entry.name or entry.description_ref
    if slot in cast:
        return cast[slot].body.description_ref
    return UNKNOWN_REF


def render_for_viewer(
    text: str, viewer: str, ledger: PerspectiveLedger, cast: Mapping[str, Character]
) -> str:
    """Replace slot ids and true names in `text` with what `viewer` knows.

    Replacement is a single pass, so an inserted description is never rewritten again; a
    description that opens a sentence is capitalized.

    Example:
        >>> from tavern.records import Body, Mind
        >>> c = {"C2": Character(id="rui", mind=Mind(), body=Body(display_name="Rui Lopes",
        ...      description_ref="the man in the open shirt"))}
        >>> render_for_viewer("C2 waves. Rui grins.", "C1", PerspectiveLedger(owner="C1"), c)
        'The man in the open shirt waves. The man in the open shirt grins.'
    """
    return renderer(viewer, ledger, cast)(text)


def renderer(viewer: str, ledger: PerspectiveLedger, cast: Mapping[str, Character]) -> Renderer:
    """`render_for_viewer` bound to one viewer and ledger, for rendering many texts.

    Example:
        >>> renderer("C1", PerspectiveLedger(owner="C1"), {})("C4 nods.")
        'Someone nods.'
    """
    return Renderer(viewer, ledger, cast)


class Renderer:
    """A viewer's text renderer; `number` stands for everything it and `ref_for` read (the
    same number means the same names and references; numbers are never reused)."""

    __slots__ = ("_cast", "_key", "_ledger", "_viewer", "number")

    def __init__(
        self, viewer: str, ledger: PerspectiveLedger, cast: Mapping[str, Character]
    ) -> None:
        self._viewer, self._ledger, self._cast = viewer, ledger, cast
        self._key = _render_key(viewer, ledger, cast)
        self.number = _key_number(self._key)

    def __call__(self, text: str) -> str:
        done = _RENDERED.get((text, self.number))
        if done is not None:
            return done
        table = _TABLES.get(self._key)
        if table is None:
            table = _table(self._viewer, self._ledger, self._cast)
            table = _bounded_put(_TABLES, self._key, table, 256)
        return _bounded_put(_RENDERED, (text, self.number), _render(text, *table), 1 << 15)


def _key_number(key: _RenderKey) -> int:
    # Texts are remembered under a small number standing for the key: hashing the whole key
    # (every identity and cast entry) on each of hundreds of lookups cost more than the rest.
    number = _KEY_NUMBERS.get(key)
    if number is None:
        if len(_KEY_NUMBERS) >= 256:
            _KEY_NUMBERS.clear()
            _RENDERED.clear()
        number = _KEY_NUMBERS[key] = next(_NUMBERS)
    return number


# The table and its alternation pattern depend only on who the viewer knows by which name;
# building them (escape, sort, compile) dominated each call, and every observation renders
# hundreds of texts with the same ones. The key holds every input `_table` reads.
_RenderKey = tuple[str, tuple[tuple[str, str | None, str], ...], tuple[tuple[str, str, str], ...]]
_TABLES: dict[_RenderKey, tuple[dict[str, str], re.Pattern[str]]] = {}
_RENDERED: dict[tuple[str, int], str] = {}
_KEY_NUMBERS: dict[_RenderKey, int] = {}
_NUMBERS = itertools.count()
"""Never reused, so a text rendered under a forgotten key can never answer for a new one."""
_K = TypeVar("_K")
_V = TypeVar("_V")


def _bounded_put(cache: dict[_K, _V], key: _K, value: _V, limit: int) -> _V:
    # Plain dicts rather than lru_cache: the inputs (pydantic models) are not hashable, and
    # a wholesale clear at the bound is simpler than LRU order and safe across threads.
    if len(cache) >= limit:
        cache.clear()
    cache[key] = value
    return value


def _render_key(
    viewer: str, ledger: PerspectiveLedger, cast: Mapping[str, Character]
) -> _RenderKey:
    return (
        viewer,
        tuple((s, e.name, e.description_ref) for s, e in ledger.identities.items()),
        tuple((s, c.body.display_name, c.body.description_ref) for s, c in cast.items()),
    )


def _table(
    viewer: str, ledger: PerspectiveLedger, cast: Mapping[str, Character]
) -> tuple[dict[str, str], re.Pattern[str]]:
    # Names the viewer learned (false ones included) stay as they are, even when a
    # learned false name happens to be someone else's true name.
    table: dict[str, str] = {e.name: e.name for e in ledger.identities.values() if e.name}
    for slot, character in cast.items():
        ref = ref_for(slot, viewer, ledger, cast)
        for form in _name_forms(character):
            table.setdefault(form, ref)
    for slot in cast:
        table[slot] = ref_for(slot, viewer, ledger, cast)
    keys = sorted(table, key=len, reverse=True)
    pattern = re.compile(
        r"\b(?:" + "|".join(re.escape(k) for k in keys) + r")\b|" + SLOT_ID.pattern
        if keys
        else SLOT_ID.pattern
    )
    return table, pattern


def _render(text: str, table: dict[str, str], pattern: re.Pattern[str]) -> str:
    def swap(match: re.Match[str]) -> str:
        ref = table.get(match.group(), UNKNOWN_REF)
        before = text[: match.start()].rstrip(" \"'“(")
        if not before or before[-1] in ".!?\n:":
            ref = ref[:1].upper() + ref[1:]
        return ref

    return pattern.sub(swap, text)
