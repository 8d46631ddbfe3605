"""Produce one string matching a regular expression, deterministically from a seeded RNG.

Enough of the regex language for the patterns JSON Schemas carry (ids, slugs, codes):
literals, classes, ranges, categories, alternation, groups, bounded and unbounded repeats.
Lookarounds and backreferences to unmatched groups are not supported.
"""

from __future__ import annotations

import importlib
import random
import string
from typing import Any

_parser: Any = importlib.import_module("re._parser")  # the stdlib's own regex parser
_c: Any = importlib.import_module("re._constants")

UNBOUNDED_EXTRA = 3
_CATEGORY_CHARS = {
    "CATEGORY_DIGIT": string.digits,
    "CATEGORY_NOT_DIGIT": string.ascii_letters,
    "CATEGORY_SPACE": " ",
    "CATEGORY_NOT_SPACE": string.ascii_letters + string.digits,
    "CATEGORY_WORD": string.ascii_letters + string.digits + "_",
    "CATEGORY_NOT_WORD": " -.",
}
_PRINTABLE = string.ascii_letters + string.digits + " _-."


def _class_chars(items: list[tuple[Any, Any]]) -> str:
    chars: list[str] = []
    negate = False
    for op, arg in items:
        name = str(op)
        if name == "NEGATE":
            negate = True
        elif name == "LITERAL":
            chars.append(chr(arg))
        elif name == "RANGE":
            lo, hi = arg
            chars.extend(chr(c) for c in range(lo, min(hi, lo + 200) + 1))
        elif name == "CATEGORY":
            chars.extend(_CATEGORY_CHARS.get(str(arg), ""))
    if negate:
        banned = set(chars)
        return "".join(c for c in _PRINTABLE if c not in banned)
    return "".join(chars)


def _emit(parsed: Any, rng: random.Random, groups: dict[int, str]) -> str:
    out: list[str] = []
    for op, arg in parsed:
        name = str(op)
        if name == "LITERAL":
            out.append(chr(arg))
        elif name == "NOT_LITERAL":
            out.append(next(c for c in _PRINTABLE if ord(c) != arg))
        elif name == "ANY":
            out.append(rng.choice(string.ascii_letters))
        elif name == "IN":
            chars = _class_chars(arg)
            out.append(rng.choice(chars) if chars else "a")
        elif name == "BRANCH":
            out.append(_emit(rng.choice(arg[1]), rng, groups))
        elif name == "SUBPATTERN":
            group, sub = arg[0], arg[-1]
            text = _emit(sub, rng, groups)
            if group is not None:
                groups[group] = text
            out.append(text)
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            lo, hi, sub = arg
            top = lo + UNBOUNDED_EXTRA if hi == _c.MAXREPEAT else hi
            count = rng.randint(lo, max(lo, min(top, lo + UNBOUNDED_EXTRA)))
            out.extend(_emit(sub, rng, groups) for _ in range(count))
        elif name == "GROUPREF":
            out.append(groups.get(arg, ""))
        elif name == "ATOMIC_GROUP":
            out.append(_emit(arg, rng, groups))
        elif name in ("AT",):
            continue
        else:
            raise ValueError(f"unsupported regex construct {name}")
    return "".join(out)


def sample_regex(pattern: str, rng: random.Random) -> str:
    """Return a string `re.search(pattern, s)` accepts (JSON Schema patterns are unanchored).

    Raises:
        ValueError: the pattern uses an unsupported construct.
    """
    return _emit(_parser.parse(pattern), rng, {})
