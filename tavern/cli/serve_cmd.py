"""`tavern serve`: the HTTP API and the web UI on 127.0.0.1, with the embedded model if asked.

With provider `local` (the default), the embedded llama.cpp server is started and warmed
before the URL is printed, so the first turn does not pay the model load. When the model or
the server binary is missing, nothing starts and the message says what to run instead.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import uvicorn

    from tavern.records.config import AppConfig

LOOPBACK = "127.0.0.1"


def register(parser: argparse.ArgumentParser) -> None:
    """Add the `serve` subcommand."""
    parser.add_argument(
        "--provider",
        help="provider for this run (e.g. `fake` for a demo); not saved to config.json",
    )
    parser.add_argument("--port", type=int, help="port (default: TAVERN_PORT or 8765)")
    parser.set_defaults(handler=_serve)


def local_missing() -> str | None:
    """Why the embedded `local` provider cannot start, or None when it can."""
    try:
        from tavern.llm.local.model_files import installed_model
        from tavern.llm.local.paths import local_paths
        from tavern.llm.local.runtime_build import runtime_info
    except ImportError as exc:
        return f"the embedded model support is not available in this build ({exc})"
    paths = local_paths()
    if installed_model(paths) is None:
        return f"the local model is not installed (looked in {paths.model_dir})"
    if runtime_info(paths) is None:
        return f"the llama.cpp server is not built (looked in {paths.runtime_dir})"
    return None


def start_local(config: AppConfig) -> Callable[[], None]:
    """Start and warm the shared embedded server the `local` provider will use.

    Returns:
        A function that stops it.
    """
    from tavern.llm.local.paths import local_paths
    from tavern.llm.local.provider import server_options, shared_server

    server = shared_server(local_paths(), server_options(config.settings_for("local")))
    server.start()
    return server.stop


def build_server(config: AppConfig, port: int) -> uvicorn.Server:
    """The uvicorn server for the real app on loopback (not yet running)."""
    import uvicorn

    from tavern.app.main import create_app
    from tavern.app.wiring import build_services

    app = create_app(build_services(), config)
    return uvicorn.Server(uvicorn.Config(app, host=LOOPBACK, port=port, log_level="warning"))


def _serve(args: argparse.Namespace) -> int:
    from tavern.cli._config import resolve_config
    from tavern.settings import get_settings

    settings = get_settings()
    port = args.port or settings.port
    config = resolve_config("serve", settings, args.provider)
    if config is None:
        return 2
    stop_local: Callable[[], None] | None = None
    if config.active_provider == "local":
        missing = local_missing()
        if missing:
            print(f"tavern serve: {missing}.")
            print("  Install it with `tavern model install` (or `make play`),")
            print("  or try the demo model: `tavern serve --provider fake`.")
            return 2
        started = time.monotonic()
        print("tavern serve: starting the local model server ...", flush=True)
        stop_local = start_local(config)
        print(f"tavern serve: local model ready in {time.monotonic() - started:.1f} s", flush=True)
    try:
        try:
            server = build_server(config, port)
        except ValueError as exc:  # e.g. a key-bearing provider without its key
            print(f"tavern serve: cannot use provider {config.active_provider!r}: {exc}")
            return 2
        print(f"Tavern is at http://{LOOPBACK}:{port}/  (provider: {config.active_provider})")
        print("Press Ctrl+C to stop.", flush=True)
        server.run()
    finally:
        if stop_local is not None:
            stop_local()
    return 0
