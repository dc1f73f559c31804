"""A turn whose criteria checks take it past its time is refused naming the checks.

A checker is bounded by the checker timeout (2 s by default), a signal by its own time (2.5 s,
counted from its arrival, its wait for the instance included). A signal whose checks ran past
its time reached the append after its start-by, and the append's refusal said "the workflow
service's database was too busy": an operator looked at the database, not at the checker (the
agent-runner slow to count facts). Now the refusal names the step and how long its checks took.
Nothing is recorded, as before, and the same signal or message sent again once the checks are
quick again is decided.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from baton_contracts import ErrorCode, RemoteError
from baton_contracts.agent_api import AgentReply, RunAgent
from baton_contracts.workflow_api import SendMessage, SignalWorkflow, StartWorkflow, WorkflowSignal
from baton_workflow.bootstrap import WorkflowApp, build
from baton_workflow.service.conversation import send_message
from baton_workflow.service.handlers import start_workflow, take_turn
from baton_workflow.settings import WorkflowSettings

from .conftest import FakeAgentRunner, refused, serving


class Agents:
    """Closes the greeting on "ready"; in discovery, asks to close once it may."""

    async def run(self, request: RunAgent) -> AgentReply:
        done = request.current_step == "greeting" and request.message == "ready"
        done = done or (request.current_step == "discovery" and request.can_complete)
        action = "complete_step" if done else "stay"
        return AgentReply.model_validate(
            {"message": f"answer to {request.message}", "workflow_signal": {"action": action}}
        )


@contextlib.asynccontextmanager
async def on_discovery(
    settings: WorkflowSettings, messages: int
) -> AsyncIterator[tuple[WorkflowApp, str]]:
    """An onboarding instance on discovery, with `messages` messages in the step."""
    app = build(settings, agents=Agents())
    await app.start()
    try:
        started = await start_workflow(
            app.services, StartWorkflow(user_id="u", workflow_id="onboarding")
        )
        instance = started.instance.instance_id
        for cid, text in [("g1", "hi"), ("g2", "ready")] + [
            (f"d{n}", f"about me {n}") for n in range(messages)
        ]:
            said = SendMessage(user_id="u", instance_id=instance, client_message_id=cid, text=text)
            await send_message(app.services, said)
        yield app, instance
    finally:
        await app.stop()


def timed(nats_url: str, sqlite_url: str, checker: float, **timeouts: float) -> WorkflowSettings:
    """The service's settings with the checker's timeout and the turn's own."""
    return WorkflowSettings(
        nats_url=nats_url, database_url=sqlite_url, checker_timeout_seconds=checker, **timeouts
    )


def unavailable(refusal: RemoteError | None, what: str) -> str:
    """The message of the `unavailable` refusal `what` got."""
    assert refusal is not None, f"{what} decided after its time ran out"
    assert refusal.body.code is ErrorCode.UNAVAILABLE
    return refusal.body.message


def signal(instance: str) -> SignalWorkflow:
    return SignalWorkflow(
        user_id="u",
        instance_id=instance,
        command_id="close-discovery",
        signal=WorkflowSignal(action="complete_step"),
    )


async def test_a_signal_whose_checks_outlast_its_time_is_refused_naming_them(
    nats_url: str, sqlite_url: str
) -> None:
    # The signal has 0.3 s; `memory_facts` is answered after 0.6 s, within the checker's 1 s.
    settings = timed(nats_url, sqlite_url, checker=1.0, signal_timeout_seconds=0.3)
    # No facts yet while the five messages are taken: the step stays on discovery.
    slow = FakeAgentRunner()
    async with serving(nats_url, slow), on_discovery(settings, messages=5) as (app, instance):
        before = await app.services.repo.records(instance)
        slow.facts, slow.delay = {"u": 3}, 0.6
        refusal = await refused(take_turn(app.services, signal(instance)))
        after = await app.services.repo.records(instance)
        slow.delay = 0.0
        again = await take_turn(app.services, signal(instance))

    message = unavailable(refusal, "a signal")
    assert message.startswith("checking step 'discovery''s completion criteria took 0.")
    assert message.endswith(
        "s, until this signal's time ran out; nothing was recorded: send it again"
    ), message
    assert "database" not in message
    assert len(after) == len(before), "the refused signal left something in the log"
    assert again.outcome == "transitioned"


async def test_a_message_whose_checks_outlast_its_time_is_refused_naming_them(
    nats_url: str, sqlite_url: str
) -> None:
    # The turn has 2 s and the reply's half second of grace. Its pre-check asks for the facts
    # (1.5 s) before the agent is asked, and deciding the agent's "complete_step" asks again
    # (1.5 s more): the turn is at about 3 s when its append would start, past its 2.5 s.
    settings = timed(nats_url, sqlite_url, checker=3.0, agent_call_timeout_seconds=2.0)
    slow = FakeAgentRunner(facts={"u": 3}, delay=1.5)
    async with on_discovery(settings, messages=4) as (app, instance):
        before = await app.services.repo.records(instance)
        said = SendMessage(
            user_id="u", instance_id=instance, client_message_id="d4", text="that's all"
        )
        async with serving(nats_url, slow):
            refusal = await refused(send_message(app.services, said))
            after = await app.services.repo.records(instance)

    message = unavailable(refusal, "a message")
    assert message.startswith("checking step 'discovery''s completion criteria took 1.")
    assert message.endswith(
        "s, until this message's time ran out; nothing was recorded: send the message again "
        "with the same client_message_id"
    ), message
    assert len(after) == len(before), "the refused message left something in the log"
