"""What the turn use case needs from the outside world."""

from __future__ import annotations

from typing import Protocol

from baton_contracts.agent_api import AgentReply


class MemoryStore(Protocol):
    """Long-term memory: facts about a user, one per (category, key); a new text replaces."""

    async def put_fact(self, user_id: str, category: str, key: str, text: str) -> None:
        """Save or correct one fact."""

    async def facts(self, user_id: str, category: str) -> dict[str, str]:
        """The user's facts in one category, by key."""

    async def count(self, user_id: str, category: str | None) -> int:
        """How many facts the user has (in one category, or in all)."""


class InboxStore(Protocol):
    """The user's inbox items; deferred ones wait for the brain dump."""

    async def add(self, user_id: str, contents: list[str], status: str) -> None:
        """Save items with `source="onboarding"` and the given status."""

    async def promote_deferred(self, user_id: str) -> list[str]:
        """Turn the user's deferred items into new ones; return their contents."""

    async def count(self, user_id: str, status: str | None) -> int:
        """Items with that status (None: every item that is not deferred)."""


class ReplyLog(Protocol):
    """Replies already given, by the caller's idempotency key."""

    async def get(self, user_id: str, key: str) -> AgentReply | None:
        """The recorded reply, if any."""

    async def put(self, user_id: str, key: str, reply: AgentReply) -> None:
        """Record a reply (the first one recorded wins)."""
