"""What the agent-runner kept for a user: counts for the workflow's checkers, lists for people.

Every query has a deadline: a store that is down or does not answer becomes `unavailable`
in time for the caller, never a hung request or an internal error.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import TypeVar

from baton_agent_runner.service.ports import InboxStore, MemoryStore, StoreUnavailable
from baton_contracts import ErrorCode, ErrorDetail, RemoteError
from baton_contracts.agent_api import (
    Count,
    CountInboxItems,
    CountMemoryFacts,
    InboxItems,
    ListInboxItems,
    ListMemoryFacts,
    MemoryFacts,
)
from baton_eventstore import storage_full

logger = logging.getLogger("baton.agent_runner")
T = TypeVar("T")


@dataclass
class MemoryQueries:
    """Counts and lists of a user's memory facts and inbox items."""

    memory: MemoryStore
    inbox: InboxStore
    timeout: float

    async def count_facts(self, query: CountMemoryFacts) -> Count:
        """How many facts the user has (in one category, or all)."""
        require_user(query.user_id)
        found = await self._within("memory", self.memory.count(query.user_id, query.category))
        return Count(count=found)

    async def count_items(self, query: CountInboxItems) -> Count:
        """How many inbox items the user has (with one status, or all but deferred ones)."""
        require_user(query.user_id)
        found = await self._within("inbox", self.inbox.count(query.user_id, query.status))
        return Count(count=found)

    async def inbox_items(self, query: ListInboxItems) -> InboxItems:
        """The user's inbox, newest first, without deferred items."""
        require_user(query.user_id)
        items = await self._within("inbox", self.inbox.list_items(query.user_id, query.limit))
        return InboxItems(items=items)

    async def memory_facts(self, query: ListMemoryFacts) -> MemoryFacts:
        """The user's facts; with `query`, the `limit` nearest to it, nearest first."""
        require_user(query.user_id)
        if query.query is None:
            work = self.memory.list_facts(query.user_id, query.category, query.limit)
        else:
            work = self.memory.search(query.user_id, query.query, query.category, query.limit)
        return MemoryFacts(facts=await self._within("memory", work))

    async def _within(self, store: str, work: Awaitable[T]) -> T:
        try:
            async with asyncio.timeout(self.timeout):
                return await work
        except (StoreUnavailable, TimeoutError) as exc:
            logger.warning("%s store unavailable: %r", store, exc)
            raise RemoteError.of(ErrorCode.UNAVAILABLE, _failed(store, exc, self.timeout)) from exc


def _failed(store: str, exc: StoreUnavailable | TimeoutError, timeout: float) -> str:
    """What the caller is told: whether the store was down, full or silent, as a turn's caller
    is (`turn_failures`); one sentence for all three left an operator to guess which, and
    said "did not answer within 4s" of a database that refused at once."""
    if isinstance(exc, StoreUnavailable):
        if storage_full(exc):
            return f"the {store} store is full (no space left on its disk); free some space"
        if exc.within is None:
            return f"the {store} store is unavailable; try again later"
        timeout = exc.within
    return f"the {store} store did not answer within {timeout:g}s; try again later"


def require_user(user_id: str) -> None:
    """Refuse a user id no token can carry: blank, or holding white space or control
    characters. Mem0 stores a user id trimmed (and refuses one with inner white space), so
    "alice " read and wrote as "alice" there: another user's memory."""
    if not user_id.strip():
        detail = ErrorDetail(field="user_id", message="user_id must not be empty")
        raise RemoteError.of(ErrorCode.INVALID, detail.message, [detail])
    if any(c.isspace() or not c.isprintable() for c in user_id):
        message = "user_id must not contain white space or control characters"
        detail = ErrorDetail(field="user_id", message=message)
        raise RemoteError.of(ErrorCode.INVALID, detail.message, [detail])
