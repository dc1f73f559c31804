"""What is wrong with a workflow definition or a run's inputs, each problem with its JSON path."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from baton_workflow.domain.errors import WorkflowError


@dataclass(frozen=True, slots=True)
class Problem:
    """One broken rule: `path` is a JSON path (`steps[2].dependsOn[0]`), `message` says why."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message

    def to_payload(self) -> dict[str, str]:
        """The problem as JSON-ready data (what an HTTP 422 body lists)."""
        return {"path": self.path, "message": self.message}


class InvalidWorkflow(WorkflowError):
    """A definition breaks one or more rules; `problems` lists every one, not only the first."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems = tuple(problems)
        lines = "\n".join(f"  {p}" for p in self.problems)
        super().__init__(f"invalid workflow ({len(self.problems)} problem(s)):\n{lines}")


class InvalidVariables(InvalidWorkflow):
    """The variables given to a run are missing a required one, name an unknown one, or fill
    a step's field past its limit."""


def did_you_mean(word: str, candidates: Iterable[str]) -> str:
    """` (did you mean "x"?)` when a candidate is close to `word`, else an empty string."""
    close = difflib.get_close_matches(word, sorted(set(candidates)), n=1, cutoff=0.6)
    return f' (did you mean "{close[0]}"?)' if close else ""


_STEP_PATH = re.compile(r"^steps\[(\d+)\](?:\.parallel\[(\d+)\])?")


def in_document_order(problems: Iterable[Problem]) -> list[Problem]:
    """Workflow-level problems first, then each step's (sub-steps after their parent), stably."""

    def position(problem: Problem) -> tuple[int, int]:
        match = _STEP_PATH.match(problem.path)
        if match is None:
            return (-1, -1)
        return (int(match.group(1)), int(match.group(2) or -1))

    return sorted(problems, key=position)


MAX_WARNINGS = 20
"""The most warnings a reply lists one by one: a document of thousands of steps, each with the
same slip, is told of the first ones and how many more."""


def warning_lines(warnings: Sequence[Problem], limit: int = MAX_WARNINGS) -> list[str]:
    """The warnings as a reply lists them: the first `limit`, then how many more there are."""
    lines = [str(w) for w in warnings[:limit]]
    if len(warnings) > limit:
        lines.append(f"and {len(warnings) - limit:,} more warnings")
    return lines
