"""`python -m baton_agent_runner`: run the agent-runner until SIGTERM or SIGINT."""

from __future__ import annotations

import gc

from baton_agent_runner.adapters.profiles import ProfileInvalid
from baton_agent_runner.bootstrap import AgentRunnerApp, build
from baton_agent_runner.entrypoints.subscribers import documented_broker
from baton_agent_runner.service.ports import StoreUnavailable
from baton_agent_runner.settings import AgentRunnerSettings
from baton_messaging.process import run_service

broker = documented_broker()
"""The responders as declared, not connected: `make docs` reads AsyncAPI here."""


def build_frozen(settings: AgentRunnerSettings) -> AgentRunnerApp:
    """`build`, then the objects it made are left out of the cyclic garbage collector's walks.

    Start-up leaves about 290,000 long-lived objects (PydanticAI, Mem0 and Qdrant, SQLAlchemy,
    FastStream). Every full collection walked them all, about 150 ms with the event loop
    stopped, and right after start-up full collections come often (measured: 0.2-0.4 ms of
    CPU per call over the first few thousand calls). Frozen, they are never walked again;
    they live as long as the process anyway. Only the process entry point does this: the tests
    that build the service in their own process keep their collector as it is.
    """
    app = build(settings)
    gc.collect()  # garbage of the start-up is freed, not frozen
    gc.freeze()
    return app


def main() -> None:
    """Entry point; a bad setting or profile, a missing extra, or a Qdrant server that cannot
    be reached stops the service with one clear line."""

    def describe(app: AgentRunnerApp) -> str:
        return "agents: " + ", ".join(app.runner.profiles)

    fatal = (ProfileInvalid, ValueError, StoreUnavailable)
    run_service("agent-runner", AgentRunnerSettings, build, fatal=fatal, describe=describe)
