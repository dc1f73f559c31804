"""One turn's call of its agent's model, within the turn's time.

A reply that fails validation, or whose message is blank once what cannot be stored is left
out, is answered with the fallback and the step stays (seed 000's risks); a model that does
not answer in time, or is down, fails the turn with what failed (`turn_failures`).
"""

from __future__ import annotations

import asyncio
import logging

from baton_agent_runner.domain.output import AgentOutput
from baton_agent_runner.domain.profile import Profile
from baton_agent_runner.domain.scripted import Turn
from baton_agent_runner.domain.storable_output import storable_output
from baton_agent_runner.domain.texts import text
from baton_agent_runner.service.ports import (
    AgentModels,
    ModelReplyInvalid,
    ModelUnavailable,
    ToolContext,
)
from baton_agent_runner.service.turn_failures import model_failed, model_timed_out
from baton_contracts import ErrorCode, RemoteError
from baton_contracts.agent_api import TokenUsage

logger = logging.getLogger("baton.agent_runner")


async def asked(
    agents: AgentModels, profile: Profile, turn: Turn, limit: float, tools: ToolContext
) -> tuple[AgentOutput, TokenUsage, bool]:
    """The model's output as it can be stored, its usage, and whether the model answered
    (not the fallback)."""
    try:
        async with asyncio.timeout(limit):
            answer = await agents.answer(profile, turn, tools)
    except ModelReplyInvalid as exc:
        logger.warning("agent %s gave an invalid reply, staying: %s", profile.slug, exc)
        return _fallback(turn), exc.usage, False
    except TimeoutError as exc:
        logger.warning("agent %s did not answer within %.3fs", profile.slug, limit)
        raise RemoteError.of(ErrorCode.UNAVAILABLE, model_timed_out(limit)) from exc
    except ModelUnavailable as exc:
        logger.warning("agent %s failed: %r", profile.slug, exc)
        raise RemoteError.of(ErrorCode.UNAVAILABLE, model_failed(exc)) from exc
    output, changed = storable_output(answer.output)
    if changed:
        logger.warning(
            "agent %s wrote what cannot be stored; left out of %s", profile.slug, ", ".join(changed)
        )
    if not output.message.strip():
        # Nothing of the message is left, or there was only white space ("" is refused by
        # the output's own rules, " " was not): as if malformed, the step stays.
        logger.warning("agent %s answered with a blank message, staying", profile.slug)
        return _fallback(turn), answer.usage, False
    return output, answer.usage, True


def _fallback(turn: Turn) -> AgentOutput:
    return AgentOutput(message=text(turn.language, "model_fallback"))
