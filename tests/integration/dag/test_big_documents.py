"""Documents at the size limits: what is saved can be read back, and what NATS cannot carry
is refused without leaving anything behind in the gateway."""

from __future__ import annotations

import json

import pytest
from nats.aio.client import Client

from ...platform_stack import Stack
from .conftest import Author


@pytest.fixture
def stack(module_stack: Stack) -> Stack:
    return module_stack


ESCAPED = 'name: grows\nsteps:\n  - id: a\n    agent: default\n    prompt: "' + "\\e" * 250_000
"""500,000 characters of YAML whose prompt is 1,500,000 as JSON (`\\e` is `\\u001b` there)."""


async def test_a_yaml_escape_counts_as_json_writes_it(author: Author) -> None:
    created = await author.create(ESCAPED + '"\n', **{"Content-Type": "application/yaml"})

    # Saved, it could never be read back: its reply was over NATS's 1 MiB (500).
    assert created.status_code == 422, created.text
    [problem] = created.json()["error"]["details"]
    assert problem["field"] == "body"
    assert problem["message"].startswith("is 1,500,0")
    assert (await author.http.get("/workflows/grows", headers=author.headers)).status_code == 404


def pending_replies(stack: Stack) -> int:
    assert stack.notifier.link is not None
    connection: Client = stack.notifier.link.broker.connection
    return len(connection._resp_map)


async def test_a_request_too_large_for_nats_leaves_no_reply_waiting(
    stack: Stack, author: Author
) -> None:
    # Under the gateway's 1 MiB body limit, over NATS's once wrapped as a request: nats-py
    # registered each refused request's reply and never dropped it.
    doc = {"name": "big", "steps": [{"id": "a", "agent": "default", "prompt": "😀" * 261_990}]}
    body = json.dumps(doc, ensure_ascii=False)
    body = body[:-1] + " " * (1_048_570 - len(body.encode())) + "}"
    before = pending_replies(stack)
    for _ in range(20):
        refused = await author.create(body)
        assert refused.status_code == 413, refused.text
    assert pending_replies(stack) == before
