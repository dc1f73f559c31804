"""The brain dump's replies while it has too few items: "это всё" is heard and answered with
what is missing, and a message with nothing to save never gets the last reply word for word."""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import pytest

from baton_agent_runner.domain import language as lang
from baton_agent_runner.domain import texts
from baton_agent_runner.domain.scripted import Turn, run


def turn(message: str, **extra: Any) -> Turn:
    return Turn(
        agent="inbox_collector",
        current_step="brain_dump",
        message=message,
        language=lang.language_of(message),
        **extra,
    )


@pytest.mark.parametrize("message", ["это всё", "that's all", "готово", "done"])
def test_done_with_too_few_items_says_how_many_there_are_and_how_many_are_missing(
    message: str,
) -> None:
    # It was answered with the request it had just made, as if "это всё" had not been said.
    language = lang.language_of(message)
    asked = texts.text(language, "inbox_more", need=2)
    out = run(turn(message, messages_in_step=2, inbox_count=1, history=[
        {"role": "assistant", "text": asked}]))  # fmt: skip
    assert not out.step_completed
    assert out.message == texts.text(language, "inbox_too_few", total=1, least=3, need=2)
    assert out.message.startswith(("Понял, но пока записей в inbox: 1", "Got it, but your"))


@pytest.mark.parametrize("message", ["спасибо", "thanks", "ок", "ok"])
def test_nothing_to_save_never_gets_the_last_reply_again_word_for_word(message: str) -> None:
    language = lang.language_of(message)
    history: list[dict[str, str]] = []
    replies = []
    for _ in range(3):
        out = run(turn(message, messages_in_step=3, inbox_count=1, history=history))
        replies.append(out.message)
        history += [{"role": "user", "text": message}, {"role": "assistant", "text": out.message}]
    assert replies[0] == texts.text(language, "inbox_more", need=2)
    assert replies[1] == texts.text(language, "inbox_more_again", need=2)
    assert replies[2] == replies[0]  # it alternates: each differs from the one before
    assert all(before != after for before, after in pairwise(replies))
