"""What the workflow service put in a turn's step context, read without trusting its shape."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from uuid import UUID


def context_count(step_context: dict[str, Any], key: str) -> int | None:
    """A count the workflow put in the step's context, or None when it is not there."""
    value = step_context.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def is_last_message(step_context: dict[str, Any]) -> bool:
    """Whether this turn's message is the step's last (`max_messages`): the workflow moves on
    after it whatever the agent's signal says."""
    count, most = (
        context_count(step_context, "messages_in_step"),
        context_count(step_context, "max_messages"),
    )
    return count is not None and most is not None and count + 1 >= most


@dataclass(frozen=True)
class CompletedWidget:
    """A widget a step of the instance closed on, as `workflow.widget_completed` announced it."""

    event_id: str
    widget_type: str
    items: list[str]


def widgets_completed(step_context: dict[str, Any]) -> list[CompletedWidget]:
    """The widgets the workflow says the instance's steps closed on (`widgets_completed`); an
    entry of another shape is left out, its announcement's consumer still saves it. The event
    id is written as `uuid.UUID` writes it, as the consumer's is."""
    entries = step_context.get("widgets_completed")
    found: list[CompletedWidget] = []
    for entry in entries if isinstance(entries, list) else ():
        if not isinstance(entry, dict):
            continue
        event_id, kind, items = entry.get("event_id"), entry.get("widget_type"), entry.get("items")
        if not (isinstance(event_id, str) and isinstance(kind, str) and isinstance(items, list)):
            continue
        try:
            event_id = str(UUID(event_id))
        except ValueError:
            continue
        found.append(CompletedWidget(event_id, kind, [i for i in items if isinstance(i, str)]))
    return found
