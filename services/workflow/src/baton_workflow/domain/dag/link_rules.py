"""The rules on how steps name each other: `dependsOn`, a condition's `then`/`else`, a
handoff's `handoffFrom`, and the dependency cycles they may close.

`LinkRules` is mixed into the definition checker of `validation`, which sets the attributes it
declares; `Located` is a step with its JSON path and the parallel step holding it, if any.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from baton_workflow.domain.dag.definition import Step, WorkflowDefinition
from baton_workflow.domain.dag.graph import ancestors, find_cycles
from baton_workflow.domain.dag.problems import Problem, did_you_mean


@dataclass(frozen=True, slots=True)
class Located:
    """A step of a definition, its JSON path, and the parallel step holding it (if any)."""

    step: Step
    path: str
    parent: Step | None


class LinkRules:
    """The checks on step ids named by other steps, and on cycles (mixed into the checker)."""

    definition: WorkflowDefinition
    top_ids: set[str]
    all_ids: set[str]
    stored: bool

    def references(self, item: Located) -> Iterator[Problem]:
        """What is wrong in the step ids `item` names. A `dependsOn` entry given twice is one
        problem, at the second: it was saved and shown as written (`b, b`). A version stored
        before that rule (`stored`) still runs: waiting twice for one step is waiting once."""
        step, path = item.step, item.path
        if item.parent is None:
            first: dict[str, int] = {}
            for index, dep in enumerate(step.depends_on):
                at = f"{path}.dependsOn[{index}]"
                if dep in first and not self.stored:
                    earlier = f"{path}.dependsOn[{first[dep]}]"
                    yield Problem(at, f'"{dep}" is listed twice (first at {earlier})')
                    continue
                first.setdefault(dep, index)
                yield from self.step_reference(at, dep, step, "depend on")
        if step.type == "condition":
            for key, alias in (("then", "then"), ("else_", "else")):
                target = getattr(step, key)
                if target:
                    yield from self.step_reference(f"{path}.{alias}", target, step, "branch to")
        if step.type == "handoff" and step.handoff_from:
            yield from self.handoff_reference(item)

    def step_reference(self, path: str, target: str, step: Step, verb: str) -> Iterator[Problem]:
        if target == step.id:
            yield Problem(path, f"a step cannot {verb} itself")
        elif target in self.definition.parents:
            parent = self.definition.parents[target]
            yield Problem(
                path, f'"{target}" is a sub-step of parallel step "{parent}"; use "{parent}"'
            )
        elif target not in self.top_ids:
            yield Problem(path, f'unknown step "{target}"{did_you_mean(target, self.top_ids)}')

    def handoff_reference(self, item: Located) -> Iterator[Problem]:
        source = item.step.handoff_from or ""
        path = f"{item.path}.handoffFrom"
        if source == item.step.id:
            yield Problem(path, "a step cannot hand off from itself")
        elif source not in self.all_ids:
            yield Problem(path, f'unknown step "{source}"{did_you_mean(source, self.all_ids)}')
        elif source not in self.finished_before(item):
            yield Problem(
                path,
                f'"{source}" must finish before this step (its output may not exist yet); '
                "add it to dependsOn, directly or through another step",
            )

    def finished_before(self, item: Located) -> set[str]:
        """Steps certain to have finished when this one starts: ancestors and their sub-steps."""
        start = item.parent.id if item.parent is not None else item.step.id
        before = ancestors(self.definition, start)
        return before | {sub.id for a in before for sub in self.definition.step(a).parallel}

    def cycles(self) -> Iterator[Problem]:
        for _, cycle in find_cycles(self.definition):
            path = self.edge(cycle[0], cycle[1])
            yield Problem(path, f"dependency cycle {' -> '.join(cycle)}")

    def edge(self, waiter: str, waited: str) -> str:
        """The field that makes `waiter` wait for `waited`: a `dependsOn` entry of `waiter`, or
        the `then`/`else` of the condition `waited` that branches to it."""
        at: dict[str, tuple[int, Step]] = {}
        for index, step in enumerate(self.definition.steps):
            at.setdefault(step.id, (index, step))
        index, step = at[waiter]
        if waited in step.depends_on:
            return f"steps[{index}].dependsOn[{step.depends_on.index(waited)}]"
        index, condition = at[waited]
        return f"steps[{index}].{'then' if condition.then == waiter else 'else'}"
