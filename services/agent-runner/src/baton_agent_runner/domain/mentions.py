"""What a clause says of a life area it names: that it matters (named), that it is the wrong
one ("кроме работы"), or that it does not ("у меня нет хобби", "hobbies don't matter")."""

# ruff: noqa: RUF001, RUF002, RUF003  (Russian text, comments too, is meant to be Cyrillic)

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable
from typing import Literal

from baton_agent_runner.domain.areas import MATTERS, UNIMPORTANT, named_in
from baton_agent_runner.domain.wording import is_negation, words

Mention = Literal["named", "declined", "wrong"]

# Words that may stand between a negation and the area it declines ("у меня нет хобби", "I
# don't have any hobbies", "мне не важна работа"), and after the area before its "нет".
_BETWEEN = frozenset({
    "у", "меня", "нас", "мне", "особо", "вообще", "сейчас", "пока", "никакого", "никаких",
    "have", "has", "any", "really", "much", "time", "for", "about", "care", "i", "i've", "my",
    "me", "right", "now", "is", "are", "a", "the", "important", "важна", "важно", "важен",
    "главное", "про", "о", "об", "all", "пожалуйста", "please", "from", "of",
})  # fmt: skip
# And words that may stand only after the area, before what it says of it ("Работа для меня
# не главное", "Работа — это не важно", "hobbies do not matter"): before it they would join a
# "нет" to what it answers ("нет, это работа").
_AFTER = frozenset({"для", "это", "do", "does", "to"})
_DECLINE_REACH = 4
# Saying the user will not talk of an area declines it as not caring does ("I dont care
# about work"): "не хочу говорить о работе", "I don't want to talk about work", "I'd rather
# not discuss work". These words stand between the negation and the area beside `_BETWEEN`
# and do not count toward `_DECLINE_REACH`; the wanting words only before a talking one ("Не
# хочу работать по выходным", "I don't have to work weekends" say how work goes).
_TALK = frozenset({
    "говорить", "поговорить", "обсуждать", "рассказывать", "talk", "discuss", "speak",
})  # fmt: skip
_WANT = frozenset({"хочу", "хотелось", "хотел", "хотела", "бы", "want", "wanna", "to"})
# Pointing at an area as the wrong one, without saying what is right ("кроме работы").
_WRONG = frozenset({"кроме", "except", "wrong", "неверно", "неправильно", "насчет", "apart"})
# Asking to take an area out of the summary: it is declined too.
_REMOVE = frozenset({
    "убери", "уберите", "удали", "удалите", "вычеркни", "забудь", "убрать", "удалить",
    "remove", "delete", "drop", "forget", "scrap",
    # "no, scratch hobbies" kept hobbies, as "scratch hobbies"; "вместо хобби — учёба" too.
    "scratch", "вычеркните", "забудьте", "вместо", "instead",
})  # fmt: skip
# "No" words that are no negation of the word after them ("нет" answers a question in
# `wording`), but decline an area before it: "нет хобби", "no hobbies", "neither work nor
# hobbies".
_NO = frozenset({"нет", "no", "neither", "nor"})
# A negation that ends a phrase after an area leaves out what it negates: "hobbies don't",
# "хобби не".
_ELLIPTIC = frozenset({
    "не", "not", "don't", "doesn't", "isn't", "aren't", "dont", "doesnt", "isnt", "arent",
})  # fmt: skip
# A negated area word said with how well it goes is a concern, no decline: "not sleeping
# enough", "I don't sleep well", "не сплю нормально"; so is one whose own meaning is "enough"
# ("не высыпаюсь": not sleeping enough). "I don't work" still declines work.
_HOW_WELL = frozenset({
    "enough", "well", "properly", "right", "regularly", "достаточно", "нормально", "толком",
    "хорошо", "регулярно", "вдоволь",
})  # fmt: skip
_ENOUGH_IN_IT = ("высып", "выспа")
_PHRASE_START = re.compile(r"[,:—–]|\s-\s")
# How far around an area word its phrase is read, in characters: far more than any phrase
# people write. Read whole, a message naming an area a thousand times ("work work ...", 8,000
# characters) took minutes: each mention split and read the whole text before and after it.
_NEAR = 300


def said_of(
    clause: str, at: int, bare: Callable[[int], int | None], after: Callable[[int], int | None]
) -> Mention:
    """What the clause says of the area word at `at` (`_said_to`); for one listed bare
    before another (`bare`, of `listings.listed_bare` by `sharing`), what it says after that
    one ("Hobbies and work don't matter" declines both; "I have work and no hobbies" only
    hobbies); and for one listed bare after another (`after`, of `listings.listed_after`), a
    "no" before that one (`_no_shared`: "нет хобби и спорта" declines both)."""
    said = _said_to(clause, at)
    if said == "named":
        shared = bare(at)
        if shared is not None and _declined_after(words(clause[shared : shared + _NEAR])[1:]):
            return "declined"
        first = after(at)
        if first is not None and _no_shared(clause, first):
            return "declined"
    return said


def sharing(listed: list[tuple[int, int, int]]) -> Callable[[int], int | None]:
    """For a place in the clause, the `at` of the first of the `listed` (start, end, at) whose
    part holds it, or None: the parts are a clause's groups (`listings`), one after another,
    so the one that holds a place is found by a binary search. Looked for along the list for
    each area word, a listing of thousands of areas ("work and health and ...") took
    discovery seconds."""
    firsts: dict[tuple[int, int], int] = {}
    for start, end, other in listed:
        firsts.setdefault((start, end), other)
    spans = sorted(firsts)
    starts = [start for start, _ in spans]

    def shared(at: int) -> int | None:
        n = bisect_right(starts, at) - 1
        return firsts[spans[n]] if n >= 0 and at < spans[n][1] else None

    return shared


def _no_shared(clause: str, at: int) -> bool:
    """The words before the area word at `at` decline it with a "no" that the areas listed
    bare after it share: "нет", "no" ("нет хобби и спорта", "no hobbies or sport"), a request
    to take it out ("убери хобби и спорт"), or a negation with words between ("I don't have
    hobbies or sport", "мне не важна работа и здоровье"). Not a negation right before the area
    word, which may be a verb's alone ("Я не работаю и учусь": the user studies)."""
    before = words(_PHRASE_START.split(clause[max(0, at - _NEAR) : at])[-1])
    for back in _reach(before):
        token = before[back]
        if token in _NO or (is_negation(token) and back < len(before) - 1):
            return True
        if token in _REMOVE:
            return back == 0 or not is_negation(before[back - 1])
        if token not in _BETWEEN and not _talking(before, back):
            return False
    return False


def _reach(before: list[str]) -> list[int]:
    """Where a negation before an area may stand, last first: the last `_DECLINE_REACH` words,
    past the words of talking (`_TALK`: "не хочу говорить о", "don't want to talk about")."""
    found: list[int] = []
    counted = 0
    for back in range(len(before) - 1, -1, -1):
        found.append(back)
        counted += not _talking(before, back)
        if counted >= _DECLINE_REACH:
            break
    return found


def _talking(before: list[str], back: int) -> bool:
    """Whether the word at `back` is one of talking (`_TALK`), or of wanting before one."""
    token = before[back]
    return token in _TALK or (token in _WANT and any(w in _TALK for w in before[back + 1 :]))


def _said_to(clause: str, at: int) -> Mention:
    """What the clause says of the area word at `at`: "wrong" after "кроме", "except", "wrong
    about", with nothing after it; "declined" after a negation or "neither"/"nor", past words
    such as "have", "any", "у меня" ("нет хобби", "I don't have any hobbies"), asked to be
    taken out ("убери хобби"), with a "нет" after it ("хобби у меня нет"), a negation ending
    its phrase ("hobbies don't"), its importance negated ("работа не важна", "isn't a
    priority") or said to be none (`UNIMPORTANT`: "хобби неважны", "means nothing to me");
    else "named". A "no" answering the summary ("No, work means
    ...") is a phrase of its own."""
    near = clause[max(0, at - _NEAR) : at]
    before, after = words(_PHRASE_START.split(near)[-1]), words(clause[at : at + _NEAR])[1:]
    for back in _reach(before):
        token = before[back]
        if token in _WRONG:  # with what is right after it, a correction like any other
            return "wrong" if set(after) <= _BETWEEN else "named"
        if token in _REMOVE:  # "Убери хобби", "forget about work"; not "не забудь про спорт"
            return "declined" if back == 0 or not is_negation(before[back - 1]) else "named"
        if is_negation(token) or token in _NO:
            return "named" if _how_it_goes(before[back + 1 :], clause, at) else "declined"
        if token not in _BETWEEN and not _talking(before, back):
            break
    phrase = words(_PHRASE_START.split(clause[at : at + _NEAR])[0])[1:]
    if phrase and phrase[-1] in _ELLIPTIC and set(phrase[:-1]) <= _BETWEEN | _AFTER:
        return "declined"  # "Work and health matter, hobbies don't"
    declined = _declined_after(after) or _denied_after_a_comma(clause[at:])
    return "declined" if declined else "named"


def _denied_after_a_comma(said: str) -> bool:
    """A bare "not a priority" after the comma that ends the area's phrase, naming no area of
    its own, says it of that area: "work is ok i guess, not a priority" kept work."""
    parts = said.split(",", 2)
    if len(parts) < 2 or named_in(parts[1]):
        return False
    tail = words(parts[1])
    return bool(tail) and is_negation(tail[0]) and _matters(tail[1:4])


def _how_it_goes(between: list[str], clause: str, at: int) -> bool:
    """Whether a negation right before the area word at `at` says how the area goes, not
    that it is none (`_HOW_WELL`, `_ENOUGH_IN_IT`): "not sleeping enough", "не высыпаюсь"."""
    if between:
        return False
    said = words(clause[at : at + _NEAR])[:3]
    return bool(said) and (
        said[0].startswith(_ENOUGH_IN_IT) or any(word in _HOW_WELL for word in said[1:])
    )


# Asking to take it out, said after the area as Russian may: "спорт убери", "gym убери" kept
# the fact "спорт убери" in place of the area's.
_REMOVE_AFTER = frozenset({"убери", "уберите", "удали", "удалите", "вычеркни", "вычеркните"})


# An area said to be done with or off the list, on words (one space apart): "I retired, so
# work is no longer a concern" and "Work should not be on the list at all" kept work.
_RULED_OUT = re.compile(
    r"(?:no\s+longer\s+|not\s+(?:really\s+)?|isn't\s+|isnt\s+)(?:an?\s+)?(?:concern|issue"
    r"|relevant|a\s+factor)\b"
    r"|(?:should\s+not|shouldn't|shouldnt|doesn't\s+need\s+to|does\s+not\s+need\s+to)\s+be"
    r"\s+(?:on|in)\s+(?:the\s+|my\s+|this\s+)?(?:list|summary)\b"
    r"|больше\s+не\s+(?:актуальн|важн|волну)|не\s+(?:должна|должен|должно|нужна|нужно|надо)"
    r"\s+быть\s+в\s+(?:списке|итоге)\b"
)


def _declined_after(after: list[str]) -> bool:
    """The words after an area say it does not matter: "нет", its importance negated, said
    to be none (`UNIMPORTANT`), or asked to be taken out ("спорт убери")."""
    for n, token in enumerate(after[:_DECLINE_REACH]):
        if token == "нет" or (is_negation(token) and _matters(after[n + 1 : n + 3])):
            return True
        if token in _REMOVE_AFTER:
            return True
        if UNIMPORTANT.match(rest := " ".join(after[n:])):  # "неважны", "means nothing to me"
            return True
        if _RULED_OUT.match(rest):  # "no longer a concern", "should not be on the list"
            return True
        if token not in _BETWEEN and token not in _AFTER:
            break
    return False


def _matters(tokens: list[str]) -> bool:
    return any(token.startswith(MATTERS) for token in tokens)
