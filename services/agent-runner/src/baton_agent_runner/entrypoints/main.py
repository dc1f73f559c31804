"""`python -m baton_agent_runner`: run the agent-runner until SIGTERM or SIGINT."""

from __future__ import annotations

import asyncio
import logging
import signal
import sys

from pydantic import ValidationError

from baton_agent_runner.adapters.profiles import ProfileInvalid
from baton_agent_runner.bootstrap import build
from baton_agent_runner.entrypoints.subscribers import documented_broker
from baton_agent_runner.settings import AgentRunnerSettings

logger = logging.getLogger("baton.agent_runner")

broker = documented_broker()
"""The responders as declared, not connected: `make docs` reads AsyncAPI here."""


async def serve(settings: AgentRunnerSettings) -> None:
    """Start, wait for a stop signal, stop cleanly."""
    app = build(settings)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await app.start()
    logger.info("agent-runner ready (agents: %s)", ", ".join(app.runner.profiles))
    await stop.wait()
    logger.info("agent-runner stopping")
    await app.stop()


def main() -> None:
    """Entry point; a bad setting or profile stops the service with one clear line."""
    try:
        settings = AgentRunnerSettings()
    except ValidationError as exc:
        sys.exit(f"agent-runner: invalid settings: {exc}")
    logging.basicConfig(
        level=settings.log_level.upper(),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    try:
        asyncio.run(serve(settings))
    except (ProfileInvalid, ValueError) as exc:
        sys.exit(f"agent-runner: {exc}")
