"""The scripted discovery agent (seed 001, component 4): a priority fact per life area the
user names, a summary at three areas, completion once the user confirms it (what it shows and
asks is `discovery_replies`, what it does with tasks `discovery_tasks`, and the answers to its
follow-up questions `discovery_answers`)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from baton_agent_runner.domain import discovery_followup as followup
from baton_agent_runner.domain import (
    discovery_questions,
    focus_corrections,
    greeter_questions,
    inbox_requests,
    readiness,
    skipping,
    time_limits,
)
from baton_agent_runner.domain import language as lang
from baton_agent_runner.domain.areas import AREAS
from baton_agent_runner.domain.discovery_answers import after_confirmation, answered, discovery_done
from baton_agent_runner.domain.discovery_causes import aside
from baton_agent_runner.domain.discovery_replies import (
    MIN_AREAS,
    ask_for_more,
    asked_in_vain,
    forgot_line,
    kept_so_far,
    leaving,
    noted,
    right_asked,
    summary_of,
    summary_shown,
    then_asked_of,
    unrecognised,
    unsaid,
)
from baton_agent_runner.domain.discovery_tasks import one_task, task_after_yes, tasks_said
from baton_agent_runner.domain.fact_additions import added, adds_to, asks_to_add
from baton_agent_runner.domain.fact_causes import goes_beside
from baton_agent_runner.domain.scripted_turn import Reply, Turn, last_reply, last_reply_says
from baton_agent_runner.domain.swaps import as_instead
from baton_agent_runner.domain.texts import text
from baton_agent_runner.domain.told import FACTS_TOLD, knows_told, told
from baton_agent_runner.domain.yes_words import opens_with_no, opens_with_yes


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


@dataclass
class _Said:
    """What a discovery turn's message says, read once: the areas it names and declines, the
    facts it saves or drops, the follow-up question it answers, and whether it says yes."""

    found: dict[str, str]
    declined: set[str]
    dropped: list[str]
    pending: str | None
    saved: dict[str, str]
    facts: dict[str, str]
    """The areas known once this turn is applied."""
    data: dict[str, Any]
    skips: bool
    """The message only asks to skip the step or move on (`skipping.asks_to_skip`)."""
    said_yes: bool
    task: Reply | None
    """One task said to the summary (`discovery_tasks.one_task`), alone or after a yes."""


def fact_holding(words_said: str, facts: dict[str, str]) -> str | None:
    """The one area whose kept fact holds the words (case aside), else None."""
    held = [area for area, fact in facts.items() if words_said.casefold() in fact.casefold()]
    return held[0] if len(held) == 1 else None


def _fact_removed(turn: Turn) -> str | None:
    """The area whose fact "remove pottery" names; none for "drop X, Y instead" (a swap)."""
    removal = inbox_requests.removal_request(as_instead(turn.message), list(turn.facts.values()))
    return None if removal is None else fact_holding(removal, turn.facts)


def _read(turn: Turn) -> _Said:
    found = {} if discovery_questions.asked_back(turn.message) else lang.areas_in(turn.message)
    pending = followup.asked(turn)
    task = after_yes = None
    if summary_shown(turn) and not pending:
        task = (after_yes := task_after_yes(turn)) or one_task(turn)
        found = {} if task else found  # "book a yoga class": an errand, no fact of health
    # "health matters most, not work": work is put below, neither declined nor its fact.
    apart = focus_corrections.put_apart(turn.message)
    found = {area: fact for area, fact in found.items() if area not in apart}
    declined = lang.declined_areas(turn.message) - apart
    if pending == "constraints":  # "family first, so no time for gym": what holds them back
        declined -= time_limits.lacked_time_for(turn.message)
    if (removed := _fact_removed(turn)) is not None:
        declined = {*declined, removed}
    dropped = [area for area in AREAS if area in declined and area in turn.facts]
    saved = _saved(turn, found, pending)
    facts = {area: fact for area, fact in {**turn.facts, **saved}.items() if area not in dropped}
    data: dict[str, Any] = {"facts": saved} if saved else {}
    if dropped:
        data["dropped_facts"] = dropped
    bare = not (pending or found or dropped)
    skips = bare and skipping.asks_to_skip(turn.message)
    # "That's all", "готово" to its "Anything to add?" confirm, as "nothing to add" does;
    # "давай дальше" to the summary is a yes too, and so is "what's next?", as the greeter
    # reads it (it got "I did not quite get that").
    moves_on = skips or (bare and readiness.asks_next_step(turn.message))
    # "yes, call mom": the yes stands beside the task ("call mom" became the relationships
    # fact).
    said_yes = _says_yes(turn.message) or (moves_on and summary_shown(turn)) or bool(after_yes)
    # "yes, work first": a yes, and which area matters most (the summary was shown again).
    said_yes = said_yes or (
        opens_with_yes(turn.message) and not saved and followup.ranks(turn.message)
    )
    return _Said(found, declined, dropped, pending, saved, facts, data, skips, said_yes, task)


def _discovery(turn: Turn) -> Reply:
    said = _read(turn)
    aside = _skip_or_question(turn, said)
    if aside is not None:
        return aside
    if said.found and not said.pending and (notes := _volunteered(turn, said.found)):
        # "главное семья; мешает нехватка времени" with the areas: not asked again.
        said.data["notes"] = notes
        turn = turn.model_copy(update={"notes": {**turn.notes, **notes}})
    return _answer_or_confirmation(turn, said) or _areas_reply(turn, said)


def _skip_or_question(turn: Turn, said: _Said) -> Reply | None:
    """The answer to a request to skip the step before three areas are known, or to a
    question asked back ("who sees this data?", "what do you mean by areas?"); None to any
    other message."""
    facts, declined = said.facts, said.declined
    if said.skips and len(facts) < MIN_AREAS:
        if not turn.step_required:
            return _skipped(turn)
        return Reply(_not_skipped(turn, facts, declined))
    topic = None if said.found or said.dropped else greeter_questions.topic(turn.message)
    if topic and not (topic == "why" and said.pending):  # why a follow-up asks: its own answer
        # "wait who sees this data?": answered as the greeter answers it, then asked again.
        return Reply(then_asked_of(turn, text(turn.language, f"faq_{topic}"), facts, declined))
    if said.found or said.dropped or said.pending:
        return None
    # "what do you mean by areas?", "можно несколько?", "what do you mean by growth?" (no fact).
    return aside(turn, facts, declined)  # "what do you mean by areas?", "no time"


def _answer_or_confirmation(turn: Turn, said: _Said) -> Reply | None:
    """The reply to an answer to a follow-up question, to a yes to the summary, or to tasks
    said instead (kept for the brain dump); None to any other message."""
    facts, data, said_yes = said.facts, said.data, said.said_yes
    # "нет, главное здоровье" changes which area matters most, no fact.
    refocuses = focus_corrections.new_focus(turn.message, turn.language, turn.notes)
    corrects = said.dropped or (_corrects(turn.message, said.found) and not refocuses)
    if said.pending and not corrects and len(facts) >= MIN_AREAS:
        return answered(turn, said.pending, said.found, said_yes)
    # A yes with which area matters most ("yes, work first") keeps that note.
    if not data.keys() - {"notes"} and summary_shown(turn) and said_yes and len(facts) >= MIN_AREAS:
        if not turn.can_complete:  # not enough said yet: what the seed still asks for
            confirmed = after_confirmation(turn, "discovery_good", data)
        else:
            confirmed = Reply(discovery_done(turn), "complete_step", "user_confirmed", data)
        if said.task:  # "yes, buy running shoes": the task was lost
            confirmed.message = f"{said.task.message}\n{confirmed.message}"
            confirmed.data = {**confirmed.data, **said.task.data}
        return confirmed
    declined, task = said.declined, said.task
    if not (data or said_yes or declined) and task:
        # "buy groceries" to "Is the summary above right?": kept, then the question again.
        return Reply(then_asked_of(turn, task.message, facts, declined), data=task.data)
    if data or said_yes or not followup.looks_like_tasks(turn.message):
        return None
    more = (
        summary_of(turn, facts, data)
        if len(facts) >= MIN_AREAS
        else ask_for_more(turn, facts, declined)
    )
    tasks = tasks_said(turn)
    return Reply(f"{tasks.message}\n{more}", data=tasks.data)


def _areas_reply(turn: Turn, said: _Said) -> Reply:
    """The summary once three areas are known; until then what is known and the areas still
    untold, with "noted" when a fact was saved and what was forgotten."""
    facts, data, declined = said.facts, said.data, said.declined
    forgot = forgot_line(turn.language, said.dropped)
    if len(facts) >= MIN_AREAS:
        return _summary_reply(turn, said, forgot)
    if leaving(turn):
        return Reply(forgot + kept_so_far(turn, facts), data=data)
    if not (said.found or declined) and asked_in_vain(turn) >= 2:
        return Reply(forgot + unrecognised(turn, facts, declined), data=data)
    if facts and not said.found:
        return Reply(forgot + _too_few(turn, facts, declined), data=data)
    ask = ask_for_more(turn, facts, declined)
    if said.saved:  # "noted" only when a fact was
        ask = f"{noted(turn, said.saved)} {ask}"
    return Reply(forgot + ask, data=data)


def _summary_reply(turn: Turn, said: _Said, forgot: str) -> Reply:
    """The summary of three areas or more, or what a message to it asks for."""
    facts, data = said.facts, said.data
    if leaving(turn):  # the step's last message: no "Is that right?" it will not wait for
        return Reply(forgot + summary_of(turn, facts, data, ask=False), data=data)
    summary = summary_of(turn, facts, data)
    if not data and said.declined and not said.found and summary_shown(turn):
        # "хобби нет" of an area the summary does not hold: it was not understood.
        names = ", ".join(lang.AREA_NAMES[turn.language][a] for a in AREAS if a in said.declined)
        noted = text(turn.language, "discovery_declined_noted", areas=names)
        return Reply(f"{noted} {text(turn.language, 'discovery_right')}")
    if not data and lang.denies(turn.message):  # "нет, не так" without saying what is
        return Reply(f"{text(turn.language, 'discovery_correct')}\n{summary}")
    if not data and last_reply_says(turn, "summary_header", "discovery_right"):
        if said.found and said.found.keys() <= turn.facts.keys() and not said.declined:
            # "work i said", "growth means uni": what the summary holds; it is shown again.
            return Reply(f"{text(turn.language, 'discovery_unchanged')}\n{summary}")
        return Reply(right_asked(turn))
    return Reply(forgot + summary, data=data)


def _saved(turn: Turn, found: dict[str, str], pending: str | None) -> dict[str, str]:
    """The facts a turn saves of the areas it names: an area with a fact already keeps it
    when the message only names the area again: its name and filler ("health i guess",
    "then work"), a ranking ("kids and my mom come first, then work, then gym if i ever get
    time"), or an answer to a follow-up question. The later, thinner text replaced the richer
    one ("I work as a nurse doing night shifts" became "work"). Said in a clause of its own
    ("work: I switched to day shifts") or as a correction ("No, work is my startup"), it is
    replaced."""
    ranked = followup.ranks(turn.message)
    if lang.denies(turn.message):
        # Not by a ranking of the area alone: "нет, главное здоровье" changes which area
        # matters most, and the health fact became "главное здоровье".
        return {
            area: fact
            for area, fact in found.items()
            if not (ranked and area in turn.facts and followup.adds_nothing(fact))
        }
    again = pending is not None or ranked
    saved = {
        area: fact
        for area, fact in found.items()
        if area not in turn.facts
        or not (
            followup.adds_nothing(fact, turn.facts[area])
            or (again and not followup.says_of(area, turn.message))
        )
    }
    # "дети тоже" after a fact of the husband: added to it (it replaced the husband); so of
    # each area named in "add the choir and yoga" (it replaced "gym").
    # So is a cause, and one more thing after "then" (`fact_causes`).
    adding = asks_to_add(turn.message)
    saved |= {
        area: added(turn.facts[area], fact)
        for area, fact in saved.items()
        if area in turn.facts and (adding or _adds(fact if len(saved) > 1 else turn.message))
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


def _adds(said: str) -> bool:
    return adds_to(said) or goes_beside(said)


def _volunteered(turn: Turn, found: dict[str, str]) -> dict[str, str]:
    """The follow-up answers the message gives before they are asked, and not yet kept; which
    area matters most only among several the user has named ("Для меня главное — это
    здоровье" alone names one area, and ranks none; "probably family first" after work and
    health ranks family first)."""
    said = followup.volunteered(turn.message, turn.language)
    # "actually health matters most, not work" after "work": it was kept as work.
    if focus := focus_corrections.new_focus(turn.message, turn.language, turn.notes):
        said["focus"] = focus
    if len(found.keys() | turn.facts.keys()) < 2:
        said.pop("focus", None)
    return {key: note for key, note in said.items() if key not in turn.notes or note == focus}


def _too_few(turn: Turn, facts: dict[str, str], declined: set[str]) -> str:
    """One or two areas known and none named now ("nope", "that's it", "ok"): what is known,
    that three are needed and why, and the areas untold; said otherwise the next time."""
    language = turn.language
    missing = ", ".join(lang.AREA_NAMES[language][a] for a in unsaid(turn, facts, declined))
    if last_reply_says(turn, "discovery_need_three"):
        return text(language, "discovery_too_few_again", missing=missing)
    why = text(language, "discovery_need_three")
    return f"{_known(turn, facts)} {why} {text(language, 'discovery_what_else', missing=missing)}"


def _skipped(turn: Turn) -> Reply:
    """A request to skip an optional step (`step_required` false) before three areas are
    known: skipped, as its definition allows, asking to start the brain dump next. It was
    told "This step cannot be skipped" all the same."""
    said = text(turn.language, "discovery_skipped")
    if turn.inbox_ahead:  # the brain dump next: a question the user answers to start it
        said = f"{said} {text(turn.language, 'discovery_skipped_then')}"
    return Reply(said, "complete_step", "user_confirmed")


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
