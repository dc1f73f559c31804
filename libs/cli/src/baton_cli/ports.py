"""Choosing a port: the default if free, else any free one; a taken explicit port is an error."""

from __future__ import annotations

import errno
import socket
from collections.abc import Callable
from dataclasses import dataclass

from baton_cli.errors import CliError, UsageError
from baton_messaging.embedded import reserve_port


@dataclass(frozen=True)
class PortChoice:
    """The port to use, and a note for the user when the default was taken."""

    port: int
    note: str | None = None


def check_port(port: int, what: str) -> None:
    """A `UsageError` naming the option when `port` is no TCP port at all."""
    if not 0 < port < 65536:
        raise UsageError(f"{what}: {port} is not a TCP port (1-65535)")


LISTEN_BACKLOG = 2048
"""uvicorn's own backlog: connections that wait for the gateway to accept them."""


def bind_listener(host: str, port: int) -> socket.socket:
    """A TCP socket listening on host:port (0: any free port), with SO_REUSEADDR as servers
    set it; raises OSError (a `gaierror` for a host that does not resolve)."""
    # IPv4 unless the host is an IPv6 address, as uvicorn binds: `localhost` may resolve to
    # ::1 first, and the gateway then listened where it had not before.
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    family, kind, proto, _, address = socket.getaddrinfo(
        host, port, family=family, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    )[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(LISTEN_BACKLOG)
    except BaseException:
        sock.close()
        raise
    return sock


def listen_on(
    host: str,
    *,
    default: int,
    requested: int | None,
    what: str,
    bind: Callable[[str, int], socket.socket] = bind_listener,
) -> tuple[socket.socket, PortChoice]:
    """A listening socket on `requested` (taken: an error naming the option), else on
    `default`, else on any free port, and the port chosen.

    Bound here and held for the whole run, not checked and let go: between a check and the
    server's own bind another process could take the port (a second `baton up` started at
    the same moment took 8080 too, and answered the first one's health checks).
    """
    if requested is not None:
        check_port(requested, what)
        try:
            return bind(host, requested), PortChoice(requested)
        except OSError as exc:
            raise _cannot_listen(host, requested, exc, what) from None
    try:
        return bind(host, default), PortChoice(default)
    except OSError as exc:
        if not _in_use(exc):
            raise _cannot_listen(host, default, exc, what) from None
    try:
        sock = bind(host, 0)
    except OSError as exc:
        raise _cannot_listen(host, 0, exc, what) from None
    port = int(sock.getsockname()[1])
    return sock, PortChoice(port, note=f"port {default} is taken; using {port}")


def hold_port(
    host: str, *, default: int, requested: int | None, what: str
) -> tuple[socket.socket, PortChoice]:
    """A socket holding (bound, not listening: `reserve_port`) `requested`, else `default`,
    else any free port, for a server started later that binds it with SO_REUSEADDR
    (nats-server), and the port chosen; a port something listens on is taken.

    Held until that server listens, not checked and let go: `baton up` picked its NATS port,
    let it go, then started nats-server, and a port-0 bind of another process (a test, an
    outgoing connection) could be given it in between.
    """
    return listen_on(host, default=default, requested=requested, what=what, bind=reserve_port)


def check_host(host: str, bind: Callable[[str, int], socket.socket] = bind_listener) -> None:
    """A `UsageError` naming `--host` when nothing can listen on it (it does not resolve, or
    is not this machine's), found by binding a free port there and letting it go."""
    try:
        bind(host, 0).close()
    except OSError as exc:  # a free port is never taken: the host is wrong
        raise UsageError(_host_refusal(host, exc)) from None


def _in_use(exc: OSError) -> bool:
    return not isinstance(exc, socket.gaierror) and exc.errno == errno.EADDRINUSE


def _cannot_listen(host: str, port: int, exc: OSError, what: str) -> CliError:
    if _in_use(exc):
        return CliError(f"{what}: port {port} on {host} is taken")
    return CliError(_host_refusal(host, exc))


def _host_refusal(host: str, exc: OSError) -> str:
    return f"--host: cannot listen on {host}: {exc.strerror or exc}"
