"""Ports a test holds until it ends: `held_port()` where a test said `free_port()`.

`free_port()` binds port 0, reads the number and lets the port go, so a test running beside
(or any port-0 bind) could be given it before the server it was for listened on it: a CI
flake. A held port is bound and never listens (`baton_messaging.embedded.reserve_port`):
nothing else is given it, a connection to it is refused (a port "nothing listens on" stays
so), and a server that sets SO_REUSEADDR (nats-server, uvicorn, `baton up`, asyncio's
`start_server`) still listens on it. `tests/conftest.py` lets every held port go after each
test; a fixture that outlives a test uses `reserved_port()` instead.
"""

from __future__ import annotations

import socket

from baton_messaging.embedded import reserve_port

_HELD: list[socket.socket] = []


def held_port(host: str = "127.0.0.1") -> int:
    """A free port, held until the test ends."""
    sock = reserve_port(host)
    _HELD.append(sock)
    return int(sock.getsockname()[1])


def release_held_ports() -> None:
    """Let go every port held so far (after each test)."""
    while _HELD:
        _HELD.pop().close()
