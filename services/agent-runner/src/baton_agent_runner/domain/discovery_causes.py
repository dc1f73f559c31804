"""What discovery answers, beside its own question, to a message that names no area: a
question back about that question (`discovery_answers.about_asked`), or what holds the user
back ("no time", "burnout") said to the summary or to the question about the areas. That is
kept as the `constraints` note, as the answer to "what holds you back?" is, and the question
is asked again: "no time" was read as a "no" to the summary ("What should I correct?")."""

from __future__ import annotations

from baton_agent_runner.domain import discovery_followup as followup
from baton_agent_runner.domain.discovery_answers import about_asked
from baton_agent_runner.domain.discovery_replies import MIN_AREAS, then_asked_of
from baton_agent_runner.domain.scripted_turn import Reply, Turn
from baton_agent_runner.domain.texts import text


def aside(turn: Turn, facts: dict[str, str], declined: set[str]) -> Reply | None:
    """The answer to a question back, or the cause kept, then the question again; None when the
    message is neither."""
    about = about_asked(turn, at_summary=len(facts) >= MIN_AREAS)
    if about is not None:
        return Reply(then_asked_of(turn, about, facts, declined))
    return cause_said(turn, facts, declined)


def cause_said(turn: Turn, facts: dict[str, str], declined: set[str]) -> Reply | None:
    """ "no time", "нет времени", "burnout" where no follow-up question waits: the note, then
    "Thanks, noted." and the question again; None for any other message."""
    if followup.asked(turn) or not followup.holds_back(turn.message):
        return None
    cause = followup.volunteered(turn.message, turn.language).get("constraints")
    if cause is None:
        return None
    thanks = text(turn.language, "discovery_thanks")
    return Reply(
        then_asked_of(turn, thanks, facts, declined), data={"notes": {"constraints": cause}}
    )
