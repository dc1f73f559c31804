"""Before `baton up` starts: is an earlier one still using the data dir, or did a killed one
leave its NATS and services running? Those would share the SQLite files with the new ones, and
their outbox relays would publish into a NATS nobody listens to any more."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

from baton_cli.errors import CliError
from baton_cli.processes import ProcessTable
from baton_cli.services import SERVICES
from baton_cli.state import UpState, read_state, state_path

KILL_WAIT_SECONDS = 5.0
"""How long a SIGKILLed process may take to be gone before `baton up` gives up on it."""
POLL_SECONDS = 0.05

ArgvCheck = Callable[[tuple[str, ...]], bool]
"""Whether a command line is what the recorded process ran (a recycled pid runs another)."""


class Verdict(Enum):
    """What a pid recorded in `baton-up.json` is now."""

    GONE = "gone"  # no such process, or one that got the pid after ours died
    OURS = "ours"  # alive, same start time, the command line it had
    UNPROVEN = "unproven"  # alive, the right command line, but no start time was recorded


@dataclass(frozen=True)
class LeftoverStopper:
    """Checks a data dir's state file and stops what a killed `baton up` left running."""

    table: ProcessTable
    grace: float
    echo: Callable[[str], None]
    sleep: Callable[[float], None] = time.sleep
    clock: Callable[[], float] = time.monotonic

    def clear(self, data_dir: Path) -> None:
        """Raise `CliError` while another `baton up` runs from `data_dir`; stop its leftovers."""
        try:
            state = read_state(data_dir)
        except CliError:
            return  # none, or unreadable: there is nothing to go by, and it is overwritten
        up = self._judge(state, state.pid, _is_baton_up)
        if state.pid != os.getpid() and up is not Verdict.GONE:
            raise CliError(
                f"{data_dir} is in use by baton up (pid {state.pid});"
                " stop it first or use --data-dir"
            )
        store = data_dir / "nats"
        services = self._judge_all(state, list(state.services.values()), _is_service)
        nats_pids = [state.nats_pid] if state.nats_pid else []
        nats = self._judge_all(state, nats_pids, lambda argv: _is_nats(argv, store))
        if unproven := _having(Verdict.UNPROVEN, services | nats):
            raise CliError(
                f"{state_path(data_dir)} names processes of an earlier baton up that may still"
                f" run (pids {_pids(unproven)}); stop them, or delete that file if they are not"
                " Baton's"
            )
        # Services first, callers before what they call, as `baton up` stops its own; NATS
        # last: what they publish while stopping still reaches its store.
        for stage in _stop_stages(state, _having(Verdict.OURS, services)):
            self._stop(state, stage)
        self._stop(state, _having(Verdict.OURS, nats))
        if stopped := _having(Verdict.OURS, services | nats):
            noun = "process" if len(stopped) == 1 else "processes"
            self.echo(
                f"stopped {len(stopped)} {noun} left running by an earlier baton up"
                f" (pids {_pids(stopped)})"
            )

    def _judge_all(
        self, state: UpState, pids: list[int], looks_right: ArgvCheck
    ) -> dict[int, Verdict]:
        return {pid: self._judge(state, pid, looks_right) for pid in pids}

    def _judge(self, state: UpState, pid: int, looks_right: ArgvCheck) -> Verdict:
        info = self.table.info(pid)
        if info is None:
            return Verdict.GONE
        recorded = state.started.get(str(pid))
        if (recorded is not None and recorded != info.started) or not looks_right(info.argv):
            return Verdict.GONE
        return Verdict.OURS if recorded is not None else Verdict.UNPROVEN

    def _stop(self, state: UpState, pids: list[int]) -> None:
        """SIGTERM each process's group, wait `grace`, SIGKILL the groups (stragglers, and what
        a process started and left behind), wait; `CliError` if one of them is still there."""
        if not pids:
            return
        for pid in pids:
            self.table.signal_group(pid, signal.SIGTERM)
        self._wait_gone(state, pids, self.grace)
        for pid in pids:
            self.table.signal_group(pid, signal.SIGKILL)
        alive = self._wait_gone(state, pids, KILL_WAIT_SECONDS)
        if alive:
            raise CliError(
                "could not stop processes left running by an earlier baton up"
                f" (pids {_pids(alive)})"
            )

    def _wait_gone(self, state: UpState, pids: list[int], timeout: float) -> list[int]:
        deadline = self.clock() + timeout
        while True:
            alive = [
                pid for pid in pids if self._judge(state, pid, _any_command) is not Verdict.GONE
            ]
            if not alive or self.clock() >= deadline:
                return alive
            self.sleep(POLL_SECONDS)


def _stop_stages(state: UpState, pids: list[int]) -> list[list[int]]:
    """The services' pids grouped by their row's `stop_stage`, the first to stop first (a
    name the table no longer has stops with the first)."""
    stage_of = {spec.name: spec.stop_stage for spec in SERVICES}
    name_of = {pid: name for name, pid in state.services.items()}
    staged = {pid: stage_of.get(name_of.get(pid, ""), 0) for pid in pids}
    return [[pid for pid in pids if staged[pid] == stage] for stage in sorted(set(staged.values()))]


def _having(verdict: Verdict, verdicts: dict[int, Verdict]) -> list[int]:
    return [pid for pid, judged in verdicts.items() if judged is verdict]


def _pids(pids: list[int]) -> str:
    return ", ".join(str(pid) for pid in pids)


def _any_command(_argv: tuple[str, ...]) -> bool:
    return True


def _is_baton_up(argv: tuple[str, ...]) -> bool:
    return "up" in argv[1:]  # `python .../bin/baton up ...` or `python -m baton_cli up ...`


def _is_service(argv: tuple[str, ...]) -> bool:
    return argv[1:2] == ("-m",)  # `python -m <module>`, as the supervisor starts every service


def _is_nats(argv: tuple[str, ...], store_dir: Path) -> bool:
    """nats-server with this store dir (resolved: the earlier run may have spelled it otherwise)."""
    if not argv or Path(argv[0]).name != "nats-server" or "-sd" not in argv[:-1]:
        return False
    return Path(argv[argv.index("-sd") + 1]).resolve() == store_dir.resolve()
