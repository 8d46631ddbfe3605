"""What makes two campaign runs comparable: the code, the interpreter, the libraries, the model.

A fingerprint is taken when a campaign starts and each time it resumes; `campaign status`
lists every field that differs from the campaign's first one. The kernel and harness hashes
cover their Python sources and their data (built-in scenarios, bundled scripts), so an edit
shows even in a checkout git calls clean.

Example::

    first = take_fingerprint()
    differences(first, take_fingerprint())   # [] while nothing changed
"""

from __future__ import annotations

import hashlib
import platform
import subprocess
from collections.abc import Iterable
from importlib import metadata
from pathlib import Path
from typing import Any

from harness.records.campaign import Fingerprint

REPO = Path(__file__).resolve().parents[1]
PACKAGES = (
    "tavern",
    "pydantic",
    "pydantic-core",
    "httpx",
    "fastapi",
    "starlette",
    "uvicorn",
    "jsonschema",
    "duckdb",
    "pandas",
    "rich",
    "dask",
    "distributed",
)
"""Libraries whose versions a fingerprint records (those installed)."""


def tree_sha256(root: Path, patterns: Iterable[str]) -> str:
    """SHA-256 over the files under `root` matching `patterns`: relative path, then content.

    >>> len(tree_sha256(REPO / "harness", ["*.py"]))
    64
    """
    digest = hashlib.sha256()
    files = sorted({p for pattern in patterns for p in root.rglob(pattern) if p.is_file()})
    for path in files:
        if "__pycache__" in path.parts:
            continue
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


def _git(*args: str) -> str | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(REPO), *args], capture_output=True, text=True, timeout=30
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def package_versions(names: Iterable[str] = PACKAGES) -> dict[str, str]:
    """Installed versions of `names` (those not installed are left out)."""
    found = {}
    for name in names:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return found


def take_fingerprint() -> Fingerprint:
    """The fingerprint of this checkout and interpreter, now."""
    commit = _git("rev-parse", "HEAD")
    status = _git("status", "--porcelain", "--untracked-files=no") if commit else None
    return Fingerprint(
        git_commit=commit,
        git_dirty=None if status is None else bool(status),
        kernel_sha256=tree_sha256(REPO / "tavern", ["*.py", "*.json"]),
        harness_sha256=tree_sha256(REPO / "harness", ["*.py", "*.json"]),
        python=f"{platform.python_implementation()} {platform.python_version()}",
        packages=package_versions(),
    )


def differences(first: Fingerprint, now: Fingerprint) -> list[str]:
    """`field: first -> now` for each field that differs (packages one by one).

    >>> a = Fingerprint(kernel_sha256="a", harness_sha256="h", python="3.11",
    ...                 packages={"pydantic": "2.9"})
    >>> differences(a, a.model_copy(update={"packages": {"pydantic": "2.10"}}))
    ['packages.pydantic: 2.9 -> 2.10']
    """
    out = []
    old: dict[str, Any] = first.model_dump()
    new: dict[str, Any] = now.model_dump()
    for key in old:
        if key == "packages":
            for name in sorted(set(old[key]) | set(new[key])):
                a, b = old[key].get(name), new[key].get(name)
                if a != b:
                    out.append(f"packages.{name}: {a} -> {b}")
        elif old[key] != new[key]:
            out.append(f"{key}: {old[key]} -> {new[key]}")
    return out


def local_model_sha256(provider: str, model: str | None) -> str | None:
    """SHA-256 of the GGUF file a provider runs locally: the embedded model of `local`
    (verified at install), or a `model` setting naming a `.gguf` file that exists."""
    if provider == "local":
        try:
            from tavern.llm.local.model_files import installed_model
            from tavern.llm.local.paths import local_paths
        except ImportError:
            return None
        installed = installed_model(local_paths())
        return installed.sha256 if installed is not None else None
    if model and model.endswith(".gguf") and Path(model).is_file():
        digest = hashlib.sha256()
        with open(model, "rb") as handle:
            while chunk := handle.read(1 << 22):
                digest.update(chunk)
        return digest.hexdigest()
    return None
