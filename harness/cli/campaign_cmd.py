"""`tavern-harness campaign run|status|resume FILE`: arms x scripts x repeats.

    tavern-harness campaign run experiments/fake-modes.toml
    tavern-harness campaign status experiments/fake-modes.toml
    tavern-harness campaign resume experiments/fake-modes.toml    # after Ctrl+C or a kill

The campaign directory defaults to `<data dir>/campaigns/<name>` (`--out` to choose).
Exit status: 0 when every planned run finished, 130 after Ctrl+C, 2 for bad input.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from harness.campaign import (
    CampaignPlan,
    campaign_dir,
    campaign_status,
    make_executor,
    plan_campaign,
    run_campaign,
)
from harness.loading import InputError
from tavern.store import Library


def register(parser: argparse.ArgumentParser) -> None:
    """Add `run`, `status` and `resume`."""
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    for action, help_text in (
        ("run", "start a campaign in a new directory"),
        ("status", "runs done per arm, probe pass rates, invocations, fingerprints"),
        ("resume", "run what a stopped campaign has not finished"),
    ):
        command = sub.add_parser(action, help=help_text, description=help_text)
        command.add_argument("file", type=Path, help="campaign file, e.g. experiments/NAME.toml")
        command.add_argument("--out", type=Path, help="campaign directory")
        if action != "status":
            command.add_argument("--executor", choices=["local", "dask"], help="override")
            command.add_argument("--concurrency", type=int, help="runs in flight (override)")
        if action == "resume":
            command.add_argument(
                "--allow-drift",
                action="store_true",
                help="resume even though the code's fingerprint differs from the campaign's",
            )
        command.set_defaults(handler=_handle)


def _plan(args: argparse.Namespace) -> CampaignPlan:
    plan = plan_campaign(args.file, Library(args.out) if args.out else None)
    if getattr(args, "concurrency", None):
        campaign = plan.campaign.model_copy(update={"concurrency": args.concurrency})
        plan = CampaignPlan(
            plan.path, campaign, plan.text_sha256, plan.scripts, plan.references, plan.cells,
            plan.arms,
        )  # fmt: skip
    return plan


def _handle(args: argparse.Namespace) -> int:
    try:
        if not args.file.is_file():
            raise InputError.one(str(args.file), "", "expected a campaign file (TOML)")
        plan = _plan(args)
        directory = campaign_dir(plan, args.out)
        if args.action == "status":
            print("\n".join(campaign_status(plan, directory)))
            return 0
        executor = make_executor(plan, directory, args.executor)
        print(f"campaign {plan.name}: {len(plan.cells)} runs, directory {directory}", flush=True)
        code = run_campaign(
            plan,
            directory,
            command=args.action,
            executor=executor,
            allow_drift=getattr(args, "allow_drift", False),
        )
    except InputError as exc:
        print(f"tavern-harness campaign {args.action}: {exc}", file=sys.stderr)
        return 2
    print("\n".join(campaign_status(plan, directory)))
    return code
