"""Reading a brain dump: its inbox items, and whether it ends with "that's all" (the words
that say it are read in `finishing`, one item in `dump_item`, the words it knows are
`dump_words`)."""

# ruff: noqa: RUF001, RUF002, RUF003  (Russian text, comments too, is meant to be Cyrillic)

from __future__ import annotations

import re
from collections.abc import Generator, Iterator
from functools import lru_cache
from itertools import chain

from baton_agent_runner.domain import readiness
from baton_agent_runner.domain.action_lists import actions, afterthoughts, sentences
from baton_agent_runner.domain.busy_reasons import puts_off_busy
from baton_agent_runner.domain.dump_item import is_remark, item_in, only_waits, past_preamble
from baton_agent_runner.domain.dump_words import (
    ADDING_LATER,
    AFTERWORDS,
    BULLET,
    EXCEPT,
    HEDGES,
    JOINING,
    PHRASE_END,
    PREAMBLE,
    SEPARATORS,
    SKIP,
    SKIPPING,
    TAKE_BACK,
)
from baton_agent_runner.domain.extracted import holds
from baton_agent_runner.domain.finishing import GOES_ON, asked_after, is_done
from baton_agent_runner.domain.greeter_questions import topic_of
from baton_agent_runner.domain.inbox_requests import inbox_request_at, only_reminder
from baton_agent_runner.domain.one_line_lists import list_entries
from baton_agent_runner.domain.questions import (
    question_start,
    questions,
    short_about_finishing,
    unmarked_question_start,
)
from baton_agent_runner.domain.sub_notes import notes_joined
from baton_agent_runner.domain.wording import LIST_COMMA, normalised, words


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
    r"|\bсколько\s+(?:(?:всего|ещ[её])\s+)?(?:нужно|надо|их|пунктов|записей|дел)|\b(?:зачем|почему)\s+(?:3|три|тр[её]х)\b"
)


def asks_how_many(text: str) -> bool:
    """A question of the message asks how many items the step needs, or why three."""
    return any(_HOW_MANY.search(normalised(question)) for question in _asked(text))


@lru_cache(maxsize=64)  # a turn asks whether the message asks, and about what
def _asked(text: str) -> tuple[str, ...]:
    """The questions the message asks (`asks`), each without its "?"."""
    lines = [BULLET.sub("", part).strip() for part in _parts(text)]
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
        BULLET.sub("", entry, count=1) for line in text.splitlines() for entry in list_entries(line)
    )


def split_items(text: str) -> list[str]:
    """Items of a brain dump: one per line, bullet, numbered entry or semicolon-separated
    part, and one per action a sentence lists (`action_lists`); not "that's all", a
    question, a heading ("Мои дела:") or a bare "ок"."""
    return list(_reading(text)[0])


def puts_off(text: str) -> bool:
    """The message puts it off ("потом", "not now", "maybe later"), or asks to note nothing but
    that ("Запиши в inbox: потом", "Put in my inbox: later"), with where the user is as the
    reason ("not right now, I'm at work", "потом, я занят")."""
    if readiness.puts_off(text) or puts_off_busy(text):
        return True
    said = words(text)
    if SKIP.intersection(said) and set(said) <= SKIPPING:
        return True
    if readiness.LATER.intersection(said) and all(
        word in readiness.PUTTING_OFF or word in ADDING_LATER for word in said
    ):
        return True
    found = inbox_request_at(text)
    return found is not None and found.put_off


def dumped_items(text: str) -> list[str]:
    """The items of a brain dump that may ask for them ("Запиши в inbox: купить молоко"):
    those of `split_items`, the request's own words left out, and a remark on how the user is
    before it (`is_remark`) too."""
    found = inbox_request_at(text)
    if found is None:
        return split_items(text)
    before = [item for item in split_items(text[: found.start]) if not is_remark(item)]
    return before + split_items(found.item)


def reminds_of_nothing(text: str) -> bool:
    """A line (or bullet, or part) of the message is a reminder's lead-in alone ("не забыть",
    "не забудь!", "remember to", "don't forget"), or the item of its inbox request is ("Запиши в
    inbox: не забыть"): it names nothing to remember, and is no item (`split_items`)."""
    found = inbox_request_at(text)
    said = [text] if found is None else [text[: found.start], found.item]
    return any(
        only_reminder(past_preamble(BULLET.sub("", part).strip()))
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
        line = BULLET.sub("", part).strip()
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
            if (item := item_in(piece)) is not None:
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
        for line in notes_joined(text).splitlines()
        for entry in _entries(line)
        for piece in entry.split(";")
    ]


# A list's heading before its items on the same line ("Todo: fix bike", "Need to: renew
# license; fix bike", "Дела: кран, банк"): the heading was kept in the first item, and the
# things after it, parted by commas, were one item. After it, a comma parts items too.
_LIST_HEADING = re.compile(
    r"^\s*(?:(?:my|our)\s+)?(?:to[\s-]?dos?(?:\s+list)?|tasks?(?:\s+list)?"
    r"|(?:things|stuff)\s+to\s+do|list|need\s+to|must\s+do"
    r"|(?:мои\s+|список\s+)?(?:дела|дел|задачи|задач)|список|надо|нужно)\s*:\s*(?=\S)",
    re.IGNORECASE,
)
_ITEM_COMMA = re.compile(rf"\s*{LIST_COMMA}\s*")


def _entries(line: str) -> list[str]:
    """The entries of a line (`list_entries`); after a list's heading (`_LIST_HEADING`), those
    of the rest of it, each comma parting one. An opener of filler before the list or its
    heading is none of it ("omg ok. 1) call mom 2) pay rent" was one item, "так, дела: купить
    хлеб" the item "дела: купить хлеб"): a line that holds no list is read as it stands."""
    listed = _listed(line)
    if listed is None and (rest := _past_opener(line)) != line:
        listed = _listed(rest)
    return [line] if listed is None else listed


def _past_opener(line: str) -> str:
    """The line from its first word that is no answer, hedge or filler (`PREAMBLE`)."""
    for word in re.finditer(r"[\w']+", line):
        if not set(words(word.group())) <= PREAMBLE:
            return line[word.start() :]
    return line


def _listed(line: str) -> list[str] | None:
    """The entries of a line that is a list: one after a heading, or two or more numbered,
    lettered or bulleted ones; None for any other line."""
    heading = _LIST_HEADING.match(line)
    if heading is None:
        entries = list_entries(line)
        return entries if len(entries) > 1 else None
    rest = line[heading.end() :]
    entries = list_entries(rest)
    return entries if len(entries) > 1 else _ITEM_COMMA.split(rest)


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
    for phrase_end in chain(PHRASE_END.finditer(text), [None]):
        end = len(text) if phrase_end is None else phrase_end.start()
        if is_done(text[start:end]):
            # A hedge of its own before it ("Пожалуй, это всё", "Well, that's all") is no item.
            if item := item_in(EXCEPT.sub("", text[:start]), HEDGES):
                yield item  # "Кроме отчёта, больше ничего" keeps "отчёта"
            if (asked := asked_after(text, end)) is not None:
                # Asked, it is no answer ("Всё?", "Is that all?", "Это всё, что нужно?"), and
                # no item either: the user has yet to say it; what follows is read on its own
                # ("Это всё? Да, всё").
                return text[asked:]
            rest, taken_back = _after_done(text[end:])
            if not taken_back and (excepted := EXCEPT.match(rest)):
                return (rest[excepted.end() :],)  # the last item, then done
            yield not taken_back
            return rest
        if phrase_end is not None and "?" in phrase_end.group():
            # A question ends its sentence: the sentences before it, or the clause before the
            # comma that opens it, may be items ("купить хлеб. А что будет с этим?", "buy milk,
            # and what happens to it?"), the question is none, and what follows it is read on
            # its own ("что будет с задачами? позвонить маме").
            asked = question_start(text, end)
            if item := item_in(text[:asked]):
                yield item
            # "could you remind me to call mom? and what happens to these?": a question that
            # asks for an item is answered by saving it.
            if found := inbox_request_at(text[asked:end]):
                before = item_in(text[asked : asked + found.start]) if found.start else None
                if before and not is_remark(before):
                    yield before  # "buy milk, could you remind me to call mom?"
                if item := item_in(found.item):
                    yield item
            return text[phrase_end.end() :]
        start = len(text) if phrase_end is None else phrase_end.end()
    # "how does this work, also buy milk": an item after "also" is no part of a question
    # asked without its "?" before it (the question took the item with it).
    for piece in afterthoughts(text):
        if item := item_in(piece):
            yield item
    return None


def _after_done(rest: str) -> tuple[str, bool]:
    """What may still be an item after "that's all", past a clause going on with it ("что я
    помню"), its thanks and second thoughts ("спасибо", "хотя нет") and joining words; and
    whether those took it back."""
    if goes_on := GOES_ON.match(rest):
        rest = rest[goes_on.end() :]
    taken_back = False
    while True:
        rest = JOINING.sub("", rest.lstrip(SEPARATORS))
        phrase_end = PHRASE_END.search(rest)
        tokens = set(words(rest if phrase_end is None else rest[: phrase_end.start()]))
        waits = only_waits(" ".join(tokens))  # "Done. Wait a moment": not done yet
        if not tokens or not (tokens <= AFTERWORDS or waits):
            return rest, taken_back
        taken_back = taken_back or waits or bool(tokens & TAKE_BACK)
        rest = "" if phrase_end is None else rest[phrase_end.end() :]
