"""Reading "that's all" in a brain dump: the words that say the list is done ("это всё",
"that's it", a lone "готово"), whether a phrase says it or asks it ("Всё?"), a "no" to
"anything else?", and a short decline that holds no item ("not now", "пока ничего")."""

# ruff: noqa: RUF001, RUF003  (Russian text, comments too, is meant to be Cyrillic)

from __future__ import annotations

import re

from baton_agent_runner.domain.farewells import FAREWELLS
from baton_agent_runner.domain.interjections import past_interjections
from baton_agent_runner.domain.readiness import LATER, PUTTING_OFF, SAYING_NO
from baton_agent_runner.domain.readiness import NO as NO_TO_STARTING
from baton_agent_runner.domain.wording import words

# Said at the start of a part of a line: "это всё, спасибо", "больше ничего нет", "that's all
# for now". Normalised ("е" for "ё").
_DONE = (
    "это все", "на этом все", "больше ничего", "вот и все", "that's all", "thats all",
    "that is all", "that's it", "thats it", "that is it", "nothing else", "nothing more",
    "i'm done", "im done", "i am done", "ничего больше", "that's everything", "thats everything",
    "that is everything", "i'm finished", "im finished", "i am finished", "all done",
    "i'm all done", "im all done", "на сегодня все", "я закончил", "я закончила",
    # Russian in Latin letters (`translit`).
    "eto vse", "eto vsyo", "eto vsjo", "bolshe nichego",
    # "на этом пока всё" was saved as an item.
    "на этом пока все", "на этом пока что все",
)  # fmt: skip
_DONE_WORDS = tuple(phrase.split() for phrase in _DONE)
# Asking for the next step ("next step", "let's move on", "давай дальше") says the list is
# done: "go to the next step" was saved as an inbox item, and the step never moved on.
_MOVING_ON = (
    "next", "next step", "next step please", "go to the next step", "go on to the next step",
    "move on", "let's move on", "lets move on", "move on to the next step", "can we move on",
    "let's go to the next step", "lets go to the next step", "skip to the next step",
    "skip to the end", "on to the next step", "onto the next step", "дальше", "давай дальше",
    "идем дальше", "пойдем дальше", "пошли дальше", "следующий шаг", "на следующий шаг",
    "переходим к следующему шагу", "перейдем к следующему шагу", "давай следующий шаг",
    "давай к следующему шагу", "к следующему шагу",
)  # fmt: skip
# Done only as the whole part, give or take a "спасибо": inside an item they are its words
# ("get the report done", "проверить, готово ли платье", "no more sugar").
_DONE_ALONE = (
    "готово", "все", "done", "finished", "закончил", "закончила", "закончили", "хватит",
    "достаточно", "enough", "vse", "vsyo", "vsjo", "gotovo", "hvatit", "khvatit",
    # Typed in a hurry ("dun", "donee", "doen"): saved as items.
    "dun", "donee", "doen",
)  # fmt: skip
_DONE_WHOLE = frozenset({
    "все готово", "я все", "все на сегодня", "больше нет", "больше нечего", "нечего больше",
    "no more", "that's enough", "thats enough", "that is enough", "we're done", "we are done",
    # "I'm good" to "Anything else?": "nah im good", "that should be it" were saved as items.
    "i'm good", "im good", "we're good", "were good", "we are good", "all good", "all set",
    "i'm all set", "im all set", "that should be it", "that should be all", "that'd be it",
    "that's about it", "thats about it", "that's about all", "thats about all", "finito",
    # "nope, nothing to add" saved "nothing to add"; "No, I think that covers it." its words.
    # "на сегодня хватит", "ну вот как-то так", "всё вроде бы" were saved as items.
    "на сегодня хватит", "хватит на сегодня", "как то так", "вот как то так", "все вроде бы",
    "вроде бы все",
    "nothing to add", "nothing else to add", "nothing more to add", "нечего добавить",
    "добавить нечего", "that covers it", "that covers everything", "that about covers it",
    # "всё записал", "мне больше нечего добавить", "that'll do" were saved as items.
    "все записал", "все записала", "я все записал", "я все записала", "все написал",
    "все написала", "больше нечего добавить", "мне нечего добавить", "мне больше нечего добавить",
    "i have nothing to add", "i have nothing else to add", "i have nothing more to add",
    "that'll do", "thatll do", "that will do", "that'll be all", "that will be all",
    "that'll be it", "that will be it",
    *_MOVING_ON,
    *FAREWELLS,
})  # fmt: skip
# A "no" to the agent's "anything else?": no item, and done ("Нет", "Nope, nothing", "Ничего,
# спасибо"); not "Нет, ещё кое-что", "Ничего не приходит в голову".
_NO = frozenset({"нет", "неа", "ничего", "no", "nope", "nah", "nothing"})
_NO_AND = _NO | {
    "больше", "else", "more", "спасибо", "thanks", "thank", "you", "ну", "вроде", "пожалуй",
    "наверное", "думаю", "кажется", "well", "i", "think", "guess", "really", "пока", "for", "now",
}  # fmt: skip
# A short decline holds no task: "Not really", "not now", "maybe later", "nothing right now",
# "не сейчас", "потом", "пока ничего". Every word one of `_DECLINING`, one of them a "no", a
# "nothing" or a "later" (`_DECLINE_KEYS`): "later: call the bank" and "потом купить хлеб" are
# items, as is any line with a word of its own.
_DECLINE_KEYS = _NO | NO_TO_STARTING | LATER
_DECLINING = _NO_AND | SAYING_NO | PUTTING_OFF | {
    "right", "at", "the", "moment", "just", "today", "на", "данный", "момент", "сегодня",
    "особо", "хм", "hmm",
    # "nothing special", "not much", "nothing in particular", "ничего особенного" were saved
    # as items.
    "much", "special", "particular", "in", "anything", "особенного", "особенное", "такого",
}  # fmt: skip
NOTHING_COMES = (
    r"nothing\s+(?:else\s+|more\s+)?(?:comes|springs)\s+to\s+mind"
    r"|i\s+(?:can't|cant|cannot)\s+think\s+of\s+anything(?:\s+(?:else|more))?"
    r"|ничего\s+(?:(?:больше|еще|пока)\s+)*не\s+приходит\s+в\s+голову"
    r"|в\s+голову\s+(?:(?:больше|еще|пока)\s+)*ничего\s+не\s+приходит"
)
"""Saying that nothing comes to mind ("Nothing comes to mind", "I can't think of anything
else", "ничего не приходит в голову"), as a pattern for normalised text: a "nothing", read
as one (`declines`, and discovery's "nothing to add")."""
_NOTHING_COMES = re.compile(rf"\b(?:{NOTHING_COMES})\b")
# Words that may stand before "that's all" ("ну, вроде это всё", "I think that's all") and
# after a lone "готово" ("готово, спасибо").
LEADING = frozenset({
    "ну", "вроде", "пожалуй", "наверное", "наверно", "кажется", "да", "ок", "окей", "и", "пока",
    "вот", "теперь", "думаю", "это", "нет", "well", "ok", "okay", "so", "yes", "yeah", "and",
    "i", "think", "guess", "now", "no",
    # Said again ("nope thats it", "i said thats it", "я же сказал, всё") it is still done.
    "nope", "nah", "said", "told", "you", "же", "сказал", "сказала", "говорю",
    # Openers of what the user is about to say ("Короче так:", "Значит так:", "Итак:", "В
    # общем,", "Слушай,"): "Значит так: купить хлеб" was one item as said, "Короче так: надо
    # починить кран" saved "так: надо починить кран", "в общем, всё" saved "в общем".
    "короче", "кароче", "так", "значит", "итак", "в", "общем", "вообщем", "целом", "слушай",
    "слушайте", "смотри", "смотрите",
    # "ок тогда всё" was saved as an item; "k thats all", "yep that's it" were not heard.
    "тогда", "then", "k", "kk", "yep", "yup", "ya",
    # "I believe that is all for now", "I suppose that's it" were saved as items.
    "believe", "suppose", "reckon",
})  # fmt: skip
TRAILING = frozenset({"спасибо", "пока", "нет", "thanks", "thank", "you", "for", "now"})
# ", что ..." goes on with "that's all" ("Это всё, что я помню"); a colon after it may still
# bring an item ("Всё, что нужно для отпуска: купить билеты").
GOES_ON = re.compile(r",\s*(?:что|чем)\b(?!-)[^,.!?…:;]*", re.IGNORECASE)
_ASKED = re.compile(r"[^\S\n]*[.!…]*\?[?!.…]*\s*")  # a question mark where a phrase ends


def moves_on(text: str) -> bool:
    """The message only asks for the next step ("next step", "let's move on", "дальше"):
    "that's all" to the brain dump, but to discovery's follow-up question a pass, as "skip"."""
    tokens = [t for t in words(text) if t not in _AROUND]
    return " ".join(tokens) in _MOVING_ON


def says_no(text: str) -> bool:
    """The message is a "no" and nothing more ("Нет", "Nope, nothing", "Ничего, спасибо"):
    said to "anything else?", it is done."""
    tokens = set(words(text))
    return not text.rstrip().endswith("?") and bool(tokens & _NO) and tokens <= _NO_AND


def declines(text: str) -> bool:
    """The message is a short decline and nothing more ("Not really", "maybe later", "nothing
    right now", "не сейчас", "пока ничего", "nothing comes to mind"): no item, answered as a
    bare "no" is; "nothing comes to mind but the dentist" says more."""
    tokens = set(_NOTHING_COMES.sub("nothing", " ".join(words(text))).split())
    return not text.rstrip().endswith("?") and bool(tokens & _DECLINE_KEYS) and tokens <= _DECLINING


def asked_after(text: str, end: int) -> int | None:
    """Where the question ends when "that's all", ending at `end`, is asked, directly or with a
    clause going on with it ("Это всё, что нужно?"); None when it is said."""
    going_on = GOES_ON.match(text, end)
    asked = _ASKED.match(text, going_on.end() if going_on else end)
    return None if asked is None else asked.end()


def is_done(phrase: str) -> bool:
    # "hmm I think that's it", "umm that's it", "lol that's all" were not heard.
    tokens = past_interjections(words(phrase), LEADING)
    for at in range(len(tokens) + 1):
        if any(tokens[at : at + len(want)] == want for want in _DONE_WORDS):
            return True
        if at == len(tokens) or tokens[at] not in LEADING:
            break
    core = [t for t in tokens if t not in LEADING and t not in TRAILING]
    return (len(core) == 1 and core[0] in _DONE_ALONE) or _done_whole(tokens) or _mistyped(tokens)


# "that's all" typed in a hurry ("thats al", "taht's all", "thta's it") was saved as an item.
_TYPED = ("thats all", "thats it", "это все")


def _mistyped(tokens: list[str]) -> bool:
    """The phrase, past the words that may stand around "that's all" ("ok thats al thanks"),
    is one of `_TYPED` with one letter added, dropped, changed or two neighbours swapped, its
    first letter kept and its apostrophes left out."""
    start, end = 0, len(tokens)
    while start < end and tokens[start] in LEADING:
        start += 1
    while end > start and tokens[end - 1] in TRAILING:
        end -= 1
    # The whole phrase too: "это", which may stand before "это всё", begins "это вс".
    said = {" ".join(part).replace("'", "") for part in (tokens, tokens[start:end])}
    return any(each != want and _one_edit(each, want) for each in said for want in _TYPED)


def _one_edit(said: str, want: str) -> bool:
    if not said or said[0] != want[0] or abs(len(said) - len(want)) > 1:
        return False
    if len(said) == len(want):
        diff = [i for i, (a, b) in enumerate(zip(said, want, strict=True)) if a != b]
        swapped = (
            len(diff) == 2
            and diff[1] == diff[0] + 1
            and (said[diff[0]], said[diff[1]]) == (want[diff[1]], want[diff[0]])
        )
        return len(diff) == 1 or swapped
    short, long_ = sorted((said, want), key=len)
    return any(long_[:i] + long_[i + 1 :] == short for i in range(len(long_)))


def _done_whole(tokens: list[str]) -> bool:
    """A phrase of `_DONE_WHOLE` ("больше нет", "that's enough") is the whole part, give or
    take the words before and after "that's all" ("Нет, больше нет", "Всё готово, спасибо")."""
    # Only the words before the first word not `_AROUND` may go before the phrase, and only
    # those after the last one after it; and the phrase is at most `_LONGEST_WHOLE` words. A
    # message of 4,000 "и" tried every span of every length, each joined anew: minutes.
    n = len(tokens)
    first = next((at for at, token in enumerate(tokens) if token not in _AROUND), n - 1)
    last = next((at for at in range(n - 1, -1, -1) if tokens[at] not in _AROUND), -1)
    for start in range(min(first, n - 1) + 1):
        for end in range(max(last + 1, start + 1), min(n, start + _LONGEST_WHOLE) + 1):
            if " ".join(tokens[start:end]) in _DONE_WHOLE:
                return True
    return False


_AROUND = LEADING | TRAILING
_LONGEST_WHOLE = max(len(phrase.split()) for phrase in _DONE_WHOLE)
