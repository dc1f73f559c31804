"""`{{...}}` templates: `{{var}}`, `{{steps.ID.output|status|error}}` and `{{env.KEY}}`.

A template is parsed once (and cached) and rendered many times against a `RenderContext`. The
domain never reads the process environment: `env` values come in the context, chosen by the
caller from an allow-list.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import lru_cache

STEP_FIELDS = ("output", "status", "error")
_NAME = re.compile(r"^[A-Za-z0-9_-]+$")
_STEP_ID = re.compile(r"^[^\s{}]+$")


MAX_FILLED_CHARS = 1024 * 1024
"""The longest a skill argument, a tool input value or a value in a condition is once filled:
1 MiB, the most a NATS message (a run's variables, an agent's answer) carries and the largest
body a tool reads by default, so one value of a variable or a step fits whole."""


class FilledTooLong(ValueError):
    """A template that fills past its limit, where there is no text to cut (a condition's
    value); `length` is the whole filled length, never built."""

    def __init__(self, length: int, limit: int) -> None:
        super().__init__(
            f"a value, its templates filled, has {length:,} characters; at most {limit:,}"
        )
        self.length = length
        self.limit = limit


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
        """The text with each reference replaced by its value in `context`; unbounded, so only
        for a template whose values are known to be short (see `fill`)."""
        return "".join(p if isinstance(p, str) else context.resolve(p) for p in self.parts)

    def fill(self, context: RenderContext, limit: int) -> Filled:
        """At most the first `limit` characters of the filled text, and its whole length.

        Never builds more than `limit` characters: a short template repeating a long value
        (`{{t}}` 20,000 times) would fill to gigabytes, so the length is summed from the
        pieces and only what fits is joined.
        """
        kept: list[str] = []
        room, length = limit, 0
        for part in self.parts:
            value = part if isinstance(part, str) else context.resolve(part)
            length += len(value)
            if room > 0 and value:
                kept.append(value[:room])  # the value itself when it fits: no copy
                room -= len(kept[-1])
        return Filled("".join(kept), length)

    def known_length(self, variables: Mapping[str, str], env: Mapping[str, str]) -> int:
        """The length the template fills to at least, before any step has run: its text and
        the values of its variables and env keys (a step's output, status or error counts as
        nothing; a name not given, as "")."""
        total = 0
        for part in self.parts:
            if isinstance(part, str):
                total += len(part)
            elif isinstance(part, VariableRef):
                total += len(variables.get(part.name, ""))
            elif isinstance(part, EnvRef):
                total += len(env.get(part.key, ""))
        return total


@dataclass(frozen=True, slots=True)
class Filled:
    """A template filled up to a limit: `text` is at most the limit, `length` the whole."""

    text: str
    length: int

    @property
    def cut(self) -> bool:
        """The whole text is longer than the limit it was filled to."""
        return self.length > len(self.text)


def parse_reference(expression: str, position: int = 0) -> Reference:
    """The reference a `{{...}}` body names (without braces); TemplateError otherwise."""
    text = expression.strip()
    if not text:
        raise TemplateError("empty template {{}}", position)
    head, _, rest = text.partition(".")
    if head == "steps" and rest:
        step_id, _, name = rest.rpartition(".")
        if not step_id or not _STEP_ID.match(step_id):
            braced = "{{" + _shown(text) + "}}"
            raise TemplateError(
                f'"{braced}" should be {{{{steps.ID.output}}}}, .status or .error', position
            )
        if name not in STEP_FIELDS:
            braced = "{{" + _shown(text) + "}}"
            raise TemplateError(
                f'unknown step field "{_shown(name)}" in {braced}; use output, status or error',
                position,
            )
        return StepRef(step_id, name)
    if head == "env" and rest:
        if not _NAME.match(rest):
            braced = "{{" + _shown(text) + "}}"
            raise TemplateError(f'invalid env key "{_shown(rest)}" in {braced}', position)
        return EnvRef(rest)
    if not _NAME.match(text):
        braced = "{{" + _shown(text) + "}}"
        raise TemplateError(
            f'"{braced}" is not a variable, {{{{steps.ID.FIELD}}}} or {{{{env.KEY}}}}',
            position,
        )
    return VariableRef(text)


_SHOWN_CHARS = 80
"""The most characters of a template's text a problem quotes."""


def _shown(text: str) -> str:
    """`text` as a problem quotes it: whole up to `_SHOWN_CHARS`, else its start and how long it
    is (a 200,000-character template was quoted whole, in every problem naming it)."""
    if len(text) <= _SHOWN_CHARS:
        return text
    return f"{text[: _SHOWN_CHARS - 20]}… ({len(text):,} characters)"


CACHED_TEMPLATE_CHARS = 4_096
"""The longest template text whose parse is kept: with at most `_CACHED_TEMPLATES` of them the
cache holds a few tens of MB at worst. It kept any text, and a document of 512 KB prompts could
fill it with gigabytes; a longer text is parsed each time, in time linear in its length."""
_CACHED_TEMPLATES = 2048


def parse_template(text: str) -> Template:
    """Parse `text` (the parse of a short one is cached); TemplateError at the first malformed
    `{{...}}`."""
    if len(text) > CACHED_TEMPLATE_CHARS:
        return _parse(text)
    return _parse_cached(text)


@lru_cache(maxsize=_CACHED_TEMPLATES)
def _parse_cached(text: str) -> Template:
    return _parse(text)


def _templates(text: str) -> Iterator[tuple[int, int]]:
    """Where each `{{...}}` of `text` starts and ends: from a `{{` to the first `}}` after it,
    as the pattern `\\{\\{(.*?)\\}\\}` finds them, in time linear in the text's length.

    That pattern, searched for, took time growing with the square of the length when a text
    held many `{{` and no `}}` (each `{{` was tried against the rest of the text): 1.8 s for
    16,000 characters, minutes for a 200,000-character prompt. With no `}}` after a `{{`,
    none follows any later one either, so the scan stops there."""
    at = text.find("{{")
    while at >= 0:
        end = text.find("}}", at + 2)
        if end < 0:
            return
        yield at, end + 2
        at = text.find("{{", end + 2)


def _parse(text: str) -> Template:
    parts: list[str | Reference] = []
    cursor = 0
    for start, end in _templates(text):
        if start > cursor:
            parts.append(text[cursor:start])
        parts.append(parse_reference(text[start + 2 : end - 2], start))
        cursor = end
    if cursor < len(text):
        parts.append(text[cursor:])
    return Template(tuple(parts))


def scan_references(text: str) -> list[Reference | TemplateError]:
    """Every `{{...}}` in `text`, parsed or as its error (validation reports them all)."""
    return scan_template(text).found


@dataclass(frozen=True, slots=True)
class TemplateScan:
    """What one pass over a text finds: every `{{...}}`, parsed or as its error, and where a
    `{{` opens a template that is never closed (0-based), or None.

    Such a `{{` renders as the text it is (as does all that follows it), and is no error: a
    document may hold literal braces. It can only follow the last `{{...}}`: the pattern
    matches at any earlier `{{`, a later `}}` closing it."""

    found: list[Reference | TemplateError]
    unclosed: int | None


def scan_template(text: str) -> TemplateScan:
    """Scan `text` once, as `parse_template` reads it (see `TemplateScan`)."""
    found: list[Reference | TemplateError] = []
    end = 0
    for start, end in _templates(text):
        try:
            found.append(parse_reference(text[start + 2 : end - 2], start))
        except TemplateError as exc:
            found.append(exc)
    opened = text.find("{{", end)
    return TemplateScan(found, None if opened < 0 else opened)


def unclosed_warning(position: int) -> str:
    """What a field whose `{{` at `position` (0-based) is never closed is told when saved."""
    return (
        f'"{{{{" at character {position + 1:,} opens a template that is never closed ("}}}}"); '
        "it is kept as text"
    )


def render(text: str, context: RenderContext) -> str:
    """Parse (cached) and render in one call; unbounded (see `fill`)."""
    return parse_template(text).render(context)


def fill(text: str, context: RenderContext, limit: int) -> Filled:
    """Parse (cached) and fill to at most `limit` characters (see `Template.fill`)."""
    return parse_template(text).fill(context, limit)


MAX_NOTIFICATION_CHARS = 16_000
"""The longest notification text (a notify step's, onSuccess/onFailure): chat channels take
about 4,000 (Telegram) to 40,000 (Slack) characters, and one rendered from a large variable
passed the 1 MiB a NATS message carries, which stopped the outbox for every user."""


MAX_NOTIFY_TO_CHARS = 200
"""The longest channel hint (`notifyTo`): a name such as `telegram` or `slack:#ops`. Rendered
from a step's output it had no limit, and one past the 1 MiB a NATS message carries stopped
the outbox for every user, as a long message did."""


def channel_hint_problem(hint: str, length: int | None = None) -> str | None:
    """What makes `hint` no channel hint, or None: a hint is one line of at most
    `MAX_NOTIFY_TO_CHARS` characters, with no control characters. `length` is the whole
    hint's, when `hint` is only its start (`Filled`)."""
    length = len(hint) if length is None else length
    if length > MAX_NOTIFY_TO_CHARS:
        return f"has {length:,} characters; a channel hint takes at most {MAX_NOTIFY_TO_CHARS}"
    if not hint.isprintable():
        return "a channel hint is one line, without control characters"
    return None


def notification_text(template: str, context: RenderContext) -> str:
    """`template` filled as a notification carries it: cut past `MAX_NOTIFICATION_CHARS`,
    saying so (the text past the cut is never built)."""
    filled = fill(template, context, MAX_NOTIFICATION_CHARS)
    if not filled.cut:
        return filled.text
    cut = filled.length - MAX_NOTIFICATION_CHARS
    return f"{filled.text}… [{cut} more characters cut]"
