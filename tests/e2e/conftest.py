"""`baton up` as a user runs it: a real subprocess, its output read line by line."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from baton_cli.services import SERVICES

FAKES = Path(__file__).parent / "fakes"
MARK_ENV = "BATON_E2E_MARK"
BATON = Path(sys.executable).parent / "baton"
START_LIMIT = 60.0  # a bound so a broken run fails instead of hanging, not a speed claim


class BatonUp:
    """One `baton up` process; every process it starts inherits a unique marker variable."""

    def __init__(self, args: list[str], env: dict[str, str]) -> None:
        self.mark = uuid.uuid4().hex
        self.lines: list[str] = []
        self._eof = False
        self._changed = threading.Condition()
        self.process = subprocess.Popen(
            [str(BATON), "up", *args],
            env={**env, MARK_ENV: self.mark},
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            text=True,
        )  # fmt: skip
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            with self._changed:
                self.lines.append(line.rstrip("\n"))
                self._changed.notify_all()
        with self._changed:
            self._eof = True
            self._changed.notify_all()

    def wait_for(self, text: str, timeout: float = START_LIMIT) -> str:
        """The first output line containing `text`; fails if `baton up` exits first."""
        with self._changed:
            self._changed.wait_for(lambda: self._match(text) is not None or self._eof, timeout)
            line = self._match(text)
        assert line is not None, f"no line with {text!r}; output:\n" + "\n".join(self.lines)
        return line

    def _match(self, text: str) -> str | None:
        return next((line for line in self.lines if text in line), None)

    def output(self) -> str:
        """Everything printed so far."""
        with self._changed:
            return "\n".join(self.lines)

    def finish(self, timeout: float = START_LIMIT) -> int:
        """Wait for exit; the exit code."""
        code = self.process.wait(timeout)
        self._reader.join(timeout)  # the rest of the output is read before anyone looks
        return code

    def interrupt(self) -> int:
        """Ctrl+C, then the exit code."""
        self.process.send_signal(signal.SIGINT)
        return self.finish()


def marked_processes(mark: str) -> list[int]:
    """Live (non-zombie) processes whose environment carries `mark`."""
    found = []
    needle = f"{MARK_ENV}={mark}".encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if needle not in (entry / "environ").read_bytes().split(b"\0"):
                continue
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            found.append(int(entry.name))
    return found


FAKE_MODULES = {"notifier": "fake_gateway", "trigger": "fake_backend"}
EVERY_FAKE = {**FAKE_MODULES, "workflow": "fake_workflow", "agent": "fake_agent"}
"""A fake for each service that calls or is called during a stop (the stop order's test)."""


def fake_env(fakes: dict[str, str] = FAKE_MODULES, **extra: str) -> dict[str, str]:
    """The environment for `baton up` with the fake gateway and the fake NATS backend (or the
    `fakes` named: service -> module)."""
    env = {k: v for k, v in os.environ.items() if k != "BATON_JWT_SECRET"}
    names = [spec.name for spec in SERVICES]  # rows without a fake are left out
    path = [str(FAKES), env.get("PYTHONPATH", "")]
    env.update(
        PYTHONPATH=os.pathsep.join(p for p in path if p),
        BATON_SERVICE_MODULES=",".join(f"{name}={fakes.get(name, '')}" for name in names),
        **extra,
    )
    return env


@pytest.fixture
def start_baton() -> Iterator[type[BatonUp]]:
    """Start `baton up` processes; any still running at the end are killed with their children."""
    started: list[BatonUp] = []

    class Tracked(BatonUp):
        def __init__(self, args: list[str], env: dict[str, str]) -> None:
            super().__init__(args, env)
            started.append(self)

    yield Tracked
    for baton in started:
        if baton.process.poll() is None:
            baton.process.kill()
            baton.process.wait()
        for pid in marked_processes(baton.mark):
            os.kill(pid, signal.SIGKILL)
