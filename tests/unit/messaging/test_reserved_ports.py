"""A port picked for a server that starts later is held until it listens: a process running
beside (another test, another `free_port`) can no longer take it in between."""

from __future__ import annotations

import errno
import socket
import stat
from pathlib import Path

import pytest

from baton_messaging import embedded
from baton_messaging.embedded import EmbeddedNatsServer, free_port, reserved_port
from tests.held_ports import held_port


def taken(port: int) -> bool:
    """Whether another process binding `port` (as one handed it by chance would) fails."""
    with socket.socket() as other:
        try:
            other.bind(("127.0.0.1", port))
        except OSError as exc:
            assert exc.errno == errno.EADDRINUSE
            return True
    return False


def test_a_reserved_port_cannot_be_taken_and_refuses_connections() -> None:
    with reserved_port() as port:
        assert taken(port)
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.1", port), timeout=5).close()
    assert not taken(port)


def test_a_free_port_is_let_go_at_once() -> None:
    # Why the reservation: `free_port` says a number and holds nothing.
    assert not taken(free_port())


def test_a_server_setting_so_reuseaddr_listens_on_a_reserved_port() -> None:
    with reserved_port() as port, socket.socket() as server:
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind(("127.0.0.1", port))
        server.listen()
        socket.create_connection(("127.0.0.1", port), timeout=5).close()


@pytest.fixture
def silent_nats(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A `nats-server` that starts and never listens (nor becomes ready)."""
    binary = tmp_path / "nats-server"
    binary.write_text("#!/bin/sh\nexec sleep 60\n")
    binary.chmod(binary.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setattr(embedded, "nats_server_binary", lambda: binary)
    return binary


def test_the_ports_an_embedded_server_picks_are_held_until_it_is_ready_or_stopped(
    silent_nats: Path, tmp_path: Path
) -> None:
    server = EmbeddedNatsServer(store_dir=tmp_path / "js")
    server.launch()
    try:
        assert taken(server.port) and taken(server.monitor_port)
    finally:
        server.stop()
    assert not taken(server.port) and not taken(server.monitor_port)


def test_ports_given_to_an_embedded_server_are_not_held_by_it(
    silent_nats: Path, tmp_path: Path
) -> None:
    port, monitor = held_port(), held_port()
    server = EmbeddedNatsServer(store_dir=tmp_path / "js", port=port, monitor_port=monitor)
    server.launch()
    try:
        assert (server.port, server.monitor_port) == (port, monitor)
        assert server._reserved == []
    finally:
        server.stop()


def test_a_port_held_by_the_caller_is_held_by_the_server_until_it_is_stopped(
    silent_nats: Path, tmp_path: Path
) -> None:
    # `baton up` picks its NATS port (4222 or a free one) before it starts the server.
    sock = embedded.reserve_port()
    server = EmbeddedNatsServer(store_dir=tmp_path / "js", port=sock.getsockname()[1])
    server.hold(sock)
    server.launch()
    try:
        assert taken(server.port)
    finally:
        server.stop()
    assert sock.fileno() == -1 and not taken(server.port)
