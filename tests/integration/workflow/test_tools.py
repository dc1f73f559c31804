"""Tools of `tool_call` steps (and `web-search`) against a local HTTP server on 127.0.0.1."""

from __future__ import annotations

import json
import re
import shutil
import socket
import ssl
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from baton_workflow.adapters.httpx_fetch import HttpRequest, HttpxFetcher, resolve
from baton_workflow.adapters.skills import build_skills
from baton_workflow.adapters.tools import StepToolsConfig, ToolRegistry, build_tools
from baton_workflow.service.step_ports import (
    StepActionFailed,
    StepTimedOut,
    ToolResult,
    Tools,
    UnknownTool,
)

MIB = 1024 * 1024
DOC = Path(__file__).parents[3] / "docs" / "dag-tools.md"
FIRST_PART = 64 * 1024


class FakeSite(ThreadingHTTPServer):
    """Answers by path; the slow and big answers hold until `release` (set at teardown)."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.release = threading.Event()
        self.hung_up = threading.Event()
        self.sent = 0
        self.requests: list[dict[str, Any]] = []

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"


class Handler(BaseHTTPRequestHandler):
    server: FakeSite

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self.answer()

    do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_GET

    def answer(self) -> None:
        url = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode() if length else ""
        seen = {"method": self.command, "path": url.path, "query": parse_qs(url.query)}
        seen |= {"headers": dict(self.headers.items()), "body": body}
        self.server.requests.append(seen)
        route = getattr(self, "route_" + url.path.strip("/").split("/")[0].replace("-", "_"))
        route(url.path, seen)

    def send(
        self, status: int, body: bytes, content_type: str = "text/plain; charset=utf-8"
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def route_text(self, path: str, seen: dict[str, Any]) -> None:
        self.send(200, "héllo wörld".encode())

    def route_latin1(self, path: str, seen: dict[str, Any]) -> None:
        self.send(200, "café".encode("latin-1"), "text/plain; charset=iso-8859-1")

    def route_echo(self, path: str, seen: dict[str, Any]) -> None:
        self.send(200, json.dumps(seen).encode(), "application/json")

    def route_status(self, path: str, seen: dict[str, Any]) -> None:
        self.send(int(path.rsplit("/", 1)[1]), b"no such   thing\nhere")

    def route_redirect(self, path: str, seen: dict[str, Any]) -> None:
        left = int(path.rsplit("/", 1)[1])
        self.send_response(302)
        self.send_header("Location", f"/redirect/{left - 1}" if left else "/text")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def route_to_denied(self, path: str, seen: dict[str, Any]) -> None:
        self.send_response(302)
        self.send_header("Location", "http://denied.invalid/secret")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def route_to_localhost(self, path: str, seen: dict[str, Any]) -> None:
        self.send_response(302)
        self.send_header("Location", f"http://localhost:{self.server.port}/text")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def route_slow(self, path: str, seen: dict[str, Any]) -> None:
        self.server.release.wait(10)
        self.send(200, b"late")

    def route_big_declared(self, path: str, seen: dict[str, Any]) -> None:
        self.send_response(200)
        self.send_header("Content-Length", str(MIB))
        self.end_headers()
        self.stream_big()

    def route_big_stream(self, path: str, seen: dict[str, Any]) -> None:
        self.send_response(200)  # no Content-Length: the body ends when the connection closes
        self.end_headers()
        self.stream_big()

    def stream_big(self) -> None:
        """64 KiB, then the rest only after `release`: a client reading it all would hang."""
        try:
            self.server.sent = FIRST_PART
            self.wfile.write(b"x" * FIRST_PART)
            self.wfile.flush()
            self.server.release.wait(10)
            for _ in range((MIB - FIRST_PART) // 8192):
                self.wfile.write(b"x" * 8192)
                self.server.sent += 8192
            self.wfile.flush()
        except OSError:
            self.server.hung_up.set()

    def route_search(self, path: str, seen: dict[str, Any]) -> None:
        query = seen["query"]["q"][0]
        results = [
            {"title": f"{query} {n}", "url": f"https://r.example/{n}", "content": f"about  {n}"}
            for n in range(1, 6)
        ]
        self.send(200, json.dumps({"query": query, "results": results}).encode())

    def route_search_html(self, path: str, seen: dict[str, Any]) -> None:
        self.send(200, b"<html>not json</html>", "text/html")


@pytest.fixture
def site() -> Iterator[FakeSite]:
    server = FakeSite()
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield server
    server.release.set()
    server.shutdown()
    server.server_close()


@pytest.fixture
def tools() -> ToolRegistry:
    return build_tools()


def dead_port() -> int:
    """A port on 127.0.0.1 nobody listens on: bound for a free number, then closed."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def call(tools: Tools, name: str, timeout: float = 5, **inputs: str) -> ToolResult:
    return await tools.call(name, inputs, timeout=timeout)


async def failure(tools: Tools, name: str, timeout: float = 5, **inputs: str) -> str:
    with pytest.raises(StepActionFailed) as caught:
        await tools.call(name, inputs, timeout=timeout)
    return caught.value.message


# http-get --------------------------------------------------------------------------------


async def test_http_get_returns_the_body_and_status(site: FakeSite, tools: Tools) -> None:
    result = await call(tools, "http-get", url=f"{site.base}/text")
    assert result.output == "héllo wörld"
    assert result.data["status"] == 200
    assert result.data["url"] == f"{site.base}/text"


async def test_http_get_decodes_by_the_declared_charset(site: FakeSite, tools: Tools) -> None:
    assert (await call(tools, "http-get", url=f"{site.base}/latin1")).output == "café"


async def test_http_get_sends_headers(site: FakeSite, tools: Tools) -> None:
    result = await call(
        tools, "http-get", url=f"{site.base}/echo", headers='{"X-Token": "abc", "Accept": "a/b"}'
    )
    seen = json.loads(result.output)
    assert seen["headers"]["X-Token"] == "abc"
    assert seen["headers"]["Accept"] == "a/b"


async def test_non_2xx_fails_with_status_and_snippet(site: FakeSite, tools: Tools) -> None:
    message = await failure(tools, "http-get", url=f"{site.base}/status/404")
    assert message == f"HTTP 404 Not Found from {site.base}/status/404: no such thing here"


async def test_dead_host_cannot_be_reached(tools: Tools) -> None:
    port = dead_port()
    message = await failure(tools, "http-get", url=f"http://127.0.0.1:{port}/x")
    # The socket's reason, not httpx's "All connection attempts failed".
    assert message == f"cannot reach 127.0.0.1:{port}: Connection refused"


async def test_slow_answer_times_out(site: FakeSite, tools: Tools) -> None:
    with pytest.raises(StepTimedOut) as caught:
        await tools.call("http-get", {"url": f"{site.base}/slow"}, timeout=0.2)
    # Usually "no response from 127.0.0.1:PORT within 0.2s"; on a stalled event loop the
    # registry's backstop may speak first ("http-get: no result within 0.2s").
    assert caught.value.message.endswith("within 0.2s")


@pytest.mark.parametrize("route", ["big-declared", "big-stream"])
async def test_oversized_answer_fails_without_being_read_whole(site: FakeSite, route: str) -> None:
    tools = build_tools(StepToolsConfig(max_response_bytes=1024))
    message = await failure(tools, "http-get", url=f"{site.base}/{route}")
    assert message == f"response larger than 1024 bytes from {site.base}/{route}"
    # The server held the rest back until now: a client reading the whole body would have
    # waited for it and timed out instead. Released, the server finds the connection closed.
    site.release.set()
    assert site.hung_up.wait(10), "the client should have closed the connection"
    assert site.sent < MIB


async def test_redirects_are_followed_up_to_five(site: FakeSite, tools: Tools) -> None:
    assert (await call(tools, "http-get", url=f"{site.base}/redirect/4")).output == "héllo wörld"
    message = await failure(tools, "http-get", url=f"{site.base}/redirect/5")
    assert message == f"more than 5 redirects from {site.base}/redirect/5"


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("ftp://example.com/x", "only http, https URLs are allowed, got 'ftp://example.com/x'"),
        ("example.com/x", "only http, https URLs are allowed, got 'example.com/x'"),
        ("http:///x", "no host in 'http:///x'"),
    ],
)
async def test_bad_url_is_refused(tools: ToolRegistry, url: str, problem: str) -> None:
    assert await failure(tools, "http-get", url=url) == f"toolInput.url: {problem}"
    assert tools.check("http-get", {"url": url}) == [f"toolInput.url: {problem}"]


async def test_bad_headers_json_is_refused(tools: ToolRegistry, site: FakeSite) -> None:
    message = await failure(tools, "http-get", url=f"{site.base}/text", headers="{not json")
    assert message.startswith("toolInput.headers: not valid JSON (Expecting property name")
    assert tools.check("http-get", {"url": "http://h", "headers": '{"A": 1}'}) == [
        "toolInput.headers: header 'A' must be a string, got int"
    ]
    assert tools.check("http-get", {"url": "http://h", "headers": '{"A": "x\\ny"}'}) == [
        "toolInput.headers: header 'A' holds a line break"
    ]
    assert site.requests == []


@pytest.mark.parametrize(
    ("headers", "problem"),
    [
        ('{"X-A\\n": "v"}', "'X-A\\n' is not a valid header name"),
        ('{"A": "caf\\u00e9"}', "header 'A' holds 'é'; a header value is printable ASCII"),
        ('{"A": "x\\u0000"}', "header 'A' holds '\\x00'; a header value is printable ASCII"),
    ],
)
async def test_headers_http_cannot_carry_are_refused_by_name(
    tools: ToolRegistry, site: FakeSite, headers: str, problem: str
) -> None:
    # Once a "UnicodeEncodeError" (with a traceback logged) or an h11 error at call time.
    assert tools.check("http-get", {"url": "http://h", "headers": headers}) == [
        f"toolInput.headers: {problem}"
    ]
    message = await failure(tools, "http-get", url=f"{site.base}/text", headers=headers)
    assert message == f"toolInput.headers: {problem}"
    assert site.requests == []


async def test_denied_host_is_refused_also_after_a_redirect(site: FakeSite) -> None:
    tools = build_tools(StepToolsConfig(denied_hosts=("denied.invalid", "127.0.0.2/32")))
    assert await failure(tools, "http-get", url="http://denied.invalid/") == (
        "toolInput.url: host 'denied.invalid' is on the denied hosts list"
    )
    assert await failure(tools, "http-get", url="http://127.0.0.2/") == (
        "toolInput.url: host '127.0.0.2' is on the denied hosts list"
    )
    assert await failure(tools, "http-get", url=f"{site.base}/to-denied") == (
        "redirect refused: host 'denied.invalid' is on the denied hosts list"
    )


def test_a_malformed_denied_network_stops_start_up() -> None:
    with pytest.raises(ValueError) as caught:
        build_tools(StepToolsConfig(denied_hosts=("10.0.0.0/33",)))
    assert (
        str(caught.value) == "BATON_WORKFLOW_TOOL_DENIED_HOSTS: '10.0.0.0/33' is not an IP network"
    )


async def test_an_ipv4_mapped_ipv6_address_is_denied_as_its_ipv4() -> None:
    tools = build_tools(StepToolsConfig(denied_hosts=("127.0.0.2/32",)))
    assert await failure(tools, "http-get", url="http://[::ffff:127.0.0.2]/") == (
        "toolInput.url: host '::ffff:127.0.0.2' is on the denied hosts list"
    )


@pytest.mark.parametrize("host", ["[::]", "0.0.0.0"])
async def test_an_unspecified_address_is_refused_once_networks_are_denied(host: str) -> None:
    """`::` and `0.0.0.0` reach this machine's listeners; `::1/128` does not hold `::`."""
    tools = build_tools(StepToolsConfig(denied_hosts=("::1/128", "127.0.0.0/8")))
    bare = host.strip("[]")
    assert await failure(tools, "http-get", url=f"http://{host}:8080/") == (
        f"toolInput.url: host {bare!r} is an unspecified address, which reaches this machine"
    )


async def test_a_name_resolving_to_an_unspecified_address_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tools = build_tools(StepToolsConfig(denied_hosts=("10.0.0.0/8",)))
    resolving(tools, monkeypatch, anywhere_test=[["::"]])
    assert await failure(tools, "http-get", url="http://anywhere.test:8080/") == (
        "host 'anywhere.test' resolves to ::, an unspecified address, which reaches this machine"
    )


# The deny-list and names: resolved once, checked, connected to ---------------------------

LOOPBACK = ("127.0.0.0/8", "::1/128")
REFUSED_LOCALHOST = (
    r"host 'localhost' resolves to (127\.0\.0\.1|::1), which is on the denied hosts list"
)


class Resolver:
    """A resolver with a table of names (each name's answers in turn, the last one repeated),
    recording every call; other hosts (IP literals, localhost) go to the system's resolver."""

    def __init__(self, table: Mapping[str, list[list[str]]]) -> None:
        self.table = {name: list(answers) for name, answers in table.items()}
        self.calls: list[tuple[str, int]] = []

    async def __call__(self, host: str, port: int) -> list[str]:
        self.calls.append((host, port))
        answers = self.table.get(host)
        if answers is None:
            return await resolve(host, port)
        return answers.pop(0) if len(answers) > 1 else answers[0]


def resolving(tools: ToolRegistry, monkeypatch: pytest.MonkeyPatch, **table: Any) -> Resolver:
    resolver = Resolver({name.replace("_", "."): answers for name, answers in table.items()})
    monkeypatch.setattr(tools.http, "resolve", resolver)
    return resolver


async def test_a_name_resolving_to_a_denied_address_is_refused(site: FakeSite) -> None:
    tools = build_tools(StepToolsConfig(denied_hosts=LOOPBACK))
    assert tools.check("http-get", {"url": f"http://localhost:{site.port}/text"}) == []
    message = await failure(tools, "http-get", url=f"http://localhost:{site.port}/text")
    assert re.fullmatch(REFUSED_LOCALHOST, message), message
    # web-search fetches with the same rules
    skills = build_skills(
        StepToolsConfig(denied_hosts=LOOPBACK, search_url=f"http://localhost:{site.port}/search")
    )
    with pytest.raises(StepActionFailed) as caught:
        await skills.run("web-search", ["x"], timeout=5)
    assert re.fullmatch(REFUSED_LOCALHOST, caught.value.message), caught.value.message
    assert site.requests == []


async def test_a_redirect_to_a_name_resolving_to_a_denied_address_is_refused(
    site: FakeSite, monkeypatch: pytest.MonkeyPatch
) -> None:
    tools = build_tools(StepToolsConfig(denied_hosts=("127.0.0.2/32",)))
    # One bad address among good ones is enough to refuse.
    resolving(tools, monkeypatch, localhost=[["127.0.0.1", "127.0.0.2"]])
    assert await failure(tools, "http-get", url=f"{site.base}/to-localhost") == (
        "redirect refused: host 'localhost' resolves to 127.0.0.2, "
        "which is on the denied hosts list"
    )
    assert [seen["path"] for seen in site.requests] == ["/to-localhost"]


async def test_an_allowed_name_is_resolved_checked_and_reached(
    site: FakeSite, monkeypatch: pytest.MonkeyPatch
) -> None:
    tools = build_tools(StepToolsConfig(denied_hosts=("127.0.0.2/32", "169.254.0.0/16")))
    resolver = resolving(tools, monkeypatch)
    result = await call(tools, "http-get", url=f"http://localhost:{site.port}/echo")
    assert json.loads(result.output)["headers"]["Host"] == f"localhost:{site.port}"
    assert result.data["url"] == f"http://localhost:{site.port}/echo"
    assert resolver.calls == [("localhost", site.port)]


async def test_the_connection_goes_to_the_address_that_was_checked(
    site: FakeSite, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`rebind.test` is known to the fake resolver only: first 127.0.0.1 (allowed), then
    127.0.0.2 (denied). Resolving again to connect would reach 127.0.0.2 or be refused."""
    tools = build_tools(StepToolsConfig(denied_hosts=("127.0.0.2/32",)))
    resolver = resolving(tools, monkeypatch, rebind_test=[["127.0.0.1"], ["127.0.0.2"]])
    result = await call(tools, "http-get", timeout=2, url=f"http://rebind.test:{site.port}/echo")
    assert json.loads(result.output)["headers"]["Host"] == f"rebind.test:{site.port}"
    assert resolver.calls == [("rebind.test", site.port)]
    # The next call resolves afresh and meets the new answer.
    assert await failure(tools, "http-get", url=f"http://rebind.test:{site.port}/echo") == (
        "host 'rebind.test' resolves to 127.0.0.2, which is on the denied hosts list"
    )


class TlsSite(FakeSite):
    """FakeSite over TLS with a certificate for `rebind.test` only; records the SNI names."""

    def __init__(self, cert: Path, key: Path) -> None:
        super().__init__()
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert, key)
        self.server_names: list[str | None] = []
        context.sni_callback = lambda _sock, name, _ctx: self.server_names.append(name)
        self.socket = context.wrap_socket(self.socket, server_side=True)


@pytest.fixture
def rebind_cert(tmp_path: Path) -> tuple[Path, Path]:
    """A self-signed certificate (and its key) for `rebind.test` only, no IP address in it."""
    if shutil.which("openssl") is None:
        pytest.skip("needs the openssl command to make a test certificate")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
         "-nodes", "-keyout", str(key), "-out", str(cert), "-days", "1",
         "-subj", "/CN=rebind.test", "-addext", "subjectAltName=DNS:rebind.test"],
        check=True, capture_output=True,
    )  # fmt: skip
    return cert, key


async def test_tls_uses_the_name_for_sni_and_the_certificate(
    rebind_cert: tuple[Path, Path],
) -> None:
    cert, key = rebind_cert
    server = TlsSite(cert, key)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        fetcher = HttpxFetcher(
            max_bytes=MIB,
            max_redirects=0,
            schemes=("https",),
            denied_hosts=("127.0.0.2/32",),
            user_agent="test",
            resolver=Resolver({"rebind.test": [["127.0.0.1"]]}),
            ssl_context=ssl.create_default_context(cafile=str(cert)),
        )
        answer = await fetcher.fetch(
            HttpRequest("GET", f"https://rebind.test:{server.port}/echo"), 5
        )
    finally:
        server.shutdown()
        server.server_close()
    assert json.loads(answer.text)["headers"]["Host"] == f"rebind.test:{server.port}"
    assert server.server_names == ["rebind.test"]


async def test_a_proxy_from_the_environment_is_still_used(
    site: FakeSite, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Proxied requests are resolved by the proxy; NO_PROXY hosts go direct, and are checked."""
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    monkeypatch.setenv("HTTP_PROXY", site.base)
    monkeypatch.setenv("NO_PROXY", "localhost")
    tools = build_tools(StepToolsConfig(denied_hosts=LOOPBACK))
    resolver = resolving(tools, monkeypatch, api_example_test=[["127.0.0.2"]])
    result = await call(tools, "http-get", url="http://api.example.test/text")
    assert result.output == "héllo wörld"
    assert site.requests[0]["headers"]["Host"] == "api.example.test"
    assert resolver.calls == []
    message = await failure(tools, "http-get", url=f"http://localhost:{site.port}/text")
    assert re.fullmatch(REFUSED_LOCALHOST, message), message


def test_the_deny_list_example_of_the_docs_prints_what_the_docs_say() -> None:
    text = DOC.read_text()
    section = text[text.index("This runs as written") :]
    code, output = re.findall(r"```(?:python)?\n(.*?)```", section, re.S)[:2]
    ran = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert ran.stdout.replace("::1", "127.0.0.1") == output


# http-request and echo -------------------------------------------------------------------


async def test_http_request_sends_method_body_and_content_type(
    site: FakeSite, tools: Tools
) -> None:
    result = await call(
        tools,
        "http-request",
        method="post",
        url=f"{site.base}/echo",
        body='{"a": 1}',
        content_type="application/json",
    )
    seen = json.loads(result.output)
    assert (seen["method"], seen["body"]) == ("POST", '{"a": 1}')
    assert seen["headers"]["Content-Type"] == "application/json"


async def test_http_request_head_outputs_the_headers(site: FakeSite, tools: Tools) -> None:
    result = await call(tools, "http-request", method="HEAD", url=f"{site.base}/text")
    assert "content-type: text/plain; charset=utf-8" in result.output.splitlines()
    assert result.data["status"] == 200


async def test_http_request_has_the_same_errors(site: FakeSite, tools: ToolRegistry) -> None:
    message = await failure(tools, "http-request", method="DELETE", url=f"{site.base}/status/500")
    assert message.startswith(f"HTTP 500 Internal Server Error from {site.base}/status/500")
    assert tools.check("http-request", {"url": "http://h", "method": "FETCH"}) == [
        "toolInput.method: must be one of GET, POST, PUT, PATCH, DELETE, HEAD"
    ]


async def test_echo_returns_text_or_all_inputs_as_json(tools: Tools) -> None:
    assert (await call(tools, "echo", text="hi")).output == "hi"
    assert (await call(tools, "echo", b="2", a="1")).output == '{"a": "1", "b": "2"}'


# The registry ----------------------------------------------------------------------------


def test_check_names_missing_and_unknown_inputs(tools: ToolRegistry) -> None:
    assert tools.check("http-get", {"uri": "http://h"}) == [
        "toolInput.url: required",
        "toolInput.uri: unknown input; http-get takes url, headers",
    ]


def test_templated_values_are_checked_at_run_time_only(tools: ToolRegistry) -> None:
    seed = {"url": "https://api.example.com/data?q={{topic}}"}
    assert tools.check("http-get", seed) == []
    assert tools.check("http-get", {"url": "{{steps.find.output}}"}) == []


async def test_unknown_tool_lists_the_known_ones(tools: ToolRegistry) -> None:
    with pytest.raises(UnknownTool) as caught:
        await tools.call("http-gett", {}, timeout=1)
    assert caught.value.message == (
        "unknown tool 'http-gett'; known tools: echo, http-get, http-request"
    )
    assert tools.check("http-gett", {}) == [f"toolName: {caught.value.message}"]


# Plug-ins --------------------------------------------------------------------------------

PLUGIN = '''
from baton_workflow.service.step_ports import ToolResult


def register_tools(registry):
    @registry.tool("shout", required=["text"])
    async def shout(call):
        """Upper-case the text."""
        return ToolResult(output=call.inputs["text"].upper())
'''


def plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, source: str) -> str:
    name = f"tool_plugin_{uuid.uuid4().hex[:8]}"
    (tmp_path / f"{name}.py").write_text(source)
    monkeypatch.syspath_prepend(str(tmp_path))
    return name


async def test_plugin_module_registers_tools(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tools = build_tools(StepToolsConfig(tool_modules=(plugin(tmp_path, monkeypatch, PLUGIN),)))
    assert tools.names() == ["echo", "http-get", "http-request", "shout"]
    assert (await call(tools, "shout", text="hi")).output == "HI"
    assert tools.check("shout", {}) == ["toolInput.text: required"]
    assert tools.get("shout").description == "Upper-case the text."


def test_plugin_name_clash_stops_start_up(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    name = plugin(tmp_path, monkeypatch, PLUGIN.replace('"shout"', '"http-get"'))
    with pytest.raises(ValueError) as caught:
        build_tools(StepToolsConfig(tool_modules=(name,)))
    assert str(caught.value) == (
        f"BATON_WORKFLOW_TOOL_MODULES: {name!r}: tool 'http-get' is already registered"
    )


def test_plugin_module_without_hook_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    name = plugin(tmp_path, monkeypatch, "x = 1\n")
    with pytest.raises(ValueError, match=rf"'{name}' has no register_tools\(registry\)"):
        build_tools(StepToolsConfig(tool_modules=(name,)))


# web-search ------------------------------------------------------------------------------


async def test_web_search_asks_the_configured_endpoint(site: FakeSite) -> None:
    skills = build_skills(StepToolsConfig(search_url=f"{site.base}/search"))
    result = await skills.run("web-search", ["AI agents", "--depth", "2"], timeout=5)
    assert result.output == (
        "1. AI agents 1\n   https://r.example/1\n   about 1\n\n"
        "2. AI agents 2\n   https://r.example/2\n   about 2"
    )
    assert len(result.data["results"]) == 2
    assert site.requests[0]["query"] == {"q": ["AI agents"], "format": ["json"]}


async def test_web_search_reports_a_bad_or_dead_endpoint(site: FakeSite) -> None:
    skills = build_skills(StepToolsConfig(search_url=f"{site.base}/search-html"))
    with pytest.raises(StepActionFailed, match="search answer from .* is not JSON"):
        await skills.run("web-search", ["x"], timeout=5)
    port = dead_port()
    skills = build_skills(StepToolsConfig(search_url=f"http://127.0.0.1:{port}/search"))
    with pytest.raises(StepActionFailed, match=f"^cannot reach 127.0.0.1:{port}: "):
        await skills.run("web-search", ["x"], timeout=5)


async def test_without_denied_networks_no_name_is_resolved_first(
    site: FakeSite, monkeypatch: pytest.MonkeyPatch
) -> None:
    tools = build_tools(StepToolsConfig(denied_hosts=("denied.invalid",)))
    resolver = resolving(tools, monkeypatch)
    result = await call(tools, "http-get", url=f"http://localhost:{site.port}/text")
    assert result.output == "héllo wörld"
    assert resolver.calls == []


async def test_http_request_sends_the_attempts_idempotency_key_with_a_change(
    site: FakeSite, tools: Tools
) -> None:
    # A step in flight when the service died runs again after the restart with the same key
    # (run:step:attempt), so a server that honours Idempotency-Key does the work once.
    url = f"{site.base}/echo"
    key = "run-1:post:1"
    for _ in range(2):
        result = await tools.call(
            "http-request", {"method": "POST", "url": url}, timeout=5, idempotency_key=key
        )
        assert json.loads(result.output)["headers"]["Idempotency-Key"] == key
    mine = {"method": "PUT", "url": url, "headers": '{"idempotency-key": "own"}'}
    result = await tools.call("http-request", mine, timeout=5, idempotency_key=key)
    headers = json.loads(result.output)["headers"]
    assert headers.get("idempotency-key") == "own" and "Idempotency-Key" not in headers
    for safe in ({"method": "GET", "url": url}, {"url": url}):
        result = await tools.call("http-request", safe, timeout=5, idempotency_key=key)
        assert "Idempotency-Key" not in json.loads(result.output)["headers"]
