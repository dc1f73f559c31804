"""`python -m baton_workflow`: run the workflow service until SIGTERM or SIGINT."""

from __future__ import annotations

from baton_eventstore.database_url import DatabaseUnusable, the_database
from baton_messaging.process import run_service
from baton_telemetry import start_tracing
from baton_workflow.bootstrap import WorkflowApp, build
from baton_workflow.domain.errors import DefinitionInvalid
from baton_workflow.entrypoints.subscribers import documented_broker
from baton_workflow.settings import WorkflowSettings

broker = documented_broker()
"""The responders as declared, not connected: `make docs` reads AsyncAPI here."""


def main() -> None:
    """Entry point; a bad setting, definition or checker module, or a database that cannot be
    used, stops it with one clear line."""

    def describe(app: WorkflowApp) -> str:
        return "definitions: " + ", ".join(app.services.definitions)

    # ValueError: a checker module that cannot be loaded.
    run_service("workflow", WorkflowSettings, build, fatal=(DefinitionInvalid, ValueError),
                misconfigured=(DatabaseUnusable,), describe=describe, tracing=start_tracing,
                also_needs=lambda s: the_database(s.database_url))  # fmt: skip
