"""An attempt that names no act is not an attempt.

Live, the embedded 0.5B model filled a Character's `action_intent` with words of speaking
and nothing to do: 32 of the 76 attempts Characters stated over sixteen soak sessions were "talk",
"to talk" or "try to talk" (vintners-wake #13: Dorotea Sand's in six beats of eight), one more
"try to do". Each became an action record the human read and the next Director had to
adjudicate, and none said what the character does with its body; talking is speech, which
has its own field. Such an intent is dropped; a reply left empty says nothing this beat.

An intent goes when, its small words aside ("to", "try", "do", "something"), only verbs of
speaking and names are left. "talks to Maren" goes; "walks to Maren", "hands Maren the
ledger" and "knocks to be let in" stay.

Three more kinds of intent name nothing the world could answer, and go (toll-house soak #18
and vintners-wake #22, seed 35; the follow-up call then answered "Maren Holt failed" and
"Felix Aubert tries this to take action"):
- an outcome instead of an attempt: "fails" (a Character never states an outcome);
- a placeholder for one: "take action", "act", "try this", alone or beside verbs of speaking:
  "speak and act" (vintners-wake #49, seed 65, turn 1: Brother Caspar's intent, the words of
  his identity line's "speak and act for yourself only", went into his memory as "You
  attempted: speak and act" and came back as his thought);
- a lone verb that needs what or whom it acts on, `NEEDS_OBJECT`: "follow", "open", "visit";
- a lone verb of perceiving, `PERCEIVING`: "listen" (toll-house #19, seed 36: three intents
  in two beats, each followed up and answered with a copy of another attempt). What a
  character perceives is the kernel's to compute; "listens at the door" stays; so is
  perceiving someone speak, `_HEARING_SPEECH`: "To listen to what I'm saying";
- a lone verb of thinking, `THINKING`: "think", "thought" (toll-house #49, seed 63);
- not knowing what to do, `NOT_KNOWING`: "I don't know what you mean by 'try to do' here";
- saying there is none, `NOTHING_AT_ALL`: "nothing new", "nothing to do", "no action", "not
  stated" (toll-house #31, seed 45, turn 6, then told by the Director as "Maren Holt not
  stated");
- one trait word of the character's own personality (`traits`): Brother Caspar's intent
  was "Talkative" (vintners-wake #32, seed 47, turn 8), from his sheet's "Warm, talkative,
  quick to bless ...".
- what the character is, said in the first person, `SELF_STATE`: Teodor Vask's intent was "I
  am a busy person, not sure what to do right now." (toll-house #56, seed 70, turn 1), shown
  to the human as his attempt; "I am trying to open the door" and "I'm walking out" stay;
- words of the character's own appearance only (`recites_sheet`): Dorotea Sand's intent was
  "read glasses on a chain" (vintners-wake #50, seed 66, turn 1), her sheet's "reading
  glasses on a chain"; the follow-up answered "Dorotea Sand fails", and the next Director
  told the intent again as an event;
- words of the character's own personality only (`recites_sheet` again): Lio Mendez's intent
  was "talk to the casks when alone" (vintners-wake #57, seed 73, turn 4), his sheet's
  "talks to the casks when alone", and the follow-up told the human "Lio Mendez attempts to
  talk to the casks when alone was successful." A personality says how someone is, never
  what they do this beat.
"walk", "sleep" and "read" can be done without an object, and stay.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from functools import lru_cache

from tavern.agents.repetition import sentence_spans
from tavern.records import CharacterReply

SPEAKING = frozenset(
    "talk talks talking speak speaks speaking say says saying chat chats chatting tell tells"
    " reply replies answer answers converse converses discuss discusses swear swears swearing"
    " curse curses cursing shout shouts shouting yell yells yelling whisper whispers whispering"
    " mutter mutters muttering murmur murmurs murmuring call calls calling ask asks asking"
    " question questions questioning".split()
)
"""Verbs that say someone speaks, not what their body does ("swear" was the intent of two
Characters in one beat: vintners-wake soak #28, seed 42, turn 2; "to call someone" Maren
Holt's in two beats of toll-house #31, seed 45; "ask" hers in toll-house #66, seed 80, turn
1, shown to the human as her attempt)."""
ANYONE = frozenset("someone somebody anyone anybody everyone everybody".split())
"""Whom a verb of speaking may go to and still name no act ("to call someone")."""
FILLER = frozenset(
    "to try tries trying attempt attempts attempting do does doing something anything nothing"
    " with about a an the and or again more some none null".split()
)
"""Words an intent may hold around a verb of speaking and still name no act ("None" was a
whole live intent: toll-house soak #9, turn 7)."""

OUTCOMES = frozenset(
    "fail fails failed failing succeed succeeds succeeded succeeding success failure".split()
)
"""The outcome words of `OUTCOME_OR_PLACEHOLDER`: beside names only, still an outcome ("Lio
Mendez succeeds."); "take Maren" takes someone."""
OUTCOME_OR_PLACEHOLDER = OUTCOMES | frozenset(
    "action actions act acts acting take takes taking".split()
)
"""Words of an intent that states an outcome ("fails") or stands in for an act ("take
action"): with a word of an act beside them ("takes the key"), the intent stays."""
DEMONSTRATIVES = frozenset("this that it these those".split())
"""Alone (small words aside), they point at an act without naming one: "try this" (toll-house
soak #24, seed 41, turn 8, after the follow-up's "Ilse Brandt tries this and succeeds."), "do
it". Beside a verb ("take it", "open this") the intent stays."""
NEEDS_OBJECT = frozenset(
    "follow follows open opens visit visits take takes give gives grab grabs bring brings"
    " carry carries use uses put puts place places hand hands pick picks touch touches close"
    " closes lock locks unlock unlocks push pushes pull pulls sign signs find finds check"
    " checks examine examines inspect inspects show shows hold holds".split()
)
"""Verbs that say nothing done when they stand alone: what is opened, whom followed?"""
PERCEIVING = frozenset("listen listens watch watches observe observes look looks".split())
"""Verbs of perceiving: alone, they attempt nothing the world must decide."""
PERSONS = frozenset(
    "i i'm me my you you're your he he's him his she she's her they they're them we us what"
    " who whom is am are was were".split()
)
"""Who speaks or is spoken of, and its "is", in words that name no one in particular ("what
I'm saying", "what he is saying")."""
_HEARING_SPEECH = PERCEIVING | SPEAKING | PERSONS
"""What an intent of perceiving someone speak holds, names aside: live (vintners-wake #58, seed
74, turn 1), Brother Caspar's intent "To listen to what I'm saying" was shown to the human as
his attempt, and the follow-up answered "Brother Caspar's attempt to listen to what I'm saying
succeeds." What is said reaches its hearers by the kernel's audiences, not by an attempt;
"listens at the door" and "watches Maren open the box" act."""
THINKING = frozenset(
    "think thinks thinking thought thoughts ponder ponders wonder wonders reflect reflects".split()
)
"""Verbs (and the reply field's own name) of thinking: alone, no act of the body. Live
(toll-house #49, seed 63, turns 6 and 7), Maren Holt's intents "think" and "thought" were
shown to the human as her attempts; a thought has its own field."""

NOT_KNOWING = re.compile(r"\bi (?:do not|don'?t|don’t) (?:know|understand)\b|\bwhat you mean\b")
"""Words about not knowing what to do are no act: toll-house soak #25 (seed 42), turn 5, had
Maren Holt's intent "I don't know what you mean by 'try to do' here" (her instructions'
words), shown on the human's screen as her attempt."""

NOTHING_AT_ALL = re.compile(
    r"^\W*(?:nothing|none|no (?:action|act|attempt)|not (?:stated|given|specified)|n/a)"
    r"(?:\W+(?:new|else|special|more|much|yet|now|for|at|all|in|particular|to|do|of|note|here))*"
    r"\W*$"
)
"""An intent that only says there is none: live (vintners-wake soak #29 rerun, seed 44,
turn 3), Dorotea Sand's intent "nothing new" was shown on the human's screen as her attempt
("nothing" alone was filler, and "new" no verb of speaking)."""

SELF_STATE = re.compile(
    r"^\W*i(?:'m|’m| am)\s+(?!(?:trying|going|about|off|now|still|slowly|quietly)\b)(?![a-z]+ing\b)"
)
"""An intent opening "I am" or "I'm" with no act after it ("I am a busy person", "I'm not
sure"): a state of the speaker, not an attempt (matched on the folded intent)."""

_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*")


@lru_cache(maxsize=64)
def traits(personality: str) -> frozenset[str]:
    """The one-word items of a personality's lists, folded: "Warm, talkative, quick to bless"
    gives warm and talkative, "Courteous, precise, and lonely; ..." all three.

    >>> sorted(traits("Courteous, precise, and lonely; counts twice. Quick to bless."))
    ['courteous', 'lonely', 'precise']
    """
    items = (_WORD.findall(item.casefold()) for item in _LIST_ITEM.split(personality))
    return frozenset(
        words[-1] for words in items if len(words) == 1 or (len(words) == 2 and words[0] == "and")
    )


_LIST_ITEM = re.compile(r"[,;.]")


def names_no_act(
    intent: str, names: Collection[str] = (), own_traits: Collection[str] = ()
) -> bool:
    """Whether `intent` holds nothing but verbs of speaking, small words and words of the
    cast's display `names`; or only an outcome or a placeholder; or one verb that needs an
    object; or one of the character's `own_traits` (see the module).

    >>> names_no_act("try to talk"), names_no_act("talks to Maren", ["Maren Holt"])
    (True, True)
    >>> names_no_act("walks to Maren", ["Maren Holt"]), names_no_act("knocks to be let in")
    (False, False)
    >>> names_no_act("fails"), names_no_act("take action"), names_no_act("try to open")
    (True, True, True)
    >>> names_no_act("speak and act"), names_no_act("speaks and takes the key")
    (True, False)
    >>> names_no_act("try this"), names_no_act("open it"), names_no_act("take it")
    (True, False, False)
    >>> names_no_act("I don't know what you mean by 'try to do' here")
    True
    >>> names_no_act("follow Maren", ["Maren Holt"]), names_no_act("walk")
    (False, False)
    >>> names_no_act("nothing new"), names_no_act("notices nothing new at the door")
    (True, False)
    >>> names_no_act("Lio Mendez succeeds.", ["Lio Mendez"])
    True
    """
    folded = intent.casefold()
    if NOT_KNOWING.search(folded) or NOTHING_AT_ALL.match(folded) or SELF_STATE.match(folded):
        return True
    words = [w for w in _WORD.findall(folded) if w not in FILLER]
    if not words and not _WORD.search(intent):
        return False
    lone = len(words) == 1 and (
        words[0] in NEEDS_OBJECT
        or words[0] in PERCEIVING
        or words[0] in THINKING
        or words[0] in own_traits
    )
    name_words = {w for name in names for w in _WORD.findall(name.casefold())}
    unnamed = [w for w in words if w not in name_words]
    if lone or OUTCOME_OR_PLACEHOLDER.issuperset(words) or DEMONSTRATIVES.issuperset(words):
        return True
    if unnamed and OUTCOMES.issuperset(unnamed):
        return True  # "Lio Mendez succeeds."
    rest = [w for w in words if w not in name_words and w not in ANYONE]
    spoken = [w for w in rest if w in SPEAKING]
    if spoken and not PERCEIVING.isdisjoint(rest) and _HEARING_SPEECH.issuperset(rest):
        return True  # "To listen to what I'm saying": perceiving someone speak
    # A placeholder beside a verb of speaking ("speak and act"), never beside a name alone:
    # "take Maren" acts.
    return len(spoken) == len(rest) or (
        bool(spoken) and all(w in SPEAKING or w in OUTCOME_OR_PLACEHOLDER for w in rest)
    )


def recites_sheet(intent: str, sheet_text: str) -> bool:
    """Whether every word of three letters or more of `intent` (small words aside) opens a
    word of `sheet_text` (the speaker's own appearance or personality) or is opened by one
    ("read" and "reading"), and there are two such words. Openings, not any part: "wanders
    there" holds "and", "the" and "her" inside its words, and is an act whatever the sheet
    says.

    >>> look = "A grey-haired woman, a leather satchel, reading glasses on a chain."
    >>> recites_sheet("read glasses on a chain", look), recites_sheet("adjusts her glasses", look)
    (True, False)
    """
    words = [w for w in _WORD.findall(intent.casefold()) if len(w) >= 3 and w not in FILLER]
    sheet = [w for w in _WORD.findall(sheet_text.casefold()) if len(w) >= 3 and w not in FILLER]
    return len(words) >= 2 and all(
        any(a.startswith(w) or w.startswith(a) for a in sheet) for w in words
    )


def without_empty_intent(
    reply: CharacterReply,
    names: Collection[str] = (),
    own_traits: Collection[str] = (),
    own_sheet: Collection[str] = (),
) -> CharacterReply | None:
    """`reply` without an intent that names no act (`names`: the cast's display names,
    `own_traits`: the speaker's `traits`) or only recites one of the speaker's `own_sheet`
    texts, its appearance or personality (see `recites_sheet`); None when nothing else is
    left. Of an intent naming an act, the sentences naming none go: live
    (vintners-wake #63, seed 79, turn 8), Lio Mendez's intent "Look for the old vintner's
    letter and the trapdoor. ... Lio Mendez succeeds." told its own outcome, and the
    follow-up for another's attempt copied it."""
    intent = reply.action_intent
    if intent is None:
        return reply
    if not (
        names_no_act(intent, names, own_traits)
        or any(recites_sheet(intent, text) for text in own_sheet)
    ):
        if "." not in intent.rstrip(". "):
            return reply
        spans = sentence_spans(intent)
        acts = [intent[a:b] for a, b in spans if not names_no_act(intent[a:b], names, own_traits)]
        if len(acts) == len(spans):
            return reply
        if acts:
            return reply.model_copy(update={"action_intent": "".join(acts).strip()})
    if reply.speech is None and reply.thought is None:
        return None
    return reply.model_copy(update={"action_intent": None})
