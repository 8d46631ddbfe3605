"""Library: read-only built-ins, atomic user copies, id checks; session materialization."""

from __future__ import annotations

from pathlib import Path

import pytest

from tavern.records import ActDeadline, Body, Character, Mind, Scenario, Scene
from tavern.store import (
    BuiltinReadOnly,
    InvalidIdError,
    Library,
    NotInLibrary,
    RevisionConflict,
    StoreError,
    materialize_session,
    new_session_id,
)
from tavern.store import atomic as atomic_module
from tavern.store.ids import check_session_id


def _character(char_id: str, name: str = "Nell") -> Character:
    return Character(
        id=char_id,
        mind=Mind(secrets=["hid the key"]),
        body=Body(display_name=name, description_ref=f"the one called {char_id}"),
    )


def _scenario(scenario_id: str = "my-scene", **extra: object) -> Scenario:
    fields: dict[str, object] = {
        "id": scenario_id,
        "title": "Mine",
        "world": "w",
        "scene": Scene(location="a barn"),
        "cast": {"C1": "char-a", "C2": "char-b", "C3": "char-c"},
        "default_controlled_slot": "C2",
        **extra,
    }
    return Scenario.model_validate(fields)


@pytest.fixture
def library(tavern_data_dir: Path) -> Library:
    lib = Library(tavern_data_dir)
    for char_id, name in (("char-a", "Ada"), ("char-b", "Bo"), ("char-c", "Cy")):
        lib.put_character(_character(char_id, name))
    return lib


def test_builtins_are_listed_and_read_only(library: Library) -> None:
    scenario_ids = {s.id for s in library.list_scenarios()}
    assert {"the-toll-house", "the-vintners-wake"} <= scenario_ids
    builtin = library.get_scenario("the-toll-house")
    assert library.is_builtin_scenario(builtin.id)
    with pytest.raises(BuiltinReadOnly):
        library.put_scenario(builtin)
    with pytest.raises(BuiltinReadOnly):
        library.delete_scenario(builtin.id)
    character = library.get_character("maren-holt")
    with pytest.raises(BuiltinReadOnly):
        library.put_character(character)
    with pytest.raises(BuiltinReadOnly):
        library.delete_character(character.id)
    assert library.get_scenario("the-toll-house") == builtin  # unchanged


def test_user_copy_round_trip_revision_and_delete(library: Library, tavern_data_dir: Path) -> None:
    stored = library.put_scenario(_scenario())
    assert stored.revision == 0
    path = tavern_data_dir / "library" / "scenarios" / "my-scene.json"
    assert path.is_file()
    assert library.get_scenario("my-scene") == stored
    again = library.put_scenario(
        stored.model_copy(update={"title": "Mine, again"}), expected_revision=0
    )
    assert again.revision == 1
    with pytest.raises(RevisionConflict):
        library.put_scenario(stored, expected_revision=0)
    assert library.get_scenario("my-scene").title == "Mine, again"
    library.delete_scenario("my-scene")
    assert not path.exists()
    with pytest.raises(NotInLibrary):
        library.get_scenario("my-scene")
    with pytest.raises(NotInLibrary):
        library.delete_scenario("my-scene")


def test_user_write_is_atomic_when_interrupted(
    library: Library, tavern_data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    library.put_character(_character("char-z", "Zed"))
    path = tavern_data_dir / "library" / "characters" / "char-z.json"
    before = path.read_bytes()

    def crash(src: str, dst: str) -> None:
        raise OSError("power cut between write and rename")

    with monkeypatch.context() as patch, pytest.raises(OSError, match="power cut"):
        patch.setattr(atomic_module.os, "replace", crash)
        library.put_character(_character("char-z", "Zed the Second"))
    assert path.read_bytes() == before
    assert sorted(p.name for p in path.parent.iterdir()) == [
        "char-a.json",
        "char-b.json",
        "char-c.json",
        "char-z.json",
    ]
    # Control: without the interruption the same write goes through.
    assert (
        library.put_character(_character("char-z", "Zed the Second")).body.display_name
        == "Zed the Second"
    )


@pytest.mark.parametrize("bad", ["../escape", "a/b", "..", "", "Upper", "x\n", "a" * 65, "/abs"])
def test_traversal_ids_are_refused(library: Library, bad: str) -> None:
    for call in (
        library.get_scenario,
        library.delete_scenario,
        library.get_character,
        library.delete_character,
    ):
        with pytest.raises(InvalidIdError):
            call(bad)


def test_file_name_and_id_must_agree(library: Library, tavern_data_dir: Path) -> None:
    stored = library.put_scenario(_scenario())
    wrong = tavern_data_dir / "library" / "scenarios" / "other-name.json"
    wrong.write_text(stored.model_dump_json())
    with pytest.raises(StoreError, match="does not match"):
        library.get_scenario("other-name")


def test_a_broken_user_file_is_skipped_by_list_but_refused_by_get(
    library: Library, tavern_data_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    broken = tavern_data_dir / "library" / "characters" / "half-written.json"
    broken.write_text('{"id": "half-written", "mind"')
    ids = {c.id for c in library.list_characters()}
    assert "char-a" in ids and "maren-holt" in ids and "half-written" not in ids
    assert "unreadable" in caplog.text
    with pytest.raises(StoreError):
        library.get_character("half-written")


def test_materialize_snapshots_cast_and_ledgers(library: Library) -> None:
    scenario = library.put_scenario(
        _scenario(
            introductions={"C1": ["C2"]},
            act_deadlines=[ActDeadline(id="bell", at_tick=3, event="A bell rings.")],
        )
    )
    state = materialize_session(scenario, library, "sess-mat")
    assert state.controlled_id == "C2"
    assert state.turn_number == 0 and state.revision == 0
    assert state.scene.present == ["C1", "C2", "C3"]
    assert [d.id for d in state.clock.deadlines] == ["bell"] and state.clock.tick == 0
    assert set(state.moods) == {"C1", "C2", "C3"}
    c1 = state.ledgers["C1"].identities
    assert c1["C2"].name == "Bo"  # introduced
    assert c1["C3"].name is None and c1["C3"].description_ref == "the one called char-c"
    assert "C1" not in c1
    assert all(e.name is None for e in state.ledgers["C2"].identities.values())
    assert all(e.name is None for e in state.ledgers["C3"].identities.values())
    # The cast is a snapshot: a later library edit does not reach the session.
    library.put_character(_character("char-a", "Renamed"))
    assert state.cast["C1"].body.display_name == "Ada"


def test_materialize_with_another_controlled_slot(library: Library) -> None:
    scenario = library.put_scenario(_scenario())
    assert materialize_session(scenario, library, "sess-mat", "C3").controlled_id == "C3"
    with pytest.raises(StoreError):
        materialize_session(scenario, library, "sess-mat", "C9")


def test_materialize_refuses_positions_outside_the_cast(library: Library) -> None:
    scenario = library.put_scenario(
        _scenario(scene=Scene(location="a barn", zones=[], positions={"C7": "hall"}))
    )
    with pytest.raises(StoreError, match="outside the cast"):
        materialize_session(scenario, library, "sess-mat")


def test_materialize_only_knows_present_characters(library: Library) -> None:
    scenario = library.put_scenario(_scenario(scene=Scene(location="a barn", present=["C1", "C2"])))
    state = materialize_session(scenario, library, "sess-mat")
    assert set(state.ledgers["C1"].identities) == {"C2"}


def test_new_session_ids_are_valid_and_distinct() -> None:
    ids = {new_session_id() for _ in range(200)}
    assert len(ids) == 200
    for session_id in ids:
        assert check_session_id(session_id) == session_id
        assert session_id == session_id.lower()
