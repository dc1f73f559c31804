"""The scripted discovery agent's follow-up questions answered (seed 001, component 4): the
answer kept as a note, a question back about the question answered, a pass moving on."""

# ruff: noqa: RUF001  (Russian text is meant to be Cyrillic)

from __future__ import annotations

from typing import Any

from baton_agent_runner.domain import brain_dump, discovery_questions
from baton_agent_runner.domain import discovery_followup as followup
from baton_agent_runner.domain.discovery_replies import leaving, then_asked_of
from baton_agent_runner.domain.discovery_tasks import tasks_said
from baton_agent_runner.domain.errand_lists import errand_list
from baton_agent_runner.domain.focus_corrections import refocused
from baton_agent_runner.domain.one_line_lists import list_entries
from baton_agent_runner.domain.scripted_turn import Reply, Turn, last_reply, last_reply_says
from baton_agent_runner.domain.texts import text
from baton_agent_runner.domain.wording import words


def answered(turn: Turn, pending: str, found: dict[str, str], said_yes: bool) -> Reply:
    """A message to a follow-up question: its answer kept as a note (a new area named in it a
    fact too only when the user says it is a priority, `followup.lists_priority`: "money tbh"
    to "what holds you back?" was saved as a fourth priority unsaid; a known area keeps its
    fact: "Семья" is no correction of "семья"); "готово" answers nothing, and a bare "sure",
    "да" gets the question again, once. A to-do list, or one asked about, is told it waits
    for the brain dump, and the question stays; so is a list of actions said to "what holds
    you back?" ("позвонить маме; оплатить налог" was kept as the answer, and never reached the
    inbox)."""
    tasks = followup.looks_like_tasks(turn.message)
    actions = tasks and pending == "constraints" and followup.only_actions(turn.message)
    # "call doctor; buy vitamins; plan dinner with friends" names areas, and was the focus.
    errands = pending != "good_week" and bool(errand_list(turn.message))
    if errands or (tasks and (pending == "focus" or brain_dump.asks(turn.message) or actions)):
        kept = tasks_said(turn)
        return Reply(then_asked_of(turn, kept.message, {}, set()), data=kept.data)
    if said_yes and not found and _acknowledges(turn):  # "sure": no answer, asked again
        return Reply(then_asked_of(turn, text(turn.language, "discovery_say_more"), {}, set()))
    if not (found or said_yes) and (other := followup.no_answer(turn.message, pending)):
        return not_answered(turn, pending, other)
    if pending == "focus" and not found and followup.holds_back(turn.message):
        # "burnout" to "which matters most?" says what holds the user back: kept as that,
        # and the question asked again (it was kept as the focus).
        cause = {"constraints": followup.note("constraints", turn.message, turn.language)}
        thanks = text(turn.language, "discovery_thanks")
        return Reply(then_asked_of(turn, thanks, {}, set()), data={"notes": cause})
    if focus := refocused(turn.message, turn.language, turn.notes, pending):
        # The focus changed, and the question it answers nothing of is asked again.
        thanks = text(turn.language, "discovery_thanks")
        return Reply(then_asked_of(turn, thanks, {}, set()), data={"notes": {"focus": focus}})
    data: dict[str, Any] = {}
    if not said_yes:
        data["notes"] = {pending: followup.note(pending, turn.message, turn.language)}
        new = {area: fact for area, fact in found.items() if area not in turn.facts}
        if new and followup.lists_priority(pending, turn.message):
            data["facts"] = new
    week = week_tasks(turn, pending, data) if tasks or pending == "good_week" else ""
    if turn.can_complete:
        return Reply(f"{week}{discovery_done(turn)}", "complete_step", "user_confirmed", data)
    lead = "discovery_thanks" if data else "discovery_good"
    reply = after_confirmation(turn, lead, data)
    reply.message = f"{week}{reply.message}"
    return reply


# A bare acknowledgement, no answer to a question: "sure" to what would make a good week was
# taken as a pass. Not "готово", "that's all": those say there is nothing to tell.
_ACKNOWLEDGING = frozenset(
    {"yes", "yeah", "yep", "yup", "sure", "ok", "okay", "k", "kk", "fine", "alright", "right",
     "cool", "да", "ага", "угу", "ок", "окей", "хорошо", "ладно", "конечно", "давай", "норм"}
)  # fmt: skip


def _acknowledges(turn: Turn) -> bool:
    """The message only acknowledges the question, which was not asked again already, while
    the step still needs a turn; once it may close, a bare "да" moves on, as it did."""
    said = words(turn.message)
    return (
        not turn.can_complete
        and bool(said)
        and set(said) <= _ACKNOWLEDGING
        and not last_reply_says(turn, "discovery_say_more")
    )


def discovery_done(turn: Turn) -> str:
    """The step's closing: the priorities saved, then, with an inbox step ahead in the
    definition (`inbox_ahead`), the brain dump asked to start; without one, that alone. It
    said "On to the brain dump ... Ready?" with no brain dump to come."""
    return text(turn.language, "discovery_done" if turn.inbox_ahead else "discovery_done_alone")


def week_tasks(turn: Turn, pending: str, data: dict[str, Any]) -> str:
    """A to-do list laid out as one (lines, bullets, numbers, ";", or commas between actions
    alone) said to "what would make the coming week a good one?": the answer, kept as the note,
    and its items kept for the brain dump too (saved now with no inbox step ahead), said in a
    line before the reply. Kept as the note alone, "- fix the crib\n- call mom" and "call the
    bank, renew my passport, book the dentist" never reached the inbox; "sleep well, see
    friends" is no to-do list. An item naming an area stays out ("go running": what the week
    is for), and the list's other actions go in (`followup.actions_beside_areas`)."""
    message = turn.message
    listed = "\n" in message.strip() or ";" in message
    listed = listed or ("," in message and followup.only_actions(message))
    if pending != "good_week" or not (listed or len(list_entries(turn.message)) > 1):
        return ""
    items = followup.task_list(turn.message) or followup.actions_beside_areas(turn.message)
    if not items:
        return ""
    data["deferred_inbox_items" if turn.inbox_ahead else "inbox_items"] = items
    key = ("task_kept" if len(items) == 1 else "tasks_kept") if turn.inbox_ahead else "noted"
    return text(turn.language, key, items="; ".join(items)) + "\n"


def not_answered(turn: Turn, pending: str, said: str) -> Reply:
    """A follow-up question passed on goes to the next one (or completes, once the step may);
    a question back is answered, and one of nothing asked again: no note is kept of either."""
    if said == "pass":
        if turn.can_complete:
            return Reply(discovery_done(turn), "complete_step", "user_confirmed")
        return after_confirmation(turn, "discovery_passed")
    if said == "question" and (about := about_asked(turn, pending)):
        return Reply(then_asked_of(turn, about, {}, set()))
    lead = "discovery_why_asked" if said == "question" else "discovery_unclear_ask"
    return Reply(then_asked_of(turn, text(turn.language, lead), {}, set()))


def about_asked(turn: Turn, pending: str | None = None, *, at_summary: bool = False) -> str | None:
    """The answer to a question back about the question discovery waits on
    (`discovery_questions`), or None: before the areas, what an area is, whether several may
    be named, whether one must, why, and what comes next; at the summary, what an area is
    ("what do you mean by growth?" was the growth fact); at a follow-up question, what comes
    next, and at "which matters most?" whether several may be named. Each got the question
    again alone, or the generic "I ask so that ..." at a follow-up question."""
    asked, language = discovery_questions.asked_back(turn.message), turn.language
    if at_summary and asked not in ("areas", "why"):  # "why?" got "I did not quite get that"
        return None
    then = text(language, "discovery_then_inbox" if turn.inbox_ahead else "discovery_then_done")
    if pending is None:
        if asked == "why":
            return text(language, "faq_why")
        if asked == "next":
            return text(language, "discovery_about_next_first", then=then)
        if asked == "must" and not turn.step_required:  # "do I have to?": no, it is optional
            return text(language, "discovery_about_must_optional")
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


def after_confirmation(turn: Turn, lead: str, data: dict[str, Any] | None = None) -> Reply:
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
