"""`BATON_NATS_URL` is checked when a service reads its settings (found by a review of the
settings): an empty one or a bad port failed inside the first connect with a traceback, and
one with another scheme or none was taken for a host name and retried for ever."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from baton_agent_runner.entrypoints.main import main as agent_runner_main
from baton_messaging.nats_url import check_nats_url
from baton_notifier.entrypoints.main import main as notifier_main
from baton_workflow.entrypoints.main import main as workflow_main


@pytest.mark.parametrize(
    "value",
    [
        "nats://127.0.0.1:4222",
        "nats://nats",
        "tls://user:pass@nats.example:4443",
        "ws://127.0.0.1:8222",
        "nats://a:4222, nats://b:4222",
        "nats://[::1]:4222",
    ],
)
def test_urls_nats_connects_to_are_taken(value: str) -> None:
    assert check_nats_url(value) == value


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("", "must be a NATS URL such as nats://127.0.0.1:4222, got nothing"),
        ("garbage", "'garbage': the scheme must be one of nats, tls, ws, wss"),
        ("http://127.0.0.1:4222", "'http://127.0.0.1:4222': the scheme must be one of"),
        ("nats://:4222", "'nats://:4222': no host"),
        ("nats://127.0.0.1:99999", "'nats://127.0.0.1:99999': the port must be a number from 1"),
        ("nats://127.0.0.1:0", "'nats://127.0.0.1:0': the port must be a number from 1"),
        ("nats://127.0.0.1:x", "'nats://127.0.0.1:x': the port must be a number from 1"),
        ("nats://a:4222,,nats://b", "an empty URL in the comma-separated list"),
    ],
)
def test_other_values_are_refused_saying_why(value: str, problem: str) -> None:
    with pytest.raises(ValueError) as refused:
        check_nats_url(value)
    assert str(refused.value).startswith(problem), refused.value


def _exit_code(main: Callable[[], int | None]) -> int | None:
    try:
        return main()
    except SystemExit as ended:
        return ended.code  # type: ignore[return-value]


@pytest.mark.parametrize(
    ("main", "name"),
    [
        (workflow_main, "workflow: invalid settings"),
        (agent_runner_main, "agent-runner: invalid settings"),
        (notifier_main, "baton-notifier: invalid settings"),
    ],
)
@pytest.mark.parametrize("value", ["", "http://127.0.0.1:4222", "nats://127.0.0.1:99999"])
def test_every_service_stops_with_one_line_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    main: Callable[[], int | None],
    name: str,
    value: str,
) -> None:
    monkeypatch.setenv("BATON_JWT_SECRET", "s" * 32)
    monkeypatch.setenv("BATON_NATS_URL", value)
    assert _exit_code(main) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(f"{name}: BATON_NATS_URL: "), line
