"""`RelayLease`: the outbox lease row that lets one `OutboxRelay` per database publish."""

from __future__ import annotations

import time
from collections.abc import Callable

from baton_eventstore.port import Outbox


class RelayLease:
    """The lease `name` held by `holder` for `ttl` seconds, renewed once half of it has gone.

    `on_taken` is called when the lease is taken anew rather than renewed: what the relay
    learned while another relay may have held it is out of date.
    """

    def __init__(
        self, outbox: Outbox, name: str, holder: str, ttl: float, on_taken: Callable[[], None]
    ) -> None:
        self._outbox = outbox
        self._name = name
        self.holder = holder
        self.ttl = ttl
        self._on_taken = on_taken
        self._renew_at = 0.0  # monotonic time after which the lease must be renewed
        self._holding = False  # the lease was ours at the last look

    async def hold(self) -> bool:
        """Whether this relay holds the lease now, taking or renewing it when due."""
        # Renewing is a write transaction; doing it only once half the TTL has gone keeps it
        # off the per-event path. A relay that stalls past its TTL may overlap its successor
        # for one batch: JetStream's duplicate window drops those copies, and after a stall
        # longer than half the window the rows are old and looked up first (`DuplicateWindow`).
        if time.monotonic() < self._renew_at:
            return True
        if not await self._outbox.acquire_lease(self._name, self.holder, self.ttl):
            self._renew_at = 0.0
            self._holding = False
            return False
        if not self._holding:  # taken anew: what was logged before may be published already
            self._on_taken()
            self._holding = True
        self._renew_at = time.monotonic() + self.ttl / 2
        return True

    def lapse(self) -> None:
        """Count the lease as not held: the next `hold` asks the database again."""
        self._renew_at = 0.0
        self._holding = False

    async def release(self) -> None:
        """Give the lease up, so another relay takes over without waiting for it to expire."""
        self.lapse()
        await self._outbox.release_lease(self._name, self.holder)
