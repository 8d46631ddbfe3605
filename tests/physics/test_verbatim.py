"""Which words a condensed memory must keep verbatim (`physics.verbatim`), in both languages.

Each row is a memory line and the codes it holds; the negative controls are summaries that
lose a code in the ways a small model does (rounds a number, respells a password, drops it)
and must be caught, beside the faithful summary that must pass.
"""

from __future__ import annotations

import pytest

from tavern.physics.verbatim import codes, dropped
from tavern.text import lexicon_for

ROWS = [
    ("en", 'Someone said: "The gate code is 4471."', ["4471"]),
    ("en", 'Someone whispered to you: "The password is heron."', ["heron"]),
    ("en", 'Someone said: "The code-word: Owl. At 12:30 by R-17."', ["Owl", "12:30", "R-17"]),
    ("en", "The tall man attempted: slides the HERON seal under the door.", ["HERON"]),
    ("en", "You think: CANARY_7 and blueHeron stay mine.", ["CANARY_7", "blueHeron"]),
    ("en", 'Someone said: "Nobody knows the code of the vault."', []),
    ("en", 'Someone said: "The code of the north gate is 4471."', ["4471"]),
    ("en", 'Someone said: "The password heron opens it."', ["heron"]),
    ("en", 'Someone said: "Three men came, and one of them left."', []),
    ("pt-BR", 'Alguém disse: "A senha é garça."', ["garça"]),
    ("pt-BR", 'Alguém disse: "A senha do portão é garça."', ["garça"]),
    ("pt-BR", 'Alguém sussurrou: "A palavra-chave: lobo. Cofre 4471."', ["lobo", "4471"]),
    ("pt-BR", 'Alguém disse: "A palavra chave é Sabiá, às 23:15."', ["Sabiá", "23:15"]),
    ("pt-BR", 'Alguém disse: "A senha não é essa."', []),
    ("pt-BR", 'Alguém disse: "Um homem e três mulheres chegaram."', []),
]  # fmt: skip


@pytest.mark.parametrize(("language", "line", "expected"), ROWS)
def test_codes_of_a_memory_line(language: str, line: str, expected: list[str]) -> None:
    assert codes(line, lexicon_for(language)) == expected


@pytest.mark.parametrize(
    ("language", "lines", "summary", "lost"),
    [
        ("en", ['Someone said: "The gate code is 4471."'], "I know the gate code: 4471.", []),
        # negative controls: a number rounded, a password respelt or dropped
        ("en", ['Someone said: "The gate code is 4471."'], "I know the gate code: 4470.", ["4471"]),
        ("en", ['Someone said: "The password is heron."'], "The password is Heron.", ["heron"]),
        ("en", ['Someone said: "Pier R-17 at 12:30."'], "Pier R-17 at noon.", ["12:30"]),
        (
            "en",
            ['Someone said: "The gate code is 4471."'],
            "Someone told me a code 44711.",
            ["4471"],
        ),
        ("pt-BR", ['Alguém disse: "A senha é garça."'], "Eu sei a senha: garça.", []),
        ("pt-BR", ['Alguém disse: "A senha é garça."'], "Eu sei a senha: garca.", ["garça"]),
        (
            "pt-BR",
            ['Alguém disse: "O cofre abre com 4471."'],
            "O cofre abre com um número.",
            ["4471"],
        ),
    ],
)
def test_a_summary_that_loses_a_code_is_caught(
    language: str, lines: list[str], summary: str, lost: list[str]
) -> None:
    assert dropped(lines, summary, lexicon_for(language)) == lost
