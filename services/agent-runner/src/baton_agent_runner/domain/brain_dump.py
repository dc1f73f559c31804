"""Reading a brain dump: its inbox items, and whether it ends with "that's all" (the words
that say it are read in `finishing`)."""

# ruff: noqa: RUF001, RUF002, RUF003  (Russian text, comments too, is meant to be Cyrillic)

from __future__ import annotations

import re
from collections.abc import Generator, Iterator
from functools import lru_cache
from itertools import chain

from baton_agent_runner.domain import readiness
from baton_agent_runner.domain.action_lists import (
    actions,
    afterthoughts,
    is_action,
    lists_actions,
    sentences,
)
from baton_agent_runner.domain.closing_words import only_closing, without_closing
from baton_agent_runner.domain.extracted import holds, trimmed_item
from baton_agent_runner.domain.finishing import (
    GOES_ON,
    LEADING,
    TRAILING,
    asked_after,
    declines,
    is_done,
)
from baton_agent_runner.domain.greeter_questions import topic_of
from baton_agent_runner.domain.inbox_requests import (
    inbox_request_at,
    only_reminder,
    without_reminder,
)
from baton_agent_runner.domain.one_line_lists import list_entries
from baton_agent_runner.domain.questions import (
    question_start,
    questions,
    short_about_finishing,
    unmarked_question_start,
)
from baton_agent_runner.domain.wording import INITIAL_DOT, normalised, without_end, words

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
    # Not knowing, or not wanting to ("хз", "лень", "idk") was saved as an item; so was "не
    # знаю даже", "честно, не знаю".
    "хз", "лень", "неохота", "idk", "dunno", "lol", "даже", "честно", "вообще", "honestly",
    # Filler before a request ("короче напомни купить корм", "blah blah remind me to ...").
    "короче", "кароче", "короч", "blah", "anyway", "anyways",
    # Laughing alone ("лол", "кек", "ахах") was saved as an item; "lol" was not.
    "лол", "кек", "хах", "хаха", "хахах", "ахах", "ахаха", "ахахах",
    # Interjections and filler alone ("please", "oh", "ну вот", "блин") were saved as items;
    # drawn-out ones ("ohhh", "ммм", "эээ") are read by `_INTERJECTION`.
    "please", "pls", "plz", "oh", "ah", "er", "erm", "ugh", "meh", "well", "so", "hm", "wow",
    "welp", "okey", "пожалуйста", "плиз", "плз", "ой", "ах", "ох", "эх", "ух", "мм", "вот",
    "блин", "а", "о", "э",
})  # fmt: skip
# A drawn-out interjection ("ohhh", "hmmm", "ummm", "ммм", "эээ", "ааа"): no item, as "oh" is.
_INTERJECTION = re.compile(r"(?:o+h+|a+h+|u+h+|u+m+|h+m+|e+r+m*|м+|э+м*|х+м+|о+|а+|у+)")
# Adding more later ("потом допишу", "I'll add more later") puts it off, as "потом" does.
_ADDING_LATER = frozenset({
    "допишу", "добавлю", "напишу", "вспомню", "дальше", "i'll", "ill", "will", "add", "more",
    "write", "the", "rest", "остальное",
})  # fmt: skip
# Asking to skip the step ("skip", "пропустим", "let's skip this") puts the items off, as
# "потом" does: it was saved as an item.
_SKIP = frozenset({
    "skip", "skipping", "пропустим", "пропусти", "пропустите", "пропустить", "пропускаем",
    "пропускай",
})  # fmt: skip
_SKIPPING = _SKIP | readiness.PUTTING_OFF | {"step", "шаг", "этот", "это", "the", "for", "now"}
# Talk about the step itself ("so brain dump huh", "а, выгрузка мыслей") is no item either.
_ABOUT_THE_STEP = frozenset({
    "brain", "dump", "braindump", "dumping", "inbox", "step", "выгрузка", "выгрузку", "выгрузки",
    "инбокс", "шаг",
})  # fmt: skip
_TALK = _ABOUT_THE_STEP | _ACK | _HESITATION | LEADING | {
    "so", "huh", "oh", "a", "the", "this", "is", "it", "ok", "hmm", "well", "мыслей", "мысли",
    "мозговой", "штурм", "так", "значит", "итак", "а", "о", "ох",
}  # fmt: skip
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
    r"(?:\[[ xX✓]?\]\s*)?(?:[☐☑✓✔✅•▪◦–—-]\ufe0f?\s+)?",
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
# The exception's spaces are read from the first of a run (`(?<!\s)`), and so is a run of
# stops (`(?<![,.!?…:])`): tried from each, a run of thousands took seconds ("." 8,000 times
# before "done": 1.5 s at discovery, "?" before "health?": 2.9 s at the brain dump).
_PHRASE_END = re.compile(
    rf"(?<![,.!?…:])(?!{INITIAL_DOT})[,.!?…:]+(?:\s+|$)|\s[—–-]\s|(?<!\s)\s+(?={_EXCEPTING})",
    re.IGNORECASE,
)
_LONE_CAPITAL_AT_END = re.compile(r"(?<![\w'])[A-ZА-ЯЁ]$")  # an initial, when a dot follows
# Phrases of nothing but these before an item answer the agent or hedge; no part of the item.
_PREAMBLE = _ACK | _HESITATION | LEADING | {"еще", "а", "also", "plus"}
# Second thoughts after "that's all" take it back: "Всё. Хотя нет, ..." is not done yet.
_TAKE_BACK = frozenset({"хотя", "погоди", "подожди", "стоп", "actually", "wait", "hold"})
# Before "that's all", a part of nothing but these hedges or acknowledges it.
_HEDGES = _ACK | LEADING
# After "that's all", phrases of nothing but these are thanks or second thoughts, no item
# ("Это всё, спасибо!", "Всё. Хотя нет, ...").
_AFTERWORDS = _ACK | LEADING | TRAILING | _TAKE_BACK | {
    "ой", "хм", "за", "помощь", "bye", "oh", "hmm", "on", "the", "help", "much", "a",
    "lot", "that's", "thats",
}  # fmt: skip
_SEPARATORS = " ,.!?…:—–-"
# Words that join an afterthought on ("Всё. Хотя нет, ещё купить хлеб"); an initial is none
# ("А. Иванову написать").
_JOINING = re.compile(
    r"^(?:(?:и|а|ещ[её]|also|oh\s+and|and|plus)\b(?!\.)[\s,:—–-]*)+", re.IGNORECASE
)


def says_done(text: str) -> bool:
    """The message says "это всё", "готово", "that's all", "done", and no item follows."""
    return _reading(text)[1]


def asks(text: str) -> bool:
    """A line of the message asks something ("что будет с этими задачами?", "what happens to
    these?", or without its "?": "а что дальше"), other than whether that is all ("Всё?", "Is
    that all?", "Are we done?")."""
    return bool(_asked(text))


def asked_about(text: str) -> str | None:
    """The topic of Baton's own (`greeter_questions`: "how long does this take?", "who will see
    this", "is this free") that a question of the message asks about, for the brain dump to
    answer as discovery does (`texts.faq_<topic>`); None when it asks of none."""
    return next(filter(None, map(topic_of, _asked(text))), None)


# How many items the step needs, or why three ("why do you need 3 items?" got why Baton asks
# about priorities; "how many do I need?" what becomes of the items).
_HOW_MANY = re.compile(
    r"\bhow\s+many(?:\s+more)?(?:\s+(?:items|things|tasks|entries|do\s+(?:you|i)|should\s+i"
    r"|are\s+(?:needed|left)|left)\b|\W*$)"
    r"|\bwhy\s+(?:do\s+you\s+need\s+|only\s+|exactly\s+)?(?:3|three)\b"
    r"|\bсколько\s+(?:нужно|надо|их|пунктов|записей|дел)|\b(?:зачем|почему)\s+(?:3|три|тр[её]х)\b"
)


def asks_how_many(text: str) -> bool:
    """A question of the message asks how many items the step needs, or why three."""
    return any(_HOW_MANY.search(normalised(question)) for question in _asked(text))


@lru_cache(maxsize=64)  # a turn asks whether the message asks, and about what
def _asked(text: str) -> tuple[str, ...]:
    """The questions the message asks (`asks`), each without its "?"."""
    lines = [_BULLET.sub("", part).strip() for part in _parts(text)]
    marked = [
        question
        for line in lines
        for question in questions(line)
        if not (is_done(question) or short_about_finishing(question))
        # "could you remind me to call mom?" asks for an item, answered by saving it.
        and inbox_request_at(question) is None
    ]
    unmarked = [
        line[start:] for line in lines if (start := unmarked_question_start(line)) is not None
    ]
    return (*marked, *unmarked)


def unlisted(text: str) -> str:
    """The text with each entry of a list on a line of its own, without its bullet or number
    ("1. Work 2. Family" is "Work\nFamily"), as discovery reads areas: the numbers went into
    the facts ("Work 2", "Family 3") and a bullet stayed in front ("- work")."""
    return "\n".join(
        _BULLET.sub("", entry, count=1)
        for line in text.splitlines()
        for entry in list_entries(line)
    )


def split_items(text: str) -> list[str]:
    """Items of a brain dump: one per line, bullet, numbered entry or semicolon-separated
    part, and one per action a sentence lists (`action_lists`); not "that's all", a
    question, a heading ("Мои дела:") or a bare "ок"."""
    return list(_reading(text)[0])


def puts_off(text: str) -> bool:
    """The message puts it off ("потом", "not now", "maybe later"), or asks to note nothing but
    that ("Запиши в inbox: потом", "Put in my inbox: later")."""
    if readiness.puts_off(text):
        return True
    said = words(text)
    if _SKIP.intersection(said) and set(said) <= _SKIPPING:
        return True
    if readiness.LATER.intersection(said) and all(
        word in readiness.PUTTING_OFF or word in _ADDING_LATER for word in said
    ):
        return True
    found = inbox_request_at(text)
    return found is not None and found.put_off


def dumped_items(text: str) -> list[str]:
    """The items of a brain dump that may ask for them ("Запиши в inbox: купить молоко"):
    those of `split_items`, the request's own words left out, and a remark on how the user is
    before it (`_remark`) too."""
    found = inbox_request_at(text)
    if found is None:
        return split_items(text)
    before = [item for item in split_items(text[: found.start]) if not _remark(item)]
    return before + split_items(found.item)


# Words that open a remark on how the user is ("I'm swamped", "ugh, so busy", "я в завале",
# "у меня завал"), said before asking for a reminder as the reason to ask.
_REMARK_OPENERS = frozenset({
    "i'm", "im", "i", "i've", "ive", "so", "ugh", "omg", "argh", "sigh", "man", "honestly",
    "too", "such", "я", "мне", "у", "блин", "ох", "эх", "уф", "капец", "жесть", "так", "совсем",
})  # fmt: skip


def _remark(item: str) -> bool:
    """The item, said before an inbox request, only tells how the user is ("I'm swamped, can
    you remind me to call the plumber?"): it opens with `_REMARK_OPENERS` and names no action
    ("I need to buy milk, remind me to call mom" keeps "buy milk")."""
    said = words(item)
    return bool(said) and said[0] in _REMARK_OPENERS and not lists_actions(item)


def reminds_of_nothing(text: str) -> bool:
    """A line (or bullet, or part) of the message is a reminder's lead-in alone ("не забыть",
    "не забудь!", "remember to", "don't forget"), or the item of its inbox request is ("Запиши в
    inbox: не забыть"): it names nothing to remember, and is no item (`split_items`)."""
    found = inbox_request_at(text)
    said = [text] if found is None else [text[: found.start], found.item]
    return any(
        only_reminder(_past_preamble(_BULLET.sub("", part).strip()))
        for piece in said
        for part in _parts(piece)
    )


@lru_cache(maxsize=64)  # a turn reads its message twice: for its items, and for "that's all"
def _reading(text: str) -> tuple[tuple[str, ...], bool]:
    """The message's items, and whether it says "that's all" after the last of them: an item
    after it means the user went on, and losing an item is worse than asking again."""
    items: list[str] = []
    done = False
    for part in _parts(text):
        line = _BULLET.sub("", part).strip()
        for said in _said(_doubted(line) if line != part.strip() else line):
            if isinstance(said, bool):
                done = said
            else:
                # One an earlier item holds word for word is a repeat ("email Sarah about the
                # roadmap. and remember to email Sarah"): said once.
                for item in _items_of(said):
                    if not any(holds(earlier, item) for earlier in items):
                        items.append(item)
                done = False
    return tuple(items), done


def _items_of(said: str) -> list[str]:
    """The items of what `_said` found: one per sentence ("need to renew passport. also
    dentist"), per "also" ("call grandma and also buy dog food"), per action a sentence lists
    ("call mom, fix the sink and renew my passport"), each past its own lead-in ("also", "oh
    and", "need to")."""
    found: list[str] = []
    for sentence in sentences(said):
        for piece in afterthoughts(sentence):
            if (item := _item(piece)) is not None:
                found += actions(item)
    return found


# A doubt after a listed item ("- cancel gym?? idk", "7) use it or cancel??"): the entry is
# still an item, said without the doubt; a single "?" asks something, and is no item.
_DOUBT = re.compile(
    r"\s*\?{2,}[?!.\s]*(?:(?:idk|dunno|not\s+sure|maybe|хз|не\s+знаю|наверное)\W*)*$",
    re.IGNORECASE,
)


def _doubted(line: str) -> str:
    """A bulleted or numbered line without the doubt that ends it (`_DOUBT`)."""
    return _DOUBT.sub("", line)


def _parts(text: str) -> list[str]:
    return [
        piece
        for line in text.splitlines()
        for entry in list_entries(line)
        for piece in entry.split(";")
    ]


def _said(text: str) -> Iterator[str | bool]:
    """The items a part of a line holds, in order, with True where it says "that's all" and
    False where it takes that back ("хотя нет").

    What follows a question or a "that's all" is read on its own, in a loop: read by a call
    of its own, a message of 1,600 questions ("why? why? ...") went 1,600 calls deep, past
    Python's limit, and each item passed up through all of them."""
    dones = 0  # the "that's all" after an excepted last item, said once the rest is read
    rest: str | tuple[str] | None = text
    while rest is not None:
        if isinstance(rest, tuple):
            dones += 1
            rest = rest[0]
        rest = yield from _said_up_to_next(rest)
    for _ in range(dones):
        yield True


def _said_up_to_next(text: str) -> Generator[str | bool, None, str | tuple[str] | None]:
    """The items of `text` up to a question or a "that's all", and the text after it that is
    read on its own (in a tuple if a "that's all" is to follow its items), or None at the
    end."""
    start = 0
    for phrase_end in chain(_PHRASE_END.finditer(text), [None]):
        end = len(text) if phrase_end is None else phrase_end.start()
        if is_done(text[start:end]):
            # A hedge of its own before it ("Пожалуй, это всё", "Well, that's all") is no item.
            if item := _item(_EXCEPT.sub("", text[:start]), _HEDGES):
                yield item  # "Кроме отчёта, больше ничего" keeps "отчёта"
            if (asked := asked_after(text, end)) is not None:
                # Asked, it is no answer ("Всё?", "Is that all?", "Это всё, что нужно?"), and
                # no item either: the user has yet to say it; what follows is read on its own
                # ("Это всё? Да, всё").
                return text[asked:]
            rest, taken_back = _after_done(text[end:])
            if not taken_back and (excepted := _EXCEPT.match(rest)):
                return (rest[excepted.end() :],)  # the last item, then done
            yield not taken_back
            return rest
        if phrase_end is not None and "?" in phrase_end.group():
            # A question ends its sentence: the sentences before it, or the clause before the
            # comma that opens it, may be items ("купить хлеб. А что будет с этим?", "buy milk,
            # and what happens to it?"), the question is none, and what follows it is read on
            # its own ("что будет с задачами? позвонить маме").
            asked = question_start(text, end)
            if item := _item(text[:asked]):
                yield item
            # "could you remind me to call mom? and what happens to these?": a question that
            # asks for an item is answered by saving it.
            if found := inbox_request_at(text[asked:end]):
                before = _item(text[asked : asked + found.start]) if found.start else None
                if before and not _remark(before):
                    yield before  # "buy milk, could you remind me to call mom?"
                if item := _item(found.item):
                    yield item
            return text[phrase_end.end() :]
        start = len(text) if phrase_end is None else phrase_end.end()
    # "how does this work, also buy milk": an item after "also" is no part of a question
    # asked without its "?" before it (the question took the item with it).
    for piece in afterthoughts(text):
        if item := _item(piece):
            yield item
    return None


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
    if goes_on := GOES_ON.match(rest):
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


# "too" that adds the item to the ones before it, last but for an emoji: no part of it.
_TOO = re.compile(r"(?<![\s,])[\s,]+(?:too|as\s+well|тоже)(?=[^\w]*$)", re.IGNORECASE)
# Chat filler around an item, said without a comma to part it off: "hmm idk maybe learn
# spanish", "oh yeah and the car needs an oil change", "ой и машину на ТО записать", "call mom
# lol", "buy milk pls" each kept it. Not "so", "well", "ok", which open items too ("so many
# bills", "well pump repair"). A run of spaces is read from its first (`(?<![\s,])`).
_FILLER_START = re.compile(
    r"^(?:(?:h+m+|u+m+|u+h+|oh|ah|yeah|idk|anyways?|ой|ну|х+м+|э+м+|ах|короче)\b[\s,!.…—–-]*)+"
    r"(?=\w)",
    re.IGNORECASE,
)
_FILLER_END = re.compile(
    r"(?<![\s,])[\s,]+(?:lol|lmao|haha|hahaha|pls|plz|please|пожалуйста|плиз|плз|лол|хаха)"
    r"(?=[^\w]*$)",
    re.IGNORECASE,
)


def _item(text: str, filler: frozenset[str] = _ACK | _HESITATION) -> str | None:
    """The item `text` holds, past the answer or hedge before it ("Да, купить хлеб", "Нет,
    ещё: отчёт"); none when it is a question, a heading or only `filler` words
    (acknowledgements and hesitation, unless told otherwise) or a short decline ("not now",
    "пока ничего"). A question asked without its "?" that ends it is none of it either
    ("купить хлеб. А что дальше" holds "купить хлеб")."""
    if (asked := unmarked_question_start(text)) is not None:
        text = text[:asked]
    # "не забыть оплатить интернет", "remember to call mom": the reminder is no part of it.
    # "позвонить маме!": the "!" ends the sentence, and is no part of the item.
    said = trimmed_item(_past_preamble(text))
    said = _JOINING.sub("", _FILLER_START.sub("", said))  # "oh yeah and the car ..."
    item = without_reminder(without_end(said, ".,;:—–- ").strip())
    # "oh and fix the bike too 🚲": "fix the bike 🚲"; "call mom lol": "call mom"; "call mom,
    # etc, thanks!": "call mom".
    item = _TOO.sub("", without_closing(_FILLER_END.sub("", item)))
    if not item or only_closing(item) or text.rstrip().endswith(("?", ":")):
        return None
    said_nothing = all(token in filler or _INTERJECTION.fullmatch(token) for token in words(item))
    said_nothing = said_nothing or declines(item)
    said_nothing = said_nothing or only_reminder(item)  # "не забыть", "don't forget": of what?
    said_nothing = said_nothing or _about_the_step(item) or _small_talk(text)
    return None if said_nothing or _waits(item) else item


def _about_the_step(text: str) -> bool:
    """The text only talks about the step ("so brain dump huh")."""
    tokens = set(words(text))
    return bool(tokens & _ABOUT_THE_STEP) and tokens <= _TALK


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


def _waits(text: str) -> bool:
    """The text only asks for a moment ("wait a moment", "Подожди немного")."""
    tokens = set(words(text))
    return bool(tokens & _WAIT) and tokens <= _WAITING | _HESITATION | _ACK


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
