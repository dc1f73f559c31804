"""What a failed turn's caller is told: which store or the model, in one short line, never a
driver's or a model's own text (which may quote the user's data or the prompt)."""

from __future__ import annotations

import sqlite3

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


def full(store: str) -> StoreUnavailable:
    """A store's outage as the SQL and memory adapters raise it on a full disk."""
    error = StoreUnavailable(f"{store}: OperationalError: database or disk is full", store)
    error.__cause__ = sqlite3.OperationalError("database or disk is full")
    return error


def test_a_store_on_a_full_disk_is_named_full_not_only_unavailable() -> None:
    # Waiting does not help a full disk, freeing space does: the caller is told which.
    assert store_failed(full("replies")) == (
        "the agent-runner's own database is full (no space left on its disk)"
    )
    assert store_failed(full("memory")) == "the agent's memory is full (no space left on its disk)"
