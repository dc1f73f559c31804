"""Inbox requests made when no inbox step lies ahead: saved at once, and the reply says so.

A deferred item waits for a step whose agent moves deferred items into the inbox as it starts
(`promote_deferred_inbox`). Deferred at a step after it, or in a workflow without one, nothing
would ever move it: the user's words would be kept out of their sight for good.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from baton_agent_runner.domain.extracted import deferred_contents
from baton_agent_runner.domain.language import Lang
from baton_agent_runner.domain.output import AgentOutput
from baton_agent_runner.domain.profile import PROMOTE_DEFERRED_INBOX, Profile
from baton_agent_runner.domain.texts import text


def inbox_ahead(profiles: Mapping[str, Profile], step_context: dict[str, Any]) -> bool:
    """Whether an agent of a step still ahead (`step_context["agents_ahead"]`, as the workflow
    service sends it) takes deferred items into the inbox. A request without the list, from a
    workflow service that does not send it, is taken to have such a step, as before."""
    ahead = step_context.get("agents_ahead")
    if not isinstance(ahead, list):
        return True
    return any(
        PROMOTE_DEFERRED_INBOX in profiles[slug].on_step_start
        for slug in ahead
        if isinstance(slug, str) and slug in profiles
    )


def told_saved_now(output: AgentOutput, language: Lang) -> AgentOutput:
    """The output of a turn with no inbox step ahead: a model that still deferred items is
    followed by what really became of them (saved now), so the reply does not promise later."""
    deferred = deferred_contents(output.extracted_data)
    if not deferred:
        return output
    note = text(language, "noted", items="; ".join(deferred))
    return output.model_copy(update={"message": f"{output.message}\n{note}"})
