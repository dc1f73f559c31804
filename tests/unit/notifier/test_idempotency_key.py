"""An `Idempotency-Key` is printable ASCII (a Structured Field string): a key with other bytes
is refused by its name and nothing is sent on. The server read such bytes as Latin-1, so `é`
was kept as `Ã©`, and a retry sending the same id in the body was another command."""

from __future__ import annotations

import httpx
import pytest

from .conftest import FakeRequester

ROUTES = [
    ("/api/workflows/i1/signal", {"action": "stay"}, "in the body"),
    ("/api/workflows/i1/messages", {"text": "hi"}, "in the body"),
    ("/workflows/w/run", {}, "200 printable ASCII characters"),
]


@pytest.mark.parametrize(("url", "body", "said"), ROUTES)
@pytest.mark.parametrize("key", ["clé-1".encode(), b"tab\there", "ключ".encode()])
async def test_a_key_that_is_not_printable_ascii_is_refused_and_nothing_is_sent(
    client: httpx.AsyncClient,
    auth: dict[str, str],
    requester: FakeRequester,
    url: str,
    body: dict[str, str],
    said: str,
    key: bytes,
) -> None:
    headers = [*auth.items(), ("Idempotency-Key", key)]
    refused = await client.post(url, json=body, headers=headers)
    assert refused.status_code == 422, refused.text
    [detail] = refused.json()["error"]["details"]
    assert detail["field"] == "header.idempotency-key"
    assert detail["message"].startswith("an Idempotency-Key is 1 to ")
    assert said in detail["message"]
    assert requester.sent == []


@pytest.mark.parametrize(("url", "body", "said"), ROUTES)
async def test_an_empty_key_is_refused_too(
    client: httpx.AsyncClient,
    auth: dict[str, str],
    requester: FakeRequester,
    url: str,
    body: dict[str, str],
    said: str,
) -> None:
    # On a signal or a message it used to count as none: each retry was a new command.
    refused = await client.post(url, json=body, headers={**auth, "Idempotency-Key": ""})
    assert refused.status_code == 422, refused.text
    assert [d["field"] for d in refused.json()["error"]["details"]] == ["header.idempotency-key"]
    assert requester.sent == []


async def test_a_printable_ascii_key_with_spaces_and_punctuation_is_taken(
    client: httpx.AsyncClient, auth: dict[str, str], requester: FakeRequester
) -> None:
    key = "order 42/retry:#1 ~ok"
    requester.raw = b'{"outcome": "stayed"}'
    headers = {**auth, "Idempotency-Key": key}
    await client.post("/api/workflows/i1/signal", json={"action": "stay"}, headers=headers)
    [sent] = requester.sent
    assert sent.command_id == key
