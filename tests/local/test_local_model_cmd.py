"""`tavern model status|install` on a cache dir prepared by hand (nothing is built here)."""

from __future__ import annotations

import json

import pytest

from tavern.cli import main
from tavern.llm.local.paths import MODEL_SHA256, LocalPaths


def _stamp_everything(paths: LocalPaths) -> None:
    """A dummy model stamped as verified with the real hash, and a stamped dummy build."""
    stat = paths.model_file.stat()
    paths.model_stamp.write_text(
        json.dumps({"sha256": MODEL_SHA256, "size": stat.st_size, "mtime_ns": stat.st_mtime_ns})
    )
    paths.runtime_stamp.write_text(
        json.dumps({"sdist": "llama-cpp-python==0.3.36", "version": "version: 1 (abc)"})
    )


def test_status_of_an_empty_cache_says_not_installed(
    cache_root: object, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["model", "status"]) == 1
    out = capsys.readouterr().out
    assert "model:         not installed" in out and "llama-server:  not built" in out


def test_status_and_install_of_a_complete_cache(
    fake_install: LocalPaths, capsys: pytest.CaptureFixture[str]
) -> None:
    _stamp_everything(fake_install)
    assert main(["model", "status"]) == 0
    out = capsys.readouterr().out
    assert MODEL_SHA256 in out and "ready:         yes" in out and "0.3.36" in out
    assert main(["model", "install"]) == 0  # nothing to do: no pip, no build
    out = capsys.readouterr().out
    assert "model already installed" in out and "llama-server already built" in out


def test_rehash_catches_a_file_the_stamp_vouches_for(
    fake_install: LocalPaths, capsys: pytest.CaptureFixture[str]
) -> None:
    _stamp_everything(fake_install)
    assert main(["model", "status", "--rehash"]) == 1
    assert "present but NOT verified" in capsys.readouterr().out
