"""`python -m baton_notifier` as `baton up` starts it: env vars in, HTTP out, SIGTERM stops."""

import asyncio
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import nats
import pytest

from baton_auth import mint_token
from baton_contracts.workflow_api import GetProgress
from baton_messaging.embedded import EmbeddedNatsServer, reserved_port

SECRET = "process-test-secret-of-32-bytes-ok"
DEADLINE = 30.0
"""A bound on a stop or a request once the gateway is up."""
START_LIMIT = 90.0
"""How long a gateway may take to answer or log at start: a bound so that a broken start fails
instead of hanging, not a speed claim (importing it took over 30 s on a loaded CI machine). A
gateway that exits fails the wait at once."""


def _env(**values: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("BATON_")}
    return {**env, **values}


Gateway = tuple[subprocess.Popen[bytes], str, Path]
StartGateway = Callable[..., Gateway]


@pytest.fixture
def start_gateway(tmp_path: Path) -> Iterator[StartGateway]:
    started: list[subprocess.Popen[bytes]] = []

    def start(nats_url: str, listening: socket.socket | None = None, **settings: str) -> Gateway:
        """`listening`: a socket handed over as `baton up` does (`BATON_HTTP_FD`); without
        it, one bound here. Either way the port is the gateway's from before it starts: a
        port picked free and let go was now and then taken by a test running beside first."""
        sock = listening if listening is not None else socket.create_server(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        env = _env(
            BATON_NATS_URL=nats_url,
            BATON_JWT_SECRET=SECRET,
            BATON_HTTP_PORT=str(port),
            BATON_HTTP_FD=str(sock.fileno()),
            BATON_LOG_LEVEL="info",
            **settings,
        )
        log_path = tmp_path / f"notifier-{port}.log"
        with log_path.open("wb") as log:
            process = subprocess.Popen(
                [sys.executable, "-m", "baton_notifier"],
                env=env,
                stdout=log,
                stderr=log,
                pass_fds=(sock.fileno(),),
            )
        if listening is None:
            sock.close()  # the gateway holds its own copy
        started.append(process)
        return process, f"http://127.0.0.1:{port}", log_path

    yield start
    for process in started:
        if process.poll() is None:
            process.kill()
            process.wait()


def _wait_health(process: subprocess.Popen[bytes], base: str, status: int) -> httpx.Response:
    deadline = time.monotonic() + START_LIMIT
    while time.monotonic() < deadline:
        assert process.poll() is None, "the notifier exited before /health answered"
        try:
            response = httpx.get(f"{base}/health", timeout=1)
            if response.status_code == status:
                return response
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    raise AssertionError(f"{base}/health did not answer {status} within {START_LIMIT} s")


def test_the_gateway_process_serves_and_stops_cleanly_on_sigterm(
    start_gateway: StartGateway, nats_url: str
) -> None:
    process, base, log = start_gateway(nats_url)
    health = _wait_health(process, base, 200)
    assert health.json() == {"status": "ok", "checks": {"nats": True}}
    token = mint_token(SECRET, "alice")
    me = httpx.get(f"{base}/api/me", headers={"Authorization": f"Bearer {token}"}, timeout=5)
    assert me.json() == {"user_id": "alice", "project_id": None}
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=DEADLINE) == 0
    assert "Traceback" not in log.read_text()


def test_the_gateway_process_runs_without_nats_and_still_stops_cleanly(
    start_gateway: StartGateway,
) -> None:
    with reserved_port() as nowhere:  # nothing listens there, nor can while it is held
        process, base, log = start_gateway(
            f"nats://127.0.0.1:{nowhere}", BATON_NATS_START_TIMEOUT_SECONDS="0.5"
        )
        assert _wait_health(process, base, 503).json()["checks"] == {"nats": False}
    process.send_signal(signal.SIGINT)
    assert process.wait(timeout=DEADLINE) == 0
    assert "Traceback" not in log.read_text()


def test_the_gateway_process_refuses_to_start_without_a_secret() -> None:
    with reserved_port() as port:  # were it to start, never on a port in use
        result = subprocess.run(
            [sys.executable, "-m", "baton_notifier"],
            env=_env(BATON_HTTP_PORT=str(port)),
            capture_output=True,
            text=True,
            timeout=START_LIMIT,
        )
    assert result.returncode == 2
    [line] = result.stderr.strip().splitlines()
    assert "BATON_JWT_SECRET is required" in line


@pytest.fixture
def listening() -> Iterator[socket.socket]:
    """The gateway's port, bound and listening before the gateway starts, as `baton up` does."""
    sock = socket.create_server(("127.0.0.1", 0))
    yield sock
    sock.close()


def _wait_for_line(process: subprocess.Popen[bytes], log: Path, line: str) -> None:
    deadline = time.monotonic() + START_LIMIT
    while line not in log.read_text():
        assert process.poll() is None, f"the notifier exited before it logged {line!r}"
        assert time.monotonic() < deadline, f"the notifier did not log {line!r}"
        time.sleep(0.05)


def test_a_request_made_while_the_gateway_connects_to_nats_waits_and_is_served(
    start_gateway: StartGateway, listening: socket.socket, tmp_path: Path
) -> None:
    """As after `kill -9` of the gateway: `baton up` starts another on the same socket, and a
    request that queued meanwhile is served once it is connected, never `503 not connected`."""
    # Held until nats-server listens on it: the gateway is told the port before it starts.
    with reserved_port() as nats_port:
        process, base, log = start_gateway(f"nats://127.0.0.1:{nats_port}", listening)
        _wait_for_line(process, log, "connecting to NATS")
        with ThreadPoolExecutor(1) as pool:
            health = pool.submit(httpx.get, f"{base}/health", timeout=START_LIMIT)
            time.sleep(0.5)  # the request is in the socket's backlog, NATS not up yet
            assert not health.done(), health.result().text
            server = EmbeddedNatsServer(store_dir=tmp_path / "nats", port=nats_port)
            server.start()
            try:
                answer = health.result(timeout=START_LIMIT)
            finally:
                process.send_signal(signal.SIGTERM)
                assert process.wait(timeout=DEADLINE) == 0
                server.stop()
    assert (answer.status_code, answer.json()["checks"]) == (200, {"nats": True})
    assert "Traceback" not in log.read_text()


def test_a_gateway_stopped_while_it_waits_for_nats_stops_cleanly(
    start_gateway: StartGateway, listening: socket.socket
) -> None:
    with reserved_port() as nowhere:
        process, _, log = start_gateway(f"nats://127.0.0.1:{nowhere}", listening)
        _wait_for_line(process, log, "connecting to NATS")
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=DEADLINE) == 0
    assert "Traceback" not in log.read_text()
    assert "stopping before it was connected to NATS" in log.read_text()


async def test_a_request_still_running_when_the_gateway_stops_is_answered_503_before_it_exits(
    start_gateway: StartGateway, nats_url: str
) -> None:
    """A stalled owner (as a chat turn waiting on a stopped agent-runner): the request is
    answered once the stop grace has run out, and the process exits on its own."""
    stalled = await nats.connect(nats_url)
    held = await stalled.subscribe(GetProgress.subject.pattern)  # takes it, never answers
    process, base, log = start_gateway(
        nats_url, BATON_STOP_GRACE_SECONDS="1", BATON_REQUEST_TIMEOUT_SECONDS="120"
    )
    try:
        await asyncio.to_thread(_wait_health, process, base, 200)
        auth = {"Authorization": f"Bearer {mint_token(SECRET, 'alice')}"}
        async with httpx.AsyncClient(timeout=DEADLINE) as http:
            progress = asyncio.create_task(
                http.get(f"{base}/api/workflows/w1/progress", headers=auth)
            )
            await held.next_msg(timeout=DEADLINE)  # the request is in flight
            process.send_signal(signal.SIGTERM)
            answer = await progress
        assert await asyncio.to_thread(process.wait, DEADLINE) == 0
    finally:
        await stalled.close()
    assert answer.status_code == 503, answer.text
    assert answer.json()["error"]["code"] == "unavailable"
    assert answer.json()["error"]["message"].startswith("the gateway is stopping")
    assert answer.headers["retry-after"] == "2"
    text = log.read_text()
    assert "Traceback" not in text
    # A clean stop: the cancel is a WARNING, not uvicorn's ERROR.
    assert " ERROR " not in text, text
    assert " WARNING uvicorn.error: stopping: 1 request(s) still running" in text, text
