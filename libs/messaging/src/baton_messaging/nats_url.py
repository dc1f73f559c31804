"""`NatsUrl`: the type of every `BATON_NATS_URL` setting, checked when the settings are read.

nats-py takes almost any text: an empty one or a bad port failed deep inside the first
connect with a traceback, and one with another scheme or none (`http://...`, `garbage`) was
read as a host name and retried for ever, each service saying only that NATS was not ready.
"""

from __future__ import annotations

import re
from typing import Annotated
from urllib.parse import urlsplit

from pydantic import AfterValidator

SCHEMES = ("nats", "tls", "ws", "wss")
EXAMPLE = "nats://127.0.0.1:4222"

_USERINFO = re.compile(r"//[^/?#,\s]*@")


def shown_nats_url(value: str) -> str:
    """`value` as it may be printed or written down: the user and password, or the token,
    of each URL replaced by `***` (`nats://***@host:4222`)."""
    return _USERINFO.sub("//***@", value)


def check_nats_url(value: str) -> str:
    """`value` if every comma-separated URL in it is one NATS connects to; else ValueError
    saying which and why."""
    if not value.strip():
        raise ValueError(f"must be a NATS URL such as {EXAMPLE}, got nothing")
    for url in (part.strip() for part in value.split(",")):
        shown = shown_nats_url(url)
        if not url:
            raise ValueError(f"an empty URL in the comma-separated list {shown_nats_url(value)!r}")
        try:
            parts = urlsplit(url)
            port = parts.port
        except ValueError:
            raise ValueError(f"{shown!r}: the port must be a number from 1 to 65535") from None
        if parts.scheme not in SCHEMES:
            raise ValueError(
                f"{shown!r}: the scheme must be one of {', '.join(SCHEMES)} (as in {EXAMPLE})"
            )
        if not parts.hostname:
            raise ValueError(f"{shown!r}: no host (as in {EXAMPLE})")
        if port == 0:
            raise ValueError(f"{shown!r}: the port must be a number from 1 to 65535")
    return value


NatsUrl = Annotated[str, AfterValidator(check_nats_url)]
"""A `BATON_NATS_URL`: one URL, or several separated by commas (a cluster's servers)."""
