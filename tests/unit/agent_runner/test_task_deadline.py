"""A DAG step the workflow has given up: no model call once it is late, the model cut off at
the deadline however long the step's `timeout_seconds` is, and a `CancelTask` notice that
stops the call at once and records nothing."""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime, timedelta

import pytest

from baton_agent_runner.adapters.profiles import SHIPPED_PROFILES, load_profiles
from baton_agent_runner.domain.profile import Profile
from baton_agent_runner.domain.task import ModelChoice, ModelPrice, TaskCall
from baton_agent_runner.service.ports import Claim, ModelFailed, TaskAnswer
from baton_agent_runner.service.tasks import TaskRunner
from baton_contracts import ErrorCode, RemoteError
from baton_contracts.agent_api import CancelTask, RunTask, TaskResult, TokenUsage

from ...task_requests import research_step

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)


class Models:
    """A model that answers after `delay` seconds, counting its calls and the time it got."""

    def __init__(self, delay: float = 0.0) -> None:
        self.delay, self.calls, self.given, self.cut_off = delay, 0, 0.0, 0
        self.asked = asyncio.Event()

    def agent_model(self, profile: Profile) -> str:
        return "scripted"

    async def perform(
        self, profile: Profile, choice: ModelChoice, call: TaskCall, timeout: float
    ) -> TaskAnswer:
        self.calls, self.given = self.calls + 1, timeout
        self.asked.set()
        try:
            await asyncio.sleep(self.delay)
        except asyncio.CancelledError:
            self.cut_off += 1
            raise
        return TaskAnswer(output="done", usage=TokenUsage(input_tokens=3, output_tokens=1))


class Log:
    def __init__(self) -> None:
        self.results: dict[str, TaskResult] = {}

    async def get(self, user_id: str, key: str, digest: str | None = None) -> TaskResult | None:
        return self.results.get(key)

    async def claim(
        self, user_id: str, key: str, seconds: float, digest: str | None = None
    ) -> Claim[TaskResult]:
        return Claim(recorded=self.results.get(key), mine=key not in self.results)

    async def release(self, user_id: str, key: str) -> None:
        pass

    async def put(
        self, user_id: str, key: str, call: TaskCall, result: TaskResult, digest: str | None = None
    ) -> TaskResult:
        return self.results.setdefault(key, result)


def _runner(models: Models, log: Log, now: datetime = NOW) -> TaskRunner:
    return TaskRunner(
        profiles=load_profiles(SHIPPED_PROFILES),
        models=models,
        results=log,
        prices={"default": ModelPrice(input_usd_per_1k=0.0, output_usd_per_1k=0.0)},
        now=lambda: now,
    )


async def test_a_task_asked_after_its_deadline_is_refused_without_a_model_call() -> None:
    models, log = Models(), Log()
    with pytest.raises(RemoteError) as caught:
        await _runner(models, log).run(research_step(NOW - timedelta(milliseconds=1)))

    assert caught.value.code is ErrorCode.UNAVAILABLE
    assert "deadline" in caught.value.body.message and "not run" in caught.value.body.message
    assert models.calls == 0 and log.results == {}


async def test_the_model_gets_only_the_time_left_not_the_step_timeout() -> None:
    models = Models(delay=5.0)
    runner = _runner(models, Log())
    loop = asyncio.get_running_loop()
    began = loop.time()
    with pytest.raises(RemoteError) as caught:
        # 50 ms left of a 300 s step timeout: cut off then.
        await runner.run(research_step(NOW + timedelta(milliseconds=50)))

    assert caught.value.code is ErrorCode.UNAVAILABLE
    assert models.given == pytest.approx(0.05)
    assert loop.time() - began < 2.0


async def test_a_deadline_is_read_on_the_workflow_hosts_clock_not_this_hosts() -> None:
    # This host's clock is 10 s behind the workflow's. The step's deadline passed a second ago
    # by the workflow's clock (which set it): the step is refused, not given 9 s more.
    models, log = Models(), Log()
    runner = _runner(models, log, now=NOW - timedelta(seconds=10))
    runner.caller_now = lambda: NOW
    with pytest.raises(RemoteError) as caught:
        await runner.run(research_step(NOW - timedelta(seconds=1)))
    assert caught.value.code is ErrorCode.UNAVAILABLE
    assert models.calls == 0 and log.results == {}

    # 10 s ahead instead: a deadline 5 s away by the workflow's clock leaves the model 5 s.
    runner = _runner(models, log, now=NOW + timedelta(seconds=10))
    runner.caller_now = lambda: NOW
    await runner.run(research_step(NOW + timedelta(seconds=5)))
    assert models.given == pytest.approx(5.0)


async def test_the_step_timeout_still_applies_when_it_ends_first() -> None:
    models = Models()
    result = await _runner(models, Log()).run(
        research_step(NOW + timedelta(minutes=5), timeout=2.0)
    )

    assert result.output == "done"
    assert models.given == 2.0


async def test_a_recorded_result_is_returned_even_after_the_deadline() -> None:
    models, log = Models(), Log()
    first = await _runner(models, log).run(research_step(NOW + timedelta(seconds=10)))
    late = _runner(models, log, now=NOW + timedelta(seconds=20))
    again = await late.run(research_step(NOW + timedelta(seconds=10)))

    assert again.replayed and again.output == first.output
    assert models.calls == 1


async def test_without_a_deadline_the_step_timeout_is_the_models_time() -> None:
    models = Models()
    await _runner(models, Log()).run(research_step(None, timeout=7.0))

    assert models.given == 7.0


def test_a_deadline_without_a_time_zone_is_refused_naming_the_field() -> None:
    with pytest.raises(ValueError, match="deadline"):
        research_step(datetime(2026, 11, 25, 12, 0))


async def _started(runner: TaskRunner, models: Models, task: RunTask) -> asyncio.Task[TaskResult]:
    running = asyncio.create_task(runner.run(task))
    await models.asked.wait()
    return running


async def test_a_cancel_notice_stops_the_model_call_and_records_nothing() -> None:
    models, log = Models(delay=30.0), Log()
    runner = _runner(models, log)
    task = research_step(None)
    running = await _started(runner, models, task)
    await runner.cancel(
        CancelTask(user_id="alice", idempotency_key=task.idempotency_key, reason="run cancelled")
    )

    with pytest.raises(RemoteError) as caught:
        await asyncio.wait_for(running, 2.0)
    assert caught.value.code is ErrorCode.UNAVAILABLE
    assert "cancelled step 'research': run cancelled" in caught.value.body.message
    assert models.cut_off == 1 and log.results == {}
    models.delay = 0.0  # the step's retry, same key: the model is asked again
    assert (await runner.run(task)).output == "done" and models.calls == 2


async def test_a_cancel_is_logged_at_info_without_the_reason_the_user_gave(
    caplog: pytest.LogCaptureFixture,
) -> None:
    models, log = Models(delay=30.0), Log()
    runner = _runner(models, log)
    task = research_step(None)
    running = await _started(runner, models, task)
    reason = "run cancelled: my divorce papers are not ready"
    with caplog.at_level(logging.INFO, logger="baton.agent_runner"):
        await runner.cancel(
            CancelTask(user_id="alice", idempotency_key=task.idempotency_key, reason=reason)
        )
        with pytest.raises(RemoteError):
            await asyncio.wait_for(running, 2.0)
    said = [r.getMessage() for r in caplog.records if r.levelno >= logging.INFO]
    assert f"task {task.idempotency_key}: cancelled by the workflow" in said
    assert not any("divorce" in line for line in said)


async def test_the_same_key_queued_behind_a_cancelled_call_is_not_called_after_it() -> None:
    # The step sent twice (a workflow restart) waits here behind the first call of its key;
    # the workflow then gives the attempt up: both answer `unavailable`, one model call.
    models, log = Models(delay=30.0), Log()
    runner = _runner(models, log)
    task = research_step(None)
    running = await _started(runner, models, task)
    queued = asyncio.create_task(runner.run(task))
    await asyncio.sleep(0.05)  # queued behind the first
    await runner.cancel(
        CancelTask(user_id="alice", idempotency_key=task.idempotency_key, reason="run cancelled")
    )
    for call in (running, queued):
        with pytest.raises(RemoteError) as caught:
            await asyncio.wait_for(call, 2.0)
        assert caught.value.code is ErrorCode.UNAVAILABLE
        assert "cancelled step 'research': run cancelled" in caught.value.body.message
    assert models.calls == 1 and log.results == {}
    models.delay = 0.0  # a retry after both have gone is the step's retry: it is called
    assert (await runner.run(task)).output == "done" and models.calls == 2


async def test_a_notice_for_another_user_or_key_changes_nothing() -> None:
    models = Models(delay=0.2)
    runner = _runner(models, Log())
    task = research_step(None)
    running = await _started(runner, models, task)
    await runner.cancel(CancelTask(user_id="mallory", idempotency_key=task.idempotency_key))
    await runner.cancel(CancelTask(user_id="alice", idempotency_key="r-1:other:1"))

    assert (await running).output == "done"
    assert models.cut_off == 0


async def test_a_notice_after_the_task_ended_changes_nothing() -> None:
    models, log = Models(), Log()
    runner = _runner(models, log)
    task = research_step(None)
    await runner.run(task)
    await runner.cancel(CancelTask(user_id="alice", idempotency_key=task.idempotency_key))

    assert (await runner.run(task)).replayed and models.calls == 1


async def test_a_handler_cancelled_by_shutdown_stops_the_model_call_too() -> None:
    models = Models(delay=30.0)
    runner = _runner(models, Log())
    running = await _started(runner, models, research_step(None))
    running.cancel()

    with pytest.raises(asyncio.CancelledError):
        await running
    await asyncio.sleep(0)
    assert models.cut_off == 1


class FailsFirst(Models):
    """A model whose first call fails after a while; the later ones answer."""

    async def perform(
        self, profile: Profile, choice: ModelChoice, call: TaskCall, timeout: float
    ) -> TaskAnswer:
        if self.calls == 0:
            self.calls += 1
            await asyncio.sleep(0.2)
            raise ModelFailed("HTTP 502 from the endpoint")
        return await super().perform(profile, choice, call, timeout)


async def test_a_repeat_queued_behind_a_failed_call_gets_its_error_not_a_second_call() -> None:
    # The workflow sends a step again under its key and deadline when no answer comes in time:
    # the repeat queued here behind a call that failed called the model a second time.
    models, log = FailsFirst(), Log()
    runner = _runner(models, log)
    task = research_step(NOW + timedelta(seconds=60))
    first = asyncio.create_task(runner.run(task))
    await asyncio.sleep(0.05)
    repeat = asyncio.create_task(runner.run(task))
    results = await asyncio.gather(first, repeat, return_exceptions=True)
    assert all(isinstance(r, RemoteError) for r in results) and results[0] is results[1]
    assert (models.calls, log.results) == (1, {})
    # The step's retry (a new deadline) is called.
    assert (await runner.run(research_step(NOW + timedelta(seconds=90)))).output == "done"
    assert models.calls == 2
