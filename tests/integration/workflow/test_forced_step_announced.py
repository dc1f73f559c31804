"""A step forced on by `max_messages` is announced as forced, with the warning, on NATS.

The reply to the turn says so to the one who sent it; everyone else (the gateway's live
clients, the agent-runner preparing the next step, a dashboard) learns it only from the
`workflow.step_changed` event, so the flag and the warning must be on the event itself.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from typing import Any

from nats.aio.client import Client

from baton_contracts.workflow import StepChanged
from baton_contracts.workflow_api import RecordExchange, StartWorkflow, TurnReply
from baton_workflow.bootstrap import WorkflowApp

from .conftest import ask


async def step_changes(nc: Client, user: str) -> asyncio.Queue[dict[str, Any]]:
    """The user's `workflow.step_changed` events as they arrive on NATS."""
    queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

    async def put(msg: Any) -> None:
        await queue.put(json.loads(msg.data))

    await nc.subscribe(StepChanged.subject.filter(user_id=user), cb=put)
    await nc.flush()
    return queue


async def test_a_step_forced_on_by_max_messages_is_announced_as_forced_with_the_warning(
    workflow: WorkflowApp, client: Client
) -> None:
    changes = await step_changes(client, "max")
    started = await ask(client, StartWorkflow(user_id="max", workflow_id="onboarding"))
    instance = str(started.instance.instance_id)
    for _ in range(10):  # greeting's max_messages, never a signal: the tenth moves it on
        turn = await ask(
            client, RecordExchange(user_id="max", instance_id=instance, command_id=uuid.uuid4().hex)
        )
    assert isinstance(turn, TurnReply)
    assert (turn.outcome, turn.instance.current_step) == ("forced", "discovery")

    announced = await asyncio.wait_for(changes.get(), 5)
    assert (announced["type"], announced["previous_step"], announced["current_step"]) == (
        "workflow.step_changed",
        "greeting",
        "discovery",
    )
    assert announced["forced"] is True
    assert "max_messages" in announced["warning"]
    assert announced["warning"] == turn.warning
