"""The filter layer, measured: false positives on clean prose, and a behaviour replay.

    python -m benchmarks.filters fp                      # per rule and language
    python -m benchmarks.filters replay --out DIR        # digests of replayed sessions
    python -m benchmarks.filters replay --out DIR --against OLD_DIR

`fp` runs every registered rule, alone, over the clean-prose corpus
(`tests/filters/clean/<language>.txt`: prose written for it, much of it in a capable model's
style, none of it a defect any rule should cut) and prints, per rule and language, the
sentences it cut of the sentences it saw. A rule that does not declare a language prints
`skipped` there. The precision bar is `PRECISION_BAR`.

`replay` plays the kernel benchmark's sessions (`benchmarks.kernel`: its scripted answers
on both scenarios, 20 turns of synthetic history, then `--turns` played turns) and the fake
provider's parrot mode on a fresh session of each scenario, and writes every played turn's
prompts, answers, committed records, clamp changes and state, normalized (no session id, no
time), one JSON file per turn. `--against` compares with another run's files (run it on
another checkout with the same command) and prints the first turn of each session that
differs, and what differs in it.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import sys
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

PRECISION_BAR = 0.01
"""A rule may cut at most 1% of the clean corpus's sentences of a language it declares."""
CLEAN_DIR = Path(__file__).resolve().parents[1] / "tests" / "filters" / "clean"
DROPPED_KEYS = frozenset(("ts", "created_at", "duration_ms"))


def _normal(value: Any, session_id: str) -> Any:
    """`value` as JSON, without times, its session id read as `S`."""
    if isinstance(value, dict):
        return {k: _normal(v, session_id) for k, v in value.items() if k not in DROPPED_KEYS}
    if isinstance(value, list):
        return [_normal(v, session_id) for v in value]
    if isinstance(value, str):
        return value.replace(session_id, "S")
    return value


def _turn_files(runner: Any, session_id: str, turn: int) -> dict[str, Any]:
    from tavern.records import CommitLine, LlmCallLine
    from tavern.store import journal_path, read_journal

    lines = [
        line
        for line in read_journal(journal_path(runner.journal.data_dir, session_id))
        if line.turn_number == turn
    ]
    calls = [
        {"agent": c.agent, "messages": c.request.model_dump(mode="json")["messages"],
         "response": c.response}
        for c in lines
        if isinstance(c, LlmCallLine)
    ]  # fmt: skip
    commits = [c.model_dump(mode="json") for c in lines if isinstance(c, CommitLine)]
    records = [
        r.model_dump(mode="json")
        for r in runner.store.history_tail(session_id, 1)
        if r.turn_number == turn
    ]
    state = runner.store.load(session_id).model_dump(mode="json")
    turn_data = {"calls": calls, "commit": commits, "records": records, "state": state}
    return dict(_normal(turn_data, session_id))


async def _play(runner: Any, session_id: str, turns: int, out: Path) -> str:
    from benchmarks import kernel

    out.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256()
    start = runner.store.load(session_id).turn_number
    for i in range(turns):
        await runner.play_turn(session_id, kernel.INPUTS[i % len(kernel.INPUTS)])
        data = _turn_files(runner, session_id, start + i + 1)
        text = json.dumps(data, sort_keys=True, indent=1, ensure_ascii=False)
        (out / f"turn-{i + 1:03d}.json").write_text(text + "\n", encoding="utf-8")
        digest.update(text.encode())
    return digest.hexdigest()[:16]


def replay(out: Path, turns: int) -> dict[str, str]:
    """Play the sessions (see the module) and write their turns under `out`; the digest of
    each session's turns."""
    from benchmarks import kernel
    from tavern.llm.client import LlmClient
    from tavern.llm.fake import FakeProvider
    from tavern.llm.wrappers import RetryPolicy
    from tavern.records import LlmCallLine
    from tavern.runner import Runner
    from tavern.store import JournalWriter, Library, SessionStore

    digests: dict[str, str] = {}
    for scenario in sorted(kernel.SCENARIOS):
        for mode in ("scripted", "parrot"):
            data_dir = Path(tempfile.mkdtemp(prefix="tavern-filters-replay-"))
            store = SessionStore(data_dir, synchronous="OFF")
            journal = JournalWriter(data_dir, durable=False)

            def sink(line: LlmCallLine, journal: JournalWriter = journal) -> None:
                journal.append(line.session_id, line)

            if mode == "scripted":
                kernel.SCENARIO, kernel.HALL = scenario, kernel.SCENARIOS[scenario]
                provider = FakeProvider("function", fn=kernel.answer)
            else:
                provider = FakeProvider("parrot", seed=7)
            client = LlmClient(provider, sink=sink, retry=RetryPolicy(max_attempts=1))
            runner = Runner(store, Library(data_dir), journal, client)
            if mode == "scripted":
                session_id = kernel.build_session(runner, store, 20)
            else:
                session_id = asyncio.run(runner.create_session(scenario)).id
            name = f"{scenario}-{mode}"
            digests[name] = asyncio.run(_play(runner, session_id, turns, out / name))
    return digests


NEW_FIELDS = frozenset(("filter_cuts", "filter_profile", "filter_skipped"))
"""Fields the filter layer added to the commit line and the session state: compared apart."""


def _without(value: Any, keys: frozenset[str]) -> Any:
    if isinstance(value, dict):
        return {k: _without(v, keys) for k, v in value.items() if k not in keys}
    if isinstance(value, list):
        return [_without(v, keys) for v in value]
    return value


def _where(a: Any, b: Any, path: str = "") -> str:
    """The first path at which `a` and `b` differ."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            if a.get(key) != b.get(key):
                return _where(a.get(key), b.get(key), f"{path}.{key}")
    if isinstance(a, list) and isinstance(b, list):
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            if x != y:
                return _where(x, y, f"{path}[{i}]")
        if len(a) != len(b):
            return f"{path} (length {len(a)} vs {len(b)})"
    return f"{path}: {json.dumps(a)[:160]} vs {json.dumps(b)[:160]}"


def compare(out: Path, against: Path) -> list[str]:
    """For each session of `out`, the first turn that differs from `against`'s (the
    filter layer's new fields aside), and where; then the cuts per rule over the run."""
    found = []
    for session in sorted(p for p in out.iterdir() if p.is_dir()):
        cuts: dict[str, int] = {}
        differs = None
        for mine in sorted(session.glob("turn-*.json")):
            a = json.loads(mine.read_text(encoding="utf-8"))
            for commit in a["commit"]:
                for cut in commit.get("filter_cuts", []):
                    cuts[cut["rule"]] = cuts.get(cut["rule"], 0) + 1
            theirs = against / session.name / mine.name
            if differs is None and theirs.exists():
                b = json.loads(theirs.read_text(encoding="utf-8"))
                a, b = _without(a, NEW_FIELDS), _without(b, NEW_FIELDS)
                if a != b:
                    differs = f"first difference in {mine.name} at {_where(a, b)}"
        found.append(f"{session.name}: {differs or 'every turn the same'}; cuts {cuts}")
    return found


def _records(beat: dict[str, Any], turn: int, seq: int, slots: list[str]) -> list[Any]:
    """The records of a corpus beat: the human's attempts (C1) and the events."""
    from tavern.records import ActionRecord, Audience, EventRecord

    seen = Audience(origin="zone", perceivers=slots)
    out: list[Any] = []
    for speaker, text in beat.get("attempts", []):
        if speaker == "C1":
            out.append(ActionRecord(seq=seq + len(out), turn_number=turn, speaker=speaker,
                                    author="human", audience=seen, text=text))  # fmt: skip
    for text, actor in beat.get("events", []):
        out.append(
            EventRecord(
                seq=seq + len(out), turn_number=turn, speaker=actor or "world",
                author="director", audience=seen, text=text, actor_id=actor,
                event_kind="action_outcome" if actor else "world_event",
            )
        )  # fmt: skip
    return out


def _reply_records(reply: dict[str, Any], turn: int, seq: int, slots: list[str]) -> list[Any]:
    from tavern.records import ActionRecord, Audience, SpeechRecord, ThoughtRecord

    heard = Audience(origin="zone", perceivers=slots)
    own = Audience(origin="private", perceivers=[reply["speaker"]])
    kinds = (("speech", SpeechRecord, heard), ("thought", ThoughtRecord, own),
             ("action_intent", ActionRecord, heard))  # fmt: skip
    out = []
    for field, kind, audience in kinds:
        if reply.get(field):
            out.append(kind(seq=seq + len(out), turn_number=turn, speaker=reply["speaker"],
                            author="character", audience=audience, text=reply[field]))  # fmt: skip
    return out


class Tally:
    """Sentences seen and cut, per (rule, language)."""

    def __init__(self) -> None:
        self.seen: dict[tuple[str, str], int] = {}
        self.cut: dict[tuple[str, str], list[str]] = {}

    def add(self, rule: str, language: str, before: dict[str, str], after: dict[str, str]) -> None:
        from tavern.text import sentences

        key = (rule, language)
        for target, text in before.items():
            said = sentences(text)
            kept = after.get(target, "")
            self.seen[key] = self.seen.get(key, 0) + len(said)
            self.cut.setdefault(key, []).extend(s for s in said if s not in kept)


def false_positives(paths: list[Path]) -> Tally:
    """Every rule alone over the clean corpus (see the module), beat by beat."""
    from tavern.filters import ALL_RULES, FilterContext, Speaker, apply_rules
    from tavern.records import Audience, NarrationRecord
    from tavern.records.character import Body, Character, Mind

    tally = Tally()
    for path in paths:
        header: dict[str, Any] = {}
        history: list[Any] = []
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            if "header" in row:
                header, history = row["header"], []
                cast = {
                    slot: Character(
                        id=slot.lower(),
                        body=Body(display_name=m["name"], appearance=m["appearance"],
                                  description_ref=m["description"]),
                        mind=Mind(personality=m["personality"], secrets=m["secrets"]),
                    )
                    for slot, m in header["cast"].items()
                }  # fmt: skip
                slots = list(cast)
                continue
            turn = row["beat"]
            seq = len(history) + 1
            beat = _records(row, turn, seq, slots)
            language = header["language"]
            base = FilterContext(
                language=language, turn=turn, cast=cast, title=header["title"],
                stage=tuple(header["stage"]), staging=tuple(header["staging"]),
                facts=tuple(header["facts"]), directives=tuple(header["directives"]),
                public=(*header["stage"], *header["facts"]),
                history=tuple(history), beat=tuple(beat),
            )  # fmt: skip
            narration = {"narration": row["narration"]}
            for name, rule in ALL_RULES.items():
                if "narration" in rule.targets and language in rule.languages:
                    result = apply_rules([rule], narration, base, {name})
                    tally.add(name, language, narration, result.texts)
            told = NarrationRecord(seq=seq + len(beat), turn_number=turn, speaker="narrator",
                                   author="renderer", audience=Audience(origin="public"),
                                   text=row["narration"])  # fmt: skip
            heard = [*history, *beat]
            said: list[Any] = []
            for reply in row.get("replies", []):
                member = cast[reply["speaker"]]
                ctx = replace(
                    base,
                    history=tuple(heard + said),
                    beat=(),
                    speaker=Speaker(reply["speaker"], member.body.display_name,
                                    member.body.appearance, member.mind.personality,
                                    tuple(member.mind.secrets)),
                )  # fmt: skip
                texts = {
                    f: reply[f] for f in ("speech", "thought", "action_intent") if reply.get(f)
                }
                for name, rule in ALL_RULES.items():
                    mine = {t: x for t, x in texts.items() if t in rule.targets}
                    if mine and language in rule.languages:
                        result = apply_rules([rule], texts, ctx, {name})
                        tally.add(name, language, mine, result.texts)
                said += _reply_records(reply, turn, seq + len(beat) + 1 + len(said), slots)
            history += [*beat, told, *said]
    return tally


def main(argv: list[str] | None = None) -> int:
    """Run a subcommand and print its figures."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.filters", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    play = sub.add_parser("replay", help="digests of the replayed sessions")
    play.add_argument("--out", type=Path, required=True)
    play.add_argument("--turns", type=int, default=30)
    play.add_argument("--against", type=Path)
    fp = sub.add_parser("fp", help="false positives per rule and language on clean prose")
    fp.add_argument("--show", action="store_true", help="print every sentence cut")
    args = parser.parse_args(argv)
    if args.command == "fp":
        return _print_fp(args.show)
    if args.command == "replay":
        for name, digest in replay(args.out, args.turns).items():
            print(f"{name}: {digest}")
        if args.against is not None:
            for line in compare(args.out, args.against):
                print(line)
    return 0


def _print_fp(show: bool) -> int:
    from tavern.filters import ALL_RULES
    from tavern.text import LANGUAGES

    tally = false_positives(sorted(CLEAN_DIR.glob("*.jsonl")))
    print(f"clean corpus: {', '.join(p.name for p in sorted(CLEAN_DIR.glob('*.jsonl')))}")
    print(f"precision bar: at most {PRECISION_BAR:.0%} of clean sentences cut, per language")
    over = 0
    for name, rule in sorted(ALL_RULES.items()):
        cells = []
        for language in LANGUAGES:
            if language not in rule.languages:
                cells.append(f"{language}: skipped")
                continue
            seen = tally.seen.get((name, language), 0)
            cut = len(tally.cut.get((name, language), []))
            rate = cut / seen if seen else 0.0
            over += rate > PRECISION_BAR
            flag = "  OVER THE BAR" if rate > PRECISION_BAR else ""
            cells.append(f"{language}: {cut}/{seen} = {rate:.2%}{flag}")
        print(f"  {name:16s} " + "; ".join(cells))
        if show:
            for language in LANGUAGES:
                for sentence in tally.cut.get((name, language), []):
                    print(f"      [{language}] {sentence}")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
