"""What the agent-runner does when a workflow step starts: the step's agent profile says.

The workflow service announces every step that starts (`workflow.started` with the first
step's agent, `workflow.step_changed` with the new step's, each naming the agent in its
subject too); the agent-runner consumes only the starts of agents that list actions in
`on_step_start`, and runs those. A reaction is idempotent, so a redelivered event
does no harm; one that fails is raised, and JetStream redelivers the event.

An instance that ends (`workflow.completed`) may have skipped its inbox step: an optional
brain dump passed over by a signal naming a later step. Its deferred items would then wait
for a start that never comes, so its end moves them into the inbox (`instance_ended`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from dataclasses import dataclass

from baton_agent_runner.domain.profile import PROMOTE_DEFERRED_INBOX, Profile
from baton_agent_runner.service.ports import InboxStore

logger = logging.getLogger("baton.agent_runner")


@dataclass
class StepStarts:
    """Runs the `on_step_start` actions of the agent serving a step that just started."""

    profiles: Mapping[str, Profile]
    inbox: InboxStore
    timeout: float

    def preparing_agents(self) -> list[str]:
        """The agents whose steps' starts are acted on: those with `on_step_start` actions."""
        return sorted(slug for slug, profile in self.profiles.items() if profile.on_step_start)

    def promotes(self) -> bool:
        """Whether an agent moves deferred items into the inbox: only then are items deferred
        by a turn, and only then does an instance's end have any to move."""
        return any(PROMOTE_DEFERRED_INBOX in p.on_step_start for p in self.profiles.values())

    async def instance_ended(self, user_id: str, instance_id: str) -> None:
        """`instance_id` of `user_id` ended: what it still keeps deferred goes to the inbox
        (a redelivered end finds nothing left to move)."""
        async with asyncio.timeout(self.timeout):
            promoted = await self.inbox.promote_deferred_of(user_id, instance_id)
        if promoted:
            logger.info(
                "%s's instance %s ended before an inbox step took its deferred items: "
                "%d moved to the inbox",
                user_id,
                instance_id,
                promoted,
            )

    async def started(self, user_id: str, instance_id: str, agent: str | None) -> None:
        """The step of `instance_id` served by `agent` started for `user_id`."""
        profile = self.profiles.get(agent) if agent else None
        if profile is None or PROMOTE_DEFERRED_INBOX not in profile.on_step_start:
            return
        async with asyncio.timeout(self.timeout):
            promoted = await self.inbox.promote_deferred(user_id)
        if promoted:
            logger.info(
                "%s's step with %s started on %s: %d deferred inbox items moved to the inbox",
                user_id,
                agent,
                instance_id,
                promoted,
            )
