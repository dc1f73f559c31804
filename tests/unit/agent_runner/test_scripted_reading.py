"""How the scripted agents read a message: negation, life areas, brain dump items, off-topic
inbox requests, and the reply's language."""

# ruff: noqa: RUF001  (Russian text is meant to be Cyrillic)

from __future__ import annotations

import pytest

from baton_agent_runner.domain import brain_dump, finishing, inbox_requests, readiness
from baton_agent_runner.domain import language as lang


@pytest.mark.parametrize(
    "message",
    ["Я пока не готов, подожди", "I'm not ready yet", "Нет, не готов", "not ok", "Подожди"],
)
def test_a_negated_readiness_word_is_not_readiness(message: str) -> None:
    assert not readiness.is_ready(message) and readiness.is_not_ready(message)


@pytest.mark.parametrize(
    "message", ["Мне не понятно", "не совсем понятно", "I don't get it", "not sure", "неясно"]
)
def test_a_negated_understanding_word_is_confusion(message: str) -> None:
    assert readiness.is_confused(message) and not readiness.is_ready(message)


@pytest.mark.parametrize(
    "message", ["Понял, поехали", "Не вопрос, давай", "Почему бы и нет, поехали", "Я готова"]
)
def test_a_negation_in_another_clause_leaves_readiness_alone(message: str) -> None:
    assert readiness.is_ready(message)


@pytest.mark.parametrize(
    "message",
    [
        "Вопросов пока нет, поехали",
        "Пока нет вопросов, давай начнём",
        "Нет вопросов поехали",
        "не знаю давай",
        "Не вопрос давай",
        "I don't know lets go",
        "Let's go, can't wait!",
        "I can't wait to start, let's go",
        "I'm not sure, but let's go",
    ],
)
def test_readiness_is_heard_past_no_questions_and_other_negated_words(message: str) -> None:
    assert readiness.is_ready(message) and not readiness.is_not_ready(message)


@pytest.mark.parametrize("message", ["Вопросов пока нет", "Вопросов нет", "no questions"])
def test_no_questions_is_a_calm_answer(message: str) -> None:
    assert not (
        readiness.is_ready(message)
        or readiness.is_not_ready(message)
        or readiness.is_confused(message)
    )


@pytest.mark.parametrize(
    "message",
    ["I'm not quite ready", "not yet ready", "I don't think I'm ready", "Понял, но подожди"],
)
def test_a_softened_negation_or_a_later_plea_to_wait_is_not_readiness(message: str) -> None:
    assert readiness.is_not_ready(message)


@pytest.mark.parametrize(
    "message",
    ["Нет, это не правильно", "Не совсем верно", "No, that's not right", "да нет", "нет"],
)
def test_a_negated_confirmation_is_a_denial(message: str) -> None:
    assert not lang.confirms(message) and lang.denies(message)


@pytest.mark.parametrize(
    "message",
    ["не верно", "not right", "wrong", "нет, это не так", "Не всё верно", "No, change it"],
)
def test_a_denial_stays_a_denial(message: str) -> None:
    assert not lang.confirms(message) and lang.denies(message)


@pytest.mark.parametrize("message", ["да, верно", "Всё так", "yes, that's right", "correct!"])
def test_a_plain_confirmation_confirms(message: str) -> None:
    assert lang.confirms(message) and not lang.denies(message)


@pytest.mark.parametrize(
    "message",
    [
        "Нет, всё верно",
        "No, that's right",
        "Нет, всё так",
        "Yes, nothing wrong",
        "Nothing wrong",
        "Ничего не нужно менять",
        "Да, ничего менять не надо",
    ],
)
def test_a_no_that_goes_on_to_confirm_is_a_confirmation(message: str) -> None:
    assert lang.confirms(message) and not lang.denies(message)


@pytest.mark.parametrize(
    "message", ["просто", "transport", "персональный", "homework", "Здорово!", "семьдесят"]
)
def test_a_stem_inside_another_word_is_no_life_area(message: str) -> None:
    assert lang.areas_in(message) == {}


@pytest.mark.parametrize(
    ("message", "areas"),
    [
        ("У меня нет хобби", set()), ("Хобби у меня нет", set()), ("Семьи нет", set()),
        ("No hobbies really", set()), ("I don't have any hobbies", set()),
        ("I have no time for hobbies", set()), ("Работа не важна", set()),
        ("Work isn't a priority right now", set()), ("Работа меня не волнует", set()),
        ("I don't care about work", set()), ("Мне не важна работа", set()),
        ("Не работа, а здоровье", {"health"}), ("Главное — не работа, а семья", {"relationships"}),
        ("Работа важна, а хобби нет", {"work"}), ("Я не работаю, учусь", {"growth"}),
        # A "no" answering the summary, or a negation of another word, leaves the area alone.
        ("No, work means my startup", {"work"}), ("Нет, работа — это мой стартап", {"work"}),
        ("Не могу без спорта", {"health"}), ("Нет ничего важнее семьи", {"relationships"}),
        ("Мне не хватает сна", {"health"}),
        ("не только работа, но и семья", {"work", "relationships"}),
        ("Work is important, I can't neglect it", {"work"}),
        # Spoken "нету" is "нет": "хобби нету" was saved as a hobby.
        ("хобби нету", set()), ("у меня нету хобби", set()),
        ("хобби нету, а работа важна", {"work"}),
    ],
)  # fmt: skip
def test_an_area_said_not_to_matter_is_no_priority(message: str, areas: set[str]) -> None:
    assert set(lang.areas_in(message)) == areas


@pytest.mark.parametrize(
    ("message", "declined", "named"),
    [
        # Each was saved as a priority, counting towards the three areas that close discovery.
        ("hobbies do not matter", {"hobbies"}, set()), ("Work does not matter", {"work"}, set()),
        ("хобби неважны", {"hobbies"}, set()), ("Работа неважна", {"work"}, set()),
        ("Спорт неважен", {"health"}, set()), ("Спорт не важен", {"health"}, set()),
        ("Work means nothing to me", {"work"}, set()), ("Work means nothing", {"work"}, set()),
        ("Hobbies mean nothing to me", {"hobbies"}, set()),
        ("Хобби ничего не значат", {"hobbies"}, set()),
        ("Хобби для меня ничего не значат", {"hobbies"}, set()),
        ("Работа ничего не значит", {"work"}, set()),
        ("work is the least important", {"work"}, set()), ("work matters least", {"work"}, set()),
        ("Работа наименее важна", {"work"}, set()),
        ("Работа — это не важно", {"work"}, set()), ("Работа — это неважно", {"work"}, set()),
        ("Работа для меня не главное", {"work"}, set()),
        ("Работа — это не главное", {"work"}, set()),
        ("Family matters most, work means nothing to me", {"work"}, {"relationships"}),
        ("Для меня важна семья, хобби неважны", {"hobbies"}, {"relationships"}),
    ],
)  # fmt: skip
def test_an_area_said_to_mean_nothing_or_to_matter_least_is_declined(
    message: str, declined: set[str], named: set[str]
) -> None:
    assert lang.declined_areas(message) == declined
    assert set(lang.areas_in(message)) == named


@pytest.mark.parametrize(
    ("message", "declined", "named"),
    [
        # Only the last area of the listing was declined: the others were saved as priorities.
        ("Hobbies and work don't matter", {"hobbies", "work"}, set()),
        ("work and hobbies are not important to me", {"work", "hobbies"}, set()),
        ("Work and hobbies mean nothing to me", {"work", "hobbies"}, set()),
        ("Work or hobbies don't matter", {"work", "hobbies"}, set()),
        ("Family matters most; work and hobbies don't matter", {"work", "hobbies"},
         {"relationships"}),
        ("Family matters most, work and hobbies don't matter", {"work", "hobbies"},
         {"relationships"}),
        ("Хобби и спорт не важны", {"hobbies", "health"}, set()),
        ("Хобби и работа неважны", {"hobbies", "work"}, set()),
        ("Для меня работа и хобби не важны", {"work", "hobbies"}, set()),
        ("Работа, здоровье и хобби для меня не главное", {"work", "health", "hobbies"}, set()),
        ("Работа и хобби — нет", {"work", "hobbies"}, set()),
        # With the Oxford comma, ", and" was read as a new clause: work and health were saved.
        ("Work, health, and hobbies don't matter", {"work", "health", "hobbies"}, set()),
        ("For me work, health, and hobbies don't matter", {"work", "health", "hobbies"}, set()),
        ("Работа, здоровье, и хобби не важны", {"work", "health", "hobbies"}, set()),
        # "neither" and "nor" were read as no negation: both areas were saved.
        ("neither work nor hobbies matter", {"work", "hobbies"}, set()),
        ("Neither my job nor my hobbies matter to me", {"work", "hobbies"}, set()),
        ("I care about neither work nor hobbies", {"work", "hobbies"}, set()),
        # A negation that ends its phrase leaves out what it negates: hobbies were saved.
        ("Work and health matter, hobbies don't", {"hobbies"}, {"work", "health"}),
        ("Family and friends matter, work doesn't", {"work"}, {"relationships"}),
    ],
)  # fmt: skip
def test_a_negation_after_a_listing_declines_each_area_listed(
    message: str, declined: set[str], named: set[str]
) -> None:
    assert lang.declined_areas(message) == declined
    assert set(lang.areas_in(message)) == named


@pytest.mark.parametrize(
    ("message", "declined", "named"),
    [
        # The "нет" was the first area's alone: sport was saved as a priority.
        ("У меня нет хобби и спорта", {"hobbies", "health"}, set()),
        ("нет хобби и спорта", {"hobbies", "health"}, set()),
        ("У меня нет хобби, спорта и работы", {"hobbies", "health", "work"}, set()),
        ("I have no hobbies or sport", {"hobbies", "health"}, set()),
        ("I don't have hobbies or sport", {"hobbies", "health"}, set()),
        ("Мне не важна работа и здоровье", {"work", "health"}, set()),
        ("Убери хобби и спорт", {"hobbies", "health"}, set()),
        # Scratched, or replaced by another area (each kept the area as said).
        ("no, scratch hobbies", {"hobbies"}, set()),
        ("вместо хобби — учёба", {"hobbies"}, {"growth"}),
        ("instead of hobbies, learning", {"hobbies"}, {"growth"}),
        # Not past a word of the second area's own, a comma alone, or a negation of a verb.
        ("У меня нет хобби и спорт важен", {"hobbies"}, {"health"}),
        ("Нет хобби, и спорт важен", {"hobbies"}, {"health"}),
        ("нет хобби и спорта, работа", {"hobbies", "health"}, {"work"}),
        ("Я не работаю и учусь", {"work"}, {"growth"}),
        ("Нет, работа и здоровье", set(), {"work", "health"}),
        ("Не забудь про работу и спорт", set(), {"work", "health"}),
    ],
)  # fmt: skip
def test_a_no_before_a_listing_declines_each_area_listed_bare_after_it(
    message: str, declined: set[str], named: set[str]
) -> None:
    assert lang.declined_areas(message) == declined
    assert set(lang.areas_in(message)) == named


@pytest.mark.parametrize(
    ("message", "declined", "named"),
    [
        # Each "ни" declines its own area; a negation before one area is that area's alone.
        ("Ни работа, ни хобби меня не волнуют", {"work", "hobbies"}, set()),
        ("Ни работа ни хобби не важны", {"work", "hobbies"}, set()),
        ("I have work and no hobbies", {"hobbies"}, {"work"}),
        ("Work and family, not hobbies", {"hobbies"}, {"work", "relationships"}),
        # A contrast, a comma alone, or a comma after the joining word ends the listing.
        ("Работа важна, а хобби нет", {"hobbies"}, {"work"}),
        ("Работа, хобби нет", {"hobbies"}, {"work"}),
        ("Работа, но хобби не важны", {"hobbies"}, {"work"}),
        ("Работа и здоровье, хобби нет", {"hobbies"}, {"work", "health"}),
        # ", and" after an area that says its own opens a clause of its own.
        ("I love work, and hobbies don't matter", {"hobbies"}, {"work"}),
        ("Work is fine, health too, and hobbies don't matter", {"hobbies"}, {"work", "health"}),
        # An area with words of its own before it is no bare one.
        ("I love work and hobbies don't matter", {"hobbies"}, {"work"}),
        ("Я люблю работу и спорт и хобби не важны", {"hobbies"}, {"work", "health"}),
        # A negation of another word declines nothing.
        ("Work and sport don't go together", set(), {"work", "health"}),
        ("My job and my family don't leave time for hobbies", set(),
         {"work", "relationships", "hobbies"}),
        ("Work and hobbies, I don't know", set(), {"work", "hobbies"}),
    ],
)  # fmt: skip
def test_a_negation_after_a_listing_leaves_the_areas_it_is_not_said_of(
    message: str, declined: set[str], named: set[str]
) -> None:
    assert lang.declined_areas(message) == declined
    assert set(lang.areas_in(message)) == named


@pytest.mark.parametrize(
    "message",
    [
        # How it goes, not whether it matters: a poor night's sleep is a priority.
        "Сон неважный", "Со сном у меня неважно", "Высыпаюсь неважно",
        # What work is, not that it means nothing; and an area said to matter.
        "Work means nothing but stress", "Работа — это не только деньги", "hobbies do matter",
        "Работа для меня главное", "Нет, это работа", "Work means a lot to me",
        "Family means everything to me",
    ],
)  # fmt: skip
def test_an_area_whose_words_only_look_like_not_mattering_is_named(message: str) -> None:
    assert lang.areas_in(message) and not lang.declined_areas(message)


@pytest.mark.parametrize(
    ("message", "areas"),
    [
        ("Я много работаю", {"work"}),
        ("Мне не хватает сна и спорта", {"health"}),
        ("Время с семьёй и друзьями", {"relationships"}),
        ("Занимаюсь спортом, сном", {"health"}),
        ("Хочу роста", {"growth"}),
        ("studying, and my friends", {"growth", "relationships"}),
        ("sports; my job", {"health", "work"}),
        ("музыкой", {"hobbies"}),
        ("My workload, my health and my girlfriend", {"work", "health", "relationships"}),
        ("career, fitness, boyfriend", {"work", "health", "relationships"}),
        ("Подработка, сон, семья", {"work", "health", "relationships"}),
        ("My workplace, health, friendships", {"work", "health", "relationships"}),
        ("my coworkers, my workouts", {"work", "health"}),
        # Russian words that went unheard, as "girlfriend", "gym", "learn" are heard.
        ("девушка, бег, учу английский", {"relationships", "health", "growth"}),
        ("мой парень", {"relationships"}),
        ("время с парнем", {"relationships"}),
        ("йога и качалка", {"health"}),
        ("пробежки по утрам", {"health"}),
        ("зарплата", {"work"}),
    ],
)
def test_life_areas_are_found_at_word_starts_with_their_inflections(
    message: str, areas: set[str]
) -> None:
    assert set(lang.areas_in(message)) == areas


@pytest.mark.parametrize(
    ("message", "facts"),
    [
        (
            "Работа, здоровье и семья",
            {"work": "Работа", "health": "здоровье", "relationships": "семья"},
        ),
        (
            "My workload, my health and my girlfriend",
            {"work": "My workload", "health": "my health", "relationships": "my girlfriend"},
        ),
        ("не только работа, но и семья", {"work": "не только работа", "relationships": "семья"}),
        ("работа/учёба", {"work": "работа", "growth": "учёба"}),
        (
            "Работа — мой стартап, здоровье — бегаю по утрам",
            {"work": "Работа — мой стартап", "health": "здоровье — бегаю по утрам"},
        ),
        # The first area's dash comes before it: still two clauses, not one shared.
        (
            "Самое важное — работа, здоровье — бегаю",
            {"work": "Самое важное — работа", "health": "здоровье — бегаю"},
        ),
        (
            "Most important - my job, health - walks",
            {"work": "Most important - my job", "health": "health - walks"},
        ),
        # Where what follows the second dash names its area too, each dash is a label's, and
        # the lead-in before the first is no part of the fact (as with "health - yoga").
        (
            "Most important - my job, health - running",
            {"work": "my job", "health": "health - running"},
        ),
        # A lead-in saying they all matter is no area's; a declined area takes its part away.
        ("Для меня важны работа и здоровье", {"work": "работа", "health": "здоровье"}),
        ("Работа и здоровье, хобби нет", {"work": "Работа", "health": "здоровье"}),
        # One area named twice keeps the whole clause.
        ("Время с семьёй и друзьями", {"relationships": "Время с семьёй и друзьями"}),
        # What the last area goes on with is its own: every area was saved as the listing.
        (
            "career, fitness, friends, and learning spanish",
            {"work": "career", "health": "fitness", "relationships": "friends",
             "growth": "learning spanish"},
        ),
        ("работа и изучение английского", {"work": "работа", "growth": "изучение английского"}),
        # Area words without commas, each its own area (each was saved as the whole message).
        (
            "работа здоровье семья",
            {"work": "работа", "health": "здоровье", "relationships": "семья"},
        ),
        ("work health family.", {"work": "work", "health": "health", "relationships": "family"}),
        ("спорт сон", {"health": "спорт сон"}),
        # A list on one line, numbered or bulleted: each entry its own (each area was saved
        # as the whole line, or with the next entry's number: "работа 2").
        (
            "1) работа 2) учёба 3) увлечения",
            {"work": "работа", "growth": "учёба", "hobbies": "увлечения"},
        ),
        (
            "1. работа 2. здоровье 3. семья",
            {"work": "работа", "health": "здоровье", "relationships": "семья"},
        ),
        (
            "- work - health - family",
            {"work": "work", "health": "health", "relationships": "family"},
        ),
        (
            "• работа • семья • спорт",
            {"work": "работа", "relationships": "семья", "health": "спорт"},
        ),
        # A dash that says what an area is parts nothing.
        (
            "- работа - мой стартап, здоровье - бегаю",
            {"work": "работа - мой стартап", "health": "здоровье - бегаю"},
        ),
    ],
)  # fmt: skip
def test_each_area_a_clause_lists_gets_its_own_part_of_it(
    message: str, facts: dict[str, str]
) -> None:
    assert lang.areas_in(message) == facts


@pytest.mark.parametrize(
    ("message", "facts"),
    [
        # The predicate was the last area's alone: work was saved as "работа", "work".
        ("работа и здоровье важнее всего", dict.fromkeys(("work", "health"),
         "работа и здоровье важнее всего")),
        ("Работа, здоровье и семья — вот что главное", dict.fromkeys(
         ("work", "health", "relationships"), "Работа, здоровье и семья — вот что главное")),
        ("work and health matter most", dict.fromkeys(("work", "health"),
         "work and health matter most")),
        ("My job and my family come first", dict.fromkeys(("work", "relationships"),
         "My job and my family come first")),
        ("I care about work and health the most", dict.fromkeys(("work", "health"),
         "I care about work and health the most")),
        ("family and friends mean everything to me", {"relationships":
         "family and friends mean everything to me"}),
        ("work and sport mean everything to me", dict.fromkeys(("work", "health"),
         "work and sport mean everything to me")),
        # Only the areas listed bare before it share it; one that says its own keeps that.
        ("Работа — мой стартап, здоровье и семья важнее всего",
         {"work": "Работа — мой стартап", "health": "здоровье и семья важнее всего",
          "relationships": "здоровье и семья важнее всего"}),
        ("Work, health and family matter most, hobbies less",
         {**dict.fromkeys(("work", "health", "relationships"),
                          "Work, health and family matter most"), "hobbies": "hobbies less"}),
        ("Work, health, and family matter most", dict.fromkeys(
         ("work", "health", "relationships"), "Work, health, and family matter most")),
        # A "no" after the last area is its own, not the others'.
        ("Работа и здоровье, хобби нет", {"work": "Работа", "health": "здоровье"}),
        ("work and health, hobbies don't matter", {"work": "work", "health": "health"}),
        ("work and health, hobbies mean nothing to me", {"work": "work", "health": "health"}),
        ("Работа и здоровье, хобби неважны", {"work": "Работа", "health": "здоровье"}),
    ],
)  # fmt: skip
def test_areas_listed_before_what_they_share_each_get_it(
    message: str, facts: dict[str, str]
) -> None:
    assert lang.areas_in(message) == facts


@pytest.mark.parametrize(
    ("message", "facts"),
    [
        ("Для меня важны карьера, здоровье и семья",
         {"work": "карьера", "health": "здоровье", "relationships": "семья"}),
        ("What matters to me is career, health and family",
         {"work": "career", "health": "health", "relationships": "family"}),
        ("For me it's career, health, family",
         {"work": "career", "health": "health", "relationships": "family"}),
        ("Меня волнуют работа и здоровье", {"work": "работа", "health": "здоровье"}),
        ("My priorities are my work, health and family",
         {"work": "my work", "health": "health", "relationships": "family"}),
        ("Для меня важнее всего работа и здоровье", {"work": "работа", "health": "здоровье"}),
        # Words that say something of the first area alone stay with it.
        ("Много работы, мало сна и семья",
         {"work": "Много работы", "health": "мало сна", "relationships": "семья"}),
        ("Мне нужна новая работа и здоровье", {"work": "Мне нужна новая работа",
                                              "health": "здоровье"}),
        ("Мне нужно больше спорта, работа и семья",
         {"health": "Мне нужно больше спорта", "work": "работа", "relationships": "семья"}),
        ("Самое важное — работа, потом здоровье",
         {"work": "Самое важное — работа", "health": "здоровье"}),
        ("What matters most to me is career, then health",
         {"work": "What matters most to me is career", "health": "health"}),
        # One area: the clause is its fact, as said.
        ("Для меня важна карьера", {"work": "Для меня важна карьера"}),
    ],
)  # fmt: skip
def test_a_lead_in_to_a_listing_is_no_part_of_its_first_area(
    message: str, facts: dict[str, str]
) -> None:
    # "Для меня важны карьера, здоровье и семья" saved work as "Для меня важны карьера".
    assert lang.areas_in(message) == facts


@pytest.mark.parametrize(
    "message",
    [
        "Это всё, спасибо!",
        "Больше ничего нет",
        "That's all for now",
        "готово!",
        "Это всё, что я помню",
        "That's all, thank you so much!",
        "Done, that's it",
        "Всё. Хотя нет, всё",
        "That's it",
        "that's it for today, thanks",
        "Это всё? Да, всё.",
        "Ничего больше", "That's everything", "I'm finished", "Ну, на этом всё",
    ],
)  # fmt: skip
def test_a_completion_phrase_in_a_line_is_done_and_no_item(message: str) -> None:
    assert brain_dump.says_done(message) and brain_dump.split_items(message) == []


@pytest.mark.parametrize(
    "message",
    [
        "Пожалуй, это всё", "Кажется, всё", "Наверное, всё", "Well, that's all",
        "I guess, that's it",
        # An opener before it: "в общем, всё" saved "в общем"; "в общем всё" was an item.
        "в общем, всё", "значит, всё", "в общем всё", "короче всё",
    ],
)  # fmt: skip
def test_a_hedge_before_a_completion_phrase_is_no_item(message: str) -> None:
    # "Пожалуй" on its own is no thought to put in the inbox.
    assert brain_dump.says_done(message) and brain_dump.split_items(message) == []


@pytest.mark.parametrize(
    ("message", "items"),
    [
        ("Всё, что нужно для отпуска: купить билеты", ["купить билеты"]),
        ("Done - pay rent", ["pay rent"]),
        ("Всё. Хотя нет, ещё купить хлеб", ["купить хлеб"]),
        ("Готово, отправить отчёт", ["отправить отчёт"]),
        ("это всё\nкупить хлеб", ["купить хлеб"]),
        ("Всё. Хотя нет", []),
    ],
)
def test_an_item_or_a_second_thought_after_a_completion_phrase_is_not_done(
    message: str, items: list[str]
) -> None:
    assert brain_dump.split_items(message) == items and not brain_dump.says_done(message)


@pytest.mark.parametrize(
    ("message", "items"),
    [
        ("Больше ничего, кроме отчёта", ["отчёта"]),
        ("Больше ничего кроме отчёта", ["отчёта"]),
        ("Больше ничего нет, кроме как позвонить маме", ["позвонить маме"]),
        ("Это всё, разве что купить хлеб", ["купить хлеб"]),
        ("Кроме отчёта, больше ничего", ["отчёта"]),
        ("That's it, except renew passport", ["renew passport"]),
        ("That's all except for renewing my passport", ["renewing my passport"]),
        ("Nothing else apart from the dentist", ["the dentist"]),
        ("Except renew passport, that's it", ["renew passport"]),
    ],
)
def test_an_exception_to_a_completion_phrase_is_its_last_item_and_done(
    message: str, items: list[str]
) -> None:
    # "Nothing else but the report": the report is saved, without its "кроме", and the user
    # has said that it is all.
    assert brain_dump.split_items(message) == items and brain_dump.says_done(message)


def test_an_exception_inside_an_item_stays_in_it() -> None:
    message = "купить всё кроме молока"
    assert brain_dump.split_items(message) == [message] and not brain_dump.says_done(message)


def test_an_item_before_an_asked_completion_phrase_is_kept_and_not_done() -> None:
    message = "купить хлеб, всё?"
    assert brain_dump.split_items(message) == ["купить хлеб"] and not brain_dump.says_done(message)


def test_a_completion_phrase_after_the_last_item_is_done() -> None:
    message = "Всё. Хотя нет, ещё купить хлеб. Вот теперь всё"
    assert brain_dump.split_items(message) == ["купить хлеб"] and brain_dump.says_done(message)


@pytest.mark.parametrize(
    "message",
    [
        "А что именно писать?", "ок", "хорошо", "давай", "ok", "sure", "хорошо, давай",
        # Asking whether that is all does not say it is.
        "Всё?", "Это всё?", "Is that all?", "That's it?", "Это всё, что нужно?",
    ],
)  # fmt: skip
def test_a_question_or_an_acknowledgement_is_no_item(message: str) -> None:
    assert brain_dump.split_items(message) == [] and not brain_dump.says_done(message)


@pytest.mark.parametrize(
    ("message", "asks"),
    [
        ("what happens to these?", True), ("что будет с этими задачами?", True),
        ("купить хлеб\n- И куда это всё потом?", True), ("Ok. And then what?", True),
        # Asking whether that is all, or no question.
        ("Всё?", False), ("Is that all?", False), ("Это всё, что нужно?", False),
        ("Are we done?", False), ("Это всё? Да, всё.", False), ("купить хлеб", False),
    ],
)  # fmt: skip
def test_a_question_is_told_from_asking_whether_that_is_all(message: str, asks: bool) -> None:
    assert brain_dump.asks(message) is asks


@pytest.mark.parametrize(
    ("message", "items"),
    [
        ("купить хлеб. А что дальше", ["купить хлеб"]),
        ("buy milk, and what happens to it", ["buy milk"]),
        ("- купить хлеб, и куда это всё пойдёт", ["купить хлеб"]),
        ("Ок. Что дальше", []), ("now what", []), ("call mom\nwhat's next", ["call mom"]),
    ],
)  # fmt: skip
def test_a_question_without_its_question_mark_ends_its_line_and_the_items_before_it_are_kept(
    message: str, items: list[str]
) -> None:
    # Without its "?" the question was saved, inside the item before it or as one of its own.
    assert brain_dump.split_items(message) == items and brain_dump.asks(message)
    assert not brain_dump.says_done(message) and not finishing.says_no(message)


@pytest.mark.parametrize(
    ("message", "items", "asks"),
    [
        ("купить хлеб. А что будет с этим?", ["купить хлеб"], True),
        ("buy milk. What happens to these?", ["buy milk"], True),
        ("что будет с задачами? позвонить маме", ["позвонить маме"], True),
        ("what happens to these? call mom", ["call mom"], True),
        ("купить хлеб. Что будет? Позвонить маме", ["купить хлеб", "Позвонить маме"], True),
        ("buy milk. Is that all?", ["buy milk"], False),
        # An initial's dot ends no sentence, a second thought still takes "that's all" back.
        ("Позвонить В. Петрову? купить хлеб", ["купить хлеб"], True),
        ("Всё. Хотя нет, а что будет с ними?", [], True),
    ],
)
def test_a_question_ends_its_sentence_and_the_items_around_it_are_kept(
    message: str, items: list[str], asks: bool
) -> None:
    # The whole line was dropped when it ended in a question, and a question before an item
    # was saved inside it.
    assert brain_dump.split_items(message) == items and brain_dump.asks(message) is asks
    assert not brain_dump.says_done(message)


@pytest.mark.parametrize(
    "message",
    [
        "Я пока не готов", "Я пока не готов, дай подумать", "I'm not ready yet",
        "Hmm, let me think", "Подожди, секунду", "Это не всё", "ещё не всё", "Нет, не всё",
        "That's not all", "not done yet", "не готово", "Ничего не приходит в голову",
        "Nothing comes to mind", "Не знаю, что писать", "I don't know what to write",
        "Не хочу ничего записывать",
        # Not knowing with a word more was saved as the item "не знаю даже".
        "не знаю даже", "честно, не знаю", "даже не знаю", "вообще не знаю что писать",
    ],
)  # fmt: skip
def test_hesitation_or_a_not_yet_is_neither_an_item_nor_done(message: str) -> None:
    assert brain_dump.split_items(message) == [] and not brain_dump.says_done(message)


@pytest.mark.parametrize(
    "message",
    [
        "wait a moment", "Wait a sec", "hold on a sec", "just a moment", "one moment please",
        "give me a minute", "hang on", "Подожди немного", "Дай мне минутку", "Погоди чуть-чуть",
        "Подожди, ещё вспомню", "Секунду, ещё кое-что", "Let me remember",
        # After "that's all" it takes it back.
        "Done. Wait a moment", "Это всё. Подожди немного",
    ],
)  # fmt: skip
def test_asking_for_a_moment_is_neither_an_item_nor_done(message: str) -> None:
    assert brain_dump.split_items(message) == [] and not brain_dump.says_done(message)


@pytest.mark.parametrize(
    ("message", "items"),
    [
        ("wait a moment, buy milk", ["buy milk"]),
        ("Подожди, купить хлеб", ["купить хлеб"]),
        ("wait for the delivery", ["wait for the delivery"]),
        ("hold the door for the movers", ["hold the door for the movers"]),
    ],
)
def test_an_item_after_asking_for_a_moment_is_kept_and_one_about_waiting_too(
    message: str, items: list[str]
) -> None:
    assert brain_dump.split_items(message) == items


@pytest.mark.parametrize(
    ("message", "items"),
    [
        ("— купить молоко\n— позвонить маме", ["купить молоко", "позвонить маме"]),
        ("· milk\n◦ bread\n▪ eggs\n→ call mom", ["milk", "bread", "eggs", "call mom"]),
        ("- [ ] купить молоко\n- [x] позвонить маме", ["купить молоко", "позвонить маме"]),
        ("[ ] pay rent\n[X] book a dentist", ["pay rent", "book a dentist"]),
        ("✅ купить молоко\n☐ позвонить маме", ["купить молоко", "позвонить маме"]),
        # Not bullets: a dash inside a line, a word in brackets.
        ("купить молоко — 2 литра", ["купить молоко — 2 литра"]),
        ("[срочно] позвонить в банк", ["[срочно] позвонить в банк"]),
        ("подумать об отпуске", ["подумать об отпуске"]),
        ("wait for the delivery", ["wait for the delivery"]),
        ("не забыть про день рождения мамы", ["не забыть про день рождения мамы"]),
    ],
)
def test_a_bullet_of_another_kind_or_a_checkbox_is_no_part_of_its_item(
    message: str, items: list[str]
) -> None:
    assert brain_dump.split_items(message) == items


@pytest.mark.parametrize(
    ("message", "items"),
    [
        # Answering "anything else?" before the item: the answer is no part of it.
        ("Да, купить хлеб", ["купить хлеб"]),
        ("Нет, ещё: купить хлеб", ["купить хлеб"]),
        ("Готово? Нет, ещё отчёт", ["отчёт"]),
        ("Ok, and call mom", ["call mom"]),
        ("Хм, не знаю, наверное купить молоко", ["наверное купить молоко"]),
        ("1 - купить молоко\n2 – позвонить маме", ["купить молоко", "позвонить маме"]),
        # A first phrase that says something stays.
        ("Нет молока", ["Нет молока"]),
        ("Купить: молоко, хлеб", ["Купить: молоко, хлеб"]),
        ("Да, конечно", []),
        # An opener of what follows ("Значит так: купить хлеб" was one item as said).
        ("Значит так: купить хлеб", ["купить хлеб"]),
        ("Короче так: надо починить кран", ["починить кран"]),
        ("В общем, надо починить кран и помыть окна", ["починить кран", "помыть окна"]),
        ("Итак: купить хлеб; помыть окна", ["купить хлеб", "помыть окна"]),
        ("Слушай, надо забрать посылку", ["забрать посылку"]),
        ("сделать так, чтобы кран не тёк", ["сделать так, чтобы кран не тёк"]),
    ],
)
def test_an_answer_or_a_hedge_before_an_item_is_no_part_of_it(
    message: str, items: list[str]
) -> None:
    assert brain_dump.split_items(message) == items


@pytest.mark.parametrize(
    ("message", "items"),
    [
        (
            "1. купить молоко 2. позвонить маме 3. отчёт",
            ["купить молоко", "позвонить маме", "отчёт"],
        ),
        ("Дела: 1) налог 2) врач", ["налог", "врач"]),
        ("1. встреча в 10. 2. обед", ["встреча в 10", "обед"]),
        ("купить 2 литра молока", ["купить 2 литра молока"]),
        ("купить 1.5 литра молока", ["купить 1.5 литра молока"]),
        ("1.5 литра молока", ["1.5 литра молока"]),
        ("1. 1.5 литра молока\n2.", ["1.5 литра молока"]),
        ("взять 2) ключи 3) зонт", ["взять 2) ключи 3) зонт"]),  # not at the line's start
        # Lettered, bracketed, counted from another number, a number with no space after it.
        ("a) milk b) bread", ["milk", "bread"]),
        ("а) молоко б) хлеб в) яйца", ["молоко", "хлеб", "яйца"]),
        ("(a) milk (b) bread", ["milk", "bread"]),
        ("a. milk b. bread", ["milk", "bread"]),
        ("(1) milk (2) bread", ["milk", "bread"]),
        ("10. x 11. y", ["x", "y"]),
        ("1.milk 2.bread", ["milk", "bread"]),
        ("Дела: а) налог б) врач", ["налог", "врач"]),
        ("a) milk\nb) bread", ["milk", "bread"]),
        ("(1) milk\n(2) bread", ["milk", "bread"]),
        ("1.milk\n2.bread", ["milk", "bread"]),
        # Bulleted on one line: a bullet opens it and parts the entries (one item before).
        ("- молоко - хлеб - яйца", ["молоко", "хлеб", "яйца"]),
        ("• молоко • хлеб", ["молоко", "хлеб"]),
        (
            "— купить хлеб — позвонить маме — оплатить свет",
            ["купить хлеб", "позвонить маме", "оплатить свет"],
        ),
        # Two dashes may say what a thing is: parted only at three entries, with no comma.
        ("- молоко - хлеб", ["молоко - хлеб"]),
        # Not lists: marks of two kinds, a letter's dot with no space, a version number.
        ("1) milk (2) bread", ["milk (2) bread"]),
        ("e.g. milk", ["e.g. milk"]),
        ("update to 2.0 then 3.x", ["update to 2.0 then 3.x"]),
        ("сдать отчёт\nэто всё", ["сдать отчёт"]),
        ("купить хлеб, это всё", ["купить хлеб"]),
        ("get the report done", ["get the report done"]),
    ],
)
def test_brain_dump_items(message: str, items: list[str]) -> None:
    assert brain_dump.split_items(message) == items


@pytest.mark.parametrize(
    ("message", "item"),
    [
        ("Запиши в inbox: купить молоко", "купить молоко"),
        ("Запиши во входящие: купить хлеб", "купить хлеб"),
        ("Добавь купить хлеб во входящие", "купить хлеб"),
        ("Add buy milk to my inbox", "buy milk"),
        ("Put this in my inbox: buy milk", "buy milk"),
        ("Remind me to buy milk", "buy milk"),
        ("Please add buy milk to my inbox", "buy milk"),
        ("Can you add to my inbox: buy milk", "buy milk"),
        ("I usually put everything in my inbox.", None),
        ("Can you add it to my inbox later?", None),
        ("Add everything to my inbox", None),
        ("Put it in my inbox", None),
        ("Добавь это во входящие", None),
        # The item before the request, and no item at all.
        ("Купить молоко — запиши в inbox", "Купить молоко"),
        ("купить молоко, запиши в инбокс", "купить молоко"),
        ("Запиши в inbox", None),
        ("inbox:", None),
        ("Это — запиши в inbox", None),
        # A request not to, and an item in quotes.
        ("Не записывай в inbox: купить молоко", None),
        ("Не надо добавлять в inbox: купить молоко", None),
        ("Don't put in my inbox: buy milk", None),
        ("Я не знаю. Запиши в inbox: купить молоко", "купить молоко"),
        ("Please add 'buy milk' to my inbox", "buy milk"),
        ("Запиши в inbox: «купить молоко»", "купить молоко"),
        ('Add to my inbox: "call mom"', "call mom"),
    ],
)
def test_an_inbox_request_names_its_item(message: str, item: str | None) -> None:
    assert inbox_requests.inbox_request(message) == item


@pytest.mark.parametrize(
    ("message", "item"),
    [
        # Asking to be reminded, or to put it on a to-do list, is asking to note it.
        ("Напомни купить молоко", "купить молоко"),
        ("Напомни мне позвонить маме, пожалуйста", "позвонить маме"),
        # A "please" after a run of commas and spaces, or before stops, is taken off too.
        ("Напомни купить хлеб , , пожалуйста", "купить хлеб"),
        ("remind me to buy bread,, please!!", "buy bread"),
        ("Напомните записаться к врачу", "записаться к врачу"),
        ("Напомни про отчёт", "про отчёт"),
        ("Добавь в список дел: позвонить маме", "позвонить маме"),
        ("Добавь купить хлеб в список дел", "купить хлеб"),
        ("Запиши в мои задачи: сдать отчёт", "сдать отчёт"),
        ("Добавь в список: купить хлеб", "купить хлеб"),
        ("Запомни: сдать отчёт", "сдать отчёт"),
        ("remind me to buy bread", "buy bread"),
        ("Please remind me about the dentist", "the dentist"),
        ("Can you remind me to buy milk?", "buy milk"),
        ("а ты можешь напомнить мне завтра позвонить врачу?", "завтра позвонить врачу"),
        ("Можете напомнить мне оплатить интернет?", "оплатить интернет"),
        ("add to my list: call mom", "call mom"),
        ("Add call mom to my to-do list", "call mom"),
        ("Remember: call mom", "call mom"),
        # Asking about something said, a list of something else, "remind me of": none.
        ("Напомни, что это за шаги", None),
        ("Напомни, о чём мы говорили?", None),
        ("можешь напомнить, что мы обсуждали?", None),
        ("Напомни что дальше", None),
        ("Напомни маме про день рождения", None),  # a task of the user's own
        ("Add me to the list", None),
        ("Добавь в список приоритетов здоровье", None),
        ("Запомни, что работа для меня главное", None),
        ("You remind me of my brother", None),
        ("Put it on my list", None),
        ("Не напоминай про работу", None),
        ("Don't remind me to buy milk", None),
    ],
)
def test_a_reminder_or_a_to_do_list_request_names_its_item(message: str, item: str | None) -> None:
    assert inbox_requests.inbox_request(message) == item


@pytest.mark.parametrize(
    ("message", "item"),
    [
        # "add" naming no list: an action after it, or anything after a colon, is the item.
        # The question was answered with how the brain dump works and nothing was saved;
        # "add:" stayed in the item; after the brain dump the task was lost.
        ("can you add call grandma on sunday?", "call grandma on sunday"),
        ("wait, can you also add call grandma on sunday?", "call grandma on sunday"),
        ("add: pick up dry cleaning", "pick up dry cleaning"),
        ("please add call mom", "call mom"),
        ("add buy milk too", "buy milk"),
        ("can you add a reminder to call mom?", "call mom"),
        # What is added is no action: a task of the user's own, or no request at all.
        ("add salt to the soup", None),
        ("Add oil to the car", None),
        ("I need to add salt", None),
        ("can you add more detail?", None),
    ],
)
def test_add_before_an_action_is_an_inbox_request(message: str, item: str | None) -> None:
    assert inbox_requests.inbox_request(message) == item


@pytest.mark.parametrize(
    ("message", "earlier", "expected"),
    [
        ("ok", ["Привет! Расскажи, что это"], "ru"),
        ("done", ["работа", "yes"], "ru"),  # the latest clear one
        ("👍", ["купить молоко"], "ru"),
        ("ok", ["hello, who are you?"], "en"),
        ("ok", [], "en"),
        ("work and health matter", ["привет"], "en"),
        ("да", ["I would like to start"], "ru"),
    ],
)
def test_a_short_latin_message_keeps_the_conversations_language(
    message: str, earlier: list[str], expected: str
) -> None:
    assert lang.language_in(message, earlier) == expected


@pytest.mark.parametrize(
    ("message", "items"),
    [
        (
            "I need to call mom, fix the sink and renew my passport",
            ["call mom", "fix the sink", "renew my passport"],
        ),
        (
            "Надо позвонить маме, починить кран и продлить паспорт",
            ["позвонить маме", "починить кран", "продлить паспорт"],
        ),
        ("call mom, fix the sink, and renew my passport",
         ["call mom", "fix the sink", "renew my passport"]),
        ("Купить хлеб, забрать посылку", ["Купить хлеб", "забрать посылку"]),
        ("Мне нужно сдать отчёт, потом записаться к врачу", ["сдать отчёт", "записаться к врачу"]),
        ("I have to pay rent, to book a dentist and to call the bank",
         ["pay rent", "book a dentist", "call the bank"]),
        # An action with "and" inside it stays whole among the others.
        ("buy salt and pepper, fix the sink", ["buy salt and pepper", "fix the sink"]),
        ("купить хлеб и соль, забрать детей", ["купить хлеб и соль", "забрать детей"]),
        ("get groceries, pick up the kids, and then cook dinner",
         ["get groceries", "pick up the kids", "cook dinner"]),
        ("I should really call the bank, and email HR", ["call the bank", "email HR"]),
        # Saying one more comes, before a colon, is no part of it (the words were kept).
        ("ой, забыл ещё: оплатить интернет до 25-го", ["оплатить интернет до 25-го"]),
        ("а можно ещё добавить: позвонить Саше", ["позвонить Саше"]),
        ("ещё одно: позвонить Саше", ["позвонить Саше"]),
        ("wait add one more: call the bank tomorrow", ["call the bank tomorrow"]),
        ("forgot one: call mom", ["call mom"]),
        ("Дача: покрасить забор", ["Дача: покрасить забор"]),
        # A comma between thousands parts nothing ("pay visa card ($1" and "200)" were saved).
        ("pay rent, pay visa card ($1,200), call mom",
         ["pay rent", "pay visa card ($1,200)", "call mom"]),
        ("pay $3,450.00 tuition by Oct 1, call mom",
         ["pay $3,450.00 tuition by Oct 1", "call mom"]),
        ("buy a TV for $1,299 and call mom", ["buy a TV for $1,299", "call mom"]),
        # A short side that is no action is more of what the action before it does: the
        # chain was one item.
        ("купить хлеб и молоко и позвонить маме", ["купить хлеб и молоко", "позвонить маме"]),
        ("call mom and dad and fix the sink", ["call mom and dad", "fix the sink"]),
        ("buy salt and pepper and eggs", ["buy salt and pepper and eggs"]),
        # "follow", "look", "ping", "sync" open actions (each list was one item).
        ("follow up with investors, schedule physio, text jake back",
         ["follow up with investors", "schedule physio", "text jake back"]),
        ("look into life insurance and update my resume",
         ["look into life insurance", "update my resume"]),
        ("call a plumber, ping Sam about the invoice",
         ["call a plumber", "ping Sam about the invoice"]),
        ("сделать ревью PR, потом sync с командой", ["сделать ревью PR", "sync с командой"]),
        # Past a few words introducing the list before a colon or a dash (each was one item).
        ("honestly i just have a million things to do: renew passport, pay rent, buy cat food",
         ["renew passport", "pay rent", "buy cat food"]),
        ("before i forget - I need to call mom, fix the sink and renew my passport",
         ["call mom", "fix the sink", "renew my passport"]),
        ("Дела на неделю: позвонить маме, починить кран", ["позвонить маме", "починить кран"]),
    ],
)  # fmt: skip
def test_a_sentence_listing_actions_is_an_item_per_action(message: str, items: list[str]) -> None:
    # "I need to call mom, fix the sink and renew my passport" was one item, where one a line
    # or a ";" between them were three.
    assert brain_dump.split_items(message) == items


@pytest.mark.parametrize(
    "message",
    [
        "buy salt and pepper", "купить соль, перец и хлеб", "buy black pepper and red salt",
        "купить молоко, хлеб и яйца", "Купить: молоко, хлеб", "fish and chips, salt and pepper",
        # Two actions joined by "and" alone may be one task.
        "встретиться с Петей и обсудить проект", "call the bank and ask about the loan",
        # A piece that is no action on its own, or no action at all.
        "позвонить маме, узнать, как она", "новости, гости и дети",
        "read War and Peace, then rest",
        # What follows the colon lists no actions.
        "Мои мысли: работа, дом, дача", "Note to self - milk, bread",
    ],
)  # fmt: skip
def test_a_sentence_that_is_not_clearly_a_list_of_actions_stays_one_item(message: str) -> None:
    assert brain_dump.split_items(message) == [message]


@pytest.mark.parametrize(
    "message",
    [
        "Запиши в inbox: потом", "Запиши в inbox: позже", "Добавь в список дел: не сейчас",
        "Put in my inbox: later", "Add to my inbox: maybe later", "inbox: not now",
    ],
)  # fmt: skip
def test_an_inbox_request_put_off_holds_no_item(message: str) -> None:
    # "потом" after "Запиши в inbox:" was kept as an item: the user puts the request off.
    found = inbox_requests.inbox_request_at(message)
    assert found is not None and found.put_off
    assert brain_dump.dumped_items(message) == [] and brain_dump.puts_off(message)


@pytest.mark.parametrize(
    ("message", "item"),
    [
        ("Запиши в inbox: потом купить хлеб", "потом купить хлеб"),
        ("inbox: later: call the bank", "later: call the bank"),
    ],
)
def test_an_inbox_request_with_a_task_after_its_later_is_no_put_off(
    message: str, item: str
) -> None:
    found = inbox_requests.inbox_request_at(message)
    assert found is not None and found.item == item and not found.put_off
    assert not brain_dump.puts_off(message)


@pytest.mark.parametrize(
    "message",
    [
        "Nothing comes to mind", "nothing else comes to mind", "No, nothing comes to mind",
        "Hmm, nothing comes to mind right now", "I can't think of anything else",
        "ничего не приходит в голову", "Ничего больше не приходит в голову",
        "В голову ничего не приходит", "Нет, ничего не приходит в голову",
    ],
)  # fmt: skip
def test_nothing_coming_to_mind_is_a_short_decline_and_no_item(message: str) -> None:
    assert finishing.declines(message) and brain_dump.split_items(message) == []


@pytest.mark.parametrize(
    "message",
    ["Nothing comes to mind but the dentist", "ничего не приходит в голову, кроме отчёта"],
)
def test_nothing_coming_to_mind_but_something_is_no_decline(message: str) -> None:
    assert not finishing.declines(message)


@pytest.mark.parametrize(
    ("message", "items"),
    [
        ("не забыть оплатить интернет", ["оплатить интернет"]),
        ("Не забыть оплатить интернет", ["оплатить интернет"]),
        ("надо не забыть оплатить интернет", ["оплатить интернет"]),
        ("Мне нужно не забыть: продлить паспорт", ["продлить паспорт"]),
        ("не забудь купить хлеб", ["купить хлеб"]),
        ("напомнить позвонить маме", ["позвонить маме"]),
        ("напомни мне записаться к врачу", ["записаться к врачу"]),
        ("remember to call mom", ["call mom"]),
        ("Don't forget to call mom", ["call mom"]),
        ("dont forget to pay rent", ["pay rent"]),
        ("need to remember to renew passport", ["renew passport"]),
        ("- не забыть оплатить интернет\n- remember to call mom",
         ["оплатить интернет", "call mom"]),
        ("Надо позвонить маме, не забыть оплатить интернет",
         ["позвонить маме", "оплатить интернет"]),
        ("Запиши в inbox: не забыть купить молоко", ["купить молоко"]),
        # The rest is no task, or the reminder is the task: kept as said.
        ("Напомни маме про день рождения", ["Напомни маме про день рождения"]),
        ("не забыть про день рождения мамы", ["не забыть про день рождения мамы"]),
        ("remember the milk", ["remember the milk"]),
    ],
)  # fmt: skip
def test_a_reminders_lead_in_is_no_part_of_its_item(message: str, items: list[str]) -> None:
    assert brain_dump.dumped_items(message) == items


@pytest.mark.parametrize(
    ("message", "items"),
    [
        ("не забыть", []),
        ("Не забудь!", []),
        ("надо не забыть…", []),
        ("remember to", []),
        ("don't forget", []),
        ("Don’t forget!", []),
        ("Ок, не забыть", []),
        ("Запиши в inbox: не забыть", []),
        ("- позвонить маме\n- не забыть", ["позвонить маме"]),
        ("call mom; don't forget", ["call mom"]),
    ],
)  # fmt: skip
def test_a_reminders_lead_in_alone_names_nothing_and_is_no_item(
    message: str, items: list[str]
) -> None:
    # "не забыть" alone was saved as an item, and counted toward the brain dump's three.
    assert brain_dump.dumped_items(message) == items
    assert brain_dump.reminds_of_nothing(message)


@pytest.mark.parametrize(
    "message",
    ["не забыть оплатить интернет", "remember to call mom", "не забыть про день рождения мамы",
     "idk", "позвонить маме"],
)  # fmt: skip
def test_a_reminder_that_names_its_task_or_no_reminder_reminds_of_something(message: str) -> None:
    assert not brain_dump.reminds_of_nothing(message)


@pytest.mark.parametrize(
    ("message", "named", "fact"),
    [
        # What follows a self-correction replaces what came before it: health was kept too.
        ("health i think... no wait, work", {"work"}, "work"),
        ("health, no, wait, work", {"work"}, "work"),
        ("health, wait no, work", {"work"}, "work"),
        ("health — I mean work", {"work"}, "work"),
        ("health, actually no, work", {"work"}, "work"),
        ("health and hobbies, scratch that, work", {"work"}, "work"),
        ("health, sorry, I meant work", {"work"}, "work"),
        ("Health. No wait, work.", {"work"}, "work"),
        ("здоровье, нет, стоп, работа", {"work"}, "работа"),
        ("здоровье, хотя нет, работа", {"work"}, "работа"),
        ("здоровье, вернее работа", {"work"}, "работа"),
        ("здоровье, точнее работа", {"work"}, "работа"),
        ("здоровье, то есть работа", {"work"}, "работа"),
        ("здоровье... ой, нет, работа", {"work"}, "работа"),
        ("здоровье, в смысле работа", {"work"}, "работа"),
        # Opening the message, the marker alone is left out.
        ("Нет, стоп, работа", {"work"}, "работа"),
    ],
)
def test_a_self_correction_replaces_what_came_before_it(
    message: str, named: set[str], fact: str
) -> None:
    said, declined = lang.areas_said(message)
    assert set(said) == named and declined == set()  # taken back, not said to be no priority
    assert said["work"] == fact


@pytest.mark.parametrize(
    ("message", "said"),
    [
        # Of a list, the correction takes back the item said last: family was lost with health.
        ("family, health i think... no wait, work, and hobbies",
         {"relationships": "family", "work": "work", "hobbies": "hobbies"}),
        ("work, health, no wait, family", {"work": "work", "relationships": "family"}),
        ("work, health, i think, no wait, family", {"work": "work", "relationships": "family"}),
        ("семья, здоровье — ой, нет, работа", {"relationships": "семья", "work": "работа"}),
        # Joined by "and", the items go back together; an item said again is said once.
        ("family, health and hobbies, scratch that, work",
         {"relationships": "family", "work": "work"}),
        ("work, health... no wait, work, family",
         {"work": "work", "relationships": "family"}),
    ],
)  # fmt: skip
def test_a_self_correction_in_a_list_takes_back_its_last_item(
    message: str, said: dict[str, str]
) -> None:
    assert lang.areas_in(message) == said


@pytest.mark.parametrize(
    ("message", "named"),
    [
        # Emphasis, or more said of what came before: nothing is taken back.
        ("work, i mean it", {"work": "work, i mean it"}),
        ("work, I mean, really", {"work": "work, I mean, really"}),
        ("работа, то есть мой стартап", {"work": "работа, то есть мой стартап"}),
        ("работа и здоровье, точнее сон", {"work": "работа", "health": "здоровье, точнее сон"}),
        # A vague marker opening a sentence says more, it takes no sentence back.
        ("Work is busy. I mean, family matters more.",
         {"work": "Work is busy", "relationships": "family matters more"}),
        # "no" there says no, of what follows: the areas before it stay.
        ("Работа важна, хотя нет времени на спорт", {"work": "Работа важна"}),
        ("work, wait no hobbies", {"work": "work"}),
        # Only its own sentence goes: family was said before it.
        ("Family matters a lot. Health, no wait, work takes my time",
         {"relationships": "Family matters a lot", "work": "work takes my time"}),
        # A correction that names no area takes nothing back.
        ("work and health. no wait, I'm not done", {"work": "work", "health": "health"}),
    ],
)  # fmt: skip
def test_no_self_correction_is_read_into_emphasis_or_more_detail(
    message: str, named: dict[str, str]
) -> None:
    said = lang.areas_in(message)
    assert {area: said.get(area) for area in named} == named, said
