"""The words that open a thing to do: a Russian infinitive or an English to-do verb, read by
the brain dump's lists (`action_lists`) and by an inbox request that names an action
(`inbox_requests`: "can you add call grandma on sunday?")."""

# ruff: noqa: RUF001  (Russian text is meant to be Cyrillic)

from __future__ import annotations

import re

from baton_agent_runner.domain.wording import words

# A Russian infinitive, reflexive or not; "-ость"/"-ости" are nouns ("новости", "радость").
_INFINITIVE = re.compile(r"[а-я]{2,}(?:ть|ти|чь)(?:ся|сь)?")
_NOUNS_LIKE_INFINITIVES = frozenset({
    "дети", "гости", "части", "кости", "сети", "пути", "власти", "области", "сласти", "страсти",
    "мать", "дочь", "ночь", "речь", "мелочь", "горечь", "дичь", "желчь", "память", "печать",
    "кровать", "суть", "путь", "сеть", "нить", "ртуть", "часть", "честь", "весть", "кость",
    "гость", "месть", "шерсть", "жесть", "власть", "область", "плеть", "рать",
})  # fmt: skip
# Verbs a to-do item starts with; a noun of the same spelling is rare at an item's start.
# Chores and errands are among them ("walk the dog and feed the cat" was one item: "feed" was
# missing), but not a word that opens a noun pair as often ("rock and roll", "research and
# development").
EN_VERBS = frozenset({
    "ask", "answer", "apply", "arrange", "attend", "bake", "book", "bring", "buy", "call",
    "cancel", "change", "charge", "check", "clean", "clear", "collect", "complete", "confirm",
    "contact", "cook", "copy", "create", "cut", "deliver", "deposit", "do", "drop", "email",
    "file", "fill", "finish", "fix", "get", "give", "go", "grab", "help", "hire", "install",
    "invite", "iron", "learn", "leave", "make", "meet", "move", "mow", "order", "organise",
    "organize", "pack", "paint", "pay", "pick", "plan", "post", "prepare", "print", "put", "read",
    "register", "remind", "renew", "rent", "repair", "replace", "reply", "reschedule", "return",
    "review", "see", "sell", "send", "set", "sign", "sort", "start", "study", "submit", "take",
    "talk", "text", "tidy", "transfer", "update", "vacuum", "visit", "walk", "wash", "water",
    "write", "feed", "drive", "fetch", "sweep", "mop", "empty", "unpack", "wrap", "schedule",
    "throw", "hang", "load", "unload", "refill", "recycle", "draft", "edit", "shave", "trim",
    "bathe", "hoover", "declutter", "defrost",
    # Work errands: "follow up with investors, schedule physio, text jake back" was one item.
    # Not "find": "find time for myself" is no errand.
    "follow", "look", "ping", "sync",
    # Chat spelling: "fix bike, pay rent, txt jake abt sat, dentist appt" was one item.
    "txt", "msg", "dm",
})  # fmt: skip

# Errands: an action done once, for a thing or a place, not a habit ("go to the gym more",
# "learn piano" say what an area is). Said to discovery's summary with a known area's words
# ("book a yoga class", "записаться в спортзал"), it replaced that area's fact.
_ERRANDS = frozenset({
    "book", "renew", "buy", "order", "call", "schedule", "reschedule", "cancel", "pay",
    "register", "sign", "email", "text", "return", "send", "submit", "confirm", "print",
    "записаться", "записать", "продлить", "купить", "заказать", "оплатить", "позвонить",
    "отменить", "забронировать", "отправить", "вернуть", "перенести",
})  # fmt: skip

# When, said before the verb, keeps an action one: "завтра позвонить в налоговую, потом забрать
# машину" was one item, its first piece opening with no verb.
WHEN = frozenset({
    "завтра", "сегодня", "послезавтра", "утром", "вечером", "tomorrow", "today", "tonight",
    "tmrw", "tmr", "tmw", "tonite",
})  # fmt: skip

# A deadline said before the verb keeps it an action too: "до пятницы сдать отчёт", "by friday
# submit the report" ("на работе надо до пятницы сдать отчёт, потом ..." was one item).
_DEADLINE_WORDS = frozenset({
    "пятницы", "понедельника", "вторника", "среды", "четверга", "субботы", "воскресенья",
    "вечера", "обеда", "выходных", "пятнице", "понедельнику", "вторнику", "среде", "четвергу",
    "субботе", "воскресенью", "вечеру", "обеду", "выходным", "friday", "monday", "tuesday",
    "wednesday", "thursday", "saturday", "sunday", "tonight", "tomorrow", "noon", "weekend",
})  # fmt: skip
_BY = frozenset({"до", "к", "by"})

# When or where the list is to be done, said before its lead-in ("So this week", "на работе"):
# not a day alone ("Сегодня надо позвонить маме, починить кран" stays one item, as it was).
SETTING = frozenset({
    "so", "ok", "okay", "well", "and", "anyway", "this", "next", "week", "weekend", "month",
    "morning", "evening", "at", "work", "home", "on", "the", "monday", "tuesday", "wednesday",
    "thursday", "friday", "saturday", "sunday", "before", "by", "ну", "так", "вот", "короче",
    "на", "работе", "дома", "этой", "следующей", "неделе", "в", "выходные", "понедельник",
    "вторник", "среду", "четверг", "пятницу", "субботу", "воскресенье", "до", "к", "днем",
})  # fmt: skip

_HEDGES = (["sort", "of"], ["kind", "of"])
"""A hedge that starts with a verb's word: "sort of" to "Is the summary right?" was kept as a
task for the inbox."""


def is_action(piece: str) -> bool:
    """Two words or more, the first a verb (a Russian infinitive, an English verb we know),
    or one after a word that says when ("завтра позвонить маме", "tomorrow call the vet") or
    a deadline ("до пятницы сдать отчёт")."""
    said = _past_deadline(words(piece))
    said = said[1:] if said and said[0] in WHEN else said
    if len(said) < 2 or said[:2] in _HEDGES:
        return False
    return said[0] in EN_VERBS or is_infinitive(said[0])


def _past_deadline(said: list[str]) -> list[str]:
    """The words past a deadline that opens them ("до пятницы", "by friday")."""
    if len(said) > 2 and said[0] in _BY and said[1] in _DEADLINE_WORDS:
        return said[2:]
    return said


def is_infinitive(word: str) -> bool:
    """The word is a Russian infinitive ("выспаться", "позвонить"), not a noun that looks like
    one ("новости", "радость")."""
    if word in _NOUNS_LIKE_INFINITIVES or word.endswith(("ость", "ости")):
        return False
    return _INFINITIVE.fullmatch(word) is not None


def is_errand(piece: str) -> bool:
    """An action (`is_action`) whose verb is an errand's ("book a yoga class", "продлить
    абонемент в зал"), not a habit's ("go running more")."""
    said = words(piece)
    said = said[1:] if said and said[0] in WHEN else said
    return is_action(piece) and said[0] in _ERRANDS
