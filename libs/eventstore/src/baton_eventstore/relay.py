"""`OutboxRelay`: publishes committed outbox rows to NATS, one relay per database at a time."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import os
import socket
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Protocol

from baton_eventstore.port import Outbox, Publisher, outgoing
from baton_eventstore.relay_appends import LoggedAppends
from baton_eventstore.relay_lease import RelayLease
from baton_eventstore.relay_lines import say_failure, say_recovery
from baton_eventstore.window import DuplicateWindow
from baton_telemetry.outages import Outage

log = logging.getLogger(__name__)


class HasOutbox(Protocol):
    """A store whose `outbox` the relay drains (`SqlEventStore`, `InMemoryEventStore`)."""

    @property
    def outbox(self) -> Outbox: ...


class OutboxRelay:
    """Take rows in id order, publish them with msg id = event id, delete what was published.

    A batch is published pipelined (`Publisher.publish_all`): every row is sent before the
    first acknowledgement is awaited, so a batch costs one round trip to JetStream, and the one
    connection keeps the rows in order. The first row not acknowledged ends the batch. The rows
    sent after it may be stored already, ahead of it; so after a failure the relay publishes one
    row at a time until one goes through, and a row the broker refuses for good holds every row
    behind it, as it would if nothing were pipelined.

    A lease row (`outbox_lease`) renewed before every batch lets exactly one relay per database
    publish; another replica waits and takes over once the lease expires (or is released on
    stop). A row is deleted only after JetStream acknowledged it, so a crash republishes it and
    JetStream's duplicate window (`duplicate_window` seconds) drops the second copy. A row
    committed more than half that window ago is first looked up in JetStream, as its first
    publish may lie outside the window (`DuplicateWindow`); one JetStream holds is not sent.
    So is a row committed before this relay took the lease (after a crash, or from a replica
    that died): the stream would drop its copy, but a plain NATS subscriber would not.

    Published rows are deleted together, not batch by batch: the relay remembers their ids
    and leaves them out of its next fetches (a read, which commits nothing), and deletes them
    in one statement once the oldest has waited `delete_interval` seconds or
    `max_undeleted` of them are waiting. At low load a batch is one event, and a DELETE per
    batch was one more commit (on PostgreSQL a WAL flush) per event beside the writer's own.
    `drain` and `stop` leave no published row behind.

    Rows this process committed are not read back when the store keeps them (`committed`: the
    PostgreSQL store and the in-memory one): a started relay takes them from that log and
    publishes them as they are. It does so only while it can vouch for each stream's order:
    an append is published from the log when this relay has published its stream up to the
    append's `expected_version` (or the stream is new). Otherwise (another process or a unit
    of work wrote the stream, the log dropped an entry, the lease changed hands) the relay
    fetches, which publishes in commit order, and learns from what it fetched how far each
    stream is published. It also fetches when the last fetch was full, after a failure, and at
    least every `poll_interval`, so rows nobody logged (other replicas') are not held back.

    The lease is kept by `RelayLease` (`relay_lease.py`), the appends taken from the log and
    each stream's published head by `LoggedAppends` (`relay_appends.py`).

    A failed try is retried after a backoff (up to `max_backoff` seconds); an outage of NATS
    or the database is a few lines of its log, not one a try (`relay_lines.py`), timed on
    `clock` (monotonic seconds; a test gives its own), as `stalled_for` is.
    """

    def __init__(
        self,
        store: HasOutbox,
        publisher: Publisher,
        *,
        poll_interval: float = 0.5,
        batch_size: int = 100,
        lease_name: str = "outbox",
        lease_ttl: float = 10.0,
        max_backoff: float = 5.0,
        holder: str | None = None,
        delete_interval: float = 0.2,
        max_undeleted: int = 1000,
        max_heads: int = 65536,
        duplicate_window: float = 120.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if poll_interval <= 0 or lease_ttl <= 0 or delete_interval <= 0:
            raise ValueError("poll_interval, lease_ttl, delete_interval: must be > 0")
        if batch_size < 1 or max_undeleted < 1 or max_heads < 1:
            raise ValueError("batch_size, max_undeleted, max_heads: must be >= 1")
        self._outbox = store.outbox
        self._publisher = publisher
        self._poll_interval = poll_interval
        self._batch_size = batch_size
        self._max_backoff = max_backoff
        self.holder = holder or f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self._logged = LoggedAppends(self._outbox.committed, max_heads)
        self._lease = RelayLease(
            self._outbox, lease_name, self.holder, lease_ttl, on_taken=self._taken
        )
        self._wake = asyncio.Event()
        self._batch_lock = asyncio.Lock()
        self._stopping = False
        self._task: asyncio.Task[None] | None = None
        self.published = 0
        self._delete_interval = delete_interval
        self._max_undeleted = max_undeleted
        self._published_ids: list[int] = []  # published, not deleted yet: left out of fetches
        self._published: set[int] = set()  # the same ids, to look up
        self._delete_at = 0.0  # monotonic time by which they are to be deleted
        self._cautious = False  # the last batch failed: publish one row at a time
        self._more = False  # the last batch was full: more rows may be waiting
        self._backlog = False  # the last fetch was full: the table holds more than the log
        self._fetch_at = 0.0  # monotonic time by which the next batch must fetch
        self._window = DuplicateWindow(duplicate_window)
        self._taken_at: datetime | None = None  # rows committed before: maybe published
        self._clock = clock  # of the outage only (`stalled_for`, its log lines)
        self._outage = Outage()  # the failed tries in a row
        self._publish_failed = False  # the last failure was the broker's, not the database's

    def kick(self) -> None:
        """Wake the loop (call after a commit that wrote outbox rows), on the event loop's next
        pass rather than at once.

        The caller usually goes on, in the same step, to publish its reply; nats-py writes that
        reply when its flusher task next runs, and a relay woken at once runs first: the batch it
        builds and publishes then holds the reply back. Measured over one chat turn at a time on
        the benchmark's platform, the workflow service's reply reached the gateway 0.46-0.52 ms
        after it was published with the relay woken at once, 0.25-0.28 ms with this.
        """
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop running (a caller outside one): nothing waits to be flushed
            self._wake.set()
            return
        loop.call_soon(self._wake.set)

    def stalled_for(self) -> float:
        """Seconds since the first of this relay's failed tries in a row began (0 while it
        publishes, or waits for the lease another replica holds); infinite when its loop ended
        without being stopped. Events committed meanwhile wait in the outbox: nothing is lost,
        but nobody hears of them (live clients, other services) until it publishes again."""
        if self._task is not None and self._task.done():
            return math.inf
        return self._outage.lasted(self._clock())

    def start(self) -> None:
        """Run the relay loop in a background task."""
        if self._task is None:
            self._stopping = False
            self._logged.listen()
            self._task = asyncio.create_task(self._run(), name=f"outbox-relay:{self.holder}")

    async def stop(self, within: float | None = None) -> None:
        """Finish the in-flight batch, give the lease up, and end the loop, in `within`
        seconds if given: a batch still in flight then is cancelled, and what it had not
        published stays in the outbox for the next relay."""
        task, self._task = self._task, None
        if task is None:
            return
        self._stopping = True
        self._wake.set()
        loop = asyncio.get_running_loop()
        deadline = None if within is None else loop.time() + within
        if (await asyncio.wait([task], timeout=within))[0]:
            task.result()  # what ended the loop, raised as before
        else:
            task.cancel()  # a batch waiting on a database that answers nothing
            await asyncio.wait([task])
        self._logged.stop_listening()
        self._logged.drop()
        self._lease.lapse()
        # One failure ends both: on a database that answers nothing each would wait out a
        # statement's bound, and a raise here left the service's pools and broker open.
        # Published rows left behind are looked up by the next relay, never sent twice; a
        # lease not released runs out after `lease_ttl`.
        try:
            async with asyncio.timeout_at(deadline):
                await self._forget_published()
                await self._lease.release()
        except Exception:
            log.warning(
                "outbox relay: deleting published rows and releasing the lease on stop failed",
                exc_info=True,
            )

    async def flush(self, timeout: float) -> bool:
        """Before a stop: publish what is left while this relay holds the lease, for at most
        `timeout` seconds; True once the outbox is empty. Without the lease it waits for
        nothing (the relay that holds it publishes them), and a failure is only logged (the
        next start publishes them)."""
        try:
            async with asyncio.timeout(timeout):
                while (count := await self.publish_batch()) is not None:
                    if count == 0:
                        async with self._batch_lock:
                            await self._forget_published()
                        return True
        except Exception:
            log.warning("outbox relay: publishing before the stop failed", exc_info=True)
        return False

    async def drain(self, timeout: float = 30.0) -> None:
        """Publish until the outbox is empty (waits for the lease if another relay holds it)."""
        async with asyncio.timeout(timeout):
            backoff = 0.05
            while True:
                try:
                    count = await self.publish_batch()
                    if count is None:
                        await asyncio.sleep(self._poll_interval)
                    elif count == 0:
                        async with self._batch_lock:
                            await self._forget_published()
                        return
                except Exception:
                    log.warning("outbox relay: drain batch failed; retrying", exc_info=True)
                    await asyncio.sleep(backoff)
                    backoff = min(backoff * 2, self._max_backoff)

    async def publish_batch(self) -> int | None:
        """Publish one batch if we hold the lease; the number published, None without the lease."""
        async with self._batch_lock:
            if not await self._lease.hold():
                self._logged.drop()
                await self._forget_published()
                return None
            self._logged.take(self._published)  # before any delete: it reads the published ids
            # Fetched, not taken from the log, after a failure or while fetches come back full.
            rows = (
                None
                if self._backlog or self._cautious
                else self._logged.next_rows(self._batch_size, self._fetch_at)
            )
            if self._published_ids and (
                time.monotonic() >= self._delete_at
                or len(self._published_ids) >= self._max_undeleted
            ):
                await self._forget_published()
            if rows is None:
                # After a failure, one row at a time until one goes through: a row the broker
                # refuses for good then holds everything behind it, as it would unpipelined.
                limit = 1 if self._cautious else self._batch_size
                rows = await self._outbox.fetch(limit, exclude=self._published_ids)
                self._more = self._backlog = len(rows) == limit
                self._fetch_at = time.monotonic() + self._poll_interval
            else:
                self._more = self._logged.more
            if not rows:
                return 0
            done: list[int] = []
            try:
                taken_at = self._taken_at
                if held := await self._window.held(rows, self._publisher, taken_at):
                    done.extend(held)  # published before: a copy now would be stored twice
                    rows = [r for r in rows if r.id not in held]
                elif taken_at is not None:
                    # A predecessor published in order, one batch at a time: past a batch it
                    # had none of, it had published nothing, and the backlog needs no lookup.
                    self._taken_at = None
                # Pipelined, in order: JetStream stores them in the order sent. The first that
                # fails ends the batch (nothing after it counts as published).
                await self._publisher.publish_all(
                    [outgoing(r) for r in rows], lambda i: done.append(rows[i].id)
                )
            except BaseException:
                self._cautious = self._publish_failed = True
                raise
            finally:
                self.published += len(done)
                if done and not self._published_ids:
                    self._delete_at = time.monotonic() + self._delete_interval
                self._published_ids.extend(done)
                self._published.update(done)
                self._logged.settle(self._published)
            self._cautious = False
            return len(done)

    def _taken(self) -> None:
        """The lease was taken anew: what the log holds may be published already, and so may
        the rows committed until now (a predecessor, this replica before a crash, published
        them and died before deleting them): those are looked up before they are sent."""
        self._logged.drop()
        self._taken_at = datetime.now(UTC)

    async def _forget_published(self) -> None:
        if self._published_ids:
            # Appends logged since the batch are settled while their ids are still known:
            # past this, one whose rows a fetch published would stay pending for good.
            self._logged.take(self._published)
            await self._outbox.delete(self._published_ids)
            self._published_ids = []
            self._published.clear()

    async def _run(self) -> None:
        backoff = 0.1
        while not self._stopping:
            self._wake.clear()  # a kick during the batch below then still wakes the next sleep
            self._publish_failed = False
            tried_at = self._clock()
            try:
                count = await self.publish_batch()
                backoff = 0.1
            except Exception as exc:
                # Counted from the start of the try: a publish may fail only when it times out.
                say = self._outage.failed(self._clock(), began=tried_at)
                say_failure(exc, backoff, say, self._outage.lasted(self._clock()),
                            self._outage.tries, publishing=self._publish_failed)  # fmt: skip
                await self._sleep(backoff)
                backoff = min(backoff * 2, self._max_backoff)
                continue
            if self._outage.since is not None:  # no clock read per batch while all is well
                over = self._outage.ended(self._clock())
                assert over is not None
                say_recovery(*over)
            if count is not None and self._more:
                continue  # more rows may be waiting
            await self._sleep(self._idle_wait() if count is not None else self._lease_wait())

    def _idle_wait(self) -> float:
        """Until the next poll, or sooner when published rows are due to be deleted."""
        if not self._published_ids:
            return self._poll_interval
        return min(self._poll_interval, max(self._delete_at - time.monotonic(), 0.0))

    def _lease_wait(self) -> float:
        return min(self._poll_interval * 2, self._lease.ttl / 3)

    async def _sleep(self, seconds: float) -> None:
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(seconds):  # not wait_for: no task per sleep
                await self._wake.wait()
