"""A chat turn whose workflow service is killed (SIGKILL) while its agent answers: `baton up`
restarts the service, the gateway sends the turn again (`BATON_CHAT_RESEND_SECONDS`), and the
user gets the agent's answer, recorded once, the model asked once.

The gateway used to wait out its whole chat timeout (40 s) and answer 503, the restarted
service never hearing of the turn."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from tests.held_ports import held_port
from tests.integration.agent_runner.fake_openai import FakeOpenAI, Handler

from .conftest import START_LIMIT, BatonUp, marked_processes
from .test_baton_up import READY, baton, state

MODEL_DELAY = 3.0
"""How long the fake model takes to answer: the workflow service is killed meanwhile."""


@pytest.fixture
def slow_model() -> Iterator[FakeOpenAI]:
    server = FakeOpenAI(("127.0.0.1", 0), Handler)
    server.requests, server.mode, server.delay = [], "slow", MODEL_DELAY
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def completions(model: FakeOpenAI) -> int:
    return sum(1 for body in list(model.requests) if "messages" in body)


def test_a_turn_whose_workflow_service_is_killed_mid_turn_is_answered_once(
    start_baton: type[BatonUp], tmp_path: Path, slow_model: FakeOpenAI
) -> None:
    env = {k: v for k, v in os.environ.items() if k != "BATON_JWT_SECRET"}
    env.update(
        BATON_AGENT_MODEL="openai:fake",
        BATON_OPENAI_BASE_URL=f"http://127.0.0.1:{slow_model.server_address[1]}/v1",
    )
    data = tmp_path / "data"
    up = start_baton(
        ["--data-dir", str(data), "--port", str(held_port()), "--nats-port", str(held_port())],
        env,
    )
    url = up.wait_for(READY).split(READY, 1)[1]
    token = baton("token", "--user", "alice", "--data-dir", str(data), env=env).stdout.strip()
    auth = {"Authorization": f"Bearer {token}"}
    with httpx.Client(base_url=url, headers=auth, timeout=60) as http:
        started = http.post("/api/workflows", json={"workflow_id": "onboarding"})
        assert started.status_code == 201, started.text
        instance = started.json()["instance_id"]
        with ThreadPoolExecutor(1) as pool:
            said: Future[httpx.Response] = pool.submit(
                http.post,
                f"/api/workflows/{instance}/messages",
                json={"text": "hello", "client_message_id": "m-1"},
            )
            asking_until = time.monotonic() + START_LIMIT
            while completions(slow_model) == 0 and time.monotonic() < asking_until:
                time.sleep(0.05)
            assert completions(slow_model) == 1, up.output()
            killed = state(data)["services"]["workflow"]  # type: ignore[index]
            os.kill(killed, signal.SIGKILL)  # the agent is answering this process's turn
            response = said.result(timeout=START_LIMIT)
        assert response.status_code == 200, response.text
        assert response.json()["reply"]["text"] == "Hello from the model"
        assert state(data)["services"]["workflow"] != killed  # type: ignore[index]
        assert completions(slow_model) == 1  # the recorded answer, not a second model call
        messages = http.get(f"/api/workflows/{instance}/messages").json()["messages"]
        assert [m["text"] for m in messages if m["role"] == "user"] == ["hello"]
    assert up.interrupt() == 0
    assert marked_processes(up.mark) == []
