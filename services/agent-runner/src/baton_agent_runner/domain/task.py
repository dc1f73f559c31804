"""One DAG step for an agent: which model answers, what it costs, and what the model reads.

The agent reads two texts: instructions (the profile's system prompt, then a `Step:` line and
the permission mode) and a prompt (the handoff context, delimited and counted, then the task).
`read_task` recovers the step from those two texts: the scripted model reads what a real
model would read, so a test of its output is a test of what was sent.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict, Field

from baton_agent_runner.domain.language import language_of
from baton_agent_runner.domain.profile import Profile
from baton_contracts.agent_api import PERMISSION_MODES
from baton_contracts.money import usd

_TOLD: dict[str, str] = {
    "default": "ask before any action that changes something",
    "plan": "plan only: describe what you would do, change nothing",
    "acceptEdits": "you may edit files without asking; ask before anything else",
    "bypassPermissions": "every action is allowed without asking",
}
MODE_INSTRUCTIONS: dict[str, str] = {mode: _TOLD[mode] for mode in PERMISSION_MODES}
"""What each permission mode of the contract tells the agent (a mode added to the
contract without its words here fails at import, not on the first task that asks for it)."""

PROVIDERS = ("openai", "scripted")
"""Model providers: `scripted` (offline, deterministic) and `openai` (any compatible endpoint)."""

DEFAULT_PRICE_ROW = "default"
"""The price row of a model the pricing table does not name."""

_STEP_LINE = "Step: "
_CONTEXT_HEAD = re.compile(r"Handoff context: the whole output of step (.+) \((\d+) characters\)")
_CONTEXT_OPEN, _CONTEXT_CLOSE, _TASK_HEAD = "<<<CONTEXT\n", "\nCONTEXT>>>\n\n", "Task:\n"


class TaskInvalid(ValueError):
    """A task that cannot run as asked; `field` names the request field at fault."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field, self.message = field, message


class ModelPrice(BaseModel):
    """What a model costs, in USD per 1,000 tokens read and written."""

    # JSON as Python reads it takes `Infinity` and `1e400`: such a price passed `ge=0`, and a
    # step's cost went out infinite (null on the wire), unreadable by the workflow.
    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    input_usd_per_1k: float = Field(ge=0)
    output_usd_per_1k: float = Field(ge=0)

    def cost(self, input_tokens: int, output_tokens: int) -> float:
        """The cost of that many tokens in and out (to `usd`'s places, as every cost is)."""
        return usd(
            (input_tokens * self.input_usd_per_1k + output_tokens * self.output_usd_per_1k) / 1000
        )


class ModelChoice(BaseModel):
    """The provider and model name one call runs on."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    provider: str
    name: str

    @property
    def label(self) -> str:
        """`scripted`, `scripted:<name>` or `openai:<name>`: what results report as `model`."""
        if self.provider == self.name:
            return self.name
        return f"{self.provider}:{self.name}"


class TaskCall(BaseModel):
    """What the agent is asked for one step: the agent's deps, rendered into what it reads."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    agent: str
    run_id: str
    step_id: str
    prompt: str
    context: str = ""
    context_from: str | None = None
    permission_mode: str = "default"

    @property
    def has_context(self) -> bool:
        """A handoff: the source step's output (possibly empty) comes with the prompt."""
        return bool(self.context) or self.context_from is not None


def tokens(chars: int) -> int:
    """The usual estimate of tokens: one per 4 characters, rounded up."""
    return math.ceil(chars / 4)


def input_tokens(call: TaskCall) -> int:
    """Tokens of what the step gives the agent: its prompt and its handoff context."""
    return tokens(len(call.prompt) + len(call.context))


def price_of(prices: Mapping[str, ModelPrice], model: str) -> ModelPrice:
    """The model's row of the pricing table, else the `default` row."""
    return prices.get(model) or prices[DEFAULT_PRICE_ROW]


def permission_mode(value: str | None) -> str:
    """The request's permission mode (none: `default`); another value is `TaskInvalid`."""
    if value is None:
        return "default"
    if value not in PERMISSION_MODES:
        known = ", ".join(PERMISSION_MODES)
        raise TaskInvalid("permission_mode", f"unknown mode {value!r}; known: {known}")
    return value


def split_model(spec: str) -> ModelChoice:
    """An agent's model setting (`scripted` or `openai:<model>`) as provider and name."""
    if spec == "scripted":
        return ModelChoice(provider="scripted", name="scripted")
    provider, _, name = spec.partition(":")
    if provider not in PROVIDERS or not name:
        raise TaskInvalid("model", f"the agent's model {spec!r} is not 'scripted' or 'openai:<m>'")
    return ModelChoice(provider=provider, name=name)


def choose_model(agent_model: str, provider: str | None, model: str | None) -> ModelChoice:
    """The agent's model with the request's overrides; `openai:<m>` names both at once."""
    own = split_model(agent_model)
    if model and provider is None:
        prefix, colon, rest = model.partition(":")
        if colon and rest and prefix in PROVIDERS:
            provider, model = prefix, rest
        elif model == "scripted":
            provider = "scripted"
    if provider is not None and provider not in PROVIDERS:
        known = ", ".join(PROVIDERS)
        raise TaskInvalid("provider", f"unknown provider {provider!r}; known: {known}")
    chosen = provider or own.provider
    if model:
        return ModelChoice(provider=chosen, name=model)
    if chosen == own.provider:
        return own
    if chosen == "scripted":
        return ModelChoice(provider="scripted", name="scripted")
    message = f"provider {chosen!r} needs a model name; the agent's own model is {agent_model!r}"
    raise TaskInvalid("model", message)


def render_instructions(profile: Profile, call: TaskCall) -> str:
    """The agent's instructions for one step: its system prompt, the step, the permission mode."""
    language = language_of(call.prompt)
    step = {
        "agent": call.agent,
        "run_id": call.run_id,
        "step_id": call.step_id,
        "permission_mode": call.permission_mode,
    }
    mode = MODE_INSTRUCTIONS[call.permission_mode]
    return "\n".join(
        [
            getattr(profile.system_prompt, language).strip(),
            "",
            f"{_STEP_LINE}{json.dumps(step, ensure_ascii=False)}",
            "You run this one step of a workflow and answer once; your answer is the step's "
            "output, passed as it is to later steps.",
            f"Permission mode {call.permission_mode}: {mode}.",
        ]
    )


def render_prompt(call: TaskCall) -> str:
    """The prompt: the handoff context first (named, counted and delimited), then the task."""
    if not call.has_context:
        return call.prompt
    source = json.dumps(call.context_from, ensure_ascii=False) if call.context_from else "?"
    head = f"Handoff context: the whole output of step {source} ({len(call.context)} characters)"
    return (
        f"{head}, between the lines <<<CONTEXT and CONTEXT>>>:\n"
        f"{_CONTEXT_OPEN}{call.context}{_CONTEXT_CLOSE}{_TASK_HEAD}{call.prompt}"
    )


def read_task(instructions: str, prompt: str) -> TaskCall:
    """The step back from what `render_instructions` and `render_prompt` made of it."""
    line = next((ln for ln in instructions.splitlines() if ln.startswith(_STEP_LINE)), None)
    if line is None:
        raise ValueError("the instructions carry no 'Step:' line")
    step = json.loads(line.removeprefix(_STEP_LINE))
    context, source = "", None
    head = _CONTEXT_HEAD.match(prompt)
    if head:
        source = None if head.group(1) == "?" else str(json.loads(head.group(1)))
        start = prompt.index(_CONTEXT_OPEN, head.end()) + len(_CONTEXT_OPEN)
        end = start + int(head.group(2))
        context = prompt[start:end]
        rest = prompt[end:]
        if not rest.startswith(_CONTEXT_CLOSE + _TASK_HEAD):
            raise ValueError("the handoff context is not closed where its length says")
        prompt = rest.removeprefix(_CONTEXT_CLOSE + _TASK_HEAD)
    return TaskCall(**step, prompt=prompt, context=context, context_from=source)
