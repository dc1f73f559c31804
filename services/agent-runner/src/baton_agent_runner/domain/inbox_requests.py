"""Asking, at any step, to put something in the inbox: "Запиши в inbox: купить молоко", "add
buy milk to my inbox". Elsewhere than in the brain dump the item is kept for it."""

# ruff: noqa: RUF001, RUF003  (Russian text, comments too, is meant to be Cyrillic)

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple

from baton_agent_runner.domain.action_words import is_action
from baton_agent_runner.domain.readiness import puts_off
from baton_agent_runner.domain.word_cases import inflected
from baton_agent_runner.domain.wording import is_negation, without_end, words

# Trimmed off an item taken from before its request ("Купить молоко — запиши в inbox").
_SEPARATORS = " ,.!?…:;—–-"

_RU_VERB = r"(?:запиши|добавь|внеси|сохрани|закинь)"
# A to-do list is the inbox too ("в список дел", "в мои задачи", "в туду"); a bare "список"
# only before a colon ("Добавь в список: ..."), so "в список приоритетов" is none.
_RU_LIST = (
    r"(?:(?:мой|свой)\s+)?(?:список\s+(?:дел|задач)|(?P<vague>список)(?=\s*:)"
    r"|(?:to-?do|туду)(?:[\s-]*(?:лист|list|список))?)|(?:(?:мои|свои)\s+)?(?:дела|задачи)"
)
_RU_PLACE = rf"(?:inbox|инбокс\w*|входящ\w*|{_RU_LIST})"
_RU_INBOX = rf"(?:в|во)\s+{_RU_PLACE}"
_EN_VERB = r"(?:add|put|write|save|note)"
_EN_LIST = r"(?:to-?do\s+list|to-?dos?|task\s+list|tasks)"
_EN_INBOX = rf"(?:to|in|into|on)\s+(?:my\s+|the\s+)?(?:inbox|{_EN_LIST}|(?P<vague>list))\b"
# Where a message may start before an English request in the imperative ("Please add ...").
_EN_START = r"^\W*(?:please\s+|pls\s+)?"
# Asked politely, a reminder's lead-in is the whole request ("can you remind me to call mom"):
# "can you" was saved as an item of its own, "please" likewise.
_POLITE_EN = r"(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?|please\s+|pls\s+)"
# "Напомни мне ...", "Напомни: ...", and "Напомни" before an infinitive or "про" ask to be
# reminded; "Напомни маме про день рождения" is a task of the user's own.
_RU_REMIND = (
    r"(?:\s+мне\s+|\s*[:—–]\s*|\s+(?=\w+(?:ть|ти|чь|ться|тись)\b|(?:про|о|об|насч[её]т)\s))"
)
# "Напомни ..." names its item right after it; "Напомни, что ..." or "Напомни, как ..." asks
# about something said, and a question ("Напомни мне, о чём мы?") asks nothing to be noted;
# "Can you remind me to ...?" does.
_ASKED = r"(?:что|как\w*|зачем|почему|где|когда|кто|ч[её]м|сколько|о\s+ч[её]м|ещ[её]\s+раз)\b"


def _anywhere(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    return pattern.search(text)


_RU_VERB_AT = re.compile(rf"\b{_RU_VERB}\s", re.IGNORECASE)


def _from_first_verb(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    # "Добавь ... в inbox" reads to the message's end: any end a later verb's item could have,
    # the first verb's item has too, so no later verb matches where the first does not. Tried
    # from each verb, "запиши " 8,000 characters long read the rest of it 1,000 times: 0.17 s.
    verb = _RU_VERB_AT.search(text)
    return None if verb is None else pattern.match(text, verb.start())


_WORD = re.compile(r"\w")


def _adding_an_action(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    """A bare "add ..." that names where to no list: a request when what it adds is an action
    ("can you add call grandma on sunday?") or follows a colon ("add: pick up dry cleaning");
    "add salt to the soup" is a task of the user's own."""
    found = pattern.match(text)
    if found is None or not (found.group("colon") or is_action(found.group("item"))):
        return None
    return found


def _past_questions(closing: str) -> Callable[[re.Pattern[str], str], re.Match[str] | None]:
    """A search for a reminder whose item holds no "?" and reads to the message's end, where
    only a run of `closing` stops may follow it."""

    def search(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
        # It starts past every other "?" (unless only an opening "\W*" is before that one).
        # Tried from each "напомни мне" before a "?x", each read up to the "?": 0.17 s.
        asked = text.rstrip(closing).rfind("?") + 1
        return pattern.search(text, asked if _WORD.search(text, 0, asked) else 0)

    return search


# First the request then the item ("Запиши во входящие: купить хлеб", "add to my inbox: buy
# milk"), then the item inside it ("добавь купить хлеб в inbox", "add buy milk to my inbox").
# Without a colon an English request is an imperative at the message's start, so "I usually
# put everything in my inbox." and "Can you add it to my inbox later?" are none. A group
# `vague` marks a request that names no inbox ("Запомни: ...", "add to my list: ..."): at
# discovery, one about a life area ("Запомни: работа важнее всего") is said to discovery.
# Each goes with its search: those read to the message's end start where they may only.
_REQUESTS = tuple(
    (re.compile(pattern, re.IGNORECASE | re.DOTALL), search)
    for pattern, search in (
        (
            rf"\b{_RU_VERB}\s+(?:(?:в|во)\s+)?{_RU_PLACE}\b(?P<item>.*)",
            _anywhere,
        ),
        (
            rf"\b{_EN_VERB}\s+(?:(?:this|it)\s+)?{_EN_INBOX}\s*[:—–-]\s*(?P<item>.+)",
            _anywhere,
        ),
        (
            rf"{_EN_START}{_EN_VERB}\s+{_EN_INBOX}\s+(?P<item>.+)",
            _anywhere,
        ),
        (
            rf"\b{_RU_VERB}\s+(?P<item>.+?)\s+{_RU_INBOX}\s*[.!]*\s*$",
            _from_first_verb,
        ),
        (
            rf"{_EN_START}{_EN_VERB}\s+(?P<item>.+?)\s+{_EN_INBOX}(?:\s+please)?\s*[.!]*\s*$",
            _anywhere,
        ),
        (
            r"\binbox\s*:(?P<item>.*)",
            _anywhere,
        ),
        (
            rf"\bнапомни(?:те)?{_RU_REMIND}(?!{_ASKED})(?P<item>[^?]+?)\s*[.!]*$",
            _past_questions(".!"),
        ),
        # Asked politely ("а ты можешь напомнить мне завтра позвонить врачу?", after an item
        # too: "купить хлеб, можешь напомнить ..."): nothing was saved, while the brain dump's
        # reply said everything said there is.
        (
            rf"(?:^\W*|(?<=[,;—–])\s*)(?:а\s+|и\s+)?(?:ты\s+|вы\s+)?(?:можешь|можете|сможешь|сможете)\s+"
            rf"(?:пожалуйста\s+)?напомнить{_RU_REMIND}(?!{_ASKED})(?P<item>[^?]+?)\s*[?.!]*$",
            _past_questions("?.!"),
        ),
        (
            rf"(?:\b{_POLITE_EN})?\bremind\s+me\s+to\s+(?P<item>[^?]+?)\s*[.!?]*$",
            _past_questions("?.!"),
        ),
        (
            rf"(?:\b{_POLITE_EN})?\bremind\s+me\s*(?::\s*|\s+about\s+)(?P<item>[^?]+?)\s*[.!?]*$",
            _past_questions("?.!"),
        ),
        (
            r"\b(?P<vague>запомни(?:те)?|remember)\s*[:—–]\s*(?P<item>.+)",
            _anywhere,
        ),
        # A task named as one ("Создай задачу: ...", "Add a task: ..."), a bare "Запиши: ..."
        # or "Write down: ...", and a polite question ("Can you add buy milk to my inbox?").
        (
            rf"\b(?:{_RU_VERB}|создай|заведи)\s+(?:(?:мне|новую)\s+)*задачу\s*[:—–]\s*(?P<item>.+)",
            _anywhere,
        ),
        (
            rf"{_EN_START}(?:add|create|make)\s+(?:a\s+)?(?:new\s+)?(?:task|to-?do)\s*[:—–-]\s*(?P<item>.+)",
            _anywhere,
        ),
        (
            r"\b(?P<vague>запиши(?:те)?|(?:write|note|jot)\s+(?:it\s+|this\s+)?down)\s*[:—–]\s*(?P<item>.+)",
            _anywhere,
        ),
        (
            rf"^\W*(?:can|could|would|will)\s+you\s+(?:please\s+)?{_EN_VERB}\s+(?P<item>.+?)\s+{_EN_INBOX}"
            r"(?:\s+please)?\s*[.!?]*\s*$",
            _anywhere,
        ),
        # "add" alone, before an action or a colon: "can you add call grandma on sunday?" was
        # answered with how the brain dump works and saved nothing, "add: pick up dry
        # cleaning" kept its "add:", "wait, can you also add ..." after the brain dump was lost.
        (
            r"^\W*(?:(?:oh|wait|and|also|ok|okay|actually)\b[\s,.!—–-]*)*"
            rf"(?:{_POLITE_EN})?(?:also\s+)?add(?:\s+also)?(?:\s*(?P<colon>[:—–])\s*|\s+)"
            r"(?:an?\s+reminder\s+(?:for\s+me\s+)?to\s+)?"
            r"(?P<item>[^?]+?)(?:\s+(?:too|as\s+well|please))?\s*[.!?]*$",
            _adding_an_action,
        ),
    )
)
# Where the phrase said just before a request starts: a negation in it refuses the request.
_PHRASES = re.compile(r"[.!?;,:—–]")
# A "please" closing the request is no part of its item ("Напомни купить хлеб, пожалуйста").
# `sub` searches: tried from each comma of a run, "[\s,]*" read the rest of it again, and an
# item of 8,000 commas took 1.5 s. It starts only where a run starts, and gives nothing back.
_PLEASE = re.compile(r"(?<![\s,])[\s,]*+\b(?:пожалуйста|please|pls)\W*+$", re.IGNORECASE)
_QUOTES = "'\"«»“”„‘’"
# What an item inside a request may not be: it names something said elsewhere, or nothing.
_PRONOUNS = frozenset({
    "it", "this", "that", "these", "those", "them", "everything", "all", "all this", "it all",
    "this one", "это", "все", "все это", "это все", "его", "ее", "их", "то", "вот это", "me",
    "us", "меня", "нас",
})  # fmt: skip


# A reminder's lead-in before an item, no part of it: "не забыть оплатить интернет", "надо не
# забыть ...", "не забудь ...", "напомни(ть) мне позвонить ...", "remember to call mom", "don't
# forget to ...", "need to remember to ...". "Напомни маме про день рождения" stays whole: the
# user reminds someone, a task of their own (as `_RU_REMIND` reads it); and "не забыть про день
# рождения мамы" too: what follows "про" names no task.
_RU_REMINDER = (
    r"(?:(?:мне|нам|я)\s+)?(?:(?:надо|нужно|важно)\s+)?(?:не\s+забыть|не\s+забудь(?:те)?)"
    r"|напомни(?:те|ть)?(?:\s+(?:мне|себе)|(?=\s*[:—–]|\s+\w+(?:ть|ти|чь|ться|тись)\b))"
)
_EN_REMINDER = (
    rf"(?:(?:i\s+)?(?:need|have|want)\s+to\s+|{_POLITE_EN})?remember\s+to"
    rf"|(?:please\s+)?(?:don['’]?t|do\s+not)\s+forget\s+to|{_POLITE_EN}?remind\s+me\s+to"
)
_ABOUT = r"(?:про|о|об|насч[её]т|about)\b"
REMINDER = rf"(?:{_RU_REMINDER}|{_EN_REMINDER})"
"""The lead-in of a reminder ("не забыть", "don't forget to"), as a pattern to build on."""
_REMINDER_BEFORE = re.compile(
    rf"^\W*{REMINDER}(?:\s*[:—–-]\s*|\s+)(?!{_ASKED}|{_ABOUT})(?=\w)", re.IGNORECASE
)


# A reminder's lead-in said alone ("не забыть", "не забудь!", "remember to", "don't forget"):
# it names no task. As `REMINDER`, but a "to" after "remember"/"forget" may be left unsaid.
_REMINDER_ALONE = re.compile(
    rf"\W*(?:{_RU_REMINDER}|(?:(?:i\s+)?(?:need|have|want)\s+to\s+|{_POLITE_EN})?remember(?:\s+to)?"
    rf"|(?:please\s+)?(?:don['’]?t|do\s+not)\s+forget(?:\s+to)?|{_POLITE_EN}?remind\s+me(?:\s+to)?"
    r"|напомни(?:те|ть)?)\W*",
    re.IGNORECASE,
)


def only_reminder(said: str) -> bool:
    """Whether `said` is a reminder's lead-in and nothing more ("не забыть", "не забудь!",
    "remember to", "don't forget"): it names nothing to remember, so it is no item."""
    return _REMINDER_ALONE.fullmatch(said) is not None


def without_reminder(item: str) -> str:
    """The item past a reminder's lead-in ("не забыть оплатить интернет" is "оплатить
    интернет", "remember to call mom" is "call mom"); as it is when it has none, or nothing
    follows it."""
    found = _REMINDER_BEFORE.match(item)
    return item if found is None else item[found.end() :]


class Request(NamedTuple):
    """An inbox request: where it starts in the message, and its item."""

    start: int
    item: str
    vague: bool = False
    """It names no inbox or to-do list ("Запомни: ...", "add to my list: ..."): an item about
    a life area may be a priority, told to discovery."""

    @property
    def put_off(self) -> bool:
        """Its "item" only puts the request off ("Запиши в inbox: потом", "Put in my inbox:
        later"): there is nothing to note yet."""
        return puts_off(self.item)


# What the user says of the conversation after the request's item, no part of it: "Запиши в
# inbox купить молоко, а потом продолжим" kept ", а потом продолжим" in the item. Only a
# clause of its own after a comma, of a "we"/"let's" going on ("продолжим", "давай дальше",
# "then let's continue"): "купить молоко и продолжить ремонт" is a task. Tried only where a run
# of spaces starts (`(?<!\s)`): from each space of a run of 8,000 it took 0.3 s.
_CARRY_ON = re.compile(
    r"(?<!\s)\s*[,;]\s*(?:(?:а|и|но|ну|и\s+потом|а\s+потом|потом|затем|then|and(?:\s+then)?|but|ok)\s+)?"
    r"(?:(?:давай(?:те)?|let'?s|we'?ll|we\s+can|(?:and\s+)?then)\s+)?"
    r"(?:продолж(?:им|аем)|верн[её]мся(?:\s+к\s+\w+)?|(?:ид[её]м|пойд[её]м|едем)\s+дальше"
    r"|(?<=давай\s)дальше|(?<=давайте\s)дальше"
    r"|(?<=let's\s|we'll\s)(?:continue|carry\s+on|go\s+on|move\s+on|get\s+back(?:\s+to\s+it)?)"
    r"|(?<=lets\s|then\s)(?:continue|carry\s+on|go\s+on|move\s+on))"
    r"(?:\s+(?:дальше|потом|with\s+(?:this|it|the\s+\w+)|then))?[\s.!)]*$",
    re.IGNORECASE,
)


def inbox_request(text: str) -> str | None:
    """The item in an off-topic "put this in my inbox" request, or None when it is not one."""
    found = inbox_request_at(text)
    return None if found is None else found.item


def inbox_request_at(text: str) -> Request | None:
    """Where in `text` a "put this in my inbox" request starts, and its item; None when the
    text makes none. What comes before it is said to the current step."""
    for pattern, search in _REQUESTS:
        match = search(pattern, text)
        if match is None:
            continue
        if any(is_negation(word) for word in words(_PHRASES.split(text[: match.start()])[-1])):
            return None  # asked not to ("Не записывай в inbox: ...", "Don't put in my inbox")
        vague = match.groupdict().get("vague") is not None
        item = match.group("item")
        if text[match.end("item") :].startswith("."):  # the request's end took an initial's dot
            item = without_end(item + ".", ".")  # "Напомни позвонить Петрову В."
        item = _PLEASE.sub("", item.strip().lstrip(":—–-").strip())
        item = _CARRY_ON.sub("", item.strip()).strip().strip(_QUOTES).strip()
        if " ".join(words(item)) in _PRONOUNS:
            continue
        if item:
            return Request(match.start(), item, vague)
        # Nothing after it: the item came first ("Купить молоко — запиши в inbox"), or none.
        before = without_end(text[: match.start()].strip(), _SEPARATORS).strip()
        if before and " ".join(words(before)) not in _PRONOUNS:
            return Request(0, before, vague)
        return None
    return None


REMOVING = (
    r"^\W*(?:(?:oh|wait|actually|sorry|hmm|ой|хотя|нет|стоп|погоди|подожди|слушай)\b[\s,.!—–-]*)*"
    r"(?:please\s+|пожалуйста\s+)?(?:remove|delete|scratch|cross\s+off|drop|take\s+(?:out|off)"
    r"|(?:never\s+mind|nvm|forget)(?:\s+about)?"
    r"|удали(?:те)?|убери(?:те)?|вычеркни(?:те)?|сотри(?:те)?|забудь(?:те)?)\s+"
)
"""A pattern for the start of a message asking to take out an item, up to what names it
("remove", "удали", and "never mind about", "forget", "забудь": "never mind about calling
mom" was saved as an item)."""

# Asking to take an item out ("oh wait, remove cancel netflix, i still watch it", "удали
# кроссовки, уже купил"): the verb opens the message, past a second thought ("oh wait",
# "хотя нет", "ой"), and what it names was said earlier in the chat. "Remove mold from the
# bathroom" or "убери в шкафу", naming nothing said before, are tasks.
_REMOVAL = re.compile(REMOVING + r"(?P<item>[^,.;!?\n]+)", re.IGNORECASE)
_FROM_THE_INBOX = re.compile(
    r"\s+(?:from|off|out\s+of)\s+(?:my\s+|the\s+)?(?:inbox|list|to-?do\s+list)$"
    r"|\s+(?:из|с)\s+(?:inbox|инбокс\w*|списка|входящих)$",
    re.IGNORECASE,
)


# An item named by a word of it: "the milk one", "the one about milk", "the one with the
# dentist", "про молоко" were saved as items, the item they named kept.
_NAMED_BY = re.compile(
    r"^(?:the\s+(?P<before>.+?)\s+(?:one|item|thing|task)"
    r"|the\s+(?:one|item|thing|task)\s+(?:about|with|for)\s+(?:the\s+)?(?P<after>.+)"
    r"|(?:то\s+|пункт\s+|дело\s+)?(?:про|насч[её]т)\s+(?P<ru>.+))$",
    re.IGNORECASE,
)


# Around the words that name it: "drop the pottery please", "remove pottery actually".
_AROUND_NAMED = re.compile(
    r"^(?:the|my)\s+(?=\S)|\s+(?:actually|too|as\s+well|please|pls)$", re.IGNORECASE
)


def _named_by(item: str) -> str:
    """The words that name the item ("milk" of "the milk one", "pottery" of "the pottery");
    `item` when it is no such phrase."""
    found = _NAMED_BY.match(item)
    if found is not None:
        return found["before"] or found["after"] or found["ru"]
    return _AROUND_NAMED.sub("", item).strip() or item


def removal_request(text: str, earlier: list[str]) -> str | None:
    """What a message asks to take out of the inbox, when it names something said earlier in
    the chat (`earlier`: the user's messages before it); None when it asks for none. A Russian
    word named in another case is taken out as it was said ("удали колбасу" of "колбаса":
    "колбаса", `word_cases`): it was saved as the item "удали колбасу". So is an action named
    by its "-ing" form ("never mind calling mom": "call mom", `_base_forms`)."""
    found = _REMOVAL.match(text)
    if found is None:
        return None
    item = _FROM_THE_INBOX.sub("", found.group("item").strip()).strip().strip(_QUOTES).strip()
    item = _named_by(_PLEASE.sub("", item))
    said = " ".join(words(item))
    if not said or said in _PRONOUNS:
        return None
    for named in (item, *_base_forms(item)):  # "never mind calling mom": "call mom"
        # Word for word: "стоматолог" is no word of "к стоматологу" (its case is read below).
        if any(
            f" {' '.join(words(named))} " in f" {' '.join(words(message))} " for message in earlier
        ):
            return named
    cased = inflected(item)
    held = (hit for message in earlier if cased and (hit := cased.search(message)))
    return next((hit.group() for hit in held), None)


def _base_forms(item: str) -> list[str]:
    """The item with its first word, an English "-ing" form, as a to-do says it: each way it
    may be ("calling mom": "call mom"; "making": "make"; "shopping": "shop")."""
    first, _, rest = item.partition(" ")
    stem = first[:-3] if first.casefold().endswith("ing") and len(first) >= 5 else ""
    bases = [stem, stem + "e", stem[:-1] if stem[-2:-1] == stem[-1:] else ""] if stem else []
    return [f"{base} {rest}".strip() for base in bases if base]


FROM_THE_LIST = (
    r"(?:\s+(?:from|off|out\s+of)\s+(?:my\s+|the\s+)?(?:inbox|list)|\s+(?:из|с)\s+(?:inbox|списка))?"
    # No two runs of spaces in a row, nor one before the end (the text is stripped first):
    # tried at each split of a long run, 8,000 spaces took a second.
    r"(?:(?:\s*,\s*|\s+)(?:please|pls|пожалуйста))?$"
)
"""A pattern for the end of such a message after what names the item ("from my list")."""
# Asking to take out the item saved last ("delete the last one", "удали последний пункт"):
# nothing it names was said, so `removal_request` reads none, and it was saved as an item.
_REMOVE_LAST = re.compile(
    REMOVING + r"(?:(?:the\s+)?(?:last|latest|most\s+recent)(?:\s+(?:one|item|entry|thing))?"
    r"|последн(?:ее|ий|юю|ее\s+дело)(?:\s+(?:пункт|запись|дело|элемент))?)" + FROM_THE_LIST,
    re.IGNORECASE,
)


def removes_last(text: str) -> bool:
    """Whether a message asks to take out the item saved last, naming no other."""
    return _REMOVE_LAST.match(text.rstrip(" \t\n.!")) is not None
