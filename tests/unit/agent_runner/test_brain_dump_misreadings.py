"""Brain dump messages that were misread: "delete the last one", chatter ("лол", "btw the
weather is awful today") and "dun" were saved as items."""

# ruff: noqa: RUF001  (Russian text is meant to be Cyrillic)

from __future__ import annotations

from typing import Any

import pytest

from baton_agent_runner.domain import language as lang
from baton_agent_runner.domain import texts
from baton_agent_runner.domain.brain_dump import asks, split_items
from baton_agent_runner.domain.scripted import Turn, run

from .turns import brain_dump_turn


def turn(message: str, **extra: Any) -> Turn:
    return brain_dump_turn(message, **extra)


def saved(language: lang.Lang, items: list[str], total: int) -> dict[str, str]:
    return {"role": "assistant", "text": texts.text(language, "saved", items="; ".join(items),
                                                     total=total)}  # fmt: skip


@pytest.mark.parametrize(
    "message",
    ["delete the last one", "remove the last one", "удали последнее", "удали последний пункт"],
)
def test_removing_the_last_one_removes_the_item_saved_last(message: str) -> None:
    # It was saved as a new item ("Saved to your inbox: delete the last one").
    language = lang.language_of(message)
    history = [
        {"role": "user", "text": "call mom; buy milk"},
        saved(language, ["call mom", "buy milk"], 2),
        {"role": "user", "text": "pay rent"},
        saved(language, ["pay rent"], 3),
    ]
    out = run(turn(message, history=history, inbox_count=3, messages_in_step=2,
                   inbox_open=["pay rent", "call mom", "buy milk"]))  # fmt: skip
    assert out.extracted_data == {"removed_inbox_items": ["pay rent"]}
    assert not out.step_completed


@pytest.mark.parametrize(
    ("message", "removed"),
    [
        ("ой, удали молоко", "молоко"), ("вычеркни молоко", "молоко"),
        ("удали «купить молоко»", "купить молоко"), ("remove milk", "milk"),
    ],
)  # fmt: skip
@pytest.mark.parametrize("agent", ["inbox_collector", "discovery"])
def test_an_item_said_before_the_history_window_is_removed_not_saved(
    agent: str, message: str, removed: str
) -> None:
    # Said more messages ago than the history holds (or kept at discovery from an inbox
    # request long before), "удали молоко" was saved as the item "удали молоко".
    language = lang.language_of(message)
    held = ["купить молоко", "позвонить маме"] if language == "ru" else ["buy milk", "call mom"]
    history = [{"role": "user", "text": "ок"}, {"role": "assistant", "text": "..."}]
    said = Turn(
        agent=agent, current_step="s", message=message, history=history, inbox_count=2,
        inbox_open=held, language=language,
    )  # fmt: skip
    assert run(said).extracted_data == {"removed_inbox_items": [removed]}


def test_the_last_one_already_removed_is_not_the_last_one_any_more() -> None:
    history = [{"role": "user", "text": "call mom; buy milk"},
               saved("en", ["call mom", "buy milk"], 2)]  # fmt: skip
    out = run(turn("delete the last one", history=history, inbox_count=1,
                   inbox_open=["call mom"]))  # fmt: skip
    assert out.extracted_data == {"removed_inbox_items": ["call mom"]}


@pytest.mark.parametrize("message", ["delete the last one", "удали последнее"])
def test_removing_the_last_one_unknown_asks_which_and_saves_nothing(message: str) -> None:
    language = lang.language_of(message)
    out = run(turn(message, inbox_count=4, inbox_open=["a1", "b2", "c3", "d4"]))
    assert out.extracted_data == {}
    assert out.message == texts.text(language, "inbox_remove_last_which", items="b2; c3; d4")


def test_removing_the_last_one_of_none_removes_nothing() -> None:
    out = run(turn("delete the last one"))
    assert out.extracted_data == {}
    assert out.message == texts.text("en", "inbox_remove_nothing")


@pytest.mark.parametrize(
    "message",
    ["btw the weather is awful today", "кстати, погода сегодня ужасная", "лол", "кек", "ахах"],
)
def test_chatter_is_no_item(message: str) -> None:
    # Each was saved as an item ("Saved to your inbox: лол").
    out = run(turn(message, inbox_count=1, messages_in_step=1))
    assert "inbox_items" not in out.extracted_data
    assert not out.step_completed


@pytest.mark.parametrize(
    ("message", "item"),
    [("btw call the plumber", "call the plumber"), ("кстати, купить зонт", "купить зонт")],
)
def test_an_action_said_by_the_way_is_still_an_item(message: str, item: str) -> None:
    out = run(turn(message, inbox_count=1, messages_in_step=1))
    assert any(item in saved for saved in out.extracted_data["inbox_items"])


@pytest.mark.parametrize("message", ["dun", "donee", "doen"])
def test_done_typed_in_a_hurry_ends_the_step(message: str) -> None:
    out = run(turn(message, inbox_count=3, messages_in_step=3, can_complete=True))
    assert "inbox_items" not in out.extracted_data
    assert out.step_completed


@pytest.mark.parametrize(
    ("message", "items"),
    [
        # Saved "call grandma and I should probably cancel netflix", one item.
        ("Also I need to call grandma and I should probably cancel netflix",
         ["call grandma", "cancel netflix"]),
        ("надо позвонить бабушке и я наверное отменю нетфликс",
         ["позвонить бабушке", "отменю нетфликс"]),
        # Saved whole, with its "then".
        ("then clean the garage and then sort the photos", ["clean the garage", "sort the photos"]),
        ("а потом разобрать балкон и потом выкинуть старый диван",
         ["разобрать балкон", "выкинуть старый диван"]),
        ("then call mom", ["call mom"]),
        # Still one: "потом" before one action says when; "I" alone opens no clause.
        ("потом купить хлеб", ["потом купить хлеб"]),
        ("buy salt and pepper", ["buy salt and pepper"]),
    ],
)  # fmt: skip
def test_a_clause_of_its_own_and_then_part_actions(message: str, items: list[str]) -> None:
    out = run(turn(message, messages_in_step=1))
    assert out.extracted_data["inbox_items"] == items


@pytest.mark.parametrize("message", ["ok", "ок", "k", "okay", "Ок.", "nope", "no", "нет"])
def test_a_bare_ok_to_the_closing_question_ends_the_step(message: str) -> None:
    # "ok" to "Before we close... anything else?" got "Anything else? ... say 'that's all'".
    language = lang.language_of(message)
    asked = {"role": "assistant", "text": texts.text(language, "inbox_not_yet")}
    out = run(turn(message, history=[asked], inbox_count=3, messages_in_step=4, can_complete=True))
    assert out.step_completed
    assert "inbox_items" not in out.extracted_data


def test_ok_with_an_item_to_the_closing_question_saves_it() -> None:
    asked = {"role": "assistant", "text": texts.text("en", "inbox_not_yet")}
    out = run(turn("ok buy milk", history=[asked], inbox_count=3, messages_in_step=4,
                   can_complete=True))  # fmt: skip
    assert not out.step_completed
    assert out.extracted_data["inbox_items"]


@pytest.mark.parametrize(
    "message", ["please", "oh", "oh!", "ohhh", "ugh", "ну", "эм", "эээ", "ну вот", "блин", "ой"]
)
def test_an_interjection_alone_is_no_item(message: str) -> None:
    # "please" and "oh" were saved ("Saved to your inbox: please"); answered as "лол" is.
    out = run(turn(message, inbox_count=1, messages_in_step=1))
    assert out.extracted_data == {}
    language = lang.language_of(message)
    assert out.message == texts.text(language, "inbox_more", need=2, total=1, least=3)


@pytest.mark.parametrize(
    ("message", "language"), [("what else", "en"), ("и что дальше", "ru"), ("и что ещё", "ru")]
)
def test_what_else_without_its_question_mark_is_asked_not_saved(
    message: str, language: lang.Lang
) -> None:
    # "what else" was saved as an item; with its "?" it was answered.
    out = run(turn(message, inbox_count=1, messages_in_step=1))
    assert out.extracted_data == {}
    assert out.message.startswith(texts.text(language, "inbox_answer"))


@pytest.mark.parametrize(
    ("message", "items"),
    [
        ("oh, call mom", ["call mom"]),
        ("what else to buy for the party", ["what else to buy for the party"]),
        ("so many bills", ["so many bills"]),
        ("well pump repair", ["well pump repair"]),
    ],
)
def test_an_item_with_filler_words_is_still_an_item(message: str, items: list[str]) -> None:
    out = run(turn(message, inbox_count=1, messages_in_step=1))
    assert out.extracted_data == {"inbox_items": items}


@pytest.mark.parametrize(
    ("message", "items"),
    [
        ("Купить подарок Лене, и поздравить её", ["Купить подарок Лене, и поздравить её"]),
        ("забрать детей, покормить их", ["забрать детей, покормить их"]),
        ("finish the report, and email it to Bob", ["finish the report, and email it to Bob"]),
        (
            "купить торт, отвезти его маме, позвонить в банк",
            ["купить торт, отвезти его маме", "позвонить в банк"],
        ),
        ("купить хлеб, и позвонить маме", ["купить хлеб", "позвонить маме"]),
    ],
)
def test_a_pronoun_object_after_a_comma_keeps_one_item(message: str, items: list[str]) -> None:
    # "поздравить её" was saved alone, its "её" (Лена) lost from the item before it.
    out = run(turn(message, inbox_count=1, messages_in_step=1))
    assert out.extracted_data == {"inbox_items": items}


@pytest.mark.parametrize(
    ("message", "items"),
    [
        ("pay rent tmrw, call dentist, laundry", ["pay rent tmrw", "call dentist", "laundry"]),
        ("laundry, pay rent, call dentist", ["laundry", "pay rent", "call dentist"]),
        ("купить хлеб, позвонить маме, стирка", ["купить хлеб", "позвонить маме", "стирка"]),
        ("tmrw call dentist, pay rent", ["tmrw call dentist", "pay rent"]),
        # An object of the action before it, or of the only one: no chore of its own.
        ("buy milk, eggs, call mom", ["buy milk, eggs", "call mom"]),
        ("buy salt, pepper", ["buy salt, pepper"]),
    ],
)
def test_a_bare_chore_among_actions_is_an_item_of_its_own(message: str, items: list[str]) -> None:
    # "pay rent tmrw, call dentist, laundry" was one item: "laundry" is no verb phrase.
    out = run(turn(message, inbox_count=1, messages_in_step=1))
    assert out.extracted_data == {"inbox_items": items}


@pytest.mark.parametrize(
    ("message", "items"),
    [
        (
            "pay rent, call dentist, laundry, buy milk",
            ["pay rent", "call dentist", "laundry", "buy milk"],
        ),
        (
            "позвонить маме, стирка, купить хлеб",
            ["позвонить маме", "стирка", "купить хлеб"],
        ),
        # After a verb of getting things, a bare noun is more of them, as before.
        ("buy milk, eggs, bread, call mom", ["buy milk, eggs, bread", "call mom"]),
        ("buy eggs, milk and bread, call mom", ["buy eggs, milk and bread", "call mom"]),
        ("tmrw buy milk, eggs, call mom", ["tmrw buy milk, eggs", "call mom"]),
        ("купить хлеб, молоко, позвонить маме", ["купить хлеб, молоко", "позвонить маме"]),
    ],
)
def test_a_bare_chore_between_actions_goes_with_one_only_that_gets_things(
    message: str, items: list[str]
) -> None:
    # "call dentist, laundry" was saved as one item: a bare noun between two actions went
    # with the one before it, whatever its verb.
    out = run(turn(message, inbox_count=1, messages_in_step=1))
    assert out.extracted_data == {"inbox_items": items}


@pytest.mark.parametrize(
    ("message", "items"),
    [
        ("pay rent, call mom, thanks", ["pay rent", "call mom"]),
        ("pay rent, call mom, etc", ["pay rent", "call mom"]),
        ("pay rent, call mom, etc.", ["pay rent", "call mom"]),
        ("pay rent, call mom etc", ["pay rent", "call mom"]),
        ("pay rent, call mom, and so on", ["pay rent", "call mom"]),
        ("call mom, etc, thank you!", ["call mom"]),
        ("позвонить маме, купить хлеб, и т.д.", ["позвонить маме", "купить хлеб"]),
        ("позвонить маме, купить хлеб и т. д.", ["позвонить маме", "купить хлеб"]),
        ("позвонить маме, купить хлеб, спасибо", ["позвонить маме", "купить хлеб"]),
        ("buy salt, pepper, etc", ["buy salt, pepper"]),
        # Thanks that are the item, not said after it, stay.
        ("send grandma a thank you", ["send grandma a thank you"]),
    ],
)
def test_closing_thanks_and_etc_are_no_item_nor_part_of_one(message: str, items: list[str]) -> None:
    # "thanks" and "etc" were saved as part of the last item, or the whole line as one.
    out = run(turn(message, inbox_count=1, messages_in_step=1))
    assert out.extracted_data == {"inbox_items": items}


@pytest.mark.parametrize("message", ["etc.", "и т.д.", "and so on"])
def test_an_etc_alone_is_no_item(message: str) -> None:
    # "etc." alone was saved as an item ("т.д" for "и т.д.").
    assert split_items(message) == []


@pytest.mark.parametrize(
    ("message", "items"),
    [
        ("buy milk, bread, etc, call mom", ["buy milk, bread", "call mom"]),
        ("pay rent, etc, call mom, fix the sink", ["pay rent", "call mom", "fix the sink"]),
        ("buy milk, bread, and so on, call mom", ["buy milk, bread", "call mom"]),
        ("купить молоко, хлеб, и т.д., позвонить маме", ["купить молоко, хлеб", "позвонить маме"]),
        ("buy milk, thanks, call mom", ["buy milk", "call mom"]),
    ],
)
def test_an_etc_between_items_is_no_item_and_splits_the_list(
    message: str, items: list[str]
) -> None:
    # Said mid-list, "etc" (no task, no object of the verb before it) kept the whole line as
    # one item: "buy milk, bread, etc, call mom".
    out = run(turn(message, inbox_count=1, messages_in_step=1))
    assert out.extracted_data == {"inbox_items": items}


@pytest.mark.parametrize(
    "message",
    ["go to the next step", "next step please", "ok, next step", "let's move on", "next",
     "дальше", "давай дальше", "Перейдём к следующему шагу"],
)  # fmt: skip
def test_asking_for_the_next_step_is_no_item_and_is_told_what_the_step_still_needs(
    message: str,
) -> None:
    # "go to the next step" was saved as an inbox item and the step stayed where it was.
    out = run(turn(message, inbox_count=1, messages_in_step=2, min_messages=3))
    assert out.extracted_data == {} and not out.step_completed
    assert "3" in out.message and ("2" in out.message), out.message


@pytest.mark.parametrize("message", ["next step", "let's move on", "давай дальше"])
def test_asking_for_the_next_step_closes_a_brain_dump_that_may_close(message: str) -> None:
    out = run(turn(message, inbox_count=3, messages_in_step=2, min_messages=3))
    assert out.step_completed and out.extracted_data == {}


@pytest.mark.parametrize(
    "message",
    ["plan the next step of the project", "move on from the old job", "next week call mom"],
)
def test_an_item_about_a_next_step_or_moving_on_is_still_an_item(message: str) -> None:
    assert split_items(message) == [message]


@pytest.mark.parametrize(
    "message",
    ["nah im good", "I'm good", "we're good", "all good", "that should be it",
     "I think that should be it, thanks", "all set", "finito",
     # Saved as items: "nothing to add", "I think that covers it", "ок тогда всё".
     "nope, nothing to add", "No, I think that covers it.", "нет, добавить нечего",
     "ок тогда всё", "ok then, that's all",
     # Not heard, or saved as items.
     "k thats all", "yep that's it", "yep that's it 🙏", "всё вроде бы", "на сегодня хватит",
     "ну вот как-то так"],
)  # fmt: skip
def test_saying_one_is_good_to_anything_else_is_done_not_an_item(message: str) -> None:
    # "nah im good", "that should be it" were saved as items; "I'm good" asked again.
    out = run(turn(message, inbox_count=3, messages_in_step=3, min_messages=3))
    assert out.step_completed and out.extracted_data == {}


@pytest.mark.parametrize(
    "message", ["thats al", "taht's all", "thta's it", "ok thats al thanks", "это вс"]
)
def test_that_s_all_mistyped_by_one_letter_is_still_done(message: str) -> None:
    # "thats al" was saved as an inbox item ("Saved to your inbox: thats al").
    out = run(turn(message, inbox_count=3, messages_in_step=3, min_messages=3))
    assert out.step_completed and out.extracted_data == {}


@pytest.mark.parametrize(
    "message", ["i'm good at cooking", "get all set for the trip", "this all", "hats all"]
)
def test_an_item_near_those_words_is_still_an_item(message: str) -> None:
    assert split_items(message) == [message]


@pytest.mark.parametrize(
    ("message", "items"),
    [("Need to: renew license; fix bike; book flights to Rome",
      ["renew license", "fix bike", "book flights to Rome"]),
     ("Todo: fix bike", ["fix bike"]),
     ("To-do: fix bike, call Bob", ["fix bike", "call Bob"]),
     ("my list: taxes, dentist", ["taxes", "dentist"]),
     ("Tasks: call mom, and fix the sink", ["call mom", "fix the sink"]),
     ("Надо: починить кран; позвонить в банк", ["починить кран", "позвонить в банк"]),
     ("Список дел: кран, банк", ["кран", "банк"]),
     ("Дела: 1) кран 2) банк", ["кран", "банк"]),
     # A heading alone is no item, and without one a comma list of things stays one item.
     ("Мои дела:", []), ("taxes, dentist, gym membership", ["taxes, dentist, gym membership"])],
)  # fmt: skip
def test_a_lists_heading_on_its_line_is_no_part_of_an_item(message: str, items: list[str]) -> None:
    # "Need to: renew license" and "Todo: fix bike" were saved with their heading, and
    # "Список дел: кран, банк" was one item.
    assert split_items(message) == items
    out = run(turn(message, messages_in_step=1))
    assert out.extracted_data.get("inbox_items", []) == items


@pytest.mark.parametrize(
    "message",
    ["кстати, а что потом будет с этим списком?", "btw what happens to these?"],
)
def test_a_by_the_way_before_a_question_is_no_item(message: str) -> None:
    # "кстати" was saved ("Записал в inbox: кстати.") before the question was answered.
    assert split_items(message) == [] and asks(message)


def test_a_by_the_way_before_an_item_is_no_part_of_it() -> None:
    assert split_items("кстати, купить хлеб") == ["купить хлеб"]
