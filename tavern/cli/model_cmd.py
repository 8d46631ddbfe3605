"""`tavern model install|status`: the embedded local model and its llama.cpp server."""

from __future__ import annotations

import argparse
import time

from tavern.llm.local.model_files import ModelInstallError, ensure_model, installed_model
from tavern.llm.local.paths import MODEL_SHA256, SDIST_VERSION, local_paths
from tavern.llm.local.runtime_build import RuntimeBuildError, build_runtime, runtime_info


def register(parser: argparse.ArgumentParser) -> None:
    """Add the `model` subcommands."""
    sub = parser.add_subparsers(dest="action", required=True)
    install = sub.add_parser(
        "install", help="install and verify the model, build the llama.cpp server (once)"
    )
    install.add_argument(
        "--no-server", action="store_true", help="install the model only, skip the server build"
    )
    install.add_argument("--jobs", type=int, default=2, help="parallel compile jobs (default 2)")
    install.set_defaults(handler=_install)
    status = sub.add_parser("status", help="say what is installed")
    status.add_argument(
        "--rehash", action="store_true", help="hash the model file again instead of its stamp"
    )
    status.set_defaults(handler=_status)


def _say(message: str) -> None:
    print(f"[tavern model] {message}", flush=True)


def _install(args: argparse.Namespace) -> int:
    paths = local_paths()
    started = time.monotonic()
    try:
        ensure_model(paths, progress=_say)
    except ModelInstallError as exc:
        _say(f"error: {exc}")
        return 1
    model_s = time.monotonic() - started
    _say(f"model ready in {model_s:.1f} s")
    if not args.no_server:
        built = time.monotonic()
        try:
            build_runtime(paths, jobs=args.jobs, progress=_say)
        except RuntimeBuildError as exc:
            _say(f"error: {exc}")
            return 1
        _say(f"server ready in {time.monotonic() - built:.1f} s")
    _say(f"done in {time.monotonic() - started:.1f} s (cache: {paths.root})")
    return 0


def _status(args: argparse.Namespace) -> int:
    paths = local_paths()
    model = installed_model(paths, rehash=args.rehash)
    how = "re-hashed now" if args.rehash else "stamp of the last hash check"
    print(f"cache dir:     {paths.root}")
    if model is None:
        state = "present but NOT verified" if paths.model_file.exists() else "not installed"
        print(f"model:         {state} ({paths.model_file})")
    else:
        print(f"model:         {model.path} ({model.size} bytes)")
        print(f"sha256:        {model.sha256} verified ({how})")
    info = runtime_info(paths)
    if info is None:
        print(f"llama-server:  not built (expected at {paths.server_binary})")
    else:
        print(f"llama-server:  {paths.server_binary}")
        print(f"server build:  {info.get('sdist')} ({info.get('version')})")
    ready = model is not None and info is not None
    print("ready:         " + ("yes" if ready else "no, run `tavern model install`"))
    if not ready:
        print(f"(pins: sha256 {MODEL_SHA256}, llama-cpp-python sdist {SDIST_VERSION})")
    return 0 if ready else 1
