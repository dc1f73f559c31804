"""An `Idempotency-Key` is printable ASCII (a Structured Field string): a key with other bytes
is refused by its name and nothing is sent on. The server read such bytes as Latin-1, so `é`
was kept as `Ã©`, and a retry sending the same id in the body was another command."""

from __future__ import annotations

import httpx
import pytest

from .conftest import FakeRequester, run_accepted

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


@pytest.mark.parametrize(("url", "body", "said"), ROUTES)
async def test_a_key_sent_twice_is_refused_and_nothing_is_sent(
    client: httpx.AsyncClient,
    auth: dict[str, str],
    requester: FakeRequester,
    url: str,
    body: dict[str, str],
    said: str,
) -> None:
    # The first was taken and the second ignored: a retry that sent them the other way round
    # (a proxy may reorder them) was a second command, or a second run.
    headers = [*auth.items(), ("Idempotency-Key", "k1"), ("Idempotency-Key", "k2")]
    refused = await client.post(url, json=body, headers=headers)
    assert refused.status_code == 422, refused.text
    [detail] = refused.json()["error"]["details"]
    assert detail == {
        "field": "header.idempotency-key",
        "message": "sent 2 times; send one Idempotency-Key header",
    }
    assert requester.sent == []


@pytest.mark.parametrize(
    ("url", "body", "field"),
    [
        ("/api/workflows/i1/signal", {"action": "stay", "command_id": "c1"}, "command_id"),
        (
            "/api/workflows/i1/messages",
            {"text": "hi", "client_message_id": "c1"},
            "client_message_id",
        ),
    ],
)
async def test_a_body_id_that_is_another_key_than_the_headers_is_refused(
    client: httpx.AsyncClient,
    auth: dict[str, str],
    requester: FakeRequester,
    url: str,
    body: dict[str, str],
    field: str,
) -> None:
    # The body's was taken, silently: a client retrying by the header's key got a new command.
    refused = await client.post(url, json=body, headers={**auth, "Idempotency-Key": "k1"})
    assert refused.status_code == 422, refused.text
    [detail] = refused.json()["error"]["details"]
    assert detail["field"] == f"body.{field}"
    assert "Idempotency-Key header" in detail["message"]
    assert requester.sent == []


async def test_the_same_key_in_the_body_and_the_header_is_taken(
    client: httpx.AsyncClient, auth: dict[str, str], requester: FakeRequester
) -> None:
    requester.raw = b'{"outcome": "stayed"}'
    body = {"action": "stay", "command_id": "k1"}
    await client.post(
        "/api/workflows/i1/signal", json=body, headers={**auth, "Idempotency-Key": "k1"}
    )
    [sent] = requester.sent
    assert sent.command_id == "k1"


@pytest.mark.parametrize(
    ("header", "key"),
    [('"k1"', "k1"), ('"say \\"hi\\" \\\\ 2"', 'say "hi" \\ 2'), ('"k1" ', "k1"), ("k1", "k1")],
)
async def test_a_quoted_key_is_the_key_it_holds(
    client: httpx.AsyncClient, auth: dict[str, str], requester: FakeRequester, header: str, key: str
) -> None:
    # The draft writes the key as a Structured Field string, quoted; it was kept with its
    # quotes, so the same id in the body was refused as another key.
    requester.raw = b'{"outcome": "stayed"}'
    body = {"action": "stay", "command_id": key}
    answer = await client.post(
        "/api/workflows/i1/signal", json=body, headers={**auth, "Idempotency-Key": header}
    )
    assert answer.status_code == 200, answer.text
    [sent] = requester.sent
    assert sent.command_id == key


@pytest.mark.parametrize(("url", "body", "said"), ROUTES)
@pytest.mark.parametrize(
    ("header", "why"),
    [
        ('"k1", "k2"', "holds more than one key"),
        ('"k1" k2', "after the quoted key"),
        ('"k1', "opens a quote it does not close"),
        ('"k\\1"', "escapes only"),
    ],
)
async def test_a_quoted_value_that_is_not_one_key_is_refused_and_nothing_is_sent(
    client: httpx.AsyncClient,
    auth: dict[str, str],
    requester: FakeRequester,
    url: str,
    body: dict[str, str],
    said: str,
    header: str,
    why: str,
) -> None:
    # A proxy may join two headers into one line (RFC 9110 5.3): `"k1", "k2"` was one key.
    refused = await client.post(url, json=body, headers={**auth, "Idempotency-Key": header})
    assert refused.status_code == 422, refused.text
    [detail] = refused.json()["error"]["details"]
    assert detail["field"] == "header.idempotency-key"
    assert why in detail["message"]
    assert requester.sent == []


async def test_a_quoted_run_key_starts_one_run_as_the_bare_key_does(
    client: httpx.AsyncClient, auth: dict[str, str], requester: FakeRequester
) -> None:
    requester.answer = run_accepted
    await client.post("/workflows/w/run", json={}, headers={**auth, "Idempotency-Key": '"n-1"'})
    await client.post("/workflows/w/run", json={}, headers={**auth, "Idempotency-Key": "n-1"})
    assert [getattr(sent, "request_id", None) for sent in requester.sent] == ["n-1", "n-1"]
