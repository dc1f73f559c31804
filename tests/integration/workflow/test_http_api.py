"""The conversation workflow HTTP API at the gateway, end to end over NATS."""

from __future__ import annotations

from typing import Any

import pytest
from nats.aio.client import Client

from baton_contracts.workflow_api import RecordExchange, WorkflowSignal

from .conftest import FakeAgentRunner, ask


def auth(http: Any, user: str) -> dict[str, str]:
    return http.token(user)  # type: ignore[no-any-return]


async def start(http: Any, user: str) -> str:
    """The id of the user's onboarding instance (started, or the active one)."""
    started = await http.post(
        "/api/workflows", json={"workflow_id": "onboarding"}, headers=auth(http, user)
    )
    assert started.status_code in (200, 201), started.text
    return str(started.json()["instance_id"])


async def signal(http: Any, user: str, instance: str, **body: Any) -> Any:
    return await http.post(f"/api/workflows/{instance}/signal", json=body, headers=auth(http, user))


async def test_start_then_the_same_instance_again(gateway: Any) -> None:
    first = await gateway.post(
        "/api/workflows", json={"workflow_id": "onboarding"}, headers=auth(gateway, "ann")
    )
    assert first.status_code == 201, first.text
    again = await gateway.post(
        "/api/workflows", json={"workflow_id": "onboarding"}, headers=auth(gateway, "ann")
    )
    assert again.status_code == 200
    assert again.json()["instance_id"] == first.json()["instance_id"]
    active = await gateway.get("/api/workflows/active", headers=auth(gateway, "ann"))
    assert [i["instance_id"] for i in active.json()["instances"]] == [first.json()["instance_id"]]


async def test_progress_signal_events_and_explain(
    gateway: Any, agent_runner: FakeAgentRunner
) -> None:
    instance = await start(gateway, "bea")
    blocked = await signal(gateway, "bea", instance, action="complete_step")
    assert blocked.status_code == 200
    assert blocked.json()["outcome"] == "blocked"
    assert blocked.json()["missing_criteria"] == ["min_messages: 0/2 messages"]

    progress = (
        await gateway.get(f"/api/workflows/{instance}/progress", headers=auth(gateway, "bea"))
    ).json()
    assert progress["current_step"] == "greeting"
    assert progress["completion_percentage"] == 0.0
    assert [s["status"] for s in progress["steps"]] == ["active", "pending", "pending", "pending"]

    why = (
        await gateway.get(f"/api/workflows/{instance}/explain", headers=auth(gateway, "bea"))
    ).json()
    assert (why["messages_in_step"], why["min_messages"], why["max_messages"]) == (0, 2, 10)
    log = (
        await gateway.get(f"/api/workflows/{instance}/events", headers=auth(gateway, "bea"))
    ).json()
    assert [e["type"] for e in log["events"]] == [
        "workflow.instance_started",
        "workflow.signal_received",
        "workflow.step_blocked",
    ]
    detail = (await gateway.get(f"/api/workflows/{instance}", headers=auth(gateway, "bea"))).json()
    assert detail["context"]["current_step"] == "greeting"


async def test_idempotency_key_makes_a_retry_count_once(gateway: Any) -> None:
    instance = await start(gateway, "cid")
    headers = {**auth(gateway, "cid"), "Idempotency-Key": "k-1"}
    for _ in range(2):
        reply = await gateway.post(
            f"/api/workflows/{instance}/signal",
            json={"action": "stay", "data": {"n": 1}},
            headers=headers,
        )
        assert reply.json()["outcome"] == "stayed"
    log = (
        await gateway.get(f"/api/workflows/{instance}/events", headers=auth(gateway, "cid"))
    ).json()
    assert [e["type"] for e in log["events"]].count("workflow.signal_received") == 1


async def test_another_users_instance_is_404_everywhere(gateway: Any) -> None:
    instance = await start(gateway, "owner")
    for path in ("", "/progress", "/events", "/explain"):
        seen = await gateway.get(f"/api/workflows/{instance}{path}", headers=auth(gateway, "eve"))
        assert seen.status_code == 404, path
        assert instance in seen.json()["error"]["message"]
    poke = await signal(gateway, "eve", instance, action="complete_step")
    assert poke.status_code == 404
    mine = await gateway.get(f"/api/workflows/{instance}/progress", headers=auth(gateway, "owner"))
    assert mine.json()["current_step"] == "greeting"


@pytest.mark.parametrize(
    ("body", "status", "field"),
    [
        ({"action": "fly"}, 422, "body.action"),
        ({"action": "stay", "data": [1, 2]}, 422, "body.data"),
        ({"action": "stay", "surprise": 1}, 422, "body.surprise"),
        # The workflow service refuses these: it names them as the gateway does.
        ({"action": "stay", "data": {"x": "y" * 70_000}}, 413, "body.data"),
        ({"action": "stay", "shared": {"x": "y" * 70_000}}, 413, "body.shared"),
        ({"action": "complete_step", "target_step": "nowhere"}, 422, "body.target_step"),
        # No step id is longer than 63: a huge one was quoted into a refusal NATS would not
        # carry, and the gateway answered 503 after its timeout (found by a review).
        ({"action": "stay", "target_step": "z" * 600_000}, 422, "body.target_step"),
    ],
)
async def test_bad_signals_name_the_field(
    gateway: Any, body: dict[str, Any], status: int, field: str
) -> None:
    reply = await signal(gateway, "dan", await start(gateway, "dan"), **body)
    assert reply.status_code == status, reply.text
    assert field in [d["field"] for d in reply.json()["error"]["details"]]


async def test_data_is_measured_in_utf8_bytes_not_escaped_ascii(gateway: Any) -> None:
    """64 KiB of data is 64 KiB whatever the script: Cyrillic is 2 bytes a letter, not 6."""
    instance = await start(gateway, "ria")
    fits = await signal(gateway, "ria", instance, action="stay", data={"note": "я" * 30_000})
    assert fits.status_code == 200, fits.text
    over = await signal(gateway, "ria", instance, action="stay", data={"note": "я" * 33_000})
    assert over.status_code == 413, over.text
    assert "66011 bytes" in over.json()["error"]["message"]


def nested(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {"leaf": 1}
    for _ in range(depth - 1):
        value = {"a": value}
    return value


@pytest.mark.parametrize(
    ("name", "depth"), [("data", 33), ("data", 197), ("shared", 197), ("data", 400)]
)
async def test_deeply_nested_data_is_422_and_never_stored(
    gateway: Any, name: str, depth: int
) -> None:
    """Stored, data nested ~200 deep made every later reply unparsable: the instance, and the
    user's list of active ones, answered 500 from then on."""
    instance = await start(gateway, "deep")
    refused = await signal(gateway, "deep", instance, action="stay", **{name: nested(depth)})
    assert refused.status_code == 422, refused.text
    assert refused.json()["error"]["details"][0]["field"] == f"body.{name}"
    assert "32" in refused.json()["error"]["message"]
    fine = await signal(gateway, "deep", instance, action="stay", data=nested(32))
    assert fine.status_code == 200, fine.text
    active = await gateway.get("/api/workflows/active", headers=auth(gateway, "deep"))
    assert active.status_code == 200, active.text


async def test_unknown_workflow_and_instance_are_404_naming_the_id(gateway: Any) -> None:
    nope = await gateway.post(
        "/api/workflows", json={"workflow_id": "nope"}, headers=auth(gateway, "fay")
    )
    assert nope.status_code == 404 and "'nope'" in nope.json()["error"]["message"]
    ghost = await gateway.get("/api/workflows/ghost-1/progress", headers=auth(gateway, "fay"))
    assert ghost.status_code == 404 and "'ghost-1'" in ghost.json()["error"]["message"]
    # Named as the request gave it, like every field (it had no details at all).
    assert [d["field"] for d in ghost.json()["error"]["details"]] == ["path.instance_id"]
    said = await gateway.post(
        "/api/workflows/ghost-1/messages",
        json={"text": "hi", "client_message_id": "m1"},
        headers=auth(gateway, "fay"),
    )
    assert said.status_code == 404
    assert [d["field"] for d in said.json()["error"]["details"]] == ["path.instance_id"]


async def test_a_text_too_long_is_413_naming_body_text_everywhere(gateway: Any) -> None:
    instance = await start(gateway, "long")
    said = await gateway.post(
        f"/api/workflows/{instance}/messages",
        json={"text": "x" * 8001},
        headers=auth(gateway, "long"),
    )
    assert said.status_code == 413, said.text
    # The detail's own message began "text: ", the owner's name for the field the gateway
    # calls body.text (found by a probe of the gateway).
    assert said.json()["error"] == {
        "code": "too_large",
        "message": "body.text: has 8001 characters; the limit is 8000",
        "details": [{"field": "body.text", "message": "has 8001 characters; the limit is 8000"}],
    }


async def test_signal_on_a_completed_instance_is_409(
    gateway: Any, client: Client, agent_runner: FakeAgentRunner
) -> None:
    agent_runner.facts["gil"], agent_runner.items["gil"] = 3, 3
    instance = await start(gateway, "gil")
    status = "active"
    for n in range(40):
        command = RecordExchange(
            user_id="gil",
            instance_id=instance,
            command_id=f"x{n}",
            signal=WorkflowSignal(action="complete_step"),
        )
        status = (await ask(client, command)).instance.status
        if status == "completed":
            break
    assert status == "completed"
    late = await signal(gateway, "gil", instance, action="complete_step")
    assert late.status_code == 409, late.text
    assert late.json()["error"]["code"] == "conflict"
    # Named like every refusal (it had no details): the instance, as the request gave it.
    assert late.json()["error"]["details"] == [
        {"field": "path.instance_id", "message": "the instance is completed"}
    ]
    progress = await gateway.get(
        f"/api/workflows/{instance}/progress", headers=auth(gateway, "gil")
    )
    assert progress.json()["completion_percentage"] == 100.0


@pytest.mark.parametrize("part", ["data", "shared"])
async def test_signals_cannot_grow_an_instance_past_what_a_reply_carries(
    gateway: Any, part: str
) -> None:
    # Each signal within its 64 KiB, under a new key every time: the ninth made the instance's
    # replies larger than a NATS message, and from then on reading it, starting onboarding
    # again or chatting failed for good (found by a review of the gateway).
    instance = await start(gateway, "gus")
    answers = []
    for n in range(6):
        body = {part: {f"k{n}": "x" * 60_000}}
        answers.append(await signal(gateway, "gus", instance, action="stay", **body))
    assert [a.status_code for a in answers] == [200, 200, 200, 200, 413, 413]
    refused = answers[4].json()["error"]
    assert [d["field"] for d in refused["details"]] == [f"body.{part}"]
    assert "the limit is 262144" in refused["message"]
    seen = await gateway.get(f"/api/workflows/{instance}", headers=auth(gateway, "gus"))
    assert seen.status_code == 200
    again = await gateway.post(
        "/api/workflows", json={"workflow_id": "onboarding"}, headers=auth(gateway, "gus")
    )
    assert again.status_code == 200 and again.json()["instance_id"] == instance


async def _all_pages(gateway: Any, user: str, path: str, key: str, limit: int) -> list[Any]:
    """Every item of a paged route, following `next_after_version`; the pages' sizes too."""
    items: list[Any] = []
    after: int | None = 0
    while after is not None:
        page = await gateway.get(
            f"{path}?after_version={after}&limit={limit}", headers=auth(gateway, user)
        )
        assert page.status_code == 200, page.text
        items.append(page.json()[key])
        after = page.json()["next_after_version"]
    return items


async def test_the_event_log_comes_a_page_at_a_time_each_event_once(gateway: Any) -> None:
    instance = await start(gateway, "pia")
    for _ in range(4):
        await signal(gateway, "pia", instance, action="stay")
    pages = await _all_pages(gateway, "pia", f"/api/workflows/{instance}/events", "events", 3)
    versions = [e["version"] for page in pages for e in page]
    assert [len(page) for page in pages] == [3, 2]  # started, then 4 signals that stay
    assert versions == list(range(1, len(versions) + 1))
    whole = await gateway.get(f"/api/workflows/{instance}/events", headers=auth(gateway, "pia"))
    assert [e["version"] for e in whole.json()["events"]] == versions
    assert whole.json()["next_after_version"] is None


async def test_a_log_larger_than_a_nats_message_is_still_read_in_pages(gateway: Any) -> None:
    # 18 signals of 60 KB under one key: the context stays small, the log passes 1 MiB, and
    # GET /events answered 500 (found by a review of the gateway).
    instance = await start(gateway, "ole")
    for n in range(18):
        sent = await signal(
            gateway, "ole", instance, action="stay", data={"same": f"{n:02d}" * 30_000}
        )
        assert sent.status_code == 200
    pages = await _all_pages(gateway, "ole", f"/api/workflows/{instance}/events", "events", 1000)
    assert len(pages) > 1
    signals = [e for page in pages for e in page if e["type"] == "workflow.signal_received"]
    assert len(signals) == 18


@pytest.mark.parametrize(
    ("query", "field"),
    [("after_version=-1", "query.after_version"), ("limit=0", "query.limit"),
     ("limit=1001", "query.limit"), ("after_version=x", "query.after_version"),
     # Past a 64-bit integer it reached the store and answered 500 (found by a review).
     ("after_version=9223372036854775808", "query.after_version")],
)  # fmt: skip
async def test_bad_page_parameters_name_the_parameter(gateway: Any, query: str, field: str) -> None:
    instance = await start(gateway, "ned")
    for route in ("events", "messages"):
        reply = await gateway.get(
            f"/api/workflows/{instance}/{route}?{query}", headers=auth(gateway, "ned")
        )
        assert reply.status_code == 422, reply.text
        assert [d["field"] for d in reply.json()["error"]["details"]] == [field]


async def test_the_largest_after_version_is_an_empty_page(gateway: Any) -> None:
    instance = await start(gateway, "nel")
    for route, items in (("events", "events"), ("messages", "messages")):
        reply = await gateway.get(
            f"/api/workflows/{instance}/{route}?after_version=9223372036854775807",
            headers=auth(gateway, "nel"),
        )
        assert reply.status_code == 200, reply.text
        assert reply.json()[items] == [] and reply.json()["next_after_version"] is None
