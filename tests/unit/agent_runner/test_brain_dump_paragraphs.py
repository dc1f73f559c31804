"""How the brain dump reads a paragraph, an afterthought, a doubt, a glyph and talk that holds
no item: each found by a probe of the running platform, where the item was lost, glued to
another or saved as said."""

# ruff: noqa: RUF001  (Russian text is meant to be Cyrillic)

from __future__ import annotations

from typing import Any

import pytest

from baton_agent_runner.domain import brain_dump, texts
from baton_agent_runner.domain import language as lang
from baton_agent_runner.domain.scripted import Turn, run

from .turns import brain_dump_turn


def turn(message: str, **extra: Any) -> Turn:
    return brain_dump_turn(message, **extra)


def test_a_paragraph_of_tasks_is_an_item_per_task_each_said_once() -> None:
    # It was one item, the whole paragraph.
    message = (
        "ok so: remember to email Sarah about the Q3 roadmap, need to renew my car insurance "
        "before the 15th, buy a birthday gift for Jake, also the kitchen sink is leaking so "
        "call a plumber. oh and I keep meaning to start meditating. and remember to email Sarah"
    )
    assert brain_dump.split_items(message) == [
        "email Sarah about the Q3 roadmap",
        "renew my car insurance before the 15th",
        "buy a birthday gift for Jake",
        "the kitchen sink is leaking so call a plumber",
        "I keep meaning to start meditating",
    ]


@pytest.mark.parametrize(
    ("message", "items"),
    [
        ("need to renew passport. also dentist", ["renew passport", "dentist"]),
        ("I need to call mom and also fix the sink and pay rent",
         ["call mom", "fix the sink", "pay rent"]),
        ("remember to renew passport, don't forget to call grandma and also buy dog food",
         ["renew passport", "call grandma", "buy dog food"]),
        ("call mom, plus book a dentist", ["call mom", "book a dentist"]),
        ("call mom oh and book a dentist", ["call mom", "book a dentist"]),
        ("позвонить маме, а ещё купить корм", ["позвонить маме", "купить корм"]),
        ("позвонить маме и ещё купить корм", ["позвонить маме", "купить корм"]),
        ("Купить хлеб! Позвонить маме", ["Купить хлеб", "Позвонить маме"]),
        # A run of stops ends a sentence as one does, after an abbreviation too.
        ("Купить хлеб!!! Позвонить маме", ["Купить хлеб", "Позвонить маме"]),
        ("buy milk etc!! call mom", ["buy milk", "call mom"]),
        ("I need to call mom", ["call mom"]),
        ("надо продлить паспорт", ["продлить паспорт"]),
        # Chat spelling of the lead-in was kept in the item.
        ("i wanna learn guitar", ["learn guitar"]), ("need 2 call mom", ["call mom"]),
        ("i hafta pay rent and call mom", ["pay rent", "call mom"]),
        ("i need 2 things", ["i need 2 things"]),
        # Kept as they were: an "and" going on with the action before it, a dot that ends no
        # sentence, no action after "хочу".
        ("call the bank and ask about the loan", ["call the bank and ask about the loan"]),
        ("call Dr. Smith about the results", ["call Dr. Smith about the results"]),
        ("позвонить В. Петрову", ["позвонить В. Петрову"]),
        ("хочу в отпуск", ["хочу в отпуск"]),
        ("I also need to call mom", ["call mom"]),
    ],
)  # fmt: skip
def test_sentences_and_also_part_items_and_a_lead_in_is_no_part_of_one(
    message: str, items: list[str]
) -> None:
    assert brain_dump.split_items(message) == items


def test_a_listed_line_ending_in_a_doubt_is_saved_without_it() -> None:
    # "??" lines were dropped from the list without a word: read as questions.
    message = (
        "1) buy milk\n- gym membership cancel or use it??\n7) cancel gym?? idk\n- renew passport"
    )
    out = run(turn(message, messages_in_step=1, inbox_count=0))
    assert out.extracted_data["inbox_items"] == [
        "buy milk", "gym membership cancel or use it", "cancel gym", "renew passport"
    ]  # fmt: skip
    assert "gym membership cancel or use it; cancel gym" in out.message


def test_a_single_question_mark_still_asks_and_is_no_item() -> None:
    assert brain_dump.split_items("- buy milk\n- what happens to these?") == ["buy milk"]


@pytest.mark.parametrize(
    "line",
    ["4) ☐ book flights for xmas", "☑ book flights for xmas", "- ✅ book flights for xmas",
     "2. ✔ book flights for xmas", "1) • book flights for xmas", "- ▪ book flights for xmas",
     "3) – book flights for xmas", "- [ ] ☐ book flights for xmas"],
)  # fmt: skip
def test_a_checkbox_or_bullet_glyph_after_a_number_is_no_part_of_the_item(line: str) -> None:
    # "4) ☐ book flights for xmas" was saved with its "☐".
    assert brain_dump.split_items(line) == ["book flights for xmas"]


@pytest.mark.parametrize("message", ["skip", "пропустим", "let's skip this step", "Skip it"])
def test_skip_is_no_item_and_puts_the_step_off(message: str) -> None:
    # "skip" was saved and counted as an item.
    language = lang.language_of(message)
    out = run(turn(message, messages_in_step=0, inbox_count=0))
    assert "inbox_items" not in out.extracted_data and not out.step_completed
    assert out.message == texts.text(language, "inbox_wait")
    later = run(turn(message, messages_in_step=2, inbox_count=1))
    assert "inbox_items" not in later.extracted_data
    assert later.message == texts.text(language, "inbox_more", need=2)  # says what it needs


def test_skip_inside_a_task_is_an_item() -> None:
    assert brain_dump.split_items("skip the gym on friday") == ["skip the gym on friday"]


@pytest.mark.parametrize("message", ["so brain dump huh", "health", "Work and health", "семья"])
def test_talk_about_the_step_or_a_bare_area_is_no_item_and_gets_the_prompt(message: str) -> None:
    # Each was saved as an item, the first brain-dump message counted toward the three.
    language = lang.language_of(message)
    out = run(turn(message, messages_in_step=0, inbox_count=0))
    assert "inbox_items" not in out.extracted_data
    assert out.message == texts.text(language, "inbox_explain", need=3)


@pytest.mark.parametrize(
    "message", ["Not enough time", "мало времени", "energy mostly", "не хватает сил", "too busy"]
)
def test_what_holds_the_user_back_said_to_the_opening_is_no_item(message: str) -> None:
    # Said to the brain dump's "Ready?" while still answering discovery's "what holds you
    # back?", it was saved: "Saved to your inbox: Not enough time".
    language = lang.language_of(message)
    out = run(turn(message, messages_in_step=0, inbox_count=0))
    assert "inbox_items" not in out.extracted_data
    assert out.message == texts.text(language, "inbox_explain", need=3)


def test_what_holds_the_user_back_before_a_task_leaves_the_task_alone() -> None:
    out = run(turn("мало времени. купить хлеб", messages_in_step=0, inbox_count=0))
    assert out.extracted_data["inbox_items"] == ["купить хлеб"]


@pytest.mark.parametrize(
    "message", ["milk", "dentist", "купить хлеб", "passport", "time sheets", "сон по режиму"]
)
def test_a_short_task_said_to_the_opening_is_still_an_item(message: str) -> None:
    out = run(turn(message, messages_in_step=0, inbox_count=0))
    assert out.extracted_data["inbox_items"] == [message]


@pytest.mark.parametrize(
    ("message", "item"),
    [
        ("buy health insurance", "buy health insurance"),
        # Every word of these names an area: each was dropped as a bare area, unsaved.
        ("learn guitar", "learn guitar"), ("i want to learn guitar", "learn guitar"),
        ("учиться рисовать", "учиться рисовать"),
    ],
)  # fmt: skip
def test_a_task_naming_an_area_is_still_an_item(message: str, item: str) -> None:
    out = run(turn(message, messages_in_step=0, inbox_count=0))
    assert out.extracted_data["inbox_items"] == [item]


@pytest.mark.parametrize(
    ("message", "items"),
    [
        # Chat filler said without a comma was kept in the item.
        ("hmm idk maybe learn spanish", ["maybe learn spanish"]),
        ("oh yeah and the car needs an oil change", ["the car needs an oil change"]),
        ("ой и машину на ТО записать", ["машину на ТО записать"]),
        ("call mom lol", ["call mom"]), ("buy milk pls", ["buy milk"]),
        ("uhh call mom too lol", ["call mom"]),
        ("короче купить хлеб", ["купить хлеб"]), ("anyway call mom", ["call mom"]),
        # Words that open items as often stay.
        ("so many bills to sort", ["so many bills to sort"]),
        ("well pump repair", ["well pump repair"]),
        ("ask about the please-and-thank-you chart", ["ask about the please-and-thank-you chart"]),
    ],
)  # fmt: skip
def test_chat_filler_around_an_item_is_no_part_of_it(message: str, items: list[str]) -> None:
    assert brain_dump.split_items(message) == items


@pytest.mark.parametrize(
    ("message", "items"),
    [
        ("oh and fix the bike too 🚲", ["fix the bike 🚲"]),
        ("call mom as well!", ["call mom"]),
        ("купить хлеб тоже", ["купить хлеб"]),
        ("fix the tooth", ["fix the tooth"]),
    ],
)
def test_a_too_that_adds_the_item_to_the_others_is_no_part_of_it(
    message: str, items: list[str]
) -> None:
    # "fix the bike too 🚲" was saved with its "too".
    assert brain_dump.split_items(message) == items


@pytest.mark.parametrize(
    ("message", "items"),
    [
        ("I need to fix the sink and pay rent", ["fix the sink", "pay rent"]),
        ("fix the sink and pay rent and call mom", ["fix the sink", "pay rent", "call mom"]),
        ("pick up the kids and then cook dinner", ["pick up the kids", "cook dinner"]),
        # An action opening with when it is due was no action: the sentence was one item.
        ("завтра позвонить в налоговую, потом забрать машину из сервиса",
         ["завтра позвонить в налоговую", "забрать машину из сервиса"]),
        ("tomorrow call the vet and pay rent", ["tomorrow call the vet", "pay rent"]),
        # A bare "then" joins actions as "and" does: the sentence was one item.
        ("need to call mom then buy groceries then pay rent",
         ["call mom", "buy groceries", "pay rent"]),
        ("call mom, buy groceries then pay rent", ["call mom", "buy groceries", "pay rent"]),
        ("позвонить маме потом купить продукты", ["позвонить маме", "купить продукты"]),
        # Chores whose verbs were unknown ("feed", "empty", "drive") stayed one item.
        ("walk the dog and feed the cat", ["walk the dog", "feed the cat"]),
        ("empty the dishwasher and mop the floor", ["empty the dishwasher", "mop the floor"]),
        ("drive the kids to school and pick up groceries",
         ["drive the kids to school", "pick up groceries"]),
        ("починить кран и заплатить за квартиру", ["починить кран", "заплатить за квартиру"]),
        ("Надо починить кран и заплатить за квартиру",
         ["починить кран", "заплатить за квартиру"]),
    ],
)  # fmt: skip
def test_two_actions_joined_by_and_alone_are_two_items(message: str, items: list[str]) -> None:
    # "I need to fix the sink and pay rent" was one item: only a comma parted actions.
    assert brain_dump.split_items(message) == items


@pytest.mark.parametrize(
    "message",
    [
        # What follows "and" is no action of its own: one thing bought, called, listed.
        "buy bread and butter", "call mom and dad", "salt and pepper", "buy salt and pepper",
        "купить хлеб и молоко", "позвонить маме и папе",
        # A noun pair is no two actions, however its words may read.
        "rock and roll", "buy rock and roll records", "research and development",
        "research and development budget", "empty bottles and cans",
        # "then"/"потом" with no action after it is no join ("later").
        "call mom then", "позвонить маме потом", "сделать потом отчёт",
        # A verb alone before "and" shares the object of the one after it.
        "research and summarize the report", "write and send the report",
        "постирать и погладить рубашки", "load and unload the truck",
        # The second action goes on with the first: what to ask or say there, or going there
        # to do it.
        "call the bank and ask about the loan", "call mom and tell her about the trip",
        "встретиться с Петей и обсудить проект", "позвонить в банк и узнать про кредит",
        "go to the store and buy milk", "сходить в аптеку и купить бинт",
        # Or does something to what the first one named: "email it to bob" alone says nothing.
        "finish the report and email it to bob", "fix the bike then sell it",
        "забрать детей и покормить их", "купить торт и отвезти его маме",
    ],
)  # fmt: skip
def test_and_inside_one_task_keeps_it_one_item(message: str) -> None:
    assert brain_dump.split_items(message) == [message]


def test_two_actions_joined_by_and_are_saved_and_confirmed_as_two_items() -> None:
    out = run(turn("I need to fix the sink and pay rent", messages_in_step=1, inbox_count=0))
    assert out.extracted_data["inbox_items"] == ["fix the sink", "pay rent"]
    assert "fix the sink; pay rent" in out.message
