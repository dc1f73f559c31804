"""A chat turn's reply says what it cost, priced from the agent's profile."""

from __future__ import annotations

import pytest

from baton_agent_runner.domain.output import AgentOutput, Signal
from baton_agent_runner.domain.profile import Profile, SystemPrompt
from baton_agent_runner.service.replies import reply_of
from baton_contracts.agent_api import TokenUsage

PROMPT = SystemPrompt(en="Greet the user.", ru="Поприветствуй пользователя.")
OUTPUT = AgentOutput(message="Hello!", workflow_signal=Signal(action="stay"))


def _profile(**prices: float) -> Profile:
    return Profile(slug="greeter", role="greets", system_prompt=PROMPT, **prices)


def test_a_turn_costs_its_tokens_at_the_profiles_prices_per_million() -> None:
    # Input and output are priced apart: a turn that read much and wrote little must not be
    # billed at the output price, nor the other way round.
    profile = _profile(input_usd_per_mtok=3.0, output_usd_per_mtok=15.0)
    usage = TokenUsage(input_tokens=1_200, output_tokens=400)

    reply = reply_of(profile, "openai:gpt-4o-mini", OUTPUT, usage)

    # 1200 x $3 / 1e6 + 400 x $15 / 1e6 = $0.0036 + $0.006
    assert reply.cost_usd == 0.0096
    assert reply.usage == usage


@pytest.mark.parametrize(
    ("input_tokens", "output_tokens", "expected"),
    [(1_000_000, 0, 3.0), (0, 1_000_000, 15.0), (1, 1, 0.000018), (0, 0, 0.0)],
)
def test_each_token_kind_is_priced_at_its_own_rate(
    input_tokens: int, output_tokens: int, expected: float
) -> None:
    profile = _profile(input_usd_per_mtok=3.0, output_usd_per_mtok=15.0)
    usage = TokenUsage(input_tokens=input_tokens, output_tokens=output_tokens)

    assert reply_of(profile, "scripted", OUTPUT, usage).cost_usd == expected


def test_a_turn_of_a_profile_without_prices_costs_nothing() -> None:
    usage = TokenUsage(input_tokens=1_200, output_tokens=400)

    assert reply_of(_profile(), "scripted", OUTPUT, usage).cost_usd == 0.0
