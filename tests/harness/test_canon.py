"""The counter-canon benchmark's structural tier: the ledger's own checks, a clean run the
evaluator passes, and, for each family of the taxonomy, a planted failing run it catches.

The clean run is the `contracanone` script played on `canon_kit.Careful` (a fake model that
keeps canon). Each planted run changes one thing: a slip of one role's answers, or a fault
in the kernel (a whisper audience that lets everyone in, memory never captured). Each must
show up in its family, and only there.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path
from typing import Any

import pytest
from canon_kit import Careful, Plant
from harness_kit import failed, plant_audience, play, whispers_reach_everyone
from pydantic import ValidationError

import tavern.runner.turn as turn_module
from harness.canon import (
    bundled_ledgers,
    committed_turns,
    evaluate,
    evaluate_dir,
    evaluate_run,
    load_ledger,
    turn_evidence,
)
from harness.cli import main
from harness.loading import InputError, load_script
from harness.records.canon import (
    FAMILIES,
    CanonLedger,
    CanonReport,
    CanonRule,
    RecallCheck,
    ViolationFamily,
)
from harness.records.script import TurnEvent
from harness.results import RESULTS_NAME, ResultsFile
from harness.run import RunOutcome
from tavern.llm.provider import ProviderRequest
from tavern.records import Character, LlmCallLine, UndoLine
from tavern.store import Library, read_journal

LEDGER = load_ledger("contracanone")
SCRIPT = load_script(LEDGER.script).script
TURNS = [e for e in SCRIPT.events if isinstance(e, TurnEvent)]


def _cast(tmp: Path) -> dict[str, Character]:
    library = Library(tmp)
    scenario = library.get_scenario(SCRIPT.scenario)
    return {slot: library.get_character(cid) for slot, cid in scenario.cast.items()}


def _play(data_dir: Path, *plants: Plant) -> tuple[RunOutcome, CanonReport]:
    outcome = play(LEDGER.script, data_dir, fn=Careful(_cast(data_dir), list(plants)))
    assert outcome.run.status == "completed" and not outcome.run.turns_failed
    return outcome, evaluate_run(LEDGER, data_dir, outcome.run)


def _only(report: CanonReport, family: ViolationFamily) -> None:
    others = {f: n for f, n in report.counts.items() if f != family and n}
    assert report.counts[family] > 0, report.findings
    assert not others, [f for f in report.findings if f.family != family]


# --- the ledger's own checks -------------------------------------------------------------


def test_the_ledger_covers_every_family_and_reads_only_turns_the_script_plays() -> None:
    assert {rule.family for rule in LEDGER.rules.values()} == set(FAMILIES)
    assert SCRIPT.language == LEDGER.language == "pt-BR"
    assert len(TURNS) >= 24
    for rule_id, rule in LEDGER.rules.items():
        assert rule.last_turn <= len(TURNS), rule_id


def test_memory_is_asked_back_across_the_compactions() -> None:
    """The promise, the axe and the code word are planted before the first compaction's
    cutoff and asked back after it; the restore undoes the second one before turn 19."""
    played, marks = 0, []
    for event in SCRIPT.events:
        if isinstance(event, TurnEvent):
            played += event.repeat
        elif event.kind in ("compact", "restore"):
            marks.append((event.kind, played))
    assert marks == [("compact", 11), ("compact", 16), ("restore", 18)]
    first = next(e for e in SCRIPT.events if e.kind == "compact")
    cutoff = 11 - first.retention_turns  # type: ignore[attr-defined]
    for rule_id, planted in [("machado-lembrado", 7), ("promessa-lembrada", 6)]:
        assert planted <= cutoff < 11 < LEDGER.rules[rule_id].turn
    assert LEDGER.rules["senha-lembrada"].turn == 18


def test_every_recall_reads_a_character_the_turn_calls() -> None:
    """A recall reads a forced speaker, or the responder a routed turn expects: never the
    human's character, never a turn whose speaker the rule cannot know."""
    for rule_id, rule in LEDGER.rules.items():
        if rule.recall is None:
            continue
        slot = rule.recall.character
        turn = TURNS[rule.turn - 1]
        assert slot != SCRIPT.controlled, rule_id
        routed = [r for r in LEDGER.rules.values() if r.turn == rule.turn and r.expect_responder]
        assert turn.force_speaker == slot or any(slot in r.expect_responder for r in routed), (
            rule_id
        )


def test_routing_rules_read_natural_turns_and_the_sealed_chamber_never_answers_them() -> None:
    for rule_id, rule in LEDGER.rules.items():
        if rule.family == "routing_failure":
            assert TURNS[rule.turn - 1].force_speaker is None, rule_id
    scenario = Library(Path("/nonexistent")).get_scenario(SCRIPT.scenario)
    sealed = {s for s, zone in scenario.scene.positions.items() if zone == "camara-de-gelo"}
    assert sealed == {"C6"}
    bounds = [r.call_bound for r in LEDGER.rules.values() if r.family == "routing_failure"]
    assert all(b is not None and b.character == "C6" and b.max_calls == 0 for b in bounds)


def test_the_canaries_are_planted_only_where_the_ledger_says() -> None:
    """The code word is only whispered (to C2, then C5); the hiding place only thought; the
    promise's and the object's tokens are said once, by the human, where the ledger expects."""
    senha = re.compile(LEDGER.rules["senha-fora-da-narracao"].narration_forbid[0], re.I)
    whispered = [i + 1 for i, t in enumerate(TURNS) if t.speech and senha.search(t.speech)]
    assert whispered == [2, 9]
    assert [TURNS[n - 1].whisper_to for n in whispered] == [["C2"], ["C5"]]
    ninho = re.compile(LEDGER.rules["pensamento-fora-da-narracao"].narration_forbid[0], re.I)
    thought = [i + 1 for i, t in enumerate(TURNS) if t.thought and ninho.search(t.thought)]
    assert thought == [3] and not any(t.speech and ninho.search(t.speech) for t in TURNS)
    assert [i + 1 for i, t in enumerate(TURNS) if t.speech and "lacre roxo" in t.speech] == [6]
    assert [i + 1 for i, t in enumerate(TURNS) if t.speech and "cabo azul" in t.speech] == [7]


def test_no_sheet_gives_away_what_a_rule_expects_a_character_to_learn(tmp_path: Path) -> None:
    """A prompt-level `require` measures memory only if no character sheet already holds it."""
    sheets = " ".join(c.model_dump_json() for c in _cast(tmp_path).values())
    for rule_id, rule in LEDGER.rules.items():
        if rule.recall is not None and "prompt" in rule.recall.levels:
            for pattern in rule.recall.require:
                assert not re.search(pattern, sheets, re.I), (rule_id, pattern)


# The patterns themselves: what each family's patterns must catch and let through.
PATTERN_CASES: list[tuple[str, str, str]] = [
    ("narracao-sem-versao-de-fora", "E então o lobo mau rosnou.", "O lobo cinzento rosnou."),
    ("narracao-sem-versao-de-fora", "O lobo comeu a avó.", "O lobo não comeu a avó."),
    ("narracao-sem-versao-de-fora", "Rosa, com sua capa vermelha, entra.", "Rosa entra."),
    ("narracao-sem-versao-de-fora", "A moça vestiu a capa vermelha.", "A moça usa capa verde."),
    # the world truth itself, as the embedded model narrated it (case 04)
    (
        "narracao-sem-versao-de-fora",
        "A moça põe a capa vermelha.",
        "a moça usa capa verde, e a capa vermelha é do lobo",
    ),
    ("narracao-sem-versao-de-fora", "O lenhador salvou a todos.", "O lenhador fugiu."),
    ("lua-verde-na-narracao", "Sob a lua prateada, o salão dorme.", "Sob a lua verde."),
    ("sem-lareira-nem-velas", "A lareira crepita no canto.", "Não há lareira aqui."),
    ("sem-lareira-nem-velas", "À luz de velas, todos calam.", "À luz dos vaga-lumes."),
    ("rosa-nao-decidida", "Rosa decide atravessar a ponte.", "Rosa olha a ponte."),
    ("rosa-parada-no-primeiro-salto", "Rosa se levanta e sai.", "Rosa continua sentada."),
    ("chave-no-rio-e-so-afirmacao", "Firmina jogou a chave no rio.", "Rosa acusa a velha."),
    ("chave-no-rio-e-so-afirmacao", "A chave está no fundo do rio.", "A chave está com alguém."),
    ("senha-fora-da-narracao", "Ele murmura Sabia-4417.", "Ele murmura algo."),
    ("pensamento-fora-da-narracao", "No Ninho Corvo há uma chave.", "No moinho há uma chave."),
    ("pensamento-fora-da-narracao", "A chave está escondida atrás do [...].", "É de ferro."),
]


@pytest.mark.parametrize(("rule_id", "violating", "clean"), PATTERN_CASES)
def test_narration_patterns_catch_the_slip_and_pass_the_truth(
    rule_id: str, violating: str, clean: str
) -> None:
    patterns = LEDGER.rules[rule_id].narration_forbid
    assert any(re.search(p, violating, re.I) for p in patterns)
    assert not any(re.search(p, clean, re.I) for p in patterns)


def test_reply_patterns_tell_a_claim_reported_from_a_claim_adopted() -> None:
    [forbid] = [LEDGER.rules["forasteira-pesa-a-afirmacao"].recall.forbid]  # type: ignore[union-attr]
    assert any(re.search(p, "Firmina jogou a chave no rio, eu sei.", re.I) for p in forbid)
    assert not any(re.search(p, "A moça disse que Firmina jogou a chave.", re.I) for p in forbid)
    [canon] = [LEDGER.rules["lobo-desmente-o-boato"].recall.forbid]  # type: ignore[union-attr]
    assert any(re.search(p, "Sim, eu comi a avó.", re.I) for p in canon)
    assert not any(re.search(p, "Eu nunca comi a avó.", re.I) for p in canon)


def test_the_records_refuse_rules_that_cannot_be_checked() -> None:
    with pytest.raises(ValidationError, match="needs a check"):
        CanonRule(turn=1, family="secret_leak", statement="x")
    with pytest.raises(ValidationError, match="comes before"):
        CanonRule(turn=3, until_turn=2, family="secret_leak", statement="x", narration_forbid=["a"])
    with pytest.raises(ValidationError, match="not a regular expression"):
        CanonRule(turn=1, family="secret_leak", statement="x", narration_forbid=["("])
    with pytest.raises(ValidationError, match="family"):
        CanonRule.model_validate(
            {"turn": 1, "family": "typo", "statement": "x", "narration_forbid": ["a"]}
        )
    rule = CanonRule(turn=1, family="secret_leak", statement="x", narration_forbid=["a"])
    with pytest.raises(ValidationError, match="lowercase slug"):
        CanonLedger(id="l", script="s", rules={"Bad Id": rule})
    with pytest.raises(ValidationError, match="at least one `require` or `forbid`"):
        RecallCheck(character="C2")
    with pytest.raises(ValidationError, match="not a regular expression"):
        RecallCheck(character="C2", forbid=["Sabi[aá"])
    assert RecallCheck(character="C2", require=["Sabi[aá]"]).levels == ["prompt", "reply"]


def test_a_bad_ledger_file_is_refused_naming_the_field(tmp_path: Path) -> None:
    data = json.loads(bundled_ledgers()["contracanone"].read_text(encoding="utf-8"))
    data["rules"]["lobo-pelo-nome"]["expect_responder"] = ["Bento"]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(InputError, match="expect_responder"):
        load_ledger(str(path))
    with pytest.raises(InputError, match="bundled ledger id"):
        load_ledger("no-such-ledger")


def LEDGER_PATH() -> Path:
    from harness.canon import bundled_ledgers

    return bundled_ledgers()["contracanone"]


# --- the clean run and one planted failing run per family ---------------------------------


def test_a_careful_model_keeps_canon_the_evaluator_finds_nothing_unmeasured_nothing(
    tavern_data_dir: Path,
) -> None:
    outcome, report = _play(tavern_data_dir)
    assert outcome.run.probes_passed == outcome.run.probes, failed(outcome)
    assert report.turns_committed == len(TURNS)
    assert report.unmeasured == []
    assert report.findings == [] and sum(report.counts.values()) == 0
    assert set(report.counts) == set(FAMILIES)


def _narrating(text: str, turn: int) -> Plant:
    # On one turn: the same sentence again would be cut by the `retold` filter.
    return Plant("prose", lambda request: {"narration": text}, turn)


def _saying(slot: str, text: str, turn: int | None = None) -> Plant:
    answer = {"speech": text, "thought": None, "action_intent": None}
    return Plant(f"character:{slot}", lambda request: answer, turn)


def _misrouting(request: ProviderRequest) -> Any:
    return {"events": [], "next_speakers": ["C4"], "time_skip_ticks": 0, "nothing_happens": False}


PLANTS: dict[ViolationFamily, Plant] = {
    "canon_regression": _saying("C2", "Sim, eu comi a avó naquele inverno.", turn=8),
    "world_truth_contradiction": _narrating("A lareira crepita sob a lua prateada.", turn=3),
    "unearned_name": _saying("C6", "Quem é essa tal de Lia Fontes?"),
    "routing_failure": Plant("director", _misrouting),
    "agency_violation": _narrating("Rosa sente um arrepio na nuca.", turn=4),
    "claim_stated_as_fact": _narrating("Todos sabem: Firmina jogou a chave no rio.", turn=6),
}


@pytest.mark.parametrize("family", sorted(PLANTS))
def test_a_planted_slip_counts_in_its_family_and_nowhere_else(
    tavern_data_dir: Path, family: ViolationFamily
) -> None:
    _, report = _play(tavern_data_dir, PLANTS[family])
    _only(report, family)


def test_a_whisper_that_reaches_everyone_counts_as_secret_leaks(
    tavern_data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plant_audience(monkeypatch, whispers_reach_everyone)
    _, report = _play(tavern_data_dir)
    _only(report, "secret_leak")
    assert {f.rule for f in report.findings} >= {"forasteira-sem-senha", "avo-sem-senha"}


def test_memory_never_captured_counts_as_forgotten_promises_and_objects(
    tavern_data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(turn_module, "capture_memory", lambda ledgers, *a, **k: dict(ledgers))
    _, report = _play(tavern_data_dir)
    # The careful wolf can no longer quote the green moon either: a world truth he was only
    # told is forgotten with the rest. Nothing else moves.
    others = [f for f in report.findings if f.family != "forgotten_promise_or_object"]
    assert [(f.rule, f.label) for f in others] == [("lua-verde-para-o-lobo", "missing_in_reply")]
    assert {"promessa-lembrada", "senha-lembrada", "machado-na-resposta"} <= {
        f.rule for f in report.findings
    }


# --- the evaluator on journals ------------------------------------------------------------


def _clean_lines(tmp: Path) -> tuple[list[Any], Any]:
    outcome, _ = _play(tmp)
    lines = read_journal(tmp / "sessions" / outcome.run.session_id / "journal.jsonl")
    return lines, outcome


def test_a_call_for_the_humans_character_breaks_the_agency_bound(tmp_path: Path) -> None:
    """The kernel never calls the human's character, so the bound is shown on a journal with
    one call renamed (what a kernel that voiced the human would have written)."""
    lines, outcome = _clean_lines(tmp_path)
    index = next(
        i
        for i, line in enumerate(lines)
        if isinstance(line, LlmCallLine) and line.agent == "character:C2"
    )
    lines[index] = lines[index].model_copy(update={"agent": "character:C1"})
    report = evaluate(LEDGER, lines, [], cast=list(_cast(tmp_path)), run_id="r", session_id="s")
    bound = [f for f in report.findings if f.check == "call_bound"]
    assert bound and {f.family for f in bound} == {"agency_violation"}
    assert bound[0].turn == lines[index].turn_number


def test_an_undone_or_failed_attempt_is_not_read(tmp_path: Path) -> None:
    lines, _ = _clean_lines(tmp_path)
    turns = committed_turns(lines)
    assert sorted(turns) == list(range(1, len(TURNS) + 1))
    last = max(turns)

    undo = UndoLine(
        ts=dt.datetime.now(dt.UTC),
        session_id="s",
        turn_number=last,
        revision=999,
        removed_turn=last,
        removed_records=1,
    )
    assert last not in committed_turns([*lines, undo])
    evidence = turn_evidence(lines, [])  # no history: the journal's prose answers are read
    assert evidence[1].narration and "vaga-lumes" in evidence[1].narration[0]


def test_the_canon_command_plays_and_counts_and_eval_reads_it_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "canon"
    assert main(["canon", "run", "--provider", "fake", "--data-dir", str(data)]) == 0
    out = capsys.readouterr().out
    assert "secret_leak" in out and "canon:" in out
    [line] = (data / "canon.jsonl").read_text(encoding="utf-8").splitlines()
    report = CanonReport.model_validate_json(line)
    assert report.ledger == "contracanone" and report.provider == "fake"
    assert main(["canon", "eval", str(data), "--findings"]) == 0
    again = evaluate_dir(LEDGER, data)
    assert [r.counts for r in again] == [report.counts]
    assert main(["canon", "eval", str(tmp_path / "empty")]) == 2


def test_a_run_of_another_script_is_not_evaluated(tavern_data_dir: Path) -> None:
    outcome = play("whisper-secrecy", tavern_data_dir)
    ResultsFile(tavern_data_dir / RESULTS_NAME).append(outcome.probes, outcome.run)
    assert evaluate_dir(LEDGER, tavern_data_dir) == []
