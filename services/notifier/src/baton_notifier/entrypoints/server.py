"""uvicorn for the gateway: live streams end first on shutdown, and tokens stay out of the logs."""

from __future__ import annotations

import logging
import re
import socket
from collections.abc import Callable
from urllib.parse import unquote_plus

import uvicorn

_QUERY_PARAM = re.compile(r"([?&])([^=&\s\"'#]+)=([^&\s\"'#]*)")


def _redact_token(param: re.Match[str]) -> str:
    """`token=***` for the parameter the gateway reads as `token`, however its name is spelt
    (`%74oken`, decoded as the gateway decodes it); any other parameter as it was."""
    name = param[2]
    if name != "token" and ("%" not in name or unquote_plus(name) != "token"):
        return param[0]
    return f"{param[1]}{name}=***"


def _redacted(text: str) -> str:
    return _QUERY_PARAM.sub(_redact_token, text) if "oken" in text or "%" in text else text


class RedactTokens(logging.Filter):
    """Replaces `?token=<jwt>` in log lines (uvicorn logs request paths) with `token=***`."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Redact the record in place; never drops it."""
        if isinstance(record.args, tuple):
            record.args = tuple(_redacted(a) if isinstance(a, str) else a for a in record.args)
        if isinstance(record.msg, str):
            record.msg = _redacted(record.msg)
        return True


class GatewayServer(uvicorn.Server):
    """A `uvicorn.Server` that calls `end_live` before it waits for open connections.

    Without it, a server-sent-events response (which never finishes by itself) would keep
    uvicorn waiting forever; WebSocket clients get close code 1001 and reconnect elsewhere.
    """

    def __init__(self, config: uvicorn.Config, end_live: Callable[[], None]) -> None:
        super().__init__(config)
        self._end_live = end_live
        for name in ("uvicorn.error", "uvicorn.access"):
            logger = logging.getLogger(name)
            if not any(isinstance(f, RedactTokens) for f in logger.filters):
                logger.addFilter(RedactTokens())

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        """End every live session, then shut down as uvicorn does."""
        self._end_live()
        await super().shutdown(sockets)
