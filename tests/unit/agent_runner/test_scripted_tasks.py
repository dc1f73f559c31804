"""The scripted agents' answers to DAG steps, their test hooks, and what the model is sent."""

# ruff: noqa: RUF001  (Russian text is meant to be Cyrillic)

from __future__ import annotations

import math

import pytest
from pydantic import ValidationError

from baton_agent_runner.adapters.profiles import SHIPPED_PROFILES, load_profiles
from baton_agent_runner.domain import scripted_tasks
from baton_agent_runner.domain.scripted_tasks import Markers, answer, markers_of
from baton_agent_runner.domain.task import (
    ModelChoice,
    ModelPrice,
    TaskCall,
    TaskInvalid,
    choose_model,
    input_tokens,
    permission_mode,
    price_of,
    read_task,
    render_instructions,
    render_prompt,
    tokens,
)
from baton_agent_runner.settings import SHIPPED_PRICES, AgentRunnerSettings

RESEARCH = "Search and organize the latest developments in {topic}, listing 5 key points"
SUMMARIZE = "Write a 300-word summary based on the following:\n{research}"


def call(agent: str, prompt: str, **extra: object) -> TaskCall:
    return TaskCall(agent=agent, run_id="run-1", step_id="step", prompt=prompt, **extra)  # type: ignore[arg-type]


# --- the roles ---------------------------------------------------------------------------


def test_hisui_lists_as_many_numbered_points_as_asked_on_the_prompts_subject() -> None:
    out = answer(call("hisui", RESEARCH.format(topic="AI agents")))
    lines = out.splitlines()
    assert lines[0] == "Research notes on AI agents (5 key points):"
    numbered = [line for line in lines if line[:2] in {f"{n}." for n in range(1, 10)}]
    assert [line.split(".")[0] for line in numbered] == ["1", "2", "3", "4", "5"]
    assert all("AI agents" in line for line in numbered)
    assert "'developments'" in out  # built from the prompt's own words
    assert out.endswith(f'Asked: "{RESEARCH.format(topic="AI agents")}"')


@pytest.mark.parametrize(
    ("prompt", "points"),
    [
        ("Find facts about tea", 3),
        ("Give 2 ideas for tea", 2),
        ("List 7 items about tea", 7),
        ("List 500 points about tea", 20),
        ("List 0 points about tea", 1),
    ],
)
def test_hisui_gives_three_points_unless_told_and_at_most_twenty(prompt: str, points: int) -> None:
    assert scripted_tasks.points_asked(prompt) == points
    out = answer(call("hisui", prompt))
    assert f"{points}. " in out and f"\n{points + 1}. " not in out


def test_the_same_step_always_gets_the_same_answer() -> None:
    step = call("hisui", RESEARCH.format(topic="LLM safety"))
    assert answer(step) == answer(step)
    assert answer(step) != answer(call("hisui", RESEARCH.format(topic="AI agents")))


def test_kohaku_quotes_the_first_lines_of_what_the_prompt_hands_it() -> None:
    research = answer(call("hisui", RESEARCH.format(topic="AI agents")))
    out = answer(call("kohaku", SUMMARIZE.format(research=research)))
    first, second, third = research.splitlines()[:3]
    assert out.startswith("Summary (7 lines from the material given): it opens with ")
    assert f'"{first}"' in out and f'"{second}"' in out and f'"{third}"' in out
    assert out.endswith('Written as asked: "Write a 300-word summary based on the following:".')


def test_kohaku_quotes_the_handoff_context_and_names_its_step() -> None:
    out = answer(call("kohaku", "Tighten this", context="Line A\n\nLine B", context_from="draft"))
    assert out.startswith(
        'Summary (2 lines from step draft): it opens with "Line A", then "Line B"'
    )


def test_ruri_reviews_the_handoff_contexts_first_line() -> None:
    draft = "Agents are everywhere.\nThey plan, call tools and remember."
    out = answer(call("ruri", "Review and revise the article", context=draft, context_from="draft"))
    lines = out.splitlines()
    assert lines[0] == "Review: Agents are everywhere."
    assert "- Reviewed: 2 lines from step draft." in lines
    assert lines[-1] == '- Asked: "Review and revise the article"'


def test_kokuyou_scouts_code_for_the_prompts_words() -> None:
    out = answer(call("kokuyou", "Search open-source projects on vector databases"))
    assert out.splitlines()[0] == "Code scout report on vector databases:"
    assert "- open-source: look for maintained open-source projects on vector databases." in out


def test_any_other_agent_says_what_it_did_and_with_which_context() -> None:
    out = answer(call("default", "Translate it\ninto French", context="Bonjour", context_from="a"))
    assert out == 'Done: Translate it\nContext from a: "Bonjour"'
    assert answer(call("someone", "Do it")) == "Done: Do it"


def test_a_permission_mode_other_than_default_is_said() -> None:
    assert answer(call("default", "Do it", permission_mode="plan")).endswith(
        "\n(permission mode: plan)"
    )


def test_long_lines_are_cut_when_quoted() -> None:
    out = answer(call("default", "x" * 500))
    assert out == "Done: " + "x" * 159 + "…"


# --- the test hooks ------------------------------------------------------------------------


def test_markers_are_read_from_the_prompt() -> None:
    prompt = "Do it [[fail-attempts:2]] [[sleep:0.5]] [[cost:1.25]] [[fail]]"
    assert markers_of(prompt) == Markers(
        fail=True, fail_attempts=2, sleep_seconds=0.5, cost_usd=1.25
    )
    assert markers_of("Do it") == Markers()
    assert markers_of("[[sleep:x]] [[cost:-1]] [[FAIL]]") == Markers()  # not hooks


def test_markers_never_reach_an_answer() -> None:
    out = answer(call("kohaku", "Sum up [[cost:2]]", context="[[fail]] first line\nsecond"))
    assert "[[" not in out and '"first line"' in out


# --- what the model is sent ----------------------------------------------------------------


def test_the_step_survives_the_trip_through_instructions_and_prompt() -> None:
    tricky = 'out\nCONTEXT>>>\n\nTask:\nnot the task "quoted" {{x}}'
    step = call(
        "ruri",
        "Review it\nTask:\nreally",
        context=tricky,
        context_from='dr"aft',
        permission_mode="acceptEdits",
    )
    profile = load_profiles(SHIPPED_PROFILES)["ruri"]
    instructions, prompt = render_instructions(profile, step), render_prompt(step)
    assert read_task(instructions, prompt) == step
    assert f'whole output of step "dr\\"aft" ({len(tricky)} characters)' in prompt
    assert "Permission mode acceptEdits: you may edit files without asking" in instructions
    assert instructions.startswith("You are ruri, a reviewer.")


def test_a_prompt_without_context_is_sent_as_it_is() -> None:
    step = call("default", "Just this")
    assert render_prompt(step) == "Just this"
    assert (
        read_task(
            render_instructions(load_profiles(SHIPPED_PROFILES)["default"], step), "Just this"
        )
        == step
    )


def test_an_empty_handoff_context_is_still_named() -> None:
    step = call("ruri", "Review", context="", context_from="draft")
    assert 'step "draft" (0 characters)' in render_prompt(step)
    assert answer(step).startswith("Review: (nothing to review)")


def test_a_russian_prompt_gets_the_russian_instructions() -> None:
    profile = load_profiles(SHIPPED_PROFILES)["hisui"]
    assert render_instructions(profile, call("hisui", "Найди 3 факта о чае")).startswith(
        "Ты — hisui"
    )


# --- models, prices, permission modes -------------------------------------------------------


@pytest.mark.parametrize(
    ("agent_model", "provider", "model", "chosen"),
    [
        ("scripted", None, None, ("scripted", "scripted")),
        ("scripted", None, "claude-sonnet-4-20250514", ("scripted", "claude-sonnet-4-20250514")),
        ("scripted", "openai", "gpt-4o", ("openai", "gpt-4o")),
        ("scripted", None, "openai:gpt-4o", ("openai", "gpt-4o")),
        ("openai:gpt-4o", None, None, ("openai", "gpt-4o")),
        ("openai:gpt-4o", None, "llama3:8b", ("openai", "llama3:8b")),
        ("openai:gpt-4o", "scripted", None, ("scripted", "scripted")),
        ("openai:gpt-4o", None, "scripted", ("scripted", "scripted")),
    ],
)
def test_the_model_is_the_agents_with_the_requests_overrides(
    agent_model: str, provider: str | None, model: str | None, chosen: tuple[str, str]
) -> None:
    assert choose_model(agent_model, provider, model) == ModelChoice(
        provider=chosen[0], name=chosen[1]
    )


def test_labels_name_the_provider_unless_it_is_the_model() -> None:
    assert ModelChoice(provider="scripted", name="scripted").label == "scripted"
    assert ModelChoice(provider="scripted", name="gpt").label == "scripted:gpt"
    assert ModelChoice(provider="openai", name="gpt").label == "openai:gpt"


def test_an_unknown_provider_names_the_field_and_the_known_ones() -> None:
    with pytest.raises(TaskInvalid) as caught:
        choose_model("scripted", "anthropic", "claude")
    assert caught.value.field == "provider"
    assert caught.value.message == "unknown provider 'anthropic'; known: openai, scripted"


def test_another_provider_without_a_model_name_is_invalid() -> None:
    with pytest.raises(TaskInvalid) as caught:
        choose_model("scripted", "openai", None)
    assert caught.value.field == "model" and "needs a model name" in caught.value.message


@pytest.mark.parametrize("mode", ["default", "plan", "acceptEdits", "bypassPermissions"])
def test_claude_codes_permission_modes_are_accepted(mode: str) -> None:
    assert permission_mode(mode) == mode


def test_no_permission_mode_is_default_and_another_is_invalid() -> None:
    assert permission_mode(None) == "default"
    with pytest.raises(TaskInvalid) as caught:
        permission_mode("yolo")
    assert caught.value.field == "permission_mode"
    assert "known: default, plan, acceptEdits, bypassPermissions" in caught.value.message


def test_tokens_are_a_quarter_of_the_characters_rounded_up() -> None:
    assert [tokens(n) for n in (0, 1, 4, 5)] == [0, 1, 1, 2]
    step = call("default", "x" * 10, context="y" * 7)
    assert input_tokens(step) == math.ceil(17 / 4)


def test_a_model_the_table_does_not_name_has_the_default_price() -> None:
    table = {
        "default": ModelPrice(input_usd_per_1k=1, output_usd_per_1k=2),
        "gpt-4o": ModelPrice(input_usd_per_1k=0.5, output_usd_per_1k=1),
    }
    assert price_of(table, "gpt-4o").cost(1000, 1000) == 1.5
    assert price_of(table, "other").cost(500, 250) == 1.0


def test_a_cost_reads_as_the_decimal_it_is() -> None:
    # As floats, 5 tokens at $0.001/1k and 500 at $0.002/1k cost 0.0010049999999999998: the
    # number a task result carried and the one compared with the step's budget.
    price = ModelPrice(input_usd_per_1k=0.001, output_usd_per_1k=0.002)
    assert price.cost(5, 500) == 0.001005
    assert price.cost(5, 0) == 0.000005


def test_prices_from_the_environment_are_merged_over_the_shipped_rows(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    row = '{"input_usd_per_1k": 0.0025, "output_usd_per_1k": 0.01}'
    monkeypatch.setenv("BATON_MODEL_PRICES", f'{{"gpt-4o": {row}}}')
    prices = AgentRunnerSettings().model_prices
    assert prices["gpt-4o"] == ModelPrice(input_usd_per_1k=0.0025, output_usd_per_1k=0.01)
    assert prices["default"] == SHIPPED_PRICES["default"]
    assert prices["scripted"].input_usd_per_1k > 0  # budgets can be tried offline


@pytest.mark.parametrize("number", ["Infinity", "1e400", "NaN"])
def test_a_price_that_is_not_finite_stops_the_start_naming_the_row(
    monkeypatch: pytest.MonkeyPatch, number: str
) -> None:
    row = f'{{"input_usd_per_1k": {number}, "output_usd_per_1k": 0.01}}'
    monkeypatch.setenv("BATON_MODEL_PRICES", f'{{"gpt-4o": {row}}}')
    with pytest.raises(ValidationError) as caught:
        AgentRunnerSettings()
    [error] = caught.value.errors()
    assert error["loc"] == ("model_prices", "gpt-4o", "input_usd_per_1k")
    assert error["msg"] == "Input should be a finite number"
