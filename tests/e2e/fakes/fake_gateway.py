"""A stand-in for the notifier: `GET /health` on BATON_HTTP_HOST:BATON_HTTP_PORT (or the
socket BATON_HTTP_FD names).

With a bearer token it verifies it with BATON_JWT_SECRET (401 if it does not verify), which is
how the e2e tests prove `baton token` mints what the gateway accepts. Test knobs:
FAKE_EXIT_CODE exits at once; FAKE_CRASH_FILE exits at once when that file exists;
FAKE_STOP_LOG: on SIGTERM, `notifier got SIGTERM` and `notifier exits` are appended to it.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from baton_auth import InvalidToken, verify_token

HEALTHY = {"status": "ok", "checks": {"nats": True}}
"""The notifier's `/health` body: `baton up` and `baton status` read it."""


class Health(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        if self.path != "/health":
            self._answer(404, {"error": "not found"})
            return
        header = self.headers.get("Authorization", "")
        if not header.startswith("Bearer "):
            self._answer(200, HEALTHY)
            return
        try:
            identity = verify_token(os.environ["BATON_JWT_SECRET"], header.removeprefix("Bearer "))
        except InvalidToken as exc:
            self._answer(401, {"error": str(exc)})
            return
        self._answer(200, {**HEALTHY, "user_id": identity.user_id})

    def _answer(self, status: int, body: dict[str, object]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: object) -> None:
        print(format % args, flush=True)


def main() -> None:
    if os.environ.get("FAKE_EXIT_CODE"):
        print("fake gateway: told to fail at start", flush=True)
        sys.exit(int(os.environ["FAKE_EXIT_CODE"]))
    crash_file = os.environ.get("FAKE_CRASH_FILE")
    if crash_file and Path(crash_file).exists():
        print("fake gateway: crash file exists, exiting", flush=True)
        sys.exit(7)
    address = (os.environ["BATON_HTTP_HOST"], int(os.environ["BATON_HTTP_PORT"]))
    if "BATON_HTTP_FD" in os.environ:  # the socket `baton up` listens on, as the gateway does
        server = ThreadingHTTPServer(address, Health, bind_and_activate=False)
        server.socket.close()
        server.socket = socket.socket(fileno=int(os.environ["BATON_HTTP_FD"]))
    else:
        server = ThreadingHTTPServer(address, Health)
    print(f"fake gateway listening on {address}", flush=True)
    if "FAKE_STOP_LOG" in os.environ:
        signal.signal(signal.SIGTERM, _stop_logged)
    server.serve_forever()


def _stop_logged(_signum: int, _frame: object) -> None:
    with open(os.environ["FAKE_STOP_LOG"], "a") as out:
        out.write("notifier got SIGTERM\n")
        out.flush()
        out.write("notifier exits\n")
    sys.exit(0)


if __name__ == "__main__":
    main()
