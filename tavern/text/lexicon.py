"""`Lexicon`: the closed word classes of one language, and the registry of languages.

Every rule that reads words (filters, clamps, the contract) asks `lexicon_for(language)` for
its vocabulary instead of keeping a word list of its own, so a word class grows in one place
and a rule that declares a language gets that language's words.

Example:
    >>> lex = lexicon_for("pt-BR")
    >>> "disse" in lex.speaking, "said" in lexicon_for("en").speaking
    (True, True)
"""

from __future__ import annotations

from dataclasses import dataclass

from tavern.records.scenario import Language

LANGUAGES: tuple[Language, ...] = ("en", "pt-BR")
"""The languages Tavern supports; both are first-class."""


@dataclass(frozen=True)
class Lexicon:
    """The closed word classes of one language, casefolded. Open classes (nouns, most verbs)
    are never listed: rules read shape, not vocabularies of things."""

    language: Language
    stop_words: frozenset[str]
    """Function words and very common verbs: never a payload, never content."""
    articles: frozenset[str]
    """Definite and indefinite articles (dropped by the sentence key)."""
    fillers: frozenset[str]
    """Adverbs and particles that add no content to a repeated sentence (now, still, again)."""
    pronouns: frozenset[str]
    """Subject and object personal pronouns."""
    speaking: frozenset[str]
    """Verbs of speaking, every form listed."""
    whispering: frozenset[str]
    """Verbs that tell a whisper (a subset of `speaking`)."""
    moving: frozenset[str]
    """Verbs of moving from place to place."""
    perceiving: frozenset[str]
    """Verbs whose subject perceives or undergoes (sees, hears, seems)."""
    thinking: frozenset[str]
    """Verbs of thinking, wondering, remembering: nobody perceives them."""
    acting: frozenset[str]
    """Common verbs of physical action a body does (reaches, takes, opens)."""
    negations: frozenset[str]
    """Negation words (not, never, no one)."""
    operator_nouns: frozenset[str]
    """Nouns that name a human operator outside the fiction (player, user)."""
    control_verbs: frozenset[str]
    """Participles of control (controlled, played, driven): "X by the human"."""
    typing_verbs: frozenset[str]
    """Verbs of typing, writing, submitting input."""
    playing_verbs: frozenset[str]
    """Verbs of playing a role ("you play as")."""
    conjunctions: frozenset[str]
    """Words that join a clause to the one before it (and, but, then; e, mas, então)."""
    attempting: frozenset[str]
    """Verbs of trying, every form (tries, attempted; tenta, tentou)."""
    outcomes: frozenset[str]
    """Words that say an attempt failed or succeeded (fails, succeeds; falha, consegue)."""
    prepositions: frozenset[str]
    """Prepositions of place and relation (at, in, beside; em, no, perto)."""
    greetings: frozenset[str]
    """Words a greeting is made of (hello, evening; olá, boa, noite)."""

    def is_stop(self, word: str) -> bool:
        """Whether a casefolded word is a stop word of this language.

        Example:
            >>> lexicon_for("en").is_stop("the"), lexicon_for("en").is_stop("lantern")
            (True, False)
        """
        return word in self.stop_words


_LEXICONS: dict[str, Lexicon] = {}


def register_lexicon(lexicon: Lexicon) -> None:
    """Add a language's lexicon (the built-in ones register on import of `tavern.text`)."""
    _LEXICONS[lexicon.language] = lexicon


def lexicon_for(language: str) -> Lexicon:
    """The lexicon of `language`; an unsupported language is a `KeyError` naming the ones
    there are (a rule must never silently read another language's words).

    Example:
        >>> lexicon_for("en").language
        'en'
    """
    try:
        return _LEXICONS[language]
    except KeyError:
        raise KeyError(f"no lexicon for {language!r}; supported: {sorted(_LEXICONS)}") from None


def all_stop_words() -> frozenset[str]:
    """Stop words of every supported language (for text whose language is not known, such
    as a scenario's names).

    Example:
        >>> {"the", "que"} <= all_stop_words()
        True
    """
    return frozenset().union(*(lex.stop_words for lex in _LEXICONS.values()))


def words_of(text: str) -> frozenset[str]:
    """A whitespace-separated word list as a casefolded set (how the language modules write
    their classes).

    Example:
        >>> sorted(words_of(" Says  said "))
        ['said', 'says']
    """
    return frozenset(w.casefold() for w in text.split())
