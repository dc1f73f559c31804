"""The scripted discovery agent (seed 001, component 4): a priority fact per life area the
user names, a summary at three areas, completion once the user confirms it."""

from __future__ import annotations

from typing import Any

from baton_agent_runner.domain import language as lang
from baton_agent_runner.domain.areas import AREAS
from baton_agent_runner.domain.scripted_turn import Reply, Turn, last_reply
from baton_agent_runner.domain.texts import text

MIN_AREAS = 3


def discovery(turn: Turn) -> Reply:
    """Saves a `priorities` fact per area, forgets one the user takes back; summarises at 3
    areas; completes once confirmed."""
    found, declined = lang.areas_in(turn.message), lang.declined_areas(turn.message)
    dropped = [area for area in AREAS if area in declined and area in turn.facts]
    facts = {area: fact for area, fact in {**turn.facts, **found}.items() if area not in dropped}
    data: dict[str, Any] = {"facts": found} if found else {}
    if dropped:
        data["dropped_facts"] = dropped
    # "That's all", "готово" to its "Anything to add?" confirm, as "nothing to add" does.
    said_yes = lang.confirms(turn.message) or lang.finishes(turn.message)
    confirmed = not data and _summary_shown(turn) and said_yes
    if confirmed and len(facts) >= MIN_AREAS:
        if not turn.can_complete:  # not enough said yet: ask for more, show the summary again
            more = text(turn.language, "discovery_not_yet")
            return Reply(f"{more}\n{_summary(turn.language, facts)}")
        return Reply(text(turn.language, "discovery_done"), "complete_step", "user_confirmed")
    forgot = _forgot(turn.language, dropped)
    if len(facts) >= MIN_AREAS:
        summary = _summary(turn.language, facts)
        if not data and lang.denies(turn.message):  # "нет, не так" without saying what is
            return Reply(f"{text(turn.language, 'discovery_correct')}\n{summary}")
        return Reply(forgot + summary, data=data)
    ask = _ask_for_more(turn, facts, declined)
    if found:  # "noted" only when a fact was
        ask = f"{text(turn.language, 'discovery_noted')} {ask}"
    return Reply(forgot + ask, data=data)


def _ask_for_more(turn: Turn, facts: dict[str, str], declined: set[str]) -> str:
    """The request to tell about the areas still untold; not one the user has said is none of
    theirs ("no hobbies"), in this message or in an earlier one. Before any is told, it asks
    which matter, with the areas as examples, not for "other areas too"."""
    earlier = (entry.get("text", "") for entry in turn.history if entry.get("role") == "user")
    skip = (
        facts.keys() | declined | {area for said in earlier for area in lang.declined_areas(said)}
    )
    unsaid = [a for a in AREAS if a not in skip] or [a for a in AREAS if a not in facts]
    missing = [lang.AREA_NAMES[turn.language][a] for a in unsaid]
    key = "discovery_ask" if facts else "discovery_ask_first"
    return text(turn.language, key, missing=", ".join(missing))


def _forgot(language: lang.Lang, dropped: list[str]) -> str:
    """ "Убрал: хобби." before the reply, when the turn forgets facts."""
    if not dropped:
        return ""
    names = ", ".join(lang.AREA_NAMES[language][area] for area in dropped)
    return text(language, "discovery_forgot", areas=names) + "\n"


def _summary_shown(turn: Turn) -> bool:
    """Whether the last reply showed the summary, in either language: a Russian summary
    confirmed with "ok, all good" is confirmed (that answer's language is English)."""
    last = last_reply(turn)
    return any(text(language, "summary_header") in last for language in ("ru", "en"))


def _summary(language: lang.Lang, facts: dict[str, str]) -> str:
    names = lang.AREA_NAMES[language]
    lines = [f"- {names.get(area, area)}: {fact}" for area, fact in facts.items()]
    header, question = text(language, "summary_header"), text(language, "summary_question")
    return "\n".join([header, *lines, question])
