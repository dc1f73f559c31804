"""A change of the top priority asked of the coordinator is kept as the `focus` note and said
before the wrap-up, or, with no area named, asked which: "change my top priority" was
ignored, the wrap-up alone (found by a probe)."""

from __future__ import annotations

from typing import Any

import pytest

from baton_agent_runner.domain import language as lang
from baton_agent_runner.domain import texts
from baton_agent_runner.domain.output import AgentOutput
from baton_agent_runner.domain.scripted import Turn, run

_FACTS = {"work": "work", "health": "health", "relationships": "family"}


def _coordinator(message: str, **extra: Any) -> AgentOutput:
    return run(Turn(agent="coordinator", current_step="setup_complete", message=message,
                    language=lang.language_of(message), facts=_FACTS, inbox_count=3,
                    **extra))  # fmt: skip


@pytest.mark.parametrize(
    ("message", "focus", "said"),
    [("can you change my top priority to health?", "health",
      "Done: your top priority is now health."),
     ("make family my top priority", "relationships",
      "Done: your top priority is now relationships."),
     ("поменяй главный приоритет на здоровье", "здоровье",
      "Готово: теперь твой главный приоритет — здоровье.")],
)  # fmt: skip
def test_a_new_top_priority_is_kept_and_said(message: str, focus: str, said: str) -> None:
    out = _coordinator(message)
    assert out.extracted_data == {"notes": {"focus": focus}}
    language = lang.language_of(message)
    wrap_up = texts.text(language, "coordinator", facts=3, items=3)
    assert out.message == f"{said}\n{wrap_up}"
    assert out.step_completed


def test_with_no_area_it_asks_which_and_the_answer_changes_it() -> None:
    asked = _coordinator("change my top priority")
    assert asked.message == "Which area should come first now? For example: health."
    assert not asked.step_completed and asked.extracted_data == {}
    history = [{"role": "assistant", "text": asked.message}]
    out = _coordinator("health", history=history)
    assert out.extracted_data == {"notes": {"focus": "health"}}
    assert out.step_completed


def test_on_the_last_message_it_wraps_up() -> None:
    # The workflow closes the step after it whatever the reply: no question it cannot wait on.
    step = {"max_messages": 1, "messages_in_step": 0}
    out = _coordinator("change my top priority", step=step, messages_in_step=0)
    assert out.step_completed
