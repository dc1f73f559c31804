"""`/explain`: each criterion of the step with its numbers and the parameters a client needs."""

from __future__ import annotations

from typing import Any

from baton_contracts.workflow_api import CriterionView, Explanation
from baton_workflow.domain.definitions import WorkflowDefinition
from baton_workflow.domain.state import InstanceState
from baton_workflow.service.checkers import CheckContext, builtin_checkers
from baton_workflow.service.views import explanation

from .conftest import T0
from .test_checkers import NoAgentRunner


async def explain(definition: WorkflowDefinition, step_data: dict[str, Any]) -> Explanation:
    state = InstanceState(
        instance_id="i-1",
        workflow_id=definition.id,
        user_id="u",
        current_step="brain_dump",
        started_at=T0,
        step_data={"brain_dump": step_data},
    )
    step = definition.step("brain_dump")
    ctx = CheckContext(state, step, None, 0, NoAgentRunner())
    report = await builtin_checkers().evaluate(ctx, step.completion_criteria, timeout=1)
    return explanation(state, definition, report)


async def test_the_widget_criterion_names_its_widget_type_and_minimum_before_it_is_filled(
    classic: WorkflowDefinition,
) -> None:
    why = await explain(classic, {})
    signal, widget = why.criteria
    assert (widget.checker, widget.met, widget.detail) == (
        "widget_completed",
        False,
        "no list_input widget yet",
    )
    # The numbers say nothing yet; the parameters say what would meet it.
    assert (widget.observed, widget.required) == (None, None)
    assert widget.params == {"widget_type": "list_input", "min_items": 1}
    assert (signal.checker, signal.params) == ("agent_signal", {})


async def test_a_filled_widget_is_met_and_keeps_its_parameters(
    classic: WorkflowDefinition,
) -> None:
    filled = {"widget": {"type": "list_input", "completed": True, "items": ["taxes", "milk"]}}
    widget = (await explain(classic, filled)).criteria[1]
    assert (widget.met, widget.observed, widget.required) == (True, 2, 1)
    assert widget.params == {"widget_type": "list_input", "min_items": 1}


def test_a_criterion_without_parameters_still_reads_as_before() -> None:
    # A reply from a workflow service that predates `params` still validates.
    old = {"checker": "agent_signal", "met": False, "detail": "agent has not signalled"}
    assert CriterionView.model_validate(old).params == {}


async def test_a_widget_counts_only_its_entries_that_are_text(
    classic: WorkflowDefinition,
) -> None:
    # Blank entries and ones that are not text are no items: such a list once closed the brain
    # dump, and nothing of it could become an inbox item.
    blank = {"widget": {"type": "list_input", "completed": True, "items": ["", "  ", 7, None]}}
    widget = (await explain(classic, blank)).criteria[1]
    assert (widget.met, widget.observed, widget.detail) == (False, 0, "0/1 items in list_input")
    mixed = {"widget": {"type": "list_input", "completed": True, "items": [" taxes ", {}, ""]}}
    assert (await explain(classic, mixed)).criteria[1].observed == 1


async def test_a_completed_instance_is_explained_as_done_with_nothing_unmet(
    classic: WorkflowDefinition,
) -> None:
    # Checked again once completed, its last step's `agent_signal` read as unmet (the signal
    # that closed it was no longer the current one): the finished instance looked stuck.
    state = InstanceState(
        instance_id="i-1",
        workflow_id=classic.id,
        user_id="u",
        current_step=classic.steps[-1].id,
        started_at=T0,
        status="completed",
    )
    why = explanation(state, classic, None)
    assert (why.status, why.current_step, why.can_complete, why.criteria) == (
        "completed",
        classic.steps[-1].id,
        False,
        [],
    )
