"""An inbox request said to discovery after the areas it names: the request is kept for the
inbox step, and the question after it knows the areas just named (found by a probe)."""

from __future__ import annotations

import pytest

from baton_agent_runner.domain import language as lang
from baton_agent_runner.domain.scripted import Turn, run


@pytest.mark.parametrize(
    ("message", "area", "item"),
    [("health, I've been skipping the gym. Can you remind me to book a physio appointment?",
      "health", "book a physio appointment"),
     ("work mostly. oh and add to my inbox: call the bank", "work", "call the bank")],
)  # fmt: skip
def test_the_areas_before_an_inbox_request_are_not_asked_again(
    message: str, area: str, item: str
) -> None:
    out = run(Turn(agent="discovery", current_step="discovery", message=message,
                   language=lang.language_of(message), inbox_ahead=True,
                   facts={"growth": "uni"}))  # fmt: skip
    assert out.extracted_data["deferred_inbox_items"] == [item]
    assert area in out.extracted_data["facts"]
    asked = out.message.splitlines()[-1]
    # It got "What about the other areas: health, ...?", or "Which areas ... matter most?".
    assert "other areas" in asked
    assert area not in asked
    assert "growth" not in asked
