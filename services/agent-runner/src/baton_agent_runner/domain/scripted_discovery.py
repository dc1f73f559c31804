"""The scripted discovery agent (seed 001, component 4): a priority fact per life area the
user names, a summary at three areas, completion once the user confirms it (what it shows and
asks is `discovery_replies`, what it does with tasks `discovery_tasks`)."""

from __future__ import annotations

import re
from typing import Any

from baton_agent_runner.domain import (
    brain_dump,
    discovery_questions,
    greeter_questions,
    skipping,
)
from baton_agent_runner.domain import discovery_followup as followup
from baton_agent_runner.domain import language as lang
from baton_agent_runner.domain.areas import AREAS
from baton_agent_runner.domain.discovery_replies import (
    MIN_AREAS,
    ask_for_more,
    asked_in_vain,
    forgot_line,
    kept_so_far,
    leaving,
    right_asked,
    summary_of,
    summary_shown,
    then_asked_of,
    unrecognised,
    unsaid,
)
from baton_agent_runner.domain.discovery_tasks import one_task, tasks_said
from baton_agent_runner.domain.one_line_lists import list_entries
from baton_agent_runner.domain.scripted_turn import Reply, Turn, last_reply, last_reply_says
from baton_agent_runner.domain.texts import text
from baton_agent_runner.domain.told import FACTS_TOLD, knows_told, told
from baton_agent_runner.domain.yes_words import opens_with_no


def discovery(turn: Turn) -> Reply:
    """Saves a `priorities` fact per area, forgets one the user takes back; summarises at 3
    areas; completes once confirmed, and until the step may close asks the follow-up
    questions; never says its last reply again word for word."""
    reply = _discovery(turn)
    if reply.action == "stay" and reply.message.strip() == last_reply(turn).strip():
        # "If it is right, say yes" only of a summary: of a question it answers nothing.
        lead = "discovery_unclear" if summary_shown(turn) else "discovery_unclear_ask"
        if discovery_questions.asked_back(turn.message):  # the same question back again
            lead = "discovery_to_repeat"
        reply.message = f"{text(turn.language, lead)}\n{reply.message}"
    return reply


def _discovery(turn: Turn) -> Reply:
    found, declined = lang.areas_in(turn.message), lang.declined_areas(turn.message)
    dropped = [area for area in AREAS if area in declined and area in turn.facts]
    pending = followup.asked(turn)
    saved = _saved(turn, found, pending)
    facts = {area: fact for area, fact in {**turn.facts, **saved}.items() if area not in dropped}
    data: dict[str, Any] = {"facts": saved} if saved else {}
    if dropped:
        data["dropped_facts"] = dropped
    # "That's all", "готово" to its "Anything to add?" confirm, as "nothing to add" does.
    said_yes = _says_yes(turn.message)
    if not (pending or found or dropped) and skipping.asks_to_skip(turn.message):
        if len(facts) < MIN_AREAS:
            return Reply(_not_skipped(turn, facts, declined))
        said_yes = said_yes or summary_shown(turn)  # "давай дальше" to the summary: a yes
    topic = None if found or dropped else greeter_questions.topic(turn.message)
    if topic and not (topic == "why" and pending):  # why a follow-up asks: its own answer
        # "wait who sees this data?": answered as the greeter answers it, then asked again.
        return Reply(then_asked_of(turn, text(turn.language, f"faq_{topic}"), facts, declined))
    if not (found or dropped or pending) and len(facts) < MIN_AREAS and (said := _about(turn)):
        # "what do you mean by areas?", "можно несколько?": answered, then asked again.
        return Reply(then_asked_of(turn, said, facts, declined))
    if found and not pending and (notes := _volunteered(turn, found)):
        # "главное семья; мешает нехватка времени" with the areas: not asked again.
        data["notes"] = notes
        turn = turn.model_copy(update={"notes": {**turn.notes, **notes}})
    if pending and not (dropped or _corrects(turn.message, found)) and len(facts) >= MIN_AREAS:
        return _answered(turn, pending, found, said_yes)
    confirmed = not data and summary_shown(turn) and said_yes
    if confirmed and len(facts) >= MIN_AREAS:
        if not turn.can_complete:  # not enough said yet: what the seed still asks for
            return _after_confirmation(turn, "discovery_good")
        return Reply(text(turn.language, "discovery_done"), "complete_step", "user_confirmed")
    if not (data or said_yes or declined) and summary_shown(turn) and (task := one_task(turn)):
        # "buy groceries" to "Is the summary above right?": kept, then the question again.
        return Reply(then_asked_of(turn, task.message, facts, declined), data=task.data)
    forgot = forgot_line(turn.language, dropped)
    if not data and not said_yes and followup.looks_like_tasks(turn.message):
        more = (
            summary_of(turn, facts, data)
            if len(facts) >= MIN_AREAS
            else ask_for_more(turn, facts, declined)
        )
        tasks = tasks_said(turn)
        return Reply(f"{tasks.message}\n{more}", data=tasks.data)
    if len(facts) >= MIN_AREAS:
        summary = summary_of(turn, facts, data)
        if leaving(turn):  # the step's last message: no "Is that right?" it will not wait for
            return Reply(forgot + summary_of(turn, facts, data, ask=False), data=data)
        if not data and lang.denies(turn.message):  # "нет, не так" without saying what is
            return Reply(f"{text(turn.language, 'discovery_correct')}\n{summary}")
        if not data and last_reply_says(turn, "summary_header", "discovery_right"):
            return Reply(right_asked(turn))
        return Reply(forgot + summary, data=data)
    if leaving(turn):
        return Reply(forgot + kept_so_far(turn, facts), data=data)
    if not (found or declined) and asked_in_vain(turn) >= 2:
        return Reply(forgot + unrecognised(turn, facts, declined), data=data)
    if facts and not found:
        return Reply(forgot + _too_few(turn, facts, declined), data=data)
    ask = ask_for_more(turn, facts, declined)
    if saved:  # "noted" only when a fact was
        ask = f"{_noted(turn, saved)} {ask}"
    return Reply(forgot + ask, data=data)


def _noted(turn: Turn, saved: dict[str, str]) -> str:
    """ "Записал." of new areas; "Обновил: работа." when each was known and its fact is
    replaced: "Записал." and the same question again read as the last reply word for word,
    and got "I did not quite get that" before it, though the fact was kept."""
    if any(area not in turn.facts for area in saved):
        return text(turn.language, "discovery_noted")
    names = ", ".join(lang.AREA_NAMES[turn.language].get(area, area) for area in saved)
    return text(turn.language, "discovery_updated", areas=names)


def _saved(turn: Turn, found: dict[str, str], pending: str | None) -> dict[str, str]:
    """The facts a turn saves of the areas it names: an area with a fact already keeps it
    when the message only names the area again: its name and filler ("health i guess",
    "then work"), a ranking ("kids and my mom come first, then work, then gym if i ever get
    time"), or an answer to a follow-up question. The later, thinner text replaced the richer
    one ("I work as a nurse doing night shifts" became "work"). Said in a clause of its own
    ("work: I switched to day shifts") or as a correction ("No, work is my startup"), it is
    replaced."""
    if lang.denies(turn.message):
        return found
    again = pending is not None or followup.ranks(turn.message)
    saved = {
        area: fact
        for area, fact in found.items()
        if area not in turn.facts
        or not (followup.adds_nothing(fact) or (again and not followup.says_of(area, turn.message)))
    }
    if knows_told(turn.step):
        # A fact from a run before, named again now, keeps its text and is saved again, so
        # the instance counts it as told: "Work, health and my family" was summarised as
        # "From last time: work — ...", as if the user had not just said it.
        here = told(turn.step, FACTS_TOLD)
        saved |= {
            area: turn.facts[area]
            for area in found
            if area in turn.facts and area not in saved and area not in here
        }
    return saved


def _volunteered(turn: Turn, found: dict[str, str]) -> dict[str, str]:
    """The follow-up answers the message gives before they are asked, and not yet kept; which
    area matters most only among several the user has named ("Для меня главное — это
    здоровье" alone names one area, and ranks none; "probably family first" after work and
    health ranks family first)."""
    said = followup.volunteered(turn.message, turn.language)
    if len(found.keys() | turn.facts.keys()) < 2:
        said.pop("focus", None)
    return {key: note for key, note in said.items() if key not in turn.notes}


def _too_few(turn: Turn, facts: dict[str, str], declined: set[str]) -> str:
    """One or two areas known and none named now ("nope", "that's it", "ok"): what is known,
    that three are needed and why, and the areas untold; said otherwise the next time."""
    language = turn.language
    missing = ", ".join(lang.AREA_NAMES[language][a] for a in unsaid(turn, facts, declined))
    if last_reply_says(turn, "discovery_need_three"):
        return text(language, "discovery_too_few_again", missing=missing)
    why = text(language, "discovery_need_three")
    return f"{_known(turn, facts)} {why} {text(language, 'discovery_what_else', missing=missing)}"


def _not_skipped(turn: Turn, facts: dict[str, str], declined: set[str]) -> str:
    """A request to skip the step before three areas are known: that it cannot be skipped and
    why (shorter the next time), what is known, and the areas still untold."""
    again = last_reply_says(turn, "discovery_no_skip", "discovery_no_skip_again")
    why = text(turn.language, "discovery_no_skip_again" if again else "discovery_no_skip")
    known = _known(turn, facts) if facts else ""
    return " ".join(filter(None, [why, known, ask_for_more(turn, facts, declined)]))


def _known(turn: Turn, facts: dict[str, str]) -> str:
    """ "So far I have work, health.": the areas known, those the user did not tell in this
    instance (`domain.told`) last, as "From last time: hobbies.", as the summary marks them."""
    names, fresh = lang.AREA_NAMES[turn.language], told(turn.step, FACTS_TOLD)
    now = ", ".join(names[area] for area in AREAS if area in facts and area in fresh)
    earlier = ", ".join(names[area] for area in AREAS if area in facts and area not in fresh)
    known = text(turn.language, "discovery_too_few", known=now) if now else ""
    if earlier:
        known = f"{known} {text(turn.language, 'from_last_time')}: {earlier}.".strip()
    return known


def _answered(turn: Turn, pending: str, found: dict[str, str], said_yes: bool) -> Reply:
    """A message to a follow-up question: its answer kept as a note (a new area named in it a
    fact too only when the user says it is a priority, `followup.lists_priority`: "money tbh"
    to "what holds you back?" was saved as a fourth priority unsaid; a known area keeps its
    fact: "Семья" is no correction of "семья"); "готово" or
    "да" answers nothing. A to-do list, or one asked about, is told it waits for the brain
    dump, and the question stays; so is a list of actions said to "what holds you back?"
    ("позвонить маме; оплатить налог" was kept as the answer, and never reached the inbox)."""
    tasks = followup.looks_like_tasks(turn.message)
    actions = tasks and pending == "constraints" and followup.only_actions(turn.message)
    if tasks and (pending == "focus" or brain_dump.asks(turn.message) or actions):
        kept = tasks_said(turn)
        return Reply(then_asked_of(turn, kept.message, {}, set()), data=kept.data)
    if not (found or said_yes) and (other := followup.no_answer(turn.message, pending)):
        return _not_answered(turn, pending, other)
    data: dict[str, Any] = {}
    if not said_yes:
        data["notes"] = {pending: followup.note(pending, turn.message, turn.language)}
        new = {area: fact for area, fact in found.items() if area not in turn.facts}
        if new and followup.lists_priority(pending, turn.message):
            data["facts"] = new
    week = _week_tasks(turn, pending, data) if tasks else ""
    if turn.can_complete:
        done = text(turn.language, "discovery_done")
        return Reply(f"{week}{done}", "complete_step", "user_confirmed", data)
    lead = "discovery_thanks" if data else "discovery_good"
    reply = _after_confirmation(turn, lead, data)
    reply.message = f"{week}{reply.message}"
    return reply


def _week_tasks(turn: Turn, pending: str, data: dict[str, Any]) -> str:
    """A to-do list laid out as one (lines, bullets, numbers, ";", or commas between actions
    alone) said to "what would make the coming week a good one?": the answer, kept as the note,
    and its items kept for the brain dump too (saved now with no inbox step ahead), said in a
    line before the reply. Kept as the note alone, "- fix the crib\n- call mom" and "call the
    bank, renew my passport, book the dentist" never reached the inbox; "sleep well, see
    friends" is no to-do list."""
    message = turn.message
    listed = "\n" in message.strip() or ";" in message
    listed = listed or ("," in message and followup.only_actions(message))
    if pending != "good_week" or not (listed or len(list_entries(turn.message)) > 1):
        return ""
    items = followup.task_list(turn.message)
    if not items:
        return ""
    data["deferred_inbox_items" if turn.inbox_ahead else "inbox_items"] = items
    key = ("task_kept" if len(items) == 1 else "tasks_kept") if turn.inbox_ahead else "noted"
    return text(turn.language, key, items="; ".join(items)) + "\n"


def _not_answered(turn: Turn, pending: str, said: str) -> Reply:
    """A follow-up question passed on goes to the next one (or completes, once the step may);
    a question back is answered, and one of nothing asked again: no note is kept of either."""
    if said == "pass":
        if turn.can_complete:
            return Reply(text(turn.language, "discovery_done"), "complete_step", "user_confirmed")
        return _after_confirmation(turn, "discovery_passed")
    if said == "question" and (about := _about(turn, pending)):
        return Reply(then_asked_of(turn, about, {}, set()))
    lead = "discovery_why_asked" if said == "question" else "discovery_unclear_ask"
    return Reply(then_asked_of(turn, text(turn.language, lead), {}, set()))


def _about(turn: Turn, pending: str | None = None) -> str | None:
    """The answer to a question back about the question discovery waits on
    (`discovery_questions`), or None: before the areas, what an area is, whether several may
    be named, whether one must, why, and what comes next; at a follow-up question, what comes
    next, and at "which matters most?" whether several may be named. Each got the question
    again alone, or the generic "I ask so that ..." at a follow-up question."""
    asked, language = discovery_questions.asked_back(turn.message), turn.language
    then = text(language, "discovery_then_inbox" if turn.inbox_ahead else "discovery_then_done")
    if pending is None:
        if asked == "why":
            return text(language, "faq_why")
        if asked == "next":
            return text(language, "discovery_about_next_first", then=then)
        return text(language, f"discovery_about_{asked}") if asked else None
    if asked == "several" and pending == "focus":
        return text(language, "discovery_about_several_focus")
    if asked != "next":
        return None
    later = followup.QUESTIONS[followup.QUESTIONS.index(pending) + 1 :]
    last = turn.can_complete or not any(key not in turn.notes for key in later)
    return text(
        language, "discovery_about_next_last" if last else "discovery_about_next", then=then
    )


_THANKS = re.compile(r"^\W*(?:thx|thanks|thank you|ty|спасибо|спс|благодарю)\b\W*", re.IGNORECASE)


def _says_yes(message: str) -> bool:
    """A yes, or nothing to add ("that's all", "всё"), thanks before it too ("thx thats all",
    "спасибо, всё" answered "I did not quite get that")."""
    unthanked = _THANKS.sub("", message, count=1)
    return any(lang.confirms(said) or lang.finishes(said) for said in {message, unthanked})


def _corrects(message: str, found: dict[str, str]) -> bool:
    """Said to a follow-up question, a correction names an area and opens with "Нет,"/"No,"
    ("Нет, работа — это мой проект"): "не хватает времени", "no time for family" answer it."""
    return bool(found) and lang.denies(message) and opens_with_no(message)


def _after_confirmation(turn: Turn, lead: str, data: dict[str, Any] | None = None) -> Reply:
    """The next follow-up question; with none left, "Anything to add?" (no "Is that right?"
    again: the user has said it is)."""
    key = followup.next_question(turn)
    if leaving(turn):  # the step's last message: no question it will not wait for
        return Reply(text(turn.language, lead), data=data or {})
    if key is None:  # asked "Anything to add?" already: something else, not "I did not get it"
        anything = text(turn.language, "discovery_not_yet")
        said = (
            anything if anything not in last_reply(turn) else text(turn.language, "discovery_more")
        )
        return Reply(said, data=data or {})
    return Reply(followup.ask(turn.language, key, lead), data=data or {})
