"""The filter protocol: one `Rule` shape, and `apply_rules`, the one way to run a registry.

A rule has a name (what the journal counts it by), the targets it repairs (the narration,
or a reply's speech, thought or action_intent) and the languages it reads; `apply` takes
the texts of one answer and returns them repaired, with one typed `FilterCut` per text it
changed. Most rules repair one text at a time and are a `TextRule` around a pure function
`(text, target, ctx) -> text`; a rule that moves words between a reply's fields implements
`apply` itself. `apply_rules` runs a registry in order under a profile: a rule outside the
profile does not run, and a rule that does not declare the context's language is skipped
and named in the result, so a campaign sees what a language went without.

Example:
    >>> shout = TextRule("shout", frozenset({"speech"}), frozenset({"en"}),
    ...                  lambda text, target, ctx: text.upper())
    >>> result = apply_rules([shout], {"speech": "hi."}, FilterContext(), {"shout"})
    >>> result.texts["speech"], [(c.rule, c.target, c.before, c.after) for c in result.cuts]
    ('HI.', [('shout', 'speech', 'hi.', 'HI.')])
    >>> apply_rules([shout], {"speech": "oi."}, FilterContext(language="pt-BR"), {"shout"}).skipped
    ['shout']
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from tavern.filters.context import FilterContext, Target
from tavern.records import FilterCut
from tavern.records.scenario import Language

Texts = dict[Target, str]
"""The texts of one answer by target; a missing or empty text is no text."""
Repair = Callable[[str, Target, FilterContext], str]
"""A pure repair of one text: the text it returns replaces it ("" removes it)."""


class Rule(Protocol):
    """A filter rule (see the module)."""

    @property
    def name(self) -> str:
        """The rule's name in the journal and the profiles."""
        ...

    @property
    def targets(self) -> frozenset[Target]:
        """What the rule repairs."""
        ...

    @property
    def languages(self) -> frozenset[Language]:
        """The languages the rule reads; it is skipped for any other."""
        ...

    def apply(self, texts: Texts, ctx: FilterContext) -> tuple[Texts, list[FilterCut]]:
        """`texts` repaired, and a cut for each text that changed."""
        ...


@dataclass(frozen=True)
class TextRule:
    """A rule that repairs each of its targets' texts alone with `repair`."""

    name: str
    targets: frozenset[Target]
    languages: frozenset[Language]
    repair: Repair

    def apply(self, texts: Texts, ctx: FilterContext) -> tuple[Texts, list[FilterCut]]:
        """Each text of `targets` through `repair` (see `Rule.apply`)."""
        out = dict(texts)
        cuts: list[FilterCut] = []
        for target, text in texts.items():
            if target in self.targets and text:
                after = self.repair(text, target, ctx)
                if after != text:
                    out[target] = after
                    cuts.append(cut(self.name, target, ctx, text, after))
        return out, cuts


def cut(rule: str, target: Target, ctx: FilterContext, before: str, after: str) -> FilterCut:
    """The journal's record of one change."""
    return FilterCut(
        rule=rule,
        target=ctx.target_label(target),
        language=ctx.language,
        before=before,
        after=after,
    )


@dataclass
class FilterResult:
    """What `apply_rules` made of one answer."""

    texts: Texts
    """The repaired texts."""
    cuts: list[FilterCut] = field(default_factory=list)
    """Every change, in rule order."""
    skipped: list[str] = field(default_factory=list)
    """The rules of the profile that did not declare the context's language."""


def apply_rules(
    rules: Sequence[Rule],
    texts: Mapping[Target, str],
    ctx: FilterContext,
    profile: Collection[str],
) -> FilterResult:
    """Run `rules` in order over `texts`, each rule named in `profile` that reads the
    context's language; a text left empty is dropped from the result."""
    result = FilterResult({t: x for t, x in texts.items() if x})
    for rule in rules:
        if rule.name not in profile:
            continue
        if ctx.language not in rule.languages:
            result.skipped.append(rule.name)
            continue
        if not any(t in rule.targets for t in result.texts):
            continue
        repaired, cuts = rule.apply(result.texts, ctx)
        result.texts = {t: x for t, x in repaired.items() if x}
        result.cuts.extend(cuts)
    return result


BOTH: frozenset[Language] = frozenset(("en", "pt-BR"))
"""The languages a rule that reads both declares."""
REPLY: frozenset[Target] = frozenset(("speech", "thought", "action_intent"))
"""Every field of a reply."""
EVERY: frozenset[Target] = REPLY | {"narration"}
"""The narration and every field of a reply."""
