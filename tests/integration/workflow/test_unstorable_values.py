"""Values JSON cannot carry as sent are refused by their path, not stored as something else."""

from __future__ import annotations

from typing import Any

import pytest
from nats.aio.client import Client

from .test_http_api import auth


async def _started(gateway: Any, user: str) -> str:
    started = await gateway.post(
        "/api/workflows", json={"workflow_id": "onboarding"}, headers=auth(gateway, user)
    )
    return str(started.json()["instance_id"])


async def _events(gateway: Any, user: str, instance: str) -> list[Any]:
    log = await gateway.get(f"/api/workflows/{instance}/events", headers=auth(gateway, user))
    return list(log.json()["events"])


@pytest.mark.parametrize(
    ("body", "field", "shown"),
    [
        (b'{"action":"stay","data":{"x":NaN}}', "body.data.x", "NaN"),
        (b'{"action":"stay","data":{"l":[1,Infinity]}}', "body.data.l[1]", "Infinity"),
        (b'{"action":"stay","shared":{"x":-Infinity}}', "body.shared.x", "-Infinity"),
        (b'{"action":"stay","data":{"x":1e999}}', "body.data.x", "Infinity"),
    ],
)
async def test_nan_or_infinity_in_signal_data_is_422_not_null(
    gateway: Any, body: bytes, field: str, shown: str
) -> None:
    # Python's JSON reader takes these; the signal was answered 200 and stored them as null.
    instance = await _started(gateway, "nan")
    before = await _events(gateway, "nan", instance)
    refused = await gateway.post(
        f"/api/workflows/{instance}/signal",
        content=body,
        headers={**auth(gateway, "nan"), "Content-Type": "application/json"},
    )
    assert refused.status_code == 422, refused.text
    [detail] = refused.json()["error"]["details"]
    assert detail["field"] == field
    assert (
        detail["message"] == f"is {shown}, which is not a JSON number and cannot be stored as sent"
    )
    assert await _events(gateway, "nan", instance) == before


async def test_nan_in_a_signal_sent_over_nats_is_invalid_naming_the_field(
    gateway: Any, client: Client
) -> None:
    instance = await _started(gateway, "nan-nats")
    body = (
        b'{"type":"workflow.signal","user_id":"nan-nats","instance_id":"%s",'
        b'"command_id":"c-1","signal":{"action":"stay","data":{"x":NaN}}}' % instance.encode()
    )
    reply = await client.request("workflow.cmd.signal", body, timeout=5.0)
    assert b'"code":"invalid"' in reply.data
    assert b'"field":"signal.data.x"' in reply.data and b"is NaN" in reply.data
    assert len(await _events(gateway, "nan-nats", instance)) == 1  # only the start


@pytest.mark.parametrize(
    ("route", "body", "field"),
    [
        ("signal", b'{"action":"stay","data":{"x":"a\\ud800"}}', "body.data.x"),
        ("signal", b'{"action":"stay","data":{"\\udc00":1}}', "body.data"),
        ("signal", b'{"action":"stay","target_step":"\\ud800"}', "body.target_step"),
        ("signal", b'{"action":"stay","data":{"x":"\xed\xa0\x80"}}', "body.data.x"),
        ("messages", b'{"text":"hi \\udfff"}', "body.text"),
    ],
)
async def test_a_lone_surrogate_in_a_body_is_422_naming_the_field(
    gateway: Any, route: str, body: bytes, field: str
) -> None:
    # Nothing can write one out as UTF-8: forwarding it was a 500, and in a key it reached
    # the store as other characters.
    instance = await _started(gateway, "surrogate")
    refused = await gateway.post(
        f"/api/workflows/{instance}/{route}",
        content=body,
        headers={**auth(gateway, "surrogate"), "Content-Type": "application/json"},
    )
    assert refused.status_code == 422, refused.text
    [detail] = refused.json()["error"]["details"]
    assert detail["field"] == field
    assert detail["message"].startswith("contains a lone surrogate (U+D")
    assert len(await _events(gateway, "surrogate", instance)) == 1  # only the start
    paired = await gateway.post(  # an escaped pair is one character, and fine
        f"/api/workflows/{instance}/signal",
        content=b'{"action":"stay","data":{"x":"\\ud83d\\ude00"}}',
        headers={**auth(gateway, "surrogate"), "Content-Type": "application/json"},
    )
    assert paired.status_code == 200, paired.text
    assert (await _events(gateway, "surrogate", instance))[-1]["payload"]["data"] == {"x": "😀"}
