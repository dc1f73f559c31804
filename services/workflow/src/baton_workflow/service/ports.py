"""What the workflow service needs from the outside world, as roles."""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from baton_contracts.agent_api import AgentReply, RunAgent


class Clock(Protocol):
    """The current time, injected so tests can fix it."""

    def now(self) -> datetime:
        """Now, timezone-aware."""
        ...


class AgentRunnerQueries(Protocol):
    """Questions for the agent-runner, which owns memory facts and inbox items."""

    async def count_memory_facts(self, user_id: str, category: str | None) -> int:
        """How many long-term memory facts the user has in `category`."""
        ...

    async def count_inbox_items(self, user_id: str) -> int:
        """How many inbox items the user has."""
        ...


class Agents(Protocol):
    """The agents that answer a conversation step; they run in the agent-runner."""

    async def run(self, request: RunAgent) -> AgentReply:
        """One agent turn; raises `RemoteError` (`unavailable`) when the agent does not answer."""
        ...


class Notify(Protocol):
    """Wakes the outbox relay after a commit, so events leave without waiting for a poll."""

    def __call__(self) -> None:
        """Kick."""
        ...
