"""What a failed turn's caller is told: which store or the model, in one short line, never a
driver's or a model's own text (which may quote the user's data or the prompt)."""

from __future__ import annotations

from pydantic_ai.exceptions import AgentRunError, ModelHTTPError

from baton_agent_runner.adapters.models import _reason
from baton_agent_runner.service.ports import ModelUnavailable, StoreUnavailable
from baton_agent_runner.service.turn_failures import (
    REASON_CHARS,
    SOME_STORE,
    model_failed,
    model_timed_out,
    store_failed,
)


def test_an_http_error_is_told_by_its_status_not_its_body() -> None:
    error = ModelHTTPError(503, "gpt-x", body={"prompt": "my secret"})
    assert _reason(error) == "HTTP 503 from gpt-x"


def test_another_model_error_is_told_by_its_kind_and_first_line() -> None:
    assert _reason(AgentRunError("no answer\nTraceback ...")) == "AgentRunError: no answer"


def test_a_long_reason_is_one_line_cut_to_its_limit() -> None:
    said = model_failed(ModelUnavailable("log text", "upstream\nsaid " + "x" * 500))
    reason = said.removeprefix("its model is unavailable: ")
    assert "\n" not in said and reason.startswith("upstream said x")
    assert len(reason) == REASON_CHARS and reason.endswith("…")


def test_a_model_failure_without_a_reason_says_only_that() -> None:
    assert model_failed(ModelUnavailable("log text")) == "its model is unavailable"
    assert model_timed_out(2.25) == "its model did not answer within 2.2s"


def test_a_store_is_named_down_or_silent_and_an_unknown_one_as_any_of_them() -> None:
    assert store_failed(StoreUnavailable("x", "memory fact lock")) == (
        "the agent's memory is unavailable"
    )
    assert store_failed(StoreUnavailable("x", "inbox", 4.0)) == (
        "the agent's inbox did not answer within 4s"
    )
    assert store_failed(StoreUnavailable("x")) == f"{SOME_STORE} is unavailable"
