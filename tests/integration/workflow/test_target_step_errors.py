"""A signal's `target_step` that the workflow cannot go to is refused naming the field once,
as the request named it."""

from __future__ import annotations

from typing import Any

from .test_step_data_keys import _instance, _signal, _started


async def test_an_unknown_target_step_is_refused_in_the_requests_words(gateway: Any) -> None:
    # The detail read "signal.target_step: workflow 'onboarding' has no step 'nowhere'": the
    # workflow service's name for the field, inside a detail already naming `body.target_step`.
    instance = await _started(gateway, "targets")
    before = await _instance(gateway, "targets", instance)
    body = {"action": "complete_step", "target_step": "nowhere"}
    refused = await _signal(gateway, "targets", instance, body)
    assert refused.status_code == 422, refused.text
    error = refused.json()["error"]
    problem = "workflow 'onboarding' has no step 'nowhere'"
    assert error["message"] == f"body.target_step: {problem}"
    assert error["details"] == [{"field": "body.target_step", "message": problem}]
    assert await _instance(gateway, "targets", instance) == before
