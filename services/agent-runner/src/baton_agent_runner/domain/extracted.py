"""What a turn keeps from `extracted_data`: priority facts and inbox items with stable ids; and
the inbox items of a list the user completed on a workflow step, with ids as stable."""

# ruff: noqa: RUF001, RUF002, RUF003  (Russian text, comments too, is meant to be Cyrillic)

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from baton_agent_runner.domain.wording import without_end

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
    texts = [content for content in (trimmed_item(item) for item in items) if content]
    return [
        NewInboxItem(widget_item_id(user_id, event_id, index), content, "new")
        for index, content in enumerate(texts)
    ]


_AROUND = " .,;:!?…\"'«»“”„‘’()[]{}*•·-–—"  # the quotes and dashes are meant
"""Punctuation around an item that makes no other item of it ("buy milk!" is "buy milk");
"+" and "#" are left alone: "learn C++" is no "learn C"."""


_STOPS = "!?…."
"""Sentence punctuation that may end an item said as a sentence ("позвонить маме!")."""
_OPENING = {")": "(", "]": "[", "}": "{", "»": "«", "”": "“", "“": "„", '"': '"'}
"""A closing bracket or quote, and the one that opens it."""
_EYES = ":;="
"""What stands before a ")" that closes nothing in a smiley ("купить молоко :)")."""


def trimmed_item(content: str) -> str:
    """The item without what ends it as a sentence and is no part of it: "!", "?", "…" and
    two dots or more ("позвонить маме!" is "позвонить маме"), and a closing bracket or quote
    whose opening one it lacks (a smiley's ")" too). Kept: a single dot (an initial's, as in
    "позвонить Петрову В.", or "etc."), what is inside the item ("C++", "v2.0") and a bracket
    or quote that closes one it opens ("купить хлеб (белый)", "прочитать «Войну и мир»")."""
    item = content.strip()
    while True:
        before = item
        stops = len(item) - len(item.rstrip(_STOPS))
        if stops and item[-stops:] != ".":
            item = without_end(item, _STOPS).rstrip()  # an initial's dot stays: "Петрову В."
        if item and item[-1] in _OPENING and not _closes(item):
            item = item[:-1].rstrip(_EYES if item[-1] == ")" else "").rstrip()
        if item == before:
            return item


def _closes(item: str) -> bool:
    """Whether the bracket or quote that ends `item` closes one opened in it."""
    closing = item[-1]
    opening = _OPENING[closing]
    if opening == closing:  # a straight quote: an even count closes
        return item.count(closing) % 2 == 0
    return item.count(opening) >= item.count(closing)


def same_item(content: str) -> str:
    """What two items are compared by: the content trimmed of white space and punctuation
    around it, case-folded, its inner whitespace collapsed ("Buy  milk! " and "buy milk" are
    one item); not fuzzy: "buy milk" and "buy the milk" are two."""
    return " ".join(content.split()).strip(_AROUND).casefold()


def distinct(contents: Iterable[str]) -> list[str]:
    """The contents without the ones repeating an earlier one (`same_item`), in order."""
    seen: set[str] = set()
    kept: list[str] = []
    for content in contents:
        if (key := same_item(content)) not in seen:
            seen.add(key)
            kept.append(content)
    return kept


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
    not `defer`: no inbox step lies ahead to take them), each as `trimmed_item`, numbered
    across both lists, so a retry of the same turn produces exactly the same items. An item
    said twice ("buy milk, buy milk") is one item: its repeats (`same_item`) are left out
    before numbering."""
    found: list[NewInboxItem] = []
    seen: set[str] = set()
    later = "deferred" if defer else "new"
    for key, status in (("inbox_items", "new"), ("deferred_inbox_items", later)):
        for content in _items(data, key):
            if (same := same_item(content)) in seen:
                continue
            seen.add(same)
            found.append(NewInboxItem(item_id(user_id, turn_key, len(found)), content, status))
    return found


def repeats(items: list[NewInboxItem], held: Iterable[tuple[str, str]]) -> list[NewInboxItem]:
    """The items an open item of the inbox already holds (`held`: its id and content), by
    content (`same_item`), or an earlier item of the list: not saved again. An item whose own
    id is held is no repeat: a retried turn finds what its first attempt saved."""
    ids_by_content: dict[str, set[str]] = {}
    for held_id, content in held:
        ids_by_content.setdefault(same_item(content), set()).add(held_id)
    repeated: list[NewInboxItem] = []
    for item in items:
        ids = ids_by_content.setdefault(same_item(item.content), set())
        if ids and item.item_id not in ids:
            repeated.append(item)
        else:
            ids.add(item.item_id)
    return repeated


def removed_items_of(data: dict[str, Any]) -> list[str]:
    """`extracted_data.removed_inbox_items`: what the user asked to take out of the inbox, each
    as said ("cancel netflix"), matched against the items of the turn's instance."""
    return _contents(data, "removed_inbox_items")


def holds(content: str, said: str) -> bool:
    """Whether an item's content holds what the user said of it, word for word (`same_item`),
    the marks around each word left out: "купить кроссовки" holds "кроссовки", "buy milk, 2
    liters" holds "milk" ("milk," was no word of it), "buy milk" does not hold "milk shake"."""
    item, phrase = _bare_words(content), _bare_words(said)
    if not phrase:
        return False
    return any(item[at : at + len(phrase)] == phrase for at in range(len(item) - len(phrase) + 1))


def _bare_words(content: str) -> list[str]:
    """The words of `content` as `same_item` compares it, each without the marks around it."""
    return [bare for word in same_item(content).split() if (bare := word.strip(_AROUND))]


def corrections_of(data: dict[str, Any]) -> dict[str, str]:
    """`extracted_data.inbox_corrections`: {an item of `removed_inbox_items`: the item saved
    in its place} ("buy milk": "buy oat milk"); anything else there is ignored."""
    found = data.get("inbox_corrections")
    if not isinstance(found, dict):
        return {}
    return {str(old): str(new) for old, new in found.items() if str(new).strip()}


def to_remove(contents: list[str], said: str) -> list[int]:
    """Which of `contents` a request to take out `said` names: those that hold it (`holds`),
    or, when several do, the one that is it ("buy milk" of "buy milk", "buy milk powder")."""
    found = [at for at, content in enumerate(contents) if holds(content, said)]
    exact = [at for at in found if same_item(contents[at]) == same_item(said)]
    return exact if len(exact) == 1 else found


# Where an item joins two of its parts: "call grandma and buy dog food", "купить хлеб и соль".
_JOINED = re.compile(r"(\s*,?\s+(?:and\s+also|and|и)\s+)", re.IGNORECASE)


def without_part(content: str, said: str) -> str | None:
    """The item without the one part of it joined by "and"/"и" that holds what the user asked
    to take out ("call grandma and buy dog food" without "buy dog food" is "call grandma");
    None when the item has no such part: it is one part, or what was said is all of it or
    spans its parts (the whole item goes)."""
    pieces = _JOINED.split(content)
    parts = pieces[::2]
    holding = [at for at, part in enumerate(parts) if holds(part, said)]
    if len(parts) < 2 or len(holding) != 1 or same_item(content) == same_item(said):
        return None
    at = 2 * holding[0]
    kept = pieces[: at - 1] + pieces[at + 1 :] if at else pieces[2:]
    return "".join(kept).strip()


def deferred_contents(data: dict[str, Any]) -> list[str]:
    """The items `extracted_data` asks to keep for the inbox step."""
    return _items(data, "deferred_inbox_items")


def _contents(data: dict[str, Any], key: str) -> list[str]:
    items = data.get(key)
    if not isinstance(items, list):
        return []
    return [content for content in (str(item) for item in items) if content.strip()]


def _items(data: dict[str, Any], key: str) -> list[str]:
    """The inbox items of `data[key]`, each as saved (`trimmed_item`)."""
    return [item for item in map(trimmed_item, _contents(data, key)) if item]
