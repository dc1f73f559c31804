"""Reading one item of a brain dump: past the answer, hedge or filler around it, and none when
it only acknowledges, waits, talks of the step or the weather, or tells of the user."""

# ruff: noqa: RUF001, RUF002, RUF003  (Russian text, comments too, is meant to be Cyrillic)

from __future__ import annotations

import re

from baton_agent_runner.domain import readiness
from baton_agent_runner.domain.action_lists import lists_actions
from baton_agent_runner.domain.action_words import is_action
from baton_agent_runner.domain.closing_words import only_closing, without_closing
from baton_agent_runner.domain.dump_words import (
    ABOUT_THE_STEP,
    ACK,
    HESITATION,
    JOINING,
    LONE_CAPITAL_AT_END,
    PHRASE_END,
    PREAMBLE,
    TALK,
    WAIT,
    WAITING,
)
from baton_agent_runner.domain.extracted import trimmed_item
from baton_agent_runner.domain.finishing import declines
from baton_agent_runner.domain.go_aheads import only_goes_ahead
from baton_agent_runner.domain.inbox_requests import only_reminder, without_reminder
from baton_agent_runner.domain.interjections import is_interjection
from baton_agent_runner.domain.never_mind import only_never_mind
from baton_agent_runner.domain.questions import unmarked_question_start
from baton_agent_runner.domain.wording import without_end, words

# "too" that adds the item to the ones before it, last but for an emoji: no part of it.
_TOO = re.compile(r"(?<![\s,])[\s,]+(?:too|as\s+well|тоже)(?=[^\w]*$)", re.IGNORECASE)
# Chat filler around an item, said without a comma to part it off: "hmm idk maybe learn
# spanish", "oh yeah and the car needs an oil change", "ой и машину на ТО записать", "call mom
# lol", "buy milk pls" each kept it. Not "so", "well", "ok", which open items too ("so many
# bills", "well pump repair"). A run of spaces is read from its first (`(?<![\s,])`).
_FILLER_START = re.compile(
    r"^(?:(?:h+m+|u+m+|u+h+|oh|ah|yeah|idk|anyways?|ой|ну|х+м+|э+м+|ах|короче"
    # Laughter and exclamations: "lol call mom", "omg pay rent" saved them with the item.
    r"|l+o+l+|lmao|(?:ha){2,}h?|omg|ugh|лол|кек|омг|(?:ха){2,}|(?:ах){2,}а?|блин)\b[\s,!.…—–-]*)+"
    r"(?=\w)",
    re.IGNORECASE,
)
_FILLER_END = re.compile(
    r"(?<![\s,])[\s,]+(?:lol|lmao|haha|hahaha|pls|plz|please|пожалуйста|плиз|плз|лол|хаха)"
    r"(?=[^\w]*$)",
    re.IGNORECASE,
)


def item_in(text: str, filler: frozenset[str] = ACK | HESITATION) -> str | None:
    """The item `text` holds, past the answer or hedge before it ("Да, купить хлеб", "Нет,
    ещё: отчёт"); none when it is a question, a heading or only `filler` words
    (acknowledgements and hesitation, unless told otherwise), a short decline ("not now",
    "пока ничего") or a go-ahead ("го", "fire away", "I'm back"). A question asked without
    its "?" that ends it is none of it either ("купить хлеб. А что дальше" holds "купить
    хлеб")."""
    if (asked := unmarked_question_start(text)) is not None:
        text = text[:asked]
    # "не забыть оплатить интернет", "remember to call mom": the reminder is no part of it.
    # "позвонить маме!": the "!" ends the sentence, and is no part of the item.
    said = trimmed_item(past_preamble(text))
    said = JOINING.sub("", _FILLER_START.sub("", said))  # "oh yeah and the car ..."
    item = without_reminder(without_end(said, ".,;:—–- ").strip())
    # "oh and fix the bike too 🚲": "fix the bike 🚲"; "call mom lol": "call mom"; "call mom,
    # etc, thanks!": "call mom".
    item = _TOO.sub("", without_closing(_FILLER_END.sub("", item)))
    if not item or only_closing(item) or text.rstrip().endswith(("?", ":")):
        return None
    said_nothing = all(token in filler or is_interjection(token) for token in words(item))
    said_nothing = said_nothing or declines(item)
    said_nothing = said_nothing or only_goes_ahead(item)  # "го", "fire away", "I'm back"
    said_nothing = said_nothing or only_reminder(item)  # "не забыть", "don't forget": of what?
    said_nothing = said_nothing or only_never_mind(item)  # "never mind", "забей": nothing
    said_nothing = said_nothing or _about_the_step(item) or _small_talk(text)
    return None if said_nothing or only_waits(item) or only_how_much(item) else item


# How much is on the user's mind, naming none of it ("everything", "too much to list", "so
# many things", "слишком много, не перечислить", "всё подряд"): each was saved as an item.
_HOW_MUCH = frozenset({
    "everything", "much", "many", "lot", "lots", "tons", "loads", "все", "всего", "много",
    "куча", "уйма", "масса",
})  # fmt: skip
_SAID_OF_HOW_MUCH = _HOW_MUCH | {
    "too", "so", "way", "to", "list", "name", "count", "write", "say", "of", "a", "things",
    "stuff", "all", "it", "just", "literally", "honestly", "there's", "theres", "is", "there",
    "слишком", "очень", "не", "перечислить", "перечесть", "назвать", "написать", "подряд",
    "дел", "просто", "вообще", "честно", "сразу",
}  # fmt: skip


def only_how_much(text: str) -> bool:
    """The text only says how much there is ("everything", "too much to list", "слишком много,
    не перечислить"), naming nothing: no item ("buy everything for the party" is one)."""
    said = set(words(text))
    return bool(said & _HOW_MUCH) and said <= _SAID_OF_HOW_MUCH


def _about_the_step(text: str) -> bool:
    """The text only talks about the step ("so brain dump huh")."""
    tokens = set(words(text))
    return bool(tokens & ABOUT_THE_STEP) and tokens <= TALK


# A remark in passing ("btw the weather is awful today", "кстати, погода сегодня ужасная") was
# saved as an item. Only one that opens with "btw"/"кстати", talks of the weather or the mood
# and names no action is none: "btw call the plumber" is an item.
_BY_THE_WAY = re.compile(r"^\W*(?:btw|by\s+the\s+way|кстати)\b[\s,:—–-]*", re.IGNORECASE)
_WEATHER_AND_MOOD = frozenset({
    "weather", "rain", "raining", "rainy", "snow", "snowing", "cold", "hot", "sunny", "windy",
    "freezing", "mood", "tired", "sleepy", "bored", "exhausted", "sad", "happy",
    "погода", "погоды", "погоду", "дождь", "снег", "холодно", "жарко", "солнце",
    "солнечно", "ветер", "ветрено", "мороз", "настроение", "устал", "устала", "грустно", "скучно",
    "весело", "сонный", "сонная",
})  # fmt: skip


def _small_talk(text: str) -> bool:
    """The text is a remark in passing on the weather or the mood (`_BY_THE_WAY`)."""
    if (opening := _BY_THE_WAY.match(text)) is None:
        return False
    rest = text[opening.end() :]
    said = set(words(rest))
    return bool(said & _WEATHER_AND_MOOD) and not (is_action(rest) or lists_actions(rest))


def only_waits(text: str) -> bool:
    """The text only asks for a moment ("wait a moment", "Подожди немного")."""
    tokens = set(words(text))
    return bool(tokens & WAIT) and tokens <= WAITING | HESITATION | ACK


# What holds the user back, said as discovery asked it ("What holds you back: time, energy,
# something else?"): a resource or a state of the user's, no task.
_HELD_BACK_BY = frozenset({
    "time", "energy", "motivation", "strength", "willpower", "tired", "busy", "exhausted",
    "burnout", "stress", "время", "времени", "силы", "сил", "энергия", "энергии", "мотивация",
    "мотивации", "усталость", "устаю", "устал", "устала", "выгорание", "стресс",
})  # fmt: skip
# The words said around it: how much is lacking, and hedges ("not enough time", "мало
# времени", "energy mostly", "наверное, силы").
_ABOUT_THE_USER = _HELD_BACK_BY | {
    "not", "enough", "no", "too", "little", "lack", "of", "low", "on", "mostly", "probably",
    "maybe", "i", "i'm", "im", "am", "guess", "think", "just", "and", "or", "my", "the", "main",
    "problem", "is", "always", "very", "so", "really", "money", "also", "а", "и", "или", "мало",
    "нет", "не", "хватает", "нехватка", "мне", "у", "меня", "в", "основном", "наверное",
    "пожалуй", "скорее", "всего", "то", "главное", "проблема", "моя", "очень", "вечно", "тоже",
    "денег", "деньги", "постоянно", "совсем", "я",
}  # fmt: skip


def tells_of_the_user(item: str) -> bool:
    """The item is a statement about the user, no task: what holds them back ("not enough
    time", "мало времени", "energy mostly"), as an answer to discovery's last question said
    to the brain dump's first. Every word is one of `_ABOUT_THE_USER`, one of them what holds
    them back (`_HELD_BACK_BY`): "milk", "dentist", "money" stay items."""
    said = words(item)
    return bool(_HELD_BACK_BY.intersection(said)) and set(said) <= _ABOUT_THE_USER


def past_preamble(text: str) -> str:
    """`text` from its first phrase that is not only answers, hedges, go-aheads ("го, купить
    хлеб") and joining words, and past the joining words that open it ("and call mom", "ещё
    отчёт")."""
    start = 0
    for phrase_end in PHRASE_END.finditer(text):
        phrase = text[start : phrase_end.start()]
        opener = set(words(phrase)) <= PREAMBLE or only_waits(phrase) or only_goes_ahead(phrase)
        # "never mind, call grandma", "later, call the bank": no part of the item. Before a
        # colon "later" labels it ("later: call the bank"), and stays.
        later = _only_later(phrase) and phrase_end.group().startswith(",")
        opener = opener or only_never_mind(phrase) or later
        if not opener:
            break
        if phrase_end.group().startswith(".") and LONE_CAPITAL_AT_END.search(phrase):
            # "Написать А. Петрову": after a capitalised word a lone capital's dot may end a
            # sentence ("Петров В. Работа"), but here it is an initial: the verb is the item's.
            break
        start = phrase_end.end()
    return JOINING.sub("", text[start:].lstrip())


# A day is the item's own ("tomorrow, call the bank"); "later," before it is not.
_DAYS = frozenset({"tomorrow", "завтра"})


def _only_later(phrase: str) -> bool:
    """The phrase only puts it off ("later", "потом", "not now"), naming no day: "later, call
    the bank" saved "later," with the item."""
    return readiness.puts_off(phrase) and not _DAYS.intersection(words(phrase))


# Words that open a remark on how the user is ("I'm swamped", "ugh, so busy", "я в завале",
# "у меня завал"), said before asking for a reminder as the reason to ask.
_REMARK_OPENERS = frozenset({
    "i'm", "im", "i", "i've", "ive", "so", "ugh", "omg", "argh", "sigh", "man", "honestly",
    "too", "such", "я", "мне", "у", "блин", "ох", "эх", "уф", "капец", "жесть", "так", "совсем",
})  # fmt: skip


def is_remark(item: str) -> bool:
    """The item, said before an inbox request, only tells how the user is ("I'm swamped, can
    you remind me to call the plumber?"): it opens with `_REMARK_OPENERS` and names no action
    ("I need to buy milk, remind me to call mom" keeps "buy milk")."""
    said = words(item)
    return bool(said) and said[0] in _REMARK_OPENERS and not lists_actions(item)
