"""Build the real services: settings, the store, and the runner factory from `tavern.runner`.

Imported only by `create_app()` when no services are injected, so importing the app never
opens a database or starts a model.
"""

from __future__ import annotations

from tavern.app.state import AppServices, RunnerFactory
from tavern.records.config import AppConfig
from tavern.runner.interface import TurnRunner
from tavern.settings import get_settings
from tavern.store import Library, SessionStore


def runner_factory(library: Library, sessions: SessionStore) -> RunnerFactory:
    """A factory that builds `tavern.runner` runners sharing one store and library."""
    from tavern import runner as runner_module

    def build(config: AppConfig) -> TurnRunner:
        built: TurnRunner = runner_module.build_runner(
            config=config, library=library, store=sessions
        )
        return built

    return build


async def close_runner(runner: TurnRunner) -> None:
    """Release a replaced runner's resources when it offers `aclose()`."""
    aclose = getattr(runner, "aclose", None)
    if aclose is not None:
        await aclose()


def build_services() -> AppServices:
    """The services of a real server, from `get_settings()`."""
    settings = get_settings()
    data_dir = settings.data_dir
    library = Library(data_dir)
    sessions = SessionStore(data_dir)
    return AppServices(
        data_dir=data_dir,
        library=library,
        sessions=sessions,
        runner_factory=runner_factory(library, sessions),
        close_runner=close_runner,
    )
