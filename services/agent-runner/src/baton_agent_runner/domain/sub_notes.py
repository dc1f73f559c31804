"""A note indented under a list's entry ("- finish Q3 report\n  - need numbers from Mike
first", "1. отчёт для Пети\n   (он просил с графиками)"): part of the entry above it, not an
item of its own, unless it is an action (a step of its own: "- move\n  - call movers")."""

# ruff: noqa: RUF002  (Russian text in the docstring is meant to be Cyrillic)

from __future__ import annotations

from baton_agent_runner.domain.action_words import is_action
from baton_agent_runner.domain.dump_words import BULLET


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _bulleted(line: str) -> bool:
    """The line opens with a bullet or a number ("- ", "1. ", "2)"), past its indent."""
    found = BULLET.match(line)
    return found is not None and bool(line[_indent(line) : found.end()].strip())


def notes_joined(text: str) -> str:
    """The text with each note indented under a bulleted or numbered entry put in brackets at
    the end of that entry's line ("- finish Q3 report (need numbers from Mike first)"), as
    several notes under one are ("- groceries (milk, eggs)")."""
    lines: list[str] = []
    notes: list[str] = []
    anchor: int | None = None  # the indent of the entry notes may go under
    for line in text.splitlines():
        note = BULLET.sub("", line, count=1).strip()
        if anchor is not None and note and _indent(line) > anchor and not is_action(note):
            notes.append(note[1:-1] if note.startswith("(") and note.endswith(")") else note)
            continue
        _close(lines, notes)
        lines.append(line)
        anchor = _indent(line) if _bulleted(line) else None
    _close(lines, notes)
    return "\n".join(lines)


def _close(lines: list[str], notes: list[str]) -> None:
    """Put the `notes` gathered, if any, at the end of the last line, and forget them."""
    if notes and lines:
        lines[-1] = f"{lines[-1].rstrip()} ({', '.join(notes)})"
    notes.clear()
