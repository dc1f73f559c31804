"""The restart rule `baton up` applies to every service and to its embedded NATS server."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from baton_cli.liveness import Liveness
from baton_cli.restarts import Ending, RestartPolicy, ServiceFailed, keep_alive
from baton_cli.services import SERVICES, NatsHealth, Runtime, ServiceSpec
from baton_cli.supervised_nats import SupervisedNats, child_exit
from baton_cli.supervisor import Supervisor, stop_in_stages, stop_stages
from baton_messaging.embedded import NatsServerError

NOW = RestartPolicy(first_delay=0.0, max_delay=0.0, stable_after=30.0, max_crashes=3)
LOG = Path("/data/logs/nats.log")
RUNTIME = Runtime(
    data_dir=Path("/data"), nats_url="nats://127.0.0.1:4333", jwt_secret="s" * 40,
    http_host="127.0.0.1", http_port=8181,
)  # fmt: skip


class Lines(list[str]):
    """What was echoed; `seen` waits for a line (the bound only stops a broken test hanging)."""

    def __init__(self) -> None:
        super().__init__()
        self._added = asyncio.Event()

    def append(self, line: str) -> None:
        super().append(line)
        self._added.set()

    async def seen(self, line: str) -> None:
        async def wait() -> None:
            while line not in self:
                self._added.clear()
                await self._added.wait()

        await asyncio.wait_for(wait(), timeout=10)


class FakeChild:
    """Ends once per entry of `runs` (seconds it ran); each restart answers from `restarts`."""

    name = "svc"
    log = Path("/data/logs/svc.log")

    def __init__(self, runs: list[float], restarts: list[bool]) -> None:
        self.runs = runs
        self.restarts = restarts
        self.current = 0.0

    async def ended(self) -> Ending:
        if not self.runs:
            await asyncio.Event().wait()  # runs on for good
        self.current = self.runs.pop(0)
        return Ending("exited with code 1")

    def uptime(self) -> float:
        return self.current

    async def restart(self) -> bool:
        return self.restarts.pop(0)


async def test_a_crash_is_restarted_and_said_so() -> None:
    lines = Lines()
    child = FakeChild(runs=[1.0], restarts=[True])
    keeping = asyncio.create_task(keep_alive(child, NOW, lines.append))
    await lines.seen("svc is healthy again")
    assert lines == ["svc exited with code 1; restarting", "svc is healthy again"]
    keeping.cancel()


async def test_fast_crashes_in_a_row_are_given_up_and_a_stable_run_resets_the_count() -> None:
    lines = Lines()
    # Two fast crashes, one after a long run (the count starts over), then three fast ones.
    child = FakeChild(runs=[1.0, 1.0, 60.0, 1.0, 1.0], restarts=[False, True, True, True])
    with pytest.raises(ServiceFailed) as failed:
        await keep_alive(child, NOW, lines.append)
    assert str(failed.value) == (
        "svc exited with code 1; it crashed 3 times in a row, giving up; see /data/logs/svc.log"
    )
    assert lines.count("svc exited with code 1; restarting") == 4
    assert lines.count("svc is healthy again") == 3  # not after the restart that failed


async def test_restarts_that_hang_past_stable_after_still_count_as_crashes() -> None:
    lines = Lines()
    # Each restart hangs until it is killed, 60 s later: longer than `stable_after` (30 s),
    # but a run that never became healthy is no stable run.
    child = FakeChild(runs=[1.0, 60.0, 60.0], restarts=[False, False])
    with pytest.raises(ServiceFailed) as failed:
        await keep_alive(child, NOW, lines.append)
    assert "it crashed 3 times in a row, giving up" in str(failed.value)
    assert "svc is healthy again" not in lines


class FakeNatsServer:
    """Stands in for `EmbeddedNatsServer`: a new pid each start, which ends when told to."""

    def __init__(self, starts_that_fail: int = 0) -> None:
        self.pid: int | None = 100
        self.calls: list[str] = []
        self.starts_that_fail = starts_that_fail
        self.ends: dict[int, asyncio.Future[str]] = {}
        self.launched_on: threading.Thread | None = None
        self.store_dir = Path("/data/nats")
        self.write_errors: dict[int, str] = {}  # by pid: what its health check says
        self.frozen: set[int] = set()  # pids that answer no PING
        self.pinged = 0

    def answers(self, timeout: float) -> bool:
        assert self.pid is not None
        self.pinged += 1
        return self.pid not in self.frozen

    def store_write_error(self) -> str | None:
        assert self.pid is not None
        return self.write_errors.get(self.pid)

    def launch(self) -> None:
        self.calls.append("launch")
        self.launched_on = threading.current_thread()
        assert self.pid is not None
        self.pid += 1

    def wait_ready(self, timeout: float = 15.0) -> None:
        self.calls.append("wait_ready")
        if self.starts_that_fail:
            self.starts_that_fail -= 1
            raise NatsServerError(f"nats-server exited with code 1; see {LOG}")

    def stop(self, timeout: float = 10.0) -> None:
        self.calls.append("stop")

    async def child_exit(self, pid: int) -> str:
        return await self.ends.setdefault(pid, asyncio.get_running_loop().create_future())

    def kill(self) -> None:
        assert self.pid is not None
        self.ends.setdefault(self.pid, asyncio.get_running_loop().create_future())
        self.ends[self.pid].set_result("exited with code -9")


async def test_a_dead_nats_is_started_again_and_the_state_file_told() -> None:
    server, lines, changes = FakeNatsServer(), Lines(), []
    nats = SupervisedNats(server, LOG, lambda: changes.append(server.pid), server.child_exit)
    supervisor = Supervisor([], RUNTIME, NOW, lines.append, nats=nats)
    stop = asyncio.Event()
    watching = asyncio.create_task(supervisor.watch(stop))
    server.kill()
    await lines.seen("nats is healthy again")
    assert lines == ["nats exited with code -9; restarting", "nats is healthy again"]
    assert server.calls == ["stop", "launch", "wait_ready"]  # the same port and store dir
    # On the loop's thread, not a worker's: nats-server is told when its starting thread ends.
    assert server.launched_on is threading.main_thread()
    assert changes == [101]  # baton-up.json names the new pid
    stop.set()
    await watching
    await supervisor.stop_all()


async def test_a_nats_that_will_not_start_again_is_given_up() -> None:
    server, lines = FakeNatsServer(starts_that_fail=5), Lines()
    nats = SupervisedNats(server, LOG, child_exit=server.child_exit)
    supervisor = Supervisor([], RUNTIME, NOW, lines.append, nats=nats)
    watching = asyncio.create_task(supervisor.watch(asyncio.Event()))
    server.kill()
    with pytest.raises(ServiceFailed) as failed:
        await asyncio.wait_for(watching, timeout=10)  # a bound so a broken run fails
    assert str(failed.value) == (
        f"nats did not start again; it crashed 3 times in a row, giving up; see {LOG}"
    )
    assert lines == ["nats exited with code -9; restarting", "nats did not start again; restarting"]
    await supervisor.stop_all()


async def test_a_frozen_nats_is_killed_and_started_again() -> None:
    # A stopped or deadlocked nats-server never exits: every service answered 503 for good,
    # and the liveness watch spares them while NATS is silent.
    server, lines = FakeNatsServer(), Lines()
    liveness = Liveness(timeout=0.05, probe_timeout=0.01)
    nats = SupervisedNats(
        server, LOG, child_exit=server.child_exit, echo=lines.append, liveness=liveness,
        kill=lambda pid: server.kill(),
    )  # fmt: skip
    supervisor = Supervisor([], RUNTIME, NOW, lines.append, nats=nats)
    watching = asyncio.create_task(supervisor.watch(asyncio.Event()))
    # It answers: left alone. (Pinged from a worker thread: no event to wait on.)
    while server.pinged < 10:  # noqa: ASYNC110
        await asyncio.sleep(0.01)
    assert lines == [] and server.calls == []
    server.frozen.add(100)
    await lines.seen("nats is healthy again")
    assert lines[0].startswith("nats did not answer its health check for ")
    assert lines[0].endswith(" checks in a row); killing it (SIGKILL) to restart it")
    assert lines[1:] == [
        "nats was killed by the liveness watch, as it stopped answering (exited with code -9);"
        " restarting",
        "nats is healthy again",
    ]
    assert server.calls == ["stop", "launch", "wait_ready"]  # the same port and store dir
    assert server.pid == 101
    watching.cancel()
    await asyncio.gather(watching, return_exceptions=True)
    await supervisor.stop_all()


FULL = (
    "JetStream stream '$G > WORKFLOW_EVT' write error: write /data/nats/jetstream/$G/streams/"
    "WORKFLOW_EVT/msgs/1.blk: no space left on device"
)


async def test_a_nats_whose_store_could_not_be_written_is_restarted_once_the_disk_has_room() -> (
    None
):
    # nats-server keeps a stream's write error after the disk has room again: the stream took
    # no event until `baton up` was restarted by hand.
    server, lines, changes = FakeNatsServer(), Lines(), []
    free, looked = [0], asyncio.Event()

    def free_bytes() -> int:
        looked.set()
        return free[0]

    nats = SupervisedNats(
        server, LOG, lambda: changes.append(server.pid), server.child_exit, echo=lines.append,
        check_every=0, free_bytes=free_bytes,
    )  # fmt: skip
    supervisor = Supervisor([], RUNTIME, NOW, lines.append, nats=nats)
    stop = asyncio.Event()
    watching = asyncio.create_task(supervisor.watch(stop))
    server.write_errors[100] = FULL
    await lines.seen(f"nats: {FULL}; restarting it once the disk has room again")
    looked.clear()
    await looked.wait()  # still full: not restarted, and said once
    assert server.calls == [] and server.pid == 100
    free[0] = 50 * 1024 * 1024
    await lines.seen("nats restarted: JetStream writes its store again")
    assert server.calls == ["stop", "launch", "wait_ready"]  # the same port and store dir
    assert changes == [101]  # baton-up.json names the new pid
    assert lines == [
        f"nats: {FULL}; restarting it once the disk has room again",
        "nats restarted: JetStream writes its store again",
    ]  # no crash said, none counted
    server.kill()  # the new server is still watched for its exit
    await lines.seen("nats is healthy again")
    stop.set()
    await watching
    await supervisor.stop_all()


@pytest.mark.parametrize("pidfd", [True, False], ids=["pidfd", "polling"])
async def test_child_exit_says_how_a_real_child_ended(
    monkeypatch: pytest.MonkeyPatch, pidfd: bool
) -> None:
    # Without os.pidfd_open (macOS has none) the exit is seen by looking twice a second.
    if not pidfd:
        monkeypatch.delattr(os, "pidfd_open", raising=False)
    script = "import time; time.sleep(0.3); exit(3)"
    child = subprocess.Popen([sys.executable, "-c", script])  # noqa: ASYNC220
    try:
        assert await asyncio.wait_for(child_exit(child.pid), 10) == "exited with code 3"
        assert child.wait(5) == 3  # left for its Popen to collect
    finally:
        child.kill()
        child.wait()


class FakeProcess:
    """A service process as `stop_in_stages` sees it: writes what it is sent to `journal`; it
    ends on SIGTERM, or, `stubborn`, only on SIGKILL."""

    def __init__(self, name: str, journal: list[str], stubborn: bool = False) -> None:
        self.name = name
        self.journal = journal
        self.stubborn = stubborn
        self.returncode: int | None = None
        self._ended = asyncio.Event()

    def signal(self, sig: signal.Signals) -> None:
        self.journal.append(f"{self.name} {sig.name}")
        if self.returncode is None and (sig is signal.SIGKILL or not self.stubborn):
            self.returncode = -sig
            self._ended.set()

    async def wait(self) -> int:
        await self._ended.wait()
        self.journal.append(f"{self.name} ended")
        assert self.returncode is not None
        return self.returncode


def test_callers_stop_before_the_services_they_call() -> None:
    # The gateway and the trigger service send the workflow service requests; the workflow
    # service asks the agent-runner (a turn's agent, its checkers): each stops only once every
    # service that may still ask it has ended.
    stages = [[spec.name for spec in stage] for stage in stop_stages(SERVICES)]
    assert stages == [["notifier", "trigger"], ["workflow"], ["agent", "space"]]


async def test_each_stage_ends_before_the_next_is_told_to_stop() -> None:
    journal: list[str] = []
    gateway, trigger = FakeProcess("notifier", journal), FakeProcess("trigger", journal)
    workflow, agent = FakeProcess("workflow", journal), FakeProcess("agent", journal)

    await stop_in_stages([[gateway, trigger], [workflow], [agent]], grace=10.0)

    assert journal.index("notifier ended") < journal.index("workflow SIGTERM")
    assert journal.index("trigger ended") < journal.index("workflow SIGTERM")
    assert journal.index("workflow ended") < journal.index("agent SIGTERM")
    assert [line for line in journal if "SIGTERM" in line] == [
        "notifier SIGTERM", "trigger SIGTERM", "workflow SIGTERM", "agent SIGTERM",
    ]  # fmt: skip
    assert "SIGKILL" not in " ".join(journal)


async def test_a_stage_that_lingers_is_killed_after_its_grace_and_the_next_one_still_stops() -> (
    None
):
    journal: list[str] = []
    workflow = FakeProcess("workflow", journal, stubborn=True)
    agent = FakeProcess("agent", journal)

    await asyncio.wait_for(stop_in_stages([[workflow], [agent]], grace=0.05), timeout=10)

    assert journal == [
        "workflow SIGTERM", "workflow SIGKILL", "workflow ended", "agent SIGTERM", "agent ended",
    ]  # fmt: skip
    assert (workflow.returncode, agent.returncode) == (-signal.SIGKILL, -signal.SIGTERM)


class LogSaysReady:
    """Stands in for `HealthProber`: a service is healthy once its log says `ready`, so a test
    needs neither NATS nor HTTP, and knows its line has been copied."""

    def __init__(self, runtime: Runtime) -> None:
        self._logs = runtime.data_dir / "logs"

    async def healthy(self, spec: ServiceSpec) -> bool:
        return b"ready" in (self._logs / f"{spec.name}.log").read_bytes()

    async def close(self) -> None:
        pass


@pytest.fixture
def service(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[ServiceSpec, Runtime]:
    """A service row running `svc_main.py`, which the test writes into `tmp_path`."""
    monkeypatch.setattr("baton_cli.supervisor.HealthProber", LogSaysReady)
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    (tmp_path / "data" / "logs").mkdir(parents=True)
    runtime = Runtime(
        data_dir=tmp_path / "data", nats_url="nats://127.0.0.1:4333", jwt_secret="s" * 40,
        http_host="127.0.0.1", http_port=8181,
    )  # fmt: skip
    return ServiceSpec("svc", "svc_main", NatsHealth("workflow"), frozenset()), runtime


async def test_a_service_that_dies_at_start_has_its_traceback_in_the_log_it_is_pointed_to(
    tmp_path: Path, service: tuple[ServiceSpec, Runtime]
) -> None:
    spec, runtime = service
    (tmp_path / "svc_main.py").write_text(
        "import sys\n"
        "for n in range(2000):\n"
        "    print(f'importing {n}', file=sys.stderr)\n"
        "raise RuntimeError('the last words')\n"
    )
    supervisor = Supervisor([spec], runtime, NOW, Lines().append)
    log = runtime.data_dir / "logs" / "svc.log"
    with pytest.raises(ServiceFailed) as failed:
        await supervisor.start_all()
    lines = log.read_text().splitlines()  # as the message is printed, before anything else runs
    assert str(failed.value) == f"svc failed to start (exited with code 1); see {log}"
    assert lines[0] == "--- baton up: starting svc (svc_main) ---"
    assert lines[1:2001] == [f"importing {n}" for n in range(2000)]
    assert lines[-1] == "RuntimeError: the last words"
    await supervisor.stop_all()


async def test_each_restart_writes_after_the_last_lines_of_the_process_before_it(
    tmp_path: Path, service: tuple[ServiceSpec, Runtime]
) -> None:
    spec, runtime = service
    # The first run stays up until killed; every restart says `ran` and exits at once.
    (tmp_path / "svc_main.py").write_text(
        "import pathlib, sys, time\n"
        f"first = pathlib.Path({str(tmp_path / 'started')!r})\n"
        "if not first.exists():\n"
        "    first.touch()\n"
        "    print('first run: ready', flush=True)\n"
        "    time.sleep(600)\n"
        "print('ran')\n"
        "sys.exit(1)\n"
    )
    lines = Lines()
    supervisor = Supervisor([spec], runtime, NOW, lines.append)
    await supervisor.start_all()
    os.killpg(supervisor.pids()["svc"], signal.SIGKILL)
    with pytest.raises(ServiceFailed) as failed:
        await asyncio.wait_for(supervisor.watch(asyncio.Event()), timeout=30)  # a bound
    await supervisor.stop_all()

    log = runtime.data_dir / "logs" / "svc.log"
    assert str(failed.value).endswith(f"it crashed 3 times in a row, giving up; see {log}")
    marker = "--- baton up: starting svc (svc_main) ---"
    assert log.read_text().splitlines() == [
        marker,
        "first run: ready",
        marker,
        "ran",
        marker,
        "ran",
    ]


async def test_a_service_slow_to_become_healthy_is_said_to_wait_with_its_last_log_line(
    tmp_path: Path, service: tuple[ServiceSpec, Runtime], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A service waiting for its database said so only in its own log: `baton up` printed
    # nothing until its start timeout (60 s) ran out (found by an outage audit).
    spec, runtime = service
    monkeypatch.setattr("baton_cli.supervisor.SAY_WAITING_SECONDS", 1.0)
    (tmp_path / "svc_main.py").write_text(
        "import time\n"
        "print('the database at postgresql://db/x is not up yet; waiting', flush=True)\n"
        "time.sleep(600)\n"
    )
    lines = Lines()
    policy = RestartPolicy(first_delay=0.0, max_delay=0.0, start_timeout=2.5)
    supervisor = Supervisor([spec], runtime, policy, lines.append)
    log = runtime.data_dir / "logs" / "svc.log"
    with pytest.raises(ServiceFailed):
        await supervisor.start_all()
    await supervisor.stop_all()
    assert lines == [
        "svc is not healthy yet after 1 s; its log says: the database at postgresql://db/x is"
        f" not up yet; waiting (see {log})"
    ]
