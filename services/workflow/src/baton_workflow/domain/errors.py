"""Domain errors: each names what was refused and why; the service maps them to error codes."""

from __future__ import annotations


class WorkflowError(Exception):
    """Base of every workflow domain error."""


class DefinitionInvalid(WorkflowError):
    """A workflow definition breaks a rule; `problems` lists each as `location: message`."""

    def __init__(self, source: str, problems: list[str]) -> None:
        super().__init__(f"invalid workflow definition {source}: " + "; ".join(problems))
        self.source = source
        self.problems = problems


class InstanceNotActive(WorkflowError):
    """A command needs an active instance, but this one has ended."""


class UnknownStep(WorkflowError):
    """A command named a step the definition does not have (or one it cannot go to):
    `problem` says which, of the command's `field`."""

    def __init__(self, problem: str, field: str = "signal.target_step") -> None:
        super().__init__(f"{field}: {problem}")
        self.field = field
        self.problem = problem


class UnknownChecker(WorkflowError):
    """A definition names a criteria checker that is not registered."""
