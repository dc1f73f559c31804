"""The profile tools read the turn's user's stores; a store that fails makes a tool say so to
the model, not fail the user's turn."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from baton_agent_runner.adapters.agent_tools import TOOLS, inbox_summary, recall_facts
from baton_agent_runner.adapters.profiles import load_profiles
from baton_agent_runner.domain.profile import ToolName
from baton_agent_runner.service.ports import StoreUnavailable, ToolContext


class Down:
    """A memory and an inbox that are both unavailable."""

    async def search(self, *args: Any) -> Any:
        raise StoreUnavailable("memory: connection refused")

    async def count(self, *args: Any) -> Any:
        raise StoreUnavailable("inbox: connection refused")


class Run:
    """The part of PydanticAI's `RunContext` a tool reads."""

    def __init__(self, deps: ToolContext) -> None:
        self.deps = deps


async def test_a_tool_whose_store_is_down_tells_the_model_it_cannot_read() -> None:
    down = ToolContext("ann", memory=Down(), inbox=Down())  # type: ignore[arg-type]
    assert await recall_facts(Run(down), "work") == {  # type: ignore[arg-type]
        "error": "the memory cannot be read right now"
    }
    assert await inbox_summary(Run(down)) == {"error": "the inbox cannot be read right now"}  # type: ignore[arg-type]


def test_every_tool_a_profile_may_name_is_implemented() -> None:
    assert set(TOOLS) == set(ToolName.__args__)  # type: ignore[attr-defined]


DOC = Path(__file__).parents[3] / "docs" / "agents.md"


def test_the_documented_profile_with_tools_loads(tmp_path: Path) -> None:
    text = DOC.read_text()
    section = text[text.index("### Tools") :]
    found = re.search(r"^```yaml\n(.*?)^```", section, flags=re.S | re.M)
    assert found is not None, "docs/agents.md lost its tools example"
    (tmp_path / "greeter.yaml").write_text(found.group(1))
    assert load_profiles(tmp_path)["greeter"].tools == ["recall_facts", "inbox_summary"]
