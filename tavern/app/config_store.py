"""The app's persisted configuration: `data_dir/config.json`, written atomically.

The app owns this file; its shape is `tavern.records.config.AppConfig`. Secrets stay
server-side: responses carry `redact_config` output only, and a blank key in an update keeps
the stored one.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from tavern.records.config import CONFIG_SCHEMA_VERSION, AppConfig


class ConfigError(Exception):
    """config.json exists but cannot be used (bad JSON, wrong version, invalid fields)."""


def config_path(data_dir: Path) -> Path:
    """Where the config lives inside a data dir."""
    return data_dir / "config.json"


def dump_config(config: AppConfig) -> str:
    """Serialize a config for disk, keys included (the file is owner-readable only)."""
    data: dict[str, Any] = config.model_dump(mode="json")
    for name, settings in config.providers.items():
        if settings.api_key is not None:
            data["providers"][name]["api_key"] = settings.api_key.get_secret_value()
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def load_config(data_dir: Path, default_provider: str = "local") -> AppConfig:
    """Read config.json, or return defaults when it does not exist yet.

    Raises:
        ConfigError: the file is unreadable, invalid, or from another schema version.
    """
    path = config_path(data_dir)
    if not path.exists():
        return AppConfig(active_provider=default_provider)
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigError(f"{path}: unreadable config ({exc})") from exc
    version = raw.get("schema_version") if isinstance(raw, dict) else None
    if version != CONFIG_SCHEMA_VERSION:
        raise ConfigError(
            f"{path}: config schema_version {version!r}, this Tavern reads {CONFIG_SCHEMA_VERSION}"
        )
    try:
        return AppConfig.model_validate(raw)
    except ValidationError as exc:
        raise ConfigError(f"{path}: invalid config: {exc}") from exc


def save_config(data_dir: Path, config: AppConfig) -> None:
    """Write config.json atomically (temp file, fsync, rename), readable by the owner only."""
    data_dir.mkdir(parents=True, exist_ok=True)
    payload = dump_config(config)
    fd, tmp = tempfile.mkstemp(prefix=".config-", suffix=".tmp", dir=data_dir)
    try:
        os.fchmod(fd, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, config_path(data_dir))
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
