"""A command_id names one command: a retry repeats it, another command reusing it is refused.

Answering the reuse with the first command's outcome would drop the second one unseen: a
person's signal sent with the id of an earlier exchange was never applied, yet got a reply.
"""

from __future__ import annotations

import pytest
from nats.aio.client import Client

from baton_contracts import ErrorCode, RemoteError
from baton_contracts.workflow_api import (
    GetInstance,
    RecordExchange,
    SignalWorkflow,
    StartWorkflow,
    WorkflowSignal,
)
from baton_workflow.bootstrap import WorkflowApp

from .conftest import ask

COMPLETE = WorkflowSignal(action="complete_step")


async def _start(client: Client, user: str) -> str:
    reply = await ask(client, StartWorkflow(user_id=user, workflow_id="onboarding"))
    return str(reply.instance.instance_id)


async def _where(client: Client, user: str, instance: str) -> tuple[str, int]:
    view = await ask(client, GetInstance(user_id=user, instance_id=instance))
    return view.current_step, view.messages_in_step


async def test_a_signal_reusing_an_exchanges_command_id_is_refused(
    workflow: WorkflowApp, client: Client
) -> None:
    instance = await _start(client, "ines")
    for n in range(2):
        await ask(client, RecordExchange(user_id="ines", instance_id=instance, command_id=f"e{n}"))
    with pytest.raises(RemoteError) as refused:
        await ask(
            client,
            SignalWorkflow(user_id="ines", instance_id=instance, command_id="e1", signal=COMPLETE),
        )
    assert refused.value.code == ErrorCode.CONFLICT
    assert "command_id 'e1' was already used for a different command" in str(refused.value)
    assert await _where(client, "ines", instance) == ("greeting", 2)


async def test_an_exchange_reusing_a_signals_command_id_is_refused(
    workflow: WorkflowApp, client: Client
) -> None:
    instance = await _start(client, "omar")
    stay = WorkflowSignal(action="stay")
    await ask(
        client, SignalWorkflow(user_id="omar", instance_id=instance, command_id="s", signal=stay)
    )
    with pytest.raises(RemoteError, match="already used for a different command"):
        await ask(client, RecordExchange(user_id="omar", instance_id=instance, command_id="s"))
    assert await _where(client, "omar", instance) == ("greeting", 0)


async def test_a_different_signal_under_a_used_command_id_is_refused(
    workflow: WorkflowApp, client: Client
) -> None:
    instance = await _start(client, "pia")
    first = WorkflowSignal(action="stay", data={"note": "one"})
    await ask(
        client, SignalWorkflow(user_id="pia", instance_id=instance, command_id="s", signal=first)
    )
    other = WorkflowSignal(action="stay", data={"note": "two"})
    with pytest.raises(RemoteError, match="already used for a different command"):
        await ask(
            client,
            SignalWorkflow(user_id="pia", instance_id=instance, command_id="s", signal=other),
        )
    view = await ask(client, GetInstance(user_id="pia", instance_id=instance))
    assert view.context["step_data"]["greeting"]["note"] == "one"


async def test_a_retried_command_gets_its_first_answer(
    workflow: WorkflowApp, client: Client
) -> None:
    instance = await _start(client, "quin")
    await ask(client, RecordExchange(user_id="quin", instance_id=instance, command_id="e"))
    again = await ask(client, RecordExchange(user_id="quin", instance_id=instance, command_id="e"))
    assert again.outcome == "stayed"
    stay = WorkflowSignal(action="stay", data={"note": "one"})
    signal = SignalWorkflow(user_id="quin", instance_id=instance, command_id="s", signal=stay)
    first, second = await ask(client, signal), await ask(client, signal)
    assert (first.outcome, second.outcome) == ("stayed", "stayed")
    assert await _where(client, "quin", instance) == ("greeting", 1)


async def test_a_retry_answers_with_the_instance_as_its_read_row_says(
    workflow: WorkflowApp, client: Client
) -> None:
    # A retry's `instance.updated_at` was the time of the retry, a value stored nowhere: the
    # instance had not changed since the first answer.
    instance = await _start(client, "rita")
    signal = SignalWorkflow(user_id="rita", instance_id=instance, command_id="s1", signal=COMPLETE)
    first = await ask(client, signal)
    again = await ask(client, signal)
    stored = await ask(client, GetInstance(user_id="rita", instance_id=instance))
    assert again.instance.updated_at == first.instance.updated_at == stored.updated_at
    assert again.instance == stored


async def test_a_signal_reusing_an_id_with_another_target_step_is_refused(
    workflow: WorkflowApp, client: Client
) -> None:
    # The target step was no part of what a retry must repeat: a plain complete_step under
    # the id of a blocked skip was answered "blocked" from the log and never applied (found by
    # a review of the conversation rules).
    instance = await _start(client, "tia")
    for n in range(2):
        await ask(client, RecordExchange(user_id="tia", instance_id=instance, command_id=f"e{n}"))
    skip = WorkflowSignal(action="complete_step", target_step="brain_dump")
    first = await ask(
        client, SignalWorkflow(user_id="tia", instance_id=instance, command_id="s", signal=skip)
    )
    assert first.outcome == "blocked"
    again = await ask(
        client, SignalWorkflow(user_id="tia", instance_id=instance, command_id="s", signal=skip)
    )
    assert again.outcome == "blocked"  # the retry itself is answered from the log
    with pytest.raises(RemoteError) as refused:
        await ask(
            client,
            SignalWorkflow(user_id="tia", instance_id=instance, command_id="s", signal=COMPLETE),
        )
    assert refused.value.code == ErrorCode.CONFLICT
    assert "command_id 's' was already used for a different command" in str(refused.value)
    assert await _where(client, "tia", instance) == ("greeting", 2)
