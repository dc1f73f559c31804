"""The agent-runner over NATS: agent turns, and the answers for the criteria checkers."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from faststream.nats import NatsBroker

from baton_contracts import RemoteError
from baton_contracts.agent_api import (
    AgentReply,
    CancelTask,
    Count,
    CountInboxItems,
    CountMemoryFacts,
    RunAgent,
    RunTask,
    TaskResult,
)
from baton_messaging import broadcast, replica_gone, request
from baton_workflow.service.dag_ports import AgentRunnerAway


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


REASK_PAUSE_SECONDS = 0.5
"""The wait before a turn is asked again when no agent-runner took it."""


class NatsAgents:
    """Asks `agent.cmd.run`; no answer within `timeout` raises `unavailable`."""

    def __init__(self, broker: NatsBroker, timeout: float) -> None:
        self._broker = broker
        self._timeout = timeout

    async def run(self, request_: RunAgent) -> AgentReply:
        """One agent turn, with the moment this wait ends as the turn's `deadline`: the
        agent-runner then records nothing of a turn this service has reported as failed.

        When no agent-runner takes the turn, or the one that took it stopped before answering
        (a restart, a deploy), nothing was done: the turn is asked again, under the same key,
        while its deadline leaves time, rather than failed at once.
        """
        deadline = datetime.now(UTC) + timedelta(seconds=self._timeout)
        request_ = request_.model_copy(update={"deadline": deadline})
        while True:
            left = (deadline - datetime.now(UTC)).total_seconds()
            try:
                reply = await request(self._broker, request_, timeout=max(left, 0.001))
            except RemoteError as exc:
                left = (deadline - datetime.now(UTC)).total_seconds()
                if not replica_gone(exc) or left <= REASK_PAUSE_SECONDS:
                    raise
                await asyncio.sleep(REASK_PAUSE_SECONDS)
                continue
            assert isinstance(reply, AgentReply)
            return reply


class NatsTaskAgents:
    """Asks `agent.cmd.task` for one DAG step's answer, waiting at most the step's time left."""

    def __init__(self, broker: NatsBroker) -> None:
        self._broker = broker

    async def run_task(self, request_: RunTask, timeout: float) -> TaskResult:
        """One step's answer from the agent-runner; `AgentRunnerAway` when none answered."""
        try:
            reply = await request(self._broker, request_, timeout=timeout)
        except RemoteError as exc:
            if replica_gone(exc):
                raise AgentRunnerAway(exc.body) from exc
            raise
        assert isinstance(reply, TaskResult)
        return reply

    async def cancel_task(self, notice: CancelTask) -> None:
        """Every agent-runner replica hears it; the one running the task stops it."""
        await broadcast(self._broker, notice)
