"""A request that reached no replica says, at the gateway, which service is not running."""

from __future__ import annotations

import pytest

from baton_contracts import ErrorBody, ErrorCode
from baton_notifier.domain.errors import from_remote


@pytest.mark.parametrize(
    ("subject", "service"),
    [("workflow.cmd.start", "the workflow service"), ("agent.query.inbox", "the agent-runner"),
     ("trigger.query.health", "the trigger service"), ("billing.cmd.pay", "the billing service")],
)  # fmt: skip
def test_no_responders_names_the_service_not_running(subject: str, service: str) -> None:
    # The bare "no responders on 'workflow.cmd.start'" told a user neither why nor whether
    # anything was done (the workflow service restarting, found by killing it under load).
    error = from_remote(
        ErrorBody(code=ErrorCode.UNAVAILABLE, message=f"no responders on {subject!r}")
    )
    assert error.status == 503
    assert error.body.error.message == (
        f"no responders on {subject!r}: {service} is not running, or is restarting; nothing "
        "was done: try again shortly"
    )


@pytest.mark.parametrize(
    "message",
    ["the greeter agent could not answer (no responders on 'agent.cmd.run'); nothing was "
     "recorded", "no reply on 'workflow.cmd.signal' within 5s"],
)  # fmt: skip
def test_other_unavailable_messages_pass_as_they_came(message: str) -> None:
    # A message that already says what it means (a turn's, a timeout's) is not added to.
    error = from_remote(ErrorBody(code=ErrorCode.UNAVAILABLE, message=message))
    assert error.body.error.message == message
