"""`python -m baton_notifier` as `baton up` starts it: env vars in, HTTP out, SIGTERM stops."""

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from baton_auth import mint_token
from baton_messaging.embedded import free_port

SECRET = "process-test-secret-of-32-bytes-ok"
DEADLINE = 30.0


def _env(**values: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("BATON_")}
    return {**env, **values}


Gateway = tuple[subprocess.Popen[bytes], str, Path]


@pytest.fixture
def start_gateway(tmp_path: Path) -> Iterator[Callable[[str], Gateway]]:
    started: list[subprocess.Popen[bytes]] = []

    def start(nats_url: str) -> Gateway:
        port = free_port()
        env = _env(
            BATON_NATS_URL=nats_url,
            BATON_JWT_SECRET=SECRET,
            BATON_HTTP_PORT=str(port),
            BATON_LOG_LEVEL="info",
        )
        log_path = tmp_path / f"notifier-{port}.log"
        with log_path.open("wb") as log:
            process = subprocess.Popen(
                [sys.executable, "-m", "baton_notifier"], env=env, stdout=log, stderr=log
            )
        started.append(process)
        return process, f"http://127.0.0.1:{port}", log_path

    yield start
    for process in started:
        if process.poll() is None:
            process.kill()
            process.wait()


def _wait_health(process: subprocess.Popen[bytes], base: str, status: int) -> httpx.Response:
    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        assert process.poll() is None, "the notifier exited before /health answered"
        try:
            response = httpx.get(f"{base}/health", timeout=1)
            if response.status_code == status:
                return response
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    raise AssertionError(f"{base}/health did not answer {status} within {DEADLINE}s")


def test_the_gateway_process_serves_and_stops_cleanly_on_sigterm(
    start_gateway: Callable[[str], Gateway], nats_url: str
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
    start_gateway: Callable[[str], Gateway],
) -> None:
    process, base, log = start_gateway(f"nats://127.0.0.1:{free_port()}")
    assert _wait_health(process, base, 503).json()["checks"] == {"nats": False}
    process.send_signal(signal.SIGINT)
    assert process.wait(timeout=DEADLINE) == 0
    assert "Traceback" not in log.read_text()


def test_the_gateway_process_refuses_to_start_without_a_secret() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "baton_notifier"],
        env=_env(BATON_HTTP_PORT=str(free_port())),
        capture_output=True,
        text=True,
        timeout=DEADLINE,
    )
    assert result.returncode == 2
    [line] = result.stderr.strip().splitlines()
    assert "BATON_JWT_SECRET is required" in line
