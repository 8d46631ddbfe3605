"""References: how a Director decision names the cast, made to name it as the cast is named.

Three clamps run before any rule that reads names; none widens anything. `misspelt_name`: a
cast name of two words or more written one letter off is spelt as the cast spells it (a lone
word is left alone). `cast_reference`: an id field holding exactly one member's display name,
or its id in another case, becomes that id ("Dorotea Sand" -> "C4"); any spelling of
`Narrator` in the queue becomes the sentinel. `cast_gloss`: "Ilse Brandt (C1)" or "C1 (Ilse
Brandt)" in a text becomes the bare id. They read letters and ids: every language.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from tavern.physics.dropping import rewrite_told
from tavern.records import NARRATOR, Character, ClampChange, DirectorDecision

if TYPE_CHECKING:
    from tavern.physics.clamps import ClampContext

Changes = list[ClampChange]
_LETTERS = re.compile(r"[^\W\d_]+")
MIN_MENDED_LETTERS = 3
"""A name word shorter than this ("Li" for "Lio") is not mended: one edit is half of it."""


def one_edit_apart(a: str, b: str) -> bool:
    """Whether `a` becomes `b` by exactly one letter added, dropped, changed, or two
    neighbours swapped (case aside).

    >>> [one_edit_apart("Ilse", w) for w in ("Ilsse", "Ilse", "Isle", "Else", "Ilsea", "Ile")]
    [True, False, True, True, True, True]
    """
    a, b = a.casefold(), b.casefold()
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) > len(b):
        a, b = b, a
    i = 0
    while i < len(a) and a[i] == b[i]:
        i += 1
    if len(a) < len(b):
        return a[i:] == b[i + 1 :]
    if a[i + 1 :] == b[i + 1 :]:
        return True
    return i + 1 < len(a) and a[i] == b[i + 1] and a[i + 1] == b[i] and a[i + 2 :] == b[i + 2 :]


def respelt(text: str, cast: Mapping[str, Character]) -> str:
    """`text` with each cast name written one letter off spelt as the cast spells it.

    >>> from tavern.records import Body, Mind
    >>> cast = {"C1": Character(id="ilse", mind=Mind(), body=Body(display_name="Ilse Brandt",
    ...     description_ref="the woman in grey"))}
    >>> respelt("Ilsse Brandt's attempts fail. Ilse Brant nods. Else waits.", cast)
    "Ilse Brandt's attempts fail. Ilse Brandt nods. Else waits."
    """
    return respelt_names(text, [c.body.display_name for c in cast.values()])


def respelt_names(text: str, display_names: Sequence[str]) -> str:
    """`respelt` for a cast known by its display names only (the renderer's answer).

    Only a name of two words or more, all letters, is mended, where all its words but one
    stand as written (spaces between) and that one is a single edit off and capitalized as
    the name's; a window that is some member's name as written, or near two names, stays.

    >>> respelt_names("Dorootea Sand waits.", ["Dorotea Sand"])
    'Dorotea Sand waits.'
    """
    names = [
        (name, tuple(name.split()))
        for name in display_names
        if len(name.split()) >= 2 and all(_LETTERS.fullmatch(w) for w in name.split())
    ]
    # Only a name with a word standing outside the name spelt right is looked for.
    near = [(n, words) for n, words in names if any(text.count(w) > text.count(n) for w in words)]
    if not near:
        return text
    spans = [(m.start(), m.end(), m.group()) for m in _LETTERS.finditer(text)]
    exact = {words for _, words in names}
    mends: dict[int, tuple[int, str] | None] = {}  # first word -> (length, name); None: two
    for name, words in near:
        for start in _windows(spans, words, text):
            window = tuple(w for _, _, w in spans[start : start + len(words)])
            if window not in exact and _near(window, words):
                mends[start] = (len(words), name) if start not in mends else None
    parts, last = [], 0
    for start, mend in sorted(mends.items()):
        if mend is None or spans[start][0] < last:
            continue
        length, name = mend
        parts += [text[last : spans[start][0]], name]
        last = spans[start + length - 1][1]
    return "".join([*parts, text[last:]]) if parts else text


def _windows(spans: list[tuple[int, int, str]], words: tuple[str, ...], text: str) -> Iterator[int]:
    """The first word of each run of `len(words)` words, separated by spaces only, holding
    one of `words` in its place."""
    seen: set[int] = set()
    for index, (_, _, word) in enumerate(spans):
        for place, name_word in enumerate(words):
            start = index - place
            if word != name_word or start < 0 or start + len(words) > len(spans) or start in seen:
                continue
            run = spans[start : start + len(words)]
            if all(text[a[1] : b[0]].isspace() for a, b in zip(run, run[1:], strict=False)):
                seen.add(start)
                yield start


def _near(window: tuple[str, ...], words: tuple[str, ...]) -> bool:
    """All words as written but one, that one a single edit off and as capitalized."""
    off = [(w, n) for w, n in zip(window, words, strict=True) if w != n]
    if len(off) != 1:
        return False
    written, name = off[0]
    return (
        len(name) >= MIN_MENDED_LETTERS
        and written[:1].isupper() == name[:1].isupper()
        and one_edit_apart(written, name)
    )


def respell_names(d: DirectorDecision, ctx: ClampContext) -> tuple[DirectorDecision, Changes]:
    """Spell right each cast name written one letter off in event texts and new facts."""
    cast = ctx.cast or {}
    if not cast:
        return d, []
    return rewrite_told(d, "misspelt_name", lambda text: respelt(text, cast))


def _key(text: str) -> str:
    return " ".join(text.split()).casefold()


def name_index(cast: Mapping[str, Character]) -> dict[str, str]:
    """Folded display name -> slot id, for names that belong to exactly one cast member and
    are no slot id (so a resolved reference is never resolved again).

    >>> from tavern.records import Body, Mind
    >>> body = Body(display_name="Mara  Vell", description_ref="a tall woman")
    >>> name_index({"C1": Character(id="mara", mind=Mind(), body=body)})
    {'mara vell': 'C1'}
    """
    ids = {_key(slot) for slot in cast} | {_key(NARRATOR)}
    owners = _sole_owners((_key(c.body.display_name), slot) for slot, c in cast.items())
    return {name: slot for name, slot in owners.items() if name and name not in ids}


def id_spellings(cast: Mapping[str, Character]) -> dict[str, str]:
    """Folded slot id -> slot id, for ids no other slot folds to: "c1" can only mean "C1".

    >>> from tavern.records import Body, Mind
    >>> body = Body(display_name="Mara", description_ref="a tall woman")
    >>> id_spellings({"C1": Character(id="mara", mind=Mind(), body=body)})
    {'c1': 'C1'}
    """
    return _sole_owners((_key(slot), slot) for slot in cast)


def _sole_owners(pairs: Iterable[tuple[str, str]]) -> dict[str, str]:
    """key -> slot, for the keys of (key, slot) `pairs` that one slot alone has."""
    slots: dict[str, list[str]] = {}
    for key, slot in pairs:
        slots.setdefault(key, []).append(slot)
    return {key: found[0] for key, found in slots.items() if len(found) == 1}


_GLOSSED = re.compile(r"\s*([^()]+?)\s*\(\s*([^()]+?)\s*\)\s*")
"""A reference glossed with another: "Ilse Brandt (C1)", "C1 (Ilse Brandt)"."""


def _lookup(table: Mapping[str, str], value: str) -> str:
    """The slot `value` names in `table` (a glossed reference names one when both its parts
    do), or `value` itself."""
    found = table.get(_key(value))
    if found is None and "(" in value and (glossed := _GLOSSED.fullmatch(value)):
        outer, inner = (table.get(_key(part)) for part in glossed.groups())
        if outer is not None and outer == inner:
            return outer
    return value if found is None else found


def resolve_names(d: DirectorDecision, ctx: ClampContext) -> tuple[DirectorDecision, Changes]:
    """Write each id field that names one cast member by name, or by its id in another case,
    as that member's slot id."""
    cast = ctx.cast or {}
    references = [
        *(ev.actor_id for ev in d.events if ev.actor_id is not None),
        *(w for ev in d.events for w in ev.witness_ids),
        *d.next_speakers,
        *d.mood_updates,
        *(m.character_id for m in d.zone_moves),
    ]
    if {*cast, NARRATOR}.issuperset(references):  # the usual answer: ids only
        return d, []
    index = {**id_spellings(cast), **name_index(cast)}
    changes: Changes = []

    def mapped(path: str, value: Any, found: Any) -> Any:
        if found != value:
            changes.append(ClampChange(rule="cast_reference", path=path, before=value, after=found))
        return found

    def one(path: str, value: str) -> str:
        return str(mapped(path, value, _lookup(index, value)))

    def many(path: str, values: list[str], extra: Mapping[str, str] | None = None) -> list[str]:
        table = {**index, **(extra or {})}
        return list(mapped(path, values, [_lookup(table, v) for v in values]))

    events = []
    for i, ev in enumerate(d.events):
        actor = None if ev.actor_id is None else one(f"events[{i}].actor_id", ev.actor_id)
        witnesses = many(f"events[{i}].witness_ids", ev.witness_ids)
        same = actor == ev.actor_id and witnesses == ev.witness_ids
        events.append(
            ev if same else ev.model_copy(update={"actor_id": actor, "witness_ids": witnesses})
        )
    speakers = many("next_speakers", d.next_speakers, {_key(NARRATOR): NARRATOR})
    keys = many("mood_updates", list(d.mood_updates))
    moods = dict(zip(keys, d.mood_updates.values(), strict=True))
    moves = [
        move.model_copy(update={"character_id": slot})
        if (slot := one(f"zone_moves[{i}].character_id", move.character_id)) != move.character_id
        else move
        for i, move in enumerate(d.zone_moves)
    ]
    if not changes:
        return d, []
    update = {"events": events, "next_speakers": speakers, "mood_updates": moods}
    return d.model_copy(update={**update, "zone_moves": moves}), changes


def collapse_glosses(d: DirectorDecision, ctx: ClampContext) -> tuple[DirectorDecision, Changes]:
    """Write a cast member glossed with its own id or name, "Ilse Brandt (C1)" or "C1 (Ilse
    Brandt)", as the bare id in event texts and new facts."""
    cast = ctx.cast or {}
    texts = [*(ev.text for ev in d.events), *d.scene.add_facts]
    if not cast or not any("(" in t for t in texts):
        return d, []
    forms = []
    for index, (slot, c) in enumerate(cast.items()):
        name = r"\s+".join(map(re.escape, c.body.display_name.split())) or re.escape(slot)
        slot_id = re.escape(slot)
        forms.append(
            rf"(?P<m{index}>\b{name}\s*\(\s*{slot_id}\s*\)|\b{slot_id}\s*\(\s*{name}\s*\))"
        )
    pattern = re.compile("|".join(forms), re.IGNORECASE)
    slots = list(cast)
    return rewrite_told(
        d, "cast_gloss", lambda text: pattern.sub(lambda m: slots[int(str(m.lastgroup)[1:])], text)
    )
