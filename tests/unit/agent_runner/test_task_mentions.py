"""A single task said in passing to the greeter or discovery, with a clear marker ("remember
to call mom", "oh and fix the bike too", "напомни мне завтра позвонить врачу"), is kept for the
brain dump; area talk ("I need more time with family", "надо больше спать") is not."""

# ruff: noqa: RUF001  (Russian text is meant to be Cyrillic)

from __future__ import annotations

from typing import Any

import pytest

from baton_agent_runner.domain import language as lang
from baton_agent_runner.domain import texts
from baton_agent_runner.domain.scripted import Turn, run
from baton_agent_runner.domain.task_mentions import Mention, task_mention

TWO_AREAS = {"work": "work", "health": "health"}
THREE_AREAS = {**TWO_AREAS, "family": "family"}


def turn(agent: str, message: str, **extra: Any) -> Turn:
    extra.setdefault("can_complete", False)
    return Turn(
        agent=agent, current_step="s", message=message, language=lang.language_of(message), **extra
    )


def _asked(language: lang.Lang, key: str, **values: str) -> list[dict[str, str]]:
    return [{"role": "assistant", "text": texts.text(language, key, **values)}]


@pytest.mark.parametrize(
    ("message", "item", "rest"),
    [
        ("hi, remember to call mom btw", "call mom", "hi,"),
        ("oh and fix the bike too 🚲", "fix the bike", ""),
        ("wait can you remind me tomorrow to call the vet?", "call the vet tomorrow", ""),
        ("don't forget to pay rent please", "pay rent", ""),
        ("I need to renew my passport", "renew my passport", ""),
        ("Работа важна. Не забыть купить хлеб!", "купить хлеб", "Работа важна."),
        ("напомни мне завтра позвонить врачу", "завтра позвонить врачу", ""),
        ("а ты можешь напомнить мне оплатить интернет?", "оплатить интернет", ""),
        ("надо позвонить маме", "позвонить маме", ""),
    ],
)
def test_a_task_said_with_a_marker_is_read_apart_from_the_rest(
    message: str, item: str, rest: str
) -> None:
    assert task_mention(message) == Mention(item, rest)


@pytest.mark.parametrize(
    "message",
    [
        # Area talk: a need that is no action, or an action naming a life area.
        "I need more time with family", "I need to spend more time with family",
        "I have to take care of my health", "надо больше спать", "нужно больше заниматься спортом",
        "oh and family too", "мне нужно больше времени для себя",
        # A reminder of nothing to do, and a lead-in alone.
        "Напомни мне, о чём мы говорили?", "не забыть про день рождения мамы", "remember to",
        # A list is the step's to read (`followup.task_list`), not one task.
        "I need to call mom, fix the sink and renew my passport",
        "hello", "i need to think about it",
        # Leaving, or saying: no errand ("go soon, can we be quick" was kept for the inbox).
        "I have to go soon, can we be quick?", "I have to go soon", "надо идти, давай быстрее",
        "I have to admit I'm nervous", "I need to ask, is this private?",
        "привет, мне надо понять, что это", "I need to understand how it works",
    ],
)  # fmt: skip
def test_area_talk_and_lists_are_no_task_said_in_passing(message: str) -> None:
    assert task_mention(message) is None


def test_a_task_said_with_the_greeting_is_kept_and_the_greeting_goes_on() -> None:
    # "hi, remember to call mom btw" got the greeting, and "call mom" was kept as a priority.
    out = run(turn("greeter", "hi, remember to call mom btw"))
    assert out.extracted_data == {"deferred_inbox_items": ["call mom"]}
    kept = texts.text("en", "task_kept", items="call mom")
    assert out.message == f"{kept}\n{texts.text('en', 'greeter_intro')}"
    assert not out.step_completed


def test_a_task_alone_to_the_greeter_asks_its_question_again() -> None:
    history = _asked("ru", "greeter_intro")
    out = run(turn("greeter", "не забыть оплатить интернет", history=history))
    assert out.extracted_data == {"deferred_inbox_items": ["оплатить интернет"]}
    kept = texts.text("ru", "task_kept", items="оплатить интернет")
    assert out.message == f"{kept}\nНачнём?"


def test_with_no_inbox_step_ahead_the_task_is_saved_now() -> None:
    out = run(turn("greeter", "hi, remember to call mom btw", inbox_ahead=False))
    assert out.extracted_data == {"inbox_items": ["call mom"]}
    assert out.message.startswith(texts.text("en", "noted", items="call mom"))


@pytest.mark.parametrize(
    ("message", "item"),
    [
        ("oh and fix the bike too 🚲", "fix the bike"),
        ("wait can you remind me tomorrow to call the vet?", "call the vet tomorrow"),
    ],
)
def test_a_task_said_to_discovery_is_kept_and_the_areas_are_asked_for_again(
    message: str, item: str
) -> None:
    # Answered "So far I have work, health ..." and "I did not quite get that.", and lost.
    missing = "relationships, growth, hobbies"
    history = _asked("en", "discovery_ask", missing=missing)
    out = run(turn("discovery", message, facts=TWO_AREAS, history=history))
    assert out.extracted_data == {"deferred_inbox_items": [item]}
    kept = texts.text("en", "task_kept", items=item)
    assert out.message == f"{kept} {texts.text('en', 'discovery_ask', missing=missing)}"


def test_a_task_said_at_the_summary_is_kept_and_asks_whether_the_summary_is_right() -> None:
    history = [{"role": "assistant", "text": texts.text("ru", "summary_header")}]
    out = run(turn("discovery", "ой, не забыть завтра позвонить врачу", facts=THREE_AREAS,
                   history=history))  # fmt: skip
    assert out.extracted_data == {"deferred_inbox_items": ["завтра позвонить врачу"]}
    kept = texts.text("ru", "task_kept", items="завтра позвонить врачу")
    assert out.message == f"{kept} {texts.text('ru', 'discovery_right')}"


def test_what_the_message_says_besides_the_task_is_said_to_discovery() -> None:
    out = run(turn("discovery", "Семья тоже важна. Надо позвонить маме", facts=TWO_AREAS))
    assert out.extracted_data["deferred_inbox_items"] == ["позвонить маме"]
    assert "relationships" in out.extracted_data["facts"]
    assert texts.text("ru", "summary_header") in out.message


@pytest.mark.parametrize(
    ("message", "area"),
    [
        ("I need more time with family", "relationships"),
        ("нужно больше заниматься спортом", "health"),
        ("надо больше спать", None),  # no area discovery knows: asked again, kept as nothing
    ],
)
def test_area_talk_at_discovery_is_no_task(message: str, area: str | None) -> None:
    out = run(turn("discovery", message, facts=TWO_AREAS))
    assert "deferred_inbox_items" not in out.extracted_data
    assert "inbox_items" not in out.extracted_data
    if area is not None:
        assert area in out.extracted_data["facts"]


def test_a_list_of_tasks_at_the_summary_is_kept_item_by_item() -> None:
    history = [{"role": "assistant", "text": texts.text("en", "summary_header")}]
    message = "I need to call mom and also fix the sink and pay rent"
    out = run(turn("discovery", message, facts=THREE_AREAS, history=history))
    assert out.extracted_data == {"deferred_inbox_items": ["call mom", "fix the sink", "pay rent"]}


def test_a_task_said_with_readiness_is_kept_and_the_greeting_closes() -> None:
    out = run(turn("greeter", "ok let's go, and remember to call mom", can_complete=True))
    assert out.step_completed
    assert out.extracted_data == {"deferred_inbox_items": ["call mom"]}
    assert out.message.startswith(texts.text("en", "task_kept", items="call mom") + "\n")


@pytest.mark.parametrize(
    ("message", "items"),
    [
        ("hi! I need to fix the sink and pay rent", ["fix the sink", "pay rent"]),
        ("Привет! Надо починить кран и заплатить за квартиру",
         ["починить кран", "заплатить за квартиру"]),
    ],
)  # fmt: skip
def test_two_tasks_joined_by_and_said_to_the_greeter_are_kept_item_by_item(
    message: str, items: list[str]
) -> None:
    # Read as one task said in passing, they were kept as one item ("fix the sink and pay
    # rent"); read as two, they were no list for the greeter (it looked for commas) and lost.
    out = run(turn("greeter", message))
    assert out.extracted_data == {"deferred_inbox_items": items}
