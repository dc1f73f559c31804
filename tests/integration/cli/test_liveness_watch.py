"""`baton up`'s liveness watch on real processes and a real NATS: a service frozen with SIGSTOP
is killed and restarted; one that answers unhealthy, or that NATS cannot reach, is left alone."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TypeVar

import pytest

from baton_cli.health import PROBE_TIMEOUT, Answer, HealthProber
from baton_cli.liveness import MISSES, Liveness
from baton_cli.restarts import RestartPolicy, ServiceFailed
from baton_cli.services import NatsHealth, Runtime, ServiceSpec, Setting
from baton_cli.supervised_nats import SupervisedNats
from baton_cli.supervisor import Supervisor
from baton_messaging.embedded import EmbeddedNatsServer

NOW = RestartPolicy(first_delay=0.0, max_delay=0.0, stable_after=30.0, max_crashes=3)
# The test's: the default is 30 s, each probe waiting up to 5 s for its answer.
SHORT = Liveness(timeout=1.0, probe_timeout=1.0)
BOUND = 60.0  # only stops a broken test hanging
T = TypeVar("T")

SERVICE = """\
import asyncio, os, pathlib, signal
import nats
from baton_contracts import HEALTH_QUERIES, HealthStatus, ReplyOk

SICK = pathlib.Path(os.environ["FAKE_SICK_FILE"])
SLOW = pathlib.Path(os.environ["FAKE_SICK_FILE"] + ".slow")
HANG = pathlib.Path(os.environ["FAKE_SICK_FILE"] + ".hang")


async def main():
    client = await nats.connect(os.environ["BATON_NATS_URL"])

    async def health(msg):
        if SLOW.exists():  # as its database check, bounded to 1 s, when the database hangs
            await asyncio.sleep(1.5)
        up = not SICK.exists()  # as a service whose database is down says
        status = HealthStatus(service="trigger", healthy=up, checks={"database": up})
        await msg.respond(ReplyOk(result=status.model_dump()).model_dump_json().encode())
        if HANG.exists():  # frozen right after it answered once: each run hangs again
            await client.flush()
            os.kill(os.getpid(), signal.SIGSTOP)

    await client.subscribe(HEALTH_QUERIES["trigger"].subject.base, cb=health)
    print("answering", flush=True)
    await asyncio.Event().wait()


asyncio.run(main())
"""


class Recorded(list[T]):
    """A list that can be waited on (the bound only stops a broken test hanging)."""

    def __init__(self) -> None:
        super().__init__()
        self._added = asyncio.Event()

    def append(self, item: T) -> None:
        super().append(item)
        self._added.set()

    async def until(self, condition: Callable[[], bool]) -> None:
        async with asyncio.timeout(BOUND):
            while not condition():
                self._added.clear()
                await self._added.wait()


@pytest.fixture
def answers(monkeypatch: pytest.MonkeyPatch) -> Recorded[Answer]:
    """Every answer the supervisor's (real) prober got, in order."""
    seen: Recorded[Answer] = Recorded()

    class RecordingProber(HealthProber):
        async def answer(self, spec: ServiceSpec, timeout: float = PROBE_TIMEOUT) -> Answer:
            found = await super().answer(spec, timeout)
            seen.append(found)
            return found

    monkeypatch.setattr("baton_cli.supervisor.HealthProber", RecordingProber)
    return seen


@pytest.fixture
def sick(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The file whose presence makes the service say it is unhealthy."""
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    monkeypatch.setenv("FAKE_SICK_FILE", str(tmp_path / "sick"))
    (tmp_path / "svc_main.py").write_text(SERVICE)
    (tmp_path / "data" / "logs").mkdir(parents=True)
    return tmp_path / "sick"


def runtime(tmp_path: Path, nats_url: str) -> Runtime:
    return Runtime(
        data_dir=tmp_path / "data", nats_url=nats_url, jwt_secret="s" * 40,
        http_host="127.0.0.1", http_port=8181,
    )  # fmt: skip


SPEC = ServiceSpec("svc", "svc_main", NatsHealth("trigger"), frozenset({Setting.NATS}))


def enough_probes(
    answers: list[Answer], mark: int, liveness: Liveness = SHORT
) -> Callable[[], bool]:
    """True once there were twice `MISSES` probes since `mark`, over more than the timeout
    (each probe is at least `liveness.interval` after the one before): a kill would have come."""
    wanted = MISSES * 2
    assert wanted * liveness.interval > liveness.timeout
    return lambda: len(answers) - mark >= wanted


@asynccontextmanager
async def watched(
    tmp_path: Path, nats_url: str, lines: Recorded[str], liveness: Liveness = SHORT
) -> AsyncIterator[Supervisor]:
    """The fake service started under `baton up`'s supervisor, watched (`NOW` restarts) until
    the block ends, then stopped."""
    supervisor = Supervisor(
        [SPEC], runtime(tmp_path, nats_url), NOW, lines.append, liveness=liveness
    )
    await supervisor.start_all()
    stop = asyncio.Event()
    watching = asyncio.create_task(supervisor.watch(stop))
    try:
        yield supervisor
    finally:
        stop.set()
        await watching
        await supervisor.stop_all()


async def test_a_frozen_service_is_killed_and_restarted(
    tmp_path: Path, sick: Path, answers: Recorded[Answer], nats_url: str
) -> None:
    lines: Recorded[str] = Recorded()
    async with watched(tmp_path, nats_url, lines) as supervisor:
        frozen = supervisor.pids()["svc"]
        os.killpg(frozen, signal.SIGSTOP)  # alive, connected to NATS, answering nothing
        await lines.until(lambda: "svc is healthy again" in lines)

    killed, *rest = lines
    assert killed.startswith("svc did not answer its health check for ")
    assert killed.endswith(" checks in a row); killing it (SIGKILL) to restart it")
    assert rest == [
        "svc was killed by the liveness watch, as it stopped answering (exited with code -9);"
        " restarting",
        "svc is healthy again",
    ]  # not said as a crash of its own
    assert supervisor.pids()["svc"] != frozen
    log = (tmp_path / "data" / "logs" / "svc.log").read_text().splitlines()
    marker = "--- baton up: starting svc (svc_main) ---"
    assert log == [marker, "answering", f"--- baton up: {killed} ---", marker, "answering"]


async def test_a_service_that_hangs_again_each_time_it_is_restarted_is_given_up(
    tmp_path: Path, sick: Path, answers: Recorded[Answer], nats_url: str
) -> None:
    # Each run lasted longer than `stable_after` only because the watch waited out its silence:
    # it was killed and restarted every half minute for good.
    # Each run answers from its start (a second or two) until it hangs; the watch kills it 8 s
    # later: each run is longer than `stable_after`, each answering time shorter, with room
    # for a start slowed by a busy machine (a slow start would reset the count for good).
    watch = Liveness(timeout=8.0, probe_timeout=1.0)
    stable = RestartPolicy(first_delay=0.0, max_delay=0.0, stable_after=7.5, max_crashes=3)
    lines: Recorded[str] = Recorded()
    supervisor = Supervisor(
        [SPEC], runtime(tmp_path, nats_url), stable, lines.append, liveness=watch
    )
    await supervisor.start_all()
    try:
        await asyncio.to_thread(Path(f"{sick}.hang").touch)
        os.killpg(supervisor.pids()["svc"], signal.SIGSTOP)
        with pytest.raises(ServiceFailed) as failed:
            await asyncio.wait_for(supervisor.watch(asyncio.Event()), 3 * BOUND)
    finally:
        await supervisor.stop_all()
    log = tmp_path / "data" / "logs" / "svc.log"
    assert str(failed.value) == (
        "svc was killed by the liveness watch, as it stopped answering (exited with code -9);"
        f" it stopped answering 3 times in a row, giving up; see {log}"
    )
    assert lines.count("svc is healthy again") == 2


async def test_a_service_that_answers_unhealthy_is_not_restarted(
    tmp_path: Path, sick: Path, answers: Recorded[Answer], nats_url: str
) -> None:
    lines: Recorded[str] = Recorded()
    async with watched(tmp_path, nats_url, lines) as supervisor:
        pid = supervisor.pids()["svc"]
        await asyncio.to_thread(sick.touch)  # its database is down, say: a restart would not help
        mark = len(answers)
        await answers.until(enough_probes(answers, mark))
    assert lines == []
    assert supervisor.pids()["svc"] == pid
    assert set(answers[mark:]) == {Answer.UNHEALTHY}


async def test_a_service_whose_health_answers_slowly_is_not_restarted(
    tmp_path: Path, sick: Path, answers: Recorded[Answer], nats_url: str
) -> None:
    # Its database hangs: the health check waits for it up to 1 s, and answers after the
    # 1 s a start-up probe waits. A probe of the watch waits longer.
    watch = Liveness(timeout=1.0)
    lines: Recorded[str] = Recorded()
    async with watched(tmp_path, nats_url, lines, watch) as supervisor:
        pid = supervisor.pids()["svc"]
        await asyncio.to_thread(sick.touch)
        await asyncio.to_thread(Path(f"{sick}.slow").touch)
        mark = len(answers)
        await answers.until(enough_probes(answers, mark, watch))
    assert lines == []
    assert supervisor.pids()["svc"] == pid
    assert set(answers[mark + 1 :]) == {Answer.UNHEALTHY}  # the first may be the fast reply


@pytest.fixture
def own_nats(tmp_path: Path) -> Iterator[EmbeddedNatsServer]:
    """A nats-server of this test alone, which it freezes."""
    server = EmbeddedNatsServer(store_dir=tmp_path / "nats")
    server.start()
    try:
        yield server
    finally:
        if server.pid is not None:
            os.kill(server.pid, signal.SIGCONT)
        server.stop()


async def test_a_nats_that_does_not_answer_gets_no_service_restarted(
    tmp_path: Path, sick: Path, answers: Recorded[Answer], own_nats: EmbeddedNatsServer
) -> None:
    lines: Recorded[str] = Recorded()
    assert own_nats.pid is not None
    async with watched(tmp_path, own_nats.url, lines) as supervisor:
        pid = supervisor.pids()["svc"]
        # Frozen, the hardest case: connections stay open and every request goes unanswered,
        # as when the service itself is frozen.
        os.kill(own_nats.pid, signal.SIGSTOP)
        mark = len(answers)
        await answers.until(enough_probes(answers, mark))
        frozen = answers[mark:]
        os.kill(own_nats.pid, signal.SIGCONT)
        mark = len(answers)
        await answers.until(lambda: answers[mark:].count(Answer.HEALTHY) >= MISSES)
    assert lines == []
    assert supervisor.pids()["svc"] == pid
    assert set(frozen) == {Answer.NATS_UNREACHABLE}


async def test_a_frozen_embedded_nats_is_killed_and_started_again(
    tmp_path: Path, sick: Path, own_nats: EmbeddedNatsServer
) -> None:
    # A frozen nats-server never exited, so `baton up` never restarted it: every service
    # answered 503 until someone killed it by hand (found stopping `baton up`'s NATS with
    # SIGSTOP). The services are still left alone meanwhile.
    lines: Recorded[str] = Recorded()
    assert own_nats.pid is not None
    frozen = own_nats.pid
    nats = SupervisedNats(own_nats, tmp_path / "nats.log", echo=lines.append, liveness=SHORT)
    supervisor = Supervisor(
        [SPEC], runtime(tmp_path, own_nats.url), NOW, lines.append, nats=nats, liveness=SHORT
    )
    await supervisor.start_all()
    pid = supervisor.pids()["svc"]
    stop = asyncio.Event()
    watching = asyncio.create_task(supervisor.watch(stop))
    try:
        os.kill(frozen, signal.SIGSTOP)
        await lines.until(lambda: "nats is healthy again" in lines)
        assert own_nats.pid != frozen
        assert own_nats.answers(1.0)
    finally:
        stop.set()
        await watching
        await supervisor.stop_all()
    assert lines[0].startswith("nats did not answer its health check for ")
    assert lines[1:] == [
        "nats was killed by the liveness watch, as it stopped answering (exited with code -9);"
        " restarting",
        "nats is healthy again",
    ]
    assert supervisor.pids()["svc"] == pid
