"""The scripted greeter (seed 001, component 3): it completes on readiness, a question about
the next step, or three calm exchanges; answers what it is asked before the start; keeps the
priorities and the to-do list said this early for the steps that take them."""

# ruff: noqa: RUF003  (Russian comments are meant to be Cyrillic)

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from baton_agent_runner.domain import (
    greeter_questions,
    intro_skips,
    names,
    questions,
    readiness,
    skipping,
)
from baton_agent_runner.domain import language as lang
from baton_agent_runner.domain.areas import AREAS
from baton_agent_runner.domain.scripted_turn import Reply, Turn, last_reply
from baton_agent_runner.domain.texts import TEXTS, text
from baton_agent_runner.domain.wording import words

GREETER_EXCHANGES = 3


def greeter(turn: Turn) -> Reply:
    """Completes on readiness, a question about the next step, or 3 calm exchanges; not while
    the user says they are not ready ("я пока не готов", "not yet"). Priorities named this
    early belong to discovery: they are kept as its facts, and the reply says they will be
    talked over at that step (seed 000's "перескок"). A name the user gives ("меня зовут Аня")
    goes into the greeting's step data as `user_name` (seed 000 §5), greeted once."""
    reply = _greeter_reply(turn)
    name = names.name_in(turn.message)
    if name is None or name == names.known_name(turn.step):
        return reply
    reply.data = {**reply.data, names.USER_NAME: name}
    reply.message = names.greeted(turn.language, name, reply.message)
    return reply


def _greeter_reply(turn: Turn) -> Reply:
    message, ru = turn.message, turn.language
    early, declined = lang.areas_said(message)
    data: dict[str, Any] = {"facts": early} if early else {}
    if dropped := [area for area in AREAS if area in declined and area not in early]:
        # "I said work, not health": the health fact an earlier message saved goes (one that
        # was never saved is no write); found in the message, as the greeter reads no store.
        data["dropped_facts"] = dropped
    if readiness.is_confused(message):
        # The areas said beside the confusion are kept: "I work as a nurse and my kids keep me
        # busy. Not sure I understand how this works" kept none, and the closing then said
        # "You named work, relationships" of areas discovery asked for again.
        return Reply(text(ru, "greeter_explain"), data=data)
    if (asked := _topic(message)) is not None:
        return Reply(
            text(ru, f"greeter_{asked}"), data=data
        )  # "wait, how long does this take?" too
    if not readiness.asks_next_step(message) and readiness.is_not_ready(message):
        return Reply(text(ru, "greeter_wait"), data=data)
    # "пропусти", "дальше", "skip this" once introduced: the user wants to go on, which is
    # what the greeting waits for; it got the explanation of the steps again.
    introduced = bool(last_reply(turn))
    skips = skipping.asks_to_skip(message)
    if introduced and intro_skips.asks_whether_to_skip(message):
        # "can I skip this?" asks what may be skipped: it was taken for readiness.
        return Reply(text(ru, "greeter_skip_asked"), data=data)
    # Before any introduction a skip is not yet readiness: there is nothing to skip, and the
    # user is introduced first.
    if (
        (readiness.is_ready(message) and (introduced or not skips))
        or readiness.asks_next_step(message)
        or _yes_to_start(turn)
        or (introduced and skips)
        or intro_skips.skips_intro(message)  # "hi, can we skip the intro?" got the intro
    ):
        if not turn.can_complete:  # seed 000's pre-check: the step cannot close yet
            # The first message ("С чего начнём?"): who the greeter is first, which "Отлично!
            # Пара слов о том, как всё устроено" never said.
            return Reply(text(ru, "greeter_not_yet" if introduced else "greeter_intro"), data=data)
        closing = _greeter_done(turn, early, declined)
        return Reply(closing, "complete_step", "user_confirmed", data)
    # A question is answered, not taken for readiness: "это бесплатно?" as the third
    # message was answered "Отлично, поехали!".
    asks = message.rstrip().endswith("?")
    # Nor is an area said to "Начнём?": "работа" as the third message was taken for a yes.
    answers = bool(early) and _start_asked(turn)
    if _calm_exchanges(turn) >= GREETER_EXCHANGES and turn.can_complete and not (asks or answers):
        closing = _greeter_done(turn, early, declined)
        return Reply(closing, "complete_step", "criteria_met", data)
    if early and not last_reply(turn):  # the first message: not introduced yet
        return Reply(text(ru, "greeter_early_intro", areas=_area_names(ru, early)), data=data)
    if early:
        names, why = _area_names(ru, early), text(ru, "why_greeter")
        return Reply(text(ru, "greeter_early_priorities", areas=names, why=why), data=data)
    # Introduced already (a question about how long it takes, say): how it works, not "Hi! I
    # am Baton" word for word again.
    return Reply(text(ru, "greeter_about" if last_reply(turn) else "greeter_intro"))


def _topic(message: str) -> str | None:
    """The topic of Baton's own the message asks about (`greeter_questions`), its "?" said or,
    chat-style, left out, as the brain dump reads it ("how long will this take lol", "кто
    ты"): without it that got the greeting, as if nothing had been asked."""
    if (asked := greeter_questions.topic(message)) is not None:
        return asked
    if len(words(message)) <= _SHORT and not readiness.is_ready(message):
        # A question by its tone alone, as Russian asks one: "а это платно", "это бесплатно".
        return greeter_questions.topic_of(message)
    start = questions.unmarked_question_start(message)
    return None if start is None else greeter_questions.topic_of(message[start:])


_SHORT = 4
"""The most words of a message the greeter reads as a question of its topic without a "?"."""


def question_again(turn: Turn) -> str:
    """The question the greeter's last reply ended on ("Ready to start?"), or, with none, how
    it works, ending on one; the greeting itself before any reply."""
    last = last_reply(turn)
    if not last:
        return text(turn.language, "greeter_intro")
    asked = _LAST_QUESTION.search(last)
    return asked.group().strip() if asked else text(turn.language, "greeter_about")


_LAST_QUESTION = re.compile(r"[^.!?\n]*\?\s*$")


def _greeter_done(turn: Turn, early: dict[str, str], declined: set[str]) -> str:
    """The greeter's closing: it asks which areas matter, or, when the user named some during
    the greeting (in an earlier message of the history, or in this one: `early`), what else
    matters; not one a later message takes back ("I said work, not health": `declined`).

    Read off the history, not the priority facts they were kept as: a greeter turn reads no
    store (`READS`), and the greeting, the first step, is all of the history there is."""
    said = [lang.areas_said(e.get("text", "")) for e in turn.history if e.get("role") == "user"]
    noted: set[str] = set()
    for named, dropped in [*said, (early, declined)]:  # oldest first: the latest word counts
        noted = (noted - dropped) | named.keys()
    if not any(area in noted for area in AREAS):
        return text(turn.language, "greeter_done")
    return text(turn.language, "greeter_done_noted", areas=_area_names(turn.language, noted))


def _area_names(language: lang.Lang, areas: Iterable[str]) -> str:
    """The areas' names in `language`, in the order discovery asks about them."""
    named = set(areas)
    return ", ".join(lang.AREA_NAMES[language][area] for area in AREAS if area in named)


def _calm_exchanges(turn: Turn) -> int:
    """The user's messages so far (this one included) that showed no confusion: seed 001's
    greeter completes "after 3 exchanges without confusion", so a confused one does not
    count towards them, nor does one that puts it off or says no ("hi", "not now", "hmm" was
    answered "Great, let's go!")."""
    said = [e.get("text", "") for e in turn.history if e.get("role") == "user"]
    return sum(1 for message in [*said, turn.message] if _calm(message))


def _calm(message: str) -> bool:
    """A message neither confused nor unready ("not now", "no", "пока нет"): one reading,
    cached, of each earlier message."""
    return readiness.readiness(message) not in ("confused", "waiting")


def _yes_to_start(turn: Turn) -> bool:
    """A "да"/"yes" to the greeter's own "Начнём?"/"Shall we start?"."""
    return _start_asked(turn) and lang.confirms(turn.message)


def _start_asked(turn: Turn) -> bool:
    """The greeter's last reply asked whether to start ("Начнём?", "Shall we start?")."""
    last = last_reply(turn).rstrip()
    return any(last.endswith(question) for question in _START_QUESTIONS)


_STARTS = (
    "greeter_intro",
    "greeter_about",
    "greeter_not_yet",
    "greeter_early_priorities",
    "greeter_early_intro",
    "greeter_skip_asked",
    *greeter_questions.KEYS,
)
"""The greeter's texts that end asking whether the user is ready to start."""
_START_QUESTIONS = tuple(
    re.search(r"[^.!?}]*\?$", TEXTS[key][language]).group().strip()  # type: ignore[union-attr]
    for key in _STARTS
    for language in ("ru", "en")
)
"""Their questions ("Начнём?", "Shall we start?"), as the last reply ends on them."""
