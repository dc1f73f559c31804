"""The dependency graph of a definition: who waits for whom, cycles, and ancestors.

A step waits for its `dependsOn` and for any condition that branches to it (`then`/`else`).
"""

from __future__ import annotations

from baton_workflow.domain.dag.definition import WorkflowDefinition


def ancestors(definition: WorkflowDefinition, step_id: str) -> set[str]:
    """Every top-level step `step_id` waits for, directly or through others."""
    known = {s.id for s in definition.steps}
    seen: set[str] = set()
    stack = list(definition.dependencies.get(step_id, ()))
    while stack:
        current = stack.pop()
        if current in seen or current not in known:
            continue
        seen.add(current)
        stack.extend(definition.dependencies.get(current, ()))
    return seen


def find_cycles(definition: WorkflowDefinition) -> list[tuple[int, list[str]]]:
    """Each cycle once, as (index of its earliest step, ["a", "b", "a"]) - "a" waits for "b".

    The walk is iterative, so a long chain of steps is fine.
    """
    order: dict[str, int] = {}
    for index, step in enumerate(definition.steps):
        order.setdefault(step.id, index)
    deps = {
        step_id: [d for d in waits if d in order and d != step_id]
        for step_id, waits in definition.dependencies.items()
    }
    found: dict[tuple[str, ...], list[str]] = {}
    done: set[str] = set()
    for root in sorted(deps, key=order.__getitem__):
        if root in done:
            continue
        path, branches = [root], [iter(deps[root])]
        while branches:
            dep = next(branches[-1], None)
            if dep is None:
                done.add(path.pop())
                branches.pop()
            elif dep in path:
                cycle = path[path.index(dep) :]
                first = min(range(len(cycle)), key=lambda i: order[cycle[i]])
                ring = cycle[first:] + cycle[:first]
                found.setdefault(tuple(ring), [*ring, ring[0]])
            elif dep not in done:
                path.append(dep)
                branches.append(iter(deps[dep]))
    return [(order[ring[0]], cycle) for ring, cycle in found.items()]
