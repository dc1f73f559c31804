"""Discovery's conversation as a probe of the platform found it: the summary's yes, replies it
does not understand, questions about Baton, follow-up answers, and the step's last message."""

# ruff: noqa: RUF001  (Russian text is meant to be Cyrillic)

from __future__ import annotations

from typing import Any

import pytest

from baton_agent_runner.domain import language as lang
from baton_agent_runner.domain import texts
from baton_agent_runner.domain.scripted import Turn, run

FACTS = {"work": "w", "health": "h", "relationships": "r"}
LAST_MESSAGE = {"messages_in_step": 29, "max_messages": 30}


def _turn(agent: str, message: str, *said: str, **extra: Any) -> Turn:
    extra.setdefault("can_complete", True)
    extra.setdefault("language", lang.language_of(message))
    history = [{"role": "assistant", "text": reply} for reply in said]
    return Turn(agent=agent, current_step="s", message=message, history=history, **extra)


def _summary(language: str) -> str:
    named = "work, health, family" if language == "en" else "работа, здоровье, семья"
    return run(_turn("discovery", named, language=language)).message


@pytest.mark.parametrize(
    ("language", "message"),
    [
        ("en", "👍"), ("en", "❤️"), ("en", "👌"), ("en", "✅"), ("en", "👍🏻"), ("ru", "давай"),
        ("ru", "Давай!"), ("ru", "норм"), ("ru", "ну норм"), ("en", "lol ok"), ("en", "yep"),
        ("ru", "угу"), ("ru", "ага"), ("ru", "всё верно"), ("en", "sounds good"), ("en", "fine"),
        # A summary in one language confirmed in the other.
        ("en", "норм"), ("ru", "👍"),
        # "Всё хорошо" and the like got "I did not quite get that" and the question again.
        ("ru", "всё хорошо"), ("ru", "всё отлично"), ("ru", "всё норм"), ("ru", "всё супер"),
        ("ru", "Всё гуд"), ("ru", "агась"), ("ru", "хорошо"),
        # "y" and a typo of "верно" got "I did not quite get that".
        ("en", "y"), ("ru", "верна"),
    ],
)  # fmt: skip
def test_discovery_takes_common_yeses_to_its_summary_as_confirmation(
    language: str, message: str
) -> None:
    # The emoji, "давай" and "норм" got the whole summary again, then "I did not quite get
    # that" and the summary, for as long as the user went on.
    summary = _summary(language)
    out = run(_turn("discovery", message, summary, facts=FACTS, language=language))
    assert out.step_completed and out.completion_reason == "user_confirmed"
    assert out.message == texts.text(language, "discovery_done")


@pytest.mark.parametrize(
    "message", ["давай поменяем работу на проект", "👍 но не хобби?", "всё плохо"]
)
def test_a_yes_word_with_more_said_is_no_confirmation(message: str) -> None:
    out = run(_turn("discovery", message, _summary("ru"), facts=FACTS, language="ru"))
    assert not out.step_completed


@pytest.mark.parametrize("language", ["en", "ru"])
def test_discovery_asks_briefly_whether_its_summary_is_right_to_a_reply_it_does_not_get(
    language: str,
) -> None:
    # It showed the whole summary again, then "I did not quite get that" and the summary.
    summary, unclear = _summary(language), texts.text(language, "discovery_unclear_ask")
    right = texts.text(language, "discovery_right")
    first = run(_turn("discovery", "hmm", summary, facts=FACTS, language=language))
    assert first.message == f"{unclear} {right}" and not first.step_completed
    second = run(_turn("discovery", "hmm", summary, first.message, facts=FACTS, language=language))
    assert second.message == right
    third = run(_turn("discovery", "👍", first.message, second.message, facts=FACTS))
    assert third.step_completed  # "Is the summary above right?" takes a yes as the summary


@pytest.mark.parametrize(
    "message",
    ["go", "Go!", "ok go", "го", "норм, го", "норм го", "ладно го", "yes go", "нуу ладно",
     "Alright, I suppose we can begin.", "fine whatever, go", "bet", "паехали"],
)  # fmt: skip
def test_greeter_takes_go_alone_as_readiness(message: str) -> None:
    intro = texts.text(lang.language_of(message), "greeter_intro")
    out = run(_turn("greeter", message, intro))
    assert out.step_completed and out.completion_reason == "user_confirmed"


@pytest.mark.parametrize("message", ["where do I go?", "I have to go"])
def test_greeter_takes_no_go_in_a_sentence_as_readiness(message: str) -> None:
    assert not run(_turn("greeter", message, texts.text("en", "greeter_intro"))).step_completed


@pytest.mark.parametrize("message", ["не начинай", "хорошо, но подожди", "не хорошо"])
def test_greeter_takes_a_negated_or_put_off_yes_as_no_readiness(message: str) -> None:
    assert not run(_turn("greeter", message, texts.text("ru", "greeter_intro"))).step_completed


def test_discovery_takes_khorosho_to_its_summary_as_confirmation() -> None:
    out = run(_turn("discovery", "хорошо", _summary("ru"), facts=FACTS, language="ru"))
    assert out.step_completed and out.completion_reason == "user_confirmed"


@pytest.mark.parametrize(
    "message",
    [
        "давай", "Давай!", "ну давай",
        # "Хорошо", "начинай", "ну попробуем" got the greeter's explanation again.
        "хорошо", "Хорошо!", "валяй", "разумеется", "начинай", "Хорошо, продолжай", "ну попробуем",
    ],
)  # fmt: skip
def test_greeter_takes_davai_as_a_yes_to_its_question(message: str) -> None:
    out = run(_turn("greeter", message, texts.text("ru", "greeter_intro")))
    assert out.step_completed and out.completion_reason == "user_confirmed"


@pytest.mark.parametrize(
    ("language", "said", "missing"),
    [
        ("en", ["abc", "def", "ghi"], "health, relationships, growth"),
        ("ru", ["ну", "хм", "что"], "здоровье, отношения, развитие"),
    ],
)
def test_discovery_says_it_recognised_no_area_after_asking_twice_in_vain(
    language: str, said: list[str], missing: str
) -> None:
    # With two areas it took turns with "So far I have ..." and "Even something small counts"
    # for 16 turns in one probe, never saying that it understood no area.
    facts, replies = {"work": "w", "hobbies": "h"}, []
    for message in said:
        replies.append(run(_turn("discovery", message, *replies, facts=facts)).message)
    assert texts.text(language, "discovery_need_three") in replies[0]
    assert replies[1] == texts.text(language, "discovery_too_few_again", missing=missing)
    unrecognised = texts.text(language, "discovery_unrecognised", said=said[2], missing=missing)
    assert replies[2] == unrecognised
    out = run(_turn("discovery", "xyz", *replies, facts=facts, language=language))
    assert out.message == texts.text(
        language, "discovery_unrecognised", said="xyz", missing=missing
    )


def test_discovery_with_no_area_yet_says_it_recognised_none_after_asking_twice() -> None:
    replies = [texts.text("en", "greeter_done")]
    for message in ("abc", "def", "ghi"):
        replies.append(run(_turn("discovery", message, *replies)).message)
    missing = "work, health, relationships, growth, hobbies"
    assert replies[-1] == texts.text("en", "discovery_unrecognised", said="ghi", missing=missing)


def test_discovery_cuts_a_long_message_it_quotes() -> None:
    asked = texts.text("en", "discovery_too_few_again", missing="m")
    said = texts.text("en", "discovery_need_three")
    out = run(_turn("discovery", "a" * 60, said, asked, facts={"work": "w"}))
    assert f'"{"a" * 39}…"' in out.message


@pytest.mark.parametrize("language", ["en", "ru"])
def test_discovery_asks_nothing_on_the_steps_last_message(language: str) -> None:
    # The reply asked "Is that right?" and the service went on "That was the last message for
    # this step, so we are moving on".
    summary = _summary(language)
    out = run(_turn("discovery", "hmm", summary, facts=FACTS, language=language, step=LAST_MESSAGE))
    assert (
        not out.message.endswith("?")
        and texts.text(language, "summary_question") not in out.message
    )
    assert out.message.startswith(texts.text(language, "summary_header"))
    few = run(_turn("discovery", "abc", facts={"work": "w"}, language=language, step=LAST_MESSAGE))
    name = lang.AREA_NAMES[language]["work"]  # type: ignore[index]
    assert few.message == texts.text(language, "discovery_too_few", known=name)
    none = run(_turn("discovery", "abc", language=language, step=LAST_MESSAGE))
    assert none.message == texts.text(language, "discovery_none_kept")
    asked = texts.text(language, "discovery_ask_constraints")
    answer = run(
        _turn("discovery", "time", asked, facts=FACTS, language=language, can_complete=False,
              step=LAST_MESSAGE)
    )  # fmt: skip
    assert answer.message == texts.text(language, "discovery_thanks")


@pytest.mark.parametrize(
    ("message", "topic"),
    [("wait who sees this data?", "data"), ("А вы кому-нибудь передаёте мои данные?", "data"),
     ("how long does this take?", "how_long"), ("а это бесплатно?", "cost")],
)  # fmt: skip
def test_discovery_answers_a_question_about_baton_then_asks_again(message: str, topic: str) -> None:
    # "I did not quite get that." and "Пока в списке..." answered them.
    language = lang.language_of(message)
    answer = texts.text(language, f"faq_{topic}")
    missing = ", ".join(lang.AREA_NAMES[language][a] for a in ("health", "relationships", "growth"))
    asked = texts.text(language, "discovery_ask", missing=missing)
    out = run(_turn("discovery", message, asked, facts={"work": "w", "hobbies": "h"}))
    assert out.message == f"{answer} {asked}" and out.extracted_data == {}
    summary = _summary(language)
    at_summary = run(_turn("discovery", message, summary, facts=FACTS))
    assert at_summary.message == f"{answer} {texts.text(language, 'discovery_right')}"
    focus = texts.text(language, "discovery_ask_focus")
    follow_up = run(_turn("discovery", message, focus, facts=FACTS, can_complete=False))
    assert follow_up.message == f"{answer} {focus}" and follow_up.extracted_data == {}


def test_the_greeter_and_discovery_give_the_same_answer() -> None:
    greeter = run(_turn("greeter", "who can see my data?")).message
    assert greeter.startswith(texts.text("en", "faq_data"))
    assert greeter.endswith("Ready to start?")


@pytest.mark.parametrize(
    ("language", "message"),
    [("en", "money tbh"), ("ru", "деньги, если честно"), ("en", "family stuff and money")],
)
def test_an_answer_to_what_holds_you_back_is_a_note_only(language: str, message: str) -> None:
    # "money tbh" was kept as a note and as a fourth priority, finances, unsaid.
    asked = texts.text(language, "discovery_ask_constraints")
    out = run(_turn("discovery", message, asked, facts=FACTS, can_complete=False))
    assert out.extracted_data == {"notes": {"constraints": message}}
    assert out.message.startswith(texts.text(language, "discovery_thanks"))


@pytest.mark.parametrize(
    "message", ["time; and finances matter to me too", "время, и добавь финансы в приоритеты"]
)
def test_a_new_area_said_to_be_a_priority_in_a_follow_up_answer_is_kept(message: str) -> None:
    asked = texts.text(lang.language_of(message), "discovery_ask_constraints")
    out = run(_turn("discovery", message, asked, facts=FACTS, can_complete=False))
    assert set(out.extracted_data["facts"]) == {"finances"}


@pytest.mark.parametrize("inbox_ahead", [True, False])
@pytest.mark.parametrize(
    "message",
    ["buy groceries", "pay the electricity bill", "finishing the deck", "купить продукты"],
)
def test_a_task_said_to_the_summary_question_is_kept_and_the_question_asked_again(
    message: str, inbox_ahead: bool
) -> None:
    # It got "(I did not quite get that.) Is the summary above right?", and the task was lost.
    summary, right = _summary("en"), texts.text("en", "discovery_right")
    for last in (summary, f"{texts.text('en', 'discovery_unclear_ask')} {right}"):
        out = run(
            _turn("discovery", message, last, facts=FACTS, language="en", inbox_ahead=inbox_ahead)
        )
        key = "deferred_inbox_items" if inbox_ahead else "inbox_items"
        assert out.extracted_data == {key: [message]}
        assert out.message.endswith(right) and message in out.message
        assert not out.message.startswith(texts.text("en", "discovery_unclear_ask"))


@pytest.mark.parametrize("message", ["thx thats all", "thanks, that's all", "that's all", "всё"])
def test_thanks_and_thats_all_to_the_summary_confirm_it(message: str) -> None:
    out = run(_turn("discovery", message, _summary("en"), facts=FACTS, language="en"))
    assert out.step_completed and out.completion_reason == "user_confirmed"


@pytest.mark.parametrize("message", ["hmm", "swap the last two", "no"])
def test_no_task_is_kept_of_a_reply_to_the_summary_that_is_none(message: str) -> None:
    out = run(_turn("discovery", message, _summary("en"), facts=FACTS, language="en"))
    assert not out.extracted_data.get("deferred_inbox_items")
    assert not out.extracted_data.get("inbox_items")


@pytest.mark.parametrize(
    "message",
    [
        "Привет! А что это вообще такое?",
        "Привет! А что это вообще такое и зачем оно мне?",
        "зачем оно мне?",
        "Привет, а зачем это?",
    ],
)
def test_greeter_explains_itself_to_what_is_this_asked_in_russian(message: str) -> None:
    # They got only the plain greeting; "what is this for exactly?" got "Put simply: ...".
    out = run(_turn("greeter", message))
    assert out.message == texts.text("ru", "greeter_explain")
    assert not out.step_completed


@pytest.mark.parametrize(
    "message",
    [
        "hey, my coworker recommended this",
        "my friend told me about this app",
        "my wife suggested I try this",
        "Привет, мне коллега посоветовала",
        "подруга рассказала про это приложение",
        "посоветовал друг",
        # A therapist or a doctor who recommended it was kept as growth, or as health.
        "hi, my therapist recommended this app",
        "um hi? my therapist suggested i try something like this",
        "мне психолог посоветовала",
        "my doctor told me about this",
        "Дочка посоветовала это приложение",
    ],
)
def test_who_recommended_baton_names_no_priority(message: str) -> None:
    # "hey, my coworker recommended this" was saved as work ("Great, I have noted it: work.").
    assert lang.areas_in(message) == {}
    out = run(_turn("greeter", message))
    assert "facts" not in out.extracted_data


def test_a_priority_said_beside_who_recommended_baton_is_still_one() -> None:
    said = "hi! a colleague recommended it. work is my main priority"
    assert set(lang.areas_in(said)) == {"work"}
    assert set(lang.areas_in("I want more time with friends")) == {"relationships"}


@pytest.mark.parametrize(
    ("language", "message", "area", "fact"),
    [
        ("en", "no, not finances, replace it with health", "health", "health"),
        ("en", "not finances, health instead", "health", "health"),
        ("en", "no, not finances, health,, instead!", "health", "health"),
        ("ru", "нет, не финансы, здоровье, вместо этого", "health", "здоровье"),
        ("ru", "нет, убери финансы, лучше здоровье", "health", "здоровье"),
        ("ru", "нет, замени на здоровье", "health", "здоровье"),
    ],
)
def test_a_correction_keeps_the_area_it_swaps_in_without_its_command_words(
    language: str, message: str, area: str, fact: str
) -> None:
    # "replace it with health", "лучше здоровье" were stored as the facts.
    facts = {"work": "w", "relationships": "r", "finances": "f"}
    out = run(_turn("discovery", message, _summary(language), facts=facts, language=language))
    assert out.extracted_data["facts"] == {area: fact}


def test_better_health_said_alone_keeps_its_words() -> None:
    assert lang.areas_in("лучше здоровье") == {"health": "лучше здоровье"}


@pytest.mark.parametrize(
    ("language", "message", "asked", "updated"),
    [
        ("ru", "работа — мой стартап", "Записал. Что скажешь о других областях: здоровье, "
         "отношения, развитие, хобби?", "Обновил: работа."),
        ("en", "work is my startup", "Noted. What about the other areas: health, relationships, "
         "growth, hobbies?", "Updated: work."),
    ],
)  # fmt: skip
def test_a_known_area_told_again_is_said_to_be_updated_not_misunderstood(
    language: str, message: str, asked: str, updated: str
) -> None:
    # "I did not quite get that" before "Noted. ..." though the fact was kept.
    facts = {"work": "работа" if language == "ru" else "work"}
    out = run(_turn("discovery", message, asked, facts=facts, language=language,
                    can_complete=False))  # fmt: skip
    # "work is my startup" keeps what work is, as "work means my startup" does.
    kept = message.removeprefix("work is ")
    assert out.extracted_data == {"facts": {"work": kept}}
    assert out.message.startswith(updated), out.message


@pytest.mark.parametrize(
    ("message", "areas"),
    [
        (
            "Hi. I work as a nurse and my kids keep me busy. Not sure I understand how this "
            "works though.",
            {"work", "relationships"},
        ),
        (
            "Работаю врачом, семья на первом месте. Я не очень понимаю, что это?",
            {"work", "relationships"},
        ),
    ],
)
def test_areas_said_beside_confusion_are_kept(message: str, areas: set[str]) -> None:
    # The greeter explained itself and kept none; its closing then said "You named work,
    # relationships" and discovery asked for them again.
    out = run(_turn("greeter", message))
    assert out.message == texts.text(lang.language_of(message), "greeter_explain")
    assert set(out.extracted_data["facts"]) == areas
