"""One socket's live session: a bounded queue fed in seq order, held aside during catch-up.

The session holds live events aside while the replay runs, then drops every held event whose
seq it already sent, so handover neither loses nor repeats an event. A session that falls
`queue_size` frames behind ends itself (`CLOSE_TOO_SLOW`) instead of slowing anyone else down.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable
from types import CoroutineType

from baton_notifier.domain.live import (
    CLOSE_TOO_SLOW,
    TOO_SLOW_REASON,
    Filter,
    Frame,
    LiveEvent,
    Notice,
)
from baton_notifier.service.live_sending import Send, _Rest

NOTICE_MARGIN = 16
"""How many control frames (`pong`) may queue past a full queue (`LiveSession.say`)."""


class SessionEnded(Exception):
    """The session is over; `code` and `reason` say why (a WebSocket close code and text)."""

    def __init__(self, code: int, reason: str) -> None:
        super().__init__(f"{code} {reason}")
        self.code = code
        self.reason = reason


class LiveSession:
    """One socket: its filter, its bounded queue of frames, and the last seq queued for it.

    One task takes the frames: `next` one by one, or `pump` to send them all. While a pump
    waits with an empty queue, the next frame is sent by whoever offers it (see `pump`).
    """

    def __init__(self, filter_: Filter, queue_size: int, after_seq: int | None) -> None:
        self.filter = filter_
        self.queue_size = queue_size
        self.last_seq = after_seq or 0
        self.replayed = 0
        self.ended: SessionEnded | None = None
        self._queue: deque[Frame] = deque()
        self._held: list[LiveEvent] | None = []  # live events that arrive during catch-up
        self._wake: asyncio.Future[None] | None = None  # the reader, waiting for a frame
        self._room: asyncio.Future[None] | None = None  # a replay, waiting for the reader
        self._send: Send | None = None  # the pump's, while it runs
        self._in_flight: Awaitable[None] | BaseException | None = None  # for the pump to finish
        self.on_end: Callable[[LiveSession], None] = lambda _: None
        self.ended_event = asyncio.Event()
        self._end_timer: asyncio.TimerHandle | None = None

    def offer(self, event: LiveEvent) -> None:
        """A live event from the hub; never waits. Overflow ends the session as too slow."""
        if self.ended is not None or not self.filter.allows(event):
            return
        if self._held is not None:
            if len(self._held) >= self.queue_size:
                self.end(CLOSE_TOO_SLOW, TOO_SLOW_REASON)
            else:
                self._held.append(event)
            return
        self._push_event(event)

    def say(self, notice: Notice) -> None:
        """A control frame (an answer to the client). It may go `NOTICE_MARGIN` frames past a
        full queue: during a replay the queue is full by design (`put` waits for room), and a
        `ping` then is no sign of a slow client. Past the margin, the client sends faster
        than it reads, and the session ends as too slow."""
        if self.ended is None:
            self._push(notice, self.queue_size + NOTICE_MARGIN)

    async def put(self, frame: Frame, *, room: int | None = None) -> None:
        """Queue a replayed event or a notice, waiting while the queue is full (backpressure):
        while it holds `room` frames, if given (at most `queue_size`)."""
        limit = self.queue_size if room is None else min(room, self.queue_size)
        while self.ended is None and len(self._queue) >= limit:
            self._room = asyncio.get_running_loop().create_future()
            try:
                await self._room
            finally:
                self._room = None
        if self.ended is not None:
            return
        if isinstance(frame, LiveEvent):
            if frame.seq <= self.last_seq:
                return
            self.last_seq = frame.seq
        self._queue.append(frame)
        _wake(self._wake)

    def rewind(self, seq: int) -> None:
        """After a resync, deliver every held or new event after `seq`."""
        self.last_seq = min(self.last_seq, seq)

    async def go_live(self) -> None:
        """Catch-up is over: release the held events not yet sent, waiting for room as the
        replay does (the replay may have left the queue full: that is no slow client), then
        take live ones directly. Events that arrive meanwhile are held, and released too."""
        while self._held:
            held, self._held = self._held, []
            for event in held:
                await self.put(event)  # drops what the replay sent, and waits for room
        self._held = None

    async def next(self, timeout: float | None = None) -> Frame | None:
        """The next frame to send; None after `timeout` seconds without one; `SessionEnded`."""
        while (frame := self._take()) is None:
            try:
                async with asyncio.timeout(timeout):  # not wait_for: it can swallow a cancel
                    await self._wait()
            except TimeoutError:
                return None
        return frame

    async def pump(self, send: Send) -> None:
        """Send every frame, in order, through `send` until the session ends (`SessionEnded`).

        While the pump waits for frames, a new one is sent at once by whoever offers it (the
        live feed): with a socket that is not backed up, `send` finishes without waiting, and
        the frame goes out without a task switch. A send that has to wait is finished here,
        as is one that fails (its error ends the pump).
        """
        self._send = send
        try:
            while True:
                if self._in_flight is not None:
                    in_flight, self._in_flight = self._in_flight, None
                    if isinstance(in_flight, BaseException):
                        raise in_flight
                    await in_flight
                elif (frame := self._take()) is not None:
                    await send(frame)
                else:
                    await self._wait()
        finally:
            self._send = None
            if isinstance(self._in_flight, _Rest):
                self._in_flight.close()  # the pump was cancelled before it finished that send
            self._in_flight = None

    def end_after(self, seconds: float, code: int, reason: str) -> None:
        """End the session `seconds` from now (at once when not positive), unless it has ended.

        One timer for the session's life, cancelled when it ends: nothing is checked per frame.
        """
        if self.ended is not None:
            return
        if self._end_timer is not None:
            self._end_timer.cancel()
        self._end_timer = asyncio.get_running_loop().call_later(seconds, self.end, code, reason)

    def end(self, code: int, reason: str) -> None:
        """End the session: drop what is queued and wake everyone waiting on it."""
        if self.ended is not None:
            return
        if self._end_timer is not None:
            self._end_timer.cancel()  # it holds the session: let it go now, not at its deadline
            self._end_timer = None
        self.ended = SessionEnded(code, reason)
        self._queue.clear()
        self._held = None
        _wake(self._wake)
        _wake(self._room)
        self.ended_event.set()
        self.on_end(self)

    def _take(self) -> Frame | None:
        if self.ended is not None:
            raise SessionEnded(self.ended.code, self.ended.reason)
        if not self._queue:
            return None
        if self._room is not None:
            _wake(self._room)
        return self._queue.popleft()

    async def _wait(self) -> None:
        self._wake = asyncio.get_running_loop().create_future()
        try:
            await self._wake
        finally:
            self._wake = None

    def _push_event(self, event: LiveEvent) -> None:
        if event.seq <= self.last_seq:
            return  # already sent by the replay
        if self._push(event):
            self.last_seq = event.seq

    def _push(self, frame: Frame, limit: int | None = None) -> bool:
        if len(self._queue) >= (self.queue_size if limit is None else limit):
            self.end(CLOSE_TOO_SLOW, TOO_SLOW_REASON)
            return False
        if self._send is not None and self._wake is not None and not self._wake.done():
            self._send_now(self._send, frame)  # the pump is idle: nothing queued, nothing sent
            return True
        self._queue.append(frame)
        _wake(self._wake)
        return True

    def _send_now(self, send: Send, frame: Frame) -> None:
        sending = send(frame)
        if not isinstance(sending, CoroutineType):
            self._in_flight = sending  # not one we can step: the pump awaits it
            _wake(self._wake)
            return
        try:
            waiting_on = sending.send(None)
        except StopIteration:
            return  # sent
        except Exception as exc:  # the pump raises it, not the live feed that offered the frame
            self._in_flight = exc
        else:
            self._in_flight = _Rest(sending, waiting_on)
        _wake(self._wake)


def _wake(waiter: asyncio.Future[None] | None) -> None:
    if waiter is not None and not waiter.done():
        waiter.set_result(None)
