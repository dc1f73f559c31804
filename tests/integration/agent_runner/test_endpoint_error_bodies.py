"""What a DAG step's caller learns when the model endpoint refuses the API key."""

from __future__ import annotations

import pytest
from nats.aio.client import Client

from baton_agent_runner.bootstrap import build
from baton_contracts import RemoteError
from baton_contracts.agent_api import RunTask
from baton_messaging import request

from .conftest import settings
from .fake_openai import FakeOpenAI
from .test_endpoint_faults import url

KEY = "sk-proj-ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcd"


async def test_a_refused_api_key_is_not_relayed_to_the_steps_caller(
    nats_url: str,
    sqlite_url: str,
    client: Client,
    fake_openai: FakeOpenAI,
    caplog: pytest.LogCaptureFixture,
) -> None:
    # An OpenAI-compatible proxy that echoes what it was sent (LiteLLM-like, or a misconfigured
    # gateway): the body is the endpoint's, and it reaches whoever reads the run.
    fake_openai.respond = lambda body, n: (
        401,
        {
            "error": {
                "message": f"Incorrect API key provided: {KEY}. org org-internal-42, "
                "upstream http://10.0.3.7:8000/v1",
                "type": "invalid_request_error",
                "code": "invalid_api_key",
            }
        },
    )
    app = build(
        settings(
            nats_url,
            sqlite_url,
            memory_backend="sql",
            openai_base_url=url(fake_openai),
            openai_api_key=KEY,
        )
    )
    await app.start()
    try:
        step = RunTask(
            user_id="u",
            agent="ruri",
            run_id="r",
            step_id="s",
            prompt="Revise it",
            provider="openai",
            model="m",
            idempotency_key="k-401",
        )
        with pytest.raises(RemoteError) as caught:
            await request(client, step, timeout=10.0)
        said = caught.value.body.message
        assert KEY not in said and "10.0.3.7" not in said
        assert said.endswith("the model endpoint answered HTTP 401")
        # The operator's line names the run, so it can be found beside the run's events.
        assert any(
            r.getMessage().startswith("agent ruri: run r step s failed: ") for r in caplog.records
        )
    finally:
        await app.stop()
