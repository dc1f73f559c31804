"""PydanticAI agents from profiles: the scripted function model or an OpenAI-compatible one."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from openai import APIError, AsyncOpenAI
from openai.types import chat
from pydantic import ValidationError
from pydantic_ai import Agent, NativeOutput, capture_run_messages
from pydantic_ai.exceptions import (
    AgentRunError,
    ModelAPIError,
    ModelHTTPError,
    UnexpectedModelBehavior,
    UsageLimitExceeded,
)
from pydantic_ai.messages import (
    ModelMessage,
    ModelResponse,
    TextPart,
    ToolCallPart,
    UserPromptPart,
)
from pydantic_ai.models import Model
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider
from pydantic_ai.settings import ModelSettings
from pydantic_ai.usage import RequestUsage, UsageLimits

from baton_agent_runner.adapters.agent_tools import tools_of
from baton_agent_runner.domain import scripted
from baton_agent_runner.domain.language import Lang
from baton_agent_runner.domain.output import AgentOutput
from baton_agent_runner.domain.profile import Profile
from baton_agent_runner.domain.task import tokens
from baton_agent_runner.service.ports import (
    ModelAnswer,
    ModelReplyInvalid,
    ModelUnavailable,
    ToolContext,
)
from baton_contracts.agent_api import TokenUsage

_TURN_BLOCK = re.compile(r"<turn>\n(.*?)\n</turn>", re.DOTALL)


def render_prompt(turn: scripted.Turn) -> str:
    """The user prompt: the turn as JSON (what both models read), then the user's message."""
    return f"<turn>\n{turn.model_dump_json()}\n</turn>\n\nUser message:\n{turn.message}"


def scripted_model() -> FunctionModel:
    """The rule-based model: reads the turn from the prompt, answers in the agent's output mode
    (JSON text for native structured output, else a call of the output tool)."""

    # Async, so PydanticAI calls it on the event loop rather than on a worker thread.
    async def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        prompt = _last_prompt(messages)
        output = scripted.run(_turn_of(prompt))
        text = output.model_dump_json()
        # Counted here, as the DAG's scripted model does: left to PydanticAI, the function
        # model estimates by walking every message again (measured: 3-4% of a turn's run).
        usage = RequestUsage(
            input_tokens=tokens(len(info.instructions or "") + len(prompt)),
            output_tokens=tokens(len(text)),
        )
        if info.output_tools:
            tool = info.output_tools[0].name
            part: TextPart | ToolCallPart = ToolCallPart(tool, output.model_dump(mode="json"))
        else:
            part = TextPart(text)
        return ModelResponse(parts=[part], usage=usage)

    return FunctionModel(answer, model_name="scripted")


def output_spec(model_name: str) -> type[AgentOutput] | NativeOutput[AgentOutput]:
    """How the agent asks for `AgentOutput`: the scripted model answers in native structured
    output (JSON text; the cheapest mode, measured); an endpoint gets the output tool, which
    every OpenAI-compatible server with tool calls understands."""
    if model_name == "scripted":
        return NativeOutput(AgentOutput)
    return AgentOutput


def _last_prompt(messages: list[ModelMessage]) -> str:
    for message in reversed(messages):
        for part in getattr(message, "parts", []):
            if isinstance(part, UserPromptPart) and isinstance(part.content, str):
                return part.content
    raise ValueError("scripted model: no prompt was sent")


def _turn_of(prompt: str) -> scripted.Turn:
    found = _TURN_BLOCK.search(prompt)
    if found is None:
        raise ValueError("scripted model: the prompt carries no <turn> block")
    # Parsed and validated in one pass (pydantic's JSON parser), not `json.loads` first:
    # 12.8 -> 9.4 us a turn.
    return scripted.Turn.model_validate_json(found.group(1))


MAX_MODEL_REQUESTS = 8
"""Requests to the model in one turn: its answer, and the tool calls before it. PydanticAI's
default is 50: a model stuck calling a tool made 50 paid requests a turn, and every retry of
the turn 50 more."""
TURN_USAGE_LIMITS = UsageLimits(request_limit=MAX_MODEL_REQUESTS)


@dataclass
class OpenAISettings:
    """Where an OpenAI-compatible endpoint is and how long one request may take."""

    base_url: str | None
    api_key: str
    timeout_seconds: float
    max_retries: int


ANSWERED_TEXT = (
    "the model endpoint answered HTTP 200 with text, not a chat completion (a proxy's error "
    "page, or BATON_OPENAI_BASE_URL pointing at something other than the API)"
)


class EndpointAnsweredText(ModelAPIError):
    """The endpoint answered HTTP 200 with a body that is no JSON: the endpoint's fault."""


class _EndpointModel(OpenAIChatModel):
    """PydanticAI's OpenAI chat model, for endpoints that may answer with no choice at all.

    PydanticAI takes the first choice of a completion unchecked: an empty `choices` list (a
    misbehaving OpenAI-compatible server) raised `IndexError`, which reached the caller as an
    internal error. Here it is the malformed reply it is, which the turn treats as `stay`.
    """

    # The documented hook for a subclass's own checks; its return type is private to PydanticAI.
    def _validate_completion(self, response: chat.ChatCompletion) -> Any:
        error = (response.model_extra or {}).get("error")
        if error is not None:
            # A gateway (OpenRouter, a proxy) reporting its upstream's 429 or 5xx with HTTP 200:
            # the endpoint failed, as with that status; taken for a malformed reply, its
            # fallback was recorded under the turn's key and every retry got it again.
            raise ModelHTTPError(_error_status(error), self.model_name, error)
        if not response.choices:
            raise UnexpectedModelBehavior(
                f"Invalid response from {self.system} chat completions endpoint: no choices"
            )
        return super()._validate_completion(response)

    def _process_response(self, response: chat.ChatCompletion | str, **kwargs: Any) -> Any:
        if not isinstance(response, chat.ChatCompletion):
            # Text with HTTP 200 (a proxy's error page, a base URL at a web app): the endpoint
            # failed, as one cut mid-JSON does. PydanticAI calls it a malformed reply, and the
            # turn's canned `stay` was recorded under the key, answering every retry.
            raise EndpointAnsweredText(self.model_name, ANSWERED_TEXT)
        return super()._process_response(response, **kwargs)


def _error_status(error: Any) -> int:
    """The HTTP status an error envelope names (`{"code": 429}`), else 502: the endpoint's
    gateway got no usable answer upstream."""
    code = error.get("code") if isinstance(error, dict) else None
    if isinstance(code, str) and code.isdigit():
        code = int(code)
    return code if isinstance(code, int) and 400 <= code <= 599 else 502


def openai_model(settings: OpenAISettings, name: str) -> OpenAIChatModel:
    """A model of the OpenAI-compatible endpoint, by the name the endpoint knows it by."""
    client = AsyncOpenAI(
        base_url=settings.base_url,
        api_key=settings.api_key,
        timeout=settings.timeout_seconds,
        max_retries=settings.max_retries,
    )
    return _EndpointModel(name, provider=OpenAIProvider(openai_client=client))


def _usage_of(messages: list[ModelMessage]) -> TokenUsage:
    """The tokens of the model's answers among `messages` (those of a failed run)."""
    answers = [m.usage for m in messages if isinstance(m, ModelResponse)]
    return TokenUsage(
        input_tokens=sum(u.input_tokens or 0 for u in answers),
        output_tokens=sum(u.output_tokens or 0 for u in answers),
    )


@dataclass
class AgentFactory:
    """The `AgentModels` port: one PydanticAI agent per profile and language, built once."""

    openai: OpenAISettings
    model_override: str | None = None
    _agents: dict[tuple[str, Lang], Agent[ToolContext, AgentOutput]] = field(default_factory=dict)

    def model_name(self, profile: Profile) -> str:
        """The model this profile runs on (the override wins)."""
        return self.model_override or profile.model

    def reads(self, profile: Profile) -> frozenset[str]:
        """The scripted rules read what `scripted.READS` says; an endpoint reads the whole turn."""
        if self.model_name(profile) == "scripted":
            return scripted.reads(profile.slug)
        return scripted.STORED

    async def answer(
        self, profile: Profile, turn: scripted.Turn, tools: ToolContext
    ) -> ModelAnswer:
        """Run the profile's agent on the turn, its tools reading through `tools`; its
        failures become the port's two errors."""
        agent = self.agent(profile, turn.language)
        with capture_run_messages() as messages:
            try:
                result = await agent.run(
                    render_prompt(turn), deps=tools, usage_limits=TURN_USAGE_LIMITS
                )
            except (UnexpectedModelBehavior, ValidationError, UsageLimitExceeded) as exc:
                # The answer was paid for even though it is unusable: keep its tokens. A model
                # that keeps calling tools is as unusable: asked again, it would do it again.
                raise ModelReplyInvalid(str(exc), _usage_of(messages)) from exc
            except (APIError, AgentRunError) as exc:
                raise ModelUnavailable(repr(exc), _reason(exc)) from exc
        usage = TokenUsage(
            input_tokens=result.usage.input_tokens or 0,
            output_tokens=result.usage.output_tokens or 0,
        )
        return ModelAnswer(result.output, usage)

    def agent(self, profile: Profile, language: Lang) -> Agent[ToolContext, AgentOutput]:
        """The agent for one profile in one language, with the profile's tools."""
        key = (profile.slug, language)
        if key not in self._agents:
            name = self.model_name(profile)
            self._agents[key] = Agent(
                self._model(name),
                output_type=output_spec(name),
                deps_type=ToolContext,
                tools=tools_of(profile.tools),
                instructions=getattr(profile.system_prompt, language),
                name=profile.slug,
                model_settings=ModelSettings(
                    temperature=profile.temperature, max_tokens=profile.max_tokens
                ),
                # A malformed reply is not asked for again: the turn stays (seed 000 risks).
                retries=0,
            )
        return self._agents[key]

    def _model(self, name: str) -> Model:
        if name == "scripted":
            return scripted_model()
        if name.startswith("openai:"):
            return openai_model(self.openai, name.removeprefix("openai:"))
        raise ValueError(f"model: unknown model {name!r} (use 'scripted' or 'openai:<model>')")


def _reason(exc: Exception) -> str:
    """What a turn's caller is told of a model failure: an HTTP status, not the body (which
    may echo the prompt); else the error's kind and first line."""
    if isinstance(exc, ModelHTTPError):
        return f"HTTP {exc.status_code} from {exc.model_name}"
    if isinstance(exc, EndpointAnsweredText):
        return exc.message  # what to look at, not the name of a PydanticAI class
    first = next(iter(str(exc).splitlines()), "")
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__
