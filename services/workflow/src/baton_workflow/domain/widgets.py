"""A widget the user fills in on a step (seed 000: a `list_input` brain dump), as its data holds it.

A client completes one by a signal whose `data` is `{"widget": {"type": ..., "completed": true,
"items": [...]}}`; the signal's data merges into the step's, so the step holds the last widget
sent. Its items are the entries that are text with something besides spaces, trimmed: a blank
entry is no item, so it neither counts towards `min_items` nor reaches whoever takes the items
(the agent-runner's inbox).

A person's signal must send a widget of that shape (`widget_problems`), or it is refused by
the path of what is wrong: an item that was a number used to be dropped without a word, and
the user's list lost it. An agent's signal, and step data kept before that rule, may still
hold entries that are not text: those are no items either.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from baton_workflow.domain.events import DomainEvent, WidgetCompleted

WIDGET_KEY = "widget"
"""The key of a step's data that holds its widget."""


@dataclass(frozen=True)
class Widget:
    """The widget a step's data holds: its type, whether it is completed, and its items."""

    widget_type: str | None
    completed: bool
    items: tuple[str, ...]


def widget_of(step_data: dict[str, Any]) -> Widget | None:
    """The widget in a step's data, None when it holds none (or not an object)."""
    widget = step_data.get(WIDGET_KEY)
    if not isinstance(widget, dict):
        return None
    kind = widget.get("type")
    return Widget(
        widget_type=kind if isinstance(kind, str) else None,
        completed=bool(widget.get("completed")),
        items=items_of(widget.get("items")),
    )


def widget_problems(widget: Any) -> list[tuple[str, str]]:
    """What is wrong with a widget a person sends, as `(path under the widget, problem)`:
    empty when it is an object whose `type` is text with something besides spaces, whose
    `completed`, if given, is true or false, and whose `items`, if given, are a list of text.
    Other keys are the client's own and kept as they are."""
    if not isinstance(widget, dict):
        shape = "an object with `type`, `completed` and `items`"
        return [("", f"must be {shape}, not {_kind(widget)}")]
    problems = []
    kind = widget.get("type")
    if "type" not in widget:
        problems.append((".type", "is missing: give the widget's type as text (`list_input`)"))
    elif not isinstance(kind, str) or not kind.strip():
        problems.append((".type", f"must be the widget's type as text, not {_kind(kind)}"))
    if "completed" in widget and not isinstance(widget["completed"], bool):
        problems.append((".completed", f"must be true or false, not {_kind(widget['completed'])}"))
    entries = widget.get("items", [])
    if not isinstance(entries, list):
        problems.append((".items", f"must be a list of text, not {_kind(entries)}"))
    else:
        problems += [
            (f".items[{index}]", f"must be text, not {_kind(entry)}")
            for index, entry in enumerate(entries)
            if not isinstance(entry, str)
        ]
    return problems


def _kind(value: Any) -> str:
    """What a JSON value is, as an error message names it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "blank text" if not value.strip() else "text"
    return "a list" if isinstance(value, list) else "an object"


def items_of(entries: Any) -> tuple[str, ...]:
    """The items of a widget's `items`: its text entries, trimmed, blank ones left out."""
    if not isinstance(entries, list):
        return ()
    return tuple(entry.strip() for entry in entries if isinstance(entry, str) and entry.strip())


def widgets_completed(events: Sequence[DomainEvent], event_ids: Sequence[UUID]) -> list[Any]:
    """Every widget the instance's steps closed on, as `workflow.widget_completed` announced
    it, with that event's id: `[{"event_id", "step", "widget_type", "items"}]`.

    A turn carries them so its agent-runner can save a list's items, keyed by the event id as
    its consumer of the announcement keys them, before it counts the inbox: the consumer may
    not have had the announcement yet.
    """
    return [
        {
            "event_id": str(event_id),
            "step": event.step,
            "widget_type": event.widget_type,
            "items": list(event.items),
        }
        for event_id, event in zip(event_ids, events, strict=True)
        if isinstance(event, WidgetCompleted)
    ]
