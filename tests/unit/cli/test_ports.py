from __future__ import annotations

import errno
import socket
from pathlib import Path

import pytest

from baton_cli import up
from baton_cli.errors import CliError
from baton_cli.gateway_client import GatewayClient, GatewayError
from baton_cli.ports import hold_port, listen_on
from baton_cli.workflow_wait import POLL_TIMEOUT_SECONDS, UNREACHABLE_GRACE_SECONDS
from baton_messaging.embedded import port_is_free
from tests.held_ports import held_port, release_held_ports


def taken(port: int, host: str = "127.0.0.1") -> bool:
    """Whether another process binding `port` (as one handed it by chance would) fails."""
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as other:
        try:
            other.bind((host, port))
        except OSError as exc:
            assert exc.errno == errno.EADDRINUSE
            return True
    return False


def test_the_default_port_is_held_when_it_is_free() -> None:
    default = held_port()  # held by nobody else once this test's own hold is let go
    release_held_ports()
    sock, choice = hold_port("127.0.0.1", default=default, requested=None, what="--nats-port")
    with sock:
        assert (choice.port, choice.note) == (default, None)
        assert taken(default)
    assert not taken(default)


def test_another_port_is_held_with_a_note_when_the_default_is_listened_on() -> None:
    with _listening() as listener:
        default = listener.getsockname()[1]
        sock, choice = hold_port("127.0.0.1", default=default, requested=None, what="--nats-port")
        with sock:
            assert choice.port != default
            assert choice.note == f"port {default} is taken; using {choice.port}"
            assert sock.getsockname()[1] == choice.port and taken(choice.port)


def test_a_requested_port_that_is_free_is_held() -> None:
    requested = held_port()
    release_held_ports()
    sock, choice = hold_port("127.0.0.1", default=1, requested=requested, what="--nats-port")
    with sock:
        assert choice.port == requested and taken(requested)


def test_a_requested_port_that_is_listened_on_is_an_error_naming_the_option() -> None:
    with _listening() as listener:
        port = listener.getsockname()[1]
        with pytest.raises(CliError, match=rf"--nats-port: port {port} on 127.0.0.1 is taken"):
            hold_port("127.0.0.1", default=1, requested=port, what="--nats-port")


@pytest.mark.parametrize("port", [0, -1, 65536])
def test_a_requested_port_out_of_range_is_an_error(port: int) -> None:
    with pytest.raises(CliError, match=rf"--nats-port: {port} is not a TCP port"):
        hold_port("127.0.0.1", default=1, requested=port, what="--nats-port")


def test_baton_up_holds_the_nats_port_it_picks_until_nats_server_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Picked free and let go, the port could be given to another process (a test's port-0
    # bind, an outgoing connection) before nats-server bound it: it then exited "address
    # already in use". Held, nothing else binds it, and nats-server (SO_REUSEADDR) still can.
    with _listening() as default_taken:
        monkeypatch.setattr(up, "DEFAULT_NATS_PORT", default_taken.getsockname()[1])
        options = up.UpOptions(data_dir=tmp_path, port=held_port())
        listener, _, held = up._pick_ports(options, lambda _line: None)
    with listener:
        assert held is not None
        with held:
            assert taken(held.getsockname()[1])


def test_a_port_left_in_time_wait_is_free_and_a_listening_one_is_not() -> None:
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    port = listener.getsockname()[1]
    client = socket.create_connection(("127.0.0.1", port))
    accepted, _ = listener.accept()
    assert not port_is_free("127.0.0.1", port)
    accepted.close()  # the server side closes first: its end waits in TIME_WAIT
    listener.close()
    client.close()
    assert port_is_free("127.0.0.1", port)  # a gateway stopped a moment ago may start again


def test_a_poll_waits_its_own_short_time_on_a_gateway_that_never_answers() -> None:
    hung = socket.socket()
    hung.bind(("127.0.0.1", 0))
    hung.listen()  # accepts connections, never answers
    client = GatewayClient(f"http://127.0.0.1:{hung.getsockname()[1]}", "token")
    try:
        with pytest.raises(GatewayError) as caught:
            client.get_run("r1", timeout=0.2)  # the poller passes POLL_TIMEOUT_SECONDS
        assert caught.value.unreachable
    finally:
        client.close()
        hung.close()
    # A hung gateway is given up once polls of POLL_TIMEOUT_SECONDS add up to about a minute.
    assert POLL_TIMEOUT_SECONDS < UNREACHABLE_GRACE_SECONDS <= 60


def test_an_ipv6_host_gets_a_free_port_when_the_default_is_taken() -> None:
    # A port taken on the IPv6 loopback: the free one is found there too.
    listener = socket.socket(socket.AF_INET6)
    listener.bind(("::1", 0))
    listener.listen()
    used = listener.getsockname()[1]
    try:
        sock, choice = hold_port("::1", default=used, requested=None, what="--nats-port")
    finally:
        listener.close()
    with sock:
        assert choice.port != used and choice.note == f"port {used} is taken; using {choice.port}"
        assert taken(choice.port, "::1")


def _listening(port: int = 0) -> socket.socket:
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen()
    return sock


def test_the_gateway_port_is_held_from_the_moment_it_is_chosen() -> None:
    # Checked free and let go, the port could be taken before the gateway bound it: two
    # `baton up`s started together both chose 8080, and the second took the first one's
    # gateway for its own (found by a review of the CLI). Held, the second gets another.
    with _listening() as taken:
        default = taken.getsockname()[1]
        first_sock, first = listen_on("127.0.0.1", default=default, requested=None, what="--port")
        with first_sock:
            assert first.port != default
            assert first.note == f"port {default} is taken; using {first.port}"
            assert first_sock.getsockname()[1] == first.port
            second_sock, second = listen_on(
                "127.0.0.1", default=first.port, requested=None, what="--port"
            )
            with second_sock:
                assert second.port not in (default, first.port)
        with pytest.raises(CliError, match=rf"--port: port {default} on 127.0.0.1 is taken"):
            listen_on("127.0.0.1", default=8080, requested=default, what="--port")


@pytest.mark.parametrize("host", ["nosuchhost.invalid", "10.9.9.9"])
@pytest.mark.parametrize("requested", [None, 9000])
def test_a_host_that_cannot_be_listened_on_is_an_error_naming_host(
    host: str, requested: int | None
) -> None:
    # A traceback (an unknown name, an address not on this machine), or "port 9000 is taken".
    with pytest.raises(CliError, match=rf"--host: cannot listen on {host}: "):
        listen_on(host, default=8080, requested=requested, what="--port")


def test_a_host_name_is_listened_on_over_ipv4_as_uvicorn_did(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Where `localhost` resolves to ::1 first, taking the resolver's first answer moved the
    # gateway to IPv6, where uvicorn, binding the name itself, had listened on IPv4.
    real = socket.getaddrinfo

    def ipv6_first(host: str, port: int, family: int = 0, *args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        if host == "localhost" and family == 0:
            return [(socket.AF_INET6, socket.SOCK_STREAM, 6, "", ("::1", port, 0, 0))]
        return real(host, port, family, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(socket, "getaddrinfo", ipv6_first)
    sock, _ = listen_on("localhost", default=0, requested=None, what="--port")
    with sock:
        assert sock.family == socket.AF_INET
