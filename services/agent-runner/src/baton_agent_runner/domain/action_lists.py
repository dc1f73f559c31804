"""A to-do list written as one sentence ("I need to call mom, fix the sink and renew my
passport", "Надо позвонить маме, починить кран и продлить паспорт"): its actions, for the
brain dump to save each as an item of its own.

The rule is kept conservative, since a wrong split saves nonsense ("pepper") and a missed one
only saves the sentence as written, as before:

- it parts at commas (with an "and", "и", "then", "потом" after them), and a piece, or a
  sentence without a comma, parts again at "and"/"и" (or a bare "then"/"потом") only when
  each side is an action of its own: "I need to fix the sink and pay rent" is "fix the sink",
  "pay rent" ("починить кран и заплатить за квартиру" likewise), while "buy salt and
  pepper", "call mom and dad", "купить хлеб и молоко" stay one action (what follows "and" is
  no action), and so does "research and summarize the report": a verb alone before "and"
  shares the object of the verb after it;
- two actions joined by "and" are still one task when the second goes on with the first
  (`_GOES_ON_WITH`): asking or saying something there ("call the bank and ask about the
  loan", "встретиться с Петей и обсудить проект"), going somewhere to do it ("go to the
  store and buy milk", "сходить в аптеку и купить бинт"), or doing something to what the
  first named ("finish the report and email it to bob"), after a comma too ("Купить
  подарок Лене, и поздравить её"); but three actions or more so joined are a list of
  errands, an item each but for one that goes on with the one before (`_chained`);
- every piece is an action: two words or more, the first a verb: a Russian infinitive
  ("позвонить", "записаться", "отвезти", "помочь"; not a noun that looks like one: "новости",
  "память") or an English verb of `EN_VERBS`, which English spelling cannot tell apart from
  a noun ("book a dentist", but "pepper");
- a lead-in before the first action that says the user needs or means to do them ("I need
  to", "I have to", "Надо", "Мне нужно", "Хочу") is said of them all and kept by none; a "to"
  or a lead-in before a later one ("..., to book a dentist", "..., need to pay rent") is
  dropped too; before a lone action ("need to renew passport") it goes as well, when what
  follows it is an action ("хочу в отпуск" stays as said);
- a side after "and"/"и" that opens with a subject of its own and what it means or may do
  ("and I should probably cancel netflix", "и я наверное отменю подписку") is a clause of its
  own, an item past those words, even when no verb we know starts it ("отменю подписку");
- a "then"/"потом" opening a list of actions is no part of the first ("then clean the garage
  and then sort the photos"); before one action "then" goes too, "потом" stays (it says when).

Apart from that rule, "also" marks a new item however the two sides read (`afterthoughts`):
"call grandma and also buy dog food", "renew passport, also dentist", "oh and ...", ", plus
...", "а ещё", "и ещё", ", также", ", ну и"; and each sentence of a paragraph is read on its own
(`sentences`).

One piece that is no action ("позвонить маме, узнать, как она": "узнать" alone) leaves the
sentence whole, but for a short noun among two actions or more (`_chore`: "pay rent, call
dentist, laundry"): an item of its own, but for one between two actions after a verb of
getting things (`_GETTING`), which goes with it ("buy milk, eggs, call mom": more to buy).
"""

# ruff: noqa: RUF001, RUF002, RUF003  (Russian text, comments too, is meant to be Cyrillic)

from __future__ import annotations

import re
from itertools import pairwise

from baton_agent_runner.domain.action_words import SETTING, WHEN, is_action, is_infinitive
from baton_agent_runner.domain.inbox_requests import REMINDER, without_reminder
from baton_agent_runner.domain.wording import COUNT_DOT, LIST_COMMA, words

_EN_LEAD_IN = (
    r"(?:(?:i|we)\s+|i'm\s+|i\s+am\s+|i've\s+|we've\s+)?"
    r"(?:(?:really|also|still|just|probably|actually|definitely|finally)\s+)?"
    # Chat spelling too: "wanna", "need 2", "hafta" ("i wanna learn guitar" kept its lead-in).
    r"(?:(?:need|have|want)\s+(?:to|2)|got\s+to|have\s+got\s+to|gotta|wanna|hafta|must|should"
    r"|ought\s+to|(?:am\s+)?going\s+to|gonna|plan\s+to)"
    r"(?:\s+(?:really|also|still|just|definitely|probably|actually|finally|maybe))?"
)
_RU_LEAD_IN = (
    r"(?:(?:мне|нам|я|мы)\s+)?(?:(?:ещ[её]|также|обязательно|срочно)\s+)?"
    r"(?:надо(?:\s+бы)?|нужно|необходимо|хочу|хотим|хотелось\s+бы|планирую|собираюсь|пора"
    r"|стоит|следует|должен|должна|должны)(?:\s+будет)?"
)
# A reminder's lead-in ("не забыть", "remember to") is one too, read where every item is.
_LEAD_IN = re.compile(rf"^\s*(?:{REMINDER}|{_EN_LEAD_IN}|{_RU_LEAD_IN})\s+", re.IGNORECASE)
# A few words that introduce the list before a colon or a dash ("honestly i have a million
# things to do: renew passport, pay rent", "before i forget - I need to call mom, ..."): said
# of them all and kept by none, as a lead-in is; every piece after it must still be an action.
_INTRO = re.compile(r"^[^:\n—–]{1,80}?(?::|\s[-—–]\s)\s*")
# A few words before the lead-in ("So this week I have to book ..., pick up ...", "на работе
# надо ..."): said of them all, as an introduction before a colon is; the list was one item.
_BEFORE_LEAD_IN = re.compile(
    rf"^\s*(?:[\w']+[^\S\n]+){{1,4}}?(?=(?:{_EN_LEAD_IN}|{_RU_LEAD_IN})\s)", re.IGNORECASE
)
# Where a listing parts: a comma, with the joining words after it ("call mom, and fix ...",
# "сдать отчёт, потом ..."); "and"/"и" alone part a piece only into actions (`_parts`).
_COMMA = re.compile(
    rf"\s*{LIST_COMMA}\s*(?:(?:and\s+then|and|а\s+также|а\s+потом|и\s+потом|и|then|потом|затем)\s+)?",
    re.IGNORECASE,
)
# A bare "then"/"потом" joins actions as "and" does ("call mom then buy groceries then pay rent"
# was one item): it too parts a piece only when each side is an action.
_AND = re.compile(
    r"(?<!\s)\s+(?:and\s+then|and|и\s+потом|а\s+потом|и|then|потом|затем)\s+", re.IGNORECASE
)
_TO = re.compile(r"^to\s+", re.IGNORECASE)
_MORE = re.compile(r"^(?:ещ[её]|также)\s+", re.IGNORECASE)
# "also" between two things says the second is another item ("call grandma and also buy dog
# food", "renew passport, also dentist", "oh and ...", "а ещё ..."); a bare "also" inside a
# clause ("I also need ...") is no such mark: a comma or an "and" comes before it.
# Each pattern is tried only where a run of spaces starts (`(?<!\s)`), and "\s*,?\s+" is
# spelled without two runs of spaces in a row: tried from each space of a long run, a message
# of 8,000 spaces before its "too" took minutes.
_ALSO = re.compile(
    r"(?<!\s)(?:\s*,\s*(?:(?:and|oh\s+and)\s+)?(?:also|plus|oh\s+and)\s+"
    r"|\s+(?:and\s+also|oh\s+and)\s+"
    r"|(?:\s*,\s+|\s+)(?:а|и)\s+(?:ещ[её]|также)\s+|\s*,\s*(?:ещ[её]|также)\s+"
    # ", ну и ..." as ", а ещё ...": "позвонить в банк насчёт карты, ну и маме цветы на 8
    # марта" was one item.
    r"|\s*,\s*ну\s+и\s+)",
    re.IGNORECASE,
)
# Where a sentence ends inside a paragraph: ". ", "! ", "… ", not the dot of an abbreviation
# ("Dr. Smith", "т.е. завтра") or of an initial (the brain dump reads those first).
# A run of stops is tried from its first two only (`(?<![.!…]{2})`): the second when an
# abbreviation blocks the first ("etc!! next"), and a deeper one never ends a match sooner.
# Tried from each, "a etc" and 8,000 "!" before a letter took half a second to split.
_SENTENCE_END = re.compile(
    r"(?<![.!…]{2})(?<!\bdr)(?<!\bmr)(?<!\bmrs)(?<!\bms)(?<!\bst)(?<!\bjr)(?<!\bsr)(?<!\bvs)(?<!\betc)"
    rf"(?<!\bул)(?<!\bтел)(?<!\b[a-zа-яё])(?!{COUNT_DOT})"
    r"[.!…]+\s+(?=\S)",
    re.IGNORECASE,
)

# After "and", a verb of asking or saying goes on with the action before it: what to ask or
# say there ("call the bank and ask about the loan", "позвонить в банк и спросить про кредит",
# "встретиться с Петей и обсудить проект"), one task.
_GOES_ON_WITH = frozenset({
    "ask", "tell", "say", "see", "discuss", "talk", "find", "спросить", "сказать", "рассказать",
    "обсудить", "узнать", "уточнить", "выяснить", "договориться", "попросить",
})  # fmt: skip
# Before "and", going somewhere is going there to do what follows ("go to the store and buy
# milk", "сходить в аптеку и купить бинт"), one task.
_GOING = frozenset({
    "go", "сходить", "зайти", "заехать", "съездить", "пойти", "поехать", "забежать",
})  # fmt: skip


def sentences(text: str) -> list[str]:
    """The sentences of a paragraph ("need to renew passport. also dentist"), each with its
    own end; the text as it is when it has one."""
    return [part for part in _SENTENCE_END.split(text) if part.strip()]


def afterthoughts(text: str) -> list[str]:
    """`text` parted where "also" adds another item ("call grandma and also buy dog food":
    "call grandma", "buy dog food"); the text as it is when it has none."""
    return [part.strip() for part in _ALSO.split(text) if part.strip()]


# "then"/"потом" opening a list of actions says they come after the one before: no part of the
# first ("then clean the garage and then sort the photos" was saved whole, with its "then").
# Before one action "then" goes too, but "потом" stays: "потом купить хлеб" says when.
_THEN = re.compile(
    r"^\s*(?:(?P<en>and\s+then|then)|а\s+потом|и\s+потом|потом|затем)\s+", re.IGNORECASE
)


def actions(item: str) -> list[str]:
    """The actions a sentence lists (see the module's docstring), or the item as it is (past
    its lead-in when an action follows that); past an introduction before a colon or dash
    when the rest lists actions, and past a "then" before them."""
    if (then := _THEN.match(item)) is not None:
        rest = item[then.end() :]
        if len(_actions(rest)) > 1 or (then.group("en") is not None and lists_actions(rest)):
            item = rest
    found = _actions(item)
    for intro in (_INTRO.match(item), _before_lead_in(item)):
        if len(found) == 1 and intro is not None:
            listed = _actions(item[intro.end() :])
            found = listed if len(listed) > 1 else found
    if (
        len(found) == 1
        and (more := _ONE_MORE.match(found[0]))
        and is_action(found[0][more.end() :])
    ):
        return [found[0][more.end() :]]
    if len(found) == 1:
        return [_past_lead_in(found[0])]
    return found


# Saying one more task comes, before a colon: "забыл ещё: оплатить интернет", "wait add one
# more: call the bank", "а можно ещё добавить: позвонить Саше" kept those words in the item.
_ONE_MORE = re.compile(
    r"^\W*(?:(?:oh|wait|ой|а|и|так|and)\b[\s,]*)*"
    r"(?:(?:can\s+(?:you|i)\s+|можно\s+)?(?:also\s+|ещ[её]\s+)?(?:add|добавить|добавь)\s*)?"
    r"(?:(?:one|a\s+few)\s+more(?:\s+thing)?|another(?:\s+one)?|(?:ещ[её]\s+)?одно|ещ[её]"
    r"|(?:я\s+)?(?:ещ[её]\s+)?забыл[аи]?(?:\s+ещ[её])?|forgot(?:\s+one)?|also)?"
    r"\s*[:—–]\s*(?=\S)",
    re.IGNORECASE,
)


def _before_lead_in(item: str) -> re.Match[str] | None:
    """The words before a lead-in (`_BEFORE_LEAD_IN`) when they only say when or where
    (`SETTING`): "my mom said I need to call her, and buy bread" keeps its words."""
    found = _BEFORE_LEAD_IN.match(item)
    return found if found and set(words(found.group())) <= SETTING | WHEN else None


def _past_lead_in(item: str) -> str:
    """A lone action past its lead-in ("need to renew passport": "renew passport"); the item
    as it is when what follows is no action ("хочу в отпуск")."""
    # Past an opener too: "ok so I need to renew my passport" kept "ok so I need to".
    body = item[opener.end() :] if (opener := _OPENER.match(item)) else item
    lead_in = _LEAD_IN.match(body)
    if lead_in is None or not is_action(rest := body[lead_in.end() :]):
        return item
    return rest


# A greeting or a filler word opening a message is said to the agent, no part of the list
# ("hi, i need to call mom and buy milk" was read as naming family, a priority).
_OPENER = re.compile(
    r"^\W*(?:(?:hi|hey|hello|ok|okay|so|oh|well|btw|привет|ну|кстати|слушай)\b[\s,!.—–-]*)+",
    re.IGNORECASE,
)


def lists_actions(item: str) -> bool:
    """Whether the item is actions alone: one ("позвонить маме", "Надо позвонить маме") or a
    list of them ("call mom, buy milk"), past a greeting before them ("hi, ...")."""
    item = item[opener.end() :] if (opener := _OPENER.match(item)) else item
    if len(actions(item)) > 1:
        return True
    lead_in = _LEAD_IN.match(item)
    return is_action(item[lead_in.end() :] if lead_in else item)


def _actions(item: str) -> list[str]:
    """The actions `item` lists, or [item]."""
    lead_in = _LEAD_IN.match(item)
    body = item[lead_in.end() :] if lead_in else item
    pieces = _pronoun_objects_kept(body)
    if len(pieces) < 2:
        # "I need to fix the sink and pay rent": two actions joined by "and" alone.
        joined = _parts(body.strip())
        return joined if joined is not None and len(joined) > 1 else [item]
    # A later piece's own lead-in goes too: "..., to book a dentist", "..., не забыть ...".
    pieces = [_later_piece(piece) if at else piece.strip() for at, piece in enumerate(pieces)]
    read = [_parts(piece) for piece in pieces]
    acted = [at for at, parts in enumerate(read) if parts is not None]
    if len(acted) < len(pieces) and not (
        len(acted) > 1
        and all(_chore(p) or _closer(p) for p, parts in zip(pieces, read, strict=True) if not parts)
    ):
        return [item]
    found: list[str] = []
    for at, (piece, parts) in enumerate(zip(pieces, read, strict=True)):
        if parts is not None:
            found += parts
        elif _closer(piece):
            # "buy milk, bread, etc, call mom": the line was kept whole; it names no task,
            # and goes as it does at the end of a list ("call mom, buy milk, etc").
            continue
        elif acted[0] < at < acted[-1] and _gets_things(found[-1]):
            found[-1] = f"{found[-1]}, {piece}"  # "buy milk, eggs, call mom": more to buy
        else:
            found.append(piece)  # "pay rent, call dentist, laundry": a chore of its own
    return found


# Verbs whose object is often a list of things ("buy milk, eggs", "pack passport, charger",
# "купить хлеб, молоко"): a bare noun after one is more to get, not a chore of its own.
_GETTING = frozenset({
    "buy", "get", "grab", "order", "pick", "bring", "pack", "fetch", "collect", "purchase",
    "купить", "докупить", "заказать", "взять", "захватить", "забрать", "принести", "привезти",
    "приобрести", "собрать", "упаковать",
})  # fmt: skip


def _gets_things(action: str) -> bool:
    """The action gets things (`_GETTING`), past a word that says when ("tmrw buy milk"): a
    bare noun after it, before another action, is more of them ("buy milk, eggs, call mom");
    after any other ("call dentist, laundry, buy milk") it is a chore of its own."""
    said = words(action)
    said = said[1:] if said and said[0] in WHEN else said
    return bool(said) and said[0] in _GETTING


# Words that end a list without naming anything ("etc", "и т.д.", "thanks"): no chore.
_NO_CHORE = frozenset({
    "etc", "and", "so", "on", "more", "stuff", "things", "thanks", "thank", "you", "thx",
    "please", "pls", "lol", "ok", "okay", "и", "т", "д", "п", "тд", "тп", "прочее", "так",
    "далее", "всякое", "спасибо", "пожалуйста", "ок",
})  # fmt: skip


def _closer(piece: str) -> bool:
    """A piece of `_NO_CHORE` words alone ("etc", "и т.д.", "and so on"): no task of its own."""
    said = words(piece)
    return bool(said) and set(said) <= _NO_CHORE


def _chore(piece: str) -> bool:
    """A short noun that names a task of its own among two actions or more or before
    them ("laundry", "taxes", "стирка"): of one to three words, no pronoun (`_BACK`: "её" is
    the item's before it), and not only `_NO_CHORE` words. Among fewer actions it may be
    an object of the verb ("buy salt, pepper"), and the list is kept whole."""
    said = words(piece)
    return 0 < len(said) <= 3 and not _BACK.intersection(said) and not set(said) <= _NO_CHORE


def _pronoun_objects_kept(body: str) -> list[str]:
    """The comma's pieces of `body`, a piece whose object is a pronoun (`_BACK`) kept with the
    one before it, as after a bare "and": "Купить подарок Лене, и поздравить её" is one task
    ("поздравить её" alone says nothing)."""
    pieces: list[str] = []
    start = last_end = 0
    for comma in [*_COMMA.finditer(body), None]:
        end = len(body) if comma is None else comma.start()
        said = words(_later_piece(body[start:end]))
        if pieces and len(said) > 1 and said[1] in _BACK:
            pieces[-1] += body[last_end:end]  # with its comma and "и"
        else:
            pieces.append(body[start:end])
        start, last_end = (len(body) if comma is None else comma.end()), end
    return pieces


def _later_piece(piece: str) -> str:
    """A piece after the first past its own "to", "ещё", reminder or lead-in ("need to pay
    rent", "потом ещё согласовать отпуск")."""
    piece = without_reminder(_TO.sub("", _MORE.sub("", piece.strip())))
    lead_in = _LEAD_IN.match(piece)
    return piece[lead_in.end() :] if lead_in else piece


def _parts(piece: str) -> list[str] | None:
    """The actions a comma's piece holds: each side of its "and"s when all are actions, else
    the piece whole when it is one ("buy salt and pepper"); None when it is none."""
    sides = [_TO.sub("", side.strip()) for side in _AND.split(piece)]
    # A later side with its own subject ("and I should probably cancel netflix", "и я наверное
    # отменю подписку") is a clause of its own: its action, past the subject, is an item.
    own = [at > 0 and _SUBJECT.match(side) is not None for at, side in enumerate(sides)]
    sides = [
        _SUBJECT.sub("", side, count=1) if mine else side
        for side, mine in zip(sides, own, strict=True)
    ]
    if len(sides) > 1 and all(
        is_action(side) or (mine and len(words(side)) > 1)
        for side, mine in zip(sides, own, strict=True)
    ):
        if not any(_goes_on(side, after) for side, after in pairwise(sides)):
            return sides
        if len(sides) > 2:
            return _chained(sides, _AND.findall(piece))
    if not any(own) and (objects := _objects_joined(sides, _AND.findall(piece))) is not None:
        return objects
    return [piece] if is_action(piece) else None


def _objects_joined(sides: list[str], joints: list[str]) -> list[str] | None:
    """The actions of a chain whose short sides that are no action ("молоко", "dad") are more
    of what the action before them does: "купить хлеб и молоко и позвонить маме" is "купить
    хлеб и молоко", "позвонить маме" (it was one item); None unless that makes two actions or
    more, none going on with the one before it."""
    if len(sides) < 3 or not is_action(sides[0]):
        return None
    found = [sides[0]]
    for side, joint in zip(sides[1:], joints, strict=False):
        if is_action(side):
            found.append(side)
        elif 0 < len(words(side)) <= 3:
            found[-1] = f"{found[-1]}{joint}{side}"
        else:
            return None
    if len(found) < 2 or any(_goes_on(side, after) for side, after in pairwise(found)):
        return None
    return found


def _chained(sides: list[str], joints: list[str]) -> list[str]:
    """Three actions or more joined by "and"/"и" ("сходить в зал и записаться к стоматологу и
    купить корм коту"): a list of errands, each an item but for one that goes on with the one
    before it (`_goes_on`, going there only to get things: "сходить в аптеку и купить бинт и
    позвонить маме" is two). The going rule kept the whole chain one item."""
    found = [sides[0]]
    for side, after, joint in zip(sides, sides[1:], joints, strict=False):
        said = words(side)
        going = said[0] in _GOING and words(after)[0] in _GETTING
        if going or (said[0] not in _GOING and _goes_on(side, after)):
            found[-1] = f"{found[-1]}{joint}{after}"
        else:
            found.append(after)
    return found


# A subject and what it means or may do, opening a clause after "and"/"и": "I should probably",
# "we'll", "я наверное", "я ещё". A bare "I" is none ("call mom and I" is no clause).
_SUBJECT = re.compile(
    r"^(?:i|we)(?:'ll|'d|\s+will|\s+should|\s+must|\s+need\s+to|\s+have\s+to|\s+want\s+to"
    r"|\s+gotta|\s+might|\s+could|\s+can|\s+ought\s+to|\s+(?:am|'m)\s+going\s+to|\s+also"
    r"|\s+probably|\s+maybe|\s+really|\s+definitely|\s+still|\s+then)+\s+"
    r"|^(?:я|мы)(?:\s+(?:наверное|наверно|пожалуй|ещ[её]|тоже|также|обязательно|может|потом"
    r"|завтра|сегодня))+\s+",
    re.IGNORECASE,
)


# After "and", a pronoun as the verb's object names what the action before it did: "finish the
# report and email it to Bob", "забрать детей и покормить их", one task ("email it to Bob"
# alone says nothing).
_BACK = frozenset({
    "it", "them", "her", "him", "его", "ее", "их", "ей", "ему", "им", "это",
})  # fmt: skip


def _goes_on(first: str, second: str) -> bool:
    """The action after "and" goes on with the one before it (`_GOES_ON_WITH`, `_BACK`)."""
    said = words(second)
    return said[0] in _GOES_ON_WITH or said[1] in _BACK or words(first)[0] in _GOING


# English verbs whose word names a life area ("exercise", "sleep": health; "study", "learn":
# growth; "travel", "garden": hobbies). English spells the verb as the noun, so only opening
# the words, where a to-do puts its verb, do they say a thing to do ("my sleep" names health).
# Not "work", said alone far more often of the user's job than as a thing to do.
_EN_AREA_VERBS = frozenset({"exercise", "sleep", "study", "learn", "travel", "garden"})


def says_a_deed(said: list[str]) -> bool:
    """The words say a thing to do though an area's word is among them: a Russian infinitive
    among them ("выспаться", "похудеть"), or an English verb of an area opening them
    ("exercise", "sleep", "sleep and exercise"), as the Russian one would."""
    return bool(said) and (said[0] in _EN_AREA_VERBS or any(is_infinitive(word) for word in said))
