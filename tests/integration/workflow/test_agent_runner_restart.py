"""A DAG step waits out an agent-runner that is restarting: for the step's own timeout when it
sets one, otherwise for `BATON_WORKFLOW_AGENT_RUNNER_WAIT_SECONDS`.

The fake agent-runner answers the first attempts as a replica that stopped before answering
(what a restarting agent-runner says), then answers the step.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import timedelta

import pytest
from faststream.nats import NatsBroker

from baton_contracts import ErrorCode, RemoteError
from baton_contracts.agent_api import RunTask, TaskResult
from baton_messaging import MessagingSettings, build_broker, respond, start_broker
from baton_messaging.requests import STOPPED_BEFORE_ANSWERING
from baton_workflow.adapters.agent_runner import NatsTaskAgents
from baton_workflow.adapters.clock import SystemClock
from baton_workflow.domain.dag.actions import CallAgent
from baton_workflow.domain.dag.events import StepFailed, StepSucceeded
from baton_workflow.service.dag_steps import StepRunners

REFUSALS = 3


class Restarting:
    """An agent-runner that refuses its first `REFUSALS` tasks as a replica stopping would."""

    def __init__(self) -> None:
        self.asked: list[RunTask] = []

    async def answer(self, task: RunTask) -> TaskResult:
        self.asked.append(task)
        if len(self.asked) <= REFUSALS:
            message = f"RunTask: {STOPPED_BEFORE_ANSWERING}; try again"
            raise RemoteError.of(ErrorCode.UNAVAILABLE, message)
        return TaskResult(output="researched", agent=task.agent)


@pytest.fixture
async def agent_runner(nats_url: str) -> AsyncIterator[Restarting]:
    fake = Restarting()
    broker = build_broker(MessagingSettings(nats_url=nats_url), "fake-agent-runner")
    respond(broker, RunTask, fake.answer, queue="agent")
    await start_broker(broker)
    yield fake
    await broker.stop()


@pytest.fixture
async def workflow(nats_url: str) -> AsyncIterator[NatsBroker]:
    broker = build_broker(MessagingSettings(nats_url=nats_url), "workflow")
    await start_broker(broker)
    yield broker
    await broker.stop()


def runners(workflow: NatsBroker, agent_runner_wait: float) -> StepRunners:
    return StepRunners(
        agents=NatsTaskAgents(workflow),
        tools=None,  # type: ignore[arg-type]
        skills=None,  # type: ignore[arg-type]
        clock=SystemClock(),
        agent_timeout=60.0,
        agent_runner_wait=agent_runner_wait,
    )


def call(timeout: timedelta | None) -> CallAgent:
    """The first attempt of a dispatch step, with the step's own `timeout` if it sets one."""
    return CallAgent(
        run_id="r1",
        step_id="research",
        attempt=1,
        idempotency_key="r1:research:1",
        timeout=timeout,
        deadline=None,
        agent="hisui",
        prompt="Research durable workflows",
    )


async def test_a_step_with_a_timeout_waits_out_a_restart_within_it(
    workflow: NatsBroker, agent_runner: Restarting
) -> None:
    # The setting would give up at the first refusal: the step's own timeout governs.
    step = runners(workflow, agent_runner_wait=0.01)
    event = await step.perform(call(timeout=timedelta(seconds=60)), "alice")
    assert isinstance(event, StepSucceeded), event
    assert event.output == "researched"
    assert len(agent_runner.asked) == REFUSALS + 1
    assert {t.idempotency_key for t in agent_runner.asked} == {"r1:research:1"}


async def test_a_step_without_a_timeout_waits_for_the_setting(
    workflow: NatsBroker, agent_runner: Restarting
) -> None:
    generous = await runners(workflow, agent_runner_wait=60.0).perform(call(None), "alice")
    assert isinstance(generous, StepSucceeded), generous
    assert len(agent_runner.asked) == REFUSALS + 1


async def test_a_step_without_a_timeout_gives_up_after_the_setting(
    workflow: NatsBroker, agent_runner: Restarting
) -> None:
    impatient = await runners(workflow, agent_runner_wait=0.01).perform(call(None), "alice")
    assert isinstance(impatient, StepFailed), impatient
    assert STOPPED_BEFORE_ANSWERING in impatient.error
    assert len(agent_runner.asked) == 1
