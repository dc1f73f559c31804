"""Live events for sockets: one hub per process, and per socket a bounded queue fed in seq order.

A socket's session starts by holding live events aside while it replays what the client
missed from the stored history; then it switches to live, dropping every held event whose
seq it already sent. So handover neither loses nor repeats an event. A session that falls
`queue_size` frames behind is ended (`CLOSE_TOO_SLOW`) instead of slowing anyone else down,
and one whose token expires is ended then (`CLOSE_UNAUTHORIZED`) by a timer of its own.

`LiveEvents.subscribe` is the Python API behind `/ws` and `/api/events`: "events of a user
(or one of its instances) since seq N, then live", for any other front end to reuse.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Generator
from datetime import datetime, timedelta
from types import CoroutineType
from typing import Any

from baton_notifier.domain.live import (
    CLOSE_GOING_AWAY,
    CLOSE_INTERNAL,
    CLOSE_TOO_SLOW,
    CLOSE_TRY_AGAIN,
    CLOSE_UNAUTHORIZED,
    GOING_AWAY_REASON,
    HISTORY_AWAY_REASON,
    INTERNAL_REASON,
    TOKEN_EXPIRED_REASON,
    TOO_SLOW_REASON,
    Filter,
    Frame,
    LiveEvent,
    Notice,
    Replay,
    plan_replay,
    ready_notice,
    too_old,
    too_old_notice,
)
from baton_notifier.service.live_ports import EventHistory, HistoryUnavailable, LiveFeed

log = logging.getLogger(__name__)

Send = Callable[[Frame], Awaitable[None]]
"""Sends one frame to the client, waiting if the socket is backed up."""


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
        """A control frame (an answer to the client); counts against the queue like any frame."""
        if self.ended is None:
            self._push(notice)

    async def put(self, frame: Frame) -> None:
        """Queue a replayed event or a notice, waiting while the queue is full (backpressure)."""
        while self.ended is None and len(self._queue) >= self.queue_size:
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

    def go_live(self) -> None:
        """Catch-up is over: release the held events not yet sent, then take live ones directly."""
        held, self._held = self._held or [], None
        for event in held:
            self._push_event(event)

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

    def _push(self, frame: Frame) -> bool:
        if len(self._queue) >= self.queue_size:
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


def _wake(waiter: asyncio.Future[None] | None) -> None:
    if waiter is not None and not waiter.done():
        waiter.set_result(None)


class LiveHub:
    """Routes each live event, in memory, to the sessions of its user."""

    def __init__(self) -> None:
        self._by_user: dict[str, set[LiveSession]] = {}

    def add(self, session: LiveSession) -> None:
        """Start routing events to `session` (it leaves by itself when it ends)."""
        self._by_user.setdefault(session.filter.user_id, set()).add(session)
        session.on_end = self.remove

    def remove(self, session: LiveSession) -> None:
        """Stop routing events to `session`."""
        sessions = self._by_user.get(session.filter.user_id)
        if sessions is not None:
            sessions.discard(session)
            if not sessions:
                del self._by_user[session.filter.user_id]

    def deliver(self, event: LiveEvent) -> None:
        """Hand one event to every session of its user (each filters by instance itself)."""
        sessions = self._by_user.get(event.user_id)
        if sessions:
            for session in tuple(sessions):
                session.offer(event)

    def sessions(self) -> list[LiveSession]:
        """Every open session."""
        return [s for group in self._by_user.values() for s in group]


class LiveEvents:
    """Opens sessions: catch-up from the history, then live events from the hub."""

    def __init__(
        self,
        hub: LiveHub,
        feed: LiveFeed,
        history: EventHistory,
        *,
        queue_size: int,
        replay_max_age: timedelta,
        clock: Callable[[], datetime],
        retry_seconds: float = 0.5,
        give_up_seconds: float = 30.0,
    ) -> None:
        self.hub = hub
        self._feed = feed
        self._history = history
        self._queue_size = queue_size
        self._max_age = replay_max_age
        self._clock = clock
        self._retry = retry_seconds
        self._give_up = give_up_seconds

    @contextlib.asynccontextmanager
    async def subscribe(
        self,
        user_id: str,
        *,
        instance_id: str | None = None,
        after_seq: int | None = None,
        valid_until: datetime | None = None,
    ) -> AsyncIterator[LiveSession]:
        """A session for the user's events (one instance's, if named) after `after_seq`.

        Without `after_seq` only events from now on arrive. A `ready` notice marks the end
        of the replay; `resync` says the gap is gone and state must be reloaded over HTTP.
        At `valid_until` (when the caller's token stops being accepted), if given, the
        session ends with `CLOSE_UNAUTHORIZED`: the client gets a new token and resumes.
        """
        session = LiveSession(Filter(user_id, instance_id), self._queue_size, after_seq)
        if valid_until is not None:
            seconds = (valid_until - self._clock()).total_seconds()
            session.end_after(seconds, CLOSE_UNAUTHORIZED, TOKEN_EXPIRED_REASON)
        self.hub.add(session)
        catch_up = asyncio.create_task(self._catch_up(session, after_seq))
        try:
            yield session
        finally:
            catch_up.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await catch_up
            session.end(CLOSE_GOING_AWAY, GOING_AWAY_REASON)

    def end_all(self, code: int = CLOSE_GOING_AWAY, reason: str = GOING_AWAY_REASON) -> None:
        """End every session (the gateway is stopping); their clients reconnect elsewhere."""
        for session in self.hub.sessions():
            session.end(code, reason)

    async def _catch_up(self, session: LiveSession, after_seq: int | None) -> None:
        try:
            await self._feed.wait_ready()
            if after_seq is not None and not await self._replay_retrying(session):
                return
            await session.put(ready_notice(session.replayed))
            session.go_live()
        except Exception:
            log.exception("catching up %s failed", session.filter.user_id)
            session.end(CLOSE_INTERNAL, INTERNAL_REASON)

    async def _replay_retrying(self, session: LiveSession) -> bool:
        """Replay, retried while the history is away, for up to `give_up_seconds`; then the
        session ends with `CLOSE_TRY_AGAIN` (False). One warning each way per session: with
        NATS gone, a thousand resuming clients must not log a thousand lines a second."""
        loop = asyncio.get_running_loop()
        give_up_at = loop.time() + self._give_up
        pause, user = self._retry, session.filter.user_id
        for attempt in itertools.count():
            try:
                await self._replay(session)
            except HistoryUnavailable as exc:
                if attempt == 0:
                    log.warning("replay for %s failed (%s); retrying", user, exc)
                if loop.time() + pause >= give_up_at:
                    log.warning("replay for %s gave up after %gs: %s", user, self._give_up, exc)
                    session.end(CLOSE_TRY_AGAIN, HISTORY_AWAY_REASON)
                    return False
                await asyncio.sleep(pause)
                pause = min(max(pause, 0.05) * 2, 5.0)
            else:
                if attempt:
                    log.info("replay for %s went through after %d retries", user, attempt)
                return True
        raise AssertionError("unreachable")

    async def _replay(self, session: LiveSession) -> None:
        bounds = await self._history.bounds()
        plan = plan_replay(session.last_seq, bounds)
        if not isinstance(plan, Replay):
            session.rewind(min(session.last_seq, bounds.first_seq - 1))
            await session.put(plan.notice)
            return
        user, instance = session.filter.user_id, session.filter.instance_id
        first = True
        async with contextlib.aclosing(self._history.since(user, instance, plan.after_seq)) as it:
            async for stored in it:
                if first and too_old(stored.stored_at, self._clock(), self._max_age):
                    await session.put(too_old_notice(self._max_age, bounds.first_seq))
                    return
                first = False
                before = session.last_seq
                await session.put(stored.event)
                session.replayed += session.last_seq != before
