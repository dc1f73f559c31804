"""Requests the agent-runner answers for other services (the workflow's criteria checkers)."""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

from baton_contracts.base import Kind, Query, ReplyModel, Subject


class Count(BaseModel):
    """How many there are."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    count: int = Field(ge=0)


class CountMemoryFacts(Query):
    """How many long-term memory facts a user has in a category (e.g. `priorities`)."""

    type: Literal["agent.count_memory_facts"] = "agent.count_memory_facts"
    subject: ClassVar[Subject] = Subject(owner="agent", kind=Kind.QUERY, name="memory_facts")
    reply_model: ClassVar[ReplyModel] = Count
    user_id: str
    category: str | None = None


class CountInboxItems(Query):
    """How many inbox items a user has (optionally only those with one status)."""

    type: Literal["agent.count_inbox_items"] = "agent.count_inbox_items"
    subject: ClassVar[Subject] = Subject(owner="agent", kind=Kind.QUERY, name="inbox_items")
    reply_model: ClassVar[ReplyModel] = Count
    user_id: str
    status: str | None = None


AGENT_REQUESTS = (CountMemoryFacts, CountInboxItems)
