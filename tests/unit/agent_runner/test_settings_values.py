"""The agent-runner's settings as a compose file gives them (found by a review): an empty
`BATON_AGENT_MODEL=` stopped the start while an empty `BATON_OPENAI_BASE_URL` was unset; a
refused value was not quoted; and a bad row of `BATON_MODEL_PRICES` was not named."""

from __future__ import annotations

import pytest

from baton_agent_runner.entrypoints.main import main
from baton_agent_runner.settings import SHIPPED_PRICES, AgentRunnerSettings
from baton_messaging.setting_problems import setting_problem


@pytest.mark.parametrize(
    ("variable", "field", "default"),
    [
        ("BATON_AGENT_MODEL", "agent_model", None),
        ("BATON_OPENAI_BASE_URL", "openai_base_url", None),
        ("BATON_MODEL_PRICES", "model_prices", SHIPPED_PRICES),
        ("BATON_TASK_CONCURRENCY", "task_concurrency", 128),
        ("BATON_EMBEDDER", "embedder", "hash"),
        ("BATON_OPENAI_API_KEY", "openai_api_key", "not-needed"),
        ("BATON_LOG_LEVEL", "log_level", "INFO"),
    ],
)
def test_an_empty_variable_is_unset(
    monkeypatch: pytest.MonkeyPatch, variable: str, field: str, default: object
) -> None:
    monkeypatch.setenv(variable, "")
    assert getattr(AgentRunnerSettings(), field) == default


@pytest.mark.parametrize(
    "variable",
    [
        "BATON_DATABASE_URL",
        "BATON_QDRANT_URL",
        "BATON_QDRANT_PATH",
        "BATON_AGENT_PROFILES_DIR",
        "BATON_DATA_DIR",
    ],
)
def test_an_empty_variable_saying_where_data_lives_is_refused_not_unset(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], variable: str
) -> None:
    # Read as unset, an empty BATON_DATABASE_URL or BATON_QDRANT_URL put every fact and inbox
    # item in a local file, lost with the container; an empty folder read as the current one.
    monkeypatch.setenv(variable, "")
    assert _refusal(monkeypatch, capsys) == (
        f"agent-runner: invalid settings: {variable}: is set but empty: it says where data "
        "lives, so empty is not read as unset; give a value, or unset the variable for the "
        "default (got '')"
    )


def test_an_empty_nats_url_is_refused_as_in_every_service(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("BATON_NATS_URL", "")
    assert "BATON_NATS_URL: must be a NATS URL such as" in _refusal(monkeypatch, capsys)


def _refusal(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as ended:
        main()
    assert ended.value.code == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    return line


@pytest.mark.parametrize(
    ("variable", "value", "said"),
    [
        (
            "BATON_AGENT_MODEL",
            "gpt 4",
            "BATON_AGENT_MODEL: a model is 'scripted' or 'openai:<model>' (openai:gpt-4o-mini), "
            "with no spaces (got 'gpt 4')",
        ),
        (
            "BATON_TASK_CONCURRENCY",
            "x" * 200,
            "BATON_TASK_CONCURRENCY: Input should be a valid integer, unable to parse string as "
            "an integer (got '" + "x" * 76 + "...)",
        ),
        (
            "BATON_MODEL_PRICES",
            '{"gpt-4.1": {"input_usd_per_1k": "cheap", "output_usd_per_1k": 1}}',
            'BATON_MODEL_PRICES, row "gpt-4.1", field input_usd_per_1k: Input should be a valid '
            "number, unable to parse string as a number (got 'cheap')",
        ),
        (
            "BATON_MODEL_PRICES",
            '{"gpt-4o": {"input_usd_per_1k": -1}}',
            'BATON_MODEL_PRICES, row "gpt-4o", field input_usd_per_1k: Input should be greater '
            'than or equal to 0 (got -1); BATON_MODEL_PRICES, row "gpt-4o", field '
            "output_usd_per_1k: missing",
        ),
        (
            "BATON_MODEL_PRICES",
            '{"gpt-4o": 5}',
            'BATON_MODEL_PRICES, row "gpt-4o": Input should be a valid dictionary or instance of '
            "ModelPrice (got 5)",
        ),
    ],
)
def test_a_refused_value_is_quoted_and_a_bad_price_row_named(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    variable: str,
    value: str,
    said: str,
) -> None:
    monkeypatch.setenv(variable, value)
    assert _refusal(monkeypatch, capsys) == f"agent-runner: invalid settings: {said}"


def test_a_password_in_a_url_is_never_quoted(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("BATON_OPENAI_BASE_URL", "http://me:hunter2@[::1/v1")
    monkeypatch.setenv("BATON_TASK_CONCURRENCY", "0")
    line = _refusal(monkeypatch, capsys)
    assert "hunter2" not in line
    assert "'http://***@[::1/v1'" in line
    assert "BATON_TASK_CONCURRENCY: Input should be greater than or equal to 1 (got '0')" in line


def test_a_secret_variable_is_never_quoted() -> None:
    error = {"loc": ("openai_api_key",), "type": "string_too_short", "msg": "too short"}
    assert setting_problem({**error, "input": "sk-live-123"}) == "BATON_OPENAI_API_KEY: too short"
