"""`LoggedAppends`: what an `OutboxRelay` may publish from the store's committed log.

It holds the appends the relay took from the log (`CommittedLog`) and has not published yet,
and how far the relay has published each stream (its head). From these it tells which
pending appends continue a stream the relay can vouch for, and so may be published from the
log as they are, and when the relay must fetch instead.
"""

from __future__ import annotations

import dataclasses
import time
from collections import OrderedDict

from baton_eventstore.committed import CommittedAppend, CommittedLog
from baton_eventstore.model import OutboxRow


class LoggedAppends:
    """Appends taken from `log` (None: the store keeps none) and each stream's published head,
    the latter for at most `max_heads` streams (the least recently published are forgotten)."""

    def __init__(self, log: CommittedLog | None, max_heads: int) -> None:
        self._log = log
        self._pending: list[CommittedAppend] = []  # taken from the log, not published yet
        self._heads: OrderedDict[str, int] = OrderedDict()  # stream -> published up to version
        self._max_heads = max_heads
        self.more = False  # the last batch from the log left appends behind it

    def listen(self) -> None:
        """Have the store log its commits from now on (a relay starts)."""
        if self._log is not None:
            self._log.listen()

    def stop_listening(self) -> None:
        """Have the store stop logging for this relay (it stopped)."""
        if self._log is not None:
            self._log.stop_listening()

    def take(self, published: set[int]) -> None:
        """Move what the store logged since the last batch to the pending appends.

        At most the log's capacity of them: past it (NATS has been away while appends went
        on), all are forgotten and the relay fetches, as it does when the log drops entries.
        Kept, they grew without bound, and so did the time `settle` took per batch.
        """
        log = self._log
        if log is not None and log.waiting:
            self._pending.extend(log.take())
            if len(self._pending) > log.capacity:
                self._pending.clear()
                return
            self.settle(published)  # a fetch may have published some of them already

    def drop(self) -> None:
        """Forget logged appends (without the lease another relay may publish them)."""
        self._pending.clear()
        if self._log is not None:
            self._log.take()

    def next_rows(self, limit: int, fetch_at: float) -> list[OutboxRow] | None:
        """The next batch from the pending appends, or None when the relay must fetch (as it
        must with nothing pending: rows may have come from elsewhere, and `drain` relies on an
        empty batch meaning an empty outbox), or once `fetch_at` (monotonic) has come."""
        if not self._pending:
            return None
        if time.monotonic() >= fetch_at:
            return None
        # A pending append holds only its unpublished rows: `settle` dropped the published
        # ones. One published in part (a batch that failed, or a fetch that ended inside it)
        # goes on from its first unpublished row, which follows what was published.
        heads: dict[str, int] = {}
        rows: list[OutboxRow] = []
        for index, append in enumerate(self._pending):
            stream = append.stream_id
            head = heads.get(stream, self._heads.get(stream))
            if append.expected_version and head != append.expected_version:
                return None  # rows of this stream may be waiting that the log does not hold
            heads[stream] = append.version
            rows.extend(append.rows)
            if len(rows) >= limit:
                self.more = index + 1 < len(self._pending)
                return rows
        self.more = False
        return rows

    def settle(self, published: set[int]) -> None:
        """Drop the pending appends that are published now (their rows' ids are all in
        `published`), moving their streams' heads; from one published in part, drop the rows
        that are. The relay calls this after every batch, before it forgets which ids it
        published (it deletes them): a row is settled while its id is still there.

        An append whose rows are all published is published through its version: from the
        log only after its stream's head, and by a fetch only after every row committed
        before it (a fetch takes rows in commit order). An append that published nothing
        moves its stream's head only when it continues it.
        """
        if not self._pending:
            return
        waiting: set[str] = set()  # streams with an earlier append still unpublished
        left: list[CommittedAppend] = []
        for append in self._pending:
            stream = append.stream_id
            rows = append.rows
            # Rows go out in order: one whose first row is not published waits whole, and
            # is not copied on every batch.
            rest = (
                rows
                if rows and rows[0].id not in published
                else [row for row in rows if row.id not in published]
            )
            if stream not in waiting and not rest:
                head = self._heads.get(stream, 0)
                if append.rows or head == append.expected_version:
                    self._heads[stream] = max(head, append.version)
                    self._heads.move_to_end(stream)
                continue
            if len(rest) < len(rows):  # published in part
                append = dataclasses.replace(append, rows=tuple(rest))
            waiting.add(stream)
            left.append(append)
        self._pending = left
        while len(self._heads) > self._max_heads:
            self._heads.popitem(last=False)
