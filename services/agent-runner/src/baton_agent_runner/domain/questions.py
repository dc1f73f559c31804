"""A question in a line of a brain dump: where it starts, whether it is a short one asking
whether that is all, and one asked without its "?", for the brain dump to read the rest of the
line around it."""

# ruff: noqa: RUF001, RUF002, RUF003  (Russian text, comments too, is meant to be Cyrillic)

from __future__ import annotations

import re
from collections.abc import Iterator

from baton_agent_runner.domain.greeter_questions import topic_of
from baton_agent_runner.domain.wording import normalised, words

# A question mark that ends a sentence: at the line's end or before a space ("что будет с
# ними? позвонить маме"), not inside a word or a quote. Read from the first stop of a run
# (`(?<![.!?…])`), as `_SENTENCE_END` is: thousands of "?" not followed by a space took seconds.
_QUESTION_END = re.compile(r"(?<![.!?…])[.!…]*\?[?!.…]*(?=\s|$)")
# A sentence ends at a stop before a space, not inside a number ("1.5 литра"), and a lone
# capital's dot is an initial's, even after a capitalised word: "Позвонить В. Петрову?" is one
# question, not an item "Позвонить В." and a question "Петрову?".
# A run of stops is read from its first (`(?<![.!?…])`): tried from each of its stops, a run
# of thousands ("........") not followed by a space took seconds.
_SENTENCE_END = re.compile(r"(?<![.!?…])(?:(?<!\b[A-ZА-ЯЁ])\.|[!?…])[.!?…]*\s+")
# A short question with one of these asks whether that is all ("Is that all?", "Это всё, что
# нужно?", "Are we done?"): the agent says how to finish, not what becomes of the items.
_FINISHED = frozenset({
    "все", "готово", "закончили", "хватит", "достаточно", "all", "done", "finished",
    "everything", "enough",
})  # fmt: skip
_SHORT_QUESTION = 4
# A clause after a comma asks about the items, and what comes before the comma is still items
# ("купить хлеб, а что будет с этим?", "call mom, then what?"), when a question word opens it
# after "а", "и", "and", "so", "потом" or "then" ("а что", "и как", "and how", "then what");
# when it is "а потом?", "and then?"; or, in English only, when a bare question word opens it
# and it says "next" or names the items ("what next", "what happens to it"). The lists are
# closed and short on purpose: the "?" may be the item's own ("купить хлеб, молоко?",
# "позвонить маме, может быть?", "call mom, then?"). A bare Russian question word opens a
# clause of the item as often as a question: Russian writes that clause after a comma
# ("решить, что с этим делать", "узнать, как продлить визу"), English does not. Left out:
# "когда", "when" ("позвонить, когда приеду?"), "так как" ("because"), "но", "but" (a doubt
# about the item: "позвонить маме, но как?"), "и как можно скорее" ("as soon as possible"),
# and "что-то", "как-нибудь" (no question words).
_ASKING_BARE = frozenset({"what", "how", "where", "why"})
_THE_ITEMS = frozenset({"it", "this", "these", "them", "they", "those"})
_JOINING = frozenset({"а", "и", "and", "so"})
_THEN = frozenset({"потом", "дальше", "затем", "then", "next", "now"})
_ASKING = frozenset({"что", "как", "куда", "зачем", "где", "почему", *_ASKING_BARE})
_COMMA = re.compile(r",\s*")
# Chat users often leave the "?" out, and "а что дальше" or "what happens to these" was saved
# into the inbox as a task. Without its "?" a sentence, or a clause after a comma as above, is a
# question only when it is about the brain dump itself: a question word opens it, past joining
# words and an answer ("Нет, а что будет с этим", "Nothing, what now"), it has at most
# `_LONGEST_UNMARKED` words there (a longer line is more often a thought of its own), and it
# names the items or what comes next ("и куда это всё попадёт", "how does this work", "а что
# дальше", "what now"), or asks what to write here ("что писать", "what do I write here").
# Anything else stays an item, as a question saved is easier to mend than a task lost: a
# question word before an infinitive opens a task to decide ("что купить маме", "как оформить
# визу — узнать", "что с этим делать", "what to cook on Sunday", "how to fix the bike"), and a
# clause after a verb is the task's ("узнать, как продлить визу").
# Personal pronouns of Russian ("они", "их") and "всё" alone are left out: they name people as
# often ("как их поздравить", "где все").
_LONGEST_UNMARKED = 7
_ANSWERING = frozenset({
    "нет", "неа", "ничего", "ну", "ок", "окей", "ладно", "хорошо", "no", "nope", "nothing",
    "ok", "okay", "well",
})  # fmt: skip
# "what else" alone asks what comes next, as "what now" does; it was saved as an item.
_ELSE = frozenset({"else", "ещё", "еще"})
_OPENING = _ASKING | {"what's", "whats", "how's", "hows", "where's", "wheres", "сколько"}
_NAMING = _THE_ITEMS | _THEN | {
    "это", "этим", "этого", "этому", "эти", "этих", "этими", "ними", "теперь", "здесь", "тут",
    "сюда", "here",
}  # fmt: skip
_WRITING = frozenset({
    "писать", "написать", "записывать", "записать", "вписать", "write", "type", "put",
    # Changing the items, or how many to write, asks about the step too ("can I change items
    # later", "можно потом поменять", "how many do I need", "сколько ещё"): each was saved.
    "change", "edit", "remove", "delete", "add", "поменять", "изменить", "исправить", "удалить",
    "добавить", "дописать", "many", "сколько",
    # So does how to finish or go on ("how do i finish", "как мне закончить", "что делать
    # дальше", and "what should i do": `_asks_unmarked`): each was saved; "what should I do
    # about the car", "как закончить отчёт" name something else, and stay items.
    "finish", "stop", "end", "continue", "proceed", "закончить", "завершить",
    "заканчивать", "продолжить", "продолжать", "делать", "сделать",
})  # fmt: skip
# A question to the assistant opens with one of these, without a question word ("can I ...",
# "do I have to ...", "is this ...", "можно ..."): it asks about the step only as a question
# of `_ABOUT_WRITING` words, or one of Baton's own topics (`greeter_questions`), never by
# naming "this" or "it" ("should I cancel this subscription" is the user's own question).
_ASKING_YOU = frozenset({
    "can", "could", "may", "do", "does", "did", "should", "will", "would", "is", "are", "am",
    "must", "можно",
})  # fmt: skip
# A question of only these words, and one of `_WRITING`, asks what to write here, or how many,
# or whether the items can change; "what to write in the card", "can I add milk", "сколько
# стоит билет" are tasks.
_ABOUT_WRITING = _OPENING | _WRITING | _NAMING | _ASKING_YOU | {
    "мне", "нужно", "надо", "именно", "вообще", "i", "do", "should", "need", "to", "am",
    "supposed", "exactly", "can", "have", "everything", "all", "more", "items", "item", "my",
    "later", "afterwards", "be", "able", "ли", "еще", "потом", "позже", "записи", "записей",
    "пунктов", "минимум", "least", "at", "much",
    # Of one item, or going back to them: "how do i delete one", "can i go back and edit".
    "one", "a", "an", "back", "go", "and", "them", "some", "одну", "одно", "запись", "вернуться",
}  # fmt: skip
# Words that say a question of one of Baton's own topics ("who will see this", "is this free",
# "what is baton") is asked of it: "сколько стоит билет" asks about something else.
_YOU = _NAMING | {"you", "baton", "ты", "тебе", "тебя", "вам", "вас", "onboarding", "онбординг"}
_WHO = frozenset({"who", "which", "кто"})
_INFINITIVE = ("ть", "ти", "чь", "ться", "тись")  # "купить", "найти", "помочь", "заняться"
# After "to", these go on with the items, no infinitive ("what happens to these", "to all of it").
_NO_VERB = _THE_ITEMS | {"the", "my", "all", "everything", "me", "you", "us", "that"}
_CLAUSE_WORD = re.compile(r"\w[\w'-]*")  # "что-то" is one word, and no question word


def questions(line: str) -> Iterator[str]:
    """The questions a line asks, each its own sentence without its "?" ("купить хлеб. А что
    будет с этим?" asks "А что будет с этим")."""
    for end in _QUESTION_END.finditer(line):
        yield line[question_start(line, end.start()) : end.start()]


def unmarked_question_start(text: str) -> int | None:
    """Where a question about the brain dump asked without a "?" starts, when it ends `text`
    ("купить хлеб. А что дальше", "buy milk, and what happens to it", "Nothing, what now"); None
    when `text` ends in no such question (the comment on `_LONGEST_UNMARKED` says when)."""
    start = question_start(text, len(text))
    return start if _asks_unmarked(_clause_words(text[start:])) else None


def _asks_unmarked(tokens: list[str]) -> bool:
    """Words without a "?" ask about the brain dump, not a task to decide."""
    rest = _past_joining(tokens, _ANSWERING)
    if not rest or len(rest) > _LONGEST_UNMARKED:
        return False
    to_you = rest[0] in _ASKING_YOU
    if not (to_you or rest[0] in _OPENING or rest[0] in _WHO):
        return False
    # "do" asks what to do only after a question word ("what should i do"): "do it then",
    # "do I ..." use it otherwise.
    doing = rest[0] in _OPENING and "do" in rest[1:]
    if (doing or not _WRITING.isdisjoint(rest)) and set(rest) <= _ABOUT_WRITING:
        return True  # "что писать", "what do I write here", "can I change items later"
    if len(rest) > 1 and set(rest) <= _OPENING | _THEN | _ELSE:
        return True  # "what else", "и что ещё", "what now": what comes next
    if any(
        token.endswith(_INFINITIVE) or (token == "to" and after not in _NO_VERB)
        for token, after in zip(rest, [*rest[1:], ""], strict=True)
    ):
        return False  # "что купить маме", "what to cook", "how to fix the bike"
    if not _YOU.isdisjoint(rest) and topic_of(" ".join(rest)) is not None:
        return True  # "who will see this", "is this free", "what is baton"
    # "now what" names what comes next before it; "is it worth it" is the user's own.
    return not (to_you or rest[0] in _WHO) and not _NAMING.isdisjoint(tokens)


def question_start(text: str, end: int) -> int:
    """Where the question that ends at `end` starts: its sentence's start, or past a comma
    before a clause asking about the items ("купить хлеб, а что будет с этим?")."""
    start = sentence_start(text, end)
    opening = _past_joining(_clause_words(text[start:end]))
    if opening and opening[0] in _ASKING:
        return start  # asked from its first word, it is one question ("как быть, а что потом?")
    # Only a clause of the last `_LONGEST_ASKED` characters: each comma's clause is read to the
    # question's end, and a sentence of thousands of commas ("a, a, a, ...?") took seconds.
    for comma in _COMMA.finditer(text, max(start, end - _LONGEST_ASKED), end):
        if _asks_about_items(_clause_words(text[comma.end() : end])):
            return comma.end()
    return start


_LONGEST_ASKED = 400
"""The longest clause after a comma that is read as asking about the items, in characters."""


def sentence_start(text: str, end: int) -> int:
    """Where the sentence that ends at `end` starts: past the last stop before it.

    Read back from `end` to that stop: a stop (`_SENTENCE_END`) starts only where a run of
    stops does, so the last one is the first such run, read back, that makes one. Read from
    the text's start for each question, a message of 2,000 questions ("? ? ? ...") took the
    brain dump seconds."""
    at = end
    while at > 0:
        if text[at - 1] not in _STOPS:
            at -= 1
            continue
        while at > 1 and text[at - 2] in _STOPS:
            at -= 1
        at -= 1  # the start of the run of stops
        if stop := _SENTENCE_END.match(text, at, end):
            return stop.end()
    return 0


_STOPS = ".!?…"
"""The characters of a stop (`_SENTENCE_END`)."""


def _asks_about_items(tokens: list[str]) -> bool:
    """The clause after a comma asks about the items (the comment on `_ASKING_BARE` says
    when)."""
    rest = _past_joining(tokens)
    if not rest:  # "а потом?", "and then?"; not a bare "then?"
        return bool(tokens) and tokens[0] in _JOINING and not _THEN.isdisjoint(tokens)
    if len(rest) < len(tokens):  # not "и как можно скорее" ("as soon as possible")
        return rest[0] in _ASKING and rest[:2] != ["как", "можно"]
    return rest[0] in _ASKING_BARE and not (_THE_ITEMS | _THEN).isdisjoint(rest)


def _clause_words(text: str) -> list[str]:
    """The words of `text`, normalised, "что-то" one of them."""
    return _CLAUSE_WORD.findall(normalised(text))


def _past_joining(tokens: list[str], also: frozenset[str] = frozenset()) -> list[str]:
    """The words past the joining ones that open a clause ("а", "and", "then"), and past `also`
    words."""
    at = 0
    while at < len(tokens) and tokens[at] in _JOINING | _THEN | also:
        at += 1
    return tokens[at:]


def short_about_finishing(question: str) -> bool:
    """A question of a few words with one of finishing ("Is that all", "Are we done")."""
    tokens = words(question)
    return len(tokens) <= _SHORT_QUESTION and not _FINISHED.isdisjoint(tokens)
