"""`tavern play SCENARIO`: quick manual play in the terminal.

It writes the same session store and journal as the server (the data dir of `TAVERN_DATA_DIR`),
so a session played here can be opened in the web UI and the other way round.

Lines you type:
    plain text            say it aloud
    /think TEXT           a private thought
    /do TEXT              a physical attempt
    /whisper SLOT TEXT    whisper to a character (e.g. `/whisper C2 meet me below`)
    /skip [HINT]          let the world move (optionally with a direction)
    /force SLOT           let SLOT (or Narrator) react next, without acting yourself
    /suggest              three candidate moves        /openings   three opening sparks
    /undo                 take back the last turn      /quit       leave
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tavern.records import HistoryRecord, TurnInput
    from tavern.runner import OwnedRunner

HELP = __doc__.split("Lines you type:")[1] if __doc__ else ""


def register(parser: argparse.ArgumentParser) -> None:
    """Add the `play` subcommand."""
    parser.add_argument("scenario", help="scenario id, e.g. the-toll-house")
    parser.add_argument("--provider", help="provider for this run (fake, local, deepseek, ...)")
    parser.add_argument(
        "--mode", choices=["parrot", "adversary"], help="fake provider mode (default parrot)"
    )
    parser.add_argument("--as", dest="slot", help="slot or character id to play")
    parser.add_argument("--session", help="resume this session id instead of creating one")
    parser.set_defaults(handler=_play)


def parse_line(line: str) -> TurnInput | str | None:
    """Turn a typed line into a `TurnInput`, a command word, or None for an empty line.

    >>> parse_line("/whisper C2 meet me below").whisper_to
    ['C2']
    >>> parse_line("/undo")
    'undo'
    """
    from tavern.records import TurnInput

    text = line.strip()
    if not text:
        return None
    if not text.startswith("/"):
        return TurnInput(speech=text)
    word, _, rest = text[1:].partition(" ")
    rest = rest.strip()
    if word in ("undo", "quit", "suggest", "openings", "help"):
        return word
    if word == "think" and rest:
        return TurnInput(thought=rest)
    if word == "do" and rest:
        return TurnInput(action=rest)
    if word == "whisper":
        slot, _, words = rest.partition(" ")
        if slot and words.strip():
            return TurnInput(speech=words.strip(), whisper_to=[slot])
    if word == "skip":
        return TurnInput(skip=True, hint=rest or None)
    if word == "force" and rest:
        return TurnInput(skip=True, force_speaker=rest)
    return "help"


def render(record: HistoryRecord, names: dict[str, str]) -> str:
    """One record as the human reads it (their view may name everyone)."""
    who = names.get(record.speaker, record.speaker)
    kind = record.kind
    text = getattr(record, "text", "")
    if kind == "speech":
        whisper = record.audience.origin == "whisper"
        return f'{who} {"whispers" if whisper else "says"}: "{text}"'
    if kind == "thought":
        return f"({who} thinks: {text})"
    if kind == "action":
        return f"{who} tries: {text}"
    if kind == "narration":
        return f"\n{text}\n"
    if kind == "event":
        return f"* {text}"
    return f"[{text}]" if text else ""


async def _loop(runner: OwnedRunner, args: argparse.Namespace, read: Callable[[str], str]) -> int:
    from tavern.runner import RunnerError

    view = (
        await runner.view(args.session)
        if args.session
        else await runner.create_session(args.scenario, args.slot)
    )
    names = {c.slot: c.name for c in view.cast}
    me = names[view.controlled_id]
    print(f"{view.title}  (session {view.id})\nYou play {me} ({view.controlled_id}).")
    print("Cast: " + ", ".join(f"{c.slot} {c.name}" for c in view.cast))
    for warning in view.warnings:
        print(f"warning: {warning.rule} in {warning.where}: {warning.excerpt!r}")
    for record in view.transcript:
        print(render(record, names))
    while True:
        try:
            parsed = parse_line(read(f"{me}> "))
        except EOFError:
            return 0
        except ValueError as exc:
            print(f"not a valid turn: {exc}")
            continue
        try:
            if parsed is None:
                continue
            if parsed == "quit":
                return 0
            if parsed == "help":
                print(HELP)
            elif parsed == "undo":
                state = await runner.undo(view.id)
                print(f"(undone: back to turn {state.turn_number})")
            elif parsed == "suggest":
                for s in await runner.suggestions(view.id):
                    print(f"- say: {s.speech or '-'} | do: {s.action or '-'}")
            elif parsed == "openings":
                for spark in await runner.openings(view.id):
                    print(f"- {spark}")
            elif not isinstance(parsed, str):
                result = await runner.play_turn(view.id, parsed)
                for record in result.records:
                    if record.speaker != view.controlled_id:
                        print(render(record, names))
                if result.control_returned:
                    print("(your move)")
        except RunnerError as exc:
            print(f"error ({exc.status}): {exc}")


def _play(args: argparse.Namespace) -> int:
    from tavern.cli._config import resolve_config
    from tavern.runner import build_runner
    from tavern.settings import get_settings
    from tavern.store import Library, SessionStore

    settings = get_settings()
    config = resolve_config("play", settings, args.provider)
    if config is None:
        return 2
    if args.mode:
        settings_for = config.settings_for(config.active_provider)
        options: dict[str, Any] = {**settings_for.options, "mode": args.mode}
        providers = {
            **config.providers,
            config.active_provider: settings_for.model_copy(update={"options": options}),
        }
        config = config.model_copy(update={"providers": providers})
    store = SessionStore(settings.data_dir)
    runner = build_runner(config=config, library=Library(settings.data_dir), store=store)

    async def main() -> int:
        try:
            return await _loop(runner, args, input)
        finally:
            await runner.aclose()

    try:
        return asyncio.run(main())
    except KeyboardInterrupt:
        return 130
    finally:
        store.close()
