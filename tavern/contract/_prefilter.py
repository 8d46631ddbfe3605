"""A sound prefilter for regular expressions: literals every match must contain.

Scanning a 20 KB prompt with each of ~50 case-insensitive patterns costs ~100 ms, because
the regex engine tries every position and cannot use its literal-prefix search under
IGNORECASE. Most patterns can only match where some word ("player", "jogador", "keyboard")
occurs, and a substring test for that word is a fast C scan. `required_literals` derives such
words from the parsed pattern itself (never by hand, so they cannot drift from the pattern),
and a pattern runs only on texts that contain one of them. The prefilter only decides
whether the original pattern runs; results come from the original pattern, unchanged.

Soundness, i.e. why a skipped pattern truly has no match:
- Every match of a sequence contains the text matched by each of its mandatory elements, so
  any one element's requirement is a requirement of the sequence; an alternation requires
  the union of its branches'; a repeat with min >= 1 requires its body's.
- Case-insensitive literals are compared after `fold`, which maps every character to the
  representative of the class the regex engine treats as equal (its simple lower case plus
  the engine's own extra equivalences, such as "ı" for "i" and "ſ" for "s").
"""

from __future__ import annotations

import importlib
import re
from collections import OrderedDict
from collections.abc import Hashable
from functools import lru_cache
from typing import Any, Protocol, TypeVar

from tavern.contract._line_index import KNOWN_LINES, Indexed, index
from tavern.contract._moved import Copy, extent, first_outside, moved_copy

# The parser and the engine's case table are private stdlib modules without type stubs;
# they are the exact source of what the engine treats as a literal and as case-equal.
_parser: Any = importlib.import_module("re._parser")
_const: Any = importlib.import_module("re._constants")
_casefix: Any = importlib.import_module("re._casefix")

Requirement = frozenset[str]


class _Clearable(Protocol):
    def cache_clear(self) -> None: ...


CACHE_SIZE = 256
"""Entries per per-content cache: a session's sheet texts (checked once at start) must not
evict the system messages, which repeat on every call."""

CACHES: list[_Clearable] = []
"""Every per-content cache of the contract, so tests and benchmarks can start cold."""

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Recent(OrderedDict[K, V]):
    """The results of the last `kept` texts: what a text extending one of them reuses.

    Registered in `CACHES` on creation unless its owner is. Keys should hash cheaply (strings
    cache their hash).
    """

    def __init__(self, kept: int = CACHE_SIZE, *, register: bool = True) -> None:
        super().__init__()
        self.kept = kept
        if register:  # an owner that is registered itself clears it instead
            CACHES.append(self)

    def put(self, key: K, value: V) -> V:
        """Remember `value` under `key`, forgetting the oldest beyond `kept`; returns it."""
        self[key] = value
        while len(self) > self.kept:
            self.popitem(last=False)
        return value

    def cache_clear(self) -> None:
        """Forget everything (the contract's `clear_caches`)."""
        self.clear()


def _canon_table() -> dict[str, str]:
    table: dict[str, str] = {}
    for lower, others in _casefix._EXTRA_CASES.items():
        members = (lower, *others)
        rep = chr(min(members))
        table.update({chr(m): rep for m in members if chr(m) != rep})
    return table


_CANON = _canon_table()


def _simple_lower(ch: str) -> str:
    # str.lower() is the full mapping; it differs from the engine's one-to-one mapping only
    # for U+0130 ("İ" -> "i" + combining dot), and contextually for final sigma (same class).
    return "i" if ch == "\u0130" else ch.lower()


def _fold_char(code: int, ignorecase: bool) -> str:
    ch = chr(code)
    if not ignorecase:
        return ch
    low = _simple_lower(ch)
    return _CANON.get(low, low)


def _fold_any(text: str) -> str:
    folded = text.replace("\u0130", "i").lower() if "\u0130" in text else text.lower()
    if not folded.isascii():
        for other, rep in _CANON.items():
            if other in folded:
                folded = folded.replace(other, rep)
    return folded


_LATIN1_FOLD = bytes(ord(_fold_any(chr(code))) for code in range(256))
"""`fold` of each Latin-1 character, which is one Latin-1 character (`bytes` refuses any
other): a Latin-1 text folds by a byte table, without the per-character case lookups that
`str.lower` makes once a text is not ASCII."""


@lru_cache(maxsize=CACHE_SIZE)
def fold(text: str) -> str:
    """The text as case-insensitive patterns see it: one character per character, canonical.

    Example:
        >>> fold("O JOGADOR ſabe · À")
        'o jogador sabe · à'
    """
    if text.isascii():
        return text.lower()
    try:
        latin1 = text.encode("latin-1")
    except UnicodeEncodeError:
        return _fold_any(text)
    return latin1.translate(_LATIN1_FOLD).decode("latin-1")


def _strength(req: Requirement) -> tuple[bool, int, int]:
    # Check first the sets most likely to fail fast: literals of 4+ characters (rare in
    # prose), then few of them (each is one scan of the text), then the longest.
    shortest = min(len(s) for s in req)
    return (shortest >= 4, -len(req), shortest)


def _sequence(items: Any, ignorecase: bool) -> Requirement | None:
    candidates = _requirements(items, ignorecase)
    return max(candidates, key=_strength) if candidates else None


def _requirements(items: Any, ignorecase: bool) -> list[Requirement]:
    """Every requirement of a sequence: each mandatory element's is necessary on its own."""
    candidates: list[Requirement] = []
    run: list[str] = []
    for op, av in items:
        if op is _const.LITERAL:
            run.append(_fold_char(av, ignorecase))
            continue
        if run:
            candidates.append(frozenset({"".join(run)}))
            run = []
        need = _element(op, av, ignorecase)
        if need:
            candidates.append(need)
    if run:
        candidates.append(frozenset({"".join(run)}))
    return candidates


def _element(op: Any, av: Any, ignorecase: bool) -> Requirement | None:
    if op is _const.SUBPATTERN:
        _group, add_flags, del_flags, body = av
        # Scoped flags would change case handling inside; claim nothing rather than guess.
        return None if add_flags or del_flags else _sequence(body, ignorecase)
    if op is _const.BRANCH:
        branches = [_sequence(b, ignorecase) for b in av[1]]
        if any(b is None for b in branches):
            return None
        return frozenset().union(*[b for b in branches if b is not None])
    if op in (_const.MAX_REPEAT, _const.MIN_REPEAT, _const.POSSESSIVE_REPEAT):
        low, _high, body = av
        return _sequence(body, ignorecase) if low >= 1 else None
    if op is _const.IN and all(o is _const.LITERAL for o, _ in av):
        return frozenset(_fold_char(code, ignorecase) for _, code in av)
    # Assertions, word boundaries, categories, negated sets, groups by reference: no claim.
    return None


def required_literals(pattern: re.Pattern[str]) -> tuple[bool, tuple[Requirement, ...]]:
    """Literal sets every match of `pattern` needs: one string of each set, in the match.

    Returns:
        `(ignorecase, requirements)`: when `ignorecase`, the literals are folded and must be
        looked for in `fold(text)`; otherwise in the raw text. Rarest set first; empty when
        the pattern needs no literal (it must then always run).

    Example:
        >>> ignorecase, needs = required_literals(re.compile(r"\\bthe\\s+(?:player|user)", re.I))
        >>> ignorecase, [sorted(n) for n in needs]
        (True, [['player', 'user'], ['the']])
    """
    parsed = _parser.parse(pattern.pattern, pattern.flags)
    ignorecase = bool(parsed.state.flags & re.IGNORECASE)
    needs = [n for n in _requirements(parsed.data, ignorecase) if "" not in n]
    return ignorecase, tuple(sorted(set(needs), key=_strength, reverse=True))


class _Probe:
    """Where each literal first occurs in one text (raw and folded), found lazily.

    Consecutive prompts of a role share most of their text as a prefix. When a recent text
    shares the first `k` characters, a literal's first occurrence there, if it ends within
    `k`, is also its first occurrence here; otherwise this text has none before position
    `k - len(literal) + 1`, so only the new tail is searched. Without such a prefix, a
    literal missing from the role's prompt before its history window moved is searched only
    outside the stretches copied from it (`_moved`). Exact in each case.
    """

    def __init__(self, text: str) -> None:
        self.raw, self.head = text, text[:MIN_SHARED]
        self.found: dict[bool, dict[str, int]] = {False: {}, True: {}}
        """ignorecase -> literal -> first index (two plain dicts: no key tuple per lookup)."""
        self.base: dict[bool, dict[str, int]] = {False: {}, True: {}}
        self.shared = {False: 0, True: 0}
        self.base_text: str | None = None
        """The recent text sharing the longest prefix (other scans reuse its results)."""
        self.folded: str
        """`fold(text)`: each character maps alone, so the shared prefix's fold is reused."""
        self.firsts: dict[bool, Indexed] = {}
        """ignorecase -> (the watched literals, the first index of each one present)."""
        self.base_firsts: dict[bool, Indexed] = {}
        shared, best = 0, None
        if len(text) >= MIN_SHARED:
            for length, probe in _candidates(text, self.head):
                if length > shared:
                    shared, best = length, probe
        self.moved: Copy | None = None
        """Where this text copies a recent one of its role from before the history window
        moved (only for a text without a shared prefix)."""
        if best is not None and shared >= MIN_SHARED:
            self.base = best.found  # the dicts only: probes never chain to older probes
            self.base_firsts = best.firsts
            self.base_text = best.raw
            # The folded texts share at least as much; any shorter length keeps reuse exact.
            self.shared = {False: shared, True: shared}
            self.folded = best.folded[:shared] + fold(text[shared:])
            return
        earlier = _newest_opening_alike(text) if len(text) >= MIN_SHARED else None
        self.moved = moved_copy(text, earlier.raw) if earlier is not None else None
        if earlier is None or self.moved is None:
            self.folded = fold(text)
            return
        self.base = earlier.found
        start, end, offset = self.moved
        copied = earlier.folded[start + offset : end + offset]
        self.folded = earlier.folded[:start] + copied + fold(text[end:])

    def index_watched(self) -> None:
        """Fill `found` with every watched literal's first index at once (`_line_index`)."""
        for ignorecase in (False, True):
            haystack = self.folded if ignorecase else self.raw
            base = self.base_firsts.get(ignorecase)
            made = index(haystack, ignorecase, base, self.shared[ignorecase])
            if made is not None:
                watched, firsts = self.firsts[ignorecase] = made
                self.found[ignorecase] = {**dict.fromkeys(watched, -1), **firsts}

    def first(self, ignorecase: bool, literal: str) -> int:
        """Index of the first occurrence of `literal` (folded when `ignorecase`), or -1."""
        found = self.found[ignorecase]
        at = found.get(literal)
        if at is None:
            haystack = self.folded if ignorecase else self.raw
            shared = self.shared[ignorecase]
            before = self.base[ignorecase].get(literal)
            if before is None:
                at = haystack.find(literal)
            elif self.moved is not None:
                at = (
                    haystack.find(literal)
                    if before != -1
                    else first_outside(haystack, literal, self.moved)
                )
            elif before != -1 and before + len(literal) <= shared:
                at = before
            else:
                at = haystack.find(literal, max(0, shared - len(literal) + 1))
            found[literal] = at
        return at


MIN_SHARED = 1024
"""Shorter shared prefixes are not worth reusing (a different role's prompt)."""
_HEAD = 64
"""A text without a shared prefix looks for a moved copy in the newest recent text opening
with as many of the same characters."""
_RECENT: list[_Probe] = []
_RECENT_KEPT = 32
"""Texts remembered as bases: enough to hold each role's previous prompt (a character
speaks every few beats, with other prompts in between)."""
_CANDIDATES = 4
"""Recent texts with the same head compared in full, newest first: the newest prompt of a
role is nearly always the best base, and any base keeps the reuse exact."""
_GOOD_ENOUGH = 2048
"""A candidate leaving at most this many characters to read ends the comparisons: an older
one could only shorten that tail."""


def _candidates(text: str, head: str) -> list[tuple[int, _Probe]]:
    """(shared length, probe) of the newest recent texts opening with the same `head`.

    A text opening differently shares under `MIN_SHARED` characters: not worth a base.
    """
    found = []
    for probe in reversed(_RECENT):
        if probe.head == head:
            shared = common_prefix(probe.raw, text)
            found.append((shared, probe))
            if len(found) == _CANDIDATES or shared >= len(text) - _GOOD_ENOUGH:
                break
    return found


def _newest_opening_alike(text: str) -> _Probe | None:
    """The newest recent text opening with the same `_HEAD` characters (most likely the
    same role's prompt from before its history window moved)."""
    opening = text[:_HEAD]
    return next((p for p in reversed(_RECENT) if p.head.startswith(opening)), None)


def common_prefix(a: str, b: str) -> int:
    """Length of the longest common prefix, 0 when the first `MIN_SHARED` characters differ
    (a prefix that short is not worth reusing).

    >>> common_prefix("x" * 5000 + "abc", "x" * 5000 + "abd")
    5002
    """
    return extent(a, 0, b, 0, step=4096) if a[:MIN_SHARED] == b[:MIN_SHARED] else 0


def shared_base(text: str) -> tuple[str | None, int]:
    """The recent text sharing the longest prefix with `text` (if long enough), and that
    length: what a scan of `text` may reuse."""
    probe = _probe(text)
    return probe.base_text, probe.shared[False]


def folded(text: str) -> str:
    """`fold(text)`, computed once per text with its probe (reusing a recent text's fold
    over their shared prefix)."""
    return _probe(text).folded


@lru_cache(maxsize=CACHE_SIZE)
def _probe(text: str) -> _Probe:
    probe = _Probe(text)
    probe.index_watched()
    _RECENT.append(probe)
    del _RECENT[:-_RECENT_KEPT]
    return probe


def may_match(ignorecase: bool, needs: tuple[Requirement, ...], text: str) -> bool:
    """False only when `text` cannot contain a match (see `required_literals`)."""
    probe = _probe(text)
    found = probe.found[ignorecase]
    for need in needs:
        for literal in need:
            at = found.get(literal)  # `first` inlined for the common case: already looked up
            if (at if at is not None else probe.first(ignorecase, literal)) != -1:
                break
        else:
            return False
    return True


def indexed(text: str) -> dict[bool, Indexed]:
    """ignorecase -> the line index of `text`, for each case mode that has one (`_line_index`)."""
    return _probe(text).firsts


class _RecentProbes:
    @staticmethod
    def cache_clear() -> None:
        _RECENT.clear()


CACHES.extend([fold, _probe, _RecentProbes(), *KNOWN_LINES.values()])
