"""The agent-runner over NATS: agent turns, and the answers for the criteria checkers."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from faststream.nats import NatsBroker
from pydantic import BaseModel

from baton_contracts import ErrorCode, RemoteError
from baton_contracts.agent_api import (
    TASK_LOG_UNAVAILABLE,
    AgentProfiles,
    AgentReply,
    CancelTask,
    Count,
    CountInboxItems,
    CountMemoryFacts,
    ListAgentProfiles,
    RunAgent,
    RunTask,
    TaskResult,
)
from baton_messaging import broadcast, request, request_again_while_gone
from baton_workflow.service.ports import REPLY_GRACE

RESEND_AFTER = 5.0
"""Seconds without an answer before a turn or a step is asked again under the same key (then
twice as long each time): the agent-runner that took it may have been killed, or its answer
lost while NATS restarted; a live one answers the repeat from the call in flight."""


QUERY_MARGIN = 0.1
"""Seconds a checker's query to the agent-runner ends before the checker's own time is up."""


class NatsAgentRunnerQueries:
    """Asks `agent.query.*` for the criteria checkers, within `timeout` (the checker's).

    A missing or slow agent-runner raises `unavailable`, and the checker says so. A query ends
    a little before the checker's own timer, so that an agent-runner that does not answer in
    time (killed while it counted) is told apart from a slow checker (`checkers.Unreachable`).
    It is not sent again while no agent-runner takes it: the checker's time is not bounded by
    the turn's, and a turn with little time left would run past its deadline waiting."""

    def __init__(self, broker: NatsBroker, timeout: float) -> None:
        self._broker = broker
        self._timeout = max(timeout - QUERY_MARGIN, timeout / 2)

    async def count_memory_facts(self, user_id: str, category: str | None) -> int:
        """Facts in the user's long-term memory, optionally in one category."""
        reply = await self._ask(CountMemoryFacts(user_id=user_id, category=category))
        assert isinstance(reply, Count)
        return reply.count

    async def count_inbox_items(self, user_id: str) -> int:
        """Items in the user's inbox."""
        reply = await self._ask(CountInboxItems(user_id=user_id))
        assert isinstance(reply, Count)
        return reply.count

    async def _ask(self, query: CountMemoryFacts | CountInboxItems) -> BaseModel:
        return await request(self._broker, query, timeout=self._timeout)


PROFILES_TIMEOUT = 2.0
"""Seconds a save or a validation waits for the agent-runner's profiles (or the service's
request timeout, if shorter): without an answer the document is saved with its agents unchecked,
so a missing agent-runner slows a save down by no more than this."""


class NatsKnownAgents:
    """Asks `agent.query.profiles`, once, within `timeout`; no answer raises `unavailable`."""

    def __init__(self, broker: NatsBroker, timeout: float) -> None:
        self._broker = broker
        self._timeout = timeout

    async def slugs(self) -> list[str]:
        """The agents with a profile, as the agent-runner loaded them."""
        reply = await request(self._broker, ListAgentProfiles(), timeout=self._timeout)
        assert isinstance(reply, AgentProfiles)
        return reply.slugs


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
        until its deadline, rather than failed at once. So is a turn left unanswered for
        `RESEND_AFTER` seconds: its agent-runner may have been killed mid-call.
        """
        now = datetime.now(UTC)
        deadline = now + timedelta(seconds=self._timeout)
        if request_.deadline is not None and request_.deadline < deadline:
            deadline = request_.deadline  # the turn's own, counted from its arrival
        timeout = (deadline - now).total_seconds()
        if timeout <= 0:
            raise RemoteError.of(
                ErrorCode.UNAVAILABLE, "the turn's time ran out before its agent was asked"
            )
        request_ = request_.model_copy(update={"deadline": deadline})
        reply = await request_again_while_gone(
            self._broker,
            request_,
            # Waited for a little past the deadline the agent-runner keeps: a reply it
            # recorded just before it is still on its way, and must not be reported as failed.
            timeout=timeout + REPLY_GRACE,
            retry_for=timeout,
            resend_after=RESEND_AFTER,
        )
        assert isinstance(reply, AgentReply)
        return reply


class NatsTaskAgents:
    """Asks `agent.cmd.task` for one DAG step's answer, waiting at most the step's time left.

    No agent-runner at all, one that stopped before answering (a restart, a deploy), or one
    whose task log is unavailable, is not the step's fault: the step is asked again, under
    the same key, for up to the `retry_for` its caller gives (the step's own timeout, or
    `BATON_WORKFLOW_AGENT_RUNNER_WAIT_SECONDS`) before the call fails. A step left unanswered
    is asked again too (`RESEND_AFTER`), so that one whose agent-runner was killed mid-call is
    taken up by the next one.
    """

    def __init__(self, broker: NatsBroker) -> None:
        self._broker = broker

    async def run_task(self, request_: RunTask, timeout: float, retry_for: float) -> TaskResult:
        """One step's answer from the agent-runner."""
        # A shadow step's result is not recorded: a repeat would call its model again.
        reply = await request_again_while_gone(
            self._broker,
            request_,
            timeout=timeout,
            retry_for=retry_for,
            resend_after=None if request_.shadow else RESEND_AFTER,
            again_also=task_log_unavailable,
        )
        assert isinstance(reply, TaskResult)
        return reply

    async def cancel_task(self, notice: CancelTask) -> None:
        """Every agent-runner replica hears it; the one running the task stops it."""
        await broadcast(self._broker, notice)


def task_log_unavailable(exc: RemoteError) -> bool:
    """The agent-runner's own database did not answer: like one that is restarting, not the
    step's fault, so the step is asked again (a 25 s lock on `agent_claims` failed every DAG
    run at its agent step, while the workflow's own database outages fail none)."""
    return exc.code is ErrorCode.UNAVAILABLE and exc.body.message == TASK_LOG_UNAVAILABLE
