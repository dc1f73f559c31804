"""PydanticAI agents answering DAG steps in plain text: the scripted model or an OpenAI one.

The scripted model is a `FunctionModel` that reads the step back from the instructions and
the prompt it was sent (`domain.task.read_task`) and answers by the agent's role
(`domain.scripted_tasks`). Its test hooks: `[[sleep:S]]` waits S seconds, `[[fail]]` fails,
`[[fail-attempts:N]]` fails the first N calls of the same (run_id, step_id) (counted in this
process's memory, so a restart counts again), `[[cost:X]]` reports X USD as the call's cost.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field

from openai import APIError, APIStatusError
from pydantic import ValidationError
from pydantic_ai import Agent
from pydantic_ai.exceptions import AgentRunError, ModelHTTPError, UnexpectedModelBehavior
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, UserPromptPart
from pydantic_ai.models import Model
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.settings import ModelSettings
from pydantic_ai.usage import RequestUsage

from baton_agent_runner.adapters.models import EndpointAnsweredText, OpenAISettings, openai_model
from baton_agent_runner.domain import scripted_tasks
from baton_agent_runner.domain.profile import Profile
from baton_agent_runner.domain.task import (
    ModelChoice,
    TaskCall,
    input_tokens,
    read_task,
    render_instructions,
    render_prompt,
    tokens,
)
from baton_agent_runner.service.ports import ModelFailed, TaskAnswer
from baton_contracts.agent_api import TokenUsage

logger = logging.getLogger(__name__)

COST_DETAIL = "cost_usd"
"""The key of `provider_details` where the scripted model reports a `[[cost:X]]`."""
_MODEL_CACHE_SIZE = 64


@dataclass
class ScriptedTaskModel:
    """The scripted model's answers, with the attempt counts `[[fail-attempts:N]]` needs."""

    attempts: dict[tuple[str, str], int] = field(default_factory=dict)

    def model(self, name: str) -> FunctionModel:
        """A `FunctionModel` answering under the name asked for (every name answers scripted)."""
        return FunctionModel(self.respond, model_name=name)

    async def respond(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        """Read the step from what was sent, honour its test hooks, answer by role."""
        call = read_task(info.instructions or "", _last_prompt(messages))
        hooks = scripted_tasks.markers_of(call.prompt)
        if hooks.sleep_seconds:
            await asyncio.sleep(hooks.sleep_seconds)
        if hooks.fail:
            raise ModelFailed("scripted failure: the prompt says [[fail]]")
        if hooks.fail_attempts:
            key = (call.run_id, call.step_id)
            seen = self.attempts[key] = self.attempts.get(key, 0) + 1
            if seen <= hooks.fail_attempts:
                raise ModelFailed(
                    f"scripted failure: attempt {seen} of the {hooks.fail_attempts} "
                    "the prompt says to fail ([[fail-attempts:N]])"
                )
        text = scripted_tasks.answer(call)
        usage = RequestUsage(input_tokens=input_tokens(call), output_tokens=tokens(len(text)))
        details = None if hooks.cost_usd is None else {COST_DETAIL: hooks.cost_usd}
        return ModelResponse(parts=[TextPart(text)], usage=usage, provider_details=details)


def _last_prompt(messages: list[ModelMessage]) -> str:
    for message in reversed(messages):
        for part in getattr(message, "parts", []):
            if isinstance(part, UserPromptPart) and isinstance(part.content, str):
                return part.content
    raise ModelFailed("scripted model: no prompt was sent")


@dataclass
class TaskAgents:
    """The `TaskModels` port: one text agent per profile; the model is chosen per call."""

    openai: OpenAISettings
    model_override: str | None = None
    scripted: ScriptedTaskModel = field(default_factory=ScriptedTaskModel)
    _agents: dict[str, Agent[TaskCall, str]] = field(default_factory=dict)
    _models: dict[tuple[str, str], Model] = field(default_factory=dict)

    def agent_model(self, profile: Profile) -> str:
        """The model setting the profile runs on (`BATON_AGENT_MODEL` wins)."""
        return self.model_override or profile.model

    async def perform(
        self, profile: Profile, choice: ModelChoice, call: TaskCall, timeout: float
    ) -> TaskAnswer:
        """Run the agent once; every failure of the model becomes `ModelFailed`."""
        # The endpoint's HTTP timeout ends a moment after the caller's deadline, so that a
        # slow model is reported as a timeout (`unavailable`), not as a failed request.
        settings = ModelSettings(
            temperature=profile.temperature, max_tokens=profile.max_tokens, timeout=timeout + 1
        )
        try:
            # Instructions as a string per run, not a function of the deps: PydanticAI runs a
            # plain function on a worker thread, a thread hop per step.
            result = await self._agent(profile).run(
                render_prompt(call),
                model=self.model(choice),
                deps=call,
                instructions=render_instructions(profile, call),
                model_settings=settings,
            )
        except ModelFailed:
            raise
        except (ModelHTTPError, APIStatusError) as exc:
            # The endpoint's error body is the endpoint's words: it may echo the key it was
            # sent, name an account or an internal address. The operator reads it in the log;
            # the step's error, which whoever reads the run sees, says only the status.
            status = exc.status_code
            logger.warning("the model endpoint answered HTTP %s: %s", status, exc)
            raise ModelFailed(
                f"{exc.__class__.__name__}: the model endpoint answered HTTP {status}"
            ) from exc
        except EndpointAnsweredText as exc:
            # Told as "ModelAPIError: ...", it read as a fault of Baton, not of the endpoint.
            raise ModelFailed(exc.message) from exc
        except (APIError, AgentRunError, UnexpectedModelBehavior, ValidationError) as exc:
            raise ModelFailed(f"{exc.__class__.__name__}: {exc}") from exc
        if result.response.finish_reason == "length":
            # Cut at the profile's `max_tokens`: saved as the step's output, the steps after it
            # got half an answer as if it were whole.
            raise ModelFailed(
                f"the model's answer was cut at max_tokens ({profile.max_tokens}): raise the "
                f"profile's max_tokens or ask for a shorter answer"
            )
        usage = result.usage
        cost = (result.response.provider_details or {}).get(COST_DETAIL)
        return TaskAnswer(
            output=result.output,
            usage=TokenUsage(
                input_tokens=usage.input_tokens or 0, output_tokens=usage.output_tokens or 0
            ),
            cost_usd=None if cost is None else float(cost),
        )

    def model(self, choice: ModelChoice) -> Model:
        """The model of one provider and name, built once (a bounded cache of names)."""
        key = (choice.provider, choice.name)
        if key not in self._models:
            if len(self._models) >= _MODEL_CACHE_SIZE:
                self._models.clear()
            self._models[key] = (
                self.scripted.model(choice.name)
                if choice.provider == "scripted"
                else openai_model(self.openai, choice.name)
            )
        return self._models[key]

    def _agent(self, profile: Profile) -> Agent[TaskCall, str]:
        if profile.slug not in self._agents:
            self._agents[profile.slug] = Agent(
                output_type=str, deps_type=TaskCall, name=profile.slug, retries=0
            )
        return self._agents[profile.slug]
