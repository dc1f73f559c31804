"""What `baton up` does with the `baton-up.json` an earlier one left: refuse, stop, or ignore."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from baton_cli.errors import CliError
from baton_cli.leftovers import KILL_WAIT_SECONDS, LeftoverStopper
from baton_cli.processes import ProcessInfo, ProcProcessTable, process_start
from baton_cli.state import UpState, write_state

# Above the kernel's largest pid_max (2**22): never a real process, never this test's own pid.
UP, NATS, NOTIFIER, WORKFLOW, AGENT = 5_000_001, 5_000_002, 5_000_003, 5_000_004, 5_000_005
GRACE = 15.0
PYTHON = "/venv/bin/python"


def command(pid: int, data: Path) -> tuple[str, ...]:
    return {
        UP: (PYTHON, "/venv/bin/baton", "up", "--data-dir", str(data)),
        NATS: ("/venv/bin/nats-server", "-js", "-sd", str(data / "nats"), "-l", "x.log"),
        NOTIFIER: (PYTHON, "-m", "baton_notifier"),
        WORKFLOW: (PYTHON, "-m", "baton_workflow"),
        AGENT: (PYTHON, "-m", "baton_agent_runner"),
    }[pid]


class FakeProcesses:
    """A process table; a process ends on SIGTERM unless it is `stubborn`, on SIGKILL unless
    it is `unkillable`."""

    def __init__(self, processes: dict[int, ProcessInfo]) -> None:
        self.processes = processes
        self.stubborn: set[int] = set()
        self.unkillable: set[int] = set()
        self.sent: list[tuple[int, signal.Signals]] = []

    def info(self, pid: int) -> ProcessInfo | None:
        return self.processes.get(pid)

    def signal_group(self, pgid: int, sig: signal.Signals) -> None:
        self.sent.append((pgid, sig))
        spared = self.stubborn if sig == signal.SIGTERM else self.unkillable
        if pgid not in spared:
            self.processes.pop(pgid, None)


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def record(
    data: Path, started: dict[int, int] | None = None, services: dict[str, int] | None = None
) -> None:
    """A state file as a `baton up` writes it: every pid recorded with start time 100 + pid."""
    services = services or {"notifier": NOTIFIER, "workflow": WORKFLOW}
    pids = [UP, NATS, *services.values()]
    starts = started if started is not None else {pid: 100 + pid for pid in pids}
    write_state(
        data,
        UpState(
            pid=UP, gateway_url="http://127.0.0.1:8080", nats_url="nats://127.0.0.1:4222",
            nats_pid=NATS, services=services,
            started={str(pid): start for pid, start in starts.items()},
        ),
    )  # fmt: skip


def running(data: Path, *pids: int, started: int | None = None) -> dict[int, ProcessInfo]:
    """These pids alive with the start time recorded (or `started`) and their command lines."""
    return {pid: ProcessInfo(started or 100 + pid, command(pid, data)) for pid in pids}


def clear(data: Path, table: FakeProcesses) -> tuple[list[str], FakeClock]:
    lines: list[str] = []
    clock = FakeClock()
    LeftoverStopper(table, GRACE, lines.append, sleep=clock.sleep, clock=clock).clear(data)
    return lines, clock


def test_no_state_file_no_check(tmp_path: Path) -> None:
    assert clear(tmp_path, FakeProcesses({}))[0] == []


def test_a_stale_file_whose_processes_are_all_gone_is_simply_replaced(tmp_path: Path) -> None:
    record(tmp_path)
    table = FakeProcesses({})
    assert clear(tmp_path, table)[0] == []
    assert table.sent == []


def test_a_running_baton_up_is_refused_and_nothing_is_touched(tmp_path: Path) -> None:
    record(tmp_path)
    table = FakeProcesses(running(tmp_path, UP, NATS, NOTIFIER, WORKFLOW))
    with pytest.raises(CliError) as refused:
        clear(tmp_path, table)
    assert str(refused.value) == (
        f"{tmp_path} is in use by baton up (pid {UP}); stop it first or use --data-dir"
    )
    assert table.sent == []


def test_a_killed_baton_ups_services_then_nats_are_stopped(tmp_path: Path) -> None:
    record(tmp_path)
    table = FakeProcesses(running(tmp_path, NATS, NOTIFIER, WORKFLOW))
    lines, clock = clear(tmp_path, table)
    assert lines == [
        "stopped 3 processes left running by an earlier baton up"
        f" (pids {NOTIFIER}, {WORKFLOW}, {NATS})"
    ]
    assert table.processes == {}
    terms = [pid for pid, sig in table.sent if sig == signal.SIGTERM]
    assert terms == [NOTIFIER, WORKFLOW, NATS]  # NATS outlives the services that publish to it
    assert clock.now < GRACE  # they went at SIGTERM: nobody waited for the grace to run out


def test_leftovers_stop_callers_first_as_baton_up_stops_its_own(tmp_path: Path) -> None:
    # The agent-runner is recorded first: the order is the services', not the file's.
    services = {"agent": AGENT, "workflow": WORKFLOW, "notifier": NOTIFIER}
    record(tmp_path, services=services)
    table = FakeProcesses(running(tmp_path, NATS, NOTIFIER, WORKFLOW, AGENT))
    table.stubborn.add(NOTIFIER)  # the workflow service is told only once the gateway is gone
    clear(tmp_path, table)
    assert table.sent == [
        (NOTIFIER, signal.SIGTERM), (NOTIFIER, signal.SIGKILL),
        (WORKFLOW, signal.SIGTERM), (WORKFLOW, signal.SIGKILL),
        (AGENT, signal.SIGTERM), (AGENT, signal.SIGKILL),
        (NATS, signal.SIGTERM), (NATS, signal.SIGKILL),
    ]  # fmt: skip


def test_a_leftover_that_ignores_sigterm_is_killed_after_the_grace(tmp_path: Path) -> None:
    record(tmp_path)
    table = FakeProcesses(running(tmp_path, NOTIFIER))
    table.stubborn.add(NOTIFIER)
    lines, clock = clear(tmp_path, table)
    assert table.sent == [(NOTIFIER, signal.SIGTERM), (NOTIFIER, signal.SIGKILL)]
    assert clock.now >= GRACE
    assert lines == [f"stopped 1 process left running by an earlier baton up (pids {NOTIFIER})"]


def test_a_leftover_that_survives_sigkill_is_an_error(tmp_path: Path) -> None:
    record(tmp_path)
    table = FakeProcesses(running(tmp_path, WORKFLOW))
    table.stubborn.add(WORKFLOW)
    table.unkillable.add(WORKFLOW)
    clock = FakeClock()
    stopper = LeftoverStopper(table, GRACE, print, sleep=clock.sleep, clock=clock)
    with pytest.raises(CliError, match=rf"could not stop .* \(pids {WORKFLOW}\)"):
        stopper.clear(tmp_path)
    assert table.sent == [(WORKFLOW, signal.SIGTERM), (WORKFLOW, signal.SIGKILL)]
    assert clock.now >= GRACE + KILL_WAIT_SECONDS  # it waited, but not forever


def test_a_recycled_pid_is_never_signalled(tmp_path: Path) -> None:
    record(tmp_path)
    # Same pids, other processes: started later, or running something else, or the NATS of
    # another data dir; and the supervisor's pid is someone else's, so the dir is not in use.
    table = FakeProcesses(
        {
            UP: ProcessInfo(1, command(UP, tmp_path)),
            NOTIFIER: ProcessInfo(999, command(NOTIFIER, tmp_path)),
            WORKFLOW: ProcessInfo(100 + WORKFLOW, ("/usr/bin/vim", "notes.txt")),
            NATS: ProcessInfo(100 + NATS, command(NATS, tmp_path / "other")),
        }
    )
    assert clear(tmp_path, table)[0] == []
    assert table.sent == []


def test_a_file_without_start_times_refuses_what_looks_like_baton(tmp_path: Path) -> None:
    record(tmp_path, started={})  # written before start times were recorded
    table = FakeProcesses(running(tmp_path, NOTIFIER, NATS, started=1))
    with pytest.raises(CliError) as refused:
        clear(tmp_path, table)
    assert f"(pids {NOTIFIER}, {NATS})" in str(refused.value)
    assert "stop them, or delete that file if they are not Baton's" in str(refused.value)
    assert table.sent == []


def test_a_file_without_start_times_and_a_live_baton_up_is_in_use(tmp_path: Path) -> None:
    record(tmp_path, started={})
    table = FakeProcesses(running(tmp_path, UP, started=1))
    with pytest.raises(CliError, match="is in use by baton up"):
        clear(tmp_path, table)


def test_the_proc_table_reads_start_time_and_command_line(tmp_path: Path) -> None:
    (tmp_path / "42").mkdir()
    # A command name may hold ") ": fields count from the last parenthesis.
    fields = ["S", *["0"] * 18, "777", "0"]
    (tmp_path / "42" / "stat").write_text(f"42 (odd) name) {' '.join(fields)}\n")
    (tmp_path / "42" / "cmdline").write_bytes(b"python\0-m\0baton_workflow\0")
    table = ProcProcessTable(tmp_path)
    assert table.info(42) == ProcessInfo(777, ("python", "-m", "baton_workflow"))
    assert table.info(43) is None
    (tmp_path / "42" / "stat").write_text(f"42 (zombie) Z {' '.join(fields[1:])}\n")
    assert table.info(42) is None


def test_the_real_proc_knows_this_process_and_not_a_pid_beyond_pid_max() -> None:
    assert isinstance(process_start(os.getpid()), int)
    assert process_start(UP) is None
