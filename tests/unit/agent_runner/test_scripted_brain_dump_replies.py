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


@pytest.mark.parametrize(
    "message", ["nope thats it", "i said thats it", "i told you that's all", "я же сказал, всё"]
)
def test_done_said_again_or_without_its_apostrophe_is_done_not_an_item(message: str) -> None:
    # "i said thats it" was saved as an item; "nope thats it" got the request again.
    language = lang.language_of(message)
    out = run(turn(message, messages_in_step=2, inbox_count=1))
    assert "inbox_items" not in out.extracted_data
    assert out.message == texts.text(language, "inbox_too_few", total=1, least=3, need=2)


@pytest.mark.parametrize("message", ["idk", "хз", "лень", "dunno lol"])
def test_not_knowing_or_not_wanting_is_no_item(message: str) -> None:
    out = run(turn(message, messages_in_step=2, inbox_count=1))
    assert "inbox_items" not in out.extracted_data and not out.step_completed


@pytest.mark.parametrize(
    "message", ["потом допишу", "I'll add more later", "позже напишу остальное"]
)
def test_adding_more_later_puts_it_off_and_is_no_item(message: str) -> None:
    # Each was saved as an item; "потом" alone already put the brain dump off.
    language = lang.language_of(message)
    asked = texts.text(language, "inbox_anything_else")
    out = run(turn(message, messages_in_step=3, min_messages=3, inbox_count=3, history=[
        {"role": "assistant", "text": asked}]))  # fmt: skip
    assert "inbox_items" not in out.extracted_data
    assert out.step_completed
    assert out.message.startswith(texts.text(language, "inbox_done_later", total=3)[:12])


@pytest.mark.parametrize(
    ("message", "earlier", "item"),
    [
        ("oh wait, remove cancel netflix, i still watch it", "cancel netflix\nbuy milk",
         "cancel netflix"),
        ("удали кроссовки, уже купил", "купить кроссовки; позвонить маме", "кроссовки"),
        ("хотя нет, вычеркни «позвонить маме»", "купить кроссовки; позвонить маме",
         "позвонить маме"),
        ("remove buy milk from my list", "cancel netflix\nbuy milk", "buy milk"),
    ],
)  # fmt: skip
def test_asking_to_take_an_item_out_asks_to_remove_it_and_saves_nothing(
    message: str, earlier: str, item: str
) -> None:
    # The request was saved as a new item ("Saved to your inbox: oh wait, remove cancel ...").
    # The service removes it and says so (`test_turn_removals`); one item fewer is needed.
    history = [{"role": "user", "text": earlier}, {"role": "assistant", "text": "ok"}]
    out = run(turn(message, messages_in_step=1, inbox_count=2, history=history))
    assert out.extracted_data == {"removed_inbox_items": [item]} and not out.step_completed
    language = lang.language_of(message)
    assert out.message == texts.text(language, "inbox_more", need=2)


@pytest.mark.parametrize("message", ["Remove mold from the bathroom", "убери в шкафу"])
def test_a_task_to_remove_something_not_said_before_is_an_item(message: str) -> None:
    history = [{"role": "user", "text": "buy milk"}, {"role": "assistant", "text": "ok"}]
    out = run(turn(message, messages_in_step=1, inbox_count=1, history=history))
    assert out.extracted_data == {"inbox_items": [message]}
