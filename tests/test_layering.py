"""The import layering of DESIGN.md, enforced over the source tree."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

# Package -> project packages it must never import.
FORBIDDEN: dict[str, set[str]] = {
    "tavern.records": {
        "tavern.physics",
        "tavern.contract",
        "tavern.agents",
        "tavern.llm",
        "tavern.store",
        "tavern.runner",
        "tavern.app",
        "tavern.cli",
        "tavern.filters",
        "harness",
    },
    "tavern.text": {
        "tavern.physics",
        "tavern.contract",
        "tavern.agents",
        "tavern.llm",
        "tavern.store",
        "tavern.runner",
        "tavern.app",
        "tavern.cli",
        "tavern.filters",
        "harness",
    },
    "tavern.physics": {
        "tavern.agents",
        "tavern.llm",
        "tavern.store",
        "tavern.runner",
        "tavern.app",
        "tavern.cli",
        "tavern.filters",
        "harness",
    },
    "tavern.contract": {
        "tavern.agents",
        "tavern.llm",
        "tavern.store",
        "tavern.runner",
        "tavern.app",
        "tavern.cli",
        "tavern.filters",
        "harness",
    },
    "tavern.filters": {
        "tavern.contract",
        "tavern.agents",
        "tavern.llm",
        "tavern.store",
        "tavern.runner",
        "tavern.app",
        "tavern.cli",
        "harness",
    },
    "tavern.agents": {"tavern.llm", "tavern.store", "tavern.runner", "tavern.app", "harness"},
    "tavern.llm": {"tavern.agents", "tavern.runner", "tavern.app", "tavern.store", "harness"},
    "tavern.store": {"tavern.agents", "tavern.runner", "tavern.app", "tavern.llm", "harness"},
    "tavern.runner": {"tavern.app", "harness"},
    "tavern": {"harness"},
}
IO_MODULES = {"os", "pathlib", "socket", "sqlite3", "httpx", "subprocess", "shutil", "io"}
PURE = ("tavern.text", "tavern.physics", "tavern.contract", "tavern.filters")


def _module_name(path: Path) -> str:
    rel = path.relative_to(REPO).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def _violations(module: str, imported: set[str]) -> list[str]:
    bad = []
    for owner, forbidden in FORBIDDEN.items():
        if module != owner and not module.startswith(owner + "."):
            continue
        for name in imported:
            if any(name == f or name.startswith(f + ".") for f in forbidden):
                bad.append(f"{module} imports {name}")
    if module.startswith(PURE):
        bad += [f"{module} does I/O via {n}" for n in imported if n.split(".")[0] in IO_MODULES]
    return bad


SOURCES = sorted((REPO / "tavern").rglob("*.py"))


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(REPO)))
def test_layering(path: Path) -> None:
    assert _violations(_module_name(path), _imports(path)) == []


def test_negative_control_catches_planted_imports() -> None:
    assert _violations("tavern.physics.zones", {"tavern.llm.client"})
    assert _violations("tavern.records.session", {"tavern.store"})
    assert _violations("tavern.contract", {"pathlib"})
    assert _violations("tavern.text.words", {"tavern.physics.redaction"})
    assert _violations("tavern.text.lexicon", {"os"})
    assert _violations("tavern.runner.turn", {"harness.sweep"})
    assert _violations("tavern.filters.loop", {"tavern.agents.prose"})
    assert _violations("tavern.filters.rule", {"tavern.contract.alternation"})
    assert _violations("tavern.filters.retold", {"io"})
    assert _violations("tavern.physics.acts", {"tavern.filters"})
    assert not _violations("tavern.runner.turn", {"tavern.llm", "tavern.store"})
