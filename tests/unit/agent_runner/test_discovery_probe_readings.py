"""Discovery's misreadings found by a third probe of the scripted agent, each read as the user
meant it now."""

# ruff: noqa: RUF001  (Russian text is meant to be Cyrillic)
from __future__ import annotations

import pytest

from baton_agent_runner.domain import language as lang
from baton_agent_runner.domain import ranked_below, texts

from .turns import FACTS, discovery, to_question, to_summary


@pytest.mark.parametrize(
    "message",
    ["family comes first, so no time for gym", "kids first, so I don't have time for the gym",
     "семья на первом месте, нет времени на спорт"],
)  # fmt: skip
def test_no_time_for_an_area_said_to_what_holds_you_back_removes_no_area(message: str) -> None:
    # "Removed: health." and the areas asked for again: the gym was declined.
    out = to_question("constraints", message, notes={"focus": "work"})
    assert out.extracted_data == {"notes": {"constraints": message}}


@pytest.mark.parametrize(
    ("message", "facts"),
    [("only add the choir and yoga", {"hobbies": "the choir", "health": "gym; yoga"}),
     ("add yoga", {"health": "gym; yoga"}),
     ("добавь йогу", {"health": "gym; йогу"})],
)  # fmt: skip
def test_an_area_added_to_keeps_what_it_held(message: str, facts: dict[str, str]) -> None:
    # "only add the choir and yoga" replaced the health fact "gym" with "yoga".
    assert to_summary(message).extracted_data == {"facts": facts}


@pytest.mark.parametrize(
    ("message", "focus"),
    [("health matters most, not work", "health — health matters most"),
     ("главное здоровье, а не работа", "здоровье")],
)  # fmt: skip
def test_the_focus_note_leaves_out_the_areas_ranked_below(message: str, focus: str) -> None:
    # The note read "health — health matters most, not work".
    assert to_question("focus", message).extracted_data == {"notes": {"focus": focus}}


@pytest.mark.parametrize(
    ("said", "kept"),
    [("health matters most, not work or my hobbies", "health matters most"),
     ("здоровье, а не работа!", "здоровье"),
     # More than an area after the "not", or nothing before it: what the user said stays.
     ("health matters most, not work stress", "health matters most, not work stress"),
     ("not work", "not work")],
)  # fmt: skip
def test_only_areas_ranked_below_are_left_out(said: str, kept: str) -> None:
    assert ranked_below.without_areas_below(said) == kept


@pytest.mark.parametrize(
    ("message", "focus"),
    [("health matters most, not work", "health — health matters most"),
     ("главное здоровье, а не работа", "здоровье")],
)  # fmt: skip
def test_a_new_focus_said_to_the_summary_leaves_out_the_areas_ranked_below(
    message: str, focus: str
) -> None:
    assert to_summary(message).extracted_data == {"notes": {"focus": focus}}


@pytest.mark.parametrize(
    "message",
    ["going to the doctor more", "go to the doctor more often", "seeing my doctor regularly",
     "чаще ходить к врачу", "регулярно ходить к врачам"],
)  # fmt: skip
def test_going_to_the_doctor_more_names_health(message: str) -> None:
    # It named no area: "So far I have work ... What else matters to you?"
    out = discovery(message, facts={"work": "my job"})
    assert out.extracted_data == {"facts": {"health": message}}


@pytest.mark.parametrize(
    "message", ["my doctor recommended it", "the doctor said to try this", "see the doctor"]
)
def test_a_doctor_who_speaks_or_an_errand_names_no_area(message: str) -> None:
    assert lang.areas_in(message) == {}


@pytest.mark.parametrize(
    ("message", "areas"),
    [("hobbies: learning to cook", {"hobbies": "learning to cook"}),
     ("хобби: учусь готовить", {"hobbies": "учусь готовить"}),
     ("my hobbies - learning guitar", {"hobbies": "my hobbies - learning guitar"}),
     # The words after another area's word stay the labelled area's ("learning" cut the
     # hobby's fact to "reading" once the label took it from growth).
     ("hobbies: reading, learning guitar", {"hobbies": "reading, learning guitar"}),
     ("хобби: читаю, учусь играть на гитаре", {"hobbies": "читаю, учусь играть на гитаре"}),
     ("hobbies: reading, learning guitar, work: shipping",
      {"hobbies": "reading, learning guitar", "work": "shipping"}),
     # Unlabelled, "learning" still names growth.
     ("learning to cook", {"growth": "learning to cook"})],
)  # fmt: skip
def test_an_area_label_wins_for_the_words_after_it(message: str, areas: dict[str, str]) -> None:
    assert lang.areas_in(message) == areas


def test_a_label_and_a_removal_said_to_the_summary_are_both_read() -> None:
    # "learning" named growth under the "hobbies:" label, and growth kept that fact.
    facts = {**FACTS, "growth": "reading"}
    out = to_summary("no. hobbies: learning to cook. remove growth", facts=facts)
    assert out.extracted_data == {
        "facts": {"hobbies": "learning to cook"},
        "dropped_facts": ["growth"],
    }


@pytest.mark.parametrize(
    ("message", "items"),
    [("call doctor; buy vitamins; plan dinner with friends",
      ["call doctor", "buy vitamins", "plan dinner with friends"]),
     ("позвонить врачу; купить витамины", ["позвонить врачу", "купить витамины"])],
)  # fmt: skip
def test_a_list_of_errands_said_to_which_matters_most_is_kept_as_tasks(
    message: str, items: list[str]
) -> None:
    # The list became the focus note ("health, relationships — call doctor; ..."), its tasks
    # lost.
    out = to_question("focus", message, inbox_ahead=True)
    assert out.extracted_data == {"deferred_inbox_items": items}
    language = lang.language_of(message)
    assert out.message.endswith(texts.text(language, "discovery_ask_focus"))


@pytest.mark.parametrize("message", ["go running; see friends", "family, then work"])
def test_a_list_of_habits_or_areas_said_to_which_matters_most_is_the_focus(message: str) -> None:
    assert "focus" in to_question("focus", message).extracted_data["notes"]


@pytest.mark.parametrize(
    ("message", "facts"),
    [("work i said", FACTS), ("work", FACTS), ("работа", FACTS),
     ("growth means uni", {**FACTS, "growth": "uni classes"})],
)  # fmt: skip
def test_an_area_the_summary_holds_said_again_gets_the_summary_again(
    message: str, facts: dict[str, str]
) -> None:
    # "I did not quite get that. Is the summary above right?": nothing was wrong with it.
    out = to_summary(message, facts=facts)
    assert out.extracted_data == {}
    language = lang.language_of(message)
    unchanged = texts.text(language, "discovery_unchanged")
    assert out.message.startswith(f"{unchanged}\n{texts.text(language, 'summary_header')}")
    assert out.message.endswith(texts.text(language, "summary_question"))
    assert not out.message.startswith(texts.text(language, "discovery_unclear_ask"))


@pytest.mark.parametrize("message", ["здоровье тоже важно", "здоровье тоже"])
def test_an_area_kept_from_last_time_said_now_is_recorded_not_updated(message: str) -> None:
    # "Обновил: здоровье.": health was new to this run, known only from the last one.
    asked = texts.text("ru", "discovery_ask", missing="здоровье, отношения")
    out = discovery(message, facts={"work": "работа", "health": "бег"},
                    step={"workflow": {"step_data": {"discovery": {"facts_told": ["work"]}}}},
                    history=[{"role": "assistant", "text": asked}])  # fmt: skip
    assert "health" in out.extracted_data["facts"]
    assert out.message.startswith(texts.text("ru", "discovery_noted"))


def test_an_area_told_in_this_run_added_to_is_updated() -> None:
    asked = texts.text("ru", "discovery_ask", missing="здоровье, отношения")
    out = discovery("здоровье тоже важно", facts={"work": "работа", "health": "бег"},
                    step={"workflow": {"step_data": {"discovery": {"facts_told": ["health"]}}}},
                    history=[{"role": "assistant", "text": asked}])  # fmt: skip
    assert out.extracted_data == {"facts": {"health": "бег; здоровье тоже важно"}}
    assert out.message.startswith(texts.text("ru", "discovery_updated", areas="здоровье"))


@pytest.mark.parametrize(
    "message",
    ["work-life balance", "I need better work-life balance", "work life balance",
     "worklife balance", "баланс работы и жизни", "нужен баланс между работой и жизнью"],
)  # fmt: skip
def test_work_life_balance_is_a_health_concern_not_a_work_priority(message: str) -> None:
    # "work-life balance" was kept as the work fact.
    assert lang.areas_in(message) == {"health": message}


@pytest.mark.parametrize(
    ("message", "areas"),
    [("work and life balance stuff", {"work"}), ("my work life is busy", {"work"}),
     ("разрываюсь между работой и семьёй", {"work", "relationships"})],
)  # fmt: skip
def test_work_without_a_balance_is_still_work(message: str, areas: set[str]) -> None:
    assert set(lang.areas_in(message)) == areas
