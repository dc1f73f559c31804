"""Choosing a port: the default if free, else any free one; a taken explicit port is an error."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from baton_cli.errors import CliError
from baton_messaging.embedded import free_port, port_is_free


@dataclass(frozen=True)
class PortChoice:
    """The port to use, and a note for the user when the default was taken."""

    port: int
    note: str | None = None


def pick_port(
    host: str,
    *,
    default: int,
    requested: int | None,
    what: str,
    is_free: Callable[[str, int], bool] = port_is_free,
    find_free: Callable[[str], int] = free_port,
) -> PortChoice:
    """`requested` if free (else an error naming the option), else `default` or any free port."""
    if requested is not None:
        if not 0 < requested < 65536:
            raise CliError(f"{what}: {requested} is not a TCP port (1-65535)")
        if not is_free(host, requested):
            raise CliError(f"{what}: port {requested} on {host} is taken")
        return PortChoice(requested)
    if is_free(host, default):
        return PortChoice(default)
    port = find_free(host)
    return PortChoice(port, note=f"port {default} is taken; using {port}")
