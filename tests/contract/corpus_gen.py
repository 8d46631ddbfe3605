"""The contract's generated corpus: templates x synonyms x languages, in two disjoint splits.

Each planted template states one operator leak of one lexical family (noun, role, negated,
verb); each clean template an in-fiction use of the same words (a lute player, o jogador de
xadrez, the operator of the ferry, humans as a people). Slots are filled with synonyms; a
template and its fillers yield up to `PER_TEMPLATE` cases, chosen by a seeded shuffle.

The two splits share no template and no synonym: `tune` is what the rules were tuned on,
`heldout` is only measured (`benchmarks/contract.py`). Both, and the lexicon's contract word
classes, were written before the rules were rebuilt; the held-out files are never read while
tuning. The generated files are committed; `test_generated_corpus_is_current` regenerates
them and fails on any drift.

Run: .venv/bin/python tests/contract/corpus_gen.py  (rewrites tests/contract/corpus/gen_*.jsonl)
"""

from __future__ import annotations

import itertools
import json
import random
import string
from pathlib import Path

SEED = "tavern-contract-corpus-1"
PER_TEMPLATE = 4
SPLITS = ("tune", "heldout")
CORPUS = Path(__file__).parent / "corpus"
CAST = {"en": ["Mara", "Rui", "Tomas"], "pt-BR": ["Joana", "Caio", "Bento"]}

Slots = dict[str, list[str]]
Templates = list[tuple[str | None, str]]
"""(intended rule, or None for a clean case; template with {slot} fields). A field written
with a capital first letter is the slot's filler with its first letter capitalized."""

# --- English -------------------------------------------------------------------------------

EN_SLOTS: dict[str, Slots] = {
    "tune": {
        "name": ["Mara", "Rui", "Tomas"],
        "op_np": ["the player", "the user", "our player", "your user", "this player"],
        "op_pl": ["the players", "the users"],
        "op_by": ["the human", "the user", "a player", "a real person"],
        "op_word": ["player", "user", "human"],
        "ctl": ["controlled", "played", "voiced", "driven"],
        "compound": ["human-controlled", "player-driven", "user-controlled"],
        "person": ["the person", "someone", "the one"],
        "iface": ["keyboard", "computer"],
        "avatar": ["avatar", "character", "persona"],
        "for_verb": ["speak", "decide", "act"],
        "ger": ["typing", "controlling", "playing"],
        "neg_do": ["do not", "don't"],
        "ctl_base": ["control", "play"],
        "no_op": ["No human", "No player", "No user"],
        "ctl_s": ["controls", "plays"],
        "pc": ["player character", "PC", "player-character"],
        "tverb": ["types", "writes", "decides", "chooses"],
        "input": ["input", "message", "reply", "turn"],
        "tpart": ["typed", "written", "entered"],
        "line": ["I open the door.", "Pour me one more."],
        "instrument": ["lute", "harp", "flute"],
        "game": ["card", "dice", "chess"],
        "troupe": ["troupe", "company", "guild band"],
        "magic": ["forbidden magic", "old charms", "blood rites"],
        "thing": ["gate", "ship", "mill"],
        "ctl_fiction": ["controlled", "run", "steered"],
        "crew": ["the guards", "a skeleton crew", "the miller's sons"],
        "folk": ["ranger", "merchant", "sailor"],
        "vehicle": ["ferry", "crane", "lock"],
    },
    "heldout": {
        "name": ["Ilse", "Teodor", "Maren"],
        "op_np": ["a user", "that player", "my player", "the gamer", "the end user"],
        "op_pl": ["our players", "all the users", "the gamers"],
        "op_by": ["the player", "a human", "the operator", "someone real", "a live user"],
        "op_word": ["gamer", "operator"],
        "ctl": ["puppeted", "operated", "portrayed", "steered", "managed", "handled"],
        "compound": ["player-controlled", "human-driven", "user-run", "human-operated"],
        "person": ["whoever sits", "the individual", "the human"],
        "iface": ["terminal", "screen", "console"],
        "avatar": ["stand-in", "proxy", "alter ego", "puppet"],
        "for_verb": ["write", "answer", "choose"],
        "ger": ["deciding", "writing", "steering"],
        "neg_do": ["never", "do not get to"],
        "ctl_base": ["drive", "voice", "steer"],
        "no_op": ["No real person", "Nobody behind the screen", "No gamer"],
        "ctl_s": ["drives", "voices", "decides for"],
        "pc": ["playable character", "player's character"],
        "tverb": ["will decide", "describes", "selects", "is going to choose", "submits"],
        "input": ["move", "answer", "command", "choice", "prompt"],
        "tpart": ["submitted", "sent", "dictated", "chosen"],
        "line": ["We ride at dawn.", "Give me the key."],
        "instrument": ["fiddle", "drum", "piano"],
        "game": ["backgammon", "tafl", "knucklebones"],
        "troupe": ["circus", "the duke's players' guild", "choir"],
        "magic": ["the old well", "the ferry pass", "the east road"],
        "thing": ["caravan", "tower", "fleet"],
        "ctl_fiction": ["commanded", "driven", "operated"],
        "crew": ["a human", "the watch", "an old woman"],
        "folk": ["humans", "human merchants", "human pilgrims"],
        "vehicle": ["bridge", "gate", "telegraph"],
    },
}

EN_TEMPLATES: dict[str, Templates] = {
    "tune": [
        ("lexical_noun", "{Op_np} controls {name}. Describe the tavern around {name}."),
        ("lexical_noun", "Never address {op_pl} directly; stay inside the story."),
        ("lexical_noun", "Keep {op_np} curious about what happens next."),
        ("lexical_noun", "{name} is the {pc}; the others are yours to voice."),
        ("lexical_noun", "Do not reveal the rules to {op_np}."),
        ("lexical_role", "{name} is {ctl} by {op_by}. Write only for the others."),
        ("lexical_role", "{name} is a {compound} character; the rest are yours."),
        ("lexical_role", "Write for {person} at the {iface}, who enjoys slow scenes."),
        ("lexical_role", "{name} is the {op_word}'s {avatar} in this story."),
        ("lexical_role", "Do not {for_verb} for the {op_word}; only the others are yours."),
        ("lexical_negated", "You are not the one {ger}; stay in character as {name}."),
        ("lexical_negated", "{name} is not {ctl} by {op_by}, so you may speak for {name}."),
        ("lexical_negated", "You {neg_do} {ctl_base} this character; just describe the room."),
        ("lexical_negated", "{no_op} {ctl_s} {name}; that voice is entirely yours."),
        ("lexical_negated", "{name} is not a {pc}."),
        ("lexical_verb", "{Op_np} {tverb} {name}'s lines; respond to them in character."),
        ("lexical_verb", "Wait for the {op_word} before moving the scene along."),
        ("lexical_verb", "Continue the story from the {op_word} {input} below."),
        ("lexical_verb", "You play as {name} in this story."),
        ("lexical_verb", "The following line was {tpart} by {op_np}:\n{line}"),
        ("lexical_verb", "Respond to the {op_word}'s {input} as the narrator."),
        (None, "A {instrument} player sits by the fire, tuning the strings."),
        (None, "The {game} players at the corner table curse their luck."),
        (None, "The players of the {troupe} rehearse in the courtyard."),
        (None, "{name} is a user of {magic}."),
        (None, "The {thing} is {ctl_fiction} by {crew}, who answer to the count."),
        (None, "The human {folk} and the elf share a bottle of wine."),
        (None, "{name} plays the {instrument} badly but with joy."),
        (None, "{name} types nothing; {name} cannot write at all."),
        (None, "The operator of the {vehicle} demands payment."),
        (
            None,
            "Rain drums on the shutters. {name} deals another hand to the {game} players, who"
            " have been at the table since dusk, and the innkeeper pretends not to notice who"
            " is winning.",
        ),
    ],
    "heldout": [
        ("lexical_noun", "Make sure {op_np} never feels lost in the scene."),
        ("lexical_noun", "Everything {op_np} sees must stay inside the fiction."),
        ("lexical_noun", "Surprise {op_pl} with a twist before the scene ends."),
        ("lexical_noun", "{name} belongs to {op_np}; voice only the others."),
        ("lexical_noun", "{name} is our {pc}, so leave {name} silent."),
        ("lexical_role", "One character here is {ctl} by {op_by}."),
        ("lexical_role", "{name}, the {op_word}'s {avatar}, enters first."),
        ("lexical_role", "{Person} at the {iface} decides what {name} says."),
        ("lexical_role", "{name} is {compound}; never narrate {name}'s thoughts."),
        ("lexical_role", "Let the {op_word} {for_verb} for {name}; you handle the rest."),
        ("lexical_negated", "{name} is never {ctl} by {op_by}."),
        ("lexical_negated", "{no_op} speaks for {name}; the voice is yours."),
        ("lexical_negated", "{name} isn't being {ctl} by anyone real."),
        ("lexical_negated", "You aren't the one {ger} for {name}."),
        ("lexical_negated", "You {neg_do} {ctl_base} {name}; someone else does."),
        ("lexical_verb", "{Op_np} {tverb} what {name} does next."),
        ("lexical_verb", "Await the {op_word}'s next {input}."),
        ("lexical_verb", "{name}'s actions were {tpart} by {op_np}."),
        ("lexical_verb", "You are playing as {name} tonight."),
        ("lexical_verb", "Read the {op_word} {input} and answer as {name}."),
        (None, "The best {game} player in the port deals the next hand."),
        (None, "Two players from the {troupe} argue about the tune."),
        (None, "Every human in the valley turns toward the door."),
        (None, "{name} was {ctl_fiction} by rage that night."),
        (None, "The {vehicle} operator collects fees at dawn."),
        (None, "A user fee of two coppers is charged at the {vehicle}."),
        (None, "{name} keeps both hands on the keyboard of the {instrument}."),
        (None, "The {thing} is {ctl_fiction} by {crew}."),
        (None, "{Folk} and dwarves share the market square."),
        (None, "The {instrument} player decides to keep watch by the window."),
        (
            None,
            "Nobody in the hall believes the stranger, least of all {name}, who has seen a"
            " hundred {folk} pass through and knows a lie when it plays out in front of her.",
        ),
    ],
}

# --- Brazilian Portuguese --------------------------------------------------------------------

PT_SLOTS: dict[str, Slots] = {
    "tune": {
        "name": ["Joana", "Caio", "Bento"],
        "op_subj": ["o jogador", "a jogadora", "o usuário", "nosso jogador"],
        "op_pl": ["os jogadores", "os usuários"],
        "op_dat": ["ao jogador", "à jogadora", "ao usuário"],
        "op_gen": ["do jogador", "da jogadora", "do usuário"],
        "op_by": ["pelo humano", "pelo jogador", "pela usuária", "por um jogador"],
        "op_bare": ["humano", "jogador", "usuário"],
        "ctl_f": ["controlada", "interpretada", "jogada", "conduzida"],
        "ctl_m": ["controlado", "interpretado", "comandado"],
        "pos": ["atrás do", "no", "diante do"],
        "avatar": ["o avatar", "a personagem", "a persona"],
        "tverb": ["digita", "escreve", "decide", "escolhe"],
        "input": ["mensagem", "entrada", "resposta"],
        "tpart_f": ["digitadas", "escritas", "enviadas"],
        "instrument": ["alaúde", "harpa", "flauta"],
        "game": ["cartas", "dados", "xadrez"],
        "magic": ["magia proibida", "velhos feitiços"],
        "place": ["taverna", "ponte", "feira"],
        "group": ["guilda dos mercadores", "guarda da cidade"],
        "vehicle": ["balsa", "carroça"],
    },
    "heldout": {
        "name": ["Ilse", "Teodoro", "Marina"],
        "op_subj": ["a usuária", "o operador", "este jogador", "seu usuário", "o gamer"],
        "op_pl": ["as jogadoras", "nossos usuários", "os gamers"],
        "op_dat": ["aos jogadores", "à usuária", "ao operador"],
        "op_gen": ["dos jogadores", "da usuária", "do operador"],
        "op_by": ["pela jogadora", "pelo usuário", "por uma pessoa real", "pelo operador"],
        "op_bare": ["operador", "gamer"],
        "ctl_f": ["manipulada", "pilotada", "dublada", "guiada", "vivida"],
        "ctl_m": ["dirigido", "manipulado", "representado", "operado"],
        "pos": ["ao", "em frente ao", "sentada ao"],
        "avatar": ["o representante", "a marionete", "o alter ego"],
        "tverb": ["vai decidir", "descreve", "seleciona", "vai escolher", "narra"],
        "input": ["jogada", "escolha", "vez"],
        "tpart_f": ["ditadas", "escolhidas", "submetidas"],
        "instrument": ["rabeca", "tambor", "piano"],
        "game": ["damas", "truco", "gamão"],
        "magic": ["poço velho", "estrada do leste"],
        "place": ["vale", "praça", "porto"],
        "group": ["guarda da muralha", "velha do moinho"],
        "vehicle": ["ponte", "eclusa"],
    },
}

PT_TEMPLATES: dict[str, Templates] = {
    "tune": [
        ("lexical_noun", "{Op_subj} escolhe as falas de {name}."),
        ("lexical_noun", "Não revele nada {op_dat} sobre as regras."),
        ("lexical_noun", "{name} é a personagem {op_gen}; os outros são seus."),
        ("lexical_noun", "{Op_pl} esperam a próxima cena com ansiedade."),
        ("lexical_noun", "{Op_subj} pode intervir a qualquer momento."),
        ("lexical_role", "{name} é uma personagem {ctl_f} {op_by}; não fale por ela."),
        ("lexical_role", "Escreva para a pessoa {pos} teclado."),
        ("lexical_role", "{name} é {avatar} {op_gen} nesta história."),
        ("lexical_role", "Lembre que quem está digitando controla {name}."),
        ("lexical_role", "Não fale {op_by}; só os outros são seus."),
        ("lexical_negated", "Você não é quem está digitando, {name}."),
        ("lexical_negated", "{name} não é um personagem {ctl_m} {op_by}."),
        ("lexical_negated", "Nenhum {op_bare} controla {name} nesta cena."),
        ("lexical_negated", "Lembre: {name} não é {op_subj}."),
        ("lexical_negated", "Você não controla este personagem; apenas narre."),
        ("lexical_verb", "{Op_subj} {tverb} as falas de {name}; responda a elas."),
        ("lexical_verb", "Continue a partir da {input} {op_gen} abaixo."),
        ("lexical_verb", "Você joga como {name} nesta cena."),
        ("lexical_verb", "Aguarde {op_subj} antes de continuar a cena."),
        ("lexical_verb", "As ações de {name} foram {tpart_f} {op_by}."),
        (None, "Um tocador de {instrument} afina as cordas perto da lareira."),
        (None, "Os jogadores de {game} gritam na mesa do canto."),
        (None, "O jogador de {game} move a peça devagar."),
        (None, "{name} tem sangue humano; os elfos desconfiam disso."),
        (None, "O usuário de {magic} foi preso pela guarda."),
        (None, "A {place} é controlada pela {group}."),
        (None, "{name} controla a porta com uma tranca de ferro."),
        (None, "O operador da {vehicle} cobra a passagem."),
        (None, "{name} não sabe escrever; nunca digitou nada na vida."),
        (
            None,
            "A chuva bate nas janelas. {name} distribui mais uma mão aos jogadores de {game},"
            " que estão na mesa desde o anoitecer.",
        ),
    ],
    "heldout": [
        ("lexical_noun", "Nunca fale diretamente com {op_subj}."),
        ("lexical_noun", "Tudo o que {op_subj} vê precisa ficar dentro da ficção."),
        ("lexical_noun", "Surpreenda {op_pl} com uma reviravolta antes do fim da cena."),
        ("lexical_noun", "{name} pertence {op_dat}; dê voz só aos outros."),
        ("lexical_noun", "Lembre-se de que {op_subj} gosta de cenas lentas."),
        ("lexical_role", "Uma das personagens é {ctl_f} {op_by}."),
        ("lexical_role", "{name}, {avatar} {op_gen}, entra primeiro."),
        ("lexical_role", "Quem estiver {pos} teclado decide o que {name} diz."),
        ("lexical_role", "As falas de {name} vêm da pessoa {pos} computador."),
        ("lexical_role", "{name} é uma figura {ctl_f} por um humano de carne e osso."),
        ("lexical_negated", "O personagem {name} nunca é {ctl_m} {op_by}."),
        ("lexical_negated", "Ninguém {pos} teclado fala por {name}."),
        ("lexical_negated", "O personagem {name} não está sendo {ctl_m} por ninguém real."),
        ("lexical_negated", "Nenhum {op_bare} decide por {name}."),
        ("lexical_negated", "Você não está no controle de {name}; a história está."),
        ("lexical_verb", "{Op_subj} {tverb} o que {name} faz em seguida."),
        ("lexical_verb", "Espere a próxima {input} {op_gen}."),
        ("lexical_verb", "As falas de {name} foram {tpart_f} {op_by}."),
        ("lexical_verb", "Você está jogando como {name} hoje."),
        ("lexical_verb", "Leia o texto {op_gen} e responda como {name}."),
        (None, "O melhor jogador de {game} do porto distribui as cartas."),
        (None, "Todo humano do {place} teme os lobos."),
        (None, "A vontade de {name} foi controlada pela raiva naquela noite."),
        (None, "A {group} espera o ferreiro antes de partir."),
        (None, "Humanos e anões dividem a {place}."),
        (None, "Os jogadores do time do {place} comemoram na praça."),
        (None, "O teclado do velho {instrument} está rachado."),
        (None, "Cada jogador compra três cartas."),
        (None, "O operador da {vehicle} cobra a passagem em moedas de cobre."),
        (
            None,
            "Ninguém no salão acredita no forasteiro, muito menos {name}, que já viu muitos"
            " humanos passarem por aqui e reconhece uma mentira quando a ouve.",
        ),
    ],
}

LANGUAGES: dict[str, tuple[dict[str, Slots], dict[str, Templates]]] = {
    "en": (EN_SLOTS, EN_TEMPLATES),
    "pt-BR": (PT_SLOTS, PT_TEMPLATES),
}


def _fields(template: str) -> list[str]:
    return sorted({f for _, f, _, _ in string.Formatter().parse(template) if f})


def _fill(template: str, slots: Slots, rng: random.Random) -> list[str]:
    """Up to `PER_TEMPLATE` distinct fillings of `template`, chosen by `rng`."""
    fields = _fields(template)
    options = [slots[f[0].lower() + f[1:]] for f in fields]
    combos = list(itertools.product(*options))
    rng.shuffle(combos)
    texts: list[str] = []
    for combo in combos:
        values = {
            f: (v[:1].upper() + v[1:] if f[0].isupper() else v)
            for f, v in zip(fields, combo, strict=True)
        }
        text = template.format(**values)
        if text not in texts:
            texts.append(text)
        if len(texts) == PER_TEMPLATE:
            break
    return texts


def generate(split: str) -> tuple[list[dict[str, object]], list[dict[str, object]]]:
    """(planted, clean) cases of one split, as corpus lines (see `corpus_stats.load`)."""
    planted: list[dict[str, object]] = []
    clean: list[dict[str, object]] = []
    for lang, (slots, templates) in LANGUAGES.items():
        for t, (rule, template) in enumerate(templates[split]):
            rng = random.Random(f"{SEED}:{split}:{lang}:{t}")
            for k, text in enumerate(_fill(template, slots[split], rng)):
                case: dict[str, object] = {
                    "id": f"g{split[0]}-{lang}-{t:02d}-{k}",
                    "lang": lang,
                    "rule": rule,
                    "cast": CAST[lang] if split == "tune" else slots[split]["name"],
                    "messages": [{"role": "system", "content": text}],
                    "note": f"generated ({split}, template {t})",
                }
                if rule is None:
                    del case["rule"]
                    clean.append(case)
                else:
                    planted.append(case)
    return planted, clean


def overlaps(languages: dict[str, tuple[dict[str, Slots], dict[str, Templates]]]) -> list[str]:
    """What the two splits share (templates, or fillers of one slot): must be nothing.

    >>> overlaps({"en": ({"tune": {"x": ["a", "b"]}, "heldout": {"x": ["b"]}}, {})})
    ['en slot x: b']
    """
    shared = []
    for lang, (slots, templates) in languages.items():
        tuned = {t for _, t in templates.get("tune", [])}
        shared += [f"{lang} template: {t}" for _, t in templates.get("heldout", []) if t in tuned]
        for slot, fillers in slots.get("heldout", {}).items():
            both = sorted(set(fillers) & set(slots.get("tune", {}).get(slot, [])))
            shared += [f"{lang} slot {slot}: {f}" for f in both]
    return shared


def rendered() -> dict[str, str]:
    """File name -> the JSONL text the generator gives for it."""
    files = {}
    for split in SPLITS:
        planted, clean = generate(split)
        for kind, cases in (("planted", planted), ("clean", clean)):
            lines = [json.dumps(c, ensure_ascii=False) for c in cases]
            files[f"gen_{split}_{kind}.jsonl"] = "\n".join(lines) + "\n"
    return files


def main() -> None:
    for name, text in rendered().items():
        (CORPUS / name).write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
