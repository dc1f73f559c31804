"""Processes by pid, as /proc shows them: a pid plus its start time names one process for good."""

from __future__ import annotations

import contextlib
import os
import signal
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol


@dataclass(frozen=True)
class ProcessInfo:
    """A live process: when it started (clock ticks after boot) and its command line."""

    started: int
    argv: tuple[str, ...]


class ProcessTable(Protocol):
    """Looks processes up and signals them."""

    def info(self, pid: int) -> ProcessInfo | None:
        """The process with this pid, or None when there is none (a zombie counts as none)."""
        ...

    def signal_group(self, pgid: int, sig: signal.Signals) -> None:
        """Signal every process of a process group; nothing when the group is gone."""
        ...


def process_start(pid: int, proc: Path = Path("/proc")) -> int | None:
    """When `pid` started, in clock ticks after boot (field 22 of /proc/<pid>/stat); None when
    it is gone or a zombie. A pid is reused once its process is gone; the pair is not."""
    try:
        stat = (proc / str(pid) / "stat").read_text()
    except OSError:
        return None
    # The command name in parentheses may hold spaces and ')': fields are counted after the last.
    fields = stat.rsplit(")", 1)[1].split()
    if fields[0] == "Z":
        return None
    return int(fields[19])


class ProcProcessTable:
    """The processes of this Linux machine, read from /proc."""

    def __init__(self, proc: Path = Path("/proc")) -> None:
        self._proc = proc

    def info(self, pid: int) -> ProcessInfo | None:
        """The process with this pid, or None when there is none (a zombie counts as none)."""
        started = process_start(pid, self._proc)
        if started is None:
            return None
        try:
            raw = (self._proc / str(pid) / "cmdline").read_bytes()
        except OSError:
            return None
        args = raw.removesuffix(b"\0").split(b"\0") if raw else []
        return ProcessInfo(started, tuple(arg.decode(errors="replace") for arg in args))

    def signal_group(self, pgid: int, sig: signal.Signals) -> None:
        """Signal every process of a process group; nothing when the group is gone."""
        # Only groups: `baton up` starts each child as the leader of its own group, and a pid is
        # never reused while a group of that id exists, so this never reaches a stranger even
        # after the leader is gone (a plain kill of a dead leader's pid could).
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, sig)
