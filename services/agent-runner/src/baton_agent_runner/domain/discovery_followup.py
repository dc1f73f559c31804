"""What discovery asks once the user has confirmed its summary but the step may not close yet:
seed 001's "Понять приоритеты между ними" and "Узнать текущую ситуацию и constraints", one
question a turn, each answer kept as a note; never its own last reply word for word."""

# ruff: noqa: RUF001, RUF002, RUF003  (Russian text, comments too, is meant to be Cyrillic)

from __future__ import annotations

import re
from typing import Literal

from baton_agent_runner.domain import action_lists, brain_dump
from baton_agent_runner.domain import language as lang
from baton_agent_runner.domain.readiness import PUTTING_OFF, puts_off
from baton_agent_runner.domain.scripted_turn import Turn, last_reply
from baton_agent_runner.domain.texts import in_every_language, text
from baton_agent_runner.domain.wording import normalised, words

QUESTIONS = ("focus", "constraints", "good_week")
"""The notes' keys, in the order they are asked: which area matters most now, what holds the
user back, and (asked only when the step still needs a turn) what would make a good week."""


def asked(turn: Turn) -> str | None:
    """The question the last reply ended on, in either language (None: it asked none)."""
    last = last_reply(turn).rstrip()
    return next((key for key in QUESTIONS if last.endswith(_questions(key))), None)


def next_question(turn: Turn) -> str | None:
    """The first question neither answered (a note) nor asked in the history (a "готово"
    to it said the user would rather not answer)."""
    said = [e.get("text", "") for e in turn.history if e.get("role") == "assistant"]
    return next(
        (
            key
            for key in QUESTIONS
            if key not in turn.notes and not any(q in s for s in said for q in _questions(key))
        ),
        None,
    )


def ask(language: lang.Lang, key: str, lead: str) -> str:
    """The question `key`, after `lead` ("Хорошо." to a confirmation, "Записал." to an answer)."""
    return f"{text(language, lead)} {text(language, f'discovery_ask_{key}')}"


def note(key: str, message: str, language: lang.Lang) -> str:
    """The answer as kept: which area matters most names the area ("отношения — Семья,
    конечно"); the others are the user's words."""
    said = " ".join(message.split())
    found = lang.areas_in(message) if key == "focus" else {}
    if not found:
        return said
    names = ", ".join(lang.AREA_NAMES[language][area] for area in found)
    return f"{names} — {said}"


# A follow-up question passed over: "пропустим", "skip", "не знаю", "idk", "no idea", "next".
# Every word one of `_PASSING`, one of them a word of `_PASSES` or "не знаю"/"don't know";
# "потом" and "later" too, alone or with `PUTTING_OFF`'s words ("давай потом"). "Nothing"
# answers "what holds you back?", and "нет" answers it as well: neither is passing.
_PASSES = frozenset({
    "пропусти", "пропустим", "пропустить", "пропускаю", "дальше", "следующий", "хз", "skip",
    "pass", "next", "idk", "dunno", "понятия", "idea", "sure",
})  # fmt: skip
_PASSING = _PASSES | {
    "давай", "давайте", "можно", "этот", "вопрос", "не", "знаю", "пока", "без", "сложно",
    "трудно", "сказать", "ответить", "могу", "i", "don't", "dont", "know", "no", "not", "it",
    "this", "one", "question", "let's", "lets", "please", "пожалуйста", "maybe", "really", "yet",
}  # fmt: skip
_KNOW_NOT = re.compile(r"\b(?:не\s+знаю|(?:don'?t|do\s+not)\s+know|не\s+могу\s+сказать)\b")
# A question back ("а зачем тебе это?", "what do you mean by most?", "whats next?"): a
# question word opens it, past "а"/"и"/"and"/"so"/"wait". "Maybe family?" is an answer.
_ASKING = frozenset({
    "что", "зачем", "почему", "как", "кто", "когда", "где", "куда", "какой", "какая", "какие",
    "what", "what's", "whats", "why", "how", "who", "when", "where", "which", "is", "are",
    "do", "does", "can", "will",
})  # fmt: skip
_BEFORE_ASKING = frozenset({"а", "и", "ну", "так", "and", "so", "but", "wait", "ok", "okay"})
_NO_WORDS = re.compile(r"^\W*$|^(?:\W*\b(?:lol|lmao|haha\w*|ha|hah|хах\w*|ха|хех|хм+|hmm+)\b\W*)+$")


# A bare "no" answers "what holds you back?" (nothing does); to which area matters most or
# what would make a good week, it answers nothing ("хорошая неделя: нет" was kept).
_BARE_NO = frozenset({"нет", "неа", "ничего", "no", "nope", "nah", "nothing", "none"})


def no_answer(message: str, asked: str = "") -> Literal["pass", "question", "nothing"] | None:
    """What a message to the follow-up question `asked` says instead of an answer: that the
    user passes on it ("пропустим", "не знаю", "later"; a bare "no" but to "what holds you
    back?"), a question back ("а зачем тебе это?"), or nothing ("lol", an emoji); None for an
    answer. Each was kept as the answer, and the answers after it slipped one question
    ("потом" kept as what matters most)."""
    lowered = normalised(message)
    if _NO_WORDS.match(lowered):
        return "nothing"
    said = words(lowered)
    if asked != "constraints" and said and set(said) <= _BARE_NO:
        return "pass"
    passing = all(word in _PASSING for word in said) and (
        any(word in _PASSES for word in said) or bool(_KNOW_NOT.search(lowered))
    )
    if passing or (puts_off(message) and all(word in PUTTING_OFF for word in said)):
        return "pass"
    opening = [word for word in said if word not in _BEFORE_ASKING][:1]
    if message.rstrip().endswith("?") and opening and opening[0] in _ASKING:
        return "question"
    return None


# Said before it is asked ("работа, семья, здоровье. главное семья, а мешает нехватка
# времени"): which area matters most, and what holds the user back. Both were asked again.
_FOCUS = re.compile(
    r"\b(?:главн\w*|важнее\s+всего|самое\s+важное|в\s+первую\s+очередь|прежде\s+всего"
    r"|most\s+important|matters?\s+(?:the\s+)?most|first\s+of\s+all|above\s+all"
    r"|top\s+priority|number\s+one)\b"
)
_HOLDS_BACK = re.compile(
    r"\b(?:меша\w*|не\s+хватает|нехватк\w*|нет\s+(?:времени|сил)|устаю|выгора\w*"
    r"|holds?\s+me\s+back|no\s+time|not\s+enough\s+(?:time|energy)|lack\s+of|too\s+(?:tired|busy)"
    r"|burn(?:ed|t)?\s*out|struggl\w*)\b"
)
_VOLUNTEERED_CLAUSE = re.compile(r"[.;!?\n]+|,\s*(?=(?:а|но|и|but|and)\s)")


def volunteered(message: str, language: lang.Lang) -> dict[str, str]:
    """The notes a message gives before their questions are asked: `focus`, a clause that
    ranks one area first ("главное семья", "family matters most"), and `constraints`, one that
    says what holds the user back ("мешает нехватка времени", "no time is my problem")."""
    found: dict[str, str] = {}
    for clause in _VOLUNTEERED_CLAUSE.split(message):
        said = " ".join(clause.split()).strip(" ,")
        lowered = normalised(said)
        if "focus" not in found and _FOCUS.search(lowered) and len(lang.areas_in(said)) == 1:
            found["focus"] = note("focus", said, language)
        elif "constraints" not in found and _HOLDS_BACK.search(lowered):
            found["constraints"] = _without_joining(said)
    return found


def _without_joining(clause: str) -> str:
    """The clause without the joining word it starts with ("а мешает ...": "мешает ...")."""
    return re.sub(r"^(?:а|но|и|but|and)\s+", "", clause, flags=re.IGNORECASE)


def lines(language: lang.Lang, notes: dict[str, str]) -> list[str]:
    """The notes as summary lines, in the questions' order."""
    return [f"- {text(language, f'note_{key}')}: {notes[key]}" for key in QUESTIONS if key in notes]


def looks_like_tasks(message: str) -> bool:
    """A to-do list said to discovery, as the brain dump reads one: items naming no area, at
    least two of them or one asked about ("купить хлеб. А что будет с этим?")."""
    if lang.areas_in(message):
        return False
    items = brain_dump.split_items(message)
    return len(items) >= 2 or (len(items) == 1 and brain_dump.asks(message))


def only_actions(message: str) -> bool:
    """Whether every item of a to-do list (`looks_like_tasks`, which the caller has checked)
    is an action ("позвонить маме; оплатить налог", "call mom; pay rent"): said to "what holds
    you back?", it is no answer ("время; силы" is a list too, of no actions)."""
    items = brain_dump.split_items(message)
    return len(items) > 1 and all(action_lists.is_action(item) for item in items)


def task_list(message: str) -> list[str]:
    """The items of a to-do list said to discovery, two or more naming no area ("позвонить
    маме; записаться к врачу"), kept for the brain dump; none for one item asked about
    ("купить хлеб. А что будет с этим?"), which as often is no task ("Interesting. How do you
    use it?")."""
    items = brain_dump.split_items(message) if looks_like_tasks(message) else []
    return items if len(items) > 1 else []


def _questions(key: str) -> tuple[str, ...]:
    return in_every_language(f"discovery_ask_{key}")
