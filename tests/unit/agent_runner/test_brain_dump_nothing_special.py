"""A vague "nothing" to the brain dump ("nothing special", "not much", "ничего особенного")
holds no item: a probe saw each saved to the inbox as a task."""

from __future__ import annotations

import pytest

from baton_agent_runner.domain import language as lang
from baton_agent_runner.domain import texts
from baton_agent_runner.domain.scripted import Turn, run

from .turns import brain_dump_turn

_VAGUE = [
    "nothing special", "nothing much", "not much", "nothing in particular", "not much else",
    "nope nothing special", "not really anything", "ничего особенного", "ничего такого",
]  # fmt: skip


def turn(message: str, *, asked: str | None = None, count: int = 3) -> Turn:
    language = lang.language_of(message)
    history = [{"role": "assistant", "text": texts.text(language, asked)}] if asked else []
    return brain_dump_turn(message, history=history, inbox_count=count, messages_in_step=3,
                can_complete=True)  # fmt: skip


@pytest.mark.parametrize("message", _VAGUE)
def test_to_anything_else_it_is_done(message: str) -> None:
    # "ничего особенного" to "Что-нибудь ещё?" got "Записал в inbox: ничего особенного".
    out = run(turn(message, asked="inbox_anything_else"))
    assert out.step_completed
    assert "inbox_items" not in out.extracted_data


@pytest.mark.parametrize("message", _VAGUE)
def test_otherwise_it_saves_nothing(message: str) -> None:
    out = run(turn(message, count=1))
    assert not out.step_completed
    assert "inbox_items" not in out.extracted_data


@pytest.mark.parametrize("message", ["buy nothing special", "not much sugar in the cake"])
def test_a_line_with_words_of_its_own_is_still_an_item(message: str) -> None:
    assert run(turn(message)).extracted_data["inbox_items"] == [message]
