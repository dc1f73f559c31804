"""The data directory: created and checked once, it holds the JWT secret, logs and stores."""

from __future__ import annotations

import errno
import os
import secrets
import shutil
from collections.abc import Callable, Mapping
from pathlib import Path

from baton_auth import check_secret
from baton_cli.errors import CliError

SECRET_ENV = "BATON_JWT_SECRET"
SECRET_FILE = "jwt-secret"
MIN_FREE_BYTES = 16 * 1024 * 1024
"""Free space `baton up` wants on the data dir's disk to start: the databases' first writes,
JetStream's consumers (nats-server takes 75% of the free space at its start as the most its
store may hold) and the logs. Below it a service failed to start with a traceback in a log
that could not be written, and `baton up` pointed at that empty log."""


def _disk_free(path: Path) -> int:
    return shutil.disk_usage(path).free


def prepare_data_dir(path: Path, free_bytes: Callable[[Path], int] = _disk_free) -> Path:
    """Create the directory (and `logs/`) if needed, prove it is writable and that its disk
    has room (`MIN_FREE_BYTES`); its absolute path."""
    root = path.expanduser().absolute()
    probe = root / ".write-test"
    try:
        # Created for this user alone: it holds the databases (every user's conversations),
        # the logs and the state file. A data dir that exists keeps the mode it has.
        root.mkdir(mode=0o700, parents=True, exist_ok=True)
        (root / "logs").mkdir(mode=0o700, exist_ok=True)
        probe.write_text("ok")
        probe.unlink()
    except OSError as exc:
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            raise _full(root, 0) from None
        reason = exc.strerror or type(exc).__name__
        raise CliError(f"data dir {root} is not a writable directory: {reason}") from None
    free = free_bytes(root)
    if free < MIN_FREE_BYTES:
        raise _full(root, free)
    return root


def _full(root: Path, free: int) -> CliError:
    return CliError(
        f"data dir {root}: its disk is full ({free // 1024} KiB free, Baton needs"
        f" {MIN_FREE_BYTES // (1024 * 1024)} MiB to start); free some space and start again"
    )


def _checked(secret: str, source: str) -> str:
    try:
        return check_secret(secret)
    except ValueError as exc:
        raise CliError(f"{source}: {exc}") from None


def read_secret(data_dir: Path, env: Mapping[str, str]) -> str:
    """`BATON_JWT_SECRET`, else the data dir's secret file; a clear error when neither exists."""
    if env.get(SECRET_ENV):
        return _checked(env[SECRET_ENV], SECRET_ENV)
    path = data_dir.expanduser().absolute() / SECRET_FILE
    try:
        secret = path.read_text().strip()
    except FileNotFoundError:
        raise CliError(
            f"no JWT secret in {path}: run 'baton up' first or set {SECRET_ENV}"
        ) from None
    except OSError as exc:
        raise CliError(f"cannot read {path}: {exc.strerror}") from None
    return _checked(secret, str(path))


def load_or_create_secret(data_dir: Path, env: Mapping[str, str]) -> str:
    """The secret `baton up` signs with: env, else the file, else a new one kept (mode 0600)."""
    if env.get(SECRET_ENV) or (data_dir / SECRET_FILE).exists():
        return read_secret(data_dir, env)
    secret = secrets.token_urlsafe(48)
    path = data_dir / SECRET_FILE
    # O_EXCL + mode at creation: the secret is never readable by others, not even briefly.
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(secret + "\n")
    return secret
