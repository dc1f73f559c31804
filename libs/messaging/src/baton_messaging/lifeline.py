"""A service stops when `baton up`, which started it, is gone, even if it was killed outright.

`baton up` hands every service the read end of one pipe (`BATON_LIFELINE_FD`) and keeps the
only write end, writing nothing. However `baton up` ends (Ctrl+C, SIGKILL, the OOM killer), the
kernel closes its write end, the read end reads end-of-file, and the service stops as on SIGTERM:
its turns in flight get their grace, its pools close. Without it, a service of a SIGKILLed
`baton up` kept serving with its output going into a pipe nobody read, every log line lost,
until the next `baton up` stopped it.

A service started any other way (a container, a test) has no such variable and watches nothing.
"""

from __future__ import annotations

import asyncio
import os
import stat
from collections.abc import Callable, Mapping

LIFELINE_ENV = "BATON_LIFELINE_FD"


def lifeline_fd(environ: Mapping[str, str]) -> int | None:
    """The descriptor `BATON_LIFELINE_FD` names, or None when it is not set; `ValueError`
    naming the variable when it is not the read end of a pipe this process holds."""
    value = environ.get(LIFELINE_ENV, "").strip()
    if not value:
        return None
    try:
        fd = int(value)
    except ValueError:
        problem = f"expected a file descriptor number, got {value!r}"
        raise ValueError(f"{LIFELINE_ENV}: {problem}") from None
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        raise ValueError(f"{LIFELINE_ENV}: descriptor {fd} is not open in this process") from None
    if not stat.S_ISFIFO(mode):
        raise ValueError(f"{LIFELINE_ENV}: descriptor {fd} is not a pipe")
    return fd


def watch_lifeline(loop: asyncio.AbstractEventLoop, fd: int, on_gone: Callable[[], None]) -> None:
    """Call `on_gone` once, when the pipe's last write end is closed. Bytes written into it (by
    nobody Baton starts) are read and dropped."""

    def readable() -> None:
        try:
            if os.read(fd, 4096):
                return
        except BlockingIOError:
            return
        except OSError:
            pass  # a read end that fails is as good as closed: nobody can reach this process
        loop.remove_reader(fd)
        on_gone()

    loop.add_reader(fd, readable)
