"""The words that say yes, no, or "nothing to change" to a question (read by
`language.confirms` and `language.denies`)."""

# ruff: noqa: RUF001, RUF003  (Russian text, comments too, is meant to be Cyrillic)

from __future__ import annotations

import re

from baton_agent_runner.domain.finishing import NOTHING_COMES

CONFIRM = (
    "да", "верно", "правильно", "точно", "все так", "ага", "угу", "ок", "окей", "именно",
    "так и есть", "yes", "yeah", "yep", "yup", "correct", "right", "exactly", "ok", "okay",
    "sure", "perfect", "all good", "looks good", "sounds good", "подтверждаю", "согласен",
    "согласна", "i confirm", "confirmed", "agreed", "i agree",
    # Said to the summary and answered "I did not quite get that".
    "spot on", "nailed it", "you got it", "pretty much", "close enough",
)  # fmt: skip
# Yes only when the message says nothing else: "давай" to "Is that right?" says yes, "давай
# поменяем работу" does not; so "норм", "go", "fine", "lol ok" (the summary was shown again).
_YES_ALONE = frozenset({
    "давай", "давайте", "норм", "нормально", "годится", "пойдет", "подходит", "ладно", "отлично",
    "супер", "класс", "круто", "конечно", "go", "fine", "great", "cool", "nice", "lgtm", "k", "kk",
    "yea", "ya", "ye", "yass", "yes", "yeah", "yep", "yup", "ok", "okay", "ок", "окей", "да",
    "ага", "угу", "sure", "perfect", "correct", "right", "exactly",
    # "y" and "верна" (a typo of "верно") to the summary got "I did not quite get that".
    "y", "верна", "верно",
    # "absolutely", "of course" to "Ready to start?" got the same question again.
    "absolutely", "definitely", "certainly", "totally", "alright", "course", "yess", "yesss",
    # "Хорошо" to "Начнём?" or "Всё верно?" is the commonest Russian yes after "да": it got
    # the greeter's explanation again; so did "валяй", "разумеется".
    "хорошо", "хорош", "валяй", "естественно", "разумеется", "ладушки", "агась", "четко", "гуд",
    # Russian in Latin letters (`translit`): "da" to "Напиши «да»" was not understood.
    "da", "aga", "ugu", "verno", "pravilno", "norm", "konechno", "horosho", "khorosho", "ladno",
    "davai", "davay",
})  # fmt: skip
# "Всё" too: "всё хорошо", "всё отлично", "всё норм" to the summary got "Не совсем понял".
# A drawn-out "ну" ("нуу ладно") got the greeter's explanation again.
_AROUND_YES = frozenset({
    "ну", "нуу", "нууу", "lol", "haha", "ха", "хаха", "then", "тогда", "ahead", "вроде", "all",
    "of", "все",
})  # fmt: skip
# A yes said with an emoji alone: "👍", "👌", "✅", "❤️" (skin tones and variation selectors
# aside). The summary was shown again to each.
YES_EMOJI = re.compile(
    "^[\\s!.)]*(?:(?:[\U0001f44d\U0001f44c\u2705\u2714\u2611\u2764\U0001f4af\U0001f64c"
    "\U0001f197\U0001f44f][\U0001f3fb-\U0001f3ff\ufe0f]*)[\\s!.)]*)+$"
)
DENY_FIRST = ("нет", "не", "неа", "no", "nope", "not")
# After a leading "нет,"/"no," these still confirm: "Нет, всё верно", "No, that's right".
STILL_RIGHT = (
    "верно", "правильно", "все так", "точно", "that's right", "thats right", "that is right",
    "that's correct", "that is correct", "exactly",
    # "no no, it's right" to the summary got "What should I correct?".
    "it's right", "its right", "it is right", "it's correct", "it is correct",
)  # fmt: skip
_FIX = r"(?:менять|меняй|исправлять|исправляй|править|правь|поправлять|поправь)"
# Confirmations made of "no" words: "Yes, nothing wrong", "ничего не нужно менять"; and the
# answers to "Anything to add?", which a summary not yet closed asks ("nope, nothing to add").
ALL_GOOD = re.compile(
    rf"\bничего\s+(?:не\s+(?:нужно|надо)\s+{_FIX}|{_FIX}\s+не\s+(?:нужно|надо)|не\s+{_FIX})\b"
    rf"|\b{_FIX}\s+ничего\s+не\s+(?:нужно|надо)\b"
    r"|\bnothing(?:'s|\s+is)?\s+(?:wrong|to\s+(?:change|fix|correct))\b"
    r"|\bnothing\s+(?:else\s+|more\s+)?to\s+add\b|\bnothing\s+(?:else|more)\b"
    r"|\bнечего\s+добавить\b|\bдобавить\s+нечего\b|\bничего\s+(?:не\s+)?добав\w*"
    r"|\bбольше\s+ничего\b"
    rf"|\b(?:{NOTHING_COMES})\b"  # "Nothing comes to mind" to "Anything to add?"
)
DENY = ("да нет", "не так", "неверно", "неправильно", "wrong", "incorrect")


def yes_alone(tokens: list[str]) -> bool:
    """Every word a yes of `_YES_ALONE` or a filler beside one ("ну давай", "lol ok")."""
    return any(t in _YES_ALONE for t in tokens) and all(
        t in _YES_ALONE or t in _AROUND_YES for t in tokens
    )


_YES_OPENING = re.compile(r"^\W*(?:да|ага|угу|yes|yeah|yep|yup)\b(?!\s+нет\b)", re.IGNORECASE)


def opens_with_yes(text: str) -> bool:
    """The text opens with a yes ("yes, work first", "да, главное семья"), not "да нет"."""
    return _YES_OPENING.match(text) is not None


_NO_OPENING = re.compile(r"^\W*(?:нет|неа|no|nope)\b", re.IGNORECASE)


def opens_with_no(text: str) -> bool:
    """The text opens with "нет"/"no" ("Нет, работа — это мой проект", "no, not finances")."""
    return _NO_OPENING.match(text) is not None


# "да" as "and", not a yes: "силы уже не те, да и спина болит", "давление да суставы" (a word
# on either side, no stop between); the answer was thrown away as a "да". Not after a hedge:
# "ну да всё так", "думаю да".
_AND_DA = re.compile(r"(?<=\w)(?:,\s*да(?=\s+и\b)|\s+да(?=\s+\w))", re.IGNORECASE)
_YES_DA_AFTER = frozenset({
    "ну", "вроде", "наверное", "наверно", "думаю", "пожалуй", "скорее", "конечно", "так", "ага",
    "а", "ой", "ах", "да", "же", "уж", "ладно", "верно", "точно",
})  # fmt: skip
# "Да нет, всё верно": a "нет" said first, as "Нет, всё верно" is.
_YES_NO = re.compile(r"^(\W*)да\s+нет\b", re.IGNORECASE)


def without_and_da(text: str) -> str:
    """`text` with each "да" that means "and" said as "и", and a leading "да нет" as "нет"
    (read for its words only: positions in it are not those of `text`)."""

    def _and(found: re.Match[str]) -> str:
        before = re.findall(r"\w+", text[: found.start()])
        if before and before[-1].lower() in _YES_DA_AFTER:
            return found.group()
        return " и"

    return _YES_NO.sub(r"\1нет", _AND_DA.sub(_and, text))
