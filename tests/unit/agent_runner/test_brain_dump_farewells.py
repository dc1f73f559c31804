"""Saying goodbye to the brain dump ("bye", "ok bye", "до свидания") closes the list as "that's
all" does: a probe saw "bye" saved to the inbox as a task, and the step left open."""

from __future__ import annotations

import pytest

from baton_agent_runner.domain.scripted import Turn, run

from .turns import brain_dump_turn


def turn(message: str, count: int = 3) -> Turn:
    return brain_dump_turn(message, inbox_count=count, messages_in_step=3,
                can_complete=True)  # fmt: skip


@pytest.mark.parametrize(
    "message",
    ["bye", "ok bye", "goodbye!", "see ya", "bye, thanks", "thanks, bye", "gotta go",
     "до свидания", "пока-пока", "ну всё, мне пора"],
)  # fmt: skip
def test_a_farewell_closes_the_list(message: str) -> None:
    out = run(turn(message))
    assert out.step_completed
    assert "inbox_items" not in out.extracted_data


def test_an_item_before_the_farewell_is_saved() -> None:
    out = run(turn("call mom, bye"))
    assert out.step_completed
    assert out.extracted_data["inbox_items"] == ["call mom"]


def test_too_few_items_are_still_asked_for() -> None:
    out = run(turn("bye", count=1))
    assert not out.step_completed
    assert "inbox_items" not in out.extracted_data


@pytest.mark.parametrize("message", ["say bye to grandma", "пока ничего"])
def test_a_goodbye_named_or_a_lone_for_now_is_no_farewell(message: str) -> None:
    out = run(turn(message))
    assert not out.step_completed
