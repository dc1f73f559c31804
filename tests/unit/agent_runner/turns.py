"""Turns of the scripted agents as the unit tests build them, one builder per step, so that a
test file says only what its turns have that others do not."""

from __future__ import annotations

from typing import Any

from baton_agent_runner.domain import language as lang
from baton_agent_runner.domain.scripted import Turn


def brain_dump_turn(message: str, held: list[str] | None = None, **extra: Any) -> Turn:
    """A message to the inbox collector, in the message's language; `held`, the items the
    inbox holds open (and their count), unless `extra` says otherwise."""
    if held is not None:
        extra.setdefault("inbox_open", held)
        extra.setdefault("inbox_count", len(held))
    return Turn(
        agent="inbox_collector",
        current_step="brain_dump",
        message=message,
        language=lang.language_of(message),
        **extra,
    )
