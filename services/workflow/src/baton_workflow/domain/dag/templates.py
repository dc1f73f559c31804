"""`{{...}}` templates: `{{var}}`, `{{steps.ID.output|status|error}}` and `{{env.KEY}}`.

A template is parsed once (and cached) and rendered many times against a `RenderContext`. The
domain never reads the process environment: `env` values come in the context, chosen by the
caller from an allow-list.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache

STEP_FIELDS = ("output", "status", "error")
_TEMPLATE = re.compile(r"\{\{(.*?)\}\}", re.DOTALL)
_NAME = re.compile(r"^[A-Za-z0-9_-]+$")
_STEP_ID = re.compile(r"^[^\s{}]+$")


class TemplateError(ValueError):
    """A `{{...}}` that is not a valid reference; `position` is its 0-based offset in the text."""

    def __init__(self, message: str, position: int) -> None:
        super().__init__(message)
        self.message = message
        self.position = position


@dataclass(frozen=True, slots=True)
class VariableRef:
    """`{{name}}`: a workflow variable."""

    name: str


@dataclass(frozen=True, slots=True)
class StepRef:
    """`{{steps.ID.FIELD}}`: a step's output, status or error."""

    step_id: str
    field: str


@dataclass(frozen=True, slots=True)
class EnvRef:
    """`{{env.KEY}}`: an allow-listed environment value, supplied by the caller."""

    key: str


Reference = VariableRef | StepRef | EnvRef


@dataclass(frozen=True, slots=True)
class StepOutcome:
    """What templates can read of a step: its status, output and error so far."""

    status: str = "pending"
    output: str = ""
    error: str = ""


@dataclass(frozen=True, slots=True)
class RenderContext:
    """Everything a template may read: variables, step outcomes and allow-listed env values."""

    variables: Mapping[str, str] = field(default_factory=dict)
    steps: Mapping[str, StepOutcome] = field(default_factory=dict)
    env: Mapping[str, str] = field(default_factory=dict)

    def resolve(self, ref: Reference) -> str:
        """The text a reference stands for; unknown names render as ""."""
        if isinstance(ref, VariableRef):
            return self.variables.get(ref.name, "")
        if isinstance(ref, EnvRef):
            return self.env.get(ref.key, "")
        outcome = self.steps.get(ref.step_id, StepOutcome())
        if ref.field == "output":
            return "" if outcome.status == "skipped" else outcome.output
        return outcome.status if ref.field == "status" else outcome.error


@dataclass(frozen=True, slots=True)
class Template:
    """A parsed template: literal text and references, in order."""

    parts: tuple[str | Reference, ...]

    @property
    def references(self) -> tuple[Reference, ...]:
        """Every reference the template makes, in order."""
        return tuple(p for p in self.parts if not isinstance(p, str))

    def render(self, context: RenderContext) -> str:
        """The text with each reference replaced by its value in `context`."""
        return "".join(p if isinstance(p, str) else context.resolve(p) for p in self.parts)


def parse_reference(expression: str, position: int = 0) -> Reference:
    """The reference a `{{...}}` body names (without braces); TemplateError otherwise."""
    text = expression.strip()
    if not text:
        raise TemplateError("empty template {{}}", position)
    head, _, rest = text.partition(".")
    if head == "steps" and rest:
        step_id, _, name = rest.rpartition(".")
        if not step_id or not _STEP_ID.match(step_id):
            raise TemplateError(
                f'"{{{{{text}}}}}" should be {{{{steps.ID.output}}}}, .status or .error', position
            )
        if name not in STEP_FIELDS:
            raise TemplateError(
                f'unknown step field "{name}" in {{{{{text}}}}}; use output, status or error',
                position,
            )
        return StepRef(step_id, name)
    if head == "env" and rest:
        if not _NAME.match(rest):
            raise TemplateError(f'invalid env key "{rest}" in {{{{{text}}}}}', position)
        return EnvRef(rest)
    if not _NAME.match(text):
        raise TemplateError(
            f'"{{{{{text}}}}}" is not a variable, {{{{steps.ID.FIELD}}}} or {{{{env.KEY}}}}',
            position,
        )
    return VariableRef(text)


@lru_cache(maxsize=4096)
def parse_template(text: str) -> Template:
    """Parse `text` once (cached); TemplateError at the first malformed `{{...}}`."""
    parts: list[str | Reference] = []
    cursor = 0
    for match in _TEMPLATE.finditer(text):
        if match.start() > cursor:
            parts.append(text[cursor : match.start()])
        parts.append(parse_reference(match.group(1), match.start()))
        cursor = match.end()
    if cursor < len(text):
        parts.append(text[cursor:])
    return Template(tuple(parts))


def scan_references(text: str) -> list[Reference | TemplateError]:
    """Every `{{...}}` in `text`, parsed or as its error (validation reports them all)."""
    found: list[Reference | TemplateError] = []
    for match in _TEMPLATE.finditer(text):
        try:
            found.append(parse_reference(match.group(1), match.start()))
        except TemplateError as exc:
            found.append(exc)
    return found


def render(text: str, context: RenderContext) -> str:
    """Parse (cached) and render in one call."""
    return parse_template(text).render(context)


MAX_NOTIFICATION_CHARS = 16_000
"""The longest notification text (a notify step's, onSuccess/onFailure): chat channels take
about 4,000 (Telegram) to 40,000 (Slack) characters, and one rendered from a large variable
passed the 1 MiB a NATS message carries, which stopped the outbox for every user."""


MAX_NOTIFY_TO_CHARS = 200
"""The longest channel hint (`notifyTo`): a name such as `telegram` or `slack:#ops`. Rendered
from a step's output it had no limit, and one past the 1 MiB a NATS message carries stopped
the outbox for every user, as a long message did."""


def channel_hint_problem(hint: str) -> str | None:
    """What makes `hint` no channel hint, or None: a hint is one line of at most
    `MAX_NOTIFY_TO_CHARS` characters, with no control characters."""
    if len(hint) > MAX_NOTIFY_TO_CHARS:
        return f"has {len(hint):,} characters; a channel hint takes at most {MAX_NOTIFY_TO_CHARS}"
    if not hint.isprintable():
        return "a channel hint is one line, without control characters"
    return None


def notification_text(text: str) -> str:
    """`text` as a notification carries it: cut past `MAX_NOTIFICATION_CHARS`, saying so."""
    if len(text) <= MAX_NOTIFICATION_CHARS:
        return text
    cut = len(text) - MAX_NOTIFICATION_CHARS
    return f"{text[:MAX_NOTIFICATION_CHARS]}… [{cut} more characters cut]"
