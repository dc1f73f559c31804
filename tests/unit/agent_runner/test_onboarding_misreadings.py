"""The greeter's and discovery's misreadings found by a second probe of the scripted agent,
each read as the user meant it now."""

# ruff: noqa: RUF001, RUF003  (Russian text, comments too, is meant to be Cyrillic)
from __future__ import annotations

from typing import Any

import pytest

from baton_agent_runner.domain import language as lang
from baton_agent_runner.domain import texts
from baton_agent_runner.domain.output import AgentOutput
from baton_agent_runner.domain.scripted import Turn, run

FACTS = {"work": "my job", "health": "gym", "relationships": "family"}


def discovery(message: str, **extra: Any) -> AgentOutput:
    return run(Turn(agent="discovery", current_step="discovery", message=message,
                    language=lang.language_of(message), **extra))  # fmt: skip


def to_summary(message: str, **extra: Any) -> AgentOutput:
    """`message` said to the summary of `FACTS`, all told in this run."""
    told = {"workflow": {"step_data": {"discovery": {"facts_told": sorted(FACTS)}}}}
    language = lang.language_of(message)
    summary = (
        f"{texts.text(language, 'summary_header')}\n- work: my job\n- health: gym\n"
        f"- relationships: family\n{texts.text(language, 'summary_question')}"
    )
    extra.setdefault("can_complete", True)
    return discovery(message, facts=FACTS, step=told,
                     history=[{"role": "assistant", "text": summary}], **extra)  # fmt: skip


def to_constraints(message: str) -> AgentOutput:
    """`message` said to "What holds you back?", the summary of `FACTS` confirmed."""
    language = lang.language_of(message)
    asked = (
        f"{texts.text(language, 'discovery_good')} "
        f"{texts.text(language, 'discovery_ask_constraints')}"
    )
    return discovery(message, facts=FACTS, notes={"focus": "work"}, can_complete=False,
                     history=[{"role": "assistant", "text": asked}])  # fmt: skip


@pytest.mark.parametrize(
    "message",
    ["силы уже не те, да и спина болит", "спина болит, да и времени мало", "давление да суставы"],
)
def test_da_meaning_and_is_no_yes(message: str) -> None:
    # Each got "Хорошо." and no note, as if it said "да".
    out = to_constraints(message)
    assert out.extracted_data == {"notes": {"constraints": message}}
    assert not out.step_completed


@pytest.mark.parametrize("message", ["да нет, всё верно", "no no, it's right", "no, it's right"])
def test_a_no_that_goes_on_to_say_it_is_right_confirms_the_summary(message: str) -> None:
    # Each got "What should I correct?".
    assert to_summary(message).step_completed


@pytest.mark.parametrize("message", ["да", "ну да всё так", "думаю да", "да, всё верно"])
def test_a_da_said_as_yes_still_confirms(message: str) -> None:
    assert lang.confirms(message)


@pytest.mark.parametrize("message", ["да нет", "да нет, не так"])
def test_a_da_net_alone_still_denies(message: str) -> None:
    assert lang.denies(message)
    assert not lang.confirms(message)


def greeter(message: str) -> AgentOutput:
    return run(Turn(agent="greeter", current_step="greeter", message=message,
                    language=lang.language_of(message)))  # fmt: skip


@pytest.mark.parametrize(
    "message", ["а как это работает?", "это вообще работает?", "а деньги за это возьмут?"]
)
@pytest.mark.parametrize("agent", [greeter, discovery])
def test_a_question_about_baton_is_no_priority(agent: Any, message: str) -> None:
    # "а как это работает?" saved work, "а деньги за это возьмут?" finances.
    assert "facts" not in agent(message).extracted_data


def test_money_asked_of_as_batons_price_is_answered() -> None:
    out = greeter("а деньги за это возьмут?")
    assert out.message == texts.text("ru", "greeter_cost")


@pytest.mark.parametrize(
    ("message", "areas"),
    [("в семье все работают", {"work", "relationships"}), ("муж работает много", {"work",
     "relationships"}), ("деньги за квартиру", {"finances"}), ("это работа мечты", {"work"})],
)  # fmt: skip
def test_work_and_money_said_of_ones_life_still_name_areas(message: str, areas: set[str]) -> None:
    assert set(lang.areas_in(message)) == areas


@pytest.mark.parametrize(
    ("message", "area"),
    [("doctor", "health"), ("knees", "health"), ("my blood pressure", "health"),
     ("back pain", "health"), ("eating better", "health"), ("врач", "health"),
     ("колени", "health"), ("давление", "health"), ("football", "hobbies"),
     ("soccer", "hobbies"), ("футбол", "hobbies"), ("cooking", "hobbies"), ("кино", "hobbies"),
     ("mates", "relationships")],
)  # fmt: skip
def test_everyday_area_words_name_their_area(message: str, area: str) -> None:
    # Each named no area, and the areas were asked for again.
    assert discovery(message).extracted_data == {"facts": {area: message}}


def test_work_without_its_vowel_is_work() -> None:
    # "wrk, gym" was kept as health, and work asked for after it.
    facts = {"work": "wrk", "health": "gym", "relationships": "gf"}
    assert discovery("wrk, gym, gf").extracted_data == {"facts": facts}


@pytest.mark.parametrize(
    ("message", "areas"),
    [("my doctor recommended Baton", set()), ("врач посоветовал этот бот", set()),
     ("I'm a doctor", {"work"}), ("я врач", {"work"}), ("see a doctor", set()),
     ("записаться к врачу", set()), ("поколение", set()), ("футболка", set()),
     ("кинотеатр рядом", set()), ("roommates", set()), ("давление начальства", set()),
     ("давление на работе", {"work"})],
)  # fmt: skip
def test_words_like_the_everyday_area_words_name_no_more(message: str, areas: set[str]) -> None:
    assert set(lang.areas_in(message)) == areas


@pytest.mark.parametrize(
    ("message", "facts"),
    [("работа и здоровье. хотя нет, работа не так важна, главное семья",
      {"health": "здоровье", "relationships": "главное семья"}),
     ("work and health. actually no, work isn't that important, family is",
      {"health": "health", "relationships": "family is"})],
)  # fmt: skip
def test_an_area_taken_back_leaves_the_others_said_with_it(
    message: str, facts: dict[str, str]
) -> None:
    # Health was lost with work: relationships alone was saved.
    assert discovery(message).extracted_data["facts"] == facts


@pytest.mark.parametrize(
    ("kept", "message", "fact"),
    [("с мужем хочется проводить больше времени вдвоём", "дети тоже",
      "с мужем хочется проводить больше времени вдвоём; дети"),
     ("Я мама двоих детей", "В отношениях ещё муж, хочется больше времени вдвоём",
      "Я мама двоих детей; В отношениях ещё муж, хочется больше времени вдвоём"),
     ("my wife", "my sister too", "my wife; my sister")],
)  # fmt: skip
def test_an_area_said_again_with_too_is_added_to(kept: str, message: str, fact: str) -> None:
    # "дети тоже" left the fact "дети": the husband was lost.
    out = discovery(message, facts={"relationships": kept})
    assert out.extracted_data == {"facts": {"relationships": fact}}


def test_two_clauses_of_one_area_are_both_kept() -> None:
    # The husband's clause was dropped.
    message = "Дети на первом месте, хочу больше времени с ними. И с мужем хочется больше времени"
    fact = "Дети на первом месте, хочу больше времени с ними; с мужем хочется больше времени"
    assert discovery(message).extracted_data == {"facts": {"relationships": fact}}


@pytest.mark.parametrize(
    ("message", "fact"),
    [("work, health, family. family first", "family first"), ("family. my family", "family")],
)
def test_an_area_named_again_by_its_name_is_kept_once(message: str, fact: str) -> None:
    assert lang.areas_in(message)["relationships"] == fact


@pytest.mark.parametrize(
    "message",
    ["I retired last year, so work is no longer a concern",
     "Work should not be on the list at all, I am retired",
     "работа больше не актуальна, я на пенсии"],
)  # fmt: skip
def test_an_area_ruled_out_is_taken_out(message: str) -> None:
    # Each was kept as the work fact, or replaced it.
    out = to_summary(message)
    assert out.extracted_data == {"dropped_facts": ["work"]}


def test_what_another_area_is_not_keeps_that_area() -> None:
    # "not work" took work out of the summary.
    out = to_summary("finances is the mortgage and daycare costs, not work")
    assert out.extracted_data == {
        "facts": {"finances": "finances is the mortgage and daycare costs"}
    }


@pytest.mark.parametrize(
    ("message", "named", "declined"),
    [("work is a concern", {"work"}, set()), ("I said health, not work", {"health"}, {"work"})],
)
def test_work_said_to_matter_or_put_aside_reads_as_before(
    message: str, named: set[str], declined: set[str]
) -> None:
    said, ruled_out = lang.areas_said(message)
    assert (set(said), ruled_out) == (named, declined)


@pytest.mark.parametrize(
    ("message", "focus"),
    [("yes, work first", "work — work first"), ("да, главное семья", "отношения — семья")],
)
def test_a_yes_with_which_area_matters_most_confirms_the_summary(message: str, focus: str) -> None:
    # The summary was shown again, with the note "work — yes, work first".
    out = to_summary(message)
    assert out.step_completed
    assert out.extracted_data == {"notes": {"focus": focus}}


def test_a_yes_with_a_ranking_asks_the_next_question_when_the_step_may_not_close() -> None:
    out = to_summary("yes, work first", can_complete=False)
    assert out.extracted_data == {"notes": {"focus": "work — work first"}}
    assert out.message.endswith(texts.text("en", "discovery_ask_constraints"))


@pytest.mark.parametrize(
    ("message", "topic"),
    [("а это платно", "cost"), ("это бесплатно", "cost"), ("а это долго", "how_long")],
)
def test_a_short_question_without_its_mark_is_answered_by_the_greeter(
    message: str, topic: str
) -> None:
    # "а это платно" got the greeting, as if nothing had been asked.
    assert greeter(message).message == texts.text("ru", f"greeter_{topic}")


def test_readiness_in_the_first_message_is_met_by_who_the_greeter_is() -> None:
    # "С чего начнём?" got "Отлично! Пара слов ...", and the greeter never said who it is.
    assert greeter("С чего начнём?").message == texts.text("ru", "greeter_intro")


def test_readiness_after_the_introduction_still_gets_the_steps() -> None:
    intro = texts.text("ru", "greeter_intro")
    out = run(Turn(agent="greeter", current_step="greeter", message="С чего начнём?",
                   language="ru", history=[{"role": "assistant", "text": intro}]))  # fmt: skip
    assert out.message == texts.text("ru", "greeter_not_yet")


def test_a_short_readiness_is_no_question() -> None:
    assert greeter("поехали").message == texts.text("ru", "greeter_intro")
