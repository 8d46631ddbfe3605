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
    are listed only as the small sets a rule's shape names (the contract's operator nouns and
    verbs), never as vocabularies of things."""

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
    """Nouns that, after a plain determiner, name a human operator outside the fiction
    (the player, o usuário). "Human" is not one: it is a people in most worlds."""
    operator_qualifiers: frozenset[str]
    """Adjectives that put a person outside the fiction (a human player, um jogador real).
    A hyphen stands for a hyphen or a space (real-world, de-verdade)."""
    human_nouns: frozenset[str]
    """The singular noun "human": a people in most worlds, so it names the operator only in
    an operator role (controlled by the human, pelo humano); the plural never does."""
    person_nouns: frozenset[str]
    """Nouns of a person that name the operator only with a qualifier or an operator role
    (a real person, the participant at the keyboard, a pessoa real)."""
    operator_determiners: frozenset[str]
    """Determiners (and Portuguese preposition + article contractions) that single out one
    operator: the player, our user, ao jogador, pelo usuário."""
    operator_exclusions: frozenset[str]
    """Words that, right after an operator noun, make it a character of the fiction: the
    players of the troupe, a user fee, o jogador de xadrez, o jogador mais velho."""
    second_person: frozenset[str]
    """Second-person subject and possessive forms (you, your, você, tu)."""
    auxiliaries: frozenset[str]
    """Auxiliary and modal verb forms that may stand between a subject and its verb."""
    control_verbs: frozenset[str]
    """Participles of control (controlled, played, voiced): "X by the human"."""
    role_verbs: frozenset[str]
    """Participles that, said of a character, name who plays it (played, voiced, controlled,
    interpretado): unlike control in general, not what one says of a ship or a fort."""
    controlling_verbs: frozenset[str]
    """Finite forms of controlling a character (controls, drives, controla)."""
    typing_verbs: frozenset[str]
    """Verbs of typing on keys (type, digitar): a character rarely does it."""
    writing_verbs: frozenset[str]
    """Verbs of writing, entering, sending, submitting (write, enviar)."""
    playing_verbs: frozenset[str]
    """Verbs of playing a role ("you play as")."""
    choosing_verbs: frozenset[str]
    """Verbs of choosing and deciding (decides, picks, escolhe)."""
    describing_verbs: frozenset[str]
    """Verbs of describing and narrating (describes, narra)."""
    waiting_verbs: frozenset[str]
    """Verbs of waiting (wait, await, aguarde)."""
    imperatives: frozenset[str]
    """Command forms a prompt gives a model (speak, decide, write; fale, decida, escreva)."""
    message_nouns: frozenset[str]
    """What only a machine's user sends, and no verb or story noun: input, prompt."""
    input_nouns: frozenset[str]
    """What an operator sends: input, message, turn, reply (entrada, mensagem, vez)."""
    interface_nouns: frozenset[str]
    """The machine an operator sits at: keyboard, terminal (teclado)."""
    avatar_nouns: frozenset[str]
    """What stands for a person in a game: avatar, character, persona (personagem)."""
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
    third_person: frozenset[str]
    """Subject pronouns of the third person: who a sentence names again (he, they; ele)."""
    first_person: frozenset[str]
    """Words of the first person a speaker says and a narrator of events never does (me,
    our; eu, nosso)."""
    subordinators: frozenset[str]
    """Words that open a clause needing another (when, although; quando, embora)."""
    leads: frozenset[str]
    """Words that open a lead-in before a sentence's main clause ("As ...,", "Then,";
    "Quando ...,", "Então,")."""
    adverb_endings: frozenset[str]
    """Endings of adverbs of manner (-ly; -mente): "Slowly, she ..." leads in."""
    pre_verbal: frozenset[str]
    """Words that may stand between a subject and its verb: adverbs and clitic pronouns
    ("Maren already opens"; "Maren se levanta")."""
    progressive_auxiliaries: frozenset[str]
    """Forms of the verb before a gerund (is, was; está, estava): "is sitting" acts."""
    gerund_endings: frozenset[str]
    """Endings of a gerund (-ing; -ndo)."""
    perfect_auxiliaries: frozenset[str]
    """Forms of the verb before a past participle (has, had; tem, tinha)."""
    participle_endings: frozenset[str]
    """Endings of a regular past participle (-ed, -en; -ado, -ido)."""
    relatives: frozenset[str]
    """Relative pronouns (who, which; que, cujo): a name before one is no subject."""
    bare_speech: frozenset[str]
    """What a sentence of speaking may add and still say only that someone spoke
    (something, softly; algo, baixinho)."""
    deciding: frozenset[str]
    """Verbs of deciding and planning: a finite one announces an act, a gerund tells a mind
    (decides, planning; decide, planejando)."""
    joins: frozenset[str]
    """Words joining two subjects of one verb (and, with; e, com)."""
    possessives: frozenset[str]
    """Possessive determiners (his, their; seu, sua)."""
    placing: frozenset[str]
    """Verbs a fact places a thing with (sits, lies, hangs; jaz, repousa), which an act may
    use of a body ("sits down by the fire")."""
    numerals: frozenset[str]
    """Numerals and quantifiers before a noun (two, several; dois, vários): after one, "nós"
    is knots, not "we"."""
    dangling: frozenset[str]
    """Words no finished sentence ends on: articles, possessives, coordinating conjunctions,
    prepositions that are never a particle (the, his, and, of; o, seu, e, de)."""
    code_nouns: frozenset[str]
    """Nouns that name a word kept secret for its exact form (password, code-word; senha,
    palavra-chave): the word after one is a code a memory summary keeps verbatim
    (`physics.verbatim`). A hyphen joins two words written apart or hyphenated."""

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
