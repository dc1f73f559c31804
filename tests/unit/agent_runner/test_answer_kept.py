"""A model's answer is not thrown away for a cut connection: the writes that record it (a DAG
step's result; a turn's reply, facts and items) are tried again while the store is unavailable,
within the store's time, instead of failing the call so that its retry pays the model again.

Seen while PostgreSQL's connections were cut (`pg_terminate_backend`) under load: a step's
result and a turn's reply failed to record, and the workflow's retry of the same key called the
model a second time."""

from __future__ import annotations

import pytest

from baton_agent_runner.domain.task import TaskCall
from baton_agent_runner.service.ports import StoreUnavailable
from baton_agent_runner.service.tasks import TaskRunner
from baton_agent_runner.service.turns import AgentRunner
from baton_contracts import ErrorCode, RemoteError
from baton_contracts.agent_api import AgentReply, TaskResult

from ...task_requests import research_step
from .test_task_deadline import Log, Models
from .test_task_deadline import _runner as task_runner
from .test_turn_deadline import NOW, Agents, Stores, _always, _turn
from .test_turn_deadline import _runner as turn_runner


class Cuts:
    """Fails the first `cuts` writes as a connection cut mid-statement does."""

    def __init__(self, cuts: int = 1) -> None:
        self.cuts = cuts

    def cut(self) -> None:
        if self.cuts:
            self.cuts -= 1
            raise StoreUnavailable("PostgreSQL: ConnectionDoesNotExistError: connection was closed")


class CutLog(Log):
    def __init__(self, cuts: int) -> None:
        super().__init__()
        self.cutter = Cuts(cuts)

    async def put(
        self, user_id: str, key: str, call: TaskCall, result: TaskResult, digest: str | None = None
    ) -> TaskResult:
        self.cutter.cut()
        return await super().put(user_id, key, call, result, digest)


class CutStores(Stores):
    def __init__(self, cuts: int) -> None:
        super().__init__()
        self.cutter = Cuts(cuts)

    async def put(
        self, user_id: str, key: str, reply: AgentReply, digest: str | None = None
    ) -> AgentReply:
        self.cutter.cut()
        return await super().put(user_id, key, reply, digest)


async def test_a_step_result_whose_record_was_cut_off_is_recorded_by_the_next_try() -> None:
    models, log = Models(), CutLog(cuts=2)
    runner: TaskRunner = task_runner(models, log)
    result = await runner.run(research_step())

    assert result.output == "done"
    assert models.calls == 1
    assert log.results["r-1:research:1"] == result


async def test_a_turn_reply_whose_record_was_cut_off_is_recorded_by_the_next_try() -> None:
    agents, stores = Agents(), CutStores(cuts=2)
    runner: AgentRunner = turn_runner(agents, stores, _always(NOW))
    reply = await runner.run(_turn(deadline=None))

    assert agents.calls == 1
    assert stores.replies["i-1:m-1"] == reply


async def test_a_store_that_stays_down_still_fails_the_call_within_the_store_time() -> None:
    models, log = Models(), CutLog(cuts=1_000_000)
    runner = task_runner(models, log)
    runner.store_timeout = 0.3
    with pytest.raises(RemoteError) as caught:
        await runner.run(research_step())

    assert caught.value.code is ErrorCode.UNAVAILABLE
    assert models.calls == 1 and log.results == {}
