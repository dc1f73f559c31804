"""A DAG step whose agent-runner answers that its own database is down is asked again.

Seen holding `LOCK TABLE agent_claims` for 25 s on PostgreSQL (and with the agent-runner's
SQLite folder read-only): every run then at an agent step ended `error` (`agent 'kokuyou':
the agent-runner's task log is unavailable; try again`), while the workflow service's own
database outages fail no run. It is now waited for like an agent-runner that is restarting."""

from __future__ import annotations

from collections.abc import AsyncIterator

import nats
import pytest
from nats.aio.client import Client
from nats.aio.msg import Msg

from baton_contracts import (
    HEALTH_QUERIES,
    ErrorBody,
    ErrorCode,
    HealthStatus,
    RemoteError,
    ReplyError,
    ReplyOk,
)
from baton_contracts.agent_api import TASK_LOG_UNAVAILABLE
from baton_messaging import request_again_while_gone
from baton_workflow.adapters.agent_runner import task_log_unavailable

HEALTH = HEALTH_QUERIES["space"]


@pytest.fixture
async def client(nats_url: str) -> AsyncIterator[Client]:
    nc = await nats.connect(nats_url)
    yield nc
    await nc.close()


async def serve_failing(client: Client, failures: int, message: str) -> list[int]:
    """Answer `unavailable` (`message`) to the first `failures` sends, then healthy."""
    sends: list[int] = []

    async def on_request(msg: Msg) -> None:
        sends.append(1)
        if len(sends) <= failures:
            error = ErrorBody(code=ErrorCode.UNAVAILABLE, message=message)
            await msg.respond(ReplyError(error=error).model_dump_json().encode())
        else:
            status = HealthStatus(service="space", healthy=True)
            await msg.respond(
                ReplyOk(result=status.model_dump(mode="json")).model_dump_json().encode()
            )

    await client.subscribe(HEALTH().wire_subject(), cb=on_request)
    await client.flush()
    return sends


async def test_a_task_log_outage_is_asked_again_until_it_ends(client: Client) -> None:
    sends = await serve_failing(client, 2, TASK_LOG_UNAVAILABLE)
    reply = await request_again_while_gone(
        client, HEALTH(), timeout=10, retry_for=5, pause=0.05, again_also=task_log_unavailable
    )
    assert isinstance(reply, HealthStatus) and len(sends) == 3


async def test_another_unavailable_answer_is_still_the_callers(client: Client) -> None:
    sends = await serve_failing(client, 1, "the model did not answer")
    with pytest.raises(RemoteError, match="the model did not answer"):
        await request_again_while_gone(
            client, HEALTH(), timeout=10, retry_for=5, pause=0.05, again_also=task_log_unavailable
        )
    assert len(sends) == 1
