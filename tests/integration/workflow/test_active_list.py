"""`GET /api/workflows/active`: the user's active instances, listed without their contexts and
a page at a time, so the list fits a NATS reply however large the instances grew."""

from __future__ import annotations

import json
from typing import Any

import pytest
from nats.aio.client import Client

from baton_contracts.signal_data import MAX_CONTEXT_PART_BYTES, MAX_SIGNAL_DATA_BYTES
from baton_contracts.workflow_api import RecordExchange, WorkflowSignal

from .conftest import ask
from .test_http_api import auth, signal

SHIPPED = ("onboarding", "onboarding-classic")
SUMMARY_FIELDS = {
    "instance_id",
    "workflow_id",
    "user_id",
    "status",
    "current_step",
    "progress",
    "messages_in_step",
    "created_at",
    "updated_at",
}


async def start(http: Any, user: str, workflow_id: str) -> str:
    started = await http.post(
        "/api/workflows", json={"workflow_id": workflow_id}, headers=auth(http, user)
    )
    assert started.status_code in (200, 201), started.text
    return str(started.json()["instance_id"])


def compact_size(value: Any) -> int:
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())


async def fill(http: Any, user: str, instance: str, part: str) -> None:
    """Grow the instance's step data (`data`) or `shared` to within bytes of its limit, by
    signals each within theirs."""
    for n in range(10):
        context = (await http.get(f"/api/workflows/{instance}", headers=auth(http, user))).json()
        held = context["context"]["step_data" if part == "data" else "shared"]
        room = MAX_CONTEXT_PART_BYTES - compact_size(held) - 16  # the key, quotes, comma
        if room < 64:
            return
        text = "x" * min(room, MAX_SIGNAL_DATA_BYTES - 16)
        sent = await signal(http, user, instance, action="stay", **{part: {f"k{n}": text}})
        assert sent.status_code == 200, sent.text
    raise AssertionError(f"{part} of {instance} did not fill up")


async def test_full_instances_are_listed_without_their_contexts(gateway: Any) -> None:
    """Both shipped workflows filled to their limits made a list of 1 MiB and more: over what
    a NATS reply carries, so /active (the console's first request) answered 500."""
    ids = [await start(gateway, "liv", workflow) for workflow in SHIPPED]
    for instance in ids:
        await fill(gateway, "liv", instance, "data")
        await fill(gateway, "liv", instance, "shared")
    active = await gateway.get("/api/workflows/active", headers=auth(gateway, "liv"))
    assert active.status_code == 200, active.text[:300]
    assert len(active.content) < 4096
    listed = active.json()
    assert [i["instance_id"] for i in listed["instances"]] == ids
    assert listed["next_after"] is None
    for item, workflow in zip(listed["instances"], SHIPPED, strict=True):
        assert set(item) == SUMMARY_FIELDS
        assert (item["workflow_id"], item["status"], item["current_step"]) == (
            workflow,
            "active",
            "greeting",
        )
    # The context is one request away, whole.
    one = await gateway.get(f"/api/workflows/{ids[0]}", headers=auth(gateway, "liv"))
    assert one.status_code == 200
    assert compact_size(one.json()["context"]["shared"]) > MAX_CONTEXT_PART_BYTES - 64


async def complete(client: Client, user: str, instance: str) -> None:
    """Exchanges that close each step (forced at its `max_messages`) until the instance ends."""
    for n in range(80):
        command = RecordExchange(
            user_id=user,
            instance_id=instance,
            command_id=f"done-{n}",
            signal=WorkflowSignal(action="complete_step"),
        )
        if (await ask(client, command)).instance.status == "completed":
            return
    raise AssertionError(f"{instance} did not complete")


async def test_the_list_comes_a_page_at_a_time(gateway: Any, client: Client) -> None:
    ids = [await start(gateway, "pam", workflow) for workflow in SHIPPED]
    headers = auth(gateway, "pam")
    first = (await gateway.get("/api/workflows/active?limit=1", headers=headers)).json()
    assert [i["instance_id"] for i in first["instances"]] == ids[:1]
    assert first["next_after"] == ids[0]
    rest = await gateway.get(
        f"/api/workflows/active?limit=1&after={first['next_after']}", headers=headers
    )
    assert rest.status_code == 200, rest.text
    assert [i["instance_id"] for i in rest.json()["instances"]] == ids[1:]
    assert rest.json()["next_after"] is None
    # An instance that completed between two pages still says where the next one begins.
    await complete(client, "pam", ids[0])
    again = await gateway.get(f"/api/workflows/active?after={ids[0]}", headers=headers)
    assert [i["instance_id"] for i in again.json()["instances"]] == ids[1:]


@pytest.mark.parametrize(
    ("query", "field"),
    [("limit=0", "query.limit"), ("limit=1001", "query.limit"), ("limit=x", "query.limit"),
     ("after=a.b", "query.after"), ("after=" + "a" * 65, "query.after"),
     ("after=ghost-1", "query.after")],
)  # fmt: skip
async def test_bad_page_parameters_name_the_parameter(gateway: Any, query: str, field: str) -> None:
    await start(gateway, "pat", "onboarding")
    reply = await gateway.get(f"/api/workflows/active?{query}", headers=auth(gateway, "pat"))
    assert reply.status_code == 422, reply.text
    assert [d["field"] for d in reply.json()["error"]["details"]] == [field]


async def test_another_users_instance_is_no_place_to_go_on_from(gateway: Any) -> None:
    """Refused as an unknown id is: whether the id is someone else's is never told."""
    theirs = await start(gateway, "tom", "onboarding")
    await start(gateway, "ada", "onboarding")
    reply = await gateway.get(f"/api/workflows/active?after={theirs}", headers=auth(gateway, "ada"))
    assert reply.status_code == 422, reply.text
    assert reply.json()["error"]["details"][0]["field"] == "query.after"
    assert theirs in reply.json()["error"]["message"]
