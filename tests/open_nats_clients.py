"""NATS clients a test connected and left open: found after each test, not tests later.

A nats-py client nobody closed keeps reconnecting on the session's one event loop after its
server is gone, and its default error callback logs `nats: encountered error` at ERROR into
whatever test runs next: a failure, or a caplog assertion, far from the test that leaked it.
`install()` wraps `Client.connect`, so every client that connects (`nats.connect`, a FastStream
broker, production code under test) is noted with where it was made; `tests/conftest.py`
fails the test that leaves one open and closes it there.

A client closed while it reconnects may reconnect on regardless: on Python 3.11,
`asyncio.wait_for` returns a refused connect's error instead of the cancel `close()` sent when
the two land together, and nats-py's reconnect loop never looks at `is_closed` (about one
close in ten with a 50 ms reconnect wait). `end_reconnecting` cancels it again until it ends.

A client made while a fixture of a wider scope than the test sets up (a session's broker) is
meant to outlive the test: it is not noted, so its fixture closes it as before.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import sys
import sysconfig
import traceback
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from nats.aio.client import Client

_CONNECT = Client.connect
_WIDER_SCOPES: list[str] = []
"""The scopes of the fixtures setting up now, innermost last (fixtures set others up)."""
_NOTED: list[_Opened] = []
"""Clients connected since the last `forget_noted`, outside fixtures of a wider scope."""
_NOT_OURS = ("<", sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["purelib"])
"""Where the frames of Python and the libraries are: they say nothing about who made a client."""


@dataclass(frozen=True)
class _Opened:
    client: weakref.ref[Client]
    loop: asyncio.AbstractEventLoop
    stack: traceback.StackSummary

    def where(self) -> str:
        """The frames of the code that made the client, innermost last."""
        ours = [f for f in self.stack if not f.filename.startswith(_NOT_OURS)]
        return "".join(traceback.format_list(ours[-8:] or list(self.stack)[-8:]))


@dataclass(frozen=True)
class LeftOpen:
    """A client a test connected and did not close, and where it was made."""

    client: Client
    where: str


def install() -> None:
    """Note every `Client` that connects from now on (once; `tests/conftest.py` calls it)."""
    if Client.connect is _CONNECT:
        Client.connect = _noting(_CONNECT)  # type: ignore[method-assign]


def _noting(connect: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(connect)
    async def connect_noted(self: Client, *args: Any, **kwargs: Any) -> None:
        wider = bool(_WIDER_SCOPES)  # read now: the fixture may be done when connect returns
        frame = sys._getframe(1)
        await connect(self, *args, **kwargs)
        # A connect that raised left nothing running: only a connected client is noted, and
        # its stack read (lines are looked up only if a test fails).
        if not wider:
            stack = traceback.StackSummary.extract(
                traceback.walk_stack(frame), limit=40, lookup_lines=False
            )
            stack.reverse()
            _NOTED.append(_Opened(weakref.ref(self), asyncio.get_running_loop(), stack))

    return connect_noted


@contextlib.contextmanager
def fixture_setting_up(scope: str) -> Iterator[None]:
    """While a fixture of `scope` sets up, clients it connects outlive tests by design unless
    the scope is the test's own."""
    if scope == "function":
        yield
        return
    _WIDER_SCOPES.append(scope)
    try:
        yield
    finally:
        _WIDER_SCOPES.pop()


def left_open() -> list[LeftOpen]:
    """The clients noted so far that are still not closed."""
    found = []
    for opened in _NOTED:
        client = opened.client()
        if client is not None and not client.is_closed:
            found.append(LeftOpen(client, opened.where()))
    return found


def forget_noted() -> None:
    """Start noting afresh (after each test)."""
    _NOTED.clear()


def reconnecting(client: Client) -> bool:
    """Whether the client's reconnect loop runs (after a close: one that lost its cancel)."""
    task = client._reconnection_task
    return task is not None and not task.done()


async def end_reconnecting(client: Client) -> None:
    """Cancel the closed client's reconnect loop until it has ended (it may lose a cancel)."""
    while reconnecting(client):
        client._reconnection_task.cancel()
        await asyncio.wait([client._reconnection_task], timeout=0.1)


def close_noted() -> None:
    """Close every noted client still open and end any reconnect loop left running, on their
    loops, so that none reconnects into later tests. Between tests the session's loop is idle;
    a loop that is running or gone is left be."""
    for opened in _NOTED:
        client = opened.client()
        if client is None or (client.is_closed and not reconnecting(client)):
            continue
        if not opened.loop.is_running() and not opened.loop.is_closed():
            opened.loop.run_until_complete(_close_for_good(client))


async def _close_for_good(client: Client) -> None:
    # What it still held can go nowhere; a test fails for the leak, not for this.
    with contextlib.suppress(Exception):
        await client.close()
    await end_reconnecting(client)


def described(leaks: list[LeftOpen]) -> str:
    """What a failing test says: how many clients, each with where it was made."""
    parts = [f"{len(leaks)} NATS client(s) connected during this test were never closed:"]
    parts += [f"--- client {i}, made at:\n{leak.where}" for i, leak in enumerate(leaks, 1)]
    parts.append("close each one (`await nc.close()` in a `finally`), or stop what owns it")
    return "\n".join(parts)
