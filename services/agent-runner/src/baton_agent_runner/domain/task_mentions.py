"""A single task said in passing outside the brain dump, with a clear marker: "hi, remember to
call mom btw", "don't forget to ...", "can you remind me tomorrow to call the vet?", "oh and
fix the bike too", "не забыть оплатить интернет", "напомни мне завтра позвонить врачу", "надо
позвонить маме", "I need to pay rent". The greeter and discovery keep it for the brain dump,
as an inbox request; it was answered with the step's reply to the rest, and lost.

"Надо ...", "I need to ..." and "oh and ..." mark a task only before an action naming no life
area: "надо больше спать", "I need more time with family", "oh and family too" are discovery's.
A list is none: the steps read lists themselves (`followup.task_list`)."""

# ruff: noqa: RUF001, RUF002, RUF003  (Russian text, comments too, is meant to be Cyrillic)

from __future__ import annotations

import re
from collections.abc import Set
from typing import NamedTuple

from baton_agent_runner.domain import action_words, brain_dump, readiness
from baton_agent_runner.domain import language as lang
from baton_agent_runner.domain.inbox_requests import REMINDER
from baton_agent_runner.domain.wording import words

# When the user would be reminded: kept in the item ("call the vet tomorrow").
_WHEN = (
    r"(?:tomorrow|tonight|today|later|next\s+week|this\s+(?:morning|afternoon|evening|week"
    r"|weekend)|on\s+\w+day)"
)
_RU_WHEN = re.compile(r"^(?:завтра|сегодня|послезавтра|вечером|утром|потом)\s+", re.IGNORECASE)
# Said before the marker, no part of the task: "wait", "oh", "btw", "can you", "а ты можешь".
# A yes is no part of it either, but is the step's (`_MENTION`): "да, надо купить хлеб" to
# discovery's summary lost its "да", and the summary was asked about again.
# At most four such words: without a bound, each phrase start of ", and , and ..." (8,000
# characters) read all the rest of the message, and the search took minutes.
_OPENING = (
    r"(?:(?:oh|wait|hey|ah|and|also|btw|so|ok|okay|but|и|а|ой|кстати|слушай|но)\b"
    r"[\s,.!—–-]{0,8}){0,4}"
    r"(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?"
    r"|(?:ты\s+|вы\s+)?(?:можешь|можете|сможешь|сможете)\s+(?:пожалуйста\s+)?)?"
)
# The marker at a phrase's start; the task runs to the sentence's end. `need` ("надо ...")
# and `also` ("oh and ...") mark one only before an action (`_task`).
_MENTION = re.compile(
    # After a yes too, said to discovery's summary: "yes and I need to buy running shoes",
    # "да надо купить хлеб"; the yes stays in what is left for the step.
    rf"(?:^|(?<=[.!?,;:—–])|(?<=\byes)|(?<=\byeah)|(?<=\byep)|(?<=\bда))\s*{_OPENING}"
    rf"(?:{REMINDER}|remind\s+me\s+(?P<when>{_WHEN})\s+to"
    r"|(?P<also>oh\s+and|and\s+also)"
    r"|(?P<need>(?:(?:мне|нам)\s+)?(?:ещ[её]\s+|также\s+)?(?:надо|нужно)"
    r"|(?:i\s+)?(?:also\s+|still\s+)?(?:need|have)\s+to))"
    r"\s+(?P<item>[^.!?;\n]+)",
    re.IGNORECASE,
)
# What ends a task said in passing and is no part of it: "btw", "too", "please", an emoji.
_TAIL = re.compile(
    r"(?:[\s,]*(?:\b(?:too|as\s+well|btw|please|pls|lol|пожалуйста|тоже|плиз)\b|[^\w\s]))+$",
    re.IGNORECASE,
)
# A reminder of something asked or talked of ("напомни мне, о чём мы говорили", "remember
# about the family") names no task.
_NO_TASK = frozenset({
    "что", "как", "зачем", "почему", "где", "когда", "кто", "чем", "о", "об", "про", "насчет",
    "about", "what", "how", "why", "where", "when", "who", "that", "it", "this",
})  # fmt: skip


# After "I have to", "надо": what the user must do now, say or understand, no errand ("I have
# to go soon", "I have to admit ...", "надо идти", "мне надо понять, что это").
_NO_ERRAND = frozenset({
    "go", "leave", "run", "admit", "say", "tell", "ask", "think", "be", "understand", "know",
    "see", "идти", "бежать", "сказать", "признать", "подумать", "уходить", "понять", "знать",
})  # fmt: skip


class Mention(NamedTuple):
    """A task said in passing: the task, and the message without it (said to the step)."""

    item: str
    rest: str


def task_mention(text: str, known: Set[str] = frozenset()) -> Mention | None:
    """The one task the message mentions with a clear marker (see the module's docstring), and
    what else it says; None when it mentions none. An errand that names only `known` areas
    (those discovery's summary holds: "I need to renew my gym membership") is a task too."""
    for found in _MENTION.finditer(text):
        item = _TAIL.sub("", found.group("item")).strip()
        if len(brain_dump.split_items(item)) > 1:
            return None  # a list ("I need to call mom, fix the sink and ..."): the step's
        if not _task(item, not (found.group("need") or found.group("also")), known):
            continue
        if found.group("need") and text[found.end() :].lstrip().startswith("?"):
            continue  # "I have to go soon, can we be quick?": asked, no task
        if when := found.group("when"):
            item = f"{item} {when}"
        rest = f"{text[: found.start()].strip()} {text[found.end() :].lstrip(' .!?;')}"
        return Mention(item, rest.strip())
    return None


def _task(item: str, reminder: bool, known: Set[str]) -> bool:
    """Whether `item` is a task: after a reminder's lead-in anything but a question or a topic
    ("о чём мы говорили", "about the family"); after "надо"/"oh and", an action (past when it
    is to be done, "завтра позвонить врачу") that names no life area ("заниматься спортом"),
    or an errand that names only `known` ones."""
    said = words(item)
    if not said or said[0] in _NO_TASK:
        return False
    if reminder:
        return True
    if said[0] in _NO_ERRAND:
        return False
    action = _RU_WHEN.sub("", item)
    named = lang.areas_in(action).keys()
    if named and named <= known:
        return action_words.is_errand(action)
    return action_words.is_action(action) and not named


# What opens a task remembered at the last moment, said to the coordinator's "send me anything
# when you are ready": "also", "oh and", "one more thing:", "I forgot (to add)", "забыл:", and
# thanks before them ("спасибо! ой, и ещё не забыть купить внучке подарок" saved nothing).
_LATE_LEADS = (
    r"(?:thanks|thank\s+you|thx|спасибо|спс)(?:\s+(?:a\s+lot|so\s+much|большое))?",
    r"ещ[её]\s+одно", r"(?:oh|wait|also|and|btw|ah|actually|ой|а|и|ещ[её]|кстати|да)",
    r"hold\s+on", r"one\s+more(?:\s+thing)?",
    r"(?:i\s+)?forgot(?:\s+one)?(?:\s+to\s+(?:add|say|mention))?",
    r"(?:я\s+)?забыл[аи]?(?:\s+(?:добавить|сказать))?",
)  # fmt: skip
_LATE_LEAD = re.compile(r"^(?:(?:" + "|".join(_LATE_LEADS) + r")\b[\s,.!:—–-]*)*", re.IGNORECASE)


def late_task(text: str) -> str | None:
    """One task said to the coordinator once the brain dump has closed ("oh and buy milk",
    "one more thing: renew passport", "wait, I forgot to add buy milk", "call the bank"): an
    action naming no life area, or a task said in passing (`task_mention`); None for anything
    else ("thanks", "what's next?"). It was dropped by the wrap-up, and never reached the
    inbox."""
    if len(text) > _LATE_TASK_LENGTH or "?" in text or readiness.is_ready(text):
        return None  # "go ahead", "ok, sum it up": the wrap-up is what they ask for
    for said in (text, past_late_lead(text)):  # "ой, и ещё не забыть купить ...": past "ещё"
        if (found := task_mention(said)) is not None and not words(found.rest):
            return found.item
    item = _TAIL.sub("", past_late_lead(text)).strip()
    if "\n" in item or not action_words.is_action(item) or words(item)[0] in _ASKING_FOR_IT:
        return None
    if len(brain_dump.split_items(item)) != 1:
        return None
    return None if lang.areas_in(item) else item


def past_late_lead(text: str) -> str:
    """The text past what opens a task remembered at the last moment ("actually also", "oh
    and", "спасибо! ой, и ещё"), for its tasks to be read."""
    return _LATE_LEAD.sub("", text.strip())


_LATE_TASK_LENGTH = 200
"""A task remembered at the last moment is one short line; a longer message is read as the
wrap-up's go-ahead (and `_TAIL`, searched from each of its stops, would read it in time that
grows as its square)."""
_ASKING_FOR_IT = frozenset({"go", "show", "tell", "sum", "wrap", "give", "finish", "continue"})
"""Verbs that ask for the wrap-up itself ("show me the summary", "sum it up"), no task."""
