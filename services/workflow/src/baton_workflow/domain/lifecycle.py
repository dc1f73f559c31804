"""Which status changes are legal; checked by `decide`, free of I/O callbacks."""

from __future__ import annotations

from functools import cache

from statemachine import State, StateMachine
from statemachine.exceptions import TransitionNotAllowed


class InstanceLifecycle(StateMachine):
    """An instance is active until its final step closes; nothing leaves `completed`."""

    active = State(initial=True)
    completed = State(final=True)

    complete = active.to(completed)
    touch = active.to(active)


@cache
def allowed(status: str, event: str) -> bool:
    """Whether `event` may happen in `status`, asked of the machine once per pair (building a
    machine costs about a millisecond, too much for every decision)."""
    try:
        InstanceLifecycle(start_value=status).send(event)
    except TransitionNotAllowed:
        return False
    return True
