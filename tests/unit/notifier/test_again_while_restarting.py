"""Which requests the gateway sends again while their owner restarts (`again_for`).

A request no replica took did nothing, so any may be sent again then. One a replica took
and stopped before answering may have been done in part: only a read, or a command its owner
answers once (a key, or a repeat that finds what the first did), is sent again then."""

from __future__ import annotations

import pytest

from baton_contracts import Command, Query
from baton_contracts.dag_definitions import DeleteDagWorkflow, SaveDagWorkflow
from baton_contracts.dag_runs import CancelDagRun, GetDagRun, StartDagRun
from baton_contracts.dag_versions import RollbackDagWorkflow
from baton_contracts.workflow_api import (
    GetProgress,
    SendMessage,
    SignalWorkflow,
    StartWorkflow,
    WorkflowSignal,
)
from baton_notifier.service.forwarding import Forwarder, again_for
from baton_notifier.service.ports import Again

from .conftest import FakeRequester, ThingReply

ANSWERED_ONCE: list[Query | Command] = [
    GetProgress(user_id="u", instance_id="i"),
    GetDagRun(user_id="u", run_id="r"),
    StartWorkflow(user_id="u", workflow_id="onboarding"),
    SignalWorkflow(
        user_id="u", instance_id="i", command_id="c", signal=WorkflowSignal(action="stay")
    ),
    SendMessage(user_id="u", instance_id="i", client_message_id="m", text="hi"),
    CancelDagRun(user_id="u", run_id="r"),
    StartDagRun(user_id="u", name="wf", request_id="k-1"),
]
DONE_IN_PART_MAYBE: list[Query | Command] = [
    StartDagRun(user_id="u", name="wf"),
    SaveDagWorkflow(user_id="u", source="{}"),
    DeleteDagWorkflow(user_id="u", name="wf"),
    RollbackDagWorkflow(user_id="u", name="wf", version_id="wf@1"),
]


@pytest.mark.parametrize("message", ANSWERED_ONCE, ids=lambda m: type(m).__name__)
def test_a_read_or_a_command_answered_once_is_sent_again_after_a_replica_stopped(
    message: Query | Command,
) -> None:
    assert again_for(message) is Again.GONE


@pytest.mark.parametrize("message", DONE_IN_PART_MAYBE, ids=lambda m: type(m).__name__)
def test_any_other_command_is_sent_again_only_while_no_replica_takes_it(
    message: Query | Command,
) -> None:
    assert again_for(message) is Again.UNSENT


async def test_the_forwarder_sends_a_start_and_a_signal_to_be_sent_again() -> None:
    requester = FakeRequester()
    requester.raw = b"{}"
    requester.answer = lambda _: ThingReply(thing_id="t", user_id="u")
    forwarder = Forwarder(requester, timeout=5.0)
    await forwarder.send_json(ANSWERED_ONCE[3])  # a signal
    await forwarder.send(StartDagRun(user_id="u", name="wf"))
    assert requester.agains == [Again.GONE, Again.UNSENT]
