"""Templates filled to a limit: never more text built than the limit, refused early when known.

A prompt of `{{t}}` 20,000 times, run with a 25,000-character `t`, was built whole (500,000,000
characters, 2 GB of memory, every other request of the service timing out) before the
agent-runner's 200,000-character limit refused it.
"""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable
from typing import Any

import pytest

from baton_workflow.domain.dag.actions import CallAgent, CallSkill, CallTool
from baton_workflow.domain.dag.events import ConditionEvaluated, StepStarted
from baton_workflow.domain.dag.parsing import parse_definition
from baton_workflow.domain.dag.problems import InvalidVariables, InvalidWorkflow
from baton_workflow.domain.dag.scheduler import start_run
from baton_workflow.domain.dag.templates import (
    RenderContext,
    StepOutcome,
    notification_text,
    parse_template,
)

from .conftest import T0, Run, brief, workflow

MiB = 1024 * 1024


def peak_bytes(work: Callable[[], Any]) -> tuple[Any, int]:
    """What `work` returns, and the most memory it held at once beyond what it started with."""
    tracemalloc.start()
    try:
        result = work()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


# Template.fill


def test_a_template_that_fits_is_filled_whole() -> None:
    context = RenderContext(variables={"t": "xy"}, steps={"a": StepOutcome("success", "out")})
    filled = parse_template("<{{t}}|{{steps.a.output}}>").fill(context, 10)
    assert (filled.text, filled.length, filled.cut) == ("<xy|out>", 8, False)
    filled = parse_template("<{{t}}|{{steps.a.output}}>").fill(context, 8)
    assert (filled.text, filled.cut) == ("<xy|out>", False)


def test_past_its_limit_only_the_limit_is_kept_and_the_whole_length_is_counted() -> None:
    context = RenderContext(variables={"t": "abc"})
    filled = parse_template("{{t}}-" * 4).fill(context, 6)
    assert (filled.text, filled.length, filled.cut) == ("abc-ab", 16, True)


def test_gigabytes_of_filled_text_are_counted_not_built() -> None:
    # 100,000 references to a 1,000,000-character value: 100 GB once filled.
    template = parse_template("{{t}}" * 100_000)
    context = RenderContext(variables={"t": "y" * 1_000_000})
    filled, peak = peak_bytes(lambda: template.fill(context, 200_000))
    assert filled.length == 100_000_000_000
    assert filled.text == "y" * 200_000
    assert peak < 2 * MiB  # the 200,000 characters kept, and the list of pieces


def test_a_notification_is_cut_without_building_what_is_cut() -> None:
    context = RenderContext(variables={"t": "y" * 25_000})
    text, peak = peak_bytes(lambda: notification_text("{{t}}" * 20_000, context))
    assert text == "y" * 16_000 + "… [499984000 more characters cut]"
    assert peak < 4 * MiB  # parsing the template included; the whole text would take 500 MB


def test_the_known_length_counts_variables_and_env_and_no_step() -> None:
    template = parse_template("ab{{t}}{{env.R}}{{steps.a.output}}{{steps.a.status}}{{gone}}")
    assert template.known_length({"t": "xyz"}, {"R": "eu"}) == 7


# At run time: a field that grows past its limit with a step's output fails its step


def grown(document: dict[str, Any], output: str = "w" * 1_000) -> Run:
    """A run whose step `a` answered `output`, decided once more."""
    run = Run(document)
    run.decide(0)
    run.succeed("a", output)
    return run


def test_a_prompt_filled_past_the_limit_fails_its_step_without_being_built() -> None:
    document = workflow(
        {"id": "a", "prompt": "x"},
        {"id": "b", "agent": "hisui", "prompt": "{{steps.a.output}}" * 20_000,
         "dependsOn": ["a"]},
    )  # fmt: skip
    run = grown(document)
    decision, peak = peak_bytes(lambda: run.decide(1))
    assert peak < 8 * MiB  # parsing the template included; the prompt would take 20 MB
    assert brief(decision.events) == [
        ("step_started", "b"),
        ("step_failed", "b", "error"),
        ("completed", "error"),
    ]
    assert run.state.step("b").error == (
        "cannot ask agent 'hisui': prompt (its templates filled) has 20,000,000 characters; "
        "an agent takes at most 200,000"
    )
    started = decision.events[0]
    assert isinstance(started, StepStarted) and started.input.prompt is None
    assert not any(isinstance(a, CallAgent) for a in decision.actions)


def test_an_agent_name_filled_past_its_limit_fails_the_step_naming_the_field() -> None:
    document = workflow(
        {"id": "a", "prompt": "x"},
        {"id": "b", "agent": "{{steps.a.output}}", "model": "{{steps.a.output}}",
         "prompt": "go", "dependsOn": ["a"]},
    )  # fmt: skip
    run = grown(document, "m" * 201)
    run.decide(1)
    assert run.state.step("b").error == (
        "cannot ask its agent: agent (its templates filled) has 201 characters; an agent takes "
        "at most 64; model (its templates filled) has 201 characters; an agent takes at most 200"
    )


@pytest.mark.parametrize(
    ("step", "error"),
    [
        (
            {"type": "tool_call", "toolName": "http-get",
             "toolInput": {"url": "https://x.test/", "body": "{{steps.a.output}}" * 20_000}},
            "toolInput.body (its templates filled) has 20,000,000 characters; "
            "a tool input takes at most 1,048,576",
        ),
        (
            {"type": "skill", "skill": "text",
             "skillArgs": ["count", "{{steps.a.output}}" * 20_000]},
            "skillArgs[1] (its templates filled) has 20,000,000 characters; "
            "a skill argument takes at most 1,048,576",
        ),
        (
            {"type": "notify", "notifyMsg": "hi", "notifyTo": "{{steps.a.output}}" * 20_000},
            "notifyTo, once rendered, has 20,000,000 characters; a channel hint takes at most 200",
        ),
        (
            {"type": "condition", "if": "'" + "{{steps.a.output}}" * 20_000 + "' == 'x'",
             "then": "c"},
            "if: a value, its templates filled, has 20,000,000 characters; at most 1,048,576",
        ),
    ],
)  # fmt: skip
def test_other_templated_fields_filled_past_their_limits_fail_their_step(
    step: dict[str, Any], error: str
) -> None:
    document = workflow(
        {"id": "a", "prompt": "x"},
        {"id": "b", "dependsOn": ["a"], **step},
        {"id": "c", "prompt": "after", "dependsOn": ["b"]},
    )
    run = grown(document)
    decision, peak = peak_bytes(lambda: run.decide(1))
    assert peak < 8 * MiB  # parsing the template included; the text would take 20 MB
    assert brief(decision.events)[:2] == [("step_started", "b"), ("step_failed", "b", "error")]
    assert run.state.step("b").error == error
    assert not any(isinstance(a, CallAgent | CallSkill | CallTool) for a in decision.actions)


def test_a_condition_whose_value_was_too_long_is_retried_and_then_decided() -> None:
    document = workflow(
        {"id": "a", "prompt": "x"},
        {"id": "b", "type": "condition", "dependsOn": ["a"], "then": "c",
         "if": "'{{steps.a.output}}{{steps.a.output}}' == 'x'", "onError": "retry",
         "retryMax": 1, "retryDelay": "1s"},
        {"id": "c", "prompt": "after"},
    )  # fmt: skip
    run = grown(document, "w" * 600_000)
    run.decide(1)
    assert run.statuses()["b"] == "retry_wait"
    run.decide(3)  # the same output: too long again, and no retry left
    assert (run.statuses()["b"], run.state.step("b").attempt) == ("error", 2)
    # A condition decided on its retry (a condition could not fail before) counts it.
    retried = grown(document, "w" * 600_000)
    retried.decide(1)
    retried.events.append(
        ConditionEvaluated(run_id="run-1", at=T0, step_id="b", result=False, branch=None)
    )
    assert (retried.statuses()["b"], retried.state.step("b").attempt) == ("success", 2)


def test_fields_that_fit_are_filled_as_before() -> None:
    document = workflow(
        {"id": "a", "prompt": "x"},
        {"id": "b", "agent": "hisui", "prompt": "{{steps.a.output}}" * 200, "dependsOn": ["a"]},
    )
    run = grown(document)
    run.decide(1)
    call = run.call("b")
    assert isinstance(call, CallAgent) and call.prompt == "w" * 200_000


# At save: a field that fills past its limit with the variables' defaults


def problems(document: dict[str, Any], *, stored: bool = False) -> list[str]:
    with pytest.raises(InvalidWorkflow) as caught:
        parse_definition(document, stored=stored)
    return [str(p) for p in caught.value.problems]


def test_a_prompt_past_the_limit_with_its_defaults_is_refused_at_save() -> None:
    document = workflow(
        {"id": "a", "agent": "hisui", "prompt": "{{t}}" * 40_000}, variables={"t": "y" * 1_000}
    )
    assert problems(document) == [
        "steps[0].prompt: has 40,000,000 characters with its variables at their defaults; "
        "an agent takes at most 200,000"
    ]
    parse_definition(document, stored=True)  # a version stored before the rule still starts


def test_literal_fields_past_their_limits_are_refused_at_save() -> None:
    document = workflow(
        {"id": "a", "prompt": "p" * 200_001},
        {"id": "b", "type": "tool_call", "toolName": "http-get",
         "toolInput": {"url": "{{u}}" * 5, "body": "b" * (MiB + 1)}},
        {"id": "c", "type": "skill", "skill": "text", "skillArgs": ["{{u}}" * 2]},
        {"id": "d", "prompt": "go", "model": "{{u}}" * 2},
        variables={"u": "u" * 150},
    )  # fmt: skip
    assert problems(document) == [
        "steps[0].prompt: has 200,001 characters; an agent takes at most 200,000",
        "steps[1].toolInput.body: has 1,048,577 characters; a tool input takes at most 1,048,576",
        "steps[3].model: has 300 characters with its variables at their defaults; "
        "an agent takes at most 200",
    ]


def test_a_field_growing_with_a_steps_output_is_not_judged_at_save() -> None:
    prompt = "{{steps.a.output}}" * 20_000
    parse_definition(workflow({"id": "a", "prompt": "x"}, {"id": "b", "prompt": prompt}))


# At a run's start: the run's variables


AMP = workflow({"id": "a", "agent": "hisui", "prompt": "{{t}}" * 20_000}, variables={"t": "x"})


def start_problems(document: dict[str, Any], **variables: str) -> list[str]:
    with pytest.raises(InvalidVariables) as caught:
        Run(document, variables=variables)
    return [str(p) for p in caught.value.problems]


def test_variables_that_fill_a_field_past_its_limit_refuse_the_run() -> None:
    found, peak = peak_bytes(lambda: start_problems(AMP, t="y" * 25_000))
    assert found == [
        "variables.t: fills steps[0].prompt to 500,000,000 characters; "
        "an agent takes at most 200,000"
    ]
    assert peak < 2 * MiB
    one_reference = workflow({"id": "a", "prompt": "About {{t}}"}, variables={"t": "x"})
    assert start_problems(one_reference, t="y" * 1_000_000) == [
        "variables.t: fills steps[0].prompt to 1,000,006 characters; an agent takes at most 200,000"
    ]
    Run(AMP, variables={"t": "y" * 10})  # 200,000 characters: the limit itself


def test_the_given_variable_adding_the_most_is_named() -> None:
    document = workflow(
        {"id": "a", "prompt": "{{s}}{{t}}{{u}}"}, variables={"s": "x", "t": "x", "u": "u" * 199_990}
    )
    assert start_problems(document, s="s" * 10, t="t" * 20) == [
        "variables.t: fills steps[0].prompt to 200,020 characters; an agent takes at most 200,000"
    ]


def test_a_stored_version_past_the_limit_with_its_defaults_is_refused_by_its_field() -> None:
    document = workflow({"id": "a", "prompt": "{{t}}" * 40_000}, variables={"t": "y" * 1_000})
    definition = parse_definition(document, stored=True)
    with pytest.raises(InvalidVariables) as caught:
        start_run(definition, run_id="run-1", now=T0)
    assert [str(p) for p in caught.value.problems] == [
        "steps[0].prompt: has 40,000,000 characters; an agent takes at most 200,000 "
        "(filled with this run's variables)"
    ]
