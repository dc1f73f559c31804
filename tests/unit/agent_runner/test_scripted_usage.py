"""The scripted chat model counts its tokens the way the DAG's does: a quarter of the characters."""

from __future__ import annotations

import pytest

from baton_agent_runner.adapters.models import AgentFactory, OpenAISettings, render_prompt
from baton_agent_runner.adapters.profiles import SHIPPED_PROFILES, load_profiles
from baton_agent_runner.domain import scripted
from baton_agent_runner.domain.task import tokens
from baton_agent_runner.service.ports import ToolContext

PROFILES = load_profiles(SHIPPED_PROFILES)
OPENAI = OpenAISettings(base_url=None, api_key="x", timeout_seconds=1.0, max_retries=0)


@pytest.mark.parametrize(
    ("language", "history"),
    [("en", []), ("ru", [{"role": "user", "text": "привет"}, {"role": "assistant", "text": "да"}])],
)
async def test_a_turn_counts_instructions_and_prompt_in_and_the_reply_out(
    language: scripted.Lang, history: list[dict[str, str]]
) -> None:
    profile = PROFILES["greeter"]
    turn = scripted.Turn(
        agent="greeter",
        current_step="greeting",
        message="got it, let's go" if language == "en" else "понял, давай",
        history=history,
        language=language,
    )
    # The scripted model calls no tool: they have nothing to read.
    no_stores = ToolContext("u1", memory=None, inbox=None)  # type: ignore[arg-type]
    answer = await AgentFactory(OPENAI).answer(profile, turn, no_stores)
    instructions = getattr(profile.system_prompt, language).strip()  # as PydanticAI sends it
    assert answer.usage.input_tokens == tokens(len(instructions) + len(render_prompt(turn)))
    assert answer.usage.output_tokens == tokens(len(answer.output.model_dump_json()))
    assert answer.usage.input_tokens > 50  # the whole prompt, not a word count
