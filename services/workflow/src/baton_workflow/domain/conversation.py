"""A chat on an instance, read from its log, and the rules for what an agent may signal."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from baton_contracts.signal_data import STEP_RECORD_KEYS
from baton_contracts.storable import NOT_SHOWN, NUL, NUL_PROBLEM
from baton_workflow.domain.commands import Signal
from baton_workflow.domain.definitions import WorkflowDefinition
from baton_workflow.domain.events import DomainEvent, ExchangeRecorded, StepBlocked

MAX_TEXT_CHARS = 8000
"""A user message longer than this is refused (the contract's `MAX_MESSAGE_CHARS`)."""


class BlankText(ValueError):
    """The message has no visible characters."""


class TextTooLong(ValueError):
    """The message is longer than `MAX_TEXT_CHARS`; `problem` says so without the field."""

    def __init__(self, chars: int) -> None:
        self.problem = f"has {chars} characters; the limit is {MAX_TEXT_CHARS}"
        super().__init__(f"text: {self.problem}")


class UnstorableText(ValueError):
    """The message holds a character the log cannot keep (NUL)."""


@dataclass(frozen=True)
class Said:
    """One message of the chat."""

    role: Literal["user", "assistant"]
    text: str
    step: str
    agent: str
    command_id: str
    at: datetime


def checked_text(text: str) -> str:
    """The message with outer whitespace removed; raises when it is blank, too long or holds
    a NUL."""
    stripped = text.strip()
    if not _shows(stripped):
        # Not "non-whitespace": zero-width spaces and control characters are blank too.
        raise BlankText("text: must contain at least one character that shows")
    if len(stripped) > MAX_TEXT_CHARS:
        raise TextTooLong(len(stripped))
    if NUL in stripped:
        raise UnstorableText(f"text: {NUL_PROBLEM}")
    return stripped


def _shows(text: str) -> bool:
    """Whether a character of `text` shows: one that is neither whitespace, a control
    character (BEL, ESC: Unicode's Cc) nor an invisible format character (zero-width space
    and joiners, the byte-order mark: Unicode's Cf). A message of zero-width spaces, or of
    control characters, alone read as empty, yet counted toward `min_messages`."""
    return any(not char.isspace() and unicodedata.category(char) not in NOT_SHOWN for char in text)


def chat(events: Iterable[DomainEvent]) -> list[Said]:
    """Every recorded chat message, oldest first (exchanges without texts are not chat)."""
    said: list[Said] = []
    for event in events:
        if isinstance(event, ExchangeRecorded) and event.user_text is not None:
            said.extend(_said(event, event.user_text))
    return said


def recent_chat(events: Sequence[DomainEvent], limit: int) -> list[Said]:
    """The last `limit` messages of `chat(events)`, read from the end of the log.

    A turn hands the agent only the recent history; walking the whole log for it made every
    turn cost more than the one before, for as long as the conversation lasts.
    """
    said: list[Said] = []
    if limit <= 0:
        return said
    for event in reversed(events):
        if isinstance(event, ExchangeRecorded) and event.user_text is not None:
            said.extend(reversed(_said(event, event.user_text)))
            if len(said) >= limit:
                break
    return said[:limit][::-1]  # newest first so far, one pair may overshoot


def _said(event: ExchangeRecorded, user_text: str) -> tuple[Said, Said]:
    agent, step, key, at = event.agent or "", event.step, event.command_id, event.at
    return (
        Said("user", user_text, step, agent, key, at),
        Said("assistant", event.agent_text or "", step, agent, key, at),
    )


def last_block(events: Sequence[DomainEvent], step: str) -> StepBlocked | None:
    """The block that answered the instance's last command, if it was one on `step`.

    Seed 000: a completion that is refused stays on the step and the reason goes back to the
    agent; the next turn's agent gets it, so it does not tell the user the step is done.
    """
    if events and isinstance(events[-1], StepBlocked) and events[-1].step == step:
        return events[-1]
    return None


def exchange_of(events: Iterable[DomainEvent], command_id: str) -> ExchangeRecorded | None:
    """The exchange recorded for `command_id`, if there is one."""
    for event in events:
        if isinstance(event, ExchangeRecorded) and event.command_id == command_id:
            return event
    return None


def agent_signal(signal: Signal, definition: WorkflowDefinition, current_step: str) -> Signal:
    """An agent's signal as the workflow applies it.

    An agent may only point forward along the path: a `target_step` that is unknown, behind
    the current step, or the current step itself is dropped (the step's own next step then
    applies), so nothing a user types can move the instance outside the signal rules. Keys of
    its `data` that the service keeps for the step's own record (`STEP_RECORD_KEYS`) are
    dropped too: a model's answer must not rewrite when a step started or how many messages
    it had (a person's signal naming one is refused instead, by its path).
    """
    if STEP_RECORD_KEYS.intersection(signal.data):
        data = {k: v for k, v in signal.data.items() if k not in STEP_RECORD_KEYS}
        signal = signal.model_copy(update={"data": data})
    if signal.target_step is None:
        return signal
    names = [s.id for s in definition.path()]
    forward = (
        signal.target_step in names
        and current_step in names
        and names.index(signal.target_step) > names.index(current_step)
    )
    return signal if forward else signal.model_copy(update={"target_step": None})
