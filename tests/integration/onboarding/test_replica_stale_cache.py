"""Two workflow replicas on one database: a chat turn must not be decided (and its agent asked)
on the instance as this replica last cached it when another replica has moved it since."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from baton_contracts import RemoteError
from baton_contracts.workflow_api import SendMessage
from baton_workflow.bootstrap import WorkflowApp
from baton_workflow.bootstrap import build as build_workflow
from baton_workflow.service.conversation import send_message

from .conftest import Stack, User, workflow_settings


@pytest.fixture
async def replica(stack: Stack) -> AsyncIterator[WorkflowApp]:
    other = build_workflow(workflow_settings(stack.nats_url, stack.folder))
    await other.start()
    yield other
    await other.stop()


async def started(user: User, *apps: WorkflowApp) -> None:
    """Start the user's onboarding and have every replica cache it (as any turn there would)."""
    await user.start()
    for app in apps:
        assert await app.services.repo.load(user.instance) is not None


async def say_on(app: WorkflowApp, user: User, cid: str, text: str) -> Any:
    cmd = SendMessage(
        user_id=user.name, instance_id=user.instance, client_message_id=cid, text=text
    )
    return await send_message(app.services, cmd)


async def test_the_second_greeting_message_on_another_replica_still_closes_the_step(
    stack: Stack, replica: WorkflowApp, http: httpx.AsyncClient
) -> None:
    a, b = stack.workflow, replica
    user = User(http, "stale-0")
    await started(user, a, b)
    await say_on(a, user, "m1", "Hi!")
    # One replica: "Got it, let's go" closes greeting (2/2 messages). Here B still caches
    # 0 messages, tells the agent it cannot complete, and the transition is lost.
    moved = await say_on(b, user, "m2", "Got it, let's go")
    assert moved.turn.outcome == "transitioned", moved.turn
    assert moved.turn.instance.current_step == "discovery"


async def test_a_message_after_another_replica_moved_the_step_goes_to_the_new_steps_agent(
    stack: Stack, replica: WorkflowApp, http: httpx.AsyncClient
) -> None:
    a, b = stack.workflow, replica
    user = User(http, "stale-1")
    await started(user, a, b)
    await say_on(b, user, "m1", "Hi!")
    moved = await say_on(b, user, "m2", "Got it, let's go")  # replica B moves it on
    assert moved.turn.instance.current_step == "discovery"
    # The next message, strictly after, lands on A: it is a discovery message.
    reply = await say_on(a, user, "m3", "Work and health matter most, and my hobbies")
    assert (reply.reply.step, reply.reply.agent) == ("discovery", "discovery"), reply.reply
    assert reply.turn.instance.messages_in_step == 1


async def test_a_message_after_another_replica_completed_the_instance_is_refused(
    stack: Stack, replica: WorkflowApp, http: httpx.AsyncClient
) -> None:
    a, b = stack.workflow, replica
    user = User(http, "stale-2")
    await started(user, a, b)
    script = [
        ("m1", "Hi!"),
        ("m2", "Got it, let's go"),
        ("m3", "Add to my inbox: buy milk"),
        ("m4", "Work and health matter most, and my hobbies"),
        ("m5", "yes"),
        ("m6", "yes, that's right"),
        ("m7", "yes"),
        ("m8", "call the bank; book a dentist"),
        ("m9", "that's all"),
        ("m10", "that's all"),
    ]
    for cid, text in script:  # all on B, as with one replica
        await say_on(b, user, cid, text)
    assert (await user.step()) == "setup_complete"
    done = await say_on(b, user, "m11", "thanks")  # B completes it; A cached it at the start
    assert done.turn.outcome == "completed"
    # Strictly after: "A message sent to an instance already completed is refused (409)
    # before any agent is asked" (docs/workflows.md) - also when it lands on A.
    with pytest.raises(RemoteError) as refused:
        await say_on(a, user, "m12", "one more thing")
    assert refused.value.body.code.value == "conflict"
    events = (await user.get(f"/api/workflows/{user.instance}/events"))["events"]
    assert "one more thing" not in str(events)
