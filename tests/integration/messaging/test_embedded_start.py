"""`EmbeddedNatsServer.start` leaves no server behind when its wait is cut short."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from baton_messaging.embedded import EmbeddedNatsServer


def test_a_ctrl_c_while_the_server_starts_stops_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `baton up` got a Ctrl-C while NATS started: the server, in its own session, kept
    # running, and the next `baton up` started a second one on the same JetStream folder
    # (found by a review of the CLI).
    started: list[subprocess.Popen[bytes]] = []
    popen = subprocess.Popen

    def recording_popen(*args: object, **kwargs: object) -> subprocess.Popen[bytes]:
        process = popen(*args, **kwargs)  # type: ignore[call-overload]
        started.append(process)
        return process  # type: ignore[no-any-return]

    def interrupted(self: EmbeddedNatsServer, timeout: float, log: Path) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(subprocess, "Popen", recording_popen)
    monkeypatch.setattr(EmbeddedNatsServer, "_wait_ready", interrupted)
    server = EmbeddedNatsServer(store_dir=tmp_path / "nats")
    try:
        with pytest.raises(KeyboardInterrupt):
            server.start()
        assert len(started) == 1
        assert started[0].poll() is not None  # stopped, not left running
    finally:
        for process in started:
            if process.poll() is None:
                process.kill()
                process.wait()
