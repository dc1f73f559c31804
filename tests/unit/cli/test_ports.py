from __future__ import annotations

import pytest

from baton_cli.errors import CliError
from baton_cli.ports import pick_port


def free_except(*taken: int):  # type: ignore[no-untyped-def]
    return lambda _host, port: port not in taken


def test_the_default_port_when_it_is_free() -> None:
    choice = pick_port(
        "127.0.0.1", default=8080, requested=None, what="--port", is_free=free_except()
    )
    assert (choice.port, choice.note) == (8080, None)


def test_another_port_and_a_note_when_the_default_is_taken() -> None:
    choice = pick_port(
        "127.0.0.1", default=4222, requested=None, what="--nats-port",
        is_free=free_except(4222), find_free=lambda _host: 50123,
    )  # fmt: skip
    assert (choice.port, choice.note) == (50123, "port 4222 is taken; using 50123")


def test_a_requested_port_that_is_free_is_used() -> None:
    choice = pick_port(
        "127.0.0.1", default=8080, requested=9000, what="--port", is_free=free_except()
    )
    assert choice.port == 9000


def test_a_requested_port_that_is_taken_is_an_error_naming_the_option() -> None:
    with pytest.raises(CliError, match=r"--port: port 9000 on 127.0.0.1 is taken"):
        pick_port(
            "127.0.0.1", default=8080, requested=9000, what="--port", is_free=free_except(9000)
        )


@pytest.mark.parametrize("port", [0, -1, 65536])
def test_a_requested_port_out_of_range_is_an_error(port: int) -> None:
    with pytest.raises(CliError, match=rf"--nats-port: {port} is not a TCP port"):
        pick_port(
            "127.0.0.1", default=4222, requested=port, what="--nats-port", is_free=free_except()
        )
