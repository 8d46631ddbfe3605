"""Who knows which word: publication relative to perceivers, derived from history.

A word a record carries becomes known to the perceivers of that record, never to the world:
a speech's hearers, an action's onlookers, a whisper's audience, a thought's owner, an
event's witnesses. The stage's texts and the cast's public texts are known to everyone. A
word no record has carried to anyone is fresh: the first event that shows it to witnesses
publishes it to them. An event never widens who knows a word a record already carried: the
Director reads every thought and whisper, so its prose proves nothing.

What a viewer may read is exactly that: the words of the records it perceived, the public
texts, its own thoughts. The clamps (`visible.py`) and every projection (`observation.py`,
the runner's memory capture) decide through `knowledge_of`, a plain walk over the window the
caller passes.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain
from operator import attrgetter

from tavern.physics.redaction import Tokenizer, salient_tokens, tokens_of
from tavern.records import (
    ActionRecord,
    Character,
    EventRecord,
    HistoryRecord,
    Scene,
    SpeechRecord,
    ThoughtRecord,
)

_PUBLIC_BODY_TEXTS = attrgetter("body.display_name", "body.description_ref", "body.appearance")
"""A cast member's public texts, in the order `cast_public_texts` lists them."""


def cast_public_texts(cast: Mapping[str, Character]) -> list[str]:
    """Words anyone may use about the cast: names, descriptions, appearances.

    Pass these as `public_texts` so that a thought mentioning a name or a description never
    turns that word into a secret to be redacted from every event.

    Example:
        >>> from tavern.records import Body, Mind
        >>> cast_public_texts({"C1": Character(id="a", mind=Mind(), body=Body(
        ...     display_name="Ana", description_ref="the innkeeper"))})
        ['Ana', 'the innkeeper', '']
    """
    return list(chain.from_iterable(map(_PUBLIC_BODY_TEXTS, cast.values())))


def scene_texts(scene: Scene) -> list[str]:
    """Every public text of the stage: location, description, facts, zone labels."""
    return [scene.location, scene.description, *scene.facts, *(z.label for z in scene.zones)]


@dataclass(frozen=True)
class Knowledge:
    """Who knows each word of a window of history that is not public.

    Example:
        >>> from tavern.records import Audience
        >>> w = SpeechRecord(seq=1, turn_number=1, speaker="C1", author="character",
        ...                  text="the mill at dawn", audience=Audience(
        ...                  origin="whisper", perceivers=["C1", "C2"], aware=["C3"]))
        >>> k = knowledge_of([w], Scene(location="the mill"))
        >>> sorted(k.knowers["dawn"]), sorted(k.hidden_from("C3")), sorted(k.hidden_from("C2"))
        (['C1', 'C2'], ['dawn'], [])
    """

    public: frozenset[str]
    """Words of the stage's and the caller's public texts: known to everyone."""
    knowers: Mapping[str, frozenset[str]]
    """Every other word a perceived record carried -> the slot ids that perceived one."""
    thought_only: frozenset[str]
    """Words of `knowers` that only thoughts have carried so far."""

    def hidden_from(self, viewer: str) -> frozenset[str]:
        """Words `viewer` never perceived: what nothing shown to it may carry."""
        return frozenset(t for t, who in self.knowers.items() if viewer not in who)

    def unknown_to_any(self, slots: Collection[str]) -> frozenset[str]:
        """Words one of `slots` at least never perceived: what a text shown to all of them
        may not carry.

        Example:
            >>> k = Knowledge(frozenset(), {"key": frozenset({"C1", "C2"})}, frozenset())
            >>> sorted(k.unknown_to_any(["C1", "C3"])), sorted(k.unknown_to_any(["C2"]))
            (['key'], [])
        """
        group = frozenset(slots)
        return frozenset(t for t, who in self.knowers.items() if not group <= who)


def knowledge_of(
    history: Iterable[HistoryRecord],
    scene: Scene,
    public_texts: Iterable[str] = (),
    tokens: Tokenizer = salient_tokens,
) -> Knowledge:
    """Walk `history` in order: who perceived a record carrying each non-public word.

    Speech and actions teach their words to their perceivers (and their speaker); a thought
    teaches its owner. An event teaches its witnesses only the words no perceived record
    carried before it. Narration and kernel markers teach nobody: no character perceives
    them. `tokens` tokenizes each text (a turn's `redaction.TokenTable` reads each once).

    Example:
        >>> from tavern.records import Audience
        >>> hall = Audience(origin="zone", perceivers=["C1", "C2"])
        >>> said = SpeechRecord(seq=1, turn_number=1, speaker="C1", author="character",
        ...                     text="the ledger burns", audience=hall)
        >>> shown = EventRecord(seq=2, turn_number=1, speaker="World", author="director",
        ...                     event_kind="world_event", text="ledger ash and smoke",
        ...                     audience=Audience(origin="zone", perceivers=["C3"]))
        >>> k = knowledge_of([said, shown], Scene(location="inn"))
        >>> sorted(k.knowers["ledger"]), sorted(k.knowers["smoke"])
        (['C1', 'C2'], ['C3'])
    """
    public = frozenset(tokens_of([*scene_texts(scene), *public_texts], tokens))
    knowers: dict[str, frozenset[str]] = {}
    thought_only: set[str] = set()
    for record in history:
        if isinstance(record, EventRecord):
            witnesses = frozenset(record.audience.perceivers)
            if witnesses:
                for token in tokens(record.text) - public:
                    knowers.setdefault(token, witnesses)
            continue
        thought = isinstance(record, ThoughtRecord)
        if thought:
            who = frozenset((record.speaker,))
        elif isinstance(record, SpeechRecord | ActionRecord):
            who = frozenset(record.audience.perceivers) | {record.speaker}
        else:
            continue
        for token in tokens(record.text) - public:
            known = knowers.get(token)
            if known is None:
                knowers[token] = who
                if thought:
                    thought_only.add(token)
            else:
                knowers[token] = known | who
                if not thought:
                    thought_only.discard(token)
    return Knowledge(public, knowers, frozenset(thought_only))


def hidden_tokens_for(
    history: Sequence[HistoryRecord],
    scene: Scene,
    viewer: str,
    public_texts: Iterable[str] = (),
    tokens: Tokenizer = salient_tokens,
) -> frozenset[str]:
    """Tokens `viewer` must never read: `knowledge_of(...).hidden_from(viewer)`.

    Example:
        >>> from tavern.records import Audience
        >>> w = SpeechRecord(seq=0, turn_number=1, speaker="C1", author="character",
        ...                  text="meet at the mill", audience=Audience(
        ...                  origin="whisper", perceivers=["C1", "C2"], aware=["C3"]))
        >>> sorted(hidden_tokens_for([w], Scene(location="inn"), "C3"))
        ['meet', 'mill']
        >>> sorted(hidden_tokens_for([w], Scene(location="inn"), "C2"))
        []
    """
    return knowledge_of(history, scene, public_texts, tokens).hidden_from(viewer)
