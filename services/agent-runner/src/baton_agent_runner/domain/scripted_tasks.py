"""The scripted agents' answers to DAG steps: deterministic, offline, and shaped by the role.

`hisui` lists numbered key points (as many as the prompt asks for), `kohaku` writes a short
paragraph quoting the first lines it was given, `ruri` reviews the handoff context, `kokuyou`
scouts code, and any other agent (`default` among them) reports what it did. Each answer
quotes enough of its prompt and context that a reader can see what was passed on.

Test hooks in the prompt (never in the context, and never echoed into an answer):
`[[fail]]`, `[[fail-attempts:N]]`, `[[sleep:S]]` and `[[cost:X]]`; see `Markers`.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from pydantic import BaseModel, ConfigDict

from baton_agent_runner.domain.task import TaskCall

_NUMBER = r"(\d+(?:\.\d+)?)"
_MARKER = re.compile(rf"\[\[(fail|fail-attempts:(\d+)|sleep:{_NUMBER}|cost:{_NUMBER})\]\]")
_ASKED = re.compile(
    r"\b(\d{1,3})\s+(?:key\s+|main\s+)?(?:points?|items?|ideas?|facts?|findings?|bullets?)\b",
    re.IGNORECASE,
)
_SUBJECT = re.compile(r"\b(?:about|on|in|of|for)\s+([^,.;:!?\n]{2,80})", re.IGNORECASE)
_WORD = re.compile(r"[^\W\d_][\w'-]{3,}")
_STOP_WORDS = (
    "about after also and based below from have into just latest list listing more most only",
    "over please some than that their them then there these they this those under what when",
    "where which while with without would write your following points items summary search",
    "organize words",
)
_STOP = frozenset(word for line in _STOP_WORDS for word in line.split())
DEFAULT_POINTS, MAX_POINTS, QUOTE_CHARS = 3, 20, 160
ANGLES = (
    "Current state",
    "Main players",
    "Recent developments",
    "Open problems",
    "Practical uses",
    "Risks",
    "Costs",
    "Measures of progress",
    "What to watch next",
    "Opportunities",
)


class Markers(BaseModel):
    """The test hooks a prompt carries: fail, fail the first N attempts, sleep, report a cost."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    fail: bool = False
    fail_attempts: int = 0
    sleep_seconds: float = 0.0
    cost_usd: float | None = None


def markers_of(prompt: str) -> Markers:
    """The hooks in `prompt`; the last of a kind wins."""
    found: dict[str, object] = {}
    for match in _MARKER.finditer(prompt):
        word, attempts, sleep, cost = match.groups()
        if word == "fail":
            found["fail"] = True
        elif attempts is not None:
            found["fail_attempts"] = int(attempts)
        elif sleep is not None:
            found["sleep_seconds"] = float(sleep)
        elif cost is not None:
            found["cost_usd"] = float(cost)
    return Markers.model_validate(found)


def without_markers(text: str) -> str:
    """`text` with every test hook taken out."""
    return _MARKER.sub("", text).strip()


def answer(call: TaskCall) -> str:
    """The scripted agent's output for one step."""
    clean = call.model_copy(
        update={"prompt": without_markers(call.prompt), "context": without_markers(call.context)}
    )
    text = ROLES.get(call.agent, generic)(clean)
    if call.permission_mode != "default":
        text += f"\n(permission mode: {call.permission_mode})"
    return text


def researcher(call: TaskCall) -> str:
    """Numbered key points on the prompt's subject, as many as asked (3 if not said)."""
    subject = subject_of(call.prompt)
    count = points_asked(call.prompt)
    words = keywords(call.prompt) or [subject]
    lines = [f"Research notes on {subject} ({count} key points):"]
    for index in range(count):
        angle, word = ANGLES[index % len(ANGLES)], words[index % len(words)]
        lines.append(f"{index + 1}. {angle} in {subject}: what the sources say on {word!r}.")
    lines.append(f'Asked: "{_quote(first_line(call.prompt))}"')
    lines.extend(_context_note(call))
    return "\n".join(lines)


def writer(call: TaskCall) -> str:
    """A short paragraph quoting the first lines of the context (or of the prompt's material)."""
    material = _material(call)
    quoted = [f'"{_quote(line)}"' for line in material[:3]]
    opening = quoted[0] if quoted else '""'
    then = f", then {', and '.join(quoted[1:])}" if len(quoted) > 1 else ""
    source = f"step {call.context_from}" if call.context_from else "the material given"
    return (
        f"Summary ({len(material)} lines from {source}): it opens with {opening}{then}. "
        f'Written as asked: "{_quote(first_line(call.prompt))}".'
    )


def reviewer(call: TaskCall) -> str:
    """`Review:` with the first line of what is reviewed, then notes and the instruction."""
    material = _material(call)
    first = material[0] if material else "(nothing to review)"
    source = f"step {call.context_from}" if call.context_from else "the prompt"
    word = next(iter(keywords("\n".join(material))), "the main point")
    return "\n".join(
        [
            f"Review: {_quote(first)}",
            f"- Reviewed: {len(material)} lines from {source}.",
            f"- Keep: the focus on {word!r}.",
            "- Revise: tighten the opening and end on a clear conclusion.",
            f'- Asked: "{_quote(first_line(call.prompt))}"',
        ]
    )


def engineer(call: TaskCall) -> str:
    """A code scout's leads: one open-source search per keyword of the prompt."""
    subject = subject_of(call.prompt)
    lines = [f"Code scout report on {subject}:"]
    for word in (keywords(call.prompt) or [subject])[:4]:
        lines.append(f"- {word}: look for maintained open-source projects on {subject}.")
    lines.append(f'Asked: "{_quote(first_line(call.prompt))}"')
    lines.extend(_context_note(call))
    return "\n".join(lines)


def generic(call: TaskCall) -> str:
    """What any other agent says: the task it did, and the context it was given."""
    return "\n".join([f"Done: {_quote(first_line(call.prompt))}", *_context_note(call)])


ROLES: dict[str, Callable[[TaskCall], str]] = {
    "hisui": researcher,
    "kohaku": writer,
    "ruri": reviewer,
    "kokuyou": engineer,
}


def points_asked(prompt: str) -> int:
    """`listing 5 key points` asks for 5; none said is 3; at most 20."""
    found = _ASKED.search(prompt)
    return min(max(int(found.group(1)), 1), MAX_POINTS) if found else DEFAULT_POINTS


def subject_of(prompt: str) -> str:
    """What the prompt is about: the last `about|on|in|of|for X` phrase, else its first line."""
    found = _SUBJECT.findall(first_line(prompt))
    return found[-1].strip() if found else _quote(first_line(prompt), 60)


def keywords(text: str) -> list[str]:
    """The text's longer words, lower-cased, in order, each once, common words left out."""
    seen: dict[str, None] = {}
    for word in _WORD.findall(text):
        lowered = word.casefold()
        if lowered not in _STOP:
            seen.setdefault(lowered, None)
    return list(seen)


def first_line(text: str) -> str:
    """The first line that is not blank."""
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


def _material(call: TaskCall) -> list[str]:
    """What is summarised or reviewed: the context, else the prompt after its first line."""
    if call.has_context:
        return _lines(call.context)
    lines = _lines(call.prompt)
    return lines[1:] or lines


def _context_note(call: TaskCall) -> list[str]:
    if not call.has_context:
        return []
    source = call.context_from or "an earlier step"
    return [f'Context from {source}: "{_quote(first_line(call.context))}"']


def _quote(text: str, limit: int = QUOTE_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
