"""Discovery's misreadings found by a probe of the scripted agent, each read as the user meant
it now."""

# ruff: noqa: RUF001  (Russian text is meant to be Cyrillic)

from __future__ import annotations

import pytest

from baton_agent_runner.domain import language as lang
from baton_agent_runner.domain import texts
from baton_agent_runner.domain.output import AgentOutput

from .turns import FACTS, discovery, to_summary


@pytest.mark.parametrize(
    ("message", "facts"),
    [("work, health and hobbies: pottery",
      {"work": "work", "health": "health", "hobbies": "pottery"}),
     ("работа, здоровье и хобби: керамика",
      {"work": "работа", "health": "здоровье", "hobbies": "керамика"})],
)  # fmt: skip
def test_a_label_in_a_comma_listing_keeps_what_follows_its_colon(
    message: str, facts: dict[str, str]
) -> None:
    # "work, health and hobbies: pottery" kept "pottery" as the fact of health too.
    assert discovery(message).extracted_data == {"facts": facts}


@pytest.mark.parametrize(
    ("message", "area"),
    [("getting swole", "health"), ("hitting the gym to get swole", "health"),
     ("my 9-5", "work"), ("9 to 5 is killing me", "work"), ("my nine-to-five", "work")],
)  # fmt: skip
def test_chat_slang_names_its_area(message: str, area: str) -> None:
    # Each named no area: "my 9-5" got "Which areas of your life matter most ...?" again.
    assert discovery(message).extracted_data == {"facts": {area: message}}


@pytest.mark.parametrize("message", ["the meeting is 9-5:30", "we won 19-5", "a swollen ankle"])
def test_numbers_and_words_like_the_slang_name_no_area(message: str) -> None:
    assert lang.areas_in(message) == {}


@pytest.mark.parametrize(
    "message",
    ["раньше работала врачом", "I used to work as a nurse", "I used to be a teacher",
     "бывший бухгалтер", "на прошлой работе было тяжело", "my old job was a nightmare"],
)  # fmt: skip
def test_a_job_left_is_no_work_priority(message: str) -> None:
    # "раньше работала врачом" was kept as the work fact.
    assert "facts" not in discovery(message).extracted_data


@pytest.mark.parametrize(
    ("message", "facts"),
    [("I work as a teacher", {"work": "I work as a teacher"}),
     ("бывший бухгалтер, теперь работаю таксистом",
      {"work": "бывший бухгалтер, теперь работаю таксистом"}),
     ("раньше работала врачом, сейчас семья и здоровье",
      {"relationships": "сейчас семья", "health": "здоровье"})],
)  # fmt: skip
def test_a_job_held_now_is_still_work(message: str, facts: dict[str, str]) -> None:
    assert discovery(message).extracted_data == {"facts": facts}


@pytest.mark.parametrize("message", ["what's next?", "что дальше?", "What comes next?"])
def test_asking_what_comes_next_at_the_summary_goes_on(message: str) -> None:
    # Each got "I did not quite get that. Is the summary above right?"; the greeter reads the
    # same question as readiness.
    out = to_summary(message)
    assert out.step_completed and out.extracted_data == {}


def test_asking_what_comes_next_at_the_summary_asks_what_the_step_still_needs() -> None:
    out = to_summary("what's next?", can_complete=False)
    assert not out.step_completed
    assert out.message == "Good. Which of these matters most to you right now?"


@pytest.mark.parametrize(
    ("message", "fact"),
    [("only add the choir", "the choir"), ("just add choir", "choir"),
     ("только добавь хор", "хор"), ("добавь только хор", "хор")],
)  # fmt: skip
def test_only_adding_a_thing_to_the_summary_adds_it(message: str, fact: str) -> None:
    # "only add the choir" was no change: the choir named no area to add.
    out = to_summary(message)
    assert out.extracted_data == {"facts": {"hobbies": fact}}
    assert not out.step_completed
    hobbies = lang.AREA_NAMES[lang.language_of(message)]["hobbies"]
    assert f"\n- {hobbies}: {fact}\n" in out.message


@pytest.mark.parametrize("message", ["I sing in a choir", "пою в хоре", "singing"])
def test_singing_is_a_hobby(message: str) -> None:
    assert lang.areas_in(message).keys() == {"hobbies"}


@pytest.mark.parametrize("message", ["хорошо", "хорош", "хорошая идея"])
def test_words_like_the_choir_name_no_area(message: str) -> None:
    assert lang.areas_in(message) == {}


def _to_question(message: str, key: str, notes: dict[str, str]) -> AgentOutput:
    """`message` said to the follow-up question `key`, the summary of `FACTS` confirmed."""
    asked = f"{texts.text('en', 'discovery_good')} {texts.text('en', f'discovery_ask_{key}')}"
    return discovery(message, facts=FACTS, notes=notes, can_complete=False,
                     history=[{"role": "assistant", "text": asked}])  # fmt: skip


@pytest.mark.parametrize(
    ("message", "focus"),
    [("actually health matters most, not work", "health — health matters most"),
     ("нет, главное здоровье, а не работа", "здоровье"),
     ("wait, family comes first", "relationships — family comes first")],
)  # fmt: skip
def test_a_focus_changed_at_what_holds_one_back_is_the_focus(message: str, focus: str) -> None:
    # "actually health matters most, not work" was kept as what holds the user back, or took
    # work out of the summary.
    out = _to_question(message, "constraints", {"focus": "work"})
    assert out.extracted_data == {"notes": {"focus": focus}}
    assert out.message.endswith(texts.text(lang.language_of(message), "discovery_ask_constraints"))


def test_a_focus_changed_at_the_good_week_question_is_the_focus() -> None:
    out = _to_question("actually health matters most, not work", "good_week", {"focus": "work"})
    assert out.extracted_data == {"notes": {"focus": "health — health matters most"}}


def test_what_holds_one_back_is_still_its_answer() -> None:
    said = "not enough time. family comes first though"
    out = _to_question(said, "constraints", {"focus": "work"})
    assert out.extracted_data == {"notes": {"constraints": said}}


@pytest.mark.parametrize(
    ("message", "focus"),
    [("actually health matters most, not work", "health — health matters most"),
     ("no, health is most important, not work", "health — health is most important")],
)  # fmt: skip
def test_a_focus_changed_at_the_summary_keeps_the_facts(message: str, focus: str) -> None:
    # Work was taken out ("Removed: work."), and the focus kept "work".
    out = to_summary(message, notes={"focus": "work"})
    assert out.extracted_data == {"notes": {"focus": focus}}
    assert f"- matters most: {focus}\n" in out.message


@pytest.mark.parametrize(
    ("message", "item"),
    [("I need to renew my gym membership", "renew my gym membership"),
     ("book a yoga class", "book a yoga class"),
     ("продлить абонемент в спортзал", "продлить абонемент в спортзал"),
     ("need to book a gym session", "book a gym session")],
)  # fmt: skip
def test_an_errand_said_to_the_summary_is_a_task_not_a_fact(message: str, item: str) -> None:
    # Each replaced the health fact ("- health: book a yoga class").
    out = to_summary(message)
    assert out.extracted_data == {"deferred_inbox_items": [item]}
    assert not out.step_completed


@pytest.mark.parametrize(
    ("message", "item"),
    [("yes, buy running shoes", "buy running shoes"),
     ("yes, and book a yoga class", "book a yoga class"),
     ("да, ещё записаться в спортзал", "записаться в спортзал"),
     ("yes, call mom", "call mom"),
     ("yes and I need to buy running shoes", "buy running shoes"),
     ("yes, and I need to renew my gym membership", "renew my gym membership"),
     ("yes but I have to buy gym shoes", "buy gym shoes"),
     # The yes was taken for part of "надо купить хлеб"'s lead, and the summary asked again.
     ("да, надо купить хлеб", "купить хлеб"),
     ("да, и ещё нужно купить хлеб", "купить хлеб"),
     ("ага, надо купить хлеб", "купить хлеб"),
     ("да надо купить хлеб", "купить хлеб")],
)  # fmt: skip
def test_a_task_said_after_a_yes_to_the_summary_is_kept(message: str, item: str) -> None:
    # The yes was read, and the task lost, or it replaced the health (or relationships) fact.
    out = to_summary(message, inbox_ahead=True)
    assert out.extracted_data == {"deferred_inbox_items": [item]}
    assert out.step_completed


@pytest.mark.parametrize(
    ("message", "fact"),
    [("I need to go to the gym more", "I need to go to the gym more"),
     ("yes, and add yoga", "gym; yoga")],
)  # fmt: skip
def test_a_habit_or_an_addition_said_to_the_summary_is_still_a_fact(
    message: str, fact: str
) -> None:
    assert to_summary(message).extracted_data == {"facts": {"health": fact}}
