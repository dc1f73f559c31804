"""The reply log and the task log: one value per (user, idempotency key), recorded once, and
the claims that keep replicas from calling the model twice for one key.

Before calling the model for a key, a replica claims it (`claim`, one statement with the look
for a recorded value); recording the value (`put`) gives the claim up in the same statement.
A claim runs out when the time its holder asked for is up, by the one clock that times every
claim (the database server's on PostgreSQL, whichever replica asks): a replica that died
holding one holds up a retry of its key until then, never for good. A claim that meets the
holder's `put` as it commits still finds the value (see `FirstRecorded.claim`). Should two
calls of a key both run all the same (on PostgreSQL, a claim statement held up between its
start and its insert for the whole of another replica's call, or claims a crash of the server
forgot), the second `put` finds the first value recorded and returns that one (first writer
wins), as every caller of the key gets.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Generic

from sqlalchemy.ext.asyncio import AsyncEngine

from baton_agent_runner.adapters.first_recorded import PRUNE_BATCH, FirstRecorded, R
from baton_agent_runner.adapters.sql import Clock, replies, task_results
from baton_agent_runner.domain.task import TaskCall
from baton_agent_runner.service.ports import Claim
from baton_contracts.agent_api import AgentReply, TaskResult


def _holder() -> str:
    return uuid.uuid4().hex


class _SqlLog(Generic[R]):
    """What the reply log and the task log share: all but how a row is recorded."""

    _log: FirstRecorded[R]

    async def get(self, user_id: str, key: str, digest: str | None = None) -> R | None:
        """The value recorded for the request `digest`, if any (`KeyReused` for another's)."""
        return await self._log.get(user_id, key, digest)

    async def claim(
        self, user_id: str, key: str, seconds: float, digest: str | None = None
    ) -> Claim[R]:
        """The recorded value, or the key's claim (see `FirstRecorded.claim`)."""
        return await self._log.claim(user_id, key, seconds, digest)

    async def release(self, user_id: str, key: str) -> None:
        """Drop this process's claim on the key."""
        await self._log.release(user_id, key)

    async def prune(self, older_than: datetime, batch: int = PRUNE_BATCH) -> int:
        """Forget the values recorded before `older_than`; how many went."""
        return await self._log.prune(older_than, batch)


class SqlReplyLog(_SqlLog[AgentReply]):
    """Replies by (user, idempotency key) in `agent_replies`; keys claimed as `replies`."""

    def __init__(self, engine: AsyncEngine, now: Clock, holder: str | None = None) -> None:
        names = ("replies", "replies")
        self._log = FirstRecorded(
            engine, replies, "reply", AgentReply, names, holder or _holder(), now
        )
        self._now = now

    async def put(
        self, user_id: str, key: str, reply: AgentReply, digest: str | None = None
    ) -> AgentReply:
        """Record the reply to the request `digest` (and drop the claim); when another writer
        recorded the key first, return its reply instead (`KeyReused` if it answered another
        request)."""
        row = {
            "user_id": user_id,
            "idempotency_key": key,
            "created_at": self._now(),
            "request_digest": digest,
        }
        return await self._log.put(row, reply) or reply


class SqlTaskLog(_SqlLog[TaskResult]):
    """Results of DAG steps by (user, idempotency key) in `agent_task_results`; keys claimed
    as `tasks`."""

    def __init__(self, engine: AsyncEngine, now: Clock, holder: str | None = None) -> None:
        names = ("task log", "tasks")
        self._log = FirstRecorded(
            engine, task_results, "result", TaskResult, names, holder or _holder(), now
        )
        self._now = now

    async def put(
        self,
        user_id: str,
        key: str,
        call: TaskCall,
        result: TaskResult,
        digest: str | None = None,
    ) -> TaskResult:
        """Record the result of the request `digest` (and drop the claim); when another writer
        recorded the key first, return its result (replayed; `KeyReused` if it answered
        another request)."""
        row = {
            "user_id": user_id,
            "idempotency_key": key,
            "run_id": call.run_id,
            "step_id": call.step_id,
            "created_at": self._now(),
            "request_digest": digest,
        }
        first = await self._log.put(row, result)
        return result if first is None else first.model_copy(update={"replayed": True})
