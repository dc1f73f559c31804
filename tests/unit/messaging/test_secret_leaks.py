"""Credentials in BATON_NATS_URL and BATON_DATABASE_URL never reach output, the state file is
the user's alone, and text a user sent never forges a log line."""

from __future__ import annotations

import io
import logging
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from baton_cli.state import UpState, write_state
from baton_contracts import RemoteError
from baton_eventstore.unusable import shown
from baton_messaging.health import connect_once
from baton_messaging.log_lines import LOG_FORMAT, OneLineFormatter
from baton_messaging.nats_url import check_nats_url, shown_nats_url
from baton_messaging.process import waiting_for

PASSWORD = "S3cretPw"


@pytest.mark.parametrize(
    "url",
    [
        f"http://admin:{PASSWORD}@nats.internal:4222",
        f"nats://admin:{PASSWORD}@nats.internal:42x2",
        f"nats://admin:{PASSWORD}@nats.internal:0",
        f"nats://127.0.0.1:4222,,nats://admin:{PASSWORD}@b:4222",
    ],
)
def test_a_bad_nats_url_is_named_without_its_password(url: str) -> None:
    with pytest.raises(ValueError) as caught:
        check_nats_url(url)
    assert PASSWORD not in str(caught.value)
    assert "***@" in str(caught.value)


def test_shown_nats_url_hides_user_password_and_token() -> None:
    assert shown_nats_url(f"nats://a:{PASSWORD}@h:4222,tls://tok@h2:4222") == (
        "nats://***@h:4222,tls://***@h2:4222"
    )
    assert shown_nats_url("nats://127.0.0.1:4222") == "nats://127.0.0.1:4222"


async def test_an_unreachable_nats_is_named_without_its_password() -> None:
    with pytest.raises(RemoteError) as caught:
        await connect_once(f"nats://admin:{PASSWORD}@127.0.0.1:1", 0.5)
    assert PASSWORD not in caught.value.body.message


def test_a_slow_start_names_nats_without_its_password() -> None:
    needs = waiting_for(f"nats://admin:{PASSWORD}@127.0.0.1:1", "the database at sqlite:///x")
    assert needs == "NATS at nats://***@127.0.0.1:1 and the database at sqlite:///x"


def test_the_state_file_is_private(tmp_path: Path) -> None:
    write_state(tmp_path, UpState(pid=1, gateway_url="http://127.0.0.1:8080", nats_url="n"))
    path = tmp_path / "baton-up.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    path.chmod(0o644)  # written by an older version: replaced by a private file
    write_state(tmp_path, UpState(pid=1, gateway_url="http://127.0.0.1:8080", nats_url="n"))
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_database_password_given_as_a_query_parameter_is_hidden() -> None:
    url = f"postgresql+asyncpg://baton@db:5432/baton?password={PASSWORD}&ssl=require"
    assert shown(url) == "postgresql+asyncpg://baton@db:5432/baton?password=***&ssl=require"


def test_a_line_break_in_logged_user_text_cannot_forge_a_line() -> None:
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(OneLineFormatter(LOG_FORMAT))
    log = logging.getLogger("test.r4.injection")
    log.addHandler(handler)
    log.propagate = False
    reason = "user asked\n2026-11-29 11:00:00,000 CRITICAL baton.agent-runner: forged"
    log.warning("task %s: cancelled by the workflow: %s", "k", reason)
    try:
        raise ValueError("boom")
    except ValueError:
        log.exception("with a traceback")
    text = out.getvalue()
    assert text.splitlines()[0].endswith(
        "user asked\\n2026-11-29 11:00:00,000 CRITICAL baton.agent-runner: forged"
    )
    assert not any(line.startswith("2026-11-29 11:00:00,000") for line in text.splitlines())
    assert "Traceback (most recent call last):\n" in text  # a traceback keeps its lines
    # Line ends of other kinds (NEL, U+2028) and C1 sequences (a one-byte CSI) too.
    log.warning("asked: %s", "a\x85b\u2028c\u2029d\x9b2Je\x1b]0;t\x07")
    last = out.getvalue().splitlines()[-1]
    assert last.endswith("asked: a\\x85b\\u2028c\\u2029d\\x9b2Je\\x1b]0;t\\x07"), last


def test_a_service_process_logs_each_record_on_one_line() -> None:
    script = (
        "import logging; from baton_messaging.log_lines import configure_logging; "
        "configure_logging('INFO'); logging.getLogger('baton.x').warning('asked: %s', "
        "'hi\\n2026-11-29 11:00:00,000 CRITICAL baton.x: forged')"
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    [line] = run.stderr.splitlines()
    assert line.endswith(
        "WARNING baton.x: asked: hi\\n2026-11-29 11:00:00,000 CRITICAL baton.x: forged"
    )
