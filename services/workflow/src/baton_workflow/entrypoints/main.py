"""`python -m baton_workflow`: run the workflow service until SIGTERM or SIGINT."""

from __future__ import annotations

import asyncio
import logging
import signal
import sys

from pydantic import ValidationError

from baton_workflow.bootstrap import build
from baton_workflow.domain.errors import DefinitionInvalid
from baton_workflow.entrypoints.subscribers import documented_broker
from baton_workflow.settings import WorkflowSettings

logger = logging.getLogger("baton.workflow")

broker = documented_broker()
"""The responders as declared, not connected: `make docs` reads AsyncAPI here."""


async def serve(settings: WorkflowSettings) -> None:
    """Start, wait for a stop signal, stop cleanly."""
    app = build(settings)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await app.start()
    logger.info("workflow service ready (definitions: %s)", ", ".join(app.services.definitions))
    await stop.wait()
    logger.info("workflow service stopping")
    await app.stop()


def main() -> None:
    """Entry point; a bad setting or definition stops the service with one clear line."""
    try:
        settings = WorkflowSettings()
    except ValidationError as exc:
        sys.exit(f"workflow: invalid settings: {exc}")
    logging.basicConfig(
        level=settings.log_level.upper(),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    try:
        asyncio.run(serve(settings))
    except DefinitionInvalid as exc:
        sys.exit(f"workflow: invalid workflow definition: {exc}")
    except ValueError as exc:  # a checker module that cannot be loaded
        sys.exit(f"workflow: {exc}")
