"""`baton up`'s service logs, kept to a size without losing a line.

A service writes its stdout and stderr into a pipe, and `baton up` copies what comes out of it
into `<data-dir>/logs/<name>.log` (`OutputCopier`, `LogFile`). As `baton up` writes the file
itself, a full one is closed, renamed to `<name>.log.1` (replacing the one there) and opened
anew between two of its own writes, so nothing the service writes is lost. The logs used to be
the services' own stdout, copied aside and truncated in place once a minute: what a service
wrote during the copy was lost. The embedded nats-server rotates its `nats.log` itself
(`EmbeddedNatsServer.log_size_limit`).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

LOG_MAX_MB = 64.0
"""The default of `--log-max-mb`: a log over it is renamed aside and a new one begun."""
CHUNK_BYTES = 64 * 1024
"""How much of a pipe is read at once. A long line (a traceback's) comes in pieces, never held
whole: `readline` would raise on a line past its 64 KiB limit."""
DRAIN_MAX_BYTES = 1024 * 1024
"""The most `OutputCopier.drain` reads at once: more than a pipe holds (64 KiB by default on
Linux, 1 MiB at most unless root raises `/proc/sys/fs/pipe-max-size`), so it gets all a dead
process wrote, yet ends even if something the process started keeps writing."""


def log_max_bytes(mb: float) -> int:
    """`--log-max-mb` in bytes; at least 1, as nats-server reads a limit of 0 as none."""
    return max(1, int(mb * 1024 * 1024))


class LogFile:
    """One `<name>.log` that `baton up` writes, renamed to `<name>.log.1` once over `max_bytes`.

    It counts the bytes it writes and renames the file at the first line end past the limit, so
    a file holds whole lines, at most the limit plus one line. A line still unfinished at twice
    the limit (output with no line breaks) is cut there and goes on in the next file: waiting
    for its end would let the file grow without bound, and holding it back the memory.

    A write that fails (a full disk) is said once through `echo` and the output is dropped
    meanwhile, so the process writing is never held up; each later write tries again, the file
    reopened, and the first that succeeds is preceded by a line saying output was dropped there.
    """

    def __init__(self, path: Path, max_bytes: int, echo: Callable[[str], None]) -> None:
        self.path = path
        self._max = max_bytes
        self._echo = echo
        self._fd: int | None = None
        self._size = 0
        self._at_line_start = True
        self._failure: str | None = None

    def write(self, data: bytes) -> None:
        """Append `data`, renaming the file where it gets full; a failure is said, not raised."""
        try:
            self._after_failure()
            while data:
                cut = self._rotation_point(data)
                if cut is None:
                    self._put(data)
                    return
                self._put(data[:cut])
                self._rotate()
                data = data[cut:]
        except OSError as exc:
            self._failed(exc)

    def mark(self, line: str) -> None:
        """Write `baton up`'s own `line` (a start marker) on a line of its own, even after a
        process that ended in the middle of one."""
        self.write((b"" if self._at_line_start else b"\n") + line.encode() + b"\n")

    def close(self) -> None:
        """Close the file; a later `write` opens it again."""
        fd, self._fd = self._fd, None
        if fd is not None:
            with contextlib.suppress(OSError):  # nothing is buffered: every byte is written
                os.close(fd)

    def _rotation_point(self, data: bytes) -> int | None:
        """Where in `data` the file is to be renamed, or None when all of it goes in."""
        # A line end at index i leaves the file at `_size + i + 1` bytes: past the limit from
        # index `_max - _size` on.
        end = data.find(b"\n", max(0, self._max - self._size))
        if end >= 0:
            return end + 1
        if self._size + len(data) > 2 * self._max:
            # Below 0 for a file left bigger by an earlier run: renamed before anything else.
            return max(0, 2 * self._max - self._size)
        return None

    def _put(self, data: bytes) -> None:
        fd = self._opened()
        view = memoryview(data)
        while view:
            done = os.write(fd, view)
            self._size += done
            self._at_line_start = view[done - 1] == ord("\n")
            view = view[done:]

    def _opened(self) -> int:
        if self._fd is None:
            # 0600: the data dir is this user's alone, and a log holds what users sent.
            self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            self._size = os.fstat(self._fd).st_size
        return self._fd

    def _rotate(self) -> None:
        self.close()
        os.replace(self.path, self.path.with_name(f"{self.path.name}.1"))
        self._opened()

    def _failed(self, exc: OSError) -> None:
        # Reopened by the next write: a log deleted meanwhile, or a disk remounted, is found.
        self.close()
        if self._failure is None:
            self._echo(
                f"could not write {self.path}: {exc.strerror or exc};"
                " its output is dropped until it can be written again"
            )
        self._failure = exc.strerror or str(exc)

    def _after_failure(self) -> None:
        if self._failure is None:
            return
        notice = (
            f"--- baton up: output dropped here: could not write this log ({self._failure}) ---"
        )
        self._put((b"" if self._at_line_start else b"\n") + notice.encode() + b"\n")
        self._failure = None
        self._echo(f"writing {self.path} again")


class OutputCopier:
    """Copies what a process writes into the read end `fd` of its pipe to `log`, until every
    writer has closed the pipe (the process, and whatever it started that inherited it).

    It reads whenever the pipe holds something and writes each piece to the log at once, even
    when the log cannot be written (the piece is then dropped): a process never waits on a full
    pipe for longer than a write of a local file takes."""

    def __init__(self, fd: int, log: LogFile) -> None:
        self._fd = fd
        self._log = log
        self._ended = asyncio.Event()
        self._loop = asyncio.get_running_loop()
        os.set_blocking(fd, False)
        self._loop.add_reader(fd, self._copy_once)

    @property
    def ended(self) -> bool:
        """Whether the pipe is closed: its last bytes are in the log."""
        return self._ended.is_set()

    async def finished(self) -> None:
        """Wait until every writer has closed the pipe and its last bytes are in the log."""
        await self._ended.wait()

    def drain(self) -> None:
        """Copy what the pipe holds now. Once the process has exited, that is all it wrote: its
        last lines (a traceback) reach the log before anything says it ended."""
        copied = 0
        while copied < DRAIN_MAX_BYTES and (got := self._copy_once()):
            copied += got

    def close(self) -> None:
        """Copy what the pipe holds and stop: a process that writes to it later gets EPIPE."""
        self.drain()
        self._end()

    def _copy_once(self) -> int:
        """Copy one piece of the pipe; its size, 0 when the pipe is empty or has ended."""
        if self.ended:
            return 0
        try:
            piece = os.read(self._fd, CHUNK_BYTES)
        except BlockingIOError:
            return 0
        except OSError:  # not seen on a pipe; reading on would only fail again
            piece = b""
        if not piece:
            self._end()
            return 0
        self._log.write(piece)
        return len(piece)

    def _end(self) -> None:
        if not self.ended:
            self._loop.remove_reader(self._fd)
            os.close(self._fd)
            self._ended.set()


async def start_logged(
    log: LogFile, program: str, *args: str, **options: Any
) -> tuple[asyncio.subprocess.Process, OutputCopier]:
    """Start `program` (`options` as `asyncio.create_subprocess_exec` takes them) with its
    stdout and stderr in one pipe, and what comes out copied to `log`; stdin is /dev/null."""
    reading, writing = os.pipe()  # neither inherited by any other process `baton up` starts
    try:
        process = await asyncio.create_subprocess_exec(
            program, *args,
            stdin=subprocess.DEVNULL, stdout=writing, stderr=subprocess.STDOUT,
            **options,
        )  # fmt: skip
    except BaseException:
        os.close(reading)
        raise
    finally:
        os.close(writing)  # the pipe ends once the process's copy (and its children's) is closed
    return process, OutputCopier(reading, log)


def last_line(log: Path, tail_bytes: int = 4096) -> str:
    """The last line of `log` with something in it, but for `baton up`'s own marks."""
    try:
        with log.open("rb") as file:
            file.seek(max(file.seek(0, os.SEEK_END) - tail_bytes, 0))
            tail = file.read().decode("utf-8", errors="replace")
    except OSError:
        return ""
    lines = [line.strip() for line in tail.splitlines()]
    said = [line for line in lines if line and not line.startswith("--- baton up:")]
    return said[-1] if said else ""
