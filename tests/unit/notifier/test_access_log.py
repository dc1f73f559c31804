"""The gateway's own lines (uvicorn's access and error logs) are written as every service's:
time, level, logger and message, one line each, the token still hidden."""

from __future__ import annotations

import re
import subprocess
import sys

SCRIPT = """
import logging
from fastapi import FastAPI
from baton_messaging.log_lines import configure_logging
from baton_notifier.entrypoints.main import server_config
from baton_notifier.entrypoints.server import GatewayServer
from baton_notifier.settings import NotifierSettings

configure_logging("INFO")
settings = NotifierSettings(jwt_secret="unit-test-secret-that-is-32-bytes!")
GatewayServer(server_config(FastAPI(), settings), lambda within: None)
logging.getLogger("uvicorn.access").info(
    '%s - "%s %s HTTP/%s" %d', "127.0.0.1:5", "GET", "/api/events?token=abc.def", "1.1", 200
)
"""


def test_an_access_line_has_the_time_and_the_level_and_no_token() -> None:
    # uvicorn's own logging configuration wrote `INFO:     127.0.0.1:5 - "GET ..."`: no time,
    # so no gateway request or error could be placed beside the other services' lines.
    run = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    [line] = run.stderr.splitlines()
    assert re.fullmatch(
        r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} INFO uvicorn\.access: "
        r'127\.0\.0\.1:5 - "GET /api/events\?token=\*\*\* HTTP/1\.1" 200',
        line,
    ), line
