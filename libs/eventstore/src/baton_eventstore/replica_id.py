"""A replica's name as a holder of leases and claims, kept in its data folder so that a
restart reuses it.

A process killed without stopping (SIGKILL, the OOM killer, a power cut) gives nothing back:
what it held under its name stays until it runs out (the workflow service's leases on the runs
it drove and on its outbox relay, the agent-runner's claims on the keys it was calling a model
for). A restarted process that holds them under the same name takes them up at once instead.

That is safe only while no other live process uses the name, and an exclusive lock on the file
makes sure of it: the kernel drops the lock when its process ends, however it ends, so the
process that gets the lock knows that the last one to use the name is gone. A process that
cannot get it (another one runs on the same folder) uses a name of its own, as without a folder.
"""

from __future__ import annotations

import fcntl
import logging
import os
import re
import uuid
from pathlib import Path

log = logging.getLogger(__name__)

_ID = re.compile(r"[0-9a-f]{32}")


class ReplicaIdFile:
    """`<folder>/<name>` (`workflow-replica-id`, `agent-replica-id`: services may share a
    folder): the id in it, locked for as long as this process holds it."""

    def __init__(self, folder: Path, name: str) -> None:
        self.path = folder.expanduser().absolute() / name
        self._fd: int | None = None

    def claim(self) -> str | None:
        """The id (made and written on first use), locked for this process; None when another
        live process holds it or the folder cannot be used (said in a warning)."""
        if self._fd is not None:
            raise RuntimeError(f"{self.path} is already claimed by this process")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as exc:
            log.warning("cannot keep a replica id in %s (%s); using a new one", self.path, exc)
            return None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            replica = _read_or_write(fd)
        except BlockingIOError:
            os.close(fd)
            log.warning(
                "%s is held by another running process; this one uses a new replica id, so it "
                "waits for the leases and claims that process holds to run out",
                self.path,
            )
            return None
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd
        return replica

    def release(self) -> None:
        """Let the next process on this folder take the id (closing the file drops the lock)."""
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)


def _read_or_write(fd: int) -> str:
    """The id in the file; a new one written there when it holds none (first use, or a file
    cut short by a crash while it was written)."""
    text = os.read(fd, 256).decode(errors="replace").strip()
    if _ID.fullmatch(text):
        return text
    replica = uuid.uuid4().hex
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{replica}\n".encode(), 0)
    os.fsync(fd)
    return replica
