"""`BATON_OPENAI_BASE_URL` is checked at start (found by a review of the model path): one with
no scheme (`localhost:11434/v1`, a common Ollama mistake) failed every turn as `unavailable`
without naming the URL, and a malformed one every turn as `internal`."""

from __future__ import annotations

import pytest

from baton_agent_runner.entrypoints.main import main
from baton_agent_runner.settings import AgentRunnerSettings

VARIABLE = "BATON_OPENAI_BASE_URL"


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("localhost:11434/v1", "must be an http:// or https:// URL with a host"),
        ("ftp://models.example/v1", "must be an http:// or https:// URL with a host"),
        ("http://[::1/v1", "not a URL"),
        ("http://127.0.0.1:99999/v1", "not a URL"),
    ],
)
def test_a_base_url_that_is_no_http_url_stops_the_service_naming_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], value: str, said: str
) -> None:
    monkeypatch.setenv(VARIABLE, value)
    with pytest.raises(SystemExit) as ended:
        main()
    assert ended.value.code == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(f"agent-runner: invalid settings: {VARIABLE}: {said}"), line


@pytest.mark.parametrize(
    ("value", "kept"),
    [
        ("", None),  # `${VAR:-}` in a compose file: OpenAI's own endpoint, as when unset
        ("http://127.0.0.1:11434/v1", "http://127.0.0.1:11434/v1"),
        ("https://api.example.com/v1", "https://api.example.com/v1"),
    ],
)
def test_an_http_url_or_nothing_is_taken(
    monkeypatch: pytest.MonkeyPatch, value: str, kept: str | None
) -> None:
    monkeypatch.setenv(VARIABLE, value)
    assert AgentRunnerSettings().openai_base_url == kept
