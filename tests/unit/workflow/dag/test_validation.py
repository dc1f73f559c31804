"""Each rule of "Règles de Validation" (and Baton's own), with its exact path and message."""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Any

import pytest

from baton_contracts.dag_api import WORKFLOW_NAME_PATTERN
from baton_workflow.domain.dag import RunEvent, RunState, decide, fold, in_flight, start_run
from baton_workflow.domain.dag.parsing import parse_definition
from baton_workflow.domain.dag.problems import InvalidVariables, InvalidWorkflow
from baton_workflow.domain.dag.template_rules import env_keys
from baton_workflow.domain.dag.validation import resolve_variables

from .conftest import T0, workflow


def problems(document: dict[str, Any], env: Collection[str] = ()) -> list[str]:
    with pytest.raises(InvalidWorkflow) as caught:
        parse_definition(document, env_allowlist=env)
    return [str(p) for p in caught.value.problems]


def step(step_id: str, **fields: Any) -> dict[str, Any]:
    return {"id": step_id, "prompt": "do it", **fields}


# name


def test_name_is_required() -> None:
    assert problems({"steps": [step("a")]}) == ["name: required"]
    assert problems({"name": "", "steps": [step("a")]}) == ["name: required"]


# "my-workflow\n": a regex `$` also matches before a final newline
@pytest.mark.parametrize("name", ["my workflow", "a/b", "café", "x.y", "my-workflow\n"])
def test_name_allows_only_alphanumerics_dash_and_underscore(name: str) -> None:
    assert problems({"name": name, "steps": [step("a")]}) == [
        f'name: "{name}" may use only letters, digits, "-" and "_"'
    ]


def test_a_name_is_at_most_128_characters_as_the_routes_allow() -> None:
    assert parse_definition({"name": "a" * 128, "steps": [step("a")]}).name == "a" * 128
    assert problems({"name": "a" * 129, "steps": [step("a")]}) == [
        "name: has 129 characters; at most 128 allowed"
    ]
    assert re.fullmatch(WORKFLOW_NAME_PATTERN, "a" * 128)
    assert not re.fullmatch(WORKFLOW_NAME_PATTERN, "a" * 129)


def test_good_names_pass() -> None:
    for name in ("my-workflow", "my_workflow_2", "ABC"):
        assert parse_definition({"name": name, "steps": [step("a")]}).name == name


# steps


def test_at_least_one_step() -> None:
    assert problems({"name": "wf"}) == ["steps: at least one step is required"]
    assert problems({"name": "wf", "steps": []}) == ["steps: at least one step is required"]


def test_step_id_is_required() -> None:
    assert problems(workflow({"prompt": "x"})) == ["steps[0].id: required"]


def test_step_ids_are_unique_across_sub_steps_too() -> None:
    document = workflow(
        step("a"),
        step("a"),
        {"id": "g", "type": "parallel", "parallel": [step("a"), step("s"), step("s")]},
    )
    assert problems(document) == [
        'steps[1].id: duplicate step id "a" (first at steps[0])',
        'steps[2].parallel[0].id: duplicate step id "a" (first at steps[0])',
        'steps[2].parallel[2].id: duplicate step id "s" (first at steps[2].parallel[1])',
    ]


# dependsOn


def test_depends_on_must_name_an_existing_step_with_a_suggestion() -> None:
    document = workflow(step("research"), step("draft"), step("summary", dependsOn=["reserch"]))
    assert problems(document) == [
        'steps[2].dependsOn[0]: unknown step "reserch" (did you mean "research"?)'
    ]


def test_unknown_dependency_without_a_close_name() -> None:
    assert problems(workflow(step("a", dependsOn=["zzz"]))) == [
        'steps[0].dependsOn[0]: unknown step "zzz"'
    ]


def test_a_step_cannot_depend_on_itself() -> None:
    assert problems(workflow(step("a"), step("b", dependsOn=["a", "b"]))) == [
        "steps[1].dependsOn[1]: a step cannot depend on itself"
    ]


def test_a_dependency_listed_twice_is_named_at_its_second_entry() -> None:
    # It was saved as written, and `baton workflow show` printed `a, a`.
    assert problems(workflow(step("a"), step("b", dependsOn=["a", "a"]))) == [
        'steps[1].dependsOn[1]: "a" is listed twice (first at steps[1].dependsOn[0])'
    ]
    # An entry wrong in itself is told once, at its first place.
    assert problems(workflow(step("a"), step("b", dependsOn=["zz", "a", "zz"]))) == [
        'steps[1].dependsOn[0]: unknown step "zz"',
        'steps[1].dependsOn[2]: "zz" is listed twice (first at steps[1].dependsOn[0])',
    ]


def test_a_version_stored_with_a_dependency_listed_twice_still_runs() -> None:
    # Saved before the rule, it ran: waiting twice for a step is waiting once.
    document = workflow(step("a"), step("b", dependsOn=["a", "a"]))
    definition = parse_definition(document, stored=True)
    assert definition.steps[1].depends_on == ("a", "a")
    events: list[RunEvent] = [start_run(definition, run_id="r", now=T0)]
    events += decide(fold_run(events), T0).events
    [call] = in_flight(fold_run(events))
    events.append(call.succeeded(T0, "done"))
    events += decide(fold_run(events), T0).events
    assert [c.step_id for c in in_flight(fold_run(events))] == ["b"]


def fold_run(events: list[RunEvent]) -> RunState:
    state = fold(events)
    assert state is not None
    return state


def test_depending_on_a_sub_step_points_to_its_parallel_step() -> None:
    document = workflow(
        {"id": "gather", "type": "parallel", "parallel": [step("search-code")]},
        step("after", dependsOn=["search-code"]),
    )
    assert problems(document) == [
        'steps[1].dependsOn[0]: "search-code" is a sub-step of parallel step "gather"; use "gather"'
    ]


def test_cycles_are_rejected_naming_the_cycle() -> None:
    assert problems(workflow(step("a", dependsOn=["b"]), step("b", dependsOn=["a"]))) == [
        "steps[0].dependsOn[0]: dependency cycle a -> b -> a"
    ]


def test_every_separate_cycle_is_reported_once() -> None:
    document = workflow(
        step("x"),
        step("a", dependsOn=["c"]),
        step("b", dependsOn=["a"]),
        step("c", dependsOn=["b", "x"]),
        step("d", dependsOn=["e"]),
        step("e", dependsOn=["d"]),
    )
    assert problems(document) == [
        "steps[1].dependsOn[0]: dependency cycle a -> c -> b -> a",
        "steps[4].dependsOn[0]: dependency cycle d -> e -> d",
    ]


def test_a_condition_branch_waits_for_its_condition_so_it_can_close_a_cycle() -> None:
    document = workflow(
        {"id": "check", "type": "condition", "if": "true", "then": "a", "dependsOn": ["a"]},
        step("a"),
    )
    assert problems(document) == ["steps[0].dependsOn[0]: dependency cycle check -> a -> check"]


def test_a_cycle_through_then_or_else_is_reported_at_the_branch_that_closes_it() -> None:
    document = workflow(
        step("a"),
        {"id": "c", "type": "condition", "if": "true", "then": "a", "dependsOn": ["a"]},
    )
    assert problems(document) == ["steps[1].then: dependency cycle a -> c -> a"]
    document = workflow(
        {"id": "a", "type": "condition", "if": "true", "then": "x", "else": "c"},
        {"id": "c", "type": "condition", "if": "true", "then": "x", "else": "a"},
        step("x"),
    )
    assert problems(document) == ["steps[1].else: dependency cycle a -> c -> a"]


def test_a_long_chain_is_fine() -> None:
    steps = [step("s0")] + [step(f"s{i}", dependsOn=[f"s{i - 1}"]) for i in range(1, 1500)]
    assert len(parse_definition(workflow(*steps)).steps) == 1500


# required fields per type


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"type": "dispatch"}, ["steps[0].prompt: required for a dispatch step"]),
        ({}, ["steps[0].prompt: required for a dispatch step"]),
        ({"type": "dispatch", "prompt": ""}, ["steps[0].prompt: required for a dispatch step"]),
        ({"type": "skill"}, ["steps[0].skill: required for a skill step"]),
        (
            {"type": "condition"},
            [
                "steps[0].if: required for a condition step",
                "steps[0].then: required for a condition step",
            ],
        ),
        (
            {"type": "handoff"},
            [
                "steps[0].handoffFrom: required for a handoff step",
                "steps[0].agent: required for a handoff step",
            ],
        ),
        ({"type": "tool_call"}, ["steps[0].toolName: required for a tool_call step"]),
        ({"type": "delay"}, ["steps[0].delay: required for a delay step"]),
        ({"type": "notify"}, ["steps[0].notifyMsg: required for a notify step"]),
        ({"type": "parallel"}, ["steps[0].parallel: a parallel step needs at least one sub-step"]),
        (
            {"type": "parallel", "parallel": []},
            ["steps[0].parallel: a parallel step needs at least one sub-step"],
        ),
    ],
)
def test_required_fields_per_type(fields: dict[str, Any], expected: list[str]) -> None:
    assert problems(workflow({"id": "s", **fields})) == expected


def test_a_field_of_another_step_type_is_refused_naming_the_type_that_takes_it() -> None:
    # Ignored, sub-steps under a notify step never ran (the run waited for them forever) and a
    # dispatch's handoffFrom was never checked (an unknown step crashed the run's driver).
    document = workflow(
        step("draft"),
        step("review", handoffFrom="zz", then="nowhere", dependsOn=["draft"]),
        {"id": "tell", "type": "notify", "notifyMsg": "hi", "agent": "ruri",
         "parallel": [{"id": "sub", "type": "notify", "notifyMsg": "sub"}]},
        {"id": "wait", "delay": "30s"},
    )  # fmt: skip
    assert problems(document) == [
        'steps[1].then: only condition steps take then; this is a dispatch step (set "type": '
        '"condition", or remove it)',
        "steps[1].handoffFrom: only handoff steps take handoffFrom; this is a dispatch step (set "
        '"type": "handoff", or remove it)',
        "steps[2].agent: only dispatch and handoff steps take agent; this is a notify step "
        "(remove it)",
        'steps[2].parallel: only parallel steps take parallel; this is a notify step (set "type": '
        '"parallel", or remove it)',
        "steps[3].prompt: required for a dispatch step",
        'steps[3].delay: only delay steps take delay; this is a dispatch step (set "type": '
        '"delay", or remove it)',
    ]


def test_the_fields_every_type_takes_are_fine_anywhere() -> None:
    common = {"dependsOn": [], "timeout": "1m", "onError": "retry", "retryMax": 1,
              "retryDelay": "1s", "retryBackoff": 2}  # fmt: skip
    document = workflow({"id": "w", "type": "delay", "delay": "1s", **common})
    assert parse_definition(document).steps[0].retry_max == 1


def test_sub_steps_need_their_fields_too() -> None:
    document = workflow({"id": "g", "type": "parallel", "parallel": [{"id": "p"}]})
    assert problems(document) == ["steps[0].parallel[0].prompt: required for a dispatch step"]


def test_what_a_parallel_step_may_hold() -> None:
    document = workflow(
        step("a"),
        {
            "id": "g",
            "type": "parallel",
            "onError": "retry",
            "parallel": [
                step("p", dependsOn=["a"]),
                {"id": "c", "type": "condition", "if": "true", "then": "a"},
                {"id": "q", "type": "parallel", "parallel": [step("r")]},
            ],
        },
    )
    assert problems(document) == [
        'steps[1].onError: "retry" is not available on a parallel step; '
        "set onError on its sub-steps",
        "steps[1].parallel[0].dependsOn: sub-steps start together with their parallel step; "
        'put dependsOn on "g"',
        "steps[1].parallel[1].type: a condition step cannot be inside a parallel step",
        "steps[1].parallel[2].type: a parallel step cannot be inside a parallel step",
    ]


# durations, numbers, onError


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"timeout": "10"}, 'steps[0].timeout: invalid duration "10": missing unit after "10"'),
        ({"timeout": "0s"}, 'steps[0].timeout: must be longer than zero (got "0s")'),
        ({"timeout": ""}, "steps[0].timeout: empty duration"),
        ({"retryDelay": "ten seconds"}, 'steps[0].retryDelay: invalid duration "ten seconds"'),
        ({"retryDelay": "-5s"}, 'steps[0].retryDelay: duration "-5s" cannot have a sign'),
        ({"retryMax": -1}, "steps[0].retryMax: must be zero or more (got -1)"),
        # Past a float's range, the check for NaN raised (a 500); Go's int is the limit.
        (
            {"retryMax": 10**400},
            "steps[0].retryMax: must be at most 9223372036854775807 "
            "(got 1000000000...0000000000 (401 digits))",
        ),
        ({"retryMax": 2**63}, "steps[0].retryMax: must be at most 9223372036854775807 (got 9"),
        ({"retryMax": -(10**400)}, "steps[0].retryMax: must be zero or more (got -100000000."),
        (
            {"retryBackoff": 0.5},
            "steps[0].retryBackoff: must be from 1 to 100 (1 keeps the delay constant; got 0.5)",
        ),
        ({"retryBackoff": 1e6}, "steps[0].retryBackoff: must be from 1 to 100"),
        ({"retryBackoff": float("nan")}, "steps[0].retryBackoff: must be from 1 to 100"),
        (
            {"timeout": "100000000h"},
            'steps[0].timeout: duration "100000000h" is too long: '
            "the longest is 2562047h47m16.854775807s",
        ),
        ({"retryDelay": "99999999999999999999h"}, "steps[0].retryDelay: duration"),
        ({"budget": -0.5}, "steps[0].budget: must be zero or more (got -0.5)"),
        ({"budget": float("nan")}, "steps[0].budget: must be a finite number (got nan)"),
        ({"budget": float("inf")}, "steps[0].budget: must be a finite number (got inf)"),
    ],
)
def test_step_numbers_and_durations(fields: dict[str, Any], expected: str) -> None:
    [problem] = problems(workflow(step("a", **fields)))
    assert problem.startswith(expected)


def test_delay_must_be_a_go_duration() -> None:
    assert problems(workflow({"id": "w", "type": "delay", "delay": "1d"})) == [
        'steps[0].delay: invalid duration "1d": unknown unit "d" (ns, us, µs, ms, s, m, h)'
    ]


def test_a_delay_or_workflow_timeout_over_gos_longest_duration_is_refused() -> None:
    document = workflow({"id": "w", "type": "delay", "delay": "2562048h"}, timeout="3000000h")
    assert problems(document) == [
        'timeout: duration "3000000h" is too long: the longest is 2562047h47m16.854775807s '
        "(about 292 years)",
        'steps[0].delay: duration "2562048h" is too long: the longest is '
        "2562047h47m16.854775807s (about 292 years)",
    ]
    longest = workflow({"id": "w", "type": "delay", "delay": "2562047h47m16.854775807s"})
    assert parse_definition(longest).steps[0].delay_delta.days == 106751


def test_workflow_timeout_and_budget() -> None:
    assert problems(workflow(step("a"), timeout="half an hour", budget=-1)) == [
        'timeout: invalid duration "half an hour": expected a number at "half an hour"',
        "budget: must be zero or more (got -1)",
    ]


def test_retry_max_without_retry_is_accepted() -> None:
    assert parse_definition(workflow(step("a", retryMax=3))).steps[0].retry_max == 3


def test_retry_max_may_be_gos_largest_int() -> None:
    document = workflow(step("a", onError="retry", retryMax=2**63 - 1))
    assert parse_definition(document).steps[0].retry_max == 2**63 - 1


def test_on_error_values() -> None:
    for value in ("stop", "skip", "retry"):
        assert parse_definition(workflow(step("a", onError=value))).steps[0].on_error == value


# then / else / handoffFrom


def condition(**fields: Any) -> dict[str, Any]:
    return {"id": "check", "type": "condition", "if": "{{kind}} == 'x'", "then": "a", **fields}


def test_then_and_else_must_name_existing_steps() -> None:
    document = workflow(
        condition(then="tech-reserch", **{"else": "zzz"}),
        step("tech-research"),
        variables={"kind": "x"},
    )
    assert problems(document) == [
        'steps[0].then: unknown step "tech-reserch" (did you mean "tech-research"?)',
        'steps[0].else: unknown step "zzz"',
    ]


def test_a_condition_cannot_branch_to_itself() -> None:
    document = workflow(condition(then="check", **{"else": "check"}), variables={"kind": "x"})
    assert problems(document) == [
        "steps[0].then: a step cannot branch to itself",
        "steps[0].else: a step cannot branch to itself",
    ]


def test_a_condition_cannot_branch_into_a_parallel_step() -> None:
    document = workflow(
        condition(then="p"),
        {"id": "g", "type": "parallel", "parallel": [step("p")]},
        variables={"kind": "x"},
    )
    assert problems(document) == ['steps[0].then: "p" is a sub-step of parallel step "g"; use "g"']


def handoff(**fields: Any) -> dict[str, Any]:
    return {"id": "review", "type": "handoff", "agent": "ruri", **fields}


def test_handoff_from_must_name_an_existing_step() -> None:
    document = workflow(step("draft"), handoff(handoffFrom="drat", dependsOn=["draft"]))
    assert problems(document) == [
        'steps[1].handoffFrom: unknown step "drat" (did you mean "draft"?)'
    ]


def test_handoff_from_itself_is_refused() -> None:
    assert problems(workflow(handoff(handoffFrom="review"))) == [
        "steps[0].handoffFrom: a step cannot hand off from itself"
    ]


def test_handoff_from_must_finish_before_the_handoff() -> None:
    document = workflow(step("draft"), handoff(handoffFrom="draft"))
    assert problems(document) == [
        'steps[1].handoffFrom: "draft" must finish before this step (its output may not exist '
        "yet); add it to dependsOn, directly or through another step"
    ]


def test_handoff_from_an_indirect_ancestor_or_its_sub_step_is_fine() -> None:
    document = workflow(
        {"id": "gather", "type": "parallel", "parallel": [step("papers"), step("code")]},
        step("draft", dependsOn=["gather"]),
        handoff(handoffFrom="papers", dependsOn=["draft"]),
        {
            "id": "fan",
            "type": "parallel",
            "dependsOn": ["draft"],
            "parallel": [handoff(id="second", handoffFrom="draft")],
        },
    )
    assert parse_definition(document).steps[2].handoff_from == "papers"


def test_handoff_from_a_sibling_sub_step_is_refused() -> None:
    document = workflow(
        {
            "id": "g",
            "type": "parallel",
            "parallel": [step("a"), handoff(handoffFrom="a")],
        }
    )
    assert problems(document)[0].startswith('steps[0].parallel[1].handoffFrom: "a" must finish')


# templates


def test_template_references_are_checked_where_they_are_written() -> None:
    document = workflow(
        step("research"),
        step("summary", prompt="{{topc}} {{steps.reserch.output}} {{steps.research.outpt}}"),
        {
            "id": "fetch",
            "type": "tool_call",
            "toolName": "http-get",
            "toolInput": {"url": "https://x/?q={{env.HOME}}"},
        },
        {"id": "search", "type": "skill", "skill": "web", "skillArgs": ["{{nope}}"]},
        {
            "id": "tell",
            "type": "notify",
            "notifyMsg": "{{steps.ghost.status}}",
            "notifyTo": "{{to}}",
        },
        {
            "id": "check",
            "type": "condition",
            "if": "{{steps.research.error}} == {{kind}}",
            "then": "research",
        },
        variables={"topic": "agents"},
        onSuccess="done {{steps.summry.output}}",
        onFailure="failed {{env.SECRET}}",
    )
    assert problems(document, env={"REGION"}) == [
        'onSuccess: unknown step "summry" in {{steps.summry.output}} (did you mean "summary"?)',
        "onFailure: {{env.SECRET}} is not on the env allow-list (allowed: REGION)",
        'steps[1].prompt: unknown variable "topc" (did you mean "topic"?); declare it in variables',
        'steps[1].prompt: unknown step "reserch" in {{steps.reserch.output}} '
        '(did you mean "research"?)',
        'steps[1].prompt: unknown step field "outpt" in {{steps.research.outpt}}; '
        "use output, status or error",
        "steps[2].toolInput.url: {{env.HOME}} is not on the env allow-list (allowed: REGION)",
        'steps[3].skillArgs[0]: unknown variable "nope"; declare it in variables',
        'steps[4].notifyMsg: unknown step "ghost" in {{steps.ghost.status}}',
        'steps[4].notifyTo: unknown variable "to"; declare it in variables',
        'steps[5].if: unknown variable "kind"; declare it in variables',
    ]


def test_env_needs_the_allow_list() -> None:
    document = workflow(step("a", prompt="{{env.REGION}}"))
    assert problems(document) == [
        "steps[0].prompt: {{env.REGION}} is not on the env allow-list (allowed: none)"
    ]
    definition = parse_definition(document, env_allowlist={"REGION"})
    assert env_keys(definition) == {"REGION"}


def test_sub_step_outputs_can_be_referenced() -> None:
    document = workflow(
        {"id": "gather", "type": "parallel", "parallel": [step("search-papers")]},
        step("report", prompt="{{steps.search-papers.output}}", dependsOn=["gather"]),
    )
    assert parse_definition(document).steps[1].prompt == "{{steps.search-papers.output}}"


def test_templates_in_agent_model_and_provider_are_checked() -> None:
    document = workflow(step("a", agent="{{who}}", model="{{m}}", provider="x"))
    assert problems(document) == [
        'steps[0].agent: unknown variable "who"; declare it in variables',
        'steps[0].model: unknown variable "m"; declare it in variables',
    ]


def test_an_unknown_permission_mode_is_refused_with_every_other_problem() -> None:
    # It was only refused by the agent-runner when the step ran, so a dry run passed it.
    document = workflow(
        step("a", permissionMode="weird"),
        {"id": "g", "type": "parallel", "parallel": [step("s", permissionMode="acceptedits")]},
        step("b", permissionMode="plan", dependsOn=["ghost"]),
    )
    known = "known: default, plan, acceptEdits, bypassPermissions"
    assert problems(document) == [
        f'steps[0].permissionMode: unknown mode "weird"; {known}',
        f'steps[1].parallel[0].permissionMode: unknown mode "acceptedits" '
        f'(did you mean "acceptEdits"?); {known}',
        'steps[2].dependsOn[0]: unknown step "ghost"',
    ]


@pytest.mark.parametrize("mode", ["default", "plan", "acceptEdits", "bypassPermissions", ""])
def test_a_known_permission_mode_is_fine(mode: str) -> None:
    # "" renders as no mode, which the agent-runner takes as default
    definition = parse_definition(workflow(step("a", permissionMode=mode)))
    assert definition.steps[0].permission_mode == mode


def test_a_permission_mode_template_is_checked_when_rendered_not_before() -> None:
    document = workflow(step("a", permissionMode="{{mode}}"), variables={"mode": "weird"})
    assert parse_definition(document).steps[0].permission_mode == "{{mode}}"
    assert problems(workflow(step("a", permissionMode="{{mood}}"), variables={"mode": ""})) == [
        'steps[0].permissionMode: unknown variable "mood" (did you mean "mode"?); '
        "declare it in variables"
    ]


def test_a_stored_version_with_an_unknown_permission_mode_still_loads() -> None:
    # Saved before the rule, it ran until the agent-runner refused the mode; it still does.
    document = workflow(step("a", permissionMode="weird"))
    assert parse_definition(document, stored=True).steps[0].permission_mode == "weird"


# variables


def test_variable_names_must_be_usable_in_templates() -> None:
    variables = {"my var": "x", "topic\n": "w", "steps": "y", "env": "z"}
    document = workflow(step("a"), variables=variables)
    assert problems(document) == [
        'variables.my var: may use only letters, digits, "-" and "_"',
        'variables.topic\n: may use only letters, digits, "-" and "_"',
        'variables.steps: "steps" is reserved for {{steps.…}}',
        'variables.env: "env" is reserved for {{env.…}}',
    ]


def test_an_empty_variable_name_is_named_so_in_its_path() -> None:
    # It was `variables.`, a path that stops at its dot (`body.variables.` through the gateway).
    document = workflow(step("a"), variables={"": "z", "ok": "y"})
    assert problems(document) == ['variables[""]: may use only letters, digits, "-" and "_"']
    assert problems(workflow(step("a"), variables={"": 3})) == [
        'variables[""]: must be a string (got 3)'
    ]
    definition = parse_definition(workflow(step("a"), variables={"ok": "y"}))
    with pytest.raises(InvalidVariables) as caught:
        resolve_variables(definition, {"": "x"})
    unknown = 'variables[""]: unknown variable (declared: ok)'
    assert [str(p) for p in caught.value.problems] == [unknown]


def test_resolve_variables_merges_defaults_and_overrides() -> None:
    definition = parse_definition(
        workflow(step("a"), variables={"topic": "AI agents", "tone": "dry"})
    )
    assert resolve_variables(definition, {"topic": "LLM safety"}) == {
        "topic": "LLM safety",
        "tone": "dry",
    }


def test_resolve_variables_reports_each_missing_or_unknown_variable() -> None:
    definition = parse_definition(
        workflow(step("a"), variables={"topic": "", "audience": "", "tone": "x"})
    )
    with pytest.raises(InvalidVariables) as caught:
        resolve_variables(definition, {"topik": "x", "audience": ""})
    assert [str(p) for p in caught.value.problems] == [
        'variables.topik: unknown variable (did you mean "topic"?)',
        "variables.topic: required: it has no default, so the run must give a value",
        "variables.audience: required: it has no default, so the run must give a value",
    ]


def test_a_variable_with_a_default_given_empty_is_not_called_required() -> None:
    definition = parse_definition(workflow(step("a"), variables={"topic": "AI agents"}))
    with pytest.raises(InvalidVariables) as caught:
        resolve_variables(definition, {"topic": ""})
    assert [str(p) for p in caught.value.problems] == [
        "variables.topic: cannot be empty: leave it out to run with its default 'AI agents'"
    ]


def test_extra_variables_are_allowed_when_asked() -> None:
    definition = parse_definition(workflow(step("a")))
    with pytest.raises(
        InvalidVariables, match=r"variables.event_type: unknown variable \(none declared\)"
    ):
        resolve_variables(definition, {"event_type": "deploy"})
    assert resolve_variables(definition, {"event_type": "deploy"}, allow_extra=True) == {
        "event_type": "deploy"
    }


def test_a_stored_version_runs_with_a_field_of_another_type_unless_it_breaks_the_run() -> None:
    # Saved before the rule, such a version ran with the field ignored; an upgrade must not stop
    # it. Sub-steps under a notify step, or a dispatch's handoffFrom, broke runs: still refused.
    ignored = workflow(
        {"id": "tell", "type": "notify", "notifyMsg": "hi", "agent": "ruri", "model": "x"}
    )
    assert parse_definition(ignored, stored=True).steps[0].notify_msg == "hi"
    with pytest.raises(InvalidWorkflow):
        parse_definition(ignored)
    breaking = workflow(
        {"id": "tell", "type": "notify", "notifyMsg": "hi",
         "parallel": [{"id": "sub", "type": "notify", "notifyMsg": "sub"}]},
        step("draft", handoffFrom="tell"),
    )  # fmt: skip
    with pytest.raises(InvalidWorkflow) as refused:
        parse_definition(breaking, stored=True)
    assert [p.path for p in refused.value.problems] == ["steps[0].parallel", "steps[1].handoffFrom"]


@pytest.mark.parametrize(
    ("step_id", "problem"),
    [
        ("my step", "'my step' cannot be named in a template"),
        ("line\nbreak", "'line\\nbreak' cannot be named in a template"),
        ("{{x}}", "'{{x}}' cannot be named in a template"),
        ("x" * 129, "129 characters; a step id has at most 128"),
    ],
)
def test_a_step_id_must_be_one_a_template_can_name(step_id: str, problem: str) -> None:
    # Unrestricted, an id with a space could never be named in {{steps.ID.output}}, and one
    # with a line break broke the CLI's step lines.
    found = problems(workflow(step(step_id)))
    assert len(found) == 1 and found[0].startswith(f"steps[0].id: {problem}"), found
    assert parse_definition(workflow(step(step_id)), stored=True).steps[0].id == step_id


def test_step_ids_in_any_script_are_fine() -> None:
    document = workflow(step("résumé-étape"), step("итог", dependsOn=["résumé-étape"]))
    assert [s.id for s in parse_definition(document).steps] == ["résumé-étape", "итог"]


@pytest.mark.parametrize(
    ("hint", "expected"),
    [
        ("t" * 201, "steps[0].notifyTo: has 201 characters; a channel hint takes at most 200"),
        (
            "slack\n#ops",
            "steps[0].notifyTo: a channel hint is one line, without control characters",
        ),
    ],
)
def test_a_channel_hint_is_one_short_line(hint: str, expected: str) -> None:
    # Unchecked, a hint of any size went out in the run's `workflow.notify` event.
    notify = {"id": "tell", "type": "notify", "notifyMsg": "hi", "notifyTo": hint}
    assert problems(workflow(notify)) == [expected]


def test_a_channel_hint_template_and_one_at_the_limit_are_taken() -> None:
    # A template's characters are checked once rendered; its length, filled with the
    # defaults, at save too (a hint of 300 line breaks around it is refused: filled_limits).
    for hint in ("t" * 200, "slack:#ops @alice", "{{to}}" + "\n" * 194):
        notify = {"id": "tell", "type": "notify", "notifyMsg": "hi", "notifyTo": hint}
        parse_definition(workflow(notify, variables={"to": ""}))
