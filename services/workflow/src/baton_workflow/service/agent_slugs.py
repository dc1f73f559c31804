"""Conversation steps whose agent no profile serves, told once the agent-runner says which exist.

A definition may name any well-formed slug: whether a profile exists is the agent-runner's to
say, and a step whose agent has none failed only at its first chat turn (a 500 naming the step).
The service asks the agent-runner at start and logs a WARNING per such step. It never waits
for the answer: the services start in any order, so an agent-runner that does not answer yet
is asked again, less and less often, until it does; and it never refuses to start either, as
profiles may be added to the agent-runner without touching the workflow service.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from pathlib import Path

from baton_contracts import RemoteError
from baton_workflow.domain.definitions import WorkflowDefinition
from baton_workflow.service.dag_ports import KnownAgents

logger = logging.getLogger("baton.workflow")

FIRST_WAIT = 1.0
"""Seconds before the agent-runner is asked again after it first did not answer."""
MAX_WAIT = 60.0
"""The longest wait between two asks: at most one small request a minute while it is away."""


def unserved_steps(
    definitions: Mapping[str, WorkflowDefinition], served: set[str], folder: Path | str
) -> list[str]:
    """One line per step whose `agent_slug` is not in `served`, in workflow and path order."""
    known = ", ".join(sorted(served)) or "none"
    return [
        f"workflow {workflow_id!r} (in {folder}) step {step.id!r}: agent_slug {step.agent_slug!r}"
        f" has no agent profile on the agent-runner (it serves {known}); every chat turn on the"
        " step will fail until one is added"
        for workflow_id, definition in sorted(definitions.items())
        for step in definition.path()
        if step.agent_slug not in served
    ]


async def warn_unserved_agents(
    definitions: Mapping[str, WorkflowDefinition],
    agents: KnownAgents,
    folder: Path | str,
    first_wait: float = FIRST_WAIT,
    max_wait: float = MAX_WAIT,
) -> list[str]:
    """Ask `agents` until it answers (waiting `first_wait`, doubling up to `max_wait`, between
    asks), then log each of `unserved_steps` as a WARNING; returns them."""
    wait, told = first_wait, False
    while True:
        try:
            served = set(await agents.slugs())
            break
        except RemoteError as exc:
            if not told:  # once: an agent-runner that starts after this service is usual
                logger.info(
                    "the agents of the workflow definitions are checked once the agent-runner "
                    "answers (%s)",
                    exc.body.message,
                )
                told = True
        await asyncio.sleep(wait)
        wait = min(wait * 2, max_wait)
    problems = unserved_steps(definitions, served, folder)
    for problem in problems:
        logger.warning("%s", problem)
    return problems
