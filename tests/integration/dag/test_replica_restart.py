"""A workflow replica killed mid-run (SIGKILL: no lease given back) and restarted on its own
data folder takes its runs and its outbox up again at once, not after its leases run out."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import nats
import pytest

from baton_workflow.bootstrap import WorkflowApp

from ...platform_stack import Stack
from .conftest import ON_BOTH_BACKENDS, Author, RestartWorkflow, steps_of


@pytest.fixture
def workflow_extra(tmp_path: Path) -> dict[str, Any]:
    # Leases far longer than a test waits (`WAIT`): a restart that waited them out fails.
    return {
        "data_dir": tmp_path / "workflow-data",
        "workflow_dag_lease_seconds": 60.0,
        "outbox_lease_seconds": 60.0,
    }


@pytest.fixture
async def run_events(nats_url: str) -> AsyncIterator[list[dict[str, Any]]]:
    """Every DAG run event the outbox relay published to NATS."""
    seen: list[dict[str, Any]] = []
    nc = await nats.connect(nats_url)

    async def record(msg: Any) -> None:
        seen.append(json.loads(msg.data))

    await nc.subscribe("workflow.evt.>", cb=record)
    await nc.flush()
    yield seen
    await nc.close()


def killed(app: WorkflowApp) -> None:
    """From now on `app` gives no lease back, as a killed process gives none: neither its
    runs' nor its relay's. (Its stop still closes the replica id file, as the kernel would.)"""

    async def never(name: str, holder: str) -> None:
        pass

    app.store.outbox.release_lease = never  # type: ignore[method-assign]


@ON_BOTH_BACKENDS
async def test_a_killed_replica_restarted_on_its_folder_resumes_its_runs_at_once(
    author: Author,
    stack: Stack,
    restart_workflow: RestartWorkflow,
    model_runs: list[tuple[str, str]],
    run_events: list[dict[str, Any]],
) -> None:
    document = {
        "name": "killed",
        "steps": [
            {"id": "think", "agent": "hisui", "prompt": "Research kills [[sleep:0.5]]"},
            {"id": "pause", "type": "delay", "delay": "300ms", "dependsOn": ["think"]},
            {"id": "after", "prompt": "Then:\n{{steps.think.output}}", "dependsOn": ["pause"]},
        ],
    }
    await author.created(document)
    run_id = (await author.run("killed"))["run_id"]
    await author.wait_until(run_id, lambda run: steps_of(run)["think"]["status"] == "running")
    holder = stack.workflow.runs.executor.holder
    killed(stack.workflow)

    await restart_workflow()
    run = await author.wait(run_id)

    assert stack.workflow.runs.executor.holder == holder
    assert run["status"] == "success", run
    assert model_runs == [(run_id, "think"), (run_id, "after")]  # nothing ran twice
    assert steps_of(run)["think"]["attempts"] == 1
    # The restarted relay publishes too, instead of waiting out the killed one's lease.
    ended = {"type": "workflow.run_completed", "instance_id": run_id}
    for _ in range(500):
        if any(ended.items() <= event.items() for event in run_events):
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the run's end was not published")
