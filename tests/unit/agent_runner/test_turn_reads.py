"""Which stored fields of a turn the service reads: what the agent's model looks at."""

from __future__ import annotations

from baton_agent_runner.adapters.models import AgentFactory, OpenAISettings
from baton_agent_runner.adapters.profiles import SHIPPED_PROFILES, load_profiles
from baton_agent_runner.domain import scripted

PROFILES = load_profiles(SHIPPED_PROFILES)
OPENAI = OpenAISettings(base_url=None, api_key="x", timeout_seconds=1.0, max_retries=0)


def test_the_scripted_model_reads_what_its_rules_read() -> None:
    agents = AgentFactory(OPENAI)
    assert agents.reads(PROFILES["greeter"]) == frozenset()
    assert agents.reads(PROFILES["discovery"]) == {"facts", "notes"}
    assert agents.reads(PROFILES["coordinator"]) == {"facts", "inbox_count"}


def test_an_endpoint_model_reads_the_whole_turn() -> None:
    agents = AgentFactory(OPENAI, model_override="openai:some-model")
    for profile in PROFILES.values():
        assert agents.reads(profile) == scripted.STORED
