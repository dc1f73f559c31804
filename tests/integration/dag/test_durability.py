"""Crash durability: the workflow service restarted mid-run carries on from the run's log."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import pytest
from sqlalchemy import select

from baton_contracts.agent_api import CancelTask, RunTask, TaskResult
from baton_eventstore.tables import outbox_lease
from baton_workflow.bootstrap import WorkflowApp
from baton_workflow.service.dag_ports import TaskAgents

from ...platform_stack import Stack
from .conftest import (
    ON_BOTH_BACKENDS,
    Author,
    RestartWorkflow,
    steps_of,
    watch_cancels,
    watched_models,
)


@pytest.fixture
def workflow_extra() -> dict[str, Any]:
    # A short lease: a service that died holding a run gives it up to the next one quickly.
    return {"workflow_dag_lease_seconds": 2.0}


async def until(done: Any) -> None:
    """Wait (a few seconds at most) until `done()` holds."""
    for _ in range(500):
        if done():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("gave up waiting")


def step_status(step_id: str, *statuses: str) -> Any:
    return lambda run: steps_of(run)[step_id]["status"] in statuses


@ON_BOTH_BACKENDS
async def test_a_restart_during_a_delay_keeps_its_due_time(
    author: Author,
    stack: Stack,
    restart_workflow: RestartWorkflow,
    model_runs: list[tuple[str, str]],
) -> None:
    document = {
        "name": "sleep-on-it",
        "steps": [
            {"id": "first", "prompt": "Before the pause"},
            {"id": "wait", "type": "delay", "delay": "1s", "dependsOn": ["first"]},
            {"id": "after", "prompt": "After the pause", "dependsOn": ["wait"]},
        ],
    }
    await author.created(document)
    run_id = (await author.run("sleep-on-it"))["run_id"]
    await author.wait_until(run_id, step_status("wait", "waiting"))
    _, _, before = await stack.workflow.runs.runs.load(run_id)
    (delay,) = [e for e in before if e.type == "workflow_run.delay_started"]

    await restart_workflow()
    run = await author.wait(run_id)

    assert run["status"] == "success", run
    _, _, history = await stack.workflow.runs.runs.load(run_id)
    assert [e for e in history if e.type == "workflow_run.delay_started"] == [delay]
    wait = steps_of(run)["wait"]
    assert datetime.fromisoformat(wait["started_at"]) == delay.at
    assert datetime.fromisoformat(wait["finished_at"]) >= delay.due_at
    assert model_runs == [(run_id, "first"), (run_id, "after")]  # nothing ran twice


async def test_a_restart_during_a_retry_wait_keeps_the_attempt_and_its_due_time(
    author: Author, stack: Stack, restart_workflow: RestartWorkflow
) -> None:
    document = {
        "name": "retry-later",
        "steps": [
            {"id": "flaky", "agent": "hisui", "prompt": "Research [[fail-attempts:1]]",
             "onError": "retry", "retryMax": 2, "retryDelay": "1s"},
        ],
    }  # fmt: skip
    await author.created(document)
    run_id = (await author.run("retry-later"))["run_id"]
    await author.wait_until(run_id, step_status("flaky", "waiting"))
    _, _, before = await stack.workflow.runs.runs.load(run_id)
    (retry,) = [e for e in before if e.type == "workflow_run.retry_scheduled"]

    await restart_workflow()
    run = await author.wait(run_id)

    assert run["status"] == "success", run
    _, _, history = await stack.workflow.runs.runs.load(run_id)
    assert [e for e in history if e.type == "workflow_run.retry_scheduled"] == [retry]
    second = [e for e in history if e.type == "workflow_run.step_started"][-1]
    assert second.attempt == 2 and second.at >= retry.due_at
    assert steps_of(run)["flaky"]["attempts"] == 2


@dataclass
class RecordingAgents:
    """Wraps the workflow's `TaskAgents` port and keeps every answer it got."""

    inner: TaskAgents
    results: list[TaskResult] = field(default_factory=list)

    async def run_task(self, request: RunTask, timeout: float, retry_for: float) -> TaskResult:
        result = await self.inner.run_task(request, timeout, retry_for)
        self.results.append(result)
        return result

    async def cancel_task(self, notice: CancelTask) -> None:
        await self.inner.cancel_task(notice)


@ON_BOTH_BACKENDS
async def test_a_restart_during_an_agent_call_does_not_call_the_model_twice(
    author: Author,
    restart_workflow: RestartWorkflow,
    task_calls: list[dict[str, Any]],
    model_runs: list[tuple[str, str]],
) -> None:
    document = {
        "name": "long-call",
        "steps": [
            {"id": "think", "agent": "hisui", "prompt": "Research durable queues [[sleep:1]]"},
            {"id": "after", "prompt": "Then:\n{{steps.think.output}}", "dependsOn": ["think"]},
        ],
    }
    await author.created(document)
    run_id = (await author.run("long-call"))["run_id"]
    await author.wait_until(run_id, step_status("think", "running"))
    await until(lambda: bool(task_calls))
    recording: list[RecordingAgents] = []

    def record(app: WorkflowApp) -> None:
        runners = app.runs.executor.runners
        recording.append(RecordingAgents(runners.agents))
        runners.agents = recording[0]

    await restart_workflow(prepare=record)
    run = await author.wait(run_id)

    assert run["status"] == "success", run
    think = [c for c in task_calls if c["step_id"] == "think"]
    assert [c["idempotency_key"] for c in think] == [f"{run_id}:think:1"] * 2
    assert model_runs == [(run_id, "think"), (run_id, "after")]
    replayed = [r.replayed for r in recording[0].results]
    assert replayed == [True, False]  # think answered from the record, then after for real
    assert steps_of(run)["think"]["output"] in task_calls[-1]["prompt"]
    assert steps_of(run)["think"]["attempts"] == 1


async def test_a_run_survives_a_restart_while_the_agent_runner_is_down(
    author: Author, stack: Stack, restart_workflow: RestartWorkflow
) -> None:
    document = {
        "name": "both-down",
        "steps": [
            {"id": "wait", "type": "delay", "delay": "300ms"},
            {"id": "answer", "agent": "kohaku", "prompt": "Write after the outage",
             "dependsOn": ["wait"]},
        ],
    }  # fmt: skip
    await author.created(document)
    run_id = (await author.run("both-down"))["run_id"]
    await author.wait_until(run_id, step_status("wait", "waiting"))

    await restart_workflow(between=stack.stop_agent_runner)
    running = await author.wait_until(run_id, step_status("answer", "running"))
    assert running["status"] == "running"
    await asyncio.sleep(0.5)  # the agent-runner stays down a moment while the step waits
    await stack.start_agent_runner()
    run = await author.wait(run_id)

    assert run["status"] == "success", run
    assert steps_of(run)["answer"]["attempts"] == 1
    assert steps_of(run)["answer"]["output"].startswith("Summary")


async def test_an_agent_runner_stopped_mid_step_leaves_the_step_to_the_next_one(
    author: Author, stack: Stack
) -> None:
    # No test fixture may listen on agent.cmd.task here: a listener counts as interest, and a
    # request with no agent-runner up would then wait out its timeout instead of being told
    # at once that nobody answers.
    # A deploy: the agent-runner gets SIGTERM while a step's model call has a while to go.
    stack.extra["stop_grace_seconds"] = 0.2
    await stack.stop_agent_runner()
    await stack.start_agent_runner()
    document = {
        "name": "deployed-mid-step",
        "steps": [{"id": "answer", "agent": "kohaku", "prompt": "Write it [[sleep:1.5]]"}],
    }
    await author.created(document)
    cancelled: list[tuple[str, str]] = []
    entered = asyncio.Event()
    with watched_models(stack, watch_cancels(cancelled, entered)):
        run_id = (await author.run("deployed-mid-step"))["run_id"]
        await asyncio.wait_for(entered.wait(), 10)
        await stack.stop_agent_runner()  # 0.2 s of grace, then the call is cancelled
    assert cancelled == [(run_id, "answer")]

    await asyncio.sleep(0.6)  # the workflow keeps asking while no agent-runner answers
    await stack.start_agent_runner()
    run = await author.wait(run_id)

    assert run["status"] == "success", run
    assert steps_of(run)["answer"]["attempts"] == 1  # not the step's failure: asked again
    assert stack.agent_runner is not None  # the new one answered, under the first call's key
    recorded = await stack.agent_runner.tasks.results.get(author.name, f"{run_id}:answer:1")
    assert recorded is not None and recorded.output == steps_of(run)["answer"]["output"]


@ON_BOTH_BACKENDS
async def test_a_service_that_died_holding_a_run_is_taken_over_when_its_lease_ends(
    author: Author,
    stack: Stack,
    restart_workflow: RestartWorkflow,
    model_runs: list[tuple[str, str]],
) -> None:
    document = {
        "name": "crashed",
        "steps": [
            {"id": "think", "agent": "hisui", "prompt": "Research crashes [[sleep:0.5]]"},
            {"id": "after", "prompt": "Then:\n{{steps.think.output}}", "dependsOn": ["think"]},
        ],
    }
    await author.created(document)
    run_id = (await author.run("crashed"))["run_id"]
    await author.wait_until(run_id, step_status("think", "running"))
    dying = stack.workflow

    async def never(run_id: str, holder: str) -> None:
        """A killed process gives nothing back: its lease has to run out."""

    dying.runs.executor.runs.drop_lease = never  # type: ignore[method-assign]
    await restart_workflow()
    run = await author.wait(run_id)

    assert run["status"] == "success", run
    assert model_runs == [(run_id, "think"), (run_id, "after")]
    assert steps_of(run)["think"]["attempts"] == 1


async def lease_names(stack: Stack) -> set[str]:
    """The names of every row in the workflow database's lease table."""
    async with stack.workflow.store.engine.connect() as conn:
        return set((await conn.execute(select(outbox_lease.c.name))).scalars())


@ON_BOTH_BACKENDS
@pytest.mark.parametrize("workflow_extra", [{"workflow_dag_lease_seconds": 0.5}])
async def test_the_sweep_deletes_the_leases_of_finished_runs(author: Author, stack: Stack) -> None:
    await author.created({"name": "brief", "steps": [{"id": "speak", "prompt": "Say hi"}]})
    outbox = stack.workflow.store.outbox
    assert await outbox.acquire_lease("other:expired", "someone", -60)  # not a run's lease
    run_ids = [(await author.run("brief"))["run_id"] for _ in range(3)]
    for run_id in run_ids:
        assert (await author.wait(run_id))["status"] == "success"
    runs = {f"dagrun:{run_id}" for run_id in run_ids}
    # A finished run leaves its lease to run out; the sweep (every quarter second here)
    # deletes it once it ran out a lease period ago, a second or so after the run ended.
    assert runs <= await lease_names(stack)

    deadline = asyncio.get_running_loop().time() + 10
    while not runs.isdisjoint(left := await lease_names(stack)):
        assert asyncio.get_running_loop().time() < deadline, left
        await asyncio.sleep(0.05)

    assert {"workflow-outbox", "other:expired"} <= left  # the relay's, and another prefix's
    assert await outbox.acquire_lease(f"dagrun:{run_ids[0]}", "next", 60)  # taken as before


@ON_BOTH_BACKENDS
async def test_a_start_repeated_with_its_idempotency_key_returns_the_first_run(
    author: Author, task_calls: list[dict[str, Any]]
) -> None:
    await author.created({"name": "once", "steps": [{"id": "speak", "prompt": "only once"}]})
    headers = {**author.headers, "Idempotency-Key": "start-once-1"}

    async def start() -> Any:
        return await author.http.post("/workflows/once/run", json={}, headers=headers)

    first = await start()
    again = await start()
    assert (first.status_code, again.status_code) == (202, 202), again.text
    assert again.json()["run_id"] == first.json()["run_id"]
    await author.wait(first.json()["run_id"])
    assert (await author.http.delete("/workflows/once", headers=author.headers)).status_code < 300
    late = await start()  # the workflow is gone, but this request had started a run
    assert late.status_code == 202 and late.json()["run_id"] == first.json()["run_id"]
    assert len(task_calls) == 1
    fresh = await author.http.post(
        "/workflows/once/run", json={}, headers={**author.headers, "Idempotency-Key": "other"}
    )
    assert fresh.status_code == 404
