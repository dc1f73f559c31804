"""What one turn's agent is given: the `Turn`, read from the stores its model looks at."""

from __future__ import annotations

from typing import Any

from baton_agent_runner.domain.extracted import PRIORITIES, SITUATION
from baton_agent_runner.domain.language import language_in
from baton_agent_runner.domain.profile import Profile
from baton_agent_runner.domain.scripted import Turn
from baton_agent_runner.domain.step_context import context_count
from baton_agent_runner.service.late_inbox import inbox_ahead
from baton_agent_runner.service.ports import AgentModels, InboxStore, MemoryStore
from baton_contracts.agent_api import RunAgent


async def turn_of(
    cmd: RunAgent,
    profile: Profile,
    promoted: list[str],
    *,
    agents: AgentModels,
    memory: MemoryStore,
    inbox: InboxStore,
    profiles: dict[str, Profile],
) -> Turn:
    """The turn as the agent's model sees it. What the model does not look at is not read: a
    store call per turn less (a greeter turn of the scripted model reads neither)."""
    reads = agents.reads(profile)
    return Turn(
        agent=profile.slug,
        current_step=cmd.current_step,
        message=cmd.message,
        history=[entry.model_dump() for entry in cmd.history],
        can_complete=cmd.can_complete,
        step_required=cmd.step_required,
        facts=await memory.facts(cmd.user_id, PRIORITIES) if "facts" in reads else {},
        notes=await memory.facts(cmd.user_id, SITUATION) if "notes" in reads else {},
        **await _inbox_read(inbox, cmd, reads),
        promoted=promoted,
        inbox_ahead=inbox_ahead(profiles, cmd.step_context),
        # The message's language when it is clear; a short Latin-only one ("ok") or one
        # without letters keeps the language of the user's earlier messages.
        language=language_in(cmd.message, [e.text for e in cmd.history if e.role == "user"]),
        messages_in_step=context_count(cmd.step_context, "messages_in_step"),
        min_messages=context_count(cmd.step_context, "min_messages"),
        step=cmd.step_context,
    )


async def _inbox_read(inbox: InboxStore, cmd: RunAgent, reads: frozenset[str]) -> dict[str, Any]:
    """The turn's `inbox_count` and `inbox_open`, as far as its model reads them: both in
    one round trip (`tally`), the count alone, or nothing."""
    if "inbox_open" in reads:
        tally = await inbox.tally(cmd.user_id, cmd.instance_id, cmd.idempotency_key)
        return {"inbox_count": tally.count, "inbox_open": tally.open}
    if "inbox_count" in reads:
        key = cmd.idempotency_key
        return {"inbox_count": await inbox.count(cmd.user_id, None, before_turn=key)}
    return {}
