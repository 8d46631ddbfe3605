"""Verb vocabularies of the clamp `agency`: what a character may be told to do or undergo."""

from __future__ import annotations

UNDERGOING = frozenset(
    "is are was were be been being has have had seems seem appears appear remains remain"
    " hears hear heard sees see saw seen notices notice noticed smells smell smelled senses sense"
    " sensed feels feel felt".split()
)
"""Verbs whose subject undergoes or perceives: the world may decide these for anyone."""

SPEAKING = frozenset(
    "speaks speak spoke says say said asks ask asked whispers whisper whispered replies reply"
    " replied answers answer answered murmurs murmur murmured mutters mutter muttered calls"
    " call called".split()
)
"""Verbs of speaking: a character that spoke may be told to speak."""
WHISPERING = frozenset(("whispers", "whisper", "whispered"))
"""Verbs of speaking that tell a whisper: only a character that whispered may be told to.
Live (vintners-wake #37, seed 52, turn 8), "Agnese Corvo whispers something." narrated her
question asked aloud, copied from turn 6's whisper marker."""

BARE_WORDS = frozenset(
    "something softly quietly aloud again briefly voice himself herself themselves".split()
)
"""What a sentence of speaking may add to names and small words and still say only that
someone spoke."""

MOVING = frozenset(
    "walk walks walked go goes went run runs ran step steps stepped climb climbs climbed"
    " cross crosses crossed head heads headed move moves moved leave leaves left enter enters"
    " entered approach approaches approached return returns returned wander wanders wandered"
    " stride strides strode hurry hurries hurried pace paces paced stroll strolls strolled"
    " descend descends descended".split()
)
"""Verbs of moving. An outcome tells its actor's attempt in any words ("pulls at the
handle, but it will not give" for "reaches for the door"), but not a walk the attempt never
asked for: live (vintners-wake #64, seed 80, turn 2), "Dorotea Sand walks slowly to the
nearest window" was committed as the outcome of her "read the will". Such a sentence stays
when the attempt moves too, or shares a word with it, as any event's would."""
