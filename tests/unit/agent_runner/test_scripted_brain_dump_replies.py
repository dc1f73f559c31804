"""The brain dump's replies while it has too few items: "это всё" is heard and answered with
what is missing, and a message with nothing to save never gets the last reply word for word."""

# ruff: noqa: RUF001, RUF003  (Russian text, comments too, is meant to be Cyrillic)

from __future__ import annotations

from itertools import pairwise
from typing import Any

import pytest

from baton_agent_runner.domain import brain_dump, texts
from baton_agent_runner.domain import language as lang
from baton_agent_runner.domain.scripted import Turn, run

from .turns import brain_dump_turn


def turn(message: str, **extra: Any) -> Turn:
    return brain_dump_turn(message, **extra)


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
    ("message", "asked"),
    [("не забыть", "Что именно не забыть?"), ("Не забудь!", "Что именно не забыть?"),
     ("remember to", "What should I remember?"), ("don't forget", "What should I remember?")],
)  # fmt: skip
def test_a_reminders_lead_in_alone_is_no_item_and_asks_what_to_remember(
    message: str, asked: str
) -> None:
    # "не забыть" alone was saved as an item and counted toward the three the step needs.
    for in_step in (0, 2):  # as the step starts (where the explanation would be) and later
        out = run(turn(message, messages_in_step=in_step, inbox_count=1))
        assert "inbox_items" not in out.extracted_data and not out.step_completed
        assert out.message == texts.text(lang.language_of(message), "inbox_remember_what")
        assert out.message.startswith(asked)


def test_items_said_with_a_lone_reminder_are_saved_and_it_is_asked_about() -> None:
    out = run(turn("позвонить маме\nне забыть", messages_in_step=1, inbox_count=0))
    assert out.extracted_data == {"inbox_items": ["позвонить маме"]}
    assert texts.text("ru", "saved", items="позвонить маме", total=1) in out.message
    assert out.message.endswith(texts.text("ru", "inbox_remember_what"))


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
        # Named by a word of it: each was saved as a new item, the item it named kept.
        ("remove the milk one", "cancel netflix\nbuy milk", "milk"),
        ("scratch the milk one please", "cancel netflix\nbuy milk", "milk"),
        ("delete the one about netflix", "cancel netflix\nbuy milk", "netflix"),
        ("убери про кроссовки", "купить кроссовки; позвонить маме", "кроссовки"),
    ],
)  # fmt: skip
def test_asking_to_take_an_item_out_asks_to_remove_it_and_saves_nothing(
    message: str, earlier: str, item: str
) -> None:
    # The request was saved as a new item ("Saved to your inbox: oh wait, remove cancel ...").
    # The service removes it and says so (`test_turn_removals`); one item fewer is needed.
    history = [{"role": "user", "text": earlier}, {"role": "assistant", "text": "ok"}]
    held = brain_dump.split_items(earlier)
    out = run(turn(message, messages_in_step=1, inbox_count=2, inbox_open=held, history=history))
    assert out.extracted_data == {"removed_inbox_items": [item]} and not out.step_completed
    language = lang.language_of(message)
    assert out.message == texts.text(language, "inbox_more", need=2)


@pytest.mark.parametrize(
    ("message", "open_items"),
    [
        ("remove oat milk", ["buy milk", "call mom"]),  # removed before, or never saved
        ("удали овсяное молоко", ["купить хлеб", "позвонить маме"]),
        ("remove milk", ["buy milk", "buy oat milk"]),  # which one? the service asks
        ("remove buy dog food", ["call grandma and buy dog food", "pay rent"]),  # a part goes
    ],
)
def test_a_removal_that_takes_no_item_out_leaves_the_count_as_it_was(
    message: str, open_items: list[str]
) -> None:
    # With two saved, "remove oat milk" got "There is no "oat milk" ... I need at least 2 more."
    earlier = "buy oat milk; удали овсяное молоко; " + "; ".join(open_items)
    history = [{"role": "user", "text": earlier}, {"role": "assistant", "text": "ok"}]
    out = run(turn(message, messages_in_step=2, inbox_count=2, inbox_open=open_items,
                   history=history))  # fmt: skip
    assert "removed_inbox_items" in out.extracted_data
    assert out.message == texts.text(lang.language_of(message), "inbox_more", need=1)


@pytest.mark.parametrize("message", ["Remove mold from the bathroom", "убери в шкафу"])
def test_a_task_to_remove_something_not_said_before_is_an_item(message: str) -> None:
    history = [{"role": "user", "text": "buy milk"}, {"role": "assistant", "text": "ok"}]
    out = run(turn(message, messages_in_step=1, inbox_count=1, history=history))
    assert out.extracted_data == {"inbox_items": [message]}


@pytest.mark.parametrize(
    ("message", "open_items", "saved", "again"),
    [
        ("call mom\nbuy milk", ["Call Mom"], ["buy milk"], ["call mom"]),
        ("buy milk, buy milk", [], ["buy milk"], []),
        ("позвонить маме!\nкупить хлеб", ["Позвонить маме"], ["купить хлеб"], ["позвонить маме"]),
    ],
)
def test_an_item_the_inbox_holds_is_said_to_be_there_not_saved_or_counted_again(
    message: str, open_items: list[str], saved: list[str], again: list[str]
) -> None:
    language = lang.language_of(message)
    out = run(turn(message, inbox_count=len(open_items), inbox_open=open_items))
    assert out.extracted_data == {"inbox_items": saved}
    total = len(open_items) + len(saved)
    assert texts.text(language, "saved", items="; ".join(saved), total=total) in out.message
    note = texts.text(language, "already_saved", items="; ".join(again))
    assert (note in out.message) is bool(again)


def test_only_a_repeat_holds_no_item_and_asks_for_more_not_the_explanation() -> None:
    out = run(turn("Call mom", inbox_count=1, inbox_open=["call mom"], messages_in_step=1))
    assert not out.extracted_data
    assert out.message.startswith(texts.text("en", "already_saved", items="Call mom"))
    assert texts.text("en", "inbox_more", need=2, total=1, least=3) in out.message


def test_done_with_a_repeat_counts_distinct_items_and_does_not_close() -> None:
    held = ["milk", "bread"]
    out = run(turn("Milk\nthat's all", inbox_count=2, inbox_open=held, can_complete=False))
    assert not out.step_completed and not out.extracted_data
    assert texts.text("en", "inbox_too_few", need=1, total=2, least=3) in out.message


def test_an_item_promoted_in_this_turn_and_said_again_is_told_once_as_promoted() -> None:
    out = run(turn("call mom", inbox_count=1, inbox_open=["call mom"], promoted=["call mom"]))
    assert texts.text("en", "promoted", items="call mom") in out.message
    assert "Already in your inbox" not in out.message and not out.extracted_data


@pytest.mark.parametrize(
    ("message", "saved", "said"),
    [
        ("позвонить маме!", ["позвонить маме"], "Записал в inbox: позвонить маме. Всего"),
        ("call mom…\nlearn C++!", ["call mom", "learn C++"], "inbox: call mom; learn C++. Items"),
        ("купить хлеб (белый)!!", ["купить хлеб (белый)"], "inbox: купить хлеб (белый). Всего"),
        ("позвонить Петрову В.!", ["позвонить Петрову В."], "inbox: позвонить Петрову В. Всего"),
    ],
)
def test_an_item_said_with_a_stop_is_saved_and_confirmed_without_it(
    message: str, saved: list[str], said: str
) -> None:
    # "позвонить маме!" was saved as said and confirmed as "позвонить маме!." (and an
    # initial as "Петрову В..").
    out = run(turn(message, inbox_count=0, messages_in_step=1))
    assert out.extracted_data == {"inbox_items": saved}
    assert said in out.message, out.message


@pytest.mark.parametrize("key", ["already_saved", "promoted", "noted"])
def test_a_stored_item_that_ends_a_sentence_is_listed_without_a_second_stop(key: str) -> None:
    # Items stored before they were trimmed keep their "!": listed last, they end the sentence.
    assert texts.text("ru", key, items="купить хлеб; позвонить маме!").endswith("маме!")
    assert texts.text("en", key, items="call mom").endswith("call mom.")


@pytest.mark.parametrize(
    "message",
    [
        # Asked without a "?", each was saved as an item.
        "can I change items later", "Can I add more items later", "а можно потом поменять",
        "how many do I need", "сколько нужно написать", "do I have to write everything now",
        "who will see this", "is this free", "what is baton",
        # How to finish or go on, asked lower case without a "?": each was saved too.
        "how do i finish", "what should i do", "can i stop now", "как мне закончить",
        "что делать дальше", "что делать",
        "how do i delete one", "can i go back and edit", "можно удалить одну запись",
        # With it, or about what comes next: answered, and no item, as before.
        "how does this work?", "what happens after this step?", "can I change items later?",
        "а что будет дальше?", "как это работает?", "как это работает",
    ],
)  # fmt: skip
def test_a_question_to_the_assistant_is_answered_and_is_no_item(message: str) -> None:
    language = lang.language_of(message)
    out = run(turn(message, messages_in_step=1, inbox_count=1))
    assert "inbox_items" not in out.extracted_data, out.extracted_data
    assert not out.step_completed
    answers = [texts.text(language, key) for key in texts.TEXTS if key.startswith("faq_")]
    answers += [texts.text(language, "inbox_answer"), texts.text(language, "inbox_how_many",
                                                                  least=3)]  # fmt: skip
    answers.append(texts.text(language, "inbox_add_later"))  # "Can I add more items later"
    answer = out.message.split("\n")[0]
    assert answer in answers, out.message
    assert out.message.endswith(texts.text(language, "inbox_more", need=2))  # and it goes on


@pytest.mark.parametrize(
    ("message", "topic"),
    [
        ("how long does this take?", "how_long"), ("who will see this", "data"),
        ("is this free", "cost"), ("сколько это займёт?", "how_long"), ("кто ты?", "who"),
    ],
)  # fmt: skip
def test_a_question_on_one_of_batons_topics_gets_discoverys_answer(
    message: str, topic: str
) -> None:
    # Each got "Everything you write here I save to your inbox ...", however it was asked.
    language = lang.language_of(message)
    out = run(turn(message, messages_in_step=1, inbox_count=1))
    assert out.message == "\n".join(
        [texts.text(language, f"faq_{topic}"), texts.text(language, "inbox_more", need=2)]
    )


@pytest.mark.parametrize(
    ("message", "items"),
    [
        ("how does this work? also buy milk", ["buy milk"]),
        ("how does this work, also buy milk", ["buy milk"]),
        ("who will see this? call mom", ["call mom"]),
        ("как это работает? ещё купить хлеб", ["купить хлеб"]),
    ],
)  # fmt: skip
def test_a_question_said_with_items_saves_the_items_and_is_answered(
    message: str, items: list[str]
) -> None:
    language = lang.language_of(message)
    out = run(turn(message, messages_in_step=1, inbox_count=0))
    assert out.extracted_data["inbox_items"] == items
    lines = out.message.split("\n")
    assert lines[0] == texts.text(language, "saved", items=items[0], total=1)
    assert lines[1] != texts.text(language, "inbox_more", need=2), out.message  # answered


@pytest.mark.parametrize(
    "message",
    [
        # The user's own tasks and questions, with question words in them: items as said.
        "figure out how to fix the sink", "ask Bob what time the meeting is",
        "выяснить, как работает налоговый вычет", "what to write in the card",
        "should I cancel this subscription", "is it worth it", "can I add milk",
        "сколько стоит билет", "is the gym free on sunday", "who will pick up the kids",
        "how do i finish the report", "what should i do about the car", "как закончить отчёт",
        "what to do with the car",
        "can i go back and buy milk", "can i add a cat",
    ],
)  # fmt: skip
def test_a_task_or_a_question_to_oneself_is_still_an_item(message: str) -> None:
    assert brain_dump.split_items(message) == [message]


@pytest.mark.parametrize(
    ("message", "items"),
    [
        # "can you" and "please" were saved as items of their own, before the task.
        ("can you remind me to call mom", ["call mom"]),
        ("Could you please remind me to call mom?", ["call mom"]),
        ("would you remind me to pay rent", ["pay rent"]),
        ("please remind me to pay rent", ["pay rent"]),
        ("pls remind me to buy milk", ["buy milk"]),
        ("can you remember to call the vet", ["call the vet"]),
        ("buy milk, could you remind me to call mom? what happens to these?",
         ["buy milk", "call mom"]),
        ("купить хлеб, можешь напомнить позвонить маме?", ["купить хлеб", "позвонить маме"]),
    ],
)  # fmt: skip
def test_a_polite_reminder_request_saves_the_task_alone(message: str, items: list[str]) -> None:
    language = lang.language_of(message)
    out = run(turn(message, messages_in_step=1, inbox_count=0))
    assert out.extracted_data["inbox_items"] == items
    assert out.message.split("\n")[0] == texts.text(
        language, "saved", items="; ".join(items), total=len(items)
    )


@pytest.mark.parametrize(
    ("message", "items"),
    [
        # The remark was saved as an item beside the task ("I'm swamped; call the plumber").
        ("I'm swamped, can you remind me to call the plumber?", ["call the plumber"]),
        ("ugh, so busy. remind me to pay rent", ["pay rent"]),
        ("im swamped. pls remind me to call the plumber", ["call the plumber"]),
        ("я в завале, напомни позвонить маме", ["позвонить маме"]),
        ("у меня завал, можешь напомнить позвонить маме?", ["позвонить маме"]),
        # Filler before the request was saved as an item too.
        ("короче напомни купить корм коту", ["купить корм коту"]),
        ("blah blah remind me to pay rent", ["pay rent"]),
        ("I'm swamped, can you remind me to call the plumber? what happens to these?",
         ["call the plumber"]),
        # An action before the request is still an item of its own.
        ("I need to buy milk, remind me to call mom", ["buy milk", "call mom"]),
        ("buy milk. im so tired, remind me to call mom", ["buy milk", "call mom"]),
    ],
)  # fmt: skip
def test_a_remark_on_how_the_user_is_before_a_reminder_request_is_no_item(
    message: str, items: list[str]
) -> None:
    out = run(turn(message, messages_in_step=1, inbox_count=0))
    assert out.extracted_data["inbox_items"] == items


@pytest.mark.parametrize("message", ["could you remind me to call mom?", "can you remind me"])
def test_a_polite_reminder_request_is_no_question_to_answer(message: str) -> None:
    # Asked with a "?", it got "Everything you write here I save..." as to a question.
    out = run(turn(message, messages_in_step=1, inbox_count=0))
    assert texts.text("en", "inbox_answer") not in out.message


@pytest.mark.parametrize("message", ["do I need to pay rent?", "should I cancel this subscription"])
def test_a_payment_question_to_oneself_is_no_question_about_baton(message: str) -> None:
    assert brain_dump.asked_about(message) is None


@pytest.mark.parametrize(
    "message",
    ["why do you need 3 items?", "how many do I need", "how many more?", "why 3?",
     "сколько нужно написать", "зачем три?", "Кстати, а сколько всего нужно написать?"],
)  # fmt: skip
def test_a_question_how_many_items_or_why_three_is_answered_so(message: str) -> None:
    # "why do you need 3 items?" got why Baton asks about priorities; "how many do I need" what
    # becomes of the items.
    language = lang.language_of(message)
    out = run(turn(message, messages_in_step=1, inbox_count=1))
    assert out.extracted_data == {}
    assert out.message.split("\n")[0] == texts.text(language, "inbox_how_many", least=3)
    # The count says its noun once: "Для старта хватит 3 записи записей" was said.
    assert out.message.startswith(("3 items are", "Для старта хватит 3 записи:"))


def test_how_many_of_something_to_decide_is_no_question_about_the_step() -> None:
    assert not brain_dump.asks_how_many("how many guests to invite?")
