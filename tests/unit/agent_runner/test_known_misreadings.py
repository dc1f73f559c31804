"""Messages the scripted agents misread, each read as the user meant it now."""

from __future__ import annotations

from typing import Any

import pytest

from baton_agent_runner.domain import language as lang
from baton_agent_runner.domain.brain_dump import split_items
from baton_agent_runner.domain.output import AgentOutput
from baton_agent_runner.domain.scripted import Turn, run, tidy


def brain_dump(message: str, **extra: Any) -> AgentOutput:
    return run(Turn(agent="inbox_collector", current_step="brain_dump", message=message,
                    language=lang.language_of(message), messages_in_step=1, **extra))  # fmt: skip


def discovery(message: str, **extra: Any) -> AgentOutput:
    return run(Turn(agent="discovery", current_step="discovery", message=message,
                    language=lang.language_of(message), **extra))  # fmt: skip


@pytest.mark.parametrize(
    "message",
    ["everything", "too much to list", "so many things", "Too much to list honestly",
     "слишком много, не перечислить", "всё подряд", "много всего"],
)  # fmt: skip
def test_saying_how_much_is_on_the_mind_is_no_item(message: str) -> None:
    # "everything", "too much to list" were saved as items, and counted towards the three.
    out = brain_dump(message)
    assert split_items(message) == []
    assert "inbox_items" not in out.extracted_data
    assert not out.step_completed


@pytest.mark.parametrize(
    ("message", "items"),
    [("buy everything for the party", ["buy everything for the party"]),
     ("everything: call mom, buy milk", ["call mom", "buy milk"]),
     ("купить всё к празднику", ["купить всё к празднику"])],
)  # fmt: skip
def test_an_item_saying_how_much_is_still_an_item(message: str, items: list[str]) -> None:
    assert brain_dump(message).extracted_data == {"inbox_items": items}


@pytest.mark.parametrize(
    "message", ["gym 2. times a week", "run 3. x a week", "бегать 3. раза в неделю"]
)
def test_a_dot_after_a_count_parts_no_item(message: str) -> None:
    # "gym 2. times a week" was saved as two items, "gym 2" and "times a week".
    assert brain_dump(message).extracted_data == {"inbox_items": [message]}


@pytest.mark.parametrize("message", ["gym 2. times a week", "спортзал 3. раза в неделю"])
def test_a_dot_after_a_count_parts_no_fact(message: str) -> None:
    # Discovery kept the health fact "gym 2".
    assert discovery(message).extracted_data == {"facts": {"health": message}}


def test_a_sentence_after_a_number_is_still_an_item_of_its_own() -> None:
    assert brain_dump("buy 2. call mom").extracted_data == {"inbox_items": ["buy 2", "call mom"]}


@pytest.mark.parametrize(
    "message",
    ["drive the kids to school", "skip work", "отвезти детей в школу", "прогулять работу",
     "забрать детей из школы", "pick up the kids from school", "collect the kids from school",
     "picking up my son from school", "pick up my gym bag from the locker",
     "забери детей из школы"],
)  # fmt: skip
def test_what_an_errand_drives_or_skips_names_no_area(message: str) -> None:
    # "drive the kids to school" named growth (and relationships), "skip work" named work.
    assert lang.areas_in(message) == {}
    assert "facts" not in discovery(message).extracted_data


def test_an_area_named_beside_a_skipped_one_is_kept() -> None:
    out = discovery("work is my priority, skip the gym")
    assert out.extracted_data == {"facts": {"work": "work is my priority"}}


@pytest.mark.parametrize(
    ("message", "facts"),
    [("Work and health: busy", {"work": "busy", "health": "busy"}),
     ("Работа и здоровье: завал", {"work": "завал", "health": "завал"}),
     ("I love work and health: running", {"work": "I love work", "health": "running"})],
)  # fmt: skip
def test_areas_labelled_together_before_a_colon_share_what_follows(
    message: str, facts: dict[str, str]
) -> None:
    # "Work and health: busy" kept the fact "Work" for work.
    assert discovery(message).extracted_data == {"facts": facts}


@pytest.mark.parametrize("message", ["работа i здоровье", "Работа, i здоровье"])
def test_a_latin_i_between_russian_words_is_the_russian_and(message: str) -> None:
    # "работа i здоровье" kept the whole message as the fact of both areas.
    facts = discovery(message).extracted_data["facts"]
    assert {area: fact.casefold() for area, fact in facts.items()} == {
        "work": "работа",
        "health": "здоровье",
    }


def test_a_latin_i_between_russian_actions_parts_them() -> None:
    out = brain_dump("позвонить маме i купить хлеб")
    assert out.extracted_data == {"inbox_items": ["позвонить маме", "купить хлеб"]}


@pytest.mark.parametrize("message", ["work i health", "i think работа", "i work"])
def test_an_english_i_stays(message: str) -> None:
    assert tidy(message) == message


@pytest.mark.parametrize("message", ["выспаться", "похудеть", "Выспаться!"])
def test_a_russian_verb_alone_at_the_brain_dump_is_an_item(message: str) -> None:
    # "выспаться" names health, and was dropped unsaved as a priority said late.
    assert brain_dump(message).extracted_data == {"inbox_items": [message.rstrip("!")]}


@pytest.mark.parametrize("message", ["здоровье", "работа и семья", "health"])
def test_an_area_alone_at_the_brain_dump_is_still_no_item(message: str) -> None:
    assert brain_dump(message).extracted_data == {}


@pytest.mark.parametrize(
    "message", ["make that call to the bank", "make that appointment with the dentist"]
)
def test_making_a_call_is_an_item_not_a_correction(message: str) -> None:
    # "make that call to the bank" changed "buy milk" into "buy call to the bank".
    out = brain_dump(message, inbox_count=1, inbox_open=["buy milk"],
                     history=[{"role": "user", "text": "buy milk"}])  # fmt: skip
    assert out.extracted_data == {"inbox_items": [message]}


def test_make_that_still_corrects_the_item_before() -> None:
    out = brain_dump("make that oat milk", inbox_count=1, inbox_open=["buy milk"],
                     history=[{"role": "user", "text": "buy milk"}])  # fmt: skip
    assert out.extracted_data["inbox_corrections"] == {"buy milk": "buy oat milk"}


@pytest.mark.parametrize(
    ("message", "fact"),
    [("maybe learn piano?", "learn piano"),
     ("может, научиться играть на пианино?", "научиться играть на пианино")],
)  # fmt: skip
def test_an_instrument_to_learn_is_growth_and_a_hobby(message: str, fact: str) -> None:
    # "может, научиться играть на пианино?" named no area; an instrument was no hobby.
    facts = discovery(message).extracted_data["facts"]
    assert facts == {"growth": fact, "hobbies": fact}


def test_an_instrument_alone_is_a_hobby() -> None:
    assert discovery("maybe piano?").extracted_data == {"facts": {"hobbies": "piano"}}


def test_an_action_of_two_area_words_is_one_fact_for_both() -> None:
    # Read as bare area words, "learn piano" gave growth "learn" and hobbies "piano".
    facts = discovery("learn piano").extracted_data["facts"]
    assert facts == {"growth": "learn piano", "hobbies": "learn piano"}


def test_a_roman_numeral_between_russian_words_stays() -> None:
    assert tidy("Пётр I Великий") == "Пётр I Великий"


@pytest.mark.parametrize(
    ("message", "item"), [("exercise", "exercise"), ("sleep", "sleep"), ("Sleep!", "Sleep"),
                          ("study", "study"), ("sleep and exercise", "sleep and exercise")]
)  # fmt: skip
def test_an_english_verb_alone_at_the_brain_dump_is_an_item(message: str, item: str) -> None:
    # "exercise", "sleep" name health, and were dropped unsaved as a priority said late, where
    # "выспаться" is an item.
    assert brain_dump(message).extracted_data == {"inbox_items": [item]}


@pytest.mark.parametrize("message", ["my sleep", "health and sleep", "work", "work and family"])
def test_an_english_area_alone_at_the_brain_dump_is_still_no_item(message: str) -> None:
    assert brain_dump(message).extracted_data == {}


@pytest.mark.parametrize(
    ("message", "facts"),
    [("pick up guitar again", {"hobbies": "pick up guitar again"}),
     ("picking up the kids from school, then work", {"work": "work"})],
)  # fmt: skip
def test_what_is_taken_up_again_or_said_after_a_fetch_names_its_area(
    message: str, facts: dict[str, str]
) -> None:
    # "pick up the kids from school" named growth and relationships; guitar is taken up again.
    assert discovery(message).extracted_data == {"facts": facts}


@pytest.mark.parametrize(
    ("message", "facts"),
    [("I need to pick up the kids from school and work on my health",
      {"health": "work on my health"}),
     ("working on my marriage", {"relationships": "working on my marriage"}),
     ("хочу работать над здоровьем", {"health": "хочу работать над здоровьем"}),
     # Never misread ("работ" is matched at a word's start), and kept so.
     ("Мне надо забрать детей из школы и поработать над здоровьем",
      {"health": "поработать над здоровьем"}),
     # "Work on" with no other area after it, or work named beside it, still names work.
     ("I work on weekends", {"work": "I work on weekends"}),
     ("work on my startup", {"work": "work on my startup"}),
     ("work on my health, and my job", {"health": "work on my health", "work": "my job"})],
)  # fmt: skip
def test_work_on_another_area_names_that_area_not_work(message: str, facts: dict[str, str]) -> None:
    # "work on my health" was saved as a work fact as well as health's: "work on" is the verb.
    assert discovery(message).extracted_data == {"facts": facts}
    assert lang.areas_in(message) == facts


@pytest.mark.parametrize(
    ("message", "facts"),
    [("work on myself", {"growth": "work on myself"}),
     ("I want to work on myself, and family and health",
      {"growth": "I want to work on myself", "relationships": "family", "health": "health"}),
     ("working on me", {"growth": "working on me"}),
     ("improve myself", {"growth": "improve myself"}),
     ("self-improvement and my job", {"growth": "self-improvement", "work": "my job"}),
     ("Хочу поработать над собой", {"growth": "Хочу поработать над собой"}),
     ("работаю над собой и над отношениями",
      {"growth": "работаю над собой", "relationships": "над отношениями"}),
     # "Myself" names growth only after the verb: done "by myself" at work is work.
     ("I do everything by myself at work", {"work": "I do everything by myself at work"})],
)  # fmt: skip
def test_working_on_oneself_is_growth_not_work(message: str, facts: dict[str, str]) -> None:
    # "I want to work on myself" was kept as a work priority.
    assert discovery(message).extracted_data == {"facts": facts}
    assert lang.areas_in(message) == facts


@pytest.mark.parametrize(
    ("message", "name"),
    [("давай пропустим хобби", "хобби"), ("skip hobbies", "hobbies"),
     ("пропустить хобби", "хобби"), ("let's skip the part about hobbies", "hobbies")],
)  # fmt: skip
def test_skipping_an_area_declines_it(message: str, name: str) -> None:
    # "давай пропустим хобби" was kept as the hobbies fact; "skip hobbies" named nothing, and
    # hobbies were asked about again.
    assert lang.declined_areas(message) == {"hobbies"}
    out = discovery(message)
    assert out.extracted_data == {} and name not in out.message
    later = discovery("work, health", history=[{"role": "user", "text": message}])
    assert set(later.extracted_data["facts"]) == {"work", "health"}
    assert "hobbies" not in later.message


def test_skipping_a_known_area_forgets_it() -> None:
    out = discovery("skip hobbies", facts={"work": "w", "health": "h", "hobbies": "chess"})
    assert out.extracted_data == {"dropped_facts": ["hobbies"]}


def test_an_area_skipped_beside_others_named_declines_it_alone() -> None:
    out = discovery("Работа, здоровье, давай пропустим хобби")
    assert out.extracted_data == {"facts": {"work": "Работа", "health": "здоровье"}}
    assert lang.declined_areas("Работа, здоровье, давай пропустим хобби") == {"hobbies"}


@pytest.mark.parametrize(
    "message", ["skip the gym", "skip work tomorrow", "прогулять работу", "не пропускай хобби"]
)
def test_an_errand_that_skips_or_a_plea_not_to_declines_no_area(message: str) -> None:
    assert lang.declined_areas(message) == set()
