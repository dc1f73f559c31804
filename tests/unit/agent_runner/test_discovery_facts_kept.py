"""Discovery's facts and notes as a probe of the platform found them: a later message that
only names an area again replaced the richer fact the user had given it, a ranking said up
front was asked for again, and the focus note repeated the area ("работа — работа")."""

from __future__ import annotations

from typing import Any

import pytest

from baton_agent_runner.domain import language as lang
from baton_agent_runner.domain import texts
from baton_agent_runner.domain.scripted import Turn, run

NURSE = {"work": "I work as a nurse doing night shifts", "health": "my health is kinda bad tbh"}
RANKING = "kids and my mom come first, then work, then gym if i ever get time"


def _told(*areas: str) -> dict[str, Any]:
    """A step context whose instance told `areas` (so the summary shows them as said now)."""
    return {"workflow": {"step_data": {"discovery": {"facts_told": list(areas)}}}}


def _turn(message: str, *said: str, **extra: Any) -> Turn:
    extra.setdefault("can_complete", False)
    extra.setdefault("language", lang.language_of(message))
    history = [{"role": "assistant", "text": reply} for reply in said]
    return Turn(agent="discovery", current_step="s", message=message, history=history, **extra)


def _summary(language: str, facts: dict[str, str], notes: dict[str, str]) -> str:
    names = lang.AREA_NAMES[language]  # type: ignore[index]
    lines = [f"- {names[area]}: {fact}" for area, fact in facts.items()]
    lines += [f"- {texts.text(language, f'note_{key}')}: {note}" for key, note in notes.items()]
    header, question = (
        texts.text(language, "summary_header"),
        texts.text(language, "summary_question"),
    )
    return "\n".join([header, *lines, question])


def test_a_ranking_keeps_the_facts_the_areas_had_and_is_the_focus() -> None:
    # "I work as a nurse doing night shifts" became "work", the health fact "gym if i ever get
    # time", and "Which of these matters most?" was asked after the user had said it.
    noted = texts.text("en", "discovery_noted")
    out = run(_turn(RANKING, noted, facts=NURSE, step=_told("work", "health")))
    kept = {"relationships": "kids and my mom come first"}
    focus = {"focus": "relationships — kids and my mom come first"}
    assert out.extracted_data == {"facts": kept, "notes": focus}
    assert out.message == _summary("en", {**NURSE, **kept}, focus)
    yes = run(
        _turn("yes", out.message, facts={**NURSE, **kept}, notes=focus, step=_told(*NURSE, *kept))
    )
    assert yes.message == f"{texts.text('en', 'discovery_good')} " + texts.text(
        "en", "discovery_ask_constraints"
    )


@pytest.mark.parametrize(
    "message", ["health i guess", "work", "then work", "my health", "Health, I think", "gym"]
)
def test_naming_an_area_again_keeps_its_fact(message: str) -> None:
    facts = {**NURSE, "health": "gym"} if message == "gym" else NURSE
    out = run(_turn(message, texts.text("en", "discovery_noted"), facts=facts))
    assert "facts" not in out.extracted_data
    # No "Noted.": nothing was.
    missing = "relationships, growth, hobbies"
    assert out.message == texts.text("en", "discovery_ask", missing=missing)


@pytest.mark.parametrize(
    ("message", "facts"),
    [
        # Something new of the area, in a clause of its own or as a correction.
        ("work: I switched to day shifts", {"work": "I switched to day shifts"}),
        ("work: I switched to day shifts. family first",
         {"work": "I switched to day shifts", "relationships": "family first"}),
        ("No, work is my startup now", {"work": "my startup now"}),
        ("my job is a nightmare lately", {"work": "my job is a nightmare lately"}),
        ("работа — теперь удалёнка", {"work": "работа — теперь удалёнка"}),
    ],
)  # fmt: skip
def test_something_new_said_of_an_area_replaces_its_fact(
    message: str, facts: dict[str, str]
) -> None:
    out = run(_turn(message, texts.text("en", "discovery_noted"), facts=NURSE))
    assert out.extracted_data["facts"] == facts


def test_an_answer_to_a_follow_up_question_keeps_the_facts_of_the_areas_it_names() -> None:
    # "guitar" became "a week where i play guitar every day", the good week's answer.
    asked = texts.text("en", "discovery_ask_good_week")
    facts = {"work": "nurse", "hobbies": "guitar"}
    out = run(_turn("a week where i play guitar every day", asked, facts=facts))
    assert "facts" not in out.extracted_data


@pytest.mark.parametrize(
    ("message", "focus"),
    [
        ("family first", "relationships — family first"),
        ("probably family first", "relationships — probably family first"),
        ("family comes first", "relationships — family comes first"),
        ("family is most important", "relationships — family is most important"),
        ("главное — семья", "отношения — семья"),
        ("в первую очередь семья", "отношения — семья"),
        ("сначала семья, потом работа", "отношения — семья"),
        ("на первом месте семья", "отношения — семья"),
    ],
)
def test_a_ranking_said_before_it_is_asked_is_the_focus_and_not_asked_again(
    message: str, focus: str
) -> None:
    language = lang.language_of(message)
    facts = {"work": "w", "health": "h"}
    out = run(_turn(message, texts.text(language, "discovery_noted"), facts=facts))
    assert out.extracted_data["notes"] == {"focus": focus}
    kept = {**facts, **out.extracted_data["facts"]}
    yes = "да" if language == "ru" else "yes"
    after = run(_turn(yes, out.message, facts=kept, notes={"focus": focus}, language=language))
    good, ask = (
        texts.text(language, "discovery_good"),
        texts.text(language, "discovery_ask_constraints"),
    )
    assert after.message == f"{good} {ask}"


@pytest.mark.parametrize(
    "message", ["my first job was in a bank", "Для меня главное — это здоровье"]
)
def test_no_ranking_of_one_area_alone_is_the_focus(message: str) -> None:
    # "first" of something else ranks nothing; nor does one area said first of all.
    facts = {"health": "h"} if "job" in message else {}
    out = run(_turn(message, texts.text("en", "discovery_noted"), facts=facts))
    assert "notes" not in out.extracted_data


@pytest.mark.parametrize(
    ("message", "note"),
    [
        ("health", "health"),
        ("health i guess", "health"),
        ("Работа.", "работа"),
        ("работа", "работа"),
        ("Самое важное — здоровье, потом внуки и дача", "здоровье — здоровье, потом внуки и дача"),
        ("Для меня главное — это семья", "отношения — семья"),
        ("kids and my mom come first, then work",
         "relationships — kids and my mom come first, then work"),
        ("Health, for now", "health — Health, for now"),
    ],
)  # fmt: skip
def test_the_focus_note_names_the_area_once(message: str, note: str) -> None:
    # "работа — работа", "health — health", "здоровье — Самое важное — здоровье, ...".
    language = lang.language_of(message)
    facts = {"work": "w", "health": "h", "relationships": "r", "hobbies": "дача"}
    asked = texts.text(language, "discovery_ask_focus")
    out = run(_turn(message, asked, facts=facts, language=language))
    assert out.extracted_data["notes"] == {"focus": note}
    thanks, ask = (
        texts.text(language, "discovery_thanks"),
        texts.text(language, "discovery_ask_constraints"),
    )
    assert out.message == f"{thanks} {ask}"


@pytest.mark.parametrize(
    "message",
    ["not sleeping enough", "I don't sleep well", "не высыпаюсь", "не сплю нормально"],
)
def test_a_negated_area_word_said_with_how_well_it_goes_names_the_area(message: str) -> None:
    # "not sleeping enough" was read as "no health", as "I don't work" is "no work".
    assert lang.areas_said(message) == ({"health": message}, set())


def test_i_dont_work_still_declines_work() -> None:
    assert lang.areas_said("I don't work") == ({}, {"work"})


def test_an_area_taken_out_comes_back_when_named_again() -> None:
    # After "remove health", "not sleeping enough" saved nothing: read as "no health" again.
    facts = {"work": "my job", "health": "gym", "relationships": "family"}
    removed = run(_turn("remove health", facts=facts))
    assert removed.extracted_data == {"dropped_facts": ["health"]}
    left = {area: fact for area, fact in facts.items() if area != "health"}
    history = [{"role": "user", "text": "remove health"}]
    history.append({"role": "assistant", "text": removed.message})
    back = run(
        Turn(
            agent="discovery", current_step="s", message="not sleeping enough", facts=left,
            history=history, can_complete=False, language="en",
        )
    )  # fmt: skip
    assert back.extracted_data == {"facts": {"health": "not sleeping enough"}}
    assert "- health: not sleeping enough\n" in back.message


_SUMMARY = (
    "Here is what I understood:\n- work: my job\n- health: gym\n- relationships: family\n"
    "Is that right? If not, correct me."
)


def _to_summary(message: str) -> Any:
    facts = {"work": "my job", "health": "gym", "relationships": "family"}
    told = {"workflow": {"step_data": {"discovery": {"facts_told": sorted(facts)}}}}
    return run(Turn(agent="discovery", current_step="discovery", message=message, language="en",
                    can_complete=True, facts=facts, step=told,
                    history=[{"role": "assistant", "text": _SUMMARY}]))  # fmt: skip


@pytest.mark.parametrize("message", ["sort of", "kind of"])
def test_a_hedge_to_the_summary_is_no_task(message: str) -> None:
    # "sort of" was kept for the inbox ("Kept for the brain dump ...: sort of").
    out = _to_summary(message)
    assert out.extracted_data == {} and not out.step_completed


@pytest.mark.parametrize("message", ["spot on", "nailed it", "you got it", "close enough"])
def test_common_ways_to_say_the_summary_is_right_confirm_it(message: str) -> None:
    # Each got "I did not quite get that. Is the summary above right?".
    assert _to_summary(message).step_completed


@pytest.mark.parametrize(
    ("message", "facts"),
    [
        ("работа и здоровье, здоровье", {"work": "работа", "health": "здоровье"}),
        ("саморазвитие 🙂", {"growth": "саморазвитие"}),
        (
            "work, health 💪🏻, family",
            {"work": "work", "health": "health", "relationships": "family"},
        ),
        ("🙂 семья", {"relationships": "семья"}),
        # What is part of the fact stays: a symbol in it, "C++" at its end; the area's
        # label before a colon goes ("growth: learning C++" kept "growth:").
        ("growth: learning C++", {"growth": "learning C++"}),
        # So does one before "=" or an arrow ("health = trying to lose 10kg" kept "health =").
        ("health = trying to lose 10kg", {"health": "trying to lose 10kg"}),
        ("work -> shipping the app", {"work": "shipping the app"}),
        ("здоровье → бегать по утрам", {"health": "бегать по утрам"}),
        ("хобби: фотография", {"hobbies": "фотография"}),
    ],
)
def test_a_fact_is_kept_without_a_repeat_or_the_emoji_around_it(
    message: str, facts: dict[str, str]
) -> None:
    # "работа и здоровье, здоровье" saved "здоровье, здоровье"; "саморазвитие 🙂" kept its emoji.
    out = run(_turn(message))
    assert out.extracted_data["facts"] == facts


@pytest.mark.parametrize(
    ("message", "focus"),
    [
        (
            "Да, всё правильно, только здоровье поставьте повыше",
            "здоровье — здоровье поставьте повыше",
        ),
        ("да, всё так, только здоровье на первое место", "здоровье — здоровье на первое место"),
        ("yes, but put health first", "health — put health first"),
        ("yes, just move health to the top", "health — move health to the top"),
    ],
)
def test_raising_an_area_asked_of_the_summary_is_the_focus_and_keeps_its_fact(
    message: str, focus: str
) -> None:
    # The health fact was replaced by "здоровье поставьте повыше", and the focus kept as it was.
    facts = {"work": "работа", "health": "давление скачет"}
    summary = _summary(lang.language_of(message), facts, {})
    out = run(_turn(message, summary, facts=facts, step=_told(*facts)))
    assert out.extracted_data == {"notes": {"focus": focus}}
