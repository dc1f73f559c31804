"""What the scripted discovery agent asks and shows: the summary of the areas told, the
question it waits on, the areas still untold, and what it says when none is recognised."""

from __future__ import annotations

from typing import Any

from baton_agent_runner.domain import discovery_followup as followup
from baton_agent_runner.domain import language as lang
from baton_agent_runner.domain.areas import AREAS, ASKED
from baton_agent_runner.domain.extracted import facts_of, notes_of
from baton_agent_runner.domain.scripted_turn import Turn, last_reply, last_reply_says
from baton_agent_runner.domain.step_context import is_last_message
from baton_agent_runner.domain.texts import TEXTS, text
from baton_agent_runner.domain.told import FACTS_TOLD, NOTES_TOLD, knows_told, told

MIN_AREAS = 3


def ask_for_more(turn: Turn, facts: dict[str, str], declined: set[str]) -> str:
    """The request to tell about the areas still untold; not one the user has said is none of
    theirs ("no hobbies"), in this message or in an earlier one. Before any is told, it asks
    which matter, with the areas as examples, not for "other areas too"."""
    missing = [lang.AREA_NAMES[turn.language][a] for a in unsaid(turn, facts, declined)]
    key = "discovery_ask" if facts else "discovery_ask_first"
    return text(turn.language, key, missing=", ".join(missing))


def unsaid(turn: Turn, facts: dict[str, str], declined: set[str]) -> list[str]:
    """The areas neither told nor said to be none of the user's (in this message or an earlier
    one); when every one of the five is either, the others discovery reads (finances), so a
    declined area is never offered again ("no family, no studies", "not fitness" were answered
    "For example: health, relationships, growth"); all the untold ones only when every area
    is told or declined."""
    earlier = (entry.get("text", "") for entry in turn.history if entry.get("role") == "user")
    skip = (
        facts.keys() | declined | {area for said in earlier for area in lang.declined_areas(said)}
    )
    return (
        [a for a in ASKED if a not in skip]
        or [a for a in AREAS if a not in skip]
        or [a for a in ASKED if a not in facts]
    )


def noted(turn: Turn, saved: dict[str, str]) -> str:
    """ "Записал." of new areas; "Обновил: работа." when each was known and its fact is
    replaced: "Записал." and the same question again read as the last reply word for word,
    and got "I did not quite get that" before it, though the fact was kept. An area known
    only from a run before (`domain.told`) is new to this one: "здоровье тоже важно" was
    "Обновил: здоровье." though the user had not told health in this run."""
    here = told(turn.step, FACTS_TOLD) if knows_told(turn.step) else turn.facts.keys()
    if any(area not in turn.facts or area not in here for area in saved):
        return text(turn.language, "discovery_noted")
    names = ", ".join(lang.AREA_NAMES[turn.language].get(area, area) for area in saved)
    return text(turn.language, "discovery_updated", areas=names)


def forgot_line(language: lang.Lang, dropped: list[str]) -> str:
    """ "Убрал: хобби." before the reply, when the turn forgets facts."""
    if not dropped:
        return ""
    names = ", ".join(lang.AREA_NAMES[language][area] for area in dropped)
    return text(language, "discovery_forgot", areas=names) + "\n"


def summary_shown(turn: Turn) -> bool:
    """Whether the last reply showed the summary, in either language: a Russian summary
    confirmed with "ok, all good" is confirmed (that answer's language is English)."""
    # "Anything to add?" stands for it after the follow-up questions, and "Is the summary
    # above right?" after a reply that was neither a yes nor a correction.
    return last_reply_says(turn, "summary_header", "discovery_not_yet", "discovery_right")


def summary_of(turn: Turn, facts: dict[str, str], data: dict[str, Any], ask: bool = True) -> str:
    """ "Here is what I understood": a line per area, then the follow-up answers kept; those
    the user did not tell in this instance (`domain.told`: a run of the onboarding before kept
    them in memory) last, each "From last time: work — ...", so that the user can correct
    them, not shown as if said now."""
    language = turn.language
    names = lang.AREA_NAMES[language]
    fresh = told(turn.step, FACTS_TOLD) | set(facts_of(data))
    fresh_notes = told(turn.step, NOTES_TOLD) | set(notes_of(data))
    lines = [f"- {names.get(area, area)}: {fact}" for area, fact in facts.items() if area in fresh]
    lines += followup.lines(language, {k: v for k, v in turn.notes.items() if k in fresh_notes})
    earlier = [(names.get(area, area), fact) for area, fact in facts.items() if area not in fresh]
    old_notes = {key: note for key, note in turn.notes.items() if key not in fresh_notes}
    earlier += followup.labelled(language, old_notes)
    last_time = text(language, "from_last_time")
    lines += [f"- {last_time}: {label} — {said}" for label, said in earlier]
    header, question = text(language, "summary_header"), text(language, "summary_question")
    return "\n".join([header, *lines, *([question] if ask else [])])


def right_asked(turn: Turn) -> str:
    """To a reply to the summary that is neither a yes nor a correction ("hmm"): whether it is
    right, briefly; "I did not get that" before it every other time, so that it is never the
    last reply again. The whole summary again, each time, kept the user there."""
    right = text(turn.language, "discovery_right")
    if last_reply(turn).startswith(text(turn.language, "discovery_unclear_ask")):
        return right
    return f"{text(turn.language, 'discovery_unclear_ask')} {right}"


def then_asked(turn: Turn, said: str) -> str:
    """`said`, then the question discovery waits on (see `then_asked_of`)."""
    return then_asked_of(turn, said, turn.facts, set())


def then_asked_of(turn: Turn, said: str, facts: dict[str, str], declined: set[str]) -> str:
    """`said`, then the question discovery waits on: the follow-up question, whether the
    summary is right, "Anything to add?", or the areas still untold (none on the last message,
    after which the step moves on)."""
    if leaving(turn):
        return said
    if pending := followup.asked(turn):
        question = text(turn.language, f"discovery_ask_{pending}")
    elif last_reply_says(turn, "summary_header", "discovery_right"):
        question = text(turn.language, "discovery_right")
    elif asked := next(
        (k for k in ("discovery_not_yet", "discovery_more") if last_reply_says(turn, k)), None
    ):
        question = text(turn.language, asked)
    elif len(facts) >= MIN_AREAS:
        question = text(turn.language, "discovery_right")
    else:
        question = ask_for_more(turn, facts, declined)
    return f"{said} {question}"


def leaving(turn: Turn) -> bool:
    """This is the step's last message (`max_messages`): the workflow moves on after it."""
    return is_last_message(turn.step)


def kept_so_far(turn: Turn, facts: dict[str, str]) -> str:
    """What discovery has, on the step's last message with fewer than three areas: no question
    the step will not wait for the answer to."""
    if not facts:
        return text(turn.language, "discovery_none_kept")
    names = lang.AREA_NAMES[turn.language]
    return text(turn.language, "discovery_too_few", known=", ".join(names[a] for a in facts))


_IN_VAIN = (
    "discovery_need_three",
    "discovery_too_few_again",
    "discovery_ask_first",
    "discovery_unrecognised",
)
"""Discovery's asks for more areas, each known by its text up to its first placeholder."""


def asked_in_vain(turn: Turn) -> int:
    """How many of discovery's latest replies in a row asked for more areas."""
    openings = [TEXTS[key][language].split("{")[0] for key in _IN_VAIN for language in ("ru", "en")]
    said = [e.get("text", "") for e in turn.history if e.get("role") == "assistant"]
    count = 0
    for reply in reversed(said):
        if not any(opening in reply for opening in openings):
            break
        count += 1
    return count


_QUOTED = 40
"""The longest message quoted whole in `discovery_unrecognised`; a longer one is cut."""


def unrecognised(turn: Turn, facts: dict[str, str], declined: set[str]) -> str:
    """Asked twice for more areas in vain ("So far I have ...", "Even something small ..."):
    that the message named no area discovery knows, and the areas to name one of. The two
    asks took turns for as long as the user wrote on (16 turns in one probe)."""
    said = " ".join(turn.message.split())
    if len(said) > _QUOTED:
        said = said[: _QUOTED - 1].rstrip() + "…"
    missing = ", ".join(lang.AREA_NAMES[turn.language][a] for a in unsaid(turn, facts, declined))
    return text(turn.language, "discovery_unrecognised", said=said, missing=missing)
