"""Discovery's misreadings of what is said to the summary, found by a fifth probe of the
scripted agent, each read as the user meant it now."""

# ruff: noqa: RUF001  (Russian text is meant to be Cyrillic)

from __future__ import annotations

import pytest

from baton_agent_runner.domain import language as lang
from baton_agent_runner.domain.scripted import Turn, run

from .turns import FACTS, to_summary


@pytest.mark.parametrize(
    ("message", "focus"),
    [("health matters most, not work stress", "health — health matters most, not work stress"),
     ("health matters most, not work or my hobbies", "health — health matters most")],
)  # fmt: skip
def test_what_a_ranking_puts_below_is_no_decline_nor_a_fact(message: str, focus: str) -> None:
    # Work was taken out ("Removed: work."), and "my hobbies" became the hobbies fact.
    assert to_summary(message).extracted_data == {"notes": {"focus": focus}}


@pytest.mark.parametrize("message", ["работа же", "здоровье ведь", "ну работа же"])
def test_a_particle_after_an_area_said_again_is_no_fact(message: str) -> None:
    # The work fact "my job" became "работа же".
    out = to_summary(message)
    assert out.extracted_data == {}
    assert out.message.startswith("Это уже есть в итоге")


@pytest.mark.parametrize("message", ["what do you mean by growth?", "что значит развитие?"])
def test_asking_what_an_area_is_saves_no_fact(message: str) -> None:
    # Saved as the growth fact "what do you mean by growth".
    first = run(Turn(agent="discovery", current_step="discovery", message=message,
                     language=lang.language_of(message)))  # fmt: skip
    at_summary = to_summary(message)
    for out in (first, at_summary):
        assert out.extracted_data == {}
        assert out.message.startswith(("An area is", "Область — это")), out.message


@pytest.mark.parametrize(
    "message",
    ["I guess my family, because the boys are growing up so fast",
     "my kids are growing up", "growing old together with my wife"],
)  # fmt: skip
def test_growing_up_or_old_names_no_growth(message: str) -> None:
    # "growth: because the boys are growing up so fast" was added to the summary.
    assert "growth" not in lang.areas_in(message)
    assert "growth" not in to_summary(message).extracted_data.get("facts", {})


@pytest.mark.parametrize(
    "message",
    ["not sure, maybe health", "I'm not sure, health I guess", "не знаю, наверное здоровье",
     "не уверен, может здоровье"],
)  # fmt: skip
def test_a_hedge_before_an_area_said_again_is_no_fact(message: str) -> None:
    # The health fact "gym" became "not sure, maybe health".
    assert to_summary(message).extracted_data == {}


@pytest.mark.parametrize(
    ("message", "fact"),
    [("hmm also drop the girlfriend, we broke up. friends instead", "friends"),
     ("drop the girlfriend, friends instead", "friends"),
     ("убери девушку, вместо неё друзья", "друзья"),
     ("friends instead", "friends")],
)  # fmt: skip
def test_what_an_area_holds_dropped_for_another_is_the_new_fact(message: str, fact: str) -> None:
    # "my girlfriend; friends instead" was kept, or relationships taken out ("Removed: ...").
    facts = {**FACTS, "relationships": "my girlfriend"}
    out = to_summary(message, facts=facts)
    assert out.extracted_data == {"facts": {"relationships": fact}}


@pytest.mark.parametrize(
    ("message", "facts"),
    [("ок, тогда учёба — английский", {"growth": "учёба — английский"}),
     ("more like hobbies: chess", {"hobbies": "chess"}),
     ("oh, hobbies: chess", {"hobbies": "chess"}),
     ("wait, keep health: the gym", {"health": "the gym"})],
)  # fmt: skip
def test_a_lead_in_before_an_area_is_no_part_of_its_fact(
    message: str, facts: dict[str, str]
) -> None:
    # "тогда учёба — английский", "more like hobbies: chess", "keep health: the gym" were kept.
    told = {"work": "my job", "relationships": "family"}  # health taken out before
    assert to_summary(message, facts=told).extracted_data == {"facts": facts}


@pytest.mark.parametrize(
    ("message", "area"),
    [("my band", "hobbies"), ("band practice on fridays", "hobbies"),
     ("играю в группе на басу", "hobbies"), ("woodworking", "hobbies"), ("pottery", "hobbies"),
     ("surfing", "hobbies"), ("crossfit", "health")],
)  # fmt: skip
def test_pastimes_name_their_area(message: str, area: str) -> None:
    assert lang.areas_in(message).keys() == {area}


@pytest.mark.parametrize("message", ["rubber band", "surfing the web"])
def test_words_like_the_pastimes_name_no_area(message: str) -> None:
    assert lang.areas_in(message) == {}


def test_a_band_said_after_learning_is_a_hobby_of_its_own() -> None:
    # "growth: learning Spanish, my band".
    said = lang.areas_in("my mental health, learning Spanish, my band")
    assert said == {"health": "my mental health", "growth": "learning Spanish",
                    "hobbies": "my band"}  # fmt: skip


@pytest.mark.parametrize(
    ("message", "facts"),
    [("is it ok if I say my dog?", {"relationships": "my dog"}),
     ("can I put my band?", {"hobbies": "my band"}),
     ("а можно сказать собака?", {"relationships": "собака"}),
     ("does my dog count?", {"relationships": "my dog"})],
)  # fmt: skip
def test_an_area_offered_as_a_question_is_its_fact(message: str, facts: dict[str, str]) -> None:
    # The relationships fact was "is it ok if I say my dog".
    first = run(Turn(agent="discovery", current_step="discovery", message=message,
                     language=lang.language_of(message)))  # fmt: skip
    assert first.extracted_data == {"facts": facts}


@pytest.mark.parametrize(
    ("message", "facts"),
    [("rename work to my startup", {"work": "my startup"}),
     ("the work one should say my startup", {"work": "my startup"}),
     ("work isn't my job, it's my startup", {"work": "my startup"}),
     ("health should be yoga, not gym", {"health": "yoga"}),
     ("for health put yoga", {"health": "yoga"}),
     ("under health write yoga", {"health": "yoga"}),
     ("здоровье поменяй на йогу", {"health": "йогу"}),
     ("в здоровье напиши йога", {"health": "йога"}),
     ("work should be less stressful", {"work": "work should be less stressful"})],
)  # fmt: skip
def test_an_edit_of_an_area_asked_in_words_is_its_new_fact(
    message: str, facts: dict[str, str]
) -> None:
    # "rename work to my startup" was kept whole as the work fact.
    assert to_summary(message).extracted_data == {"facts": facts}


@pytest.mark.parametrize(
    ("message", "facts"),
    [("all good except health: I want to run", {"health": "I want to run"}),
     ("yes, except work is freelancing now", {"work": "work is freelancing now"}),
     ("health is fine, but add hobbies: chess", {"hobbies": "chess"}),
     ("здоровье в порядке, но добавь хобби: шахматы", {"hobbies": "шахматы"})],
)  # fmt: skip
def test_what_the_summary_has_right_is_no_part_of_a_fact(
    message: str, facts: dict[str, str]
) -> None:
    # "all good except health: I want to run" was the health fact; "health is fine" was added.
    assert to_summary(message).extracted_data == {"facts": facts}


@pytest.mark.parametrize(
    "message", ["what else is there?", "what other areas are there?", "а что ещё можно?"]
)
def test_asking_which_other_areas_there_are_at_the_summary_is_answered(message: str) -> None:
    # "I did not quite get that. Is the summary above right?"
    out = to_summary(message)
    assert out.extracted_data == {}
    assert out.message.startswith(("An area is", "Область — это")), out.message
