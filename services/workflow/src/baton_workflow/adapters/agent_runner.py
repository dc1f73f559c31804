"""The agent-runner's answers for the criteria checkers, asked over NATS."""

from __future__ import annotations

from faststream.nats import NatsBroker

from baton_contracts.agent_api import Count, CountInboxItems, CountMemoryFacts
from baton_messaging import request


class NatsAgentRunnerQueries:
    """Asks `agent.query.*`; a missing or slow agent-runner raises, and the checker says so."""

    def __init__(self, broker: NatsBroker, timeout: float) -> None:
        self._broker = broker
        self._timeout = timeout

    async def count_memory_facts(self, user_id: str, category: str | None) -> int:
        """Facts in the user's long-term memory, optionally in one category."""
        query = CountMemoryFacts(user_id=user_id, category=category)
        reply = await request(self._broker, query, timeout=self._timeout)
        assert isinstance(reply, Count)
        return reply.count

    async def count_inbox_items(self, user_id: str) -> int:
        """Items in the user's inbox."""
        reply = await request(self._broker, CountInboxItems(user_id=user_id), timeout=self._timeout)
        assert isinstance(reply, Count)
        return reply.count
