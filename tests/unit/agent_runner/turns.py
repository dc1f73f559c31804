"""Turns of the scripted agents as the unit tests build them, so that a test file says only
what its turns have that others do not: the brain dump's, and discovery's (at its summary, or
at a follow-up question)."""

from __future__ import annotations

from typing import Any

from baton_agent_runner.domain import language as lang
from baton_agent_runner.domain import texts
from baton_agent_runner.domain.output import AgentOutput
from baton_agent_runner.domain.scripted import Turn, run


def brain_dump_turn(message: str, held: list[str] | None = None, **extra: Any) -> Turn:
    """A message to the inbox collector, in the message's language; `held`, the items the
    inbox holds open (and their count), unless `extra` says otherwise."""
    if held is not None:
        extra.setdefault("inbox_open", held)
        extra.setdefault("inbox_count", len(held))
    return Turn(
        agent="inbox_collector",
        current_step="brain_dump",
        message=message,
        language=lang.language_of(message),
        **extra,
    )


FACTS = {"work": "my job", "health": "gym", "relationships": "family"}
"""The facts a discovery turn holds unless a test gives its own."""


def summary_of(facts: dict[str, str]) -> str:
    """Discovery's summary of `facts`, in English, as the chat shows it."""
    said = "".join(f"- {area}: {fact}\n" for area, fact in facts.items())
    return f"Here is what I understood:\n{said}Is that right? If not, correct me."


def discovery(message: str, **extra: Any) -> AgentOutput:
    """Discovery's reply to `message`, in the message's language."""
    return run(Turn(agent="discovery", current_step="discovery", message=message,
                    language=lang.language_of(message), **extra))  # fmt: skip


def to_summary(message: str, **extra: Any) -> AgentOutput:
    """`message` said to the summary of the facts (`FACTS` unless `facts=` says otherwise),
    all told in this run; the step may complete unless `can_complete=False`."""
    facts = extra.setdefault("facts", FACTS)
    told = {"workflow": {"step_data": {"discovery": {"facts_told": sorted(facts)}}}}
    extra.setdefault("can_complete", True)
    history = [{"role": "assistant", "text": summary_of(facts)}]
    return discovery(message, step=told, history=history, **extra)


def to_question(key: str, message: str, **extra: Any) -> AgentOutput:
    """`message` said to the follow-up question `key` (`discovery_ask_<key>`), asked in the
    message's language, the summary of the facts (`FACTS` unless given) confirmed; the step
    may not complete unless `can_complete=True`, and `history=` may say how it was asked."""
    language = lang.language_of(message)
    question = texts.text(language, f"discovery_ask_{key}")
    asked = f"{texts.text(language, 'discovery_good')} {question}"
    extra.setdefault("facts", FACTS)
    extra.setdefault("can_complete", False)
    extra.setdefault("history", [{"role": "assistant", "text": asked}])
    return discovery(message, **extra)
