"""Discovery's closing asks to start the brain dump only when an inbox step is ahead in the
definition (`inbox_ahead`): without one it said "On to the brain dump ... Ready?" all the
same, promising a step that never came. `_skipped` already followed `inbox_ahead`."""

from __future__ import annotations

from typing import Any

import pytest

from baton_agent_runner.domain import texts
from baton_agent_runner.domain.scripted import Turn, run

FACTS = {"work": "w", "health": "h", "relationships": "r"}
YES = {"en": "yes", "ru": "да"}
PASS = {"en": "skip", "ru": "потом"}
ANSWER = {"en": "no time, too many meetings", "ru": "не хватает времени"}
NAMED = {"en": "work, health, family", "ru": "работа, здоровье, семья"}
BRAIN_DUMP = {"en": "brain dump", "ru": "выгрузк"}


def _turn(language: str, message: str, said: str, **extra: Any) -> Turn:
    history = [{"role": "assistant", "text": said}] if said else []
    extra.setdefault("facts", FACTS)
    return Turn(
        agent="discovery", current_step="s", message=message, history=history,
        language=language, can_complete=True, **extra,
    )  # fmt: skip


def _closings(language: str, inbox_ahead: bool) -> list[Any]:
    """The step's three closings: a yes to the summary, a follow-up question passed on, and
    one answered, each once the step may complete."""
    summary = run(_turn(language, NAMED[language], "", facts={})).message
    asked = texts.text(language, "discovery_ask_constraints")
    notes = {"focus": "x"}
    return [
        run(_turn(language, YES[language], summary, inbox_ahead=inbox_ahead)),
        run(_turn(language, PASS[language], asked, notes=notes, inbox_ahead=inbox_ahead)),
        run(_turn(language, ANSWER[language], asked, notes=notes, inbox_ahead=inbox_ahead)),
    ]


@pytest.mark.parametrize("language", ["en", "ru"])
def test_with_no_inbox_step_ahead_discovery_closes_without_promising_the_brain_dump(
    language: str,
) -> None:
    for out in _closings(language, inbox_ahead=False):
        assert out.step_completed and out.completion_reason == "user_confirmed"
        assert out.message == texts.text(language, "discovery_done_alone")
        assert BRAIN_DUMP[language] not in out.message.lower()
        assert not out.message.endswith("?")


@pytest.mark.parametrize("language", ["en", "ru"])
def test_with_an_inbox_step_ahead_discovery_closes_asking_to_start_the_brain_dump(
    language: str,
) -> None:
    for out in _closings(language, inbox_ahead=True):
        assert out.step_completed and out.completion_reason == "user_confirmed"
        assert out.message == texts.text(language, "discovery_done")
        assert BRAIN_DUMP[language] in out.message.lower() and out.message.endswith("?")
