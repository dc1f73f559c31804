"""Tasks said to the scripted discovery agent: a to-do list, or one task said to its summary,
kept for the brain dump (or saved now when no inbox step lies ahead)."""

# ruff: noqa: RUF001  (Russian text is meant to be Cyrillic)

from __future__ import annotations

import re

from baton_agent_runner.domain import action_words, brain_dump
from baton_agent_runner.domain import discovery_followup as followup
from baton_agent_runner.domain import language as lang
from baton_agent_runner.domain.errand_lists import errand_list
from baton_agent_runner.domain.extracted import distinct
from baton_agent_runner.domain.scripted_turn import Reply, Turn
from baton_agent_runner.domain.texts import text
from baton_agent_runner.domain.wording import normalised


def tasks_said(turn: Turn) -> Reply:
    """What discovery says of a to-do list (`followup.task_list`): kept for the brain dump,
    where it reaches the inbox as the step starts, as an inbox request is; saved now when no
    inbox step lies ahead. One item asked about is only told where tasks go. A list of errands
    that names areas (`errand_list`: "call doctor; buy vitamins") is one too."""
    items = followup.task_list(turn.message) or errand_list(turn.message)
    if not items:
        return Reply(text(turn.language, "discovery_tasks"))
    listed = "; ".join(items)
    if turn.inbox_ahead:
        kept = text(turn.language, "discovery_tasks_kept", items=listed)
        return Reply(kept, data={"deferred_inbox_items": items})
    why = text(turn.language, "why_discovery")
    return Reply(
        text(turn.language, "noted_now", items=listed, why=why), data={"inbox_items": items}
    )


_EDITS = frozenset(
    [
        "add",
        "change",
        "swap",
        "replace",
        "remove",
        "delete",
        "drop",
        "fix",
        "edit",
        "update",
        "rename",
        "move",
        "добавить",
        "поменять",
        "заменить",
        "убрать",
        "удалить",
        "исправить",
        "изменить",
        "переименовать",
    ]
)
"""First words of a change asked of the summary ("swap the last two"), no task."""


def one_task(turn: Turn, message: str | None = None) -> Reply | None:
    """One task said to the summary's question ("buy groceries", "finishing the deck"),
    naming no area, or an errand of areas the summary holds ("book a yoga class"): kept for
    the brain dump (or saved now when no inbox step lies ahead) as an inbox request is. It got
    "I did not quite get that", and had to be said again later; the errand replaced the
    fact of health."""
    message = turn.message if message is None else message
    items = brain_dump.split_items(message)
    if len(items) > 1:
        return _task_list(turn, message, distinct(items))
    if len(items) != 1 or brain_dump.asks(message):
        return None
    item = items[0].strip().rstrip(".!")
    said = item.split()
    if not said or said[0].lower() in _EDITS:
        return None
    if named := lang.areas_in(message).keys():
        if not (named <= turn.facts.keys() and action_words.is_errand(item)):
            return None
    elif not (action_words.is_action(item) or action_words.is_action(_ungerund(item))):
        return None
    key = "task_kept" if turn.inbox_ahead else "noted"
    data = {"deferred_inbox_items" if turn.inbox_ahead else "inbox_items": [item]}
    return Reply(text(turn.language, key, items=item), data=data)


# How often, which makes an item a habit and a priority: "call mom more often, go to the gym
# more" says what the areas hold, no errands.
_HABIT = re.compile(
    r"\b(?:more|less|often|regularly|every|daily|weekly|чаще|больше|меньше|регулярно"
    r"|кажд\w+)\b"
)


def _task_list(turn: Turn, message: str, items: list[str]) -> Reply | None:
    """A to-do list said to the summary that names areas, every item an action and every area
    one the summary holds: kept as one task is. "finish the report, email the boss, book a
    dentist" became the work fact, by its "boss", and the tasks were lost. (A list naming no
    area goes by `tasks_said`, with the summary again.)"""
    named = lang.areas_in(message).keys()
    if brain_dump.asks(message) or not named or not named <= turn.facts.keys():
        return None
    for item in items:
        said = normalised(item)
        if said.split()[0] in _EDITS or _HABIT.search(said) or not action_words.is_action(item):
            return None
    key = "tasks_kept" if turn.inbox_ahead else "noted"
    data = {"deferred_inbox_items" if turn.inbox_ahead else "inbox_items": items}
    return Reply(text(turn.language, key, items="; ".join(items)), data=data)


def _ungerund(item: str) -> str:
    """ "finishing the deck" as "finish the deck", that `action_words.is_action` knows; an item
    not opening with an English "-ing" word as it is."""
    first, _, rest = item.partition(" ")
    if not (first.lower().endswith("ing") and len(first) > 5):
        return item
    stem = first[:-3]
    for verb in (stem, stem + "e", stem[:-1]):
        if action_words.is_action(f"{verb} {rest}"):
            return f"{verb} {rest}"
    return item


# A yes before what else a reply to the summary says: "yes, buy running shoes", "да, и
# записаться в спортзал".
_YES_THEN = re.compile(
    r"^\W*(?:yes|yeah|yep|yup|sure|ok|okay|да|ага|ок)\b[\s,.!]*"
    r"(?:(?:and|also|but|plus|и|ещ[её]|но|а|также)\b[\s,]*)*",
    re.IGNORECASE,
)


def task_after_yes(turn: Turn) -> Reply | None:
    """One task said after a yes to the summary (`one_task`): "yes, buy running shoes" was
    taken for the yes alone, and the task was lost."""
    yes = _YES_THEN.match(turn.message)
    rest = turn.message[yes.end() :] if yes else ""
    return one_task(turn, rest) if rest.strip() else None
