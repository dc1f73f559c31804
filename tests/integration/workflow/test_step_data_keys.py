"""A signal's `data` merges into the step's data under any key but the ones the service keeps
for the step's own record, which a person's signal is refused for, by its path (an agent's
has them dropped: `tests/unit/workflow/test_step_record_keys.py`)."""

from __future__ import annotations

from typing import Any

import pytest
from nats.aio.client import Client

from baton_contracts.signal_data import STEP_RECORD_KEYS
from baton_contracts.workflow_api import GetInstance, RecordExchange, StartWorkflow, WorkflowSignal
from baton_workflow.bootstrap import WorkflowApp

from .conftest import ask
from .test_http_api import auth


async def _started(gateway: Any, user: str) -> str:
    started = await gateway.post(
        "/api/workflows", json={"workflow_id": "onboarding"}, headers=auth(gateway, user)
    )
    return str(started.json()["instance_id"])


async def _signal(gateway: Any, user: str, instance: str, body: dict[str, Any]) -> Any:
    return await gateway.post(
        f"/api/workflows/{instance}/signal", json=body, headers=auth(gateway, user)
    )


async def _instance(gateway: Any, user: str, instance: str) -> dict[str, Any]:
    found = await gateway.get(f"/api/workflows/{instance}", headers=auth(gateway, user))
    return dict(found.json())


@pytest.mark.parametrize("key", ["step", "data"])
async def test_a_signal_whose_data_names_step_or_data_is_kept(gateway: Any, key: str) -> None:
    """Both keys failed every fold of the instance's log with a TypeError: a 500, nothing
    stored, and (sent by an agent) a chat turn that could never be recorded."""
    instance = await _started(gateway, f"keys-{key}")
    answered = await _signal(
        gateway, f"keys-{key}", instance, {"action": "stay", "data": {key: "kept"}}
    )
    assert answered.status_code == 200, answered.text
    context = (await _instance(gateway, f"keys-{key}", instance))["context"]
    assert context["step_data"]["greeting"][key] == "kept"


@pytest.mark.parametrize("key", sorted(STEP_RECORD_KEYS))
async def test_a_signal_may_not_rewrite_the_steps_own_record(gateway: Any, key: str) -> None:
    instance = await _started(gateway, "keys-record")
    before = await _instance(gateway, "keys-record", instance)
    refused = await _signal(
        gateway, "keys-record", instance, {"action": "stay", "data": {key: "x", "note": 1}}
    )
    assert refused.status_code == 422, refused.text
    [detail] = refused.json()["error"]["details"]
    assert detail["field"] == f"body.data.{key}"
    assert detail["message"].startswith("kept by the workflow service for the step's own record")
    assert await _instance(gateway, "keys-record", instance) == before


async def test_an_exchanges_agent_signal_over_nats_has_record_keys_left_out(
    workflow: WorkflowApp, client: Client
) -> None:
    # Over workflow.cmd.record_exchange the signal is the agent's, yet the whole exchange was
    # refused like a person's signal, and lost (found by a review of the conversation rules).
    reply = await ask(client, StartWorkflow(user_id="uma", workflow_id="onboarding"))
    instance = str(reply.instance.instance_id)
    sig = WorkflowSignal(action="stay", data={"started_at": "x", "user_name": "Uma"})
    sent = RecordExchange(user_id="uma", instance_id=instance, command_id="e1", signal=sig)
    assert (await ask(client, sent)).outcome == "stayed"
    view = await ask(client, GetInstance(user_id="uma", instance_id=instance))
    greeting = view.context["step_data"]["greeting"]
    assert greeting["user_name"] == "Uma" and greeting["started_at"] != "x"
    assert (await ask(client, sent)).outcome == "stayed"  # its retry is the same command
