"""What a turn keeps from `extracted_data`: priority facts and inbox items with stable ids; and
the inbox items of a list the user completed on a workflow step, with ids as stable."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

PRIORITIES = "priorities"
"""The memory category of the facts discovery extracts, one per life area."""

SITUATION = "situation"
"""The memory category of discovery's notes (`extracted_data.notes`): which area matters most,
what holds the user back. Apart from `PRIORITIES`, whose count is a step's `memory_facts`
criterion and the coordinator's count of priorities: a note is no life area."""

_ITEM_IDS = uuid.UUID("1f0b7c52-6d35-4c8e-9a57-0a4f3c2e8b61")
"""Namespace of inbox item ids; changing it would duplicate the items of a retried turn."""


@dataclass(frozen=True)
class NewInboxItem:
    """An inbox item a turn writes; the same turn always gives it the same `item_id`."""

    item_id: str
    content: str
    status: str


def item_id(user_id: str, turn_key: str, index: int) -> str:
    """The id of the `index`-th item of the user's turn `turn_key` (UUID5, as 32 hex digits)."""
    return uuid.uuid5(_ITEM_IDS, json.dumps([user_id, turn_key, index])).hex


def widget_item_id(user_id: str, event_id: str, index: int) -> str:
    """The id of the `index`-th item of the list the workflow announced in event `event_id`
    (a list of four, never equal to a turn's three, so no turn's item can share it)."""
    return uuid.uuid5(_ITEM_IDS, json.dumps([user_id, "widget", event_id, index])).hex


def widget_inbox_items(user_id: str, event_id: str, items: list[str]) -> list[NewInboxItem]:
    """The inbox items (status new) of a completed list: the same event always gives the same
    items, so a redelivered or republished one saves nothing twice."""
    texts = [item.strip() for item in items if item.strip()]
    return [
        NewInboxItem(widget_item_id(user_id, event_id, index), content, "new")
        for index, content in enumerate(texts)
    ]


def same_item(content: str) -> str:
    """What two items are compared by: the content trimmed, case-folded, its inner whitespace
    collapsed ("Buy  milk " and "buy milk" are one item)."""
    return " ".join(content.split()).casefold()


def not_yet_saved(items: list[NewInboxItem], saved: Iterable[str]) -> list[NewInboxItem]:
    """The items whose content (`same_item`) is neither among the contents `saved` nor an
    earlier item's; each keeps its id, so a list saved in part is completed, not renumbered."""
    seen = {same_item(content) for content in saved}
    kept: list[NewInboxItem] = []
    for item in items:
        key = same_item(item.content)
        if key not in seen:
            seen.add(key)
            kept.append(item)
    return kept


def facts_of(data: dict[str, Any]) -> dict[str, str]:
    """`extracted_data.facts` as {area: text}; anything else there is ignored."""
    facts = data.get("facts")
    if not isinstance(facts, dict):
        return {}
    return {str(area): str(text) for area, text in facts.items()}


def notes_of(data: dict[str, Any]) -> dict[str, str]:
    """`extracted_data.notes` as {question: answer}; anything else there is ignored."""
    notes = data.get("notes")
    if not isinstance(notes, dict):
        return {}
    return {str(key): str(text) for key, text in notes.items()}


def dropped_facts_of(data: dict[str, Any]) -> list[str]:
    """`extracted_data.dropped_facts`: the areas whose facts the user took back."""
    return _contents(data, "dropped_facts")


def inbox_items_of(
    user_id: str, turn_key: str, data: dict[str, Any], *, defer: bool = True
) -> list[NewInboxItem]:
    """`inbox_items` (status new), then `deferred_inbox_items` (status deferred, or new when
    not `defer`: no inbox step lies ahead to take them), numbered across both lists, so a
    retry of the same turn produces exactly the same items."""
    found: list[NewInboxItem] = []
    later = "deferred" if defer else "new"
    for key, status in (("inbox_items", "new"), ("deferred_inbox_items", later)):
        for content in _contents(data, key):
            found.append(NewInboxItem(item_id(user_id, turn_key, len(found)), content, status))
    return found


def removed_items_of(data: dict[str, Any]) -> list[str]:
    """`extracted_data.removed_inbox_items`: what the user asked to take out of the inbox, each
    as said ("cancel netflix"), matched against the items of the turn's instance."""
    return _contents(data, "removed_inbox_items")


def holds(content: str, said: str) -> bool:
    """Whether an item's content holds what the user said of it, word for word (`same_item`):
    "купить кроссовки" holds "кроссовки", "buy milk" does not hold "milk shake"."""
    item, phrase = same_item(content).split(), same_item(said).split()
    if not phrase:
        return False
    return any(item[at : at + len(phrase)] == phrase for at in range(len(item) - len(phrase) + 1))


def deferred_contents(data: dict[str, Any]) -> list[str]:
    """The items `extracted_data` asks to keep for the inbox step."""
    return _contents(data, "deferred_inbox_items")


def _contents(data: dict[str, Any], key: str) -> list[str]:
    items = data.get(key)
    if not isinstance(items, list):
        return []
    return [content for content in (str(item) for item in items) if content.strip()]
