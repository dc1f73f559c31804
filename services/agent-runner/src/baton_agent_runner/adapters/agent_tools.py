"""The tools a profile may give its agent (`Profile.tools`), as PydanticAI tools.

Each reads the stores of the user the turn is for, through the run's `ToolContext`; none
writes: what an agent keeps (facts, inbox items) it says in its structured reply, which the
service stores once the reply is recorded. A store that fails makes the tool answer that it
could not read, so the model can go on without it, instead of failing the user's turn.
"""

from __future__ import annotations

import logging
from typing import Any

from pydantic_ai import RunContext, Tool

from baton_agent_runner.domain.profile import ToolName
from baton_agent_runner.service.ports import StoreUnavailable, ToolContext

log = logging.getLogger("baton.agent_runner")

RECALLED = 5
"""Facts `recall_facts` returns at most."""
NEWEST = 5
"""Inbox items `inbox_summary` lists at most."""


async def recall_facts(ctx: RunContext[ToolContext], query: str) -> dict[str, Any]:
    """The user's long-term facts nearest to `query` (at most 5, nearest first), each with its
    category and key; use it before asking the user something they may have said already."""
    try:
        found = await ctx.deps.memory.search(ctx.deps.user_id, query, None, RECALLED)
    except StoreUnavailable as exc:
        log.warning("tool recall_facts: the memory is unavailable: %s", exc)
        return {"error": "the memory cannot be read right now"}
    return {"facts": [fact.model_dump() for fact in found]}


async def inbox_summary(ctx: RunContext[ToolContext]) -> dict[str, Any]:
    """How many items the user's inbox holds, and the newest (at most 5)."""
    try:
        count = await ctx.deps.inbox.count(ctx.deps.user_id, None)
        newest = await ctx.deps.inbox.list_items(ctx.deps.user_id, NEWEST)
    except StoreUnavailable as exc:
        log.warning("tool inbox_summary: the inbox is unavailable: %s", exc)
        return {"error": "the inbox cannot be read right now"}
    return {"count": count, "newest": [item.content for item in newest]}


TOOLS: dict[ToolName, Tool[ToolContext]] = {
    "recall_facts": Tool(recall_facts),
    "inbox_summary": Tool(inbox_summary),
}
"""Every tool a profile may name, by name (`domain.profile.ToolName` lists the same)."""


def tools_of(names: list[ToolName]) -> list[Tool[ToolContext]]:
    """The tools a profile names, in its order."""
    return [TOOLS[name] for name in names]
