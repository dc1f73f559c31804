"""Opening live sessions: replay what the client missed from the history, then go live.

`LiveEvents.subscribe` is the Python API behind `/ws` and `/api/events`: "events of a user
(or one of its instances) since seq N, then live", for any other front end to reuse.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections.abc import AsyncIterator, Callable, Iterator
from datetime import datetime, timedelta

from baton_notifier.domain.live import (
    CLOSE_GOING_AWAY,
    CLOSE_INTERNAL,
    CLOSE_TOO_MANY_SESSIONS,
    CLOSE_TRY_AGAIN,
    CLOSE_UNAUTHORIZED,
    GOING_AWAY_REASON,
    HISTORY_AWAY_REASON,
    INTERNAL_REASON,
    TOKEN_EXPIRED_REASON,
    Filter,
    Replay,
    plan_replay,
    ready_notice,
    too_many_sessions_reason,
    too_old,
    too_old_notice,
)
from baton_notifier.domain.stream_position import Position
from baton_notifier.service.live_hub import LiveHub
from baton_notifier.service.live_ports import EventHistory, HistoryUnavailable, LiveFeed
from baton_notifier.service.live_session import LiveSession

# The logger keeps the name it had before this code left `service/live.py`: log filters and
# operators' logging config select these lines by that name.
log = logging.getLogger("baton_notifier.service.live")


REPLAY_WINDOW = 32
"""The most replayed frames a session queues ahead of its client. Each replay parses its own
copy of every event it reads (live events are shared by every session), so with the whole
queue as its window, 32 sessions resuming a week of 60 KB events and reading nothing took the
gateway past 1.4 GB; a client that reads gets the replay as fast with this window."""


class TooManySessions(Exception):
    """The user holds `limit` sessions already; `code` and `reason` are what its client is told."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.code = CLOSE_TOO_MANY_SESSIONS
        self.reason = too_many_sessions_reason(limit)
        super().__init__(self.reason)


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
        sessions_per_user: int | None = None,
    ) -> None:
        self.hub = hub
        self._feed = feed
        self._history = history
        self._queue_size = queue_size
        self._max_age = replay_max_age
        self._clock = clock
        self._retry = retry_seconds
        self._give_up = give_up_seconds
        self._ended_all: tuple[int, str] | None = None  # set once the gateway is stopping
        self.sessions_per_user = sessions_per_user  # None: as many as a user opens
        self._open: dict[str, int] = {}  # sessions open per user, ended ones included until
        # their `subscribe` is left (a WebSocket then closes, an SSE stream writes `closed`)
        self._none_open = asyncio.Event()
        self._none_open.set()

    def sessions_of(self, user_id: str) -> int:
        """How many sessions `user_id` holds open."""
        return self._open.get(user_id, 0)

    def has_room(self, user_id: str) -> bool:
        """True when `user_id` may open one more session now."""
        limit = self.sessions_per_user
        return limit is None or self.sessions_of(user_id) < limit

    @contextlib.asynccontextmanager
    async def subscribe(
        self,
        user_id: str,
        *,
        instance_id: str | None = None,
        after_seq: int | None = None,
        epoch: str | None = None,
        valid_until: datetime | None = None,
    ) -> AsyncIterator[LiveSession]:
        """A session for the user's events (one instance's, if named) after `after_seq`.

        Without `after_seq` only events from now on arrive. A `ready` notice marks the end
        of the replay; `resync` says the gap is gone and state must be reloaded over HTTP.
        `epoch` is the stream's that `after_seq` counts in (from the frames the client had):
        when the stream is another one now (deleted and created again), the client gets
        `resync`, not a replay of the new stream's events past a seq of the old one. Without
        it, only the numbers are checked.
        At `valid_until` (when the caller's token stops being accepted), if given, the
        session ends with `CLOSE_UNAUTHORIZED`: the client gets a new token and resumes.
        A user holding `sessions_per_user` sessions already gets `TooManySessions` instead.
        """
        with self._counted(user_id):
            resume = None if after_seq is None else Position(after_seq, epoch)
            async with self._session(user_id, instance_id, resume, valid_until) as session:
                yield session

    @contextlib.contextmanager
    def _counted(self, user_id: str) -> Iterator[None]:
        limit = self.sessions_per_user
        if limit is not None and self.sessions_of(user_id) >= limit:
            raise TooManySessions(limit)
        self._open[user_id] = self.sessions_of(user_id) + 1
        self._none_open.clear()
        try:
            yield
        finally:
            if (left := self._open[user_id] - 1) > 0:
                self._open[user_id] = left
            else:
                del self._open[user_id]
                if not self._open:
                    self._none_open.set()

    @contextlib.asynccontextmanager
    async def _session(
        self,
        user_id: str,
        instance_id: str | None,
        resume: Position | None,
        valid_until: datetime | None,
    ) -> AsyncIterator[LiveSession]:
        after_seq = None if resume is None else resume.seq
        session = LiveSession(Filter(user_id, instance_id), self._queue_size, after_seq)
        if valid_until is not None:
            seconds = (valid_until - self._clock()).total_seconds()
            session.end_after(seconds, CLOSE_UNAUTHORIZED, TOKEN_EXPIRED_REASON)
        # Where the session starts: every event after this reaches it (None while the feed is
        # not ready yet). Sent as the SSE `id` of `ready`: a browser that drops before its first
        # event then resumes from there, instead of from now, missing what came meanwhile.
        seq = self._feed.position()
        position = None if seq is None else Position(seq, self._feed.epoch())
        self.hub.add(session)
        if self._ended_all is not None:
            session.end(*self._ended_all)  # a request that got in just before the stop
        catch_up = asyncio.create_task(self._catch_up(session, resume, position))
        try:
            yield session
        finally:
            catch_up.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await catch_up
            session.end(CLOSE_GOING_AWAY, GOING_AWAY_REASON)

    def end_all(self, code: int = CLOSE_GOING_AWAY, reason: str = GOING_AWAY_REASON) -> None:
        """End every session, and each one opened from now on (the gateway is stopping: a
        session left open would keep it waiting); their clients reconnect elsewhere."""
        self._ended_all = (code, reason)
        for session in self.hub.sessions():
            session.end(code, reason)

    async def closed(self, within: float) -> bool:
        """Wait, at most `within` seconds, until no session is open: each ended one has left
        its `subscribe` (its WebSocket closed with the code it ended with, its SSE stream wrote
        `closed`). True when none is left."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._none_open.wait(), within)
        return self._none_open.is_set()

    async def _catch_up(
        self, session: LiveSession, resume: Position | None, position: Position | None
    ) -> None:
        try:
            await self._feed.wait_ready()
            if resume is not None and not await self._replay_retrying(session, resume.epoch):
                return
            if position is None:
                await session.put(ready_notice(session.replayed))
            else:
                seq = max(position.seq, session.last_seq)
                await session.put(ready_notice(session.replayed, seq, position.epoch))
            await session.go_live()
        except Exception:
            log.exception("catching up %s failed", session.filter.user_id)
            session.end(CLOSE_INTERNAL, INTERNAL_REASON)

    async def _replay_retrying(self, session: LiveSession, epoch: str | None) -> bool:
        """Replay, retried while the history is away, for up to `give_up_seconds`; then the
        session ends with `CLOSE_TRY_AGAIN` (False). One warning each way per session: with
        NATS gone, a thousand resuming clients must not log a thousand lines a second."""
        loop = asyncio.get_running_loop()
        give_up_at = loop.time() + self._give_up
        pause, user = self._retry, session.filter.user_id
        for attempt in itertools.count():
            try:
                await self._replay(session, epoch)
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

    async def _replay(self, session: LiveSession, epoch: str | None) -> None:
        bounds = await self._history.bounds()
        plan = plan_replay(session.last_seq, bounds, epoch)
        if not isinstance(plan, Replay):
            session.rewind(min(session.last_seq, bounds.first_seq - 1))
            await session.put(plan.notice)
            return
        user, instance = session.filter.user_id, session.filter.instance_id
        first = True
        since = self._history.since(user, instance, plan.after_seq, bounds.epoch)
        async with contextlib.aclosing(since) as it:
            async for stored in it:
                if first and too_old(stored.stored_at, self._clock(), self._max_age):
                    await session.put(too_old_notice(self._max_age, bounds.first_seq))
                    return
                first = False
                before = session.last_seq
                await session.put(stored.event, room=REPLAY_WINDOW)
                session.replayed += session.last_seq != before
