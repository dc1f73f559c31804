"""DAG workflows through the gateway's seed-004 routes, on the in-process platform.

Fixtures: `stack` (workflow, gateway and agent-runner on the session NATS; a test overrides
`workflow_extra` to change workflow settings), `http` and `author` (a signed-in user of the
HTTP API), `task_calls` (every `agent.cmd.task` request seen on NATS), `model_runs` (every
time the agent-runner's model actually ran), `cut_off` (every model call it cancelled),
`notifications` (every `workflow.notify` event), `web` (a local HTTP server for tool steps)
and `restart_workflow` (stop the workflow service and start a new one on the same database,
as after a crash).
"""

from __future__ import annotations

import asyncio
import json
import threading
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import nats
import pytest
from nats.aio.client import Client

from baton_agent_runner.adapters.task_models import TaskAgents
from baton_workflow.bootstrap import WorkflowApp
from baton_workflow.bootstrap import build as build_workflow

from ...platform_stack import Stack, User, gateway_client, running_stack

WAIT = 20.0  # seconds a run may take before a test gives up (generous for a loaded machine)


@pytest.fixture
def workflow_extra() -> dict[str, Any]:
    """Extra workflow settings; a test overrides this fixture to change them."""
    return {}


@pytest.fixture
def workflow_database(request: pytest.FixtureRequest) -> str | None:
    """The workflow service's database URL; None: a SQLite file in the test's folder.

    PostgreSQL for tests marked `ON_BOTH_BACKENDS` (skipped without one)."""
    if getattr(request, "param", "sqlite") == "sqlite":
        return None
    request.applymarker(pytest.mark.postgres)
    return str(request.getfixturevalue("postgres_url"))


ON_BOTH_BACKENDS = pytest.mark.parametrize(
    "workflow_database", ["sqlite", "postgres"], indirect=True
)


@pytest.fixture
async def stack(
    nats_url: str,
    tmp_path: Path,
    workflow_extra: dict[str, Any],
    workflow_database: str | None,
) -> AsyncIterator[Stack]:
    async with running_stack(nats_url, tmp_path, **workflow_extra) as stack:
        first = stack.workflow
        try:
            if workflow_database is not None:  # the same service, on another database
                await first.stop()
                update = {"database_url": workflow_database}
                stack.workflow = build_workflow(first.settings.model_copy(update=update))
                await stack.workflow.start()
            yield stack
        finally:
            if stack.workflow is not first:  # restarted: running_stack stops only the first
                await stack.workflow.stop()


@pytest.fixture(scope="module")
async def module_stack(
    nats_url: str, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Stack]:
    """One platform for a whole module, with default settings: a module whose tests need no
    restart and no setting of their own overrides `stack` to return it (much faster)."""
    async with running_stack(nats_url, tmp_path_factory.mktemp("dag")) as stack:
        yield stack


@pytest.fixture
async def http(stack: Stack) -> AsyncIterator[httpx.AsyncClient]:
    async with gateway_client(stack) as client:
        yield client


class Author(User):
    """A user who writes and runs DAG workflows."""

    async def create(self, document: dict[str, Any] | str, **headers: str) -> httpx.Response:
        body = document if isinstance(document, str) else json.dumps(document)
        return await self.http.post(
            "/workflows",
            content=body,
            headers={**self.headers, "Content-Type": "application/json", **headers},
        )

    async def created(self, document: dict[str, Any]) -> dict[str, Any]:
        """Create (or update) and expect it stored; the reply body."""
        response = await self.create(document)
        assert response.status_code in (200, 201), response.text
        return response.json()  # type: ignore[no-any-return]

    async def post_run(self, name: str, **body: Any) -> httpx.Response:
        """`POST /workflows/{name}/run` as it answers."""
        return await self.http.post(f"/workflows/{name}/run", json=body, headers=self.headers)

    async def run(self, name: str, **body: Any) -> dict[str, Any]:
        response = await self.post_run(name, **body)
        assert response.status_code == 202, response.text
        return response.json()  # type: ignore[no-any-return]

    async def detail(self, run_id: str) -> httpx.Response:
        return await self.http.get(f"/workflow-runs/{run_id}", headers=self.headers)

    async def wait(self, run_id: str, timeout: float = WAIT) -> dict[str, Any]:
        """The run's detail once it has ended."""
        return await self.wait_until(run_id, lambda run: run["status"] != "running", timeout)

    async def wait_until(
        self, run_id: str, done: Callable[[dict[str, Any]], bool], timeout: float = WAIT
    ) -> dict[str, Any]:
        """The run's detail once `done(detail)` holds (a 503 while a service restarts is ok)."""
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            response = await self.detail(run_id)
            if response.status_code != 503:
                assert response.status_code == 200, response.text
                run: dict[str, Any] = response.json()
                if done(run):
                    return run
            assert asyncio.get_running_loop().time() < deadline, response.text
            await asyncio.sleep(0.05)

    async def run_to_end(self, document: dict[str, Any], **body: Any) -> dict[str, Any]:
        """Create the workflow, run it, and return the finished run's detail."""
        await self.created(document)
        started = await self.run(document["name"], **body)
        return await self.wait(started["run_id"])


def steps_of(run: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """A run detail's steps by id."""
    return {step["id"]: step for step in run["steps"]}


@pytest.fixture
def author(http: httpx.AsyncClient) -> Author:
    """A user of this test alone (so tests may share a platform)."""
    return Author(http, f"ada-{uuid.uuid4().hex[:8]}")


async def _listen(nats_url: str, subject: str, user_id: str) -> AsyncIterator[list[dict[str, Any]]]:
    seen: list[dict[str, Any]] = []
    nc: Client = await nats.connect(nats_url)

    async def record(msg: Any) -> None:
        body = json.loads(msg.data)
        if body.get("user_id") == user_id:
            seen.append(body)

    await nc.subscribe(subject, cb=record)
    await nc.flush()
    yield seen
    await nc.close()


@pytest.fixture
async def task_calls(nats_url: str, author: Author) -> AsyncIterator[list[dict[str, Any]]]:
    """Every `agent.cmd.task` request of the test's author seen on NATS."""
    async for seen in _listen(nats_url, "agent.cmd.task", author.name):
        yield seen


@pytest.fixture
async def notifications(nats_url: str, author: Author) -> AsyncIterator[list[dict[str, Any]]]:
    """The author's `workflow.notify` events (notify steps, onSuccess, onFailure)."""
    async for seen in _listen(nats_url, "workflow.evt.notify.>", author.name):
        yield seen


@pytest.fixture
async def step_events(nats_url: str, author: Author) -> AsyncIterator[list[dict[str, Any]]]:
    """The author's `workflow.run_step_changed` events, as the live feed relays them."""
    async for seen in _listen(nats_url, "workflow.evt.run_step_changed.>", author.name):
        yield seen


Perform = Callable[..., Awaitable[Any]]


@contextmanager
def watched_models(stack: Stack, watch: Callable[[Perform], Perform]) -> Iterator[None]:
    """The agent-runner's task models with `perform` wrapped by `watch` while in the block."""
    assert stack.agent_runner is not None
    models = stack.agent_runner.tasks.models
    assert isinstance(models, TaskAgents)
    perform = models.perform
    models.perform = watch(perform)  # type: ignore[method-assign]
    try:
        yield
    finally:
        models.perform = perform  # type: ignore[method-assign]


@pytest.fixture
def model_runs(stack: Stack) -> Iterator[list[tuple[str, str]]]:
    """(run_id, step_id) each time the agent-runner's model ran (a replayed result is not)."""
    seen: list[tuple[str, str]] = []

    def watch(perform: Perform) -> Perform:
        async def counted(profile: Any, choice: Any, call: Any, timeout: float) -> Any:
            seen.append((call.run_id, call.step_id))
            return await perform(profile, choice, call, timeout)

        return counted

    with watched_models(stack, watch):
        yield seen


def watch_cancels(
    seen: list[tuple[str, str]], entered: asyncio.Event | None = None
) -> Callable[[Perform], Perform]:
    """A `_watched_models` wrapper: (run_id, step_id) of each model call cancelled before it
    answered goes to `seen`; `entered` is set once a model call has begun."""

    def watch(perform: Perform) -> Perform:
        async def watched(profile: Any, choice: Any, call: Any, timeout: float) -> Any:
            if entered is not None:
                entered.set()
            try:
                return await perform(profile, choice, call, timeout)
            except asyncio.CancelledError:
                seen.append((call.run_id, call.step_id))
                raise

        return watched

    return watch


@pytest.fixture
def cut_off(stack: Stack) -> Iterator[list[tuple[str, str]]]:
    """(run_id, step_id) of each model call the agent-runner cancelled before it answered."""
    seen: list[tuple[str, str]] = []
    with watched_models(stack, watch_cancels(seen)):
        yield seen


RestartWorkflow = Callable[..., Awaitable[WorkflowApp]]


@pytest.fixture
def restart_workflow(stack: Stack) -> RestartWorkflow:
    """Stop the workflow service and start a new one with the same settings and database."""

    async def restart(
        between: Callable[[], Awaitable[None]] | None = None,
        prepare: Callable[[WorkflowApp], None] | None = None,
    ) -> WorkflowApp:
        """`between` runs while the service is down; `prepare` sees the new one before start."""
        settings = stack.workflow.settings
        await stack.workflow.stop()
        if between is not None:
            await between()
        stack.workflow = build_workflow(settings)
        if prepare is not None:
            prepare(stack.workflow)
        await stack.workflow.start()
        return stack.workflow

    return restart


@dataclass
class LocalWeb:
    """A tiny HTTP server on 127.0.0.1: `GET /<anything>` answers `pages[path]` or 404."""

    pages: dict[str, str] = field(default_factory=dict)
    requests: list[str] = field(default_factory=list)
    port: int = 0

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"


@pytest.fixture
def web() -> Iterator[LocalWeb]:
    site = LocalWeb()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            site.requests.append(self.path)
            body = site.pages.get(self.path.split("?")[0])
            data = (body if body is not None else "not here").encode()
            self.send_response(200 if body is not None else 404)
            self.send_header("Content-Type", "text/plain; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    site.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield site
    server.shutdown()
    server.server_close()
