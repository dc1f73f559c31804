"""Coordinator messages a probe found misread: tasks remembered at the last moment after
"actually also" or thanks ("спасибо! ой, и ещё не забыть купить внучке подарок") were lost
when the wrap-up closed onboarding."""

from __future__ import annotations

import pytest

from baton_agent_runner.domain import language as lang
from baton_agent_runner.domain import texts
from baton_agent_runner.domain.scripted import Turn, run


def turn(message: str) -> Turn:
    return Turn(
        agent="coordinator",
        current_step="wrap_up",
        message=message,
        language=lang.language_of(message),
        facts={"a": "1", "b": "2", "c": "3"},
        inbox_count=3,
        inbox_ahead=False,
    )


@pytest.mark.parametrize(
    ("message", "items"),
    [
        (
            "actually also buy hiking boots and charge the headlamp",
            ["buy hiking boots", "charge the headlamp"],
        ),
        ("спасибо! ой, и ещё не забыть купить внучке подарок", ["купить внучке подарок"]),
        ("ой, и ещё не забыть купить внучке подарок", ["купить внучке подарок"]),
        ("thanks! oh and buy milk", ["buy milk"]),
    ],
)
def test_tasks_remembered_at_the_last_moment_are_saved(message: str, items: list[str]) -> None:
    out = run(turn(message))
    assert out.step_completed and out.extracted_data == {"inbox_items": items}
    language = lang.language_of(message)
    assert out.message.split("\n") == [
        texts.text(language, "noted", items="; ".join(items)),
        texts.text(language, "coordinator", facts=3, items=3 + len(items)),
    ]


@pytest.mark.parametrize("message", ["thanks!", "спасибо, и что дальше?", "спасибо большое"])
def test_thanks_alone_saves_nothing(message: str) -> None:
    out = run(turn(message))
    assert out.step_completed and not out.extracted_data
