"""The turn transaction, undo and the runner the app and the terminal loop call."""

from tavern.runner.factory import OwnedRunner, build_runner
from tavern.runner.gate import PromptContractError
from tavern.runner.interface import (
    ConflictError,
    InvalidTurnError,
    ModelFailureError,
    RunnerError,
    SessionNotFoundError,
    TurnRunner,
)
from tavern.runner.limits import KernelLimits
from tavern.runner.service import Runner

__all__ = [
    "ConflictError",
    "InvalidTurnError",
    "KernelLimits",
    "ModelFailureError",
    "OwnedRunner",
    "PromptContractError",
    "Runner",
    "RunnerError",
    "SessionNotFoundError",
    "TurnRunner",
    "build_runner",
]
