"""Which words name which life area: kin, pets, school, faith, pastimes, in both languages and
their inflections, and the words that only look like them."""

# ruff: noqa: RUF001  (Russian text is meant to be Cyrillic)

from __future__ import annotations

import pytest

from baton_agent_runner.domain import language as lang
from baton_agent_runner.domain.scripted import Turn, run


@pytest.mark.parametrize(
    ("message", "area"),
    [
        ("gf", "relationships"), ("my bf", "relationships"), ("girlfriend?", "relationships"),
        ("boyfriend?", "relationships"), ("my marriage", "relationships"),
        ("parents", "relationships"), ("mom", "relationships"), ("my dad", "relationships"),
        ("my dog", "relationships"), ("my cat", "relationships"), ("pets", "relationships"),
        ("school", "growth"), ("uni", "growth"), ("college", "growth"), ("studies", "growth"),
        ("therapy", "growth"), ("side hustle", "work"), ("my side-project", "work"),
        ("gaming", "hobbies"), ("reading", "hobbies"), ("church", "growth"),
        ("faith", "growth"),
        ("внуки", "relationships"), ("внуков", "relationships"), ("мама", "relationships"),
        ("маму", "relationships"), ("папа", "relationships"), ("родители", "relationships"),
        ("родителей", "relationships"), ("бабушка", "relationships"),
        ("дедушка", "relationships"), ("сын", "relationships"), ("дочь", "relationships"),
        ("ребёнок", "relationships"), ("ребенок", "relationships"),
        ("время с детьми", "relationships"), ("вера в бога", "growth"), ("психотерапия", "growth"),
        ("универ", "growth"), ("учёба", "growth"), ("учеба", "growth"), ("дача", "hobbies"),
        ("на даче", "hobbies"), ("огород", "hobbies"), ("рыбалка", "hobbies"),
        # Said as what the user wants: "my kids, my job, and getting fit" lost its health.
        ("getting fit", "health"), ("stay fit", "health"), ("lose weight", "health"),
        ("хочу похудеть", "health"), ("I'd also like to get in shape", "health"),
        ("getting back in shape", "health"),
        # Near-synonyms users wrote: "my startup", "my boss" named nothing; reading as a goal
        # is growth, "reading" alone a pastime.
        ("my startup", "work"), ("my boss", "work"), ("мой стартап", "work"),
        ("начальник достал", "work"), ("read more books", "growth"),
        ("reading more", "growth"), ("I want to read a book a month", "growth"),
        # Siblings and the wider family named nothing ("my brother and my grandma").
        ("my brother and my grandma", "relationships"), ("my sister", "relationships"),
        ("my siblings", "relationships"), ("grandpa", "relationships"),
        ("my aunt and my cousins", "relationships"), ("granny", "relationships"),
        ("сестра", "relationships"), ("с братом", "relationships"),
        ("младший братишка", "relationships"), ("тётя", "relationships"),
        # Reading more as a goal, in Russian too ("Ещё хочу больше читать" named nothing).
        ("Ещё хочу больше читать", "growth"), ("читать больше", "growth"),
        # The user's trade, said as what they are: work ("я программист" named nothing).
        ("я программист", "work"), ("I'm a nurse", "work"), ("i am a software engineer", "work"),
        ("я учительница", "work"),
        # Writing as a pastime named nothing.
        ("I'm writing a novel on weekends", "hobbies"), ("writing poetry", "hobbies"),
        ("пишу стихи", "hobbies"),
        # A school where the user works is work alone (it was growth too).
        ("работаю учителем в школе", "work"), ("I work at a school", "work"),
        ("I'm a teacher at a school", "work"),
        # Running said with how often: "I run every morning" was finances with what followed.
        ("I run every morning", "health"), ("I run 5k on sundays", "health"),
        ("I run a business", "work"),
        # Found by a probe: the gym as "зал", chat's friends, a band.
        ("хожу в зал три раза в неделю", "health"), ("качалочка", "health"),
        ("мои кореша", "relationships"), ("my homies", "relationships"),
        ("I play bass in a band", "hobbies"),
    ],
)  # fmt: skip
def test_common_words_for_an_area_name_it(message: str, area: str) -> None:
    assert set(lang.areas_in(message)) == {area}


@pytest.mark.parametrize(
    "message",
    [
        "spreading the load",
        "an old-school approach",
        "мамонт",
        "папка с бумагами",
        "который час",
        "unity",
        "of course",
        "how this works",
        "that works for me",
        "it worked",  # the verb of a thing
        "в курсе",
        "book a table",
        "verb",
        "Вера обещала зайти",  # a name, not faith
        "that fits me",
        "fit it in the car",
        "the house is in bad shape",
        "брать с собой",
        "my doctor",
        "write a report",
        "I run late a lot",
        "актовый зал",
        "sea bass for dinner",
        "врач сказал",
        "братский",
    ],
)
def test_a_word_that_only_looks_like_an_area_word_names_none(message: str) -> None:
    assert lang.areas_in(message) == {}


@pytest.mark.parametrize(
    "message",
    ["позвонить маме", "Надо позвонить маме", "call mom", "walk the dog",
     "I need to call mom, fix the sink and renew my passport",
     "hi, i need to call mom and buy milk", "привет, надо позвонить маме",
     "завтра позвонить маме", "позвонить парню", "купить подарок девушке"],
)  # fmt: skip
def test_kin_in_an_errand_is_no_priority(message: str) -> None:
    # "позвонить маме; записаться к врачу" is a to-do list for the brain dump, not family.
    assert lang.areas_in(message) == {}


@pytest.mark.parametrize(
    "message",
    ["i need to buy a gym bag", "hi, i need to buy a gym bag", "купить абонемент в спортзал",
     "order a new work laptop"],
)  # fmt: skip
def test_what_an_errand_buys_is_no_priority(message: str) -> None:
    # "i need to buy a gym bag" told the greeter that health matters.
    assert lang.areas_in(message) == {}


@pytest.mark.parametrize(
    ("message", "areas"),
    [
        ("I want to go to the gym more", {"health"}),
        # Health alone: "work on" is the verb, no work area (it read both once).
        ("buy a gym bag and work on my health", {"health"}),
        ("work matters, I need to buy a gym bag", {"work"}),
    ],
)
def test_an_area_said_beside_a_purchase_is_still_named(message: str, areas: set[str]) -> None:
    assert set(lang.areas_in(message)) == areas


@pytest.mark.parametrize(
    "message", ["Хочу больше времени с мамой", "my mom and dad", "родители и внуки"]
)
def test_kin_said_as_what_matters_is_relationships(message: str) -> None:
    assert set(lang.areas_in(message)) == {"relationships"}


def test_a_listing_of_the_new_words_gives_each_area_its_part() -> None:
    assert lang.areas_in("parents, school, gaming") == {
        "relationships": "parents", "growth": "school", "hobbies": "gaming"
    }  # fmt: skip


@pytest.mark.parametrize(
    ("message", "named", "declined"),
    [
        ("не хочу говорить о работе", set(), {"work"}),
        ("I don't want to talk about work", set(), {"work"}),
        ("I'd rather not discuss work", set(), {"work"}),
        ("не хотелось бы обсуждать хобби", set(), {"hobbies"}),
        ("Не хочу обсуждать работу, главное семья", {"relationships"}, {"work"}),
        ("work? not really. family yes", {"relationships"}, {"work"}),
        ("Работа? Не особо. Семья да", {"relationships"}, {"work"}),
        ("family yes. work? nah", {"relationships"}, {"work"}),
    ],
)
def test_not_wanting_to_talk_of_an_area_or_a_no_to_it_declines_it(
    message: str, named: set[str], declined: set[str]
) -> None:
    # As "I dont care about work" is: the area is no priority and is not asked for again.
    found, said_no = lang.areas_said(message)
    assert (set(found), said_no) == (named, declined)


@pytest.mark.parametrize(
    ("message", "area"),
    [
        # What says how an area goes, a concern, is a priority still.
        ("работа не даёт покоя", "work"), ("health is not great", "health"),
        ("не хочу работать по выходным", "work"), ("I don't want to work weekends", "work"),
        ("I don't have to work weekends", "work"), ("Не хочу бросать спорт", "health"),
        ("хочу говорить о работе", "work"), ("work? yes, a lot", "work"),
        ("health? not really my thing, but I run", "health"),
        ("work? no wait, health", "health"),
    ],
)  # fmt: skip
def test_a_concern_or_a_yes_about_an_area_stays_a_priority(message: str, area: str) -> None:
    assert set(lang.areas_in(message)) == {area}


def test_discovery_saves_no_fact_of_an_area_the_user_will_not_talk_about() -> None:
    out = run(
        Turn(agent="discovery", current_step="discovery", message="work? not really. family yes",
             language="en", can_complete=False)
    )  # fmt: skip
    assert out.extracted_data == {"facts": {"relationships": "family yes"}}
    assert "work" not in out.message.split("For example")[-1]


@pytest.mark.parametrize(
    ("message", "facts"),
    [
        ("нет подожди, не семья а дети", {"relationships": "дети"}),
        ("нет, не семья, а дети", {"relationships": "дети"}),
        ("not family but kids", {"relationships": "kids"}),
        (
            "no thats wrong, family isnt first, work is",
            {"relationships": "family isnt first", "work": "work is"},
        ),
        ("нет, поменялось: отношения теперь это муж, а не дети", {"relationships": "муж"}),
        ("work and family, no that's wrong, health", {"health": "health"}),
        ("Семья. Подожди, ещё работа", {"relationships": "Семья", "work": "работа"}),
    ],
)
def test_a_correction_keeps_what_the_user_said_of_the_area_not_its_own_words(
    message: str, facts: dict[str, str]
) -> None:
    assert lang.areas_in(message) == facts


@pytest.mark.parametrize(
    ("message", "named", "declined"),
    [
        (
            "work and family. no wait, not family, health",
            {"work": "work", "health": "health"},
            {"relationships"},
        ),
        (
            "work, family, no wait, not family, health",
            {"work": "work", "health": "health"},
            {"relationships"},
        ),
        (
            "работа и семья. нет, стоп, не семья, а здоровье",
            {"work": "работа", "health": "здоровье"},
            {"relationships"},
        ),
        (
            "семья и работа. нет, стоп, не семья, а дети",
            {"work": "работа", "relationships": "дети"},
            set(),
        ),
        # Naming none it takes back, it takes back the sentence before, as it did.
        ("work and family. no wait, health", {"health": "health"}, set()),
    ],
)
def test_a_correction_naming_the_area_it_takes_back_takes_back_that_area_alone(
    message: str, named: dict[str, str], declined: set[str]
) -> None:
    assert lang.areas_said(message) == (named, declined)


def _discovery_after(said: list[str], message: str, facts: dict[str, str]) -> str:
    history = [{"role": "user", "text": each} for each in said]
    turn = Turn(agent="discovery", current_step="discovery", message=message, language="en",
                can_complete=False, history=history, facts=facts)  # fmt: skip
    return run(turn).message


@pytest.mark.parametrize("message", ["not fitness", "nope"])
def test_a_declined_area_is_never_offered_again_as_an_example(message: str) -> None:
    # Every one of the five told or declined: the examples were the declined ones again.
    said = ["work, hobbies", "no family, no studies", "not fitness"]
    asked = _discovery_after(said, message, {"work": "work", "hobbies": "hobbies"})
    example = asked.lower().split("for example")[-1]
    assert "finances" in example, asked
    assert not any(area in example for area in ("health", "relationships", "growth")), asked


def test_a_declined_area_is_left_out_of_the_examples_while_others_remain() -> None:
    asked = _discovery_after(["work, hobbies"], "not fitness", {"work": "work", "hobbies": "h"})
    assert asked.endswith("For example: relationships, growth."), asked


def test_a_filler_left_by_a_listing_split_is_no_part_of_the_fact() -> None:
    # "здоровье, ну и семья" kept the health fact "здоровье, ну".
    said = lang.areas_in("работа конечно и здоровье, ну и семья")
    assert said == {"work": "работа", "health": "здоровье", "relationships": "семья"}


@pytest.mark.parametrize(
    ("message", "facts"),
    [
        ("wrok and helth", {"work": "work", "health": "health"}),
        ("famly", {"relationships": "family"}),
        ("Famly first", {"relationships": "Family first"}),
        ("my kdis", {"relationships": "my kids"}),
        ("симья", {"relationships": "семья"}),
        ("здоровя", {"health": "здоровье"}),  # read as "здоровья", said in the nominative
        ("карера и фитнесс", {"work": "карьера", "health": "фитнесс"}),
    ],
)
def test_an_area_word_one_typo_off_names_its_area(message: str, facts: dict[str, str]) -> None:
    # "wrok and helth", "famly", "симья" named no area, and discovery asked again.
    assert lang.areas_in(message) == facts


@pytest.mark.parametrize(
    "message",
    [
        "short on time", "sheep", "a monkey", "the hearth", "wealth", "word", "worm", "fork",
        "world", "leaning on it", "спирт", "деньки", "робота", "wok", "kind",
    ],
)  # fmt: skip
def test_a_real_word_one_edit_from_an_area_word_names_none(message: str) -> None:
    assert lang.areas_in(message) == {}


def test_discovery_saves_and_shows_mistyped_areas_as_meant() -> None:
    turn = Turn(agent="discovery", current_step="discovery", message="wrok, helth and famly",
                language="en", can_complete=False)  # fmt: skip
    out = run(turn)
    facts = {"work": "work", "health": "health", "relationships": "family"}
    assert out.extracted_data == {"facts": facts}
    assert "- relationships: family\n" in out.message, out.message


@pytest.mark.parametrize(
    "message",
    [
        "How does it work?", "how does this work exactly?", "so how does this all work",
        "hi, a friend recommended this. how does this work?", "will this work for me?",
        "that would work", "that'll work", "it doesn't work", "is it working?", "make it work",
        "Works for me!", "sounds good, works for me", "I want to know how everything works",
    ],
)  # fmt: skip
def test_work_as_what_a_thing_does_names_no_area(message: str) -> None:
    # "How does it work?", a new user's first question, was kept as the work fact "How does
    # it work" and the greeter answered "Great, I have noted it: work".
    assert lang.areas_in(message) == {}


@pytest.mark.parametrize(
    "message",
    [
        "this work is killing me",
        "all that work",
        "that is work",
        "I work as a nurse",
        "does work matter?",
        "it's all work",
        "does my work count?",
        "work works me hard",
    ],
)
def test_work_said_of_the_user_still_names_work(message: str) -> None:
    assert set(lang.areas_in(message)) == {"work"}


@pytest.mark.parametrize(
    ("agent", "message"),
    [("greeter", "How does it work?"), ("discovery", "wait, how does this work?")],
)
def test_a_question_how_it_works_saves_no_work_fact(agent: str, message: str) -> None:
    turn = Turn(agent=agent, current_step=agent, message=message, language="en",
                can_complete=False)  # fmt: skip
    out = run(turn)
    assert "facts" not in out.extracted_data, out.extracted_data
    assert "noted" not in out.message.lower(), out.message


@pytest.mark.parametrize(
    ("message", "named", "declined"),
    [
        ("no, not health, I meant hobbies", {"hobbies": "hobbies"}, {"health"}),
        ("not health, I meant hobbies", {"hobbies": "hobbies"}, {"health"}),
        ("не здоровье, я имела в виду хобби", {"hobbies": "хобби"}, {"health"}),
        ("нет, не работа, точнее семья", {"relationships": "семья"}, {"work"}),
    ],
)
def test_a_not_before_what_the_user_meant_still_takes_that_area_back(
    message: str, named: dict[str, str], declined: set[str]
) -> None:
    # "I meant" took back everything before it, "not health" with it: health was neither
    # named nor declined, and its fact stayed in the summary beside hobbies.
    assert lang.areas_said(message) == (named, declined)


def test_discovery_drops_the_area_a_correction_says_not_and_keeps_the_one_meant() -> None:
    summary = "Here is what I understood:\n- work: work\n- health: health\n- relationships: family"
    history = [
        {"role": "user", "text": "work, helth, famly"},
        {"role": "assistant", "text": f"{summary}\nIs that right? If not, correct me."},
    ]
    facts = {"work": "work", "health": "health", "relationships": "family"}
    message = "no, not health, I meant hobbies"
    turn = Turn(agent="discovery", current_step="discovery", language="en", can_complete=False,
                message=message, history=history, facts=facts)  # fmt: skip
    out = run(turn)
    assert out.extracted_data == {"facts": {"hobbies": "hobbies"}, "dropped_facts": ["health"]}
    assert "health: health" not in out.message, out.message


@pytest.mark.parametrize(
    "message",
    ["1. Work 2. Family 3. Health", "1) work 2) family 3) health", "- work\n- family\n- health",
     "1.Work 2.Family 3.Health", "Top 3: 1. work 2. family 3. health",
     "1. Work\n2. Family\n3. Health"],
)  # fmt: skip
def test_a_numbered_or_bulleted_list_of_areas_gives_each_its_own_words(message: str) -> None:
    # "1. Work 2. Family 3. Health" saved "Work 2" and "Family 3"; "1) work 2) family 3)
    # health" the whole line for each area; "- work" kept its dash.
    facts = {area: fact.lower() for area, fact in lang.areas_in(message).items()}
    assert facts == {"work": "work", "relationships": "family", "health": "health"}


def test_a_numbered_entry_keeps_what_it_says_of_its_area() -> None:
    said = lang.areas_in("1. my job, it pays the bills 2. my kids 3. getting fit")
    assert said == {"work": "my job, it pays the bills", "relationships": "my kids",
                    "health": "getting fit"}  # fmt: skip


@pytest.mark.parametrize(
    ("message", "facts"),
    [
        ("idk, i guess my job and my kids... and sleeping more lol",
         {"work": "my job", "relationships": "my kids", "health": "sleeping more"}),
        ("tbh, family", {"relationships": "family"}),
        # At the end "tbh" says how frank the user is, and stays.
        ("my health is kinda bad tbh", {"health": "my health is kinda bad tbh"}),
        ("lol work", {"work": "work"}),
        ("honestly, my health", {"health": "my health"}),
    ],
)  # fmt: skip
def test_chat_fillers_around_an_area_stay_out_of_its_fact(
    message: str, facts: dict[str, str]
) -> None:
    # The summary showed "work: idk, i guess my job" and "health: sleeping more lol".
    assert lang.areas_in(message) == facts


@pytest.mark.parametrize("message", ["none of your business", "mind your own business"])
def test_a_refusal_naming_business_names_no_work(message: str) -> None:
    # "none of your business" was saved as the work fact and answered "Noted."
    assert lang.areas_in(message) == {}
    assert lang.areas_in("I run my own business") == {"work": "I run my own business"}


@pytest.mark.parametrize(
    "message",
    ["book swim lessons for the kids, order new running shoes", "pick up the kids",
     "call my wife", "позвонить жене", "buy a birthday card for my husband"],
)  # fmt: skip
def test_kids_or_a_partner_in_an_errand_is_no_priority(message: str) -> None:
    # Said to discovery's summary, the errand replaced the relationships fact.
    assert lang.areas_in(message) == {}


@pytest.mark.parametrize(
    "message", ["spend more time with my kids", "my wife and kids", "дети и жена", "my kids"]
)
def test_kids_or_a_partner_said_as_what_matters_is_relationships(message: str) -> None:
    assert set(lang.areas_in(message)) == {"relationships"}


def test_an_errand_for_the_kids_said_to_the_summary_is_kept_for_the_brain_dump() -> None:
    summary = "Here is what I understood:\n- relationships: My kids come first\nIs that right?"
    facts = {"work": "my job", "health": "sleep", "relationships": "My kids come first"}
    message = "book swim lessons for the kids, order new running shoes"
    turn = Turn(agent="discovery", current_step="discovery", message=message, language="en",
                facts=facts, history=[{"role": "assistant", "text": summary}])  # fmt: skip
    out = run(turn)
    items = ["book swim lessons for the kids", "order new running shoes"]
    assert out.extracted_data == {"deferred_inbox_items": items}


@pytest.mark.parametrize(
    ("message", "facts"),
    [
        ("yes but add hobbies", {"hobbies": "hobbies"}),
        ("yes except gym is really yoga", {"health": "gym is really yoga"}),
        ("да, но добавь хобби", {"hobbies": "хобби"}),
        ("yesterday I went to the gym", {"health": "yesterday I went to the gym"}),
    ],
)
def test_a_yes_before_what_it_adds_stays_out_of_the_fact(
    message: str, facts: dict[str, str]
) -> None:
    # Said to the summary, "yes but add hobbies" saved the hobbies fact "yes but add hobbies".
    assert lang.areas_in(message) == facts


@pytest.mark.parametrize(
    ("message", "areas"),
    [("I need to work out more", {"health"}), ("working out", {"health"}),
     ("I work out three times a week", {"health"}),
     ("Getting promoted this year and running a marathon", {"work", "health"}),
     ("yoga", {"health"}), ("swimming and cycling", {"health"}), ("jogging", {"health"}),
     ("meditation", {"health"}), ("плавание", {"health"}), ("медитация", {"health"}),
     ("hiking and camping", {"hobbies"}), ("dancing", {"hobbies"}), ("knitting", {"hobbies"}),
     ("chess", {"hobbies"}), ("baking", {"hobbies"}), ("rock climbing", {"hobbies"}),
     ("танцы", {"hobbies"}), ("шахматы", {"hobbies"}), ("походы в горы", {"hobbies"}),
     ("работа и танцы", {"work", "hobbies"}),
     # What is worked out, or a thing that worked out, names no area; work stays work.
     ("work out the details", set()), ("things worked out", set()), ("it worked out", set()),
     ("I work out a plan with my boss", {"work"}), ("my workplace", {"work"}),
     ("поход к врачу", set()),
     ("Хочу получить повышение", {"work"}), ("Хочу больше зарабатывать", {"work"}),
     ("I want to get a raise", {"work"}), ("a better salary", {"work"}),
     ("quit smoking", {"health"}), ("Хочу бросить курить", {"health"}),
     # Not a promotion: a rise in blood pressure; raising kids is relationships.
     ("повышение давления", set()), ("raise my kids well", {"relationships"}),
     # Running as exercise, not what else runs; a career ladder is no hobby.
     ("I love running", {"health"}), ("go for a run", {"health"}), ("morning runs", {"health"}),
     ("running late", set()), ("running errands", set()), ("running out of time", set()),
     ("running shoes", set()), ("running a business", {"work"}),
     ("keep running into problems", set()),
     ("climbing the career ladder", {"work"}), ("photography", {"hobbies"}),
     ("spending time outdoors", {"hobbies"}), ("volunteering", {"hobbies"}),
     ("Хочу заняться собой", {"growth"}), ("занимаюсь собой", {"growth"})],
)  # fmt: skip
def test_exercise_and_pastimes_name_their_areas(message: str, areas: set[str]) -> None:
    # "I need to work out more" was kept as work; "yoga", "hiking", "шахматы" named nothing.
    assert set(lang.areas_in(message)) == areas


@pytest.mark.parametrize(
    ("message", "area", "fact"),
    [
        # Chat's fillers stayed in the fact, before or after the area.
        ("хз, наверн друзья еще", "relationships", "друзья"),
        ("ладно, ещё работа", "work", "работа"),
        ("короч работа жрет все время", "work", "работа жрет все время"),
        ("семья конечно", "relationships", "семья"),
        ("не, еще учеба - англ учу", "growth", "учеба - англ учу"),
        ("А вот саморазвитие", "growth", "саморазвитие"),
        ("my family btw", "relationships", "my family"),
    ],
)
def test_chat_fillers_around_an_area_are_no_part_of_its_fact(
    message: str, area: str, fact: str
) -> None:
    assert lang.areas_in(message) == {area: fact}
