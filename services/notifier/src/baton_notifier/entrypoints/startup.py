"""What `python -m baton_notifier` reads and checks first, before the gateway is imported.

Importing the gateway (FastAPI, uvicorn, FastStream...) takes seconds, more on a slow machine;
a bad setting is said at once instead. Keep this module light: settings and
`baton_messaging`'s light modules only.
"""

from __future__ import annotations

import os
import socket
import sys

from baton_messaging.lifeline import lifeline_fd
from baton_messaging.setting_problems import settled
from baton_messaging.settings import MessagingSettings
from baton_notifier.settings import NotifierSettings, SettingsError, load_settings
from baton_telemetry.settings import TelemetrySettings

NAME = "baton-notifier"


def checked_settings() -> tuple[NotifierSettings, int | None]:
    """The gateway's settings and its lifeline (`BATON_LIFELINE_FD`), or exit with status 2
    and one line naming each bad variable. `BATON_HTTP_FD` is checked too, not taken: `main`
    takes the socket (`inherited_sockets`)."""
    try:
        settings = load_settings()
        lifeline = lifeline_fd(os.environ)
        for sock in inherited_sockets(settings) or ():
            # A socket object closes its descriptor when it is collected: the check lets go.
            sock.detach()
    except ValueError as exc:  # a `SettingsError`, or a bad `BATON_LIFELINE_FD`
        print(f"{NAME}: {exc}", file=sys.stderr)
        sys.exit(2)
    # Read when the broker is built (`BATON_CONNECT_TIMEOUT_SECONDS`) and when tracing starts
    # (`OTEL_EXPORTER_OTLP_ENDPOINT`...), after the heavy imports: checked here, so a bad one
    # is one line at once, not seconds later or a traceback from inside the start.
    settled(NAME, MessagingSettings)
    settled(NAME, TelemetrySettings)
    return settings, lifeline


def inherited_sockets(settings: NotifierSettings) -> list[socket.socket] | None:
    """The listening socket `BATON_HTTP_FD` names, if it does (else uvicorn binds the host and
    port). `baton up` binds the port when it picks it and hands the socket to every gateway it
    starts: no other process can take the port in between, and a restart queues connections
    instead of refusing them."""
    if settings.http_fd is None:
        return None
    try:
        sock = socket.socket(fileno=settings.http_fd)
    except OSError as exc:
        raise SettingsError(
            f"BATON_HTTP_FD: {settings.http_fd} is not an open socket ({exc.strerror})"
        ) from None
    if sock.type != socket.SOCK_STREAM or sock.family not in (socket.AF_INET, socket.AF_INET6):
        sock.detach()
        raise SettingsError(f"BATON_HTTP_FD: {settings.http_fd} is not a TCP socket")
    return [sock]
