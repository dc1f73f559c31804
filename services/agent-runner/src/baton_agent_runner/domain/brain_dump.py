"""Reading a brain dump: its inbox items and "that's all"."""

# ruff: noqa: RUF001, RUF002, RUF003  (Russian text, comments too, is meant to be Cyrillic)

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache

from baton_agent_runner.domain.inbox_requests import inbox_request_at
from baton_agent_runner.domain.one_line_lists import list_entries
from baton_agent_runner.domain.questions import (
    question_start,
    questions,
    short_about_finishing,
    unmarked_question_start,
)
from baton_agent_runner.domain.wording import INITIAL_DOT, without_end, words

# Said at the start of a part of a line: "это всё, спасибо", "больше ничего нет", "that's all
# for now". Normalised ("е" for "ё").
_DONE = (
    "это все", "на этом все", "больше ничего", "вот и все", "that's all", "thats all",
    "that is all", "that's it", "thats it", "that is it", "nothing else", "nothing more",
    "i'm done", "im done", "i am done", "ничего больше", "that's everything", "thats everything",
    "that is everything", "i'm finished", "im finished", "i am finished", "all done",
    "i'm all done", "im all done", "на сегодня все", "я закончил", "я закончила",
)  # fmt: skip
_DONE_WORDS = tuple(phrase.split() for phrase in _DONE)
# Done only as the whole part, give or take a "спасибо": inside an item they are its words
# ("get the report done", "проверить, готово ли платье", "no more sugar").
_DONE_ALONE = (
    "готово", "все", "done", "finished", "закончил", "закончила", "закончили", "хватит",
    "достаточно", "enough",
)  # fmt: skip
_DONE_WHOLE = frozenset({
    "все готово", "я все", "все на сегодня", "больше нет", "больше нечего", "нечего больше",
    "no more", "that's enough", "thats enough", "that is enough", "we're done", "we are done",
})  # fmt: skip
# A "no" to the agent's "anything else?": no item, and done ("Нет", "Nope, nothing", "Ничего,
# спасибо"); not "Нет, ещё кое-что", "Ничего не приходит в голову".
_NO = frozenset({"нет", "неа", "ничего", "no", "nope", "nah", "nothing"})
_NO_AND = _NO | {
    "больше", "else", "more", "спасибо", "thanks", "thank", "you", "ну", "вроде", "пожалуй",
    "наверное", "думаю", "кажется", "well", "i", "think", "guess", "really", "пока", "for", "now",
}  # fmt: skip
# Words that may stand before "that's all" ("ну, вроде это всё", "I think that's all") and
# after a lone "готово" ("готово, спасибо").
_LEADING = frozenset({
    "ну", "вроде", "пожалуй", "наверное", "наверно", "кажется", "да", "ок", "окей", "и", "пока",
    "вот", "теперь", "думаю", "это", "нет", "well", "ok", "okay", "so", "yes", "yeah", "and",
    "i", "think", "guess", "now", "no",
})  # fmt: skip
_TRAILING = frozenset({"спасибо", "пока", "нет", "thanks", "thank", "you", "for", "now"})
# A line of nothing but these acknowledges the agent; it is no item ("ок", "хорошо, давай").
_ACK = frozenset({
    "ок", "окей", "хорошо", "давай", "давайте", "ладно", "понял", "поняла", "ясно", "понятно",
    "да", "ага", "угу", "конечно", "отлично", "супер", "поехали", "спасибо", "нет", "ну",
    "ok", "okay", "fine", "sure", "yes", "yeah", "yep", "alright", "good", "great", "cool",
    "thanks", "thank", "you", "got", "it", "let's", "go", "no", "nope",
    # Greetings and "let's start" answer the agent too ("Привет", "Давай попробуем", "Sounds
    # good", "Okay let's do it"): a brain dump of them closed the step with no thought in it.
    "привет", "здравствуй", "здравствуйте", "попробуем", "начнем", "начинаем", "hi", "hello",
    "hey", "sounds", "do", "start", "begin",
})  # fmt: skip
# A line of nothing but these is hesitation or "not yet", no item: "Я пока не готов", "Hmm, let
# me think", "Это не всё", "Nothing comes to mind", "Не знаю, что писать".
_HESITATION = frozenset({
    "я", "пока", "еще", "не", "готов", "готова", "готово", "подожди", "погоди", "подождите",
    "секунду", "секундочку", "минутку", "сейчас", "дай", "дайте", "подумать", "подумаю",
    "думаю", "хм", "хмм", "эм", "ммм", "это", "все", "ничего", "приходит", "в", "голову", "знаю",
    "что", "писать", "написать", "записывать", "хочу", "i", "i'm", "im", "am", "not", "yet",
    "ready", "wait", "hold", "on", "one", "moment", "second", "sec", "minute", "let", "me",
    "think", "hmm", "um", "uh", "that's", "thats", "that", "is", "all", "done", "finished",
    "nothing", "comes", "to", "mind", "don't", "dont", "know", "what", "write", "have", "want",
    "вспомню", "вспомнить", "допишу", "соображу", "кое", "remember", "thinking", "понимаю",
    "напишу",
})  # fmt: skip
# Asking for a moment is no item either: a phrase of these words with one of `_WAIT` in it
# ("wait a moment", "hold on a sec", "Подожди немного", "Дай мне минутку"); "wait for the
# delivery" is an item.
_WAIT = frozenset({
    "подожди", "подождите", "погоди", "погодите", "секунду", "секундочку", "сек", "минутку",
    "минуточку", "минуту", "момент", "мгновение", "wait", "hold", "hang", "moment", "sec",
    "second", "minute",
})  # fmt: skip
_WAITING = _WAIT | {
    "немного", "чуть", "чуток", "одну", "пару", "мне", "пожалуйста", "a", "just", "give",
    "gimme", "please", "bit", "little", "few", "moments", "seconds", "secs", "minutes", "mins",
    "for", "it",
}  # fmt: skip
# A bullet, numbered or lettered or not, and a checkbox ("- [ ]", "[x]", "☐") after it are no
# part of the item. A number is a bullet with a space or a letter after it ("1. milk", "1.milk",
# "(1) milk"): "1.5 литра молока" is an item as it stands. A letter is one before ")" ("a)",
# "(б)"), or lowercase before ". "; "—", "·", "→" and the like are bullets as "-" is (phones
# turn "- " into "— ").
_BULLET = re.compile(
    r"^\s*(?:[-*•–—·◦▪▫‣⁃→►▸✓✔✅☐☑]\ufe0f?\s*|\d+(?:[.)]|\s+[-–—])(?:\s+|$)"
    r"|\d+[.)](?=[^\W\d_])|\((?:\d+|[a-zа-яё])\)\s*|[a-zа-яё]\)\s+|(?-i:[a-zа-яё])\.\s+)?"
    r"(?:\[[ xX✓]?\]\s*)?",
    re.IGNORECASE,
)
_EXCEPTING = (
    r"(?:кроме(?:\s+как)?|помимо|разве\s+что|за\s+исключением|except(?:\s+for)?|apart\s+from"
    r"|aside\s+from|besides|other\s+than)\b"
)
# After "that's all", an exception names the last item ("Больше ничего, кроме отчёта", "That's
# it, except renew passport"): it is saved without its "кроме", and the list is done.
_EXCEPT = re.compile(rf"^\s*{_EXCEPTING}[\s,:—–-]*", re.IGNORECASE)
# Where a line parts into phrases for finding "that's all" in it: commas, stops, colons,
# dashes, and before an exception ("больше ничего кроме отчёта").
# An initial's dot ends no phrase: "В. Петрову позвонить" keeps its "В." ("в" alone would be
# a hedge's word, and "I." or "А." no part of the item).
_PHRASE_END = re.compile(
    rf"(?!{INITIAL_DOT})[,.!?…:]+(?:\s+|$)|\s[—–-]\s|\s+(?={_EXCEPTING})", re.IGNORECASE
)
_LONE_CAPITAL_AT_END = re.compile(r"(?<![\w'])[A-ZА-ЯЁ]$")  # an initial, when a dot follows
# Phrases of nothing but these before an item answer the agent or hedge; no part of the item.
_PREAMBLE = _ACK | _HESITATION | _LEADING | {"еще", "а", "also", "plus"}
# Second thoughts after "that's all" take it back: "Всё. Хотя нет, ..." is not done yet.
_TAKE_BACK = frozenset({"хотя", "погоди", "подожди", "стоп", "actually", "wait", "hold"})
# Before "that's all", a part of nothing but these hedges or acknowledges it.
_HEDGES = _ACK | _LEADING
# After "that's all", phrases of nothing but these are thanks or second thoughts, no item
# ("Это всё, спасибо!", "Всё. Хотя нет, ...").
_AFTERWORDS = _ACK | _LEADING | _TRAILING | _TAKE_BACK | {
    "ой", "хм", "за", "помощь", "bye", "oh", "hmm", "on", "the", "help", "much", "a",
    "lot", "that's", "thats",
}  # fmt: skip
# ", что ..." goes on with "that's all" ("Это всё, что я помню"); a colon after it may still
# bring an item ("Всё, что нужно для отпуска: купить билеты").
_GOES_ON = re.compile(r",\s*(?:что|чем)\b(?!-)[^,.!?…:;]*", re.IGNORECASE)
_SEPARATORS = " ,.!?…:—–-"
_ASKED = re.compile(r"[^\S\n]*[.!…]*\?[?!.…]*\s*")  # a question mark where a phrase ends
# Words that join an afterthought on ("Всё. Хотя нет, ещё купить хлеб"); an initial is none
# ("А. Иванову написать").
_JOINING = re.compile(r"^(?:(?:и|а|ещ[её]|also|and|plus)\b(?!\.)[\s,:—–-]*)+", re.IGNORECASE)


def says_done(text: str) -> bool:
    """The message says "это всё", "готово", "that's all", "done", and no item follows."""
    return _reading(text)[1]


def says_no(text: str) -> bool:
    """The message is a "no" and nothing more ("Нет", "Nope, nothing", "Ничего, спасибо"):
    said to "anything else?", it is done."""
    tokens = set(words(text))
    return not text.rstrip().endswith("?") and bool(tokens & _NO) and tokens <= _NO_AND


def asks(text: str) -> bool:
    """A line of the message asks something ("что будет с этими задачами?", "what happens to
    these?", or without its "?": "а что дальше"), other than whether that is all ("Всё?", "Is
    that all?", "Are we done?")."""
    lines = [_BULLET.sub("", part).strip() for part in _parts(text)]
    return any(
        not (_is_done(question) or short_about_finishing(question))
        for line in lines
        for question in questions(line)
    ) or any(unmarked_question_start(line) is not None for line in lines)


def split_items(text: str) -> list[str]:
    """Items of a brain dump: one per line, bullet, numbered entry or semicolon-separated
    part; not "that's all", a question, a heading ("Мои дела:") or a bare "ок"."""
    return list(_reading(text)[0])


def dumped_items(text: str) -> list[str]:
    """The items of a brain dump that may ask for them ("Запиши в inbox: купить молоко"):
    those of `split_items`, the request's own words left out."""
    found = inbox_request_at(text)
    if found is None:
        return split_items(text)
    return split_items(text[: found.start]) + split_items(found.item)


@lru_cache(maxsize=64)  # a turn reads its message twice: for its items, and for "that's all"
def _reading(text: str) -> tuple[tuple[str, ...], bool]:
    """The message's items, and whether it says "that's all" after the last of them: an item
    after it means the user went on, and losing an item is worse than asking again."""
    items: list[str] = []
    done = False
    for part in _parts(text):
        for said in _said(_BULLET.sub("", part).strip()):
            if isinstance(said, bool):
                done = said
            else:
                items.append(said)
                done = False
    return tuple(items), done


def _parts(text: str) -> list[str]:
    return [
        piece
        for line in text.splitlines()
        for entry in list_entries(line)
        for piece in entry.split(";")
    ]


def _said(text: str) -> Iterator[str | bool]:
    """The items a part of a line holds, in order, with True where it says "that's all" and
    False where it takes that back ("хотя нет")."""
    start = 0
    for phrase_end in [*_PHRASE_END.finditer(text), None]:
        end = len(text) if phrase_end is None else phrase_end.start()
        if _is_done(text[start:end]):
            # A hedge of its own before it ("Пожалуй, это всё", "Well, that's all") is no item.
            if item := _item(_EXCEPT.sub("", text[:start]), _HEDGES):
                yield item  # "Кроме отчёта, больше ничего" keeps "отчёта"
            if (asked := _asked_after(text, end)) is not None:
                # Asked, it is no answer ("Всё?", "Is that all?", "Это всё, что нужно?"), and
                # no item either: the user has yet to say it; what follows is read on its own
                # ("Это всё? Да, всё").
                yield from _said(text[asked:])
                return
            rest, taken_back = _after_done(text[end:])
            if not taken_back and (excepted := _EXCEPT.match(rest)):
                yield from _said(rest[excepted.end() :])  # the last item, then done
                yield True
                return
            yield not taken_back
            yield from _said(rest)
            return
        if phrase_end is not None and "?" in phrase_end.group():
            # A question ends its sentence: the sentences before it, or the clause before the
            # comma that opens it, may be items ("купить хлеб. А что будет с этим?", "buy milk,
            # and what happens to it?"), the question is none, and what follows it is read on
            # its own ("что будет с задачами? позвонить маме").
            if item := _item(text[: question_start(text, end)]):
                yield item
            yield from _said(text[phrase_end.end() :])
            return
        start = len(text) if phrase_end is None else phrase_end.end()
    if item := _item(text):
        yield item


def _asked_after(text: str, end: int) -> int | None:
    """Where the question ends when "that's all", ending at `end`, is asked, directly or with a
    clause going on with it ("Это всё, что нужно?"); None when it is said."""
    going_on = _GOES_ON.match(text, end)
    asked = _ASKED.match(text, going_on.end() if going_on else end)
    return None if asked is None else asked.end()


def _past_preamble(text: str) -> str:
    """`text` from its first phrase that is not only answers, hedges and joining words, and
    past the joining words that open it ("and call mom", "ещё отчёт")."""
    start = 0
    for phrase_end in _PHRASE_END.finditer(text):
        phrase = text[start : phrase_end.start()]
        if not (set(words(phrase)) <= _PREAMBLE or _waits(phrase)):
            break
        if phrase_end.group().startswith(".") and _LONE_CAPITAL_AT_END.search(phrase):
            # "Написать А. Петрову": after a capitalised word a lone capital's dot may end a
            # sentence ("Петров В. Работа"), but here it is an initial: the verb is the item's.
            break
        start = phrase_end.end()
    return _JOINING.sub("", text[start:].lstrip())


def _after_done(rest: str) -> tuple[str, bool]:
    """What may still be an item after "that's all", past a clause going on with it ("что я
    помню"), its thanks and second thoughts ("спасибо", "хотя нет") and joining words; and
    whether those took it back."""
    if goes_on := _GOES_ON.match(rest):
        rest = rest[goes_on.end() :]
    taken_back = False
    while True:
        rest = _JOINING.sub("", rest.lstrip(_SEPARATORS))
        phrase_end = _PHRASE_END.search(rest)
        tokens = set(words(rest if phrase_end is None else rest[: phrase_end.start()]))
        waits = _waits(" ".join(tokens))  # "Done. Wait a moment": not done yet
        if not tokens or not (tokens <= _AFTERWORDS or waits):
            return rest, taken_back
        taken_back = taken_back or waits or bool(tokens & _TAKE_BACK)
        rest = "" if phrase_end is None else rest[phrase_end.end() :]


def _is_done(phrase: str) -> bool:
    tokens = words(phrase)
    for at in range(len(tokens) + 1):
        if any(tokens[at : at + len(want)] == want for want in _DONE_WORDS):
            return True
        if at == len(tokens) or tokens[at] not in _LEADING:
            break
    core = [t for t in tokens if t not in _LEADING and t not in _TRAILING]
    return (len(core) == 1 and core[0] in _DONE_ALONE) or _done_whole(tokens)


def _done_whole(tokens: list[str]) -> bool:
    """A phrase of `_DONE_WHOLE` ("больше нет", "that's enough") is the whole part, give or
    take the words before and after "that's all" ("Нет, больше нет", "Всё готово, спасибо")."""
    around = _LEADING | _TRAILING
    for start in range(len(tokens)):
        for end in range(len(tokens), start, -1):
            if " ".join(tokens[start:end]) in _DONE_WHOLE:
                return True
            if tokens[end - 1] not in around:
                break
        if tokens[start] not in around:
            break
    return False


def _item(text: str, filler: frozenset[str] = _ACK | _HESITATION) -> str | None:
    """The item `text` holds, past the answer or hedge before it ("Да, купить хлеб", "Нет,
    ещё: отчёт"); none when it is a question, a heading or only `filler` words
    (acknowledgements and hesitation, unless told otherwise). A question asked without its "?"
    that ends it is none of it either ("купить хлеб. А что дальше" holds "купить хлеб")."""
    if (asked := unmarked_question_start(text)) is not None:
        text = text[:asked]
    item = without_end(_past_preamble(text).strip(), ".,;:—–- ").strip()
    if not item or text.rstrip().endswith(("?", ":")):
        return None
    return None if all(token in filler for token in words(item)) or _waits(item) else item


def _waits(text: str) -> bool:
    """The text only asks for a moment ("wait a moment", "Подожди немного")."""
    tokens = set(words(text))
    return bool(tokens & _WAIT) and tokens <= _WAITING | _HESITATION | _ACK
