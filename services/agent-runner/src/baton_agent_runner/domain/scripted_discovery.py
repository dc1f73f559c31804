"""The scripted discovery agent (seed 001, component 4): a priority fact per life area the
user names, a summary at three areas, completion once the user confirms it."""

from __future__ import annotations

import re
from typing import Any

from baton_agent_runner.domain import brain_dump
from baton_agent_runner.domain import discovery_followup as followup
from baton_agent_runner.domain import language as lang
from baton_agent_runner.domain.areas import AREAS, ASKED
from baton_agent_runner.domain.scripted_turn import Reply, Turn, last_reply, last_reply_says
from baton_agent_runner.domain.texts import text

MIN_AREAS = 3


def discovery(turn: Turn) -> Reply:
    """Saves a `priorities` fact per area, forgets one the user takes back; summarises at 3
    areas; completes once confirmed, and until the step may close asks the follow-up
    questions; never says its last reply again word for word."""
    reply = _discovery(turn)
    if reply.action == "stay" and reply.message.strip() == last_reply(turn).strip():
        # "If it is right, say yes" only of a summary: of a question it answers nothing.
        lead = "discovery_unclear" if _summary_shown(turn) else "discovery_unclear_ask"
        reply.message = f"{text(turn.language, lead)}\n{reply.message}"
    return reply


def _discovery(turn: Turn) -> Reply:
    found, declined = lang.areas_in(turn.message), lang.declined_areas(turn.message)
    dropped = [area for area in AREAS if area in declined and area in turn.facts]
    facts = {area: fact for area, fact in {**turn.facts, **found}.items() if area not in dropped}
    data: dict[str, Any] = {"facts": found} if found else {}
    if dropped:
        data["dropped_facts"] = dropped
    # "That's all", "готово" to its "Anything to add?" confirm, as "nothing to add" does.
    said_yes = lang.confirms(turn.message) or lang.finishes(turn.message)
    pending = followup.asked(turn)
    if found and not pending and (notes := _volunteered(turn, found)):
        # "главное семья; мешает нехватка времени" with the areas: not asked again.
        data["notes"] = notes
        turn = turn.model_copy(update={"notes": {**turn.notes, **notes}})
    if pending and not (dropped or _corrects(turn.message, found)) and len(facts) >= MIN_AREAS:
        return _answered(turn, pending, found, said_yes)
    confirmed = not data and _summary_shown(turn) and said_yes
    if confirmed and len(facts) >= MIN_AREAS:
        if not turn.can_complete:  # not enough said yet: what the seed still asks for
            return _after_confirmation(turn, "discovery_good")
        return Reply(text(turn.language, "discovery_done"), "complete_step", "user_confirmed")
    forgot = _forgot(turn.language, dropped)
    if not data and not said_yes and followup.looks_like_tasks(turn.message):
        more = (
            _summary(turn, facts)
            if len(facts) >= MIN_AREAS
            else _ask_for_more(turn, facts, declined)
        )
        tasks = _tasks(turn)
        return Reply(f"{tasks.message}\n{more}", data=tasks.data)
    if len(facts) >= MIN_AREAS:
        summary = _summary(turn, facts)
        if not data and lang.denies(turn.message):  # "нет, не так" without saying what is
            return Reply(f"{text(turn.language, 'discovery_correct')}\n{summary}")
        return Reply(forgot + summary, data=data)
    if facts and not found:
        return Reply(forgot + _too_few(turn, facts, declined), data=data)
    ask = _ask_for_more(turn, facts, declined)
    if found:  # "noted" only when a fact was
        ask = f"{text(turn.language, 'discovery_noted')} {ask}"
    return Reply(forgot + ask, data=data)


def _volunteered(turn: Turn, found: dict[str, str]) -> dict[str, str]:
    """The follow-up answers the message gives before they are asked, and not yet kept; which
    area matters most only among several it names ("Для меня главное — это здоровье" alone
    names one area, and ranks none)."""
    said = followup.volunteered(turn.message, turn.language)
    if len(found) < 2:
        said.pop("focus", None)
    return {key: note for key, note in said.items() if key not in turn.notes}


def _too_few(turn: Turn, facts: dict[str, str], declined: set[str]) -> str:
    """One or two areas known and none named now ("nope", "that's it", "ok"): what is known,
    that three are needed and why, and the areas untold; said otherwise the next time."""
    language = turn.language
    missing = ", ".join(lang.AREA_NAMES[language][a] for a in _unsaid(turn, facts, declined))
    if last_reply_says(turn, "discovery_need_three"):
        return text(language, "discovery_too_few_again", missing=missing)
    names = lang.AREA_NAMES[language]
    said = ", ".join(names[area] for area in AREAS if area in facts)
    known = text(language, "discovery_too_few", known=said)
    why = text(language, "discovery_need_three")
    return f"{known} {why} {text(language, 'discovery_what_else', missing=missing)}"


def _answered(turn: Turn, pending: str, found: dict[str, str], said_yes: bool) -> Reply:
    """A message to a follow-up question: its answer kept as a note (a new area named in it a
    fact too; a known one keeps its fact: "Семья" is no correction of "семья"); "готово" or
    "да" answers nothing. A to-do list, or one asked about, is told it waits for the brain
    dump, and the question stays; so is a list of actions said to "what holds you back?"
    ("позвонить маме; оплатить налог" was kept as the answer, and never reached the inbox)."""
    tasks = followup.looks_like_tasks(turn.message)
    actions = tasks and pending == "constraints" and followup.only_actions(turn.message)
    if tasks and (pending == "focus" or brain_dump.asks(turn.message) or actions):
        question = text(turn.language, f"discovery_ask_{pending}")
        kept = _tasks(turn)
        return Reply(f"{kept.message} {question}", data=kept.data)
    if not (found or said_yes) and (other := followup.no_answer(turn.message, pending)):
        return _not_answered(turn, pending, other)
    data: dict[str, Any] = {}
    if not said_yes:
        data["notes"] = {pending: followup.note(pending, turn.message, turn.language)}
        if new := {area: fact for area, fact in found.items() if area not in turn.facts}:
            data["facts"] = new
    if turn.can_complete:
        return Reply(text(turn.language, "discovery_done"), "complete_step", "user_confirmed", data)
    lead = "discovery_thanks" if data else "discovery_good"
    return _after_confirmation(turn, lead, data)


def _not_answered(turn: Turn, pending: str, said: str) -> Reply:
    """A follow-up question passed on goes to the next one (or completes, once the step may);
    a question back is answered, and one of nothing asked again: no note is kept of either."""
    if said == "pass":
        if turn.can_complete:
            return Reply(text(turn.language, "discovery_done"), "complete_step", "user_confirmed")
        return _after_confirmation(turn, "discovery_passed")
    lead = "discovery_why_asked" if said == "question" else "discovery_unclear_ask"
    return Reply(f"{text(turn.language, lead)} {text(turn.language, f'discovery_ask_{pending}')}")


def _tasks(turn: Turn) -> Reply:
    """What discovery says of a to-do list (`followup.task_list`): kept for the brain dump,
    where it reaches the inbox as the step starts, as an inbox request is; saved now when no
    inbox step lies ahead. One item asked about is only told where tasks go."""
    items = followup.task_list(turn.message)
    if not items:
        return Reply(text(turn.language, "discovery_tasks"))
    listed = "; ".join(items)
    if turn.inbox_ahead:
        kept = text(turn.language, "discovery_tasks_kept", items=listed)
        return Reply(kept, data={"deferred_inbox_items": items})
    why = text(turn.language, "why_discovery")
    return Reply(
        text(turn.language, "noted_now", items=listed, why=why), data={"inbox_items": items}
    )


_NO_FIRST = re.compile(r"^\W*(?:нет|неа|no|nope)\b\W", re.IGNORECASE)


def _corrects(message: str, found: dict[str, str]) -> bool:
    """Said to a follow-up question, a correction names an area and opens with "Нет,"/"No,"
    ("Нет, работа — это мой проект"): "не хватает времени", "no time for family" answer it."""
    return bool(found) and lang.denies(message) and bool(_NO_FIRST.match(message))


def _after_confirmation(turn: Turn, lead: str, data: dict[str, Any] | None = None) -> Reply:
    """The next follow-up question; with none left, "Anything to add?" (no "Is that right?"
    again: the user has said it is)."""
    key = followup.next_question(turn)
    if key is None:  # asked "Anything to add?" already: something else, not "I did not get it"
        anything = text(turn.language, "discovery_not_yet")
        said = (
            anything if anything not in last_reply(turn) else text(turn.language, "discovery_more")
        )
        return Reply(said, data=data or {})
    return Reply(followup.ask(turn.language, key, lead), data=data or {})


def _ask_for_more(turn: Turn, facts: dict[str, str], declined: set[str]) -> str:
    """The request to tell about the areas still untold; not one the user has said is none of
    theirs ("no hobbies"), in this message or in an earlier one. Before any is told, it asks
    which matter, with the areas as examples, not for "other areas too"."""
    missing = [lang.AREA_NAMES[turn.language][a] for a in _unsaid(turn, facts, declined)]
    key = "discovery_ask" if facts else "discovery_ask_first"
    return text(turn.language, key, missing=", ".join(missing))


def _unsaid(turn: Turn, facts: dict[str, str], declined: set[str]) -> list[str]:
    """The areas neither told nor said to be none of the user's (in this message or an earlier
    one); all the untold ones when every one is either."""
    earlier = (entry.get("text", "") for entry in turn.history if entry.get("role") == "user")
    skip = (
        facts.keys() | declined | {area for said in earlier for area in lang.declined_areas(said)}
    )
    return [a for a in ASKED if a not in skip] or [a for a in ASKED if a not in facts]


def _forgot(language: lang.Lang, dropped: list[str]) -> str:
    """ "Убрал: хобби." before the reply, when the turn forgets facts."""
    if not dropped:
        return ""
    names = ", ".join(lang.AREA_NAMES[language][area] for area in dropped)
    return text(language, "discovery_forgot", areas=names) + "\n"


def _summary_shown(turn: Turn) -> bool:
    """Whether the last reply showed the summary, in either language: a Russian summary
    confirmed with "ok, all good" is confirmed (that answer's language is English)."""
    # "Anything to add?" stands for it after the follow-up questions.
    return last_reply_says(turn, "summary_header", "discovery_not_yet")


def _summary(turn: Turn, facts: dict[str, str]) -> str:
    """ "Here is what I understood": a line per area, then the follow-up answers kept."""
    language = turn.language
    names = lang.AREA_NAMES[language]
    lines = [f"- {names.get(area, area)}: {fact}" for area, fact in facts.items()]
    lines += followup.lines(language, turn.notes)
    header, question = text(language, "summary_header"), text(language, "summary_question")
    return "\n".join([header, *lines, question])
