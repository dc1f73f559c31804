"""The checker registry: a checker that misbehaves counts as not met, named as a checker error."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

from baton_contracts import ErrorCode, RemoteError
from baton_workflow.domain.criteria import CriterionResult
from baton_workflow.domain.definitions import CriterionSpec, StepDefinition
from baton_workflow.domain.state import InstanceState
from baton_workflow.service.checkers import (
    CheckContext,
    CheckerParams,
    CheckerRegistry,
    Unreachable,
    builtin_checkers,
)

from .conftest import T0


class NoAgentRunner:
    async def count_memory_facts(self, user_id: str, category: str | None) -> int:
        raise AssertionError("not asked")

    async def count_inbox_items(self, user_id: str) -> int:
        raise AssertionError("not asked")


def context() -> CheckContext:
    state = InstanceState(
        instance_id="i-1", workflow_id="wf", user_id="u", current_step="a", started_at=T0
    )
    return CheckContext(state, StepDefinition(id="a", agent_slug="x"), None, 0, NoAgentRunner())


@pytest.mark.parametrize("answer", [True, None, {"met": True}, "yes"])
async def test_a_checker_answering_something_else_is_a_checker_error(answer: object) -> None:
    registry = CheckerRegistry()

    @registry.register("sloppy")
    async def sloppy(ctx: CheckContext, params: dict[str, Any]) -> Any:
        return answer

    @registry.register("fine")
    async def fine(ctx: CheckContext, params: dict[str, Any]) -> CriterionResult:
        return CriterionResult(checker="fine", met=True)

    report = await registry.evaluate(
        context(), [CriterionSpec(checker="sloppy"), CriterionSpec(checker="fine")], 1.0
    )
    [sloppy_result, fine_result] = report.results
    assert (sloppy_result.checker, sloppy_result.met) == ("sloppy", False)
    assert sloppy_result.error
    assert sloppy_result.detail.startswith("checker error: answered "), sloppy_result.detail
    assert fine_result.met
    assert report.missing() == [f"sloppy: {sloppy_result.detail}"]


async def test_a_result_is_named_for_the_criterion_it_answers() -> None:
    registry = CheckerRegistry()

    @registry.register("copied")
    async def copied(ctx: CheckContext, params: dict[str, Any]) -> CriterionResult:
        return CriterionResult(checker="shared_flag", met=False, detail="consent=False")

    report = await registry.evaluate(context(), [CriterionSpec(checker="copied")], 1.0)
    assert report.missing() == ["copied: consent=False"]


async def test_a_checker_class_registers_like_a_function() -> None:
    # Issue 3: adding a checker is registering one class or function.
    registry = CheckerRegistry()

    @registry.register("consent", params=CheckerParams)
    class Consent:
        async def __call__(self, ctx: CheckContext, params: dict[str, Any]) -> CriterionResult:
            return CriterionResult(checker="consent", met=bool(ctx.state.shared.get("consent")))

    @registry.register("plain")
    def plain(ctx: CheckContext, params: dict[str, Any]) -> CriterionResult:
        return CriterionResult(checker="plain", met=True)

    specs = [CriterionSpec(checker="consent"), CriterionSpec(checker="plain")]
    report = await registry.evaluate(context(), specs, 1.0)
    assert [(r.checker, r.met, r.error) for r in report.results] == [
        ("consent", False, False),
        ("plain", True, False),
    ]


class DownAgentRunner:
    """The agent-runner as a checker's queries find it while it restarts (or as the checker's
    timeout, raised where the query waits, finds a hung one)."""

    def __init__(self, error: Exception) -> None:
        self.error = error

    async def count_memory_facts(self, user_id: str, category: str | None) -> int:
        raise self.error

    async def count_inbox_items(self, user_id: str) -> int:
        return await self.count_memory_facts(user_id, None)


def down_context(agent_runner: DownAgentRunner) -> CheckContext:
    ctx = context()
    return CheckContext(ctx.state, ctx.step, None, 0, agent_runner)


NO_RESPONDERS = RemoteError.of(ErrorCode.UNAVAILABLE, "no responders on 'agent.query.memory_facts'")


UNREACHABLE = "its service is unavailable: no turn is decided on it"


@pytest.mark.parametrize(
    ("error", "why", "cause"),
    [
        (NO_RESPONDERS, UNREACHABLE, "unavailable: no responders on 'agent.query.memory_facts'"),
        (TimeoutError(), "counted as not met", "no answer within 0.05s"),
    ],
    ids=["unavailable", "timeout"],
)
async def test_an_agent_runner_outage_is_one_warning_line_and_a_checker_error(
    caplog: pytest.LogCaptureFixture, error: Exception, why: str, cause: str
) -> None:
    registry = builtin_checkers()
    ctx = down_context(DownAgentRunner(error))
    with caplog.at_level(logging.INFO, logger="baton_workflow.service.checkers"):
        report = await registry.evaluate(ctx, [CriterionSpec(checker="memory_facts")], 0.05)

    [record] = caplog.records
    assert record.levelno == logging.WARNING
    assert record.exc_info is None and "Traceback" not in caplog.text
    assert record.getMessage() == (
        f"checker memory_facts on instance i-1 could not answer ({why}): {cause}"
    )
    [missing] = report.missing()
    assert missing.startswith("memory_facts: checker error: ")
    assert not report.results[0].met and report.results[0].error
    assert isinstance(report.results[0], Unreachable) is (error is NO_RESPONDERS)


async def test_another_refusal_from_the_agent_runner_is_an_error_line_without_a_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    refused = RemoteError.of(ErrorCode.INTERNAL, "CountMemoryFacts failed")
    ctx = down_context(DownAgentRunner(refused))
    with caplog.at_level(logging.INFO, logger="baton_workflow.service.checkers"):
        report = await builtin_checkers().evaluate(ctx, [CriterionSpec(checker="inbox_items")], 1)
    [record] = caplog.records
    assert (record.levelno, record.exc_info) == (logging.ERROR, None)
    assert "inbox_items on instance i-1" in record.getMessage()
    assert "internal: CountMemoryFacts failed" in record.getMessage()
    assert report.missing()[0].startswith("inbox_items: checker error: ")


async def test_a_bug_in_a_checker_keeps_its_traceback(caplog: pytest.LogCaptureFixture) -> None:
    registry = CheckerRegistry()

    @registry.register("buggy")
    async def buggy(ctx: CheckContext, params: dict[str, Any]) -> CriterionResult:
        return {}["missing"]  # type: ignore[no-any-return]

    with caplog.at_level(logging.INFO, logger="baton_workflow.service.checkers"):
        report = await registry.evaluate(context(), [CriterionSpec(checker="buggy")], 1.0)
    [record] = caplog.records
    assert record.levelno == logging.ERROR and record.exc_info is not None
    assert record.getMessage() == "checker buggy failed on instance i-1"
    assert report.missing() == ["buggy: checker error: KeyError: 'missing'"]


@pytest.mark.timeout(10)
async def test_a_checker_that_never_answers_is_cut_off_by_the_registry_timeout(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # A plugin checker that hangs (a query to a service that never answers, a deadlock) must not
    # hold the step forever: the registry's own timeout ends the wait, so the command gets its
    # answer and the step is reported as blocked on a checker error. The other test of the
    # timeout only injects a TimeoutError; this one relies on the registry raising it.
    registry = CheckerRegistry()
    never = asyncio.Event()

    @registry.register("hung")
    async def hung(ctx: CheckContext, params: dict[str, Any]) -> CriterionResult:
        await never.wait()
        return CriterionResult(checker="hung", met=True)

    with caplog.at_level(logging.INFO, logger="baton_workflow.service.checkers"):
        report = await registry.evaluate(context(), [CriterionSpec(checker="hung")], 0.05)

    [result] = report.results
    assert (result.checker, result.met, result.error) == ("hung", False, True)
    assert report.missing() == ["hung: checker error: no answer within 0.05s"]
    assert "could not answer (counted as not met)" in caplog.text


async def test_only_a_checker_that_waits_gets_a_timer(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    # A plain function has answered (or raised) by the time it returns: nothing is left to
    # time out, so it is not given a timer. The built-ins that read the instance are plain
    # functions and run on every signal; only the ones that ask the agent-runner wait.
    from baton_workflow.service import checkers

    timers: list[float] = []
    real_timeout = asyncio.timeout

    def counting_timeout(delay: float | None) -> asyncio.Timeout:
        timers.append(delay or 0.0)
        return real_timeout(delay)

    monkeypatch.setattr(checkers.asyncio, "timeout", counting_timeout)
    registry = builtin_checkers()

    @registry.register("plain_bug")
    def plain_bug(ctx: CheckContext, params: dict[str, Any]) -> CriterionResult:
        raise RuntimeError("broken")

    @registry.register("waits")
    async def waits(ctx: CheckContext, params: dict[str, Any]) -> CriterionResult:
        return CriterionResult(checker="waits", met=True)

    plain = ["agent_signal", "min_messages", "plain_bug"]
    with caplog.at_level(logging.ERROR, logger="baton_workflow.service.checkers"):
        report = await registry.evaluate(context(), [CriterionSpec(checker=n) for n in plain], 1.0)
    assert timers == []
    assert report.missing()[-1] == "plain_bug: checker error: RuntimeError: broken"
    assert "checker plain_bug failed on instance i-1" in caplog.text

    await registry.evaluate(context(), [CriterionSpec(checker="waits")], 1.0)
    assert timers == [1.0]
