"""DAG workflows (seed 004): the definition language, its validation, and a pure scheduler.

Public API, by module:

- `parsing.parse_definition(data, format=, env_allowlist=)` -> `WorkflowDefinition`, or
  `problems.InvalidWorkflow` listing every `Problem(path, message)`; `parsing.read_definition`
  also returns the warnings (`problems.warning_lines` for a reply).
- `validation.validate_definition` (`validation.check_definition` with the warnings),
  `validation.resolve_variables`, `template_rules.env_keys`.
- `templates` (`parse_template`, `RenderContext`), `conditions.parse_condition`,
  `durations.parse_duration`, `pricing.PricingTable`, `timeouts.DefaultTimeouts`.
- `events` (the run log), `state` (`RunState`), `fold` (`apply`, `fold`), `actions` (what the
  executor does, `in_flight`), `scheduler` (`start_run`, `decide`, `Decision`).
"""

from baton_workflow.domain.dag.actions import (
    Action,
    CallAgent,
    CallSkill,
    CallTool,
    CancelStep,
    FinishRun,
    Notify,
    in_flight,
)
from baton_workflow.domain.dag.definition import Step, WorkflowDefinition
from baton_workflow.domain.dag.events import RunEvent, from_payload, to_payload
from baton_workflow.domain.dag.fold import apply, fold
from baton_workflow.domain.dag.parsing import parse_definition, read_definition
from baton_workflow.domain.dag.pricing import PricingTable
from baton_workflow.domain.dag.problems import InvalidVariables, InvalidWorkflow, Problem
from baton_workflow.domain.dag.scheduler import Decision, decide, start_run
from baton_workflow.domain.dag.state import RunState
from baton_workflow.domain.dag.template_rules import env_keys
from baton_workflow.domain.dag.timeouts import DefaultTimeouts
from baton_workflow.domain.dag.validation import (
    check_definition,
    resolve_variables,
    validate_definition,
)

__all__ = [
    "Action",
    "CallAgent",
    "CallSkill",
    "CallTool",
    "CancelStep",
    "Decision",
    "DefaultTimeouts",
    "FinishRun",
    "InvalidVariables",
    "InvalidWorkflow",
    "Notify",
    "PricingTable",
    "Problem",
    "RunEvent",
    "RunState",
    "Step",
    "WorkflowDefinition",
    "apply",
    "check_definition",
    "decide",
    "env_keys",
    "fold",
    "from_payload",
    "in_flight",
    "parse_definition",
    "read_definition",
    "resolve_variables",
    "start_run",
    "to_payload",
    "validate_definition",
]
