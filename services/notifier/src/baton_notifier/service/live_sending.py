"""How a session's frames reach the socket: the `Send` callable, and the rest of a send.

Apart from `LiveSession` because `_Rest` is coroutine plumbing (PEP 380 by hand), not a
session rule: `LiveSession._send_now` steps a send once and leaves the rest to the pump.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Coroutine, Generator
from typing import Any

from baton_notifier.domain.live import Frame

Send = Callable[[Frame], Awaitable[None]]
"""Sends one frame to the client, waiting if the socket is backed up."""


class _Rest:
    """The rest of a coroutine that ran up to its first wait, on `waiting_on`: await it.

    This is what `await` does with a coroutine (PEP 380), picked up after its first step.
    """

    __slots__ = ("_coroutine", "_waiting_on")

    def __init__(self, coroutine: Coroutine[Any, Any, None], waiting_on: Any) -> None:
        self._coroutine, self._waiting_on = coroutine, waiting_on

    def close(self) -> None:
        """Abandon the rest (the coroutine sees `GeneratorExit` where it waits)."""
        self._coroutine.close()

    def __await__(self) -> Generator[Any, Any, None]:
        coroutine, waiting_on = self._coroutine, self._waiting_on
        while True:
            try:
                sent = yield waiting_on
            except GeneratorExit:
                coroutine.close()
                raise
            except BaseException as exc:  # a cancellation, passed on to the coroutine
                try:
                    waiting_on = coroutine.throw(exc)
                except StopIteration:
                    return
            else:
                try:
                    waiting_on = coroutine.send(sent)
                except StopIteration:
                    return
