"""One agent turn: load what the agent needs, run it, keep what it extracted, record the reply."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Any

from openai import APIError
from pydantic import ValidationError
from pydantic_ai.exceptions import AgentRunError, UnexpectedModelBehavior

from baton_agent_runner.adapters.models import AgentFactory, render_prompt
from baton_agent_runner.adapters.profiles import Profile
from baton_agent_runner.domain.language import Lang, language_of
from baton_agent_runner.domain.output import AgentOutput, Signal
from baton_agent_runner.domain.scripted import Turn
from baton_agent_runner.service.ports import InboxStore, MemoryStore, ReplyLog
from baton_contracts import ErrorBody, ErrorCode, ErrorDetail, RemoteError
from baton_contracts.agent_api import AgentReply, RunAgent, TokenUsage
from baton_contracts.workflow_api import WorkflowSignal

logger = logging.getLogger("baton.agent_runner")

PRIORITIES = "priorities"
FALLBACK = {
    "ru": "Извини, я не смог разобрать ответ. Повтори, пожалуйста, другими словами.",
    "en": "Sorry, I could not work that out. Could you say it again in other words?",
}


@dataclass
class AgentRunner:
    """The agent-runner's use cases."""

    profiles: dict[str, Profile]
    agents: AgentFactory
    memory: MemoryStore
    inbox: InboxStore
    replies: ReplyLog
    timeout: float

    async def run(self, cmd: RunAgent) -> AgentReply:
        """Answer one turn; the same idempotency key returns the recorded reply unchanged."""
        recorded = await self.replies.get(cmd.user_id, cmd.idempotency_key)
        if recorded is not None:
            return recorded
        profile = self._profile(cmd.agent)
        turn = await self._turn(cmd, profile)
        output, usage = await self._ask(profile, turn)
        await self._keep(cmd.user_id, output.extracted_data)
        reply = _reply(profile, self.agents.model_name(profile), output, usage)
        await self.replies.put(cmd.user_id, cmd.idempotency_key, reply)
        return reply

    def _profile(self, slug: str) -> Profile:
        if slug not in self.profiles:
            known = ", ".join(sorted(self.profiles))
            detail = ErrorDetail(field="agent", message=f"unknown agent {slug!r} (known: {known})")
            raise RemoteError(
                ErrorBody(code=ErrorCode.NOT_FOUND, message=detail.message, details=[detail])
            )
        return self.profiles[slug]

    async def _turn(self, cmd: RunAgent, profile: Profile) -> Turn:
        promoted = (
            await self.inbox.promote_deferred(cmd.user_id)
            if (profile.slug == "inbox_collector")
            else []
        )
        return Turn(
            agent=profile.slug,
            current_step=cmd.current_step,
            message=cmd.message,
            history=[entry.model_dump() for entry in cmd.history],
            can_complete=cmd.can_complete,
            facts=await self.memory.facts(cmd.user_id, PRIORITIES),
            inbox_count=await self.inbox.count(cmd.user_id, None),
            promoted=promoted,
            language=_language(cmd),
        )

    async def _ask(self, profile: Profile, turn: Turn) -> tuple[AgentOutput, TokenUsage]:
        agent = self.agents.agent(profile, turn.language)
        try:
            result = await asyncio.wait_for(agent.run(render_prompt(turn)), self.timeout)
        except (UnexpectedModelBehavior, ValidationError) as exc:
            logger.warning("agent %s gave an invalid reply, staying: %s", profile.slug, exc)
            return AgentOutput(message=FALLBACK[turn.language]), TokenUsage()
        except (TimeoutError, APIError, AgentRunError) as exc:
            logger.warning("agent %s failed: %r", profile.slug, exc)
            raise RemoteError(
                ErrorBody(
                    code=ErrorCode.UNAVAILABLE,
                    message=f"agent {profile.slug} did not answer in time or failed; try again",
                )
            ) from exc
        usage = TokenUsage(
            input_tokens=result.usage.input_tokens or 0,
            output_tokens=result.usage.output_tokens or 0,
        )
        return result.output, usage

    async def _keep(self, user_id: str, data: dict[str, Any]) -> None:
        """Persist what the agent extracted: priority facts, inbox items, deferred items."""
        facts = data.get("facts")
        if isinstance(facts, dict):
            for area, text in facts.items():
                await self.memory.put_fact(user_id, PRIORITIES, str(area), str(text))
        for key, status in (("inbox_items", "new"), ("deferred_inbox_items", "deferred")):
            items = data.get(key)
            if isinstance(items, list):
                await self.inbox.add(user_id, [str(i) for i in items if str(i).strip()], status)


def _language(cmd: RunAgent) -> Lang:
    """The message's language; a message without letters takes the conversation's."""
    if any(ch.isalpha() for ch in cmd.message):
        return language_of(cmd.message)
    return language_of(" ".join(entry.text for entry in cmd.history[-2:]))


def _reply(profile: Profile, model: str, output: AgentOutput, usage: TokenUsage) -> AgentReply:
    signal = output.workflow_signal
    if signal is None:
        logger.warning("agent %s returned no workflow_signal; treating it as stay", profile.slug)
        signal = Signal()
    cost = (
        usage.input_tokens * profile.input_usd_per_mtok
        + usage.output_tokens * profile.output_usd_per_mtok
    ) / 1_000_000
    return AgentReply(
        message=output.message,
        step_completed=output.step_completed and signal.action == "complete_step",
        completion_reason=output.completion_reason,
        extracted_data=output.extracted_data,
        next_action=output.next_action,
        workflow_signal=WorkflowSignal(action=signal.action, data=signal.data),
        usage=usage,
        cost_usd=cost,
        agent=profile.slug,
        model=model,
    )
