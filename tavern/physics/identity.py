"""Viewer-relative identity: who knows whom, by which name, and how text is rendered for them.

A name is learned only from a speech record the viewer perceived in full: a self-introduction
("my name is Lia", "me chamo Lia", false names included), or hearing a present character's
name spoken (being addressed, or overhearing it). Until then the viewer refers to that
character by its description. Internal slot ids never survive rendering.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

from tavern.physics.perception import perceives
from tavern.records import Character, HistoryRecord, IdentityEntry, PerspectiveLedger, SpeechRecord

SLOT_ID = re.compile(r"\bC[1-9][0-9]?\b")
"""Internal slot ids as they look in text (`C1` .. `C99`)."""


def replace_slot_ids(text: str, replace: Callable[[re.Match[str]], str]) -> str:
    """`text` with every slot id replaced by `replace(match)`.

    >>> replace_slot_ids("C1 met C12; XC2, C3x and C99 stay", lambda m: "#")
    '# met #; XC2, C3x and # stay'
    """
    return SLOT_ID.sub(replace, text)


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
    """`learn_names` folded over `records`, in order."""
    learn = name_learner(cast, viewer)
    for record in records:
        ledger = learn(ledger, record)
    return ledger


def name_learner(
    cast: Mapping[str, Character], viewer: str
) -> Callable[[PerspectiveLedger, HistoryRecord], PerspectiveLedger]:
    """`learn_names` for one cast and viewer (a beat's memory capture learns from each
    record, viewer by viewer)."""

    def learn(ledger: PerspectiveLedger, record: HistoryRecord) -> PerspectiveLedger:
        for slot, name, seq in _lessons(record, cast, viewer):
            ledger = _teach(ledger, slot, name, seq)
        return ledger

    return learn


Lesson = tuple[str, str, int]
"""(slot, name, seq): `viewer` hears `slot` called `name` in record `seq`."""


def _lessons(record: HistoryRecord, cast: Mapping[str, Character], viewer: str) -> list[Lesson]:
    """The names one record teaches `viewer`, in the order they are taught: the names its
    speaker introduces, then each cast member it names (the first of its name forms found,
    in cast order) when the viewer is not that member and heard the line."""
    if not isinstance(record, SpeechRecord) or perceives(record, viewer) != "content":
        return []
    found = [
        (record.speaker, match.group(1), record.seq)
        for match in _INTRO.finditer(record.text)
        if record.speaker != viewer
    ]
    hearers = record.audience.perceivers
    for slot, character in cast.items():
        for form in _name_forms(character):
            if re.search(rf"\b{re.escape(form)}\b", record.text):
                if slot != viewer and slot in hearers:
                    found.append((slot, form, record.seq))
                break
    return found


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


def unlearned_names(
    text: str, viewer: str, ledger: PerspectiveLedger, cast: Mapping[str, Character]
) -> list[str]:
    """The names in `text` that `viewer` has not learned, and any slot id, each once.

    A name counts when `render_for_viewer` would write something else in its place (a
    description, or the name the viewer did learn), unless it is a word of a name the viewer
    learned ("Agnese" of "Agnese Corvo"); the viewer's own names never count. A text the
    viewer wrote itself must hold none (the runner refuses a memory summary that does:
    `runner.memory`).

    Example:
        >>> from tavern.records import Audience, Body, Mind
        >>> c = {s: Character(id=s.lower(), mind=Mind(), body=Body(display_name=n,
        ...      description_ref="the stranger")) for s, n in [("C1", "Ana Lima"), ("C2", "Rui")]}
        >>> unlearned_names("Ana saw Rui and C2.", "C1", PerspectiveLedger(owner="C1"), c)
        ['Rui', 'C2']
        >>> learned = learn_names(initial_identities(c)["C2"], SpeechRecord(seq=1,
        ...     turn_number=1, speaker="C1", author="character", text="I am Ana Lima.",
        ...     audience=Audience(origin="public", perceivers=["C1", "C2"])), c, "C2")
        >>> unlearned_names("Ana and Lima and Ana Lima.", "C2", learned, c)
        []
    """
    table, pattern = _table(viewer, ledger, cast)
    allowed = set(_name_forms(cast[viewer])) if viewer in cast else set()
    for entry in ledger.identities.values():
        if entry.name:
            allowed.update([entry.name, *entry.name.split()])
    found = [
        match.group()
        for match in pattern.finditer(text)
        if match.group() not in allowed and table.get(match.group(), UNKNOWN_REF) != match.group()
    ]
    return list(dict.fromkeys(found))


class Renderer:
    """A viewer's text renderer: the names it knows and the pattern finding them, built once
    for the many texts of one observation or digest."""

    __slots__ = ("_pattern", "_table")

    def __init__(
        self, viewer: str, ledger: PerspectiveLedger, cast: Mapping[str, Character]
    ) -> None:
        self._table, self._pattern = _table(viewer, ledger, cast)

    def __call__(self, text: str) -> str:
        return _render(text, self._table, self._pattern)


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
