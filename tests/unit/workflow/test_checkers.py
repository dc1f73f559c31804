"""The checker registry: a checker that misbehaves counts as not met, named as a checker error."""

from __future__ import annotations

from typing import Any

import pytest

from baton_workflow.domain.criteria import CriterionResult
from baton_workflow.domain.definitions import CriterionSpec, StepDefinition
from baton_workflow.domain.state import InstanceState
from baton_workflow.service.checkers import CheckContext, CheckerParams, CheckerRegistry

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
