"""Where workflow events are in JetStream: their stream, their subjects, one user's filters."""

from __future__ import annotations

from baton_contracts import STREAMS, StreamSpec, stream_name
from baton_contracts.workflow import WORKFLOW_EVENTS
from baton_notifier.domain.live import subject_safe


def _events_layout() -> tuple[StreamSpec, str]:
    subjects = {model.subject for model in WORKFLOW_EVENTS}
    prefixes = {(s.owner, s.kind.value) for s in subjects}
    # Replay filters put the user and the instance at fixed tokens: contracts must agree.
    # A step's start names its agent after them: at most one more token (`user_subjects`).
    assert len(prefixes) == 1 and {s.keys[:2] for s in subjects} == {("user_id", "instance_id")}
    assert all(len(s.keys) <= 3 for s in subjects)
    owner, kind = prefixes.pop()
    stream = next(s for s in STREAMS if s.name == stream_name(owner, kind))
    return stream, f"{owner}.{kind}"


EVENTS_STREAM, EVENTS_PREFIX = _events_layout()
ALL_EVENTS = f"{EVENTS_PREFIX}.>"


def user_subjects(user_id: str, instance_id: str | None) -> list[str]:
    """The filters for one user's events (one instance's); none when no subject could match.

    Events end with the user and the instance, or with one more token after them (the agent
    of a step that starts): one user's are `<user>.>`; one instance's take two filters.
    """
    if not subject_safe(user_id) or (instance_id is not None and not subject_safe(instance_id)):
        return []
    if instance_id is None:
        return [f"{EVENTS_PREFIX}.*.{user_id}.>"]
    return [
        f"{EVENTS_PREFIX}.*.{user_id}.{instance_id}",
        f"{EVENTS_PREFIX}.*.{user_id}.{instance_id}.*",
    ]
