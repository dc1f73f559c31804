"""A to-do list of errands that names life areas ("call doctor; buy vitamins; plan dinner
with friends"): said to "which matters most?" it became the focus note, read as ranking
health and relationships, and its tasks were lost. Every item an action and one an errand
(`action_words.is_errand`), it is a to-do list; "go running; see friends" (habits) is not."""

from __future__ import annotations

from baton_agent_runner.domain import action_words, brain_dump
from baton_agent_runner.domain.extracted import distinct


def errand_list(message: str) -> list[str]:
    """The items of a list of two actions or more, one of them an errand; none otherwise."""
    items = distinct(brain_dump.split_items(message))
    if len(items) < 2 or not all(action_words.is_action(item) for item in items):
        return []
    return items if any(action_words.is_errand(item) for item in items) else []
