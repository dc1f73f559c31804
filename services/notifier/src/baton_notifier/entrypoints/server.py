"""uvicorn for the gateway: live streams end first on shutdown, and tokens stay out of the logs."""

from __future__ import annotations

import asyncio
import logging
import re
import socket
from collections.abc import Awaitable, Callable
from typing import cast
from urllib.parse import unquote_plus

import uvicorn
from starlette.types import ASGIApp

from baton_notifier.entrypoints.stopping import AnswerWhenStopping, CutOffByStop

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


_UVICORN_CANCEL_LINE = "Cancel %s running task(s), timeout graceful shutdown exceeded"


class StopLines(logging.Filter):
    """uvicorn's lines for a stop that cancels what still runs, as a clean stop's: its
    `Cancel 1 running task(s) ...` (an ERROR) as a WARNING, and its `Exception in ASGI
    application` with the traceback of each cancel that `AnswerWhenStopping` already said in
    one line (`CutOffByStop`) dropped. A cancel outside the stop keeps its ERROR."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Drop or soften the record in place; any other record passes as it was."""
        if record.exc_info is not None and isinstance(record.exc_info[1], CutOffByStop):
            return False
        if record.msg == _UVICORN_CANCEL_LINE and record.levelno > logging.WARNING:
            record.msg = (
                "stopping: %s request(s) still running at the end of the stop grace "
                "(BATON_STOP_GRACE_SECONDS); cancelled, each answered 503 unless its "
                "response had begun"
            )
            record.levelno, record.levelname = logging.WARNING, "WARNING"
            return logging.getLogger(record.name).isEnabledFor(logging.WARNING)
        return True


LIVE_CLOSE_SECONDS = 1.0
"""How long the stop waits for the live sessions to close with their own code (1001), before
uvicorn closes what is left of them (1012)."""

ANSWER_SECONDS = 1.0
"""How long the stop waits, once the grace has run out, for the 503s of the requests it
cancelled to be written, before the process goes on to exit."""


class GatewayServer(uvicorn.Server):
    """A `uvicorn.Server` that ends the live sessions (`close_live`) before it waits for open
    connections, and answers 503 what still runs when its graceful shutdown times out.

    Without `close_live`, a server-sent-events response (which never finishes by itself) would
    keep uvicorn waiting forever; WebSocket clients get close code 1001 and reconnect
    elsewhere (uvicorn's own close, 1012 with no reason, only for a session that has not
    closed within `LIVE_CLOSE_SECONDS`). A request still waiting on its owner when
    `timeout_graceful_shutdown` runs out is cancelled by uvicorn and answered by
    `AnswerWhenStopping`.
    """

    def __init__(
        self, config: uvicorn.Config, close_live: Callable[[float], Awaitable[None]]
    ) -> None:
        self._answers = AnswerWhenStopping(cast(ASGIApp, config.app))  # the app, not a path
        config.app = self._answers
        super().__init__(config)
        self._close_live = close_live
        for name in ("uvicorn.error", "uvicorn.access"):
            _add_once(logging.getLogger(name), RedactTokens)
        _add_once(logging.getLogger("uvicorn.error"), StopLines)

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        """Stop listening, end every live session, then shut down as uvicorn does."""
        self._answers.stopping = True
        # Stop accepting first, as uvicorn's shutdown would: a connection taken during the wait
        # below would only be cut off, where a refused one goes to another replica at once.
        for server in self.servers:
            server.close()
        for listening in sockets or []:
            listening.close()
        # Before uvicorn's shutdown, which closes every WebSocket still open at once (1012).
        await self._close_live(LIVE_CLOSE_SECONDS)
        await super().shutdown(sockets)
        # uvicorn cancelled what was still running and returned: let the cancelled requests
        # write their 503 and their connections close before the process exits.
        loop = asyncio.get_running_loop()
        deadline = loop.time() + ANSWER_SECONDS
        while self.server_state.connections and loop.time() < deadline:  # noqa: ASYNC110
            await asyncio.sleep(0.01)  # uvicorn's set of connections: no event to wait on


def _add_once(logger: logging.Logger, kind: type[logging.Filter]) -> None:
    """A filter of `kind` on `logger`, unless one is there already (a second server)."""
    if not any(isinstance(f, kind) for f in logger.filters):
        logger.addFilter(kind())
