"""The two routes of every turn (a signal, a chat message) answer with the workflow service's
reply JSON as it came: the gateway neither decodes it nor has FastAPI check and encode it."""

from __future__ import annotations

import json

import httpx
import pytest

from baton_notifier.bootstrap import Notifier

from .conftest import FakeRequester

# Spaced, in an order of its own, with a field the contract model does not know: anything
# FastAPI's response handling touches would come out different.
AS_SENT = b'{"outcome": "stayed",  "from_the_owner": [1.50, "\\u00e9"]}'


@pytest.mark.parametrize(
    ("url", "body"),
    [
        ("/api/workflows/i1/signal", {"action": "stay"}),
        ("/api/workflows/i1/messages", {"text": "hello", "client_message_id": "m1"}),
    ],
)
async def test_a_turns_reply_is_the_owners_json_byte_for_byte(
    client: httpx.AsyncClient,
    auth: dict[str, str],
    requester: FakeRequester,
    url: str,
    body: dict[str, str],
) -> None:
    requester.raw = AS_SENT
    answered = await client.post(url, json=body, headers=auth)
    assert answered.status_code == 200, answered.text
    assert answered.content == AS_SENT
    assert answered.headers["content-type"] == "application/json"
    assert json.loads(answered.content)["from_the_owner"] == [1.5, "é"]
    assert len(requester.sent) == 1


def test_the_turn_routes_still_document_their_reply_models(notifier: Notifier) -> None:
    paths = notifier.app.openapi()["paths"]
    for path, model in (
        ("/api/workflows/{instance_id}/signal", "TurnReply"),
        ("/api/workflows/{instance_id}/messages", "MessageReply"),
    ):
        schema = paths[path]["post"]["responses"]["200"]["content"]["application/json"]["schema"]
        assert schema["$ref"].endswith(f"/{model}")
