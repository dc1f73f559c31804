"""A returning user's facts from an earlier run of the onboarding: which facts and notes this
instance was told (`domain.told`, kept in the step data), and discovery's summary marking the
others "From last time"."""

# ruff: noqa: RUF001  (Russian text is meant to be Cyrillic)

from __future__ import annotations

from typing import Any

import pytest

from baton_agent_runner.domain import texts
from baton_agent_runner.domain.scripted import Turn, run
from baton_agent_runner.domain.told import FACTS_TOLD, NOTES_TOLD, told, told_after

from .test_step_counts import ON_FACTS, FactStores
from .test_turn_context import _run


def _context(step_data: Any) -> dict[str, Any]:
    return {"workflow": {"step_data": step_data}}


def test_what_was_told_is_read_from_every_steps_data() -> None:
    context = _context({
        "greeting": {"facts_told": ["work"]},
        "discovery": {"facts_told": ["health", 3], "notes_told": ["focus"]},
        "brain_dump": {"facts_told": "hobbies"},  # no list: left out
        "other": [],
    })  # fmt: skip
    assert told(context, FACTS_TOLD) == {"work", "health"}
    assert told(context, NOTES_TOLD) == {"focus"}
    assert told({}, FACTS_TOLD) == set() and told(_context([]), FACTS_TOLD) == set()


def test_a_turn_adds_the_facts_and_notes_it_keeps_to_what_was_told() -> None:
    context = _context({"greeting": {"facts_told": ["work"]}})
    extracted = {"facts": {"health": "gym"}, "notes": {"focus": "work"}}
    assert told_after(context, extracted) == {
        "facts_told": ["health", "work"],
        "notes_told": ["focus"],
    }
    # Nothing new: nothing to add to the step's data.
    assert told_after(context, {"facts": {"work": "my job"}}) == {}
    assert told_after(context, {"dropped_facts": ["work"]}) == {}


SUMMARY_FACTS = {"work": "my job", "health": "gym", "relationships": "family"}


def _summary(language: str, message: str, step_data: Any, **extra: Any) -> str:
    turn = Turn(
        agent="discovery",
        current_step="discovery",
        message=message,
        language=language,  # type: ignore[arg-type]
        facts=SUMMARY_FACTS,
        step=_context(step_data),
        **extra,
    )
    out = run(turn)
    assert texts.text(language, "summary_header") in out.message, out.message
    return out.message


def test_the_summary_marks_the_facts_not_told_in_this_instance_as_from_last_time() -> None:
    # A returning user: memory kept work and family from the last run; health is told now.
    said = _summary("en", "ok", {"discovery": {"facts_told": ["health"]}})
    assert said == (
        "Here is what I understood:\n"
        "- health: gym\n"
        "- From last time: work — my job\n"
        "- From last time: relationships — family\n"
        "Is that right? If not, correct me."
    )


def test_the_summary_marks_them_in_russian_too() -> None:
    said = _summary("ru", "ок", {"greeting": {"facts_told": ["work"]}})
    assert "- работа: my job\n" in said
    assert "- С прошлого раза: здоровье — gym\n" in said
    assert "- С прошлого раза: отношения — family\n" in said


def test_a_fact_told_in_this_very_turn_is_no_fact_from_last_time() -> None:
    said = _summary("en", "work is my startup now", {})
    assert "- work: my startup now\n" in said
    assert "- From last time: health — gym\n" in said
    assert "From last time: work" not in said


def test_a_fact_told_in_this_instance_is_shown_as_always() -> None:
    every = {"discovery": {"facts_told": list(SUMMARY_FACTS)}}
    said = _summary("en", "ok", every)
    assert "From last time" not in said
    assert "- work: my job\n- health: gym\n- relationships: family\n" in said


@pytest.mark.parametrize("language", ["en", "ru"])
def test_notes_from_last_time_are_marked_too(language: str) -> None:
    notes = {"focus": "work", "constraints": "time"}
    step_data = {"discovery": {"facts_told": list(SUMMARY_FACTS), "notes_told": ["constraints"]}}
    said = _summary(language, "ok", step_data, notes=notes)
    last_time = texts.text(language, "from_last_time")
    assert f"- {texts.text(language, 'note_constraints')}: time\n" in said
    assert f"- {last_time}: {texts.text(language, 'note_focus')} — work\n" in said


async def test_a_turn_records_what_it_was_told_in_its_step_data_with_no_store_read_more() -> None:
    # Memory holds work and health from a run before; this instance was told relationships.
    context = {**ON_FACTS, **_context({"greeting": {"facts_told": ["relationships"]}})}
    stores = FactStores()
    reply = await _run(stores, "discovery", "Hobbies: chess", step_context=context)
    assert reply.workflow_signal.data["facts_told"] == ["hobbies", "relationships"]
    assert "- From last time: work — my job\n" in reply.message, reply.message
    assert "- hobbies: chess\n" in reply.message
    # As many reads as a turn whose step data says nothing of what it was told.
    plain = FactStores()
    await _run(plain, "discovery", "Hobbies: chess", step_context={**ON_FACTS})
    assert stores.reads == plain.reads


def test_an_area_from_last_time_named_again_now_is_told_and_keeps_its_text() -> None:
    # "Work, health and my family" as a returning user's first answer: work and health kept
    # their richer facts from the last run and were summarised "From last time", as if the
    # user had not just named them.
    turn = Turn(agent="discovery", current_step="discovery", language="en",
                message="Work, health and my family",
                facts={"work": "my job at the clinic", "health": "running"},
                step=_context({"greeting": {}}))  # fmt: skip
    out = run(turn)
    assert out.extracted_data == {"facts": {
        "work": "my job at the clinic", "health": "running", "relationships": "my family"
    }}  # fmt: skip
    assert "From last time" not in out.message, out.message
    assert "- work: my job at the clinic\n" in out.message, out.message


def test_an_area_told_in_this_instance_and_named_again_is_not_saved_again() -> None:
    turn = Turn(agent="discovery", current_step="discovery", language="en",
                message="then work", facts={"work": "my job at the clinic"},
                step=_context({"discovery": {"facts_told": ["work"]}}))  # fmt: skip
    assert "facts" not in run(turn).extracted_data
