"""Which status changes are legal; checked by `decide`, free of I/O callbacks."""

from __future__ import annotations

from statemachine import State, StateMachine


class InstanceLifecycle(StateMachine):
    """An instance is active until its final step closes; nothing leaves `completed`."""

    active = State(initial=True)
    completed = State(final=True)

    complete = active.to(completed)
    touch = active.to(active)
