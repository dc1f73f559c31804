"""`<data-dir>/baton-up.json`: how other commands find a running `baton up`."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

from pydantic import TypeAdapter, ValidationError

from baton_cli.errors import CliError
from baton_cli.processes import process_start

STATE_FILE = "baton-up.json"
LOCK_FILE = "baton-up.lock"


@dataclass(frozen=True)
class UpState:
    """What a running `baton up` publishes about itself."""

    pid: int
    gateway_url: str
    nats_url: str
    nats_pid: int | None = None
    services: dict[str, int] = field(default_factory=dict)
    started: dict[str, int] = field(default_factory=dict)
    """pid (a string: JSON keys are) -> when that process started (`process_start`), so that
    a later `baton up` tells this run's processes from others that got a pid after they died."""


_STATE = TypeAdapter(UpState)


def state_path(data_dir: Path) -> Path:
    """Where the state file of a data dir lives."""
    return data_dir.expanduser().absolute() / STATE_FILE


def write_state(data_dir: Path, state: UpState) -> None:
    """Replace the state file atomically, so a reader never sees half of it."""
    path = state_path(data_dir)
    partial = path.with_suffix(".json.tmp")
    partial.unlink(missing_ok=True)  # created afresh below, so never with an older, wider mode
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as file:
        file.write(json.dumps(asdict(state), indent=2) + "\n")
    partial.replace(path)


def publish_state(data_dir: Path, state: UpState, say: Callable[[str], None]) -> bool:
    """`write_state` for a `baton up` already running: a data dir that cannot be written at
    that moment (a full or read-only disk, often what made a service crash and be restarted)
    is said, not raised, so it does not stop every service. The file is written again at the
    next change (a restart); False when it could not be written this time."""
    try:
        write_state(data_dir, state)
    except OSError as exc:
        say(
            f"could not write {state_path(data_dir)}: {exc.strerror or exc}; "
            "'baton status' may show old pids until it is written again (at the next restart)"
        )
        return False
    return True


def read_state(data_dir: Path) -> UpState:
    """The state of the `baton up` using this data dir, or an error saying it is not running."""
    path = state_path(data_dir)
    try:
        # Checked field by field: a file edited by hand ("pid": "12", "services": []) got
        # past the constructor and failed later with a traceback.
        return _STATE.validate_json(path.read_bytes())
    except FileNotFoundError:
        raise CliError(
            f"Baton is not running: {path} not found (start it with 'baton up')"
        ) from None
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "the file"
        raise CliError(f"{path} is not a baton-up state file: {where}: {first['msg']}") from None
    except OSError as exc:
        raise CliError(f"{path}: cannot read: {exc.strerror}") from None


def remove_state(data_dir: Path) -> None:
    """Forget the state file (on a clean stop)."""
    with contextlib.suppress(FileNotFoundError):
        state_path(data_dir).unlink()


def pid_alive(pid: int) -> bool:
    """True when a process with this id exists (a zombie counts as gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    with contextlib.suppress(OSError):
        stat = Path(f"/proc/{pid}/stat").read_text()
        return stat.rsplit(")", 1)[1].split()[0] != "Z"
    return True


def still_running(state: UpState, pid: int) -> bool:
    """The process `state` recorded under `pid` still runs: alive and, where its start time was
    recorded and /proc tells it, started then. A pid taken since by another process is not it."""
    if not pid_alive(pid):
        return False
    recorded = state.started.get(str(pid))
    now = process_start(pid)
    return recorded is None or now is None or now == recorded


@contextlib.contextmanager
def holding_data_dir(data_dir: Path) -> Iterator[None]:
    """Hold `<data-dir>/baton-up.lock` while `baton up` uses the data dir, or `CliError`.

    Two `baton up`s started together on one data dir would both find no state file yet (it
    is written once NATS runs) and start two platforms on the same files. The lock is the
    kernel's (`flock`): it ends with the process however it ends, and the services do not
    inherit it, so leftovers of a killed `baton up` never hold it.
    """
    path = data_dir.expanduser().absolute() / LOCK_FILE
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise CliError(f"{data_dir} is in use by {_holder(data_dir)}; stop it first or use "
                           "--data-dir") from None  # fmt: skip
        yield
    finally:
        os.close(fd)  # releases the lock


def _holder(data_dir: Path) -> str:
    """Who holds the data dir: the running `baton up` its state file names, or one starting."""
    with contextlib.suppress(CliError):
        state = read_state(data_dir)
        if still_running(state, state.pid):
            return f"baton up (pid {state.pid})"
    return "another baton up (starting or running)"
