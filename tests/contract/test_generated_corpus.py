"""The generated corpus is what its generator gives, and its two splits share nothing."""

from __future__ import annotations

import pytest

from . import corpus_gen
from .corpus_stats import CORPUS, load


def test_generated_corpus_is_current() -> None:
    for name, text in corpus_gen.rendered().items():
        assert (CORPUS / name).read_text(encoding="utf-8") == text, f"rerun corpus_gen: {name}"


def test_splits_share_no_template_no_filler_and_no_text() -> None:
    assert corpus_gen.overlaps(corpus_gen.LANGUAGES) == []
    tuned = {m.content for kind in ("planted", "clean") for c in load(f"gen_tune_{kind}")
             for m in c.messages}  # fmt: skip
    held = {m.content for kind in ("planted", "clean") for c in load(f"gen_heldout_{kind}")
            for m in c.messages}  # fmt: skip
    assert not tuned & held


def test_negative_control_a_shared_filler_is_seen(monkeypatch: pytest.MonkeyPatch) -> None:
    slots = {split: dict(s) for split, s in corpus_gen.EN_SLOTS.items()}
    slots["heldout"]["op_np"] = [*slots["heldout"]["op_np"], "the player"]
    planted = {"en": (slots, corpus_gen.EN_TEMPLATES)}
    assert corpus_gen.overlaps(planted) == ["en slot op_np: the player"]


@pytest.mark.parametrize("split", corpus_gen.SPLITS)
def test_every_family_and_language_is_generated(split: str) -> None:
    planted = load(f"gen_{split}_planted")
    for lang in ("en", "pt-BR"):
        rules = {c.rule for c in planted if c.lang == lang}
        assert rules == {"lexical_noun", "lexical_role", "lexical_negated", "lexical_verb"}
        assert sum(c.lang == lang for c in load(f"gen_{split}_clean")) >= 25
