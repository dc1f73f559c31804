"""An interjection before "that's all" ("hmm I think that's it", "umm that's it", "lol that's
all", "хм это всё") still says the list is done: a probe saw each answered "Anything else?
When you are finished, say "that's all"", and the step never closed."""

from __future__ import annotations

import pytest

from baton_agent_runner.domain.scripted import Turn, run

from .turns import brain_dump_turn


def turn(message: str) -> Turn:
    return brain_dump_turn(message, inbox_count=3, messages_in_step=3,
                can_complete=True)  # fmt: skip


@pytest.mark.parametrize(
    "message",
    ["hmm I think that's it", "umm that's it", "hmmm that's all", "lol that's all",
     "uh that's it", "ugh, that's it", "ok hmm that's all", "haha done", "хм это всё",
     "эээ ну всё", "ой, это всё"],
)  # fmt: skip
def test_an_interjection_before_done_is_done(message: str) -> None:
    out = run(turn(message))
    assert out.step_completed
    assert "inbox_items" not in out.extracted_data


@pytest.mark.parametrize(
    ("message", "items"), [("hmm buy milk", ["buy milk"]), ("umm call mom", ["call mom"])]
)
def test_an_item_after_an_interjection_is_still_an_item(message: str, items: list[str]) -> None:
    out = run(turn(message))
    assert not out.step_completed
    assert out.extracted_data["inbox_items"] == items
