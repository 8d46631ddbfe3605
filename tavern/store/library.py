"""The library of scenarios and characters: immutable built-ins plus user copies.

Built-ins ship in `tavern/builtin/{scenarios,characters}/<id>.json`. User copies live in
`<data_dir>/library/{scenarios,characters}/<id>.json` and are written atomically. A user
copy can never shadow a built-in id: put and delete on a built-in id are refused.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Generic, TypeVar

from pydantic import ValidationError

from tavern.records.character import Character
from tavern.records.scenario import Scenario
from tavern.store.atomic import write_atomic
from tavern.store.errors import BuiltinReadOnly, NotInLibrary, RevisionConflict, StoreError
from tavern.store.ids import check_character_id, check_scenario_id

logger = logging.getLogger(__name__)
BUILTIN_DIR = Path(__file__).resolve().parents[1] / "builtin"

T = TypeVar("T", Scenario, Character)


def builtin_scenario_ids() -> list[str]:
    """The ids of the shipped scenarios, sorted: the library of any data dir before a user
    adds one (no data dir is needed, none is read)."""
    return sorted(p.stem for p in (BUILTIN_DIR / "scenarios").glob("*.json"))


class _Shelf(Generic[T]):
    """One kind of library item (scenarios or characters) in two directories."""

    def __init__(
        self, model: type[T], builtin_dir: Path, user_dir: Path, check_id: Callable[[object], str]
    ) -> None:
        self.model: type[T] = model
        self.builtin_dir = builtin_dir
        self.user_dir = user_dir
        self.check_id = check_id

    def _read(self, path: Path) -> T:
        try:
            item: T = self.model.model_validate_json(path.read_bytes())
        except (ValidationError, OSError) as exc:
            raise StoreError(f"{path}: invalid {self.model.__name__}: {exc}") from exc
        if item.id != path.stem:
            raise StoreError(f"{path}: id {item.id!r} does not match the file name")
        return item

    def is_builtin(self, item_id: str) -> bool:
        return (self.builtin_dir / f"{self.check_id(item_id)}.json").is_file()

    def readable(self) -> list[T]:
        """Every item; a broken user file is skipped with a warning so one bad copy does not
        hide the whole library (`get` on it still raises)."""
        items: list[T] = []
        for item_id in self.ids():
            try:
                items.append(self.get(item_id))
            except StoreError as exc:
                logger.warning("skipped an unreadable library file: %s", exc)
        return items

    def ids(self) -> list[str]:
        found = {p.stem for p in self.builtin_dir.glob("*.json")}
        found |= {p.stem for p in self.user_dir.glob("*.json")}
        return sorted(found)

    def get(self, item_id: str) -> T:
        self.check_id(item_id)
        for directory in (self.builtin_dir, self.user_dir):
            path = directory / f"{item_id}.json"
            if path.is_file():
                return self._read(path)
        raise NotInLibrary(f"no {self.model.__name__.lower()} {item_id!r} in the library")

    def put(self, item: T, expected_revision: int | None) -> T:
        self.check_id(item.id)
        if self.is_builtin(item.id):
            raise BuiltinReadOnly(f"{item.id!r} is built in; save it under another id")
        path = self.user_dir / f"{item.id}.json"
        current = self._read(path).revision if path.is_file() else None
        if expected_revision is not None and current != expected_revision:
            raise RevisionConflict(f"{item.id!r} is at revision {current}, not {expected_revision}")
        stored = item.model_copy(update={"revision": 0 if current is None else current + 1})
        write_atomic(path, stored.model_dump_json(indent=2).encode("utf-8") + b"\n")
        return stored

    def delete(self, item_id: str) -> None:
        self.check_id(item_id)
        if self.is_builtin(item_id):
            raise BuiltinReadOnly(f"{item_id!r} is built in and cannot be deleted")
        path = self.user_dir / f"{item_id}.json"
        if not path.is_file():
            raise NotInLibrary(f"no {self.model.__name__.lower()} {item_id!r} in the library")
        path.unlink()


class Library:
    """Scenarios and characters, built-in (read-only) and user-authored.

    Example:
        >>> lib = Library(data_dir)                             # doctest: +SKIP
        >>> lib.get_scenario("the-toll-house").title            # doctest: +SKIP
    """

    def __init__(self, data_dir: Path | str, *, builtin_dir: Path | None = None) -> None:
        """Open the library of `data_dir`; `builtin_dir` overrides the shipped built-ins."""
        base = builtin_dir or BUILTIN_DIR
        user = Path(data_dir) / "library"
        self.scenarios: _Shelf[Scenario] = _Shelf(
            Scenario, base / "scenarios", user / "scenarios", check_scenario_id
        )
        self.characters: _Shelf[Character] = _Shelf(
            Character, base / "characters", user / "characters", check_character_id
        )

    def list_scenarios(self) -> list[Scenario]:
        """Every scenario, built-in and user, sorted by id."""
        return self.scenarios.readable()

    def get_scenario(self, scenario_id: str) -> Scenario:
        """One scenario. Raises NotInLibrary or InvalidIdError."""
        return self.scenarios.get(scenario_id)

    def put_scenario(self, scenario: Scenario, expected_revision: int | None = None) -> Scenario:
        """Write a user scenario atomically and return it with its new revision.

        Raises:
            BuiltinReadOnly: the id is a built-in.
            RevisionConflict: `expected_revision` is given and differs from the stored one.
        """
        return self.scenarios.put(scenario, expected_revision)

    def delete_scenario(self, scenario_id: str) -> None:
        """Delete a user scenario. Raises BuiltinReadOnly or NotInLibrary."""
        self.scenarios.delete(scenario_id)

    def is_builtin_scenario(self, scenario_id: str) -> bool:
        """Whether the scenario id is a built-in."""
        return self.scenarios.is_builtin(scenario_id)

    def list_characters(self) -> list[Character]:
        """Every character, built-in and user, sorted by id."""
        return self.characters.readable()

    def get_character(self, character_id: str) -> Character:
        """One character. Raises NotInLibrary or InvalidIdError."""
        return self.characters.get(character_id)

    def put_character(
        self, character: Character, expected_revision: int | None = None
    ) -> Character:
        """Write a user character atomically; see `put_scenario`."""
        return self.characters.put(character, expected_revision)

    def delete_character(self, character_id: str) -> None:
        """Delete a user character. Raises BuiltinReadOnly or NotInLibrary."""
        self.characters.delete(character_id)

    def is_builtin_character(self, character_id: str) -> bool:
        """Whether the character id is a built-in."""
        return self.characters.is_builtin(character_id)
