"""Reading scripts and campaign files, refusing bad input before anything runs.

Every refusal is an `InputError` naming the file, the field and what was expected:

    harness/scripts/x.json: events[2].character: expected a slot or character id of the cast
    of 'the-toll-house' (C1, C2, C3; ilse-brandt, maren-holt, teodor-vask), got 'C9'

Bundled scripts (package data under `harness/scripts/`) are named by id; anything else by
path. A JSON file may carry a `$schema` key (for editors); it is not part of the record.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar, get_args

from pydantic import BaseModel, ValidationError

from harness.records.campaign import Campaign
from harness.records.script import Script, ScriptEvent

SCRIPT_KINDS = frozenset(
    member.model_fields["kind"].default for member in get_args(get_args(ScriptEvent)[0])
)
"""Event kinds: the tags pydantic puts in an error's location."""
M = TypeVar("M", bound=BaseModel)


class InputError(ValueError):
    """Bad input, found before anything ran: each problem names file, field and expectation."""

    def __init__(self, source: str, problems: list[tuple[str, str]]) -> None:
        self.source = source
        self.problems = problems
        lines = [
            f"{source}: {field}: {expected}" if field else f"{source}: {expected}"
            for field, expected in problems
        ]
        super().__init__("\n".join(lines))

    @classmethod
    def one(cls, source: str, field: str, expected: str) -> InputError:
        """A single problem."""
        return cls(source, [(field, expected)])


def field_path(loc: tuple[int | str, ...]) -> str:
    """A pydantic error location as a field path, union tags left out.

    >>> field_path(("events", 2, "turn", "whisper_to", 0))
    'events[2].whisper_to[0]'
    """
    out = ""
    after_index = False
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
            after_index = True
            continue
        if after_index and part in SCRIPT_KINDS:
            after_index = False
            continue  # the discriminated union's tag, not a field
        out += f".{part}" if out else part
        after_index = False
    return out


def problems_of(error: ValidationError) -> list[tuple[str, str]]:
    """(field, expectation) for each error pydantic found."""
    out = []
    for item in error.errors():
        message = str(item["msg"]).removeprefix("Value error, ")
        if item["type"] == "missing":
            message = "required field is missing"
        elif item["type"] == "extra_forbidden":
            message = "unknown field (not part of the format)"
        elif "input" in item and item["type"] not in ("value_error", "assertion_error"):
            message = f"{message}, got {item['input']!r}"
        out.append((field_path(tuple(item["loc"])), message))
    return out


def _validated(model: type[BaseModel], data: Any, source: str) -> Any:
    if not isinstance(data, dict):
        kind = type(data).__name__
        raise InputError.one(source, "", f"expected an object at the top, got {kind}")
    data = {k: v for k, v in data.items() if k != "$schema"}
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise InputError(source, problems_of(exc)) from None


BUNDLED_DIR = Path(__file__).resolve().parent / "scripts"
"""The bundled scripts (package data)."""


def bundled_scripts() -> dict[str, Path]:
    """Script id -> path of every bundled script."""
    return {path.stem: path for path in sorted(BUNDLED_DIR.glob("*.json"))}


@dataclass(frozen=True)
class LoadedScript:
    """A script and where it came from."""

    script: Script
    source: str
    """The path it was read from (for error messages)."""


def load_script(reference: str, base: Path | None = None) -> LoadedScript:
    """Load a bundled script by id, or a script file by path (relative to `base`).

    Raises:
        InputError: unreadable file, bad JSON, or a record that does not validate; a
            reference that is neither a bundled id nor a file lists the bundled ids.
    """
    bundled = bundled_scripts()
    script, path = load_record(Script, "script", reference, bundled, base)
    if path.parent == bundled.get(script.id, Path()).parent and path.stem != script.id:
        raise InputError.one(str(path), "id", f"expected {path.stem!r} (the file's name)")
    return LoadedScript(script, str(path))


def load_record(
    model: type[M], kind: str, reference: str, bundled: dict[str, Path], base: Path | None = None
) -> tuple[M, Path]:
    """A JSON record of `model`: a bundled one by id, or a file by path (relative to `base`);
    the record and the path it was read from. `kind` names it in errors.

    Raises:
        InputError: unreadable file, bad JSON, or a record that does not validate; a
            reference that is neither a bundled id nor a file lists the bundled ids.
    """
    path = Path(reference)
    if base is not None and not path.is_absolute():
        path = base / path
    if reference in bundled and not path.exists():
        path = bundled[reference]
    if not path.is_file():
        known = ", ".join(sorted(bundled))
        raise InputError.one(reference, "", f"expected a bundled {kind} id ({known}) or a file")
    source = str(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError.one(source, "", f"expected a readable UTF-8 file ({exc})") from None
    except json.JSONDecodeError as exc:
        raise InputError.one(
            source, f"line {exc.lineno} column {exc.colno}", f"expected JSON ({exc.msg})"
        ) from None
    record: M = _validated(model, data, source)
    return record, path


def load_campaign(path: Path) -> Campaign:
    """Load a campaign file (TOML); its name defaults to the file's stem.

    Raises:
        InputError: unreadable file, bad TOML, a record that does not validate, or a
            pre-registered metric the battery (`harness.metrics.METRICS`) does not compute.
    """
    source = str(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError.one(source, "", f"expected a readable UTF-8 file ({exc})") from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError.one(source, "", f"expected TOML ({exc})") from None
    data.setdefault("name", path.stem)
    campaign: Campaign = _validated(Campaign, data, source)
    from harness.metrics import METRICS  # the battery pulls in DuckDB and pandas

    unknown = [
        (f"preregistration.metrics[{i}]", name)
        for i, name in enumerate(campaign.preregistration.metrics)
        if name not in METRICS
    ]
    if unknown:
        known = ", ".join(METRICS)
        raise InputError(
            source,
            [
                (field, f"expected a metric of the battery ({known}), got {name!r}")
                for field, name in unknown
            ],
        )
    if campaign.judge is not None:
        from harness.judge import RUBRICS, load_rubric, rubric_source

        try:
            load_rubric(rubric_source(campaign.judge.rubric, path.parent))
        except (OSError, KeyError, ValueError) as exc:
            bundled = ", ".join(sorted(p.stem for p in RUBRICS.glob("*.toml")))
            raise InputError.one(
                source,
                "judge.rubric",
                f"expected a bundled rubric ({bundled}) or a rubric file ({exc})",
            ) from None
    return campaign
