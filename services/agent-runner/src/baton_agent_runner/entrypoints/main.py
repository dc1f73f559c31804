"""`python -m baton_agent_runner`: run the agent-runner until SIGTERM or SIGINT."""

from __future__ import annotations

from baton_agent_runner.adapters.profiles import ProfileInvalid
from baton_agent_runner.bootstrap import AgentRunnerApp, build
from baton_agent_runner.entrypoints.subscribers import documented_broker
from baton_agent_runner.service.ports import StoreUnavailable
from baton_agent_runner.settings import AgentRunnerSettings
from baton_eventstore.database_url import DatabaseUnusable, the_database
from baton_messaging.process import run_service
from baton_telemetry import start_tracing

broker = documented_broker()
"""The responders as declared, not connected: `make docs` reads AsyncAPI here."""


def main() -> None:
    """Entry point; a bad setting or profile, a missing extra, a Qdrant server that cannot
    be reached, or a database that cannot be used stops the service with one clear line."""

    def describe(app: AgentRunnerApp) -> str:
        return "agents: " + ", ".join(app.runner.profiles)

    fatal = (ProfileInvalid, ValueError, StoreUnavailable)
    run_service(
        "agent-runner",
        AgentRunnerSettings,
        build,
        fatal=fatal,
        misconfigured=(DatabaseUnusable,),
        describe=describe,
        tracing=start_tracing,
        also_needs=lambda settings: the_database(settings.database_url),
    )
