"""What discovery asks once the user has confirmed its summary but the step may not close yet:
seed 001's "Понять приоритеты между ними" and "Узнать текущую ситуацию и constraints", one
question a turn, each answer kept as a note; never its own last reply word for word."""

# ruff: noqa: RUF002  (Russian examples are meant to be Cyrillic)

from __future__ import annotations

from baton_agent_runner.domain import action_lists, brain_dump
from baton_agent_runner.domain import language as lang
from baton_agent_runner.domain.scripted_turn import Turn, last_reply
from baton_agent_runner.domain.texts import in_every_language, text

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
