"""`baton up` started the way a user starts it, with fake services standing in for real ones."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import socket
import stat
import subprocess
import time
from pathlib import Path

import httpx
import nats
import pytest

from baton_cli.health import health_reply_ok
from baton_contracts import HEALTH_QUERIES
from baton_messaging.embedded import EmbeddedNatsServer, nats_server_binary
from tests.held_ports import held_port

from .conftest import (
    BATON,
    EVERY_FAKE,
    START_LIMIT,
    BatonUp,
    fake_env,
    marked_processes,
)

READY = "Baton is ready: "


def ports() -> list[str]:
    """Free ports for the gateway and NATS, so no test ever touches 8080 or 4222; held until
    the test ends, so no test running beside takes one before `baton up` listens on it."""
    return ["--port", str(held_port()), "--nats-port", str(held_port())]


def baton(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BATON), *args], env=env or fake_env(), capture_output=True, text=True, timeout=60
    )


def state(data: Path) -> dict[str, object]:
    return json.loads((data / "baton-up.json").read_text())


def test_up_serves_the_gateway_with_minted_tokens_and_stops_clean_on_sigint(
    start_baton: type[BatonUp], tmp_path: Path
) -> None:
    data = tmp_path / "data"
    up = start_baton(["--data-dir", str(data), *ports()], fake_env())
    url = up.wait_for(READY).split(READY, 1)[1]
    running = state(data)
    assert running["gateway_url"] == url
    assert set(running["services"]) == {"notifier", "trigger"}  # type: ignore[arg-type]
    assert stat.S_IMODE((data / "jwt-secret").stat().st_mode) == 0o600

    token = baton("token", "--user", "alice", "--data-dir", str(data)).stdout.strip()
    ok = httpx.get(f"{url}/health", headers={"Authorization": f"Bearer {token}"})
    assert (ok.status_code, ok.json()["user_id"]) == (200, "alice")
    forged = httpx.get(f"{url}/health", headers={"Authorization": f"Bearer {token}x"})
    assert forged.status_code == 401
    assert baton("status", "--data-dir", str(data)).returncode == 0

    children = marked_processes(up.mark)
    assert {up.process.pid, running["nats_pid"], *running["services"].values()} <= set(children)  # type: ignore[union-attr]
    assert up.interrupt() == 0
    assert marked_processes(up.mark) == []
    assert not (data / "baton-up.json").exists()
    down = baton("status", "--data-dir", str(data))
    assert down.returncode != 0 and "not running" in down.stderr


def test_ctrl_c_stops_callers_first_then_the_workflow_then_the_agent_runner_then_nats(
    start_baton: type[BatonUp], tmp_path: Path
) -> None:
    # A workflow service finishing a turn asks the agent-runner; the gateway and the trigger
    # service ask the workflow service. Each must still find the services it calls running.
    data, stops = tmp_path / "data", tmp_path / "stops.log"
    up = start_baton(
        ["--data-dir", str(data), *ports()], fake_env(EVERY_FAKE, FAKE_STOP_LOG=str(stops))
    )
    up.wait_for(READY)
    assert set(state(data)["services"]) == {"notifier", "trigger", "workflow", "agent"}  # type: ignore[arg-type]
    assert up.interrupt() == 0

    lines = stops.read_text().splitlines()
    assert sorted(lines) == sorted(
        ["notifier got SIGTERM", "notifier exits", "trigger got SIGTERM", "trigger exits; NATS up",
         "workflow got SIGTERM", "workflow exits; NATS up",
         "agent got SIGTERM", "agent exits; NATS up"]
    )  # fmt: skip
    calls = [("notifier", "workflow"), ("trigger", "workflow"), ("workflow", "agent")]
    for caller, called in calls:
        exited = next(i for i, line in enumerate(lines) if line.startswith(f"{caller} exits"))
        assert exited < lines.index(f"{called} got SIGTERM"), lines
    assert marked_processes(up.mark) == []


def test_services_get_only_their_settings(start_baton: type[BatonUp], tmp_path: Path) -> None:
    data = tmp_path / "data"
    up = start_baton(["--data-dir", str(data), *ports()], fake_env())
    up.wait_for(READY)
    seen = json.loads((data / "fake-backend-env.json").read_text())
    assert seen["BATON_DATABASE_URL"] == f"sqlite+aiosqlite:///{data / 'trigger.db'}"
    assert seen["BATON_NATS_URL"] == state(data)["nats_url"]
    assert seen["BATON_DATA_DIR"] == str(data)
    assert "BATON_JWT_SECRET" not in seen and "BATON_HTTP_PORT" not in seen
    assert up.interrupt() == 0


def test_sigterm_stops_everything_too(start_baton: type[BatonUp], tmp_path: Path) -> None:
    up = start_baton(["--data-dir", str(tmp_path / "d"), *ports()], fake_env())
    up.wait_for(READY)
    up.process.send_signal(signal.SIGTERM)
    assert up.finish() == 0
    assert marked_processes(up.mark) == []


def test_a_killed_service_is_restarted_and_healthy_again(
    start_baton: type[BatonUp], tmp_path: Path
) -> None:
    data = tmp_path / "data"
    up = start_baton(["--data-dir", str(data), *ports()], fake_env())
    url = up.wait_for(READY).split(READY, 1)[1]
    first = state(data)["services"]["notifier"]  # type: ignore[index]
    os.kill(first, signal.SIGKILL)
    up.wait_for("notifier exited with code -9; restarting")
    up.wait_for("notifier is healthy again")
    assert state(data)["services"]["notifier"] != first  # type: ignore[index]
    assert httpx.get(f"{url}/health").status_code == 200
    assert up.interrupt() == 0
    assert marked_processes(up.mark) == []


def test_a_frozen_gateway_is_killed_and_restarted(
    start_baton: type[BatonUp], tmp_path: Path
) -> None:
    # A gateway frozen (or its event loop stuck) stayed "running" for good while every request
    # to it timed out: its process never exited, so nothing restarted it.
    data = tmp_path / "data"
    env = fake_env(BATON_LIVENESS_TIMEOUT_SECONDS="1")  # 30 s by default
    up = start_baton(["--data-dir", str(data), *ports()], env)
    url = up.wait_for(READY).split(READY, 1)[1]
    frozen = state(data)["services"]["notifier"]  # type: ignore[index]
    os.killpg(frozen, signal.SIGSTOP)
    killed = up.wait_for("notifier did not answer its health check for ")
    assert killed.endswith("; killing it (SIGKILL) to restart it")
    up.wait_for(
        "notifier was killed by the liveness watch, as it stopped answering (exited with code -9);"
        " restarting"
    )
    up.wait_for("notifier is healthy again")
    assert state(data)["services"]["notifier"] != frozen  # type: ignore[index]
    assert httpx.get(f"{url}/health").status_code == 200
    assert f"--- baton up: {killed} ---" in (data / "logs" / "notifier.log").read_text()
    assert up.interrupt() == 0
    assert marked_processes(up.mark) == []


def test_a_frozen_nats_is_killed_and_restarted(start_baton: type[BatonUp], tmp_path: Path) -> None:
    # A nats-server frozen (or deadlocked) never exited, so nothing restarted it: every service
    # and the gateway answered 503 for good, and the liveness watch rightly spared them.
    data = tmp_path / "data"
    env = fake_env(BATON_LIVENESS_TIMEOUT_SECONDS="1")  # 30 s by default
    up = start_baton(["--data-dir", str(data), *ports()], env)
    url = up.wait_for(READY).split(READY, 1)[1]
    frozen = state(data)["nats_pid"]
    assert isinstance(frozen, int)
    os.kill(frozen, signal.SIGSTOP)
    killed = up.wait_for("nats did not answer its health check for ")
    assert killed.endswith("; killing it (SIGKILL) to restart it")
    up.wait_for(
        "nats was killed by the liveness watch, as it stopped answering (exited with code -9);"
        " restarting"
    )
    up.wait_for("nats is healthy again")
    assert state(data)["nats_pid"] != frozen
    deadline = time.monotonic() + 30  # the gateway reconnects within a second or so
    while httpx.get(f"{url}/health").status_code != 200:
        assert time.monotonic() < deadline, "the gateway did not reconnect to the new NATS"
        time.sleep(0.2)
    assert up.interrupt() == 0
    assert marked_processes(up.mark) == []


def test_a_service_that_keeps_crashing_is_given_up(
    start_baton: type[BatonUp], tmp_path: Path
) -> None:
    data, crash = tmp_path / "data", tmp_path / "crash"
    up = start_baton(["--data-dir", str(data), *ports()], fake_env(FAKE_CRASH_FILE=str(crash)))
    up.wait_for(READY)
    crash.touch()  # from now on every restart of the fake gateway exits at once
    os.kill(state(data)["services"]["notifier"], signal.SIGKILL)  # type: ignore[index]
    assert up.finish() != 0
    assert "notifier exited with code 7; it crashed 5 times in a row, giving up" in up.output()
    assert marked_processes(up.mark) == []


def test_a_service_that_fails_to_start_stops_everything(
    start_baton: type[BatonUp], tmp_path: Path
) -> None:
    data = tmp_path / "data"
    up = start_baton(["--data-dir", str(data), *ports()], fake_env(FAKE_EXIT_CODE="3"))
    assert up.finish() != 0
    log = data / "logs" / "notifier.log"
    assert f"error: notifier failed to start (exited with code 3); see {log}" in up.output()
    assert "told to fail at start" in log.read_text()
    assert marked_processes(up.mark) == []


def test_a_second_baton_up_on_the_same_data_dir_is_refused(
    start_baton: type[BatonUp], tmp_path: Path
) -> None:
    data = tmp_path / "data"
    first = start_baton(["--data-dir", str(data), *ports()], fake_env())
    first.wait_for(READY)
    running = state(data)
    second = start_baton(["--data-dir", str(data), *ports()], fake_env())
    assert second.finish() != 0
    assert second.output() == (
        f"error: {data} is in use by baton up (pid {first.process.pid});"
        " stop it first or use --data-dir"
    )
    assert marked_processes(second.mark) == []
    assert state(data) == running  # the running one's state is left alone, and its processes
    left_alone = {first.process.pid, running["nats_pid"], *running["services"].values()}  # type: ignore[union-attr]
    assert left_alone <= set(marked_processes(first.mark))
    assert first.interrupt() == 0


def test_what_a_killed_baton_up_left_running_is_stopped_by_the_next_one(
    start_baton: type[BatonUp], tmp_path: Path
) -> None:
    data = tmp_path / "data"
    args = ["--data-dir", str(data), *ports()]  # the second asks for the same ports
    first = start_baton(args, fake_env())
    first.wait_for(READY)
    left = state(data)
    pids = [*left["services"].values(), left["nats_pid"]]  # type: ignore[union-attr]
    first.process.kill()  # SIGKILL: no cleanup at all, as when its terminal's shell is killed
    first.process.wait()
    # The fakes ignore their lifeline, and NATS serves its clients on for their grace (15 s).
    assert set(pids) <= set(marked_processes(first.mark))

    second = start_baton(args, fake_env())
    url = second.wait_for(READY).split(READY, 1)[1]
    listed = ", ".join(map(str, pids))
    assert second.lines[0] == (
        f"stopped 3 processes left running by an earlier baton up (pids {listed})"
    )
    assert marked_processes(first.mark) == []
    assert httpx.get(f"{url}/health").status_code == 200
    assert state(data)["pid"] == second.process.pid
    assert second.interrupt() == 0
    assert marked_processes(second.mark) == []


def test_the_services_and_nats_of_a_killed_baton_up_stop_themselves(
    start_baton: type[BatonUp], tmp_path: Path
) -> None:
    env = {k: v for k, v in os.environ.items() if k != "BATON_JWT_SECRET"}
    env["BATON_STOP_GRACE_SECONDS"] = "1"  # NATS's grace after a killed `baton up`: 1 + 5 s
    data = tmp_path / "data"
    args = ["--data-dir", str(data), *ports()]
    first = start_baton(args, env)
    first.wait_for(READY)
    left = state(data)
    services = set(left["services"].values())  # type: ignore[union-attr]
    first.process.kill()  # no cleanup at all: only the kernel closes its end of the lifeline
    first.process.wait()
    # Each real service sees its lifeline end and stops as on SIGTERM, instead of serving on
    # with every log line going into a pipe nobody reads; NATS, told by the kernel that its
    # parent is gone, serves them for the grace, then exits.
    deadline = time.monotonic() + START_LIMIT
    while services & set(marked_processes(first.mark)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert set(marked_processes(first.mark)) <= {left["nats_pid"]}
    deadline = time.monotonic() + START_LIMIT + 6
    while marked_processes(first.mark) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert marked_processes(first.mark) == []

    second = start_baton(args, env)
    second.wait_for(READY)
    assert not any("left running" in line for line in second.lines)  # nothing was
    assert second.interrupt() == 0
    assert marked_processes(second.mark) == []


def test_a_closed_terminal_stops_everything(start_baton: type[BatonUp], tmp_path: Path) -> None:
    previous = signal.signal(signal.SIGHUP, signal.SIG_DFL)  # even if pytest runs under nohup
    try:
        up = start_baton(["--data-dir", str(tmp_path / "d"), *ports()], fake_env())
    finally:
        signal.signal(signal.SIGHUP, previous)
    up.wait_for(READY)
    up.process.send_signal(signal.SIGHUP)
    assert up.finish() == 0
    assert marked_processes(up.mark) == []


def test_a_killed_nats_is_restarted_and_the_services_reconnect(
    start_baton: type[BatonUp], tmp_path: Path
) -> None:
    data = tmp_path / "data"
    up = start_baton(["--data-dir", str(data), *ports()], fake_env())
    url = up.wait_for(READY).split(READY, 1)[1]
    before = state(data)
    os.kill(before["nats_pid"], signal.SIGKILL)  # type: ignore[arg-type]
    up.wait_for("nats exited with code -9; restarting")
    up.wait_for("nats is healthy again")
    after = state(data)
    assert after["nats_pid"] != before["nats_pid"]
    assert after["nats_url"] == before["nats_url"]  # same port: the services find it again
    assert asyncio.run(trigger_answers(str(after["nats_url"])))
    assert httpx.get(f"{url}/health").status_code == 200
    assert up.interrupt() == 0
    assert marked_processes(up.mark) == []


async def trigger_answers(url: str) -> bool:
    """True once the fake trigger answers its health query on `url` (it reconnects on its own)."""
    query = HEALTH_QUERIES["trigger"]()  # type: ignore[call-arg]
    client = await nats.connect(url)
    try:
        for _ in range(100):  # a bound so a broken run fails, at about 1 s a try
            with contextlib.suppress(nats.errors.Error):
                reply = await client.request(query.wire_subject(), query.to_bytes(), timeout=1)
                return health_reply_ok(reply.data)
            await asyncio.sleep(0.1)
        return False
    finally:
        await client.close()


def test_a_taken_port_is_an_error(start_baton: type[BatonUp], tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        up = start_baton(
            [
                "--data-dir",
                str(tmp_path / "d"),
                "--port",
                str(port),
                "--nats-port",
                str(held_port()),
            ],
            fake_env(),
        )
        assert up.finish() != 0
    assert f"error: --port: port {port} on 127.0.0.1 is taken" in up.output()
    assert marked_processes(up.mark) == []


def test_an_unwritable_data_dir_is_an_error(start_baton: type[BatonUp], tmp_path: Path) -> None:
    (tmp_path / "afile").write_text("a file, so nothing can be created under it")
    data = tmp_path / "afile" / "data"
    up = start_baton(["--data-dir", str(data), *ports()], fake_env())
    assert up.finish() != 0
    lines = up.output().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: data dir {data} ")
    assert marked_processes(up.mark) == []


def test_an_external_nats_means_no_nats_of_our_own(
    start_baton: type[BatonUp], tmp_path: Path, nats_server: EmbeddedNatsServer
) -> None:
    data = tmp_path / "data"
    args = ["--data-dir", str(data), "--nats-url", nats_server.url, "--port", str(held_port())]
    up = start_baton(args, fake_env())
    up.wait_for(READY)
    running = state(data)
    assert (running["nats_url"], running["nats_pid"]) == (nats_server.url, None)
    assert not (data / "nats").exists()
    commands = [Path(f"/proc/{pid}/cmdline").read_bytes() for pid in marked_processes(up.mark)]
    assert not any(b"nats-server" in command for command in commands)
    assert up.interrupt() == 0
    assert nats_server.pid is not None and os.path.exists(f"/proc/{nats_server.pid}")


@pytest.mark.skipif(
    not (Path(__file__).parents[2] / "services/notifier/src/baton_notifier/__main__.py").exists(),
    reason="the notifier has no __main__ yet",
)
def test_up_with_the_real_services(start_baton: type[BatonUp], tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "BATON_JWT_SECRET"}
    data = tmp_path / "data"
    up = start_baton(["--data-dir", str(data), *ports()], env)
    url = up.wait_for(READY).split(READY, 1)[1]
    token = baton("token", "--user", "alice", "--data-dir", str(data), env=env).stdout.strip()
    health = httpx.get(f"{url}/health", headers={"Authorization": f"Bearer {token}"})
    assert health.status_code == 200
    assert up.interrupt() == 0
    assert marked_processes(up.mark) == []


def test_a_nats_password_is_shown_nowhere(start_baton: type[BatonUp], tmp_path: Path) -> None:
    port = held_port()
    server = subprocess.Popen(
        [str(nats_server_binary()), "-js", "-a", "127.0.0.1", "-p", str(port),
         "-sd", str(tmp_path / "js"), "--user", "admin", "--pass", "S3cretPw"],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        data = tmp_path / "data"
        url = f"nats://admin:S3cretPw@127.0.0.1:{port}"
        args = ["--data-dir", str(data), "--nats-url", url, "--port", str(held_port())]
        up = start_baton(args, fake_env())
        up.wait_for(READY)
        written = (data / "baton-up.json").read_text()
        mode = stat.S_IMODE((data / "baton-up.json").stat().st_mode)
        status = baton("status", "--data-dir", str(data))
        assert up.interrupt() == 0
    finally:
        server.terminate()
        server.wait(10)

    assert f"NATS: nats://***@127.0.0.1:{port}" in up.output()
    assert f"NATS: nats://***@127.0.0.1:{port}" in status.stdout
    assert "S3cretPw" not in up.output() + written + status.stdout + status.stderr
    assert mode == 0o600
    assert stat.S_IMODE(data.stat().st_mode) == 0o700  # the databases and logs: this user's
