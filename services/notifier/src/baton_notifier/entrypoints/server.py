"""uvicorn for the gateway: live streams end first on shutdown, and tokens stay out of the logs."""

from __future__ import annotations

import logging
import re
import socket
from collections.abc import Callable

import uvicorn

_TOKEN_PARAM = re.compile(r"([?&]token=)[^&\s\"']+")


class RedactTokens(logging.Filter):
    """Replaces `?token=<jwt>` in log lines (uvicorn logs request paths) with `token=***`."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Redact the record in place; never drops it."""
        if isinstance(record.args, tuple):
            record.args = tuple(
                _TOKEN_PARAM.sub(r"\1***", a) if isinstance(a, str) else a for a in record.args
            )
        if isinstance(record.msg, str):
            record.msg = _TOKEN_PARAM.sub(r"\1***", record.msg)
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
