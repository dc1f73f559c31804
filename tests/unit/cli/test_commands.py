from __future__ import annotations

import fcntl
import os
import signal
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from baton_auth import verify_token
from baton_cli.errors import CliError
from baton_cli.main import app
from baton_cli.processes import process_start
from baton_cli.restarts import RestartPolicy
from baton_cli.state import (
    UpState,
    holding_data_dir,
    publish_state,
    read_state,
    remove_state,
    write_state,
)
from baton_cli.tokens import parse_ttl
from baton_cli.up import stop_signals

runner = CliRunner()
SECRET = "k" * 40


@pytest.mark.parametrize(
    ("text", "ttl"),
    [("90s", timedelta(seconds=90)), ("30m", timedelta(minutes=30)), ("12h", timedelta(hours=12)),
     ("7d", timedelta(days=7))],
)  # fmt: skip
def test_ttl_parses_units(text: str, ttl: timedelta) -> None:
    assert parse_ttl(text) == ttl


@pytest.mark.parametrize("text", ["12", "h", "1.5h", "-1h", "3w", ""])
def test_a_bad_ttl_is_an_error_naming_the_option(text: str) -> None:
    with pytest.raises(CliError, match="--ttl: expected a duration"):
        parse_ttl(text)


def test_zero_ttl_is_refused() -> None:
    with pytest.raises(CliError, match="--ttl: must be longer than zero"):
        parse_ttl("0h")


def test_token_is_signed_with_the_data_dirs_secret(tmp_path: Path) -> None:
    (tmp_path / "jwt-secret").write_text(SECRET + "\n")
    args = ["token", "--user", "alice", "--project", "p1", "--data-dir", str(tmp_path)]
    result = runner.invoke(app, args, env={"BATON_JWT_SECRET": ""})
    assert result.exit_code == 0, result.output
    identity = verify_token(SECRET, result.stdout.strip())
    assert (identity.user_id, identity.project_id) == ("alice", "p1")


def test_token_prefers_the_env_secret(tmp_path: Path) -> None:
    other = "e" * 40
    result = runner.invoke(
        app,
        ["token", "--user", "bob", "--data-dir", str(tmp_path)],
        env={"BATON_JWT_SECRET": other},
    )
    assert verify_token(other, result.stdout.strip()).user_id == "bob"


def test_token_without_any_secret_says_run_baton_up(tmp_path: Path) -> None:
    result = runner.invoke(
        app, ["token", "--user", "a", "--data-dir", str(tmp_path)], env={"BATON_JWT_SECRET": ""}
    )
    assert result.exit_code == 1
    assert "run 'baton up' first or set BATON_JWT_SECRET" in result.stderr


def test_token_refuses_a_user_id_with_a_space(tmp_path: Path) -> None:
    (tmp_path / "jwt-secret").write_text(SECRET + "\n")
    args = ["token", "--user", "a b", "--data-dir", str(tmp_path)]
    result = runner.invoke(app, args, env={"BATON_JWT_SECRET": ""})
    assert result.exit_code != 0 and result.stdout == ""
    assert "--user: must not contain spaces" in result.stderr


@pytest.mark.parametrize(
    ("option", "said"),
    [
        (["--ttl", "abc"], "error: --ttl: expected a duration like 30m, 12h or 7d, got 'abc'"),
        (["--ttl", "0h"], "error: --ttl: must be longer than zero"),
        (["--user", "a.b"], "error: --user: must not contain spaces, control or unprintable"),
        # A decomposed look-alike of `ren\u00e9` would have been a second user of that name.
        (
            ["--user", "rene\u0301"],
            "error: --user: must be in Unicode normal form C (NFC): it has letters spelled as a "
            "base and a separate combining mark, which look like another user's id; use the "
            "NFC form 'ren\\xe9', got 'rene\\u0301'",
        ),
        (
            ["--project", "a.b"],
            "error: --project: is not a project id (a project id is 1 to 64 letters, digits, "
            "'-' or '_'), got 'a.b'",
        ),
    ],
)
def test_a_bad_option_of_token_is_a_usage_error(
    tmp_path: Path, option: list[str], said: str
) -> None:
    # They exited 1, as a failure does, where a usage error exits 2 (found by a probe of the
    # CLI). A `--user` is used as written: `a.b` is refused, not made `a-b`.
    (tmp_path / "jwt-secret").write_text(SECRET + "\n")
    args = ["token", "--user", "alice", *option, "--data-dir", str(tmp_path)]
    result = runner.invoke(app, args, env={"BATON_JWT_SECRET": ""})
    assert result.exit_code == 2, result.output
    assert result.stdout == "" and said in result.stderr


def test_a_user_too_long_is_named_by_its_length_not_quoted_back(tmp_path: Path) -> None:
    # It read "--user: must have at most 128 characters, got 200, got 'xxxx...'" (found by a
    # probe of the CLI): "got" twice, and the whole name on the line.
    (tmp_path / "jwt-secret").write_text(SECRET + "\n")
    args = ["token", "--user", "x" * 200, "--data-dir", str(tmp_path)]
    result = runner.invoke(app, args, env={"BATON_JWT_SECRET": ""})
    assert result.exit_code == 2, result.output
    assert result.stderr.strip() == "error: --user: must have at most 128 characters, got 200"


def test_token_needs_a_user() -> None:
    result = runner.invoke(app, ["token"])
    assert result.exit_code == 2 and "--user" in result.stderr


def test_up_rejects_a_port_that_is_not_a_number() -> None:
    result = runner.invoke(app, ["up", "--port", "http"])
    assert result.exit_code == 2 and "--port" in result.stderr


@pytest.mark.parametrize(
    ("option", "said"),
    [
        (["--port", "-1"], "error: --port: -1 is not a TCP port (1-65535)"),
        (["--nats-port", "70000"], "error: --nats-port: 70000 is not a TCP port (1-65535)"),
        (["--log-max-mb", "0"], "error: --log-max-mb: must be a finite number above 0"),
        (["--host", "192.0.2.1"], "error: --host: cannot listen on 192.0.2.1"),  # TEST-NET-1
        # Each service refused these itself, once the data dir and NATS were set up.
        (["--log-level", "bogus"], "error: --log-level: unknown level 'bogus' (DEBUG, INFO,"),
        (["--log-level", "warn"], "error: --log-level: unknown level 'warn'"),
        (["--start-timeout", "0"], "error: --start-timeout: must be a finite number of seconds"),
        (["--start-timeout", "-5"], "error: --start-timeout: must be a finite number of seconds"),
        (["--start-timeout", "nan"], "error: --start-timeout: must be a finite number of seconds"),
    ],
)
def test_up_refuses_a_bad_option_before_creating_anything(
    tmp_path: Path, option: list[str], said: str
) -> None:
    # `--port -1` was refused only after the new data dir and its jwt-secret were made
    # (found by a probe of the CLI).
    data_dir = tmp_path / "new"
    result = runner.invoke(app, ["up", "--data-dir", str(data_dir), *option])
    assert result.exit_code == 2, result.output  # a usage error, as the parser's own
    assert result.stderr.startswith(said), result.stderr
    assert not data_dir.exists()


def test_up_refuses_a_bad_liveness_timeout_before_creating_anything(tmp_path: Path) -> None:
    data_dir = tmp_path / "new"
    env = {"BATON_LIVENESS_TIMEOUT_SECONDS": "-1"}
    result = runner.invoke(app, ["up", "--data-dir", str(data_dir)], env=env)
    assert result.exit_code == 2, result.output
    assert result.stderr == (
        "error: BATON_LIVENESS_TIMEOUT_SECONDS: must be a finite number of seconds above 0"
        " (or 0 to turn the liveness watch off), got '-1'\n"
    )
    assert not data_dir.exists()


def test_up_rejects_nats_port_with_nats_url(tmp_path: Path) -> None:
    args = ["up", "--data-dir", str(tmp_path), "--nats-url", "nats://x:1", "--nats-port", "5"]
    result = runner.invoke(app, args)
    assert result.exit_code == 2 and "--nats-port: cannot be used with --nats-url" in result.stderr


@pytest.mark.parametrize(
    ("url", "said", "code"),
    [
        ("foo", "--nats-url: 'foo': the scheme must be one of nats, tls, ws, wss", 2),
        ("nats://127.0.0.1:99999", "--nats-url: 'nats://127.0.0.1:99999': the port must be", 2),
        # Well-formed: no usage error, but a server that is not there, as a taken port is.
        ("nats://127.0.0.1:1", "--nats-url: cannot reach NATS at nats://127.0.0.1:1: ", 1),
    ],
)
def test_up_refuses_a_nats_url_it_cannot_use_at_once(
    tmp_path: Path, url: str, said: str, code: int
) -> None:
    # Each service waited for it until the start timeout (60 s), and `baton up` then said the
    # gateway did not become healthy, never naming NATS (found by a review of the CLI).
    result = runner.invoke(app, ["up", "--data-dir", str(tmp_path), "--nats-url", url])
    assert result.exit_code == code, result.output
    [line] = result.stderr.strip().splitlines()
    assert line.startswith(f"error: {said}"), line
    assert not (tmp_path / "baton-up.json").exists()


@pytest.mark.parametrize(
    ("content", "said"),
    [
        ('{"pid": "twelve", "gateway_url": "u", "nats_url": "n"}', "pid: Input should be"),
        ('{"pid": 12, "gateway_url": "u", "nats_url": "n", "services": []}', "services: Input"),
        ('{"pid": 12}', "gateway_url: Field required"),
        ("[1, 2]", "the file: Input should be"),
        ("{", "the file: Invalid JSON"),
    ],
)
def test_status_of_a_state_file_edited_by_hand_is_one_error_line(
    tmp_path: Path, content: str, said: str
) -> None:
    # Wrong types got past the constructor and failed later with a traceback (found by a
    # review of the CLI).
    (tmp_path / "baton-up.json").write_text(content)
    result = runner.invoke(app, ["status", "--data-dir", str(tmp_path)])
    assert result.exit_code == 1, result.output
    [line] = result.stderr.strip().splitlines()
    assert line.startswith("error: ") and "is not a baton-up state file: " + said in line, line


def test_a_state_file_that_cannot_be_written_while_running_is_said_not_raised(
    tmp_path: Path,
) -> None:
    """Seen with the data dir made unwritable for 8 s: a service crashed, its restart
    rewrote baton-up.json, and the PermissionError escaped `baton up` with a traceback,
    stopping every service. A restart must not be undone by the state file."""
    old = UpState(pid=1, gateway_url="http://h:1", nats_url="nats://h:2", services={"a": 3})
    write_state(tmp_path, old)
    (tmp_path / "baton-up.json.tmp").mkdir()  # the write fails with an OSError
    said: list[str] = []
    new = UpState(pid=1, gateway_url="http://h:1", nats_url="nats://h:2", services={"a": 4})
    assert publish_state(tmp_path, new, said.append) is False
    assert len(said) == 1 and said[0].startswith(f"could not write {tmp_path / 'baton-up.json'}")
    assert read_state(tmp_path) == old
    (tmp_path / "baton-up.json.tmp").rmdir()
    assert publish_state(tmp_path, new, said.append) is True and read_state(tmp_path) == new


def test_status_without_a_running_baton_fails(tmp_path: Path) -> None:
    result = runner.invoke(app, ["status", "--data-dir", str(tmp_path)])
    assert result.exit_code == 1 and "Baton is not running" in result.stderr


def test_state_round_trips_and_is_removed(tmp_path: Path) -> None:
    state = UpState(pid=1, gateway_url="http://h:1", nats_url="nats://h:2", services={"a": 3})
    write_state(tmp_path, state)
    assert read_state(tmp_path) == state
    remove_state(tmp_path)
    with pytest.raises(CliError, match="Baton is not running"):
        read_state(tmp_path)


def test_restart_backoff_doubles_up_to_a_ceiling() -> None:
    policy = RestartPolicy(first_delay=0.5, max_delay=3.0)
    assert [policy.delay(n) for n in range(1, 6)] == [0.5, 1.0, 2.0, 3.0, 3.0]


@pytest.mark.parametrize(
    ("env", "kill_after"),
    [({}, 15.0), ({"BATON_STOP_GRACE_SECONDS": "30"}, 35.0),
     ({"BATON_STOP_GRACE_SECONDS": "0"}, 5.0), ({"BATON_STOP_GRACE_SECONDS": "soon"}, 15.0)],
)  # fmt: skip
def test_baton_up_kills_a_service_only_after_its_own_stop_grace(
    env: dict[str, str], kill_after: float
) -> None:
    policy = RestartPolicy.for_services(env, start_timeout=7.0)
    assert (policy.stop_grace, policy.start_timeout) == (kill_after, 7.0)


@pytest.mark.parametrize("text", ["3651d", "9999999d", "99999999999d"])
def test_a_ttl_past_ten_years_is_refused_naming_the_option(text: str) -> None:
    with pytest.raises(CliError, match=r"--ttl: at most 3650d"):
        parse_ttl(text)


def test_a_closed_terminal_stops_baton_up_unless_it_runs_under_nohup() -> None:
    previous = signal.signal(signal.SIGHUP, signal.SIG_DFL)
    try:
        assert signal.SIGHUP in stop_signals()
        signal.signal(signal.SIGHUP, signal.SIG_IGN)  # what `nohup baton up` hands it
        assert stop_signals() == [signal.SIGINT, signal.SIGTERM]
    finally:
        signal.signal(signal.SIGHUP, previous)


def test_status_does_not_take_a_reused_pid_for_baton_up(tmp_path: Path) -> None:
    # The recorded pid runs (this test's own process), but it started at another time than
    # the one recorded: the `baton up` that wrote the file is gone and its pid was reused.
    me = os.getpid()
    started = process_start(me)
    assert started is not None
    state = UpState(pid=me, gateway_url="http://127.0.0.1:1", nats_url="nats://h:2",
                    started={str(me): started + 1})  # fmt: skip
    write_state(tmp_path, state)
    result = runner.invoke(app, ["status", "--data-dir", str(tmp_path)])
    assert result.exit_code == 1
    assert f"'baton up' (pid {me}) has exited" in result.stderr
    # With the start time it recorded, the same pid is still that process.
    write_state(tmp_path, replace(state, started={str(me): started}))
    result = runner.invoke(app, ["status", "--data-dir", str(tmp_path)])
    assert "has exited" not in result.stderr and "gateway" in result.stderr


def test_up_refuses_a_data_dir_another_baton_up_holds(tmp_path: Path) -> None:
    # Another `baton up` starting on it holds the lock before it has written any state file.
    fd = os.open(tmp_path / "baton-up.lock", os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    try:
        result = runner.invoke(app, ["up", "--data-dir", str(tmp_path)])
    finally:
        os.close(fd)
    assert result.exit_code == 1
    assert "is in use by another baton up (starting or running)" in result.stderr
    assert not (tmp_path / "jwt-secret").exists()  # refused before anything was set up


def test_the_data_dir_lock_ends_with_its_holder(tmp_path: Path) -> None:
    with (
        holding_data_dir(tmp_path),
        pytest.raises(CliError, match="in use"),
        holding_data_dir(tmp_path),
    ):
        pass
    with holding_data_dir(tmp_path):  # released: free again
        pass
