"""Ledger memory revision inside real turns: a reviser call folds a ledger's oldest lines into
its first-person summary, and code refuses a summary that breaks a boundary.

Each guard has its planted violation here: a summary naming someone its owner never learned,
one losing a code, one holding a word hidden from its owner; a provider that fails or
stalls; a prompt builder that puts the changing summary into the head. The parrot proof
(`test_parrot_summaries_hold_only_what_their_owner_perceived`) drives whole sessions with
whispers and thoughts carrying canaries through the fake that copies every token it is shown.
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tavern.agents import reviser
from tavern.llm.client import LlmClient
from tavern.llm.errors import LlmCallError
from tavern.llm.fake import FakeFunction, FakeProvider
from tavern.llm.provider import ProviderRequest
from tavern.llm.wrappers import RetryPolicy
from tavern.physics.guards import knowledge_of
from tavern.physics.perception import perceives
from tavern.records import (
    ActionRecord,
    Audience,
    CommitLine,
    HistoryRecord,
    LlmCallLine,
    MemoryRevision,
    SessionState,
    SpeechRecord,
    ThoughtRecord,
    TurnInput,
)
from tavern.runner import KernelLimits, Runner
from tavern.runner import memory as memory_module
from tavern.runner.memory import summary_problem
from tavern.store import (
    JournalWriter,
    Library,
    SessionStore,
    journal_path,
    materialize_session,
    read_journal,
)

from .kit import director_answer, no_sleep, recording_runner, run

BUDGET_TOKENS = 60
"""A Character memory budget of 240 characters: two or three heard lines outgrow it."""
SCENARIO = "the-vintners-wake"  # C1 Agnese Corvo (played) and C2, C4 in the hall, C5 above
LINES = [
    "The gate code is 4471, remember it.",
    "The notary keeps the will in his satchel.",
    "Nobody leaves before the bell.",
    "The candles will not last the night.",
    "Someone moved the coffin lid.",
    "The cellar stair is wet.",
]


def folded_lines(request: ProviderRequest) -> list[str]:
    """The memory lines a reviser prompt asks to fold."""
    block = request.messages[-1].content.split("## Older lines to fold in\n")[1]
    block = block.split("\n\n## ")[0]
    return [line.removeprefix("· ") for line in block.splitlines()]


def faithful(request: ProviderRequest) -> dict[str, Any]:
    """A summary that keeps every folded line as it was written (it passes every check)."""
    return {"summary": ("I remember: " + " ".join(folded_lines(request)))[:1200]}


def _answers(summary: FakeFunction) -> FakeFunction:
    def answer(request: ProviderRequest) -> Any:
        if request.agent == "director":
            return director_answer([])  # nobody is asked: every line is the human's
        if request.agent == "prose":
            return {"narration": "Rain."}
        if request.agent.startswith("reviser:"):
            return summary(request)
        return {"speech": "Hm.", "thought": None, "action_intent": None}

    return answer


def _play(
    data_dir: Path, summary: FakeFunction, turns: int, **limits: Any
) -> tuple[Runner, SessionStore, str]:
    runner, store, _ = recording_runner(
        data_dir, _answers(summary), KernelLimits(character_memory_tokens=BUDGET_TOKENS, **limits)
    )
    sid = run(runner.create_session(SCENARIO, "C1")).id
    for turn in range(turns):
        run(runner.play_turn(sid, TurnInput(speech=LINES[turn % len(LINES)])))
    return runner, store, sid


def revisions(data_dir: Path, sid: str) -> list[tuple[int, MemoryRevision]]:
    """(turn, revision) of every commit line of the session, in order."""
    lines = read_journal(journal_path(data_dir, sid))
    return [
        (line.turn_number, r)
        for line in lines
        if isinstance(line, CommitLine)
        for r in line.memory_revisions
    ]


def _size(memory: list[str]) -> int:
    return sum(len(line) + 1 for line in memory)


def test_an_accepted_revision_folds_the_oldest_lines_into_the_summary(tmp_path: Path) -> None:
    _, store, sid = _play(tmp_path, faithful, 4)
    done = [r for _, r in revisions(tmp_path, sid) if r.owner == "C2"]
    assert done and all(r.outcome == "revised" for r in done)
    ledger = store.load(sid).ledgers["C2"]
    assert ledger.memory_summary.startswith("I remember: ")
    assert "4471" in ledger.memory_summary  # the first line was folded, its code kept
    assert _size(ledger.memory) <= BUDGET_TOKENS * 4
    assert not any("4471" in line for line in ledger.memory)  # folded, not kept twice
    assert done[-1].summary_chars == len(ledger.memory_summary)
    # C3 is in the sealed cellar: it heard nothing, so it has nothing to revise.
    assert not [r for _, r in revisions(tmp_path, sid) if r.owner == "C3"]


def test_the_summary_reaches_its_owners_character_prompt(tmp_path: Path) -> None:
    runner, store, sid = _play(tmp_path, faithful, 4)
    summary = store.load(sid).ledgers["C2"].memory_summary
    run(runner.interview(sid, "caspar-of-lune", "What do you remember?"))
    prompt = read_journal(journal_path(tmp_path, sid))[-1]
    assert isinstance(prompt, LlmCallLine) and prompt.agent == "interview:C2"
    assert summary in _text(prompt)


def test_a_summary_naming_someone_its_owner_never_learned_is_refused(tmp_path: Path) -> None:
    """C2 never learned Agnese Corvo's name; C4 and C5 were introduced to her. The same
    summary is refused for C2 only, and C2's lines stay."""

    def naming(request: ProviderRequest) -> dict[str, Any]:
        return {"summary": faithful(request)["summary"] + " Agnese Corvo said it."}

    _, store, sid = _play(tmp_path, naming, 5)
    done = [r for _, r in revisions(tmp_path, sid)]
    c2 = [(r.outcome, r.reason, r.detail) for r in done if r.owner == "C2"]
    assert c2 and set(map(str, c2)) == {str(("refused", "unlearned_name", ["Agnese Corvo"]))}
    # Positive control: C4 was introduced to her, so the same summary is its own.
    assert [r.outcome for r in done if r.owner == "C4"] == ["revised"]
    ledger = store.load(sid).ledgers["C2"]
    assert ledger.memory_summary == ""
    assert len(ledger.memory) == 5 and "4471" in ledger.memory[0]  # every line stays


def test_a_summary_dropping_a_code_is_refused(tmp_path: Path) -> None:
    def rounding(request: ProviderRequest) -> dict[str, Any]:
        return {"summary": faithful(request)["summary"].replace("4471", "4470")}

    _, store, sid = _play(tmp_path, rounding, 4)
    first = [r for _, r in revisions(tmp_path, sid) if r.owner == "C2"][0]
    assert (first.outcome, first.reason, first.detail) == ("refused", "dropped_code", ["4471"])
    assert "4471" in store.load(sid).ledgers["C2"].memory[0]


PT_LINES = ["A senha do portão é garça.", "O tabelião guarda o testamento.", "Ninguém sai.",
            "As velas não duram a noite.", "A escada está molhada."]  # fmt: skip


@pytest.mark.parametrize(
    ("summary", "outcome"),
    [("Lembro: a senha é garça.", "revised"), ("Lembro da senha do portão.", "refused")],
)
def test_a_portuguese_session_keeps_its_password_verbatim(
    tmp_path: Path, summary: str, outcome: str
) -> None:
    runner, store, _ = recording_runner(
        tmp_path,
        _answers(lambda request: {"summary": summary}),
        KernelLimits(character_memory_tokens=BUDGET_TOKENS),
    )
    sid = run(runner.create_session(SCENARIO, "C1")).id
    state = store.load(sid)
    store.replace_state(sid, state.model_copy(update={"language": "pt-BR"}), state.revision)
    for line in PT_LINES:
        run(runner.play_turn(sid, TurnInput(speech=line)))
    first = [r for _, r in revisions(tmp_path, sid) if r.owner == "C2"][0]
    assert first.outcome == outcome
    if outcome == "refused":
        assert (first.reason, first.detail) == ("dropped_code", ["garça"])


@pytest.mark.parametrize(
    ("failure", "reason"),
    [
        ({"summary": 7}, "model"),  # schema-invalid, every attempt
        (LlmCallError("http_5xx", "the server fell over"), "model"),
        ("stall", "timeout"),
    ],
)
def test_a_failed_revision_leaves_the_turn_committed_and_the_lines_in_place(
    tmp_path: Path, failure: Any, reason: str
) -> None:
    async def failing(request: ProviderRequest) -> Any:
        if failure == "stall":
            await asyncio.sleep(5)
        if isinstance(failure, Exception):
            raise failure
        return failure

    _, store, sid = _play(tmp_path, failing, 5, revision_seconds=0.05)
    state = store.load(sid)
    assert state.turn_number == 5  # every turn committed
    assert len([r for r in store.history(sid) if isinstance(r, SpeechRecord)]) == 5
    c2 = [r for _, r in revisions(tmp_path, sid) if r.owner == "C2"]
    assert c2 and all((r.outcome, r.reason) == ("failed", reason) for r in c2)
    assert len(state.ledgers["C2"].memory) == 5 and state.ledgers["C2"].memory_summary == ""


def test_lines_past_the_ceiling_are_evicted_when_every_revision_is_refused(
    tmp_path: Path,
) -> None:
    def empty_handed(request: ProviderRequest) -> dict[str, Any]:
        return {"summary": "I remember nothing of C1."}  # a slot id: always refused

    _, store, sid = _play(tmp_path, empty_handed, 14)
    ceiling = BUDGET_TOKENS * 4 * memory_module.MEMORY_CEILING
    assert all(_size(led.memory) <= ceiling for led in store.load(sid).ledgers.values())
    outcomes = [(r.outcome, r.reason) for _, r in revisions(tmp_path, sid) if r.owner == "C2"]
    assert ("refused", "unlearned_name") in outcomes
    assert ("evicted", "unlearned_name") in outcomes


def test_a_budget_of_zero_keeps_no_memory_and_asks_no_reviser(tmp_path: Path) -> None:
    runner, store, calls = recording_runner(
        tmp_path, _answers(faithful), KernelLimits(character_memory_tokens=0)
    )
    sid = run(runner.create_session(SCENARIO, "C1")).id
    for line in LINES[:3]:
        run(runner.play_turn(sid, TurnInput(speech=line)))
    assert not [c for c in calls if c.agent.startswith("reviser:")]
    assert all(
        not led.memory and not led.memory_summary for led in store.load(sid).ledgers.values()
    )


def _heads(requests: list[ProviderRequest], agent: str) -> list[str]:
    return [r.messages[0].content for r in requests if r.agent == agent]


def _reviser_requests(tmp_path: Path, turns: int) -> list[ProviderRequest]:
    provider_requests: list[ProviderRequest] = []

    def recording(request: ProviderRequest) -> dict[str, Any]:
        provider_requests.append(request)
        return faithful(request)

    _play(tmp_path, recording, turns)
    return [r for r in provider_requests if r.agent == "reviser:C2"]


def test_the_prompt_head_is_byte_stable_across_revisions(tmp_path: Path) -> None:
    requests = _reviser_requests(tmp_path, 10)
    assert len(requests) >= 2
    heads = _heads(requests, "reviser:C2")
    assert len(set(heads)) == 1
    # The summary so far opens the user message, before the lines to fold.
    second = requests[1].messages[1].content
    assert second.startswith("## Your account so far\nI remember: ")
    assert requests[0].messages[1].content != second


def test_negative_control_a_summary_in_the_head_breaks_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A builder that keeps the summary so far in the head (where the sheet is) loses the
    cached prefix at every revision: the same check goes red."""

    def leaky(name: str, sheet: Any, summary: str, lines: list[str], keep: Any = None) -> Any:
        head = reviser.head(name, sheet) + "\n" + summary
        return reviser.assemble(
            [
                reviser.PromptBlock("Who you are", head, reviser.Stability.IDENTITY),
                reviser.PromptBlock(
                    "Older lines to fold in", "\n".join(lines), reviser.Stability.VOLATILE
                ),
            ]
        )

    monkeypatch.setattr(reviser, "build_messages", leaky)
    heads = _heads(_reviser_requests(tmp_path, 10), "reviser:C2")
    assert len(heads) >= 2 and len(set(heads)) > 1


def test_undo_undoes_a_revision_made_inside_the_turn(tmp_path: Path) -> None:
    runner, store, sid = _play(tmp_path, faithful, 3)
    assert not revisions(tmp_path, sid)  # not yet outgrown
    before = store.load(sid)
    run(runner.play_turn(sid, TurnInput(speech=LINES[3])))
    assert [r.outcome for t, r in revisions(tmp_path, sid) if r.owner == "C2"] == ["revised"]
    revised = store.load(sid)
    assert revised.ledgers["C2"].memory_summary != before.ledgers["C2"].memory_summary
    restored = run(runner.undo(sid))
    for state in (restored, store.load(sid)):
        assert state.ledgers == before.ledgers
        assert state.turn_number == before.turn_number


# -- the code checks, one planted violation each (and pt-BR) -------------------------------


def _state(tmp_path: Path, language: str = "en") -> SessionState:
    library = Library(tmp_path)
    state = materialize_session(library.get_scenario(SCENARIO), library, "s-rev")
    return state.model_copy(update={"language": language})


WHISPER = SpeechRecord(
    seq=1, turn_number=1, speaker="C1", author="human", text="Ravenhook9 at the mill",
    audience=Audience(origin="whisper", perceivers=["C1", "C4"], aware=["C2"]),
)  # fmt: skip


@pytest.mark.parametrize(
    ("language", "summary", "problem"),
    [
        ("en", "I remember the code 4471 and the wet stair.", None),
        ("en", "", ("empty", [])),
        ("en", "Caspar of Lune heard 4471.", None),  # its own name
        ("en", "Felix Aubert heard 4471.", ("unlearned_name", ["Felix Aubert"])),
        ("en", "Aubert heard 4471.", ("unlearned_name", ["Aubert"])),
        ("en", "C4 heard 4471.", ("unlearned_name", ["C4"])),
        ("en", "I remember a code.", ("dropped_code", ["4471"])),
        ("en", "I heard 4471 and ravenhook9.", ("unperceived", ["ravenhook9"])),
        ("pt-BR", "Lembro do código 4471.", None),
        ("pt-BR", "Felix Aubert ouviu 4471.", ("unlearned_name", ["Felix Aubert"])),
        ("pt-BR", "Lembro de um número.", ("dropped_code", ["4471"])),
    ],
)
def test_summary_checks(
    tmp_path: Path, language: str, summary: str, problem: tuple[str, list[str]] | None
) -> None:
    state = _state(tmp_path, language)
    known = knowledge_of([WHISPER], state.scene)
    folded = ['Someone said: "The gate code is 4471."']
    shown = "## Older lines\n· " + folded[0]
    assert summary_problem(summary, folded, shown, "C2", state, known) == problem


def test_a_hidden_word_the_prompt_showed_is_no_violation(tmp_path: Path) -> None:
    """The check is on words the reviser could not have read; one its own prompt showed (its
    own sheet, say) passes even if someone else's whisper carried it too."""
    state = _state(tmp_path)
    known = knowledge_of([WHISPER], state.scene)
    assert summary_problem("Ravenhook9.", [], "Ravenhook9", "C2", state, known) is None
    assert summary_problem("Ravenhook9.", [], "", "C4", state, known) is None  # it heard it


# -- the parrot proof ----------------------------------------------------------------------

SLOTS = ["C2", "C3", "C4", "C5"]
Step = tuple[str, int, tuple[str, ...]]
steps = st.lists(
    st.tuples(
        st.sampled_from(["whisper", "thought", "speech", "skip"]),
        st.integers(min_value=0, max_value=999),
        st.lists(st.sampled_from(SLOTS), min_size=1, max_size=2, unique=True).map(tuple),
    ),
    min_size=3,
    max_size=6,
)
CODA: list[Step] = [("skip", 0, (slot,)) for slot in ("C2", "C4", "C5")]
"""Turns after the plan in which the parrot Characters talk: their long lines push every
ledger in the hall past its budget, so the lines carrying the canaries get folded."""


def _turn(kind: str, canary: str, slots: tuple[str, ...]) -> TurnInput:
    if kind == "whisper":
        return TurnInput(speech=f"Keep {canary} to yourself.", whisper_to=list(slots))
    if kind == "thought":
        return TurnInput(thought=f"Only I know {canary} tonight.")
    if kind == "speech":
        return TurnInput(
            speech=f"The lantern at pier {canary[-3:]} is lit.", force_speaker=slots[0]
        )
    return TurnInput(skip=True, force_speaker=slots[0])


def _perceived(history: list[HistoryRecord], canary: str, viewer: str, turn: int) -> bool:
    """Whether `viewer` perceived, by turn `turn`, a line a character spoke, did or thought
    that carried `canary` (events and narration teach nothing here: a canary in an event an
    outsider witnessed is the leak the proof looks for)."""
    return any(
        isinstance(r, SpeechRecord | ActionRecord | ThoughtRecord)
        and r.turn_number <= turn
        and canary.lower() in r.text.lower()
        and perceives(r, viewer) == "content"
        for r in history
    )


Summaries = list[tuple[int, dict[str, str]]]
"""(turn, owner -> summary) after each turn."""


def _parrot_session(data_dir: Path, plan: list[Step]) -> tuple[Runner, str, list[str], Summaries]:
    store = SessionStore(data_dir, synchronous="OFF")
    journal = JournalWriter(data_dir, durable=False)

    def sink(line: LlmCallLine) -> None:
        journal.append(line.session_id, line)

    client = LlmClient(
        FakeProvider("parrot"), sink=sink, retry=RetryPolicy(max_attempts=2), sleep=no_sleep
    )
    limits = KernelLimits(character_memory_tokens=BUDGET_TOKENS)
    runner = Runner(store, Library(data_dir), journal, client, limits=limits)
    sid = run(runner.create_session(SCENARIO, "C1")).id
    canaries, summaries = [], []
    for i, (kind, n, slots) in enumerate([*plan, *CODA]):
        canary = f"Canary{i}x{n:03d}q"
        if kind in ("whisper", "thought"):
            canaries.append(canary)
        run(runner.play_turn(sid, _turn(kind, canary, slots)))
        state = store.load(sid)
        owned = {o: ledger.memory_summary for o, ledger in state.ledgers.items()}
        summaries.append((state.turn_number, owned))
    return runner, sid, canaries, summaries


def _violations(
    data_dir: Path, runner: Runner, sid: str, canaries: list[str], summaries: Summaries
) -> list[tuple[str, str, str, int]]:
    """(where, viewer, canary, turn) of every canary found in a reviser's prompt or answer,
    or in a summary after a turn, that its owner had not perceived by then."""
    history = runner.store.history(sid)
    lines = read_journal(journal_path(data_dir, sid))
    found = []
    for line in lines:
        if isinstance(line, LlmCallLine) and line.agent.startswith("reviser:"):
            viewer, text = line.agent.split(":")[1], _text(line)
            for canary in canaries:
                if canary.lower() in text.lower():
                    if not _perceived(history, canary, viewer, line.turn_number):
                        found.append(("prompt", viewer, canary, line.turn_number))
    for turn, owned in summaries:
        for viewer, summary in owned.items():
            for canary in canaries:
                if canary.lower() in summary.lower():
                    if not _perceived(history, canary, viewer, turn):
                        found.append(("summary", viewer, canary, turn))
    return found


def _revised(data_dir: Path, sid: str) -> int:
    lines = read_journal(journal_path(data_dir, sid))
    done = [r for line in lines if isinstance(line, CommitLine) for r in line.memory_revisions]
    return sum(r.outcome == "revised" for r in done)


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(plan=steps)
def test_parrot_summaries_hold_only_what_their_owner_perceived(plan: list[Step]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        data_dir = Path(tmp)
        runner, sid, canaries, summaries = _parrot_session(data_dir, plan)
        assert _revised(data_dir, sid) > 0  # the proof saw summaries written
        assert not _violations(data_dir, runner, sid, canaries, summaries)


PLAN: list[Step] = [("whisper", 1, ("C2",)), ("thought", 2, ("C2",)), ("speech", 3, ("C4",))]


def test_parrot_positive_control_a_canary_reaches_the_summaries_of_its_audience(
    tmp_path: Path,
) -> None:
    runner, sid, canaries, summaries = _parrot_session(tmp_path, PLAN)
    whisper, thought = canaries
    last = summaries[-1][1]
    assert whisper in last["C2"] and thought in last["C1"]  # heard / its own thought
    assert not _violations(tmp_path, runner, sid, canaries, summaries)


def test_parrot_negative_control_a_reviser_shown_every_ledger_leaks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reviser prompt built from every ledger's lines, not its owner's alone: the parrot
    copies the others' canaries into the summaries and the proof finds them."""
    plain = memory_module.reviser_prompt

    def every_ledger(state: SessionState, owner: str, ledger: Any, lines: list[str], room: Any):  # type: ignore[no-untyped-def]
        everyone = [line for led in state.ledgers.values() for line in led.memory]
        messages, _ = plain(state, owner, ledger, [*lines, *everyone], None)
        return messages, len(lines)

    monkeypatch.setattr(memory_module, "reviser_prompt", every_ledger)
    runner, sid, canaries, summaries = _parrot_session(tmp_path, PLAN)
    found = _violations(tmp_path, runner, sid, canaries, summaries)
    assert {where for where, _, _, _ in found} == {"prompt", "summary"}


def _text(line: LlmCallLine) -> str:
    return "\n".join(m.content for m in line.request.messages) + "\n" + (line.response or "")
