"""A command's `user_id` becomes a token of its events' subjects: one that cannot be is refused.

Other services call `workflow.cmd.*` directly over NATS, without the gateway's check of the
token's `sub`. A start for `user_id` "a.b" (or "", "*") was taken, then failed when its first
event's subject was rendered: an internal error, with a traceback in the log, and nothing to
tell the caller which field was wrong.
"""

from __future__ import annotations

import json

import pytest
from nats.aio.client import Client

from baton_contracts.workflow_api import ListActiveInstances, StartWorkflow
from baton_workflow.bootstrap import WorkflowApp

from .conftest import ask


@pytest.mark.parametrize("user", ["a.b", "", "*", "al ice", ">"])
async def test_a_start_for_a_user_id_unfit_for_a_subject_is_refused_by_name(
    workflow: WorkflowApp, client: Client, user: str
) -> None:
    raw = {"type": StartWorkflow.model_fields["type"].default, "user_id": user}
    raw["workflow_id"] = "onboarding"
    reply = await client.request("workflow.cmd.start", json.dumps(raw).encode(), timeout=5)
    error = json.loads(reply.data)["error"]
    assert error["code"] == "invalid", error
    assert error["details"] == [
        {
            "field": "user_id",
            "message": "a user id is one token of NATS subjects: not empty, with no '.', '*', "
            "'>' or white space",
        }
    ]
    if user:  # nothing was started for it
        assert (await ask(client, ListActiveInstances(user_id=user))).instances == []


async def test_a_start_for_a_decomposed_user_id_is_refused_by_name(
    workflow: WorkflowApp, client: Client
) -> None:
    # `e` + U+0301 looks like `\u00e9` yet is another subject token: taken, it was a second
    # user of a look-alike name, called directly over NATS without the gateway's check.
    user = "rene\u0301"
    raw = {"type": StartWorkflow.model_fields["type"].default, "user_id": user}
    raw["workflow_id"] = "onboarding"
    reply = await client.request("workflow.cmd.start", json.dumps(raw).encode(), timeout=5)
    error = json.loads(reply.data)["error"]
    assert error["code"] == "invalid", error
    [detail] = error["details"]
    assert detail["field"] == "user_id"
    assert detail["message"].startswith("a user id must be in Unicode normal form C (NFC)")
    assert detail["message"].endswith("send the NFC form of the id")
