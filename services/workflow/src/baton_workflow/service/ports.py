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


REPLY_GRACE = 0.5
"""Seconds a turn's reply is waited for after the deadline sent with it: the request's way
there and the reply's way back over NATS. The agent-runner reads the deadline on this host's
clock (each send carries its reading, `baton_messaging.caller_clock`), not on its own. A reply
that comes in it is recorded: the turn's append may start until the deadline plus this."""


class Agents(Protocol):
    """The agents that answer a conversation step; they run in the agent-runner."""

    async def run(self, request: RunAgent) -> AgentReply:
        """One agent turn; raises `RemoteError` (`unavailable`) when the agent does not answer
        by the request's `deadline` (and `REPLY_GRACE` for a reply on its way)."""
        ...


class Notify(Protocol):
    """Wakes the outbox relay after a commit, so events leave without waiting for a poll."""

    def __call__(self) -> None:
        """Kick."""
        ...
