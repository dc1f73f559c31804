"""Tools for `tool_call` steps: `http-get`, `http-request`, `echo`, and plug-in modules.

A tool is one async function over a `ToolCall` plus the names of the inputs it takes; the
registry checks inputs (at create time on static values, at run time on rendered ones), bounds
every call by its timeout and turns any failure into a one-line `StepActionFailed`.

Security: HTTP tools reach whatever this service can reach, internal hosts included (the
database, NATS, a cloud metadata address). Only the URL schemes in `allowed_url_schemes` are
accepted, and hosts in `denied_hosts` are refused, on the first request and on every redirect:
by name, and by every address the name resolves to (the connection goes to a checked address;
see `httpx_fetch`).
"""

from __future__ import annotations

import asyncio
import importlib
import json
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from baton_messaging.process import SettingUnusable
from baton_workflow.adapters.httpx_fetch import HttpRequest, HttpxFetcher, header_problem
from baton_workflow.service.step_ports import (
    StepActionFailed,
    StepTimedOut,
    ToolResult,
    UnknownTool,
    is_templated,
)

logger = logging.getLogger(__name__)

HTTP_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD")


def backstop(timeout: float) -> float:
    """The registry's deadline: a little past `timeout`, so a tool that honours its timeout
    fails first with its own, more precise message; a tool that ignores it is cut off here."""
    return timeout + min(0.25, timeout)


@dataclass(frozen=True)
class StepToolsConfig:
    """Limits and plug-ins of tools and skills (the lead maps settings onto it in bootstrap)."""

    default_timeout_seconds: float = 30.0
    max_response_bytes: int = 1_048_576
    max_redirects: int = 5
    allowed_url_schemes: tuple[str, ...] = ("http", "https")
    denied_hosts: tuple[str, ...] = ()
    tool_modules: tuple[str, ...] = ()
    skill_modules: tuple[str, ...] = ()
    search_url: str | None = None
    user_agent: str = "baton-workflow"

    def fetcher(self) -> HttpxFetcher:
        """An HTTP client held to these limits (tools and the web-search skill share the rules)."""
        return HttpxFetcher(
            max_bytes=self.max_response_bytes,
            max_redirects=self.max_redirects,
            schemes=self.allowed_url_schemes,
            denied_hosts=self.denied_hosts,
            user_agent=self.user_agent,
        )


@dataclass(frozen=True)
class ToolCall:
    """One call of a tool: its rendered inputs and the time it has."""

    inputs: Mapping[str, str]
    timeout: float
    idempotency_key: str = ""
    """The same on every run of this attempt of the step, one after a crash included."""


ToolFunction = Callable[[ToolCall], Awaitable[ToolResult]]
ValueCheck = Callable[[Mapping[str, str]], list[str]]


@dataclass(frozen=True)
class Tool:
    """A named tool: the inputs it takes and, optionally, checks of their concrete values."""

    name: str
    run: ToolFunction
    description: str = ""
    required: tuple[str, ...] = ()
    optional: tuple[str, ...] = ()
    any_inputs: bool = False
    check_values: ValueCheck | None = None

    def problems(self, inputs: Mapping[str, str], *, static: bool) -> list[str]:
        """Missing, unknown and bad inputs; with `static`, templated values are left for later."""
        known = (*self.required, *self.optional)
        found = [f"toolInput.{key}: required" for key in self.required if not inputs.get(key)]
        if not self.any_inputs:
            found += [
                f"toolInput.{key}: unknown input; {self.name} takes {', '.join(known) or 'none'}"
                for key in inputs
                if key not in known
            ]
        concrete = {
            key: value
            for key, value in inputs.items()
            if (key in known or self.any_inputs) and value and not (static and is_templated(value))
        }
        if self.check_values is not None:
            found += self.check_values(concrete)
        return found


class ToolRegistry:
    """Tools by name; a second tool with a taken name is refused."""

    def __init__(self, config: StepToolsConfig | None = None) -> None:
        self.config = config or StepToolsConfig()
        self.http = self.config.fetcher()
        self._tools: dict[str, Tool] = {}

    def add(self, tool: Tool) -> Tool:
        """Register `tool`; raises `ValueError` when its name is taken."""
        if tool.name in self._tools:
            raise ValueError(f"tool {tool.name!r} is already registered")
        self._tools[tool.name] = tool
        return tool

    def tool(
        self, name: str, *, required: Sequence[str] = (), optional: Sequence[str] = ()
    ) -> Callable[[ToolFunction], ToolFunction]:
        """Decorator: `@registry.tool("my-tool", required=["x"])` over `async def f(call)`."""

        def add(run: ToolFunction) -> ToolFunction:
            doc = (run.__doc__ or "").strip().splitlines()
            self.add(Tool(name, run, doc[0] if doc else "", tuple(required), tuple(optional)))
            return run

        return add

    def names(self) -> list[str]:
        """Every tool name, sorted."""
        return sorted(self._tools)

    def get(self, name: str) -> Tool:
        """The tool called `name`; raises `UnknownTool` listing the known ones."""
        tool = self._tools.get(name)
        if tool is None:
            raise UnknownTool(name, self.names())
        return tool

    def check(self, name: str, inputs: Mapping[str, str]) -> list[str]:
        """Problems with a step's static `toolInput` (templated values are checked at run time)."""
        try:
            tool = self.get(name)
        except UnknownTool as exc:
            return [f"toolName: {exc.message}"]
        return tool.problems(inputs, static=True)

    async def call(
        self, name: str, inputs: Mapping[str, str], *, timeout: float, idempotency_key: str = ""
    ) -> ToolResult:
        """Run a tool on rendered inputs within `timeout`; every failure is `StepActionFailed`."""
        tool = self.get(name)
        problems = tool.problems(inputs, static=False)
        if problems:
            raise StepActionFailed("; ".join(problems))
        try:
            async with asyncio.timeout(backstop(timeout)):
                call = ToolCall(dict(inputs), timeout, idempotency_key)
                return await tool.run(call)
        except StepActionFailed:
            raise
        except TimeoutError:
            raise StepTimedOut(f"{name}: no result within {timeout:g}s") from None
        except Exception as exc:
            logger.exception("tool %s failed", name)
            raise StepActionFailed(f"{name} failed: {type(exc).__name__}: {exc}") from exc


def load_plugins(registry: Any, modules: Sequence[str], hook: str, setting: str) -> None:
    """Import each module and call its `hook(registry)`; a bad module or a clash stops start-up."""
    for name in modules:
        try:
            module = importlib.import_module(name)
        except ImportError as exc:
            raise SettingUnusable(f"{setting}: cannot import {name!r}: {exc}") from None
        register = getattr(module, hook, None)
        if not callable(register):
            raise SettingUnusable(f"{setting}: {name!r} has no {hook}(registry)")
        try:
            register(registry)
        except ValueError as exc:
            raise SettingUnusable(f"{setting}: {name!r}: {exc}") from None


def build_tools(config: StepToolsConfig | None = None) -> ToolRegistry:
    """The shipped tools plus those of `config.tool_modules` (`register_tools(registry)`)."""
    registry = ToolRegistry(config)
    for tool in shipped_tools(registry.http):
        registry.add(tool)
    load_plugins(
        registry, registry.config.tool_modules, "register_tools", "BATON_WORKFLOW_TOOL_MODULES"
    )
    return registry


def shipped_tools(http: HttpxFetcher) -> list[Tool]:
    """`http-get`, `http-request` and `echo`."""

    def check_http(values: Mapping[str, str]) -> list[str]:
        found: list[str] = []
        if "url" in values and (problem := http.url_problem(values["url"])):
            found.append(f"toolInput.url: {problem}")
        if "headers" in values and (problem := header_problem(values["headers"])):
            found.append(f"toolInput.headers: {problem}")
        method = values.get("method", "GET").upper()
        if method not in HTTP_METHODS:
            found.append(f"toolInput.method: must be one of {', '.join(HTTP_METHODS)}")
        return found

    async def http_get(call: ToolCall) -> ToolResult:
        return await _http(http, call, "GET")

    async def http_request(call: ToolCall) -> ToolResult:
        return await _http(http, call, call.inputs.get("method", "GET").upper())

    async def echo(call: ToolCall) -> ToolResult:
        if "text" in call.inputs:
            return ToolResult(output=call.inputs["text"])
        return ToolResult(output=json.dumps(dict(call.inputs), sort_keys=True, ensure_ascii=False))

    return [
        Tool(
            "http-get",
            http_get,
            "GET a URL; the body as text",
            required=("url",),
            optional=("headers",),
            check_values=check_http,
        ),
        Tool(
            "http-request",
            http_request,
            "Any HTTP method with an optional body",
            required=("url",),
            optional=("method", "headers", "body", "content_type"),
            check_values=check_http,
        ),
        Tool("echo", echo, "Returns `text`, or all inputs as JSON", any_inputs=True),
    ]


SAFE_METHODS = frozenset({"GET", "HEAD"})
"""Methods that change nothing on the server: no `Idempotency-Key` is sent with them."""


async def _http(http: HttpxFetcher, call: ToolCall, method: str) -> ToolResult:
    headers = json.loads(call.inputs["headers"]) if call.inputs.get("headers") else {}
    content_type = call.inputs.get("content_type")
    if content_type:
        headers["Content-Type"] = content_type
    # A step re-run after a crash sends the same key, so a server that honours the header (the
    # IETF's Idempotency-Key draft, Stripe and many APIs) does the work once. A key the step
    # sets itself wins.
    mine = any(name.lower() == "idempotency-key" for name in headers)
    if method not in SAFE_METHODS and call.idempotency_key and not mine:
        headers["Idempotency-Key"] = call.idempotency_key
    body = call.inputs.get("body")
    response = await http.fetch(
        HttpRequest(method, call.inputs["url"], headers, body.encode() if body else None),
        call.timeout,
    )
    output = response.text
    if method == "HEAD":
        output = "\n".join(f"{name}: {value}" for name, value in response.headers.items())
    data = {
        "status": response.status,
        "url": response.url,
        "content_type": response.content_type,
        "bytes": response.size,
        "headers": dict(response.headers),
    }
    return ToolResult(output=output, data=data)
