"""A thin HTTP client for the gateway's DAG workflow routes (`/workflows`, `/workflow-runs`).

Every failure becomes a `GatewayError` carrying what the CLI needs to print it and pick the exit
code; nothing here prints. Pass an `httpx.MockTransport` as `transport` to test without a server.
httpx is imported when a client is made: `main.py` imports this module for every `baton`
command, and `baton token` should not pay for an HTTP stack it does not use.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from baton_cli import gateway_bodies as bodies
from baton_cli.errors import CliError
from baton_cli.gateway_bodies import Json, Shape

if TYPE_CHECKING:
    import httpx

DEFAULT_TIMEOUT = 30.0
UNREACHABLE_STATUSES = frozenset({502, 503, 504})


REQUEST_PARTS = ("body", "query", "path", "header")
"""Where the gateway says a field was in the request: `body.steps[0].agent`, `query.limit`."""


@dataclass(frozen=True)
class Problem:
    """One problem the gateway reported: the field, as the gateway names it (where in the
    request, then its path: `body.steps[0].agent`), and what is wrong with it."""

    field: str
    message: str

    @property
    def path(self) -> str:
        """The field without the part of the request: a CLI user wrote a file or an option,
        not a body (`steps[0].agent`, `variables.topic`); empty for the document as a whole."""
        part, _, path = self.field.partition(".")
        return path if part in REQUEST_PARTS else self.field

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


class GatewayError(CliError):
    """The gateway could not be reached or refused the request.

    `status` is the HTTP status (None when nothing answered), `problems` the error details,
    `detail` the gateway's own message (without the HTTP status the full message starts with).
    """

    def __init__(
        self,
        message: str,
        status: int | None = None,
        problems: tuple[Problem, ...] = (),
        detail: str = "",
    ) -> None:
        super().__init__(message)
        self.status = status
        self.problems = problems
        self.detail = detail or message

    @property
    def unreachable(self) -> bool:
        """True when no answer came, the gateway said its backend is unavailable (503), or a
        proxy in front of it could not reach it (502, 504), as while it restarts."""
        return self.status is None or self.status in UNREACHABLE_STATUSES


def _segment(value: str) -> str:
    """A path segment, escaped so a name or id can never change which route is called.

    `.` and `..` are escaped too: left as they are, the URL would resolve them to the parent.
    """
    if value.strip(".") == "":
        return "%2E" * len(value)
    return quote(value, safe="@")


class GatewayClient:
    """The workflow routes of the contract, one method each; answers are the decoded JSON."""

    def __init__(
        self,
        base_url: str,
        token: str,
        transport: httpx.BaseTransport | None = None,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> None:
        import httpx

        self.base_url = base_url.rstrip("/")
        self._http = httpx.Client(
            base_url=self.base_url + "/",
            headers={"Authorization": f"Bearer {token}", "Accept": "application/json"},
            transport=transport,
            timeout=timeout,
        )

    def close(self) -> None:
        """Release the connection pool."""
        self._http.close()

    def list_workflows(self) -> list[Json]:
        """`GET /workflows`: every workflow, page after page (`?after=`), as a page holds
        about 512 KiB of them."""
        return self._pages("workflows", bodies.WORKFLOW_LIST, "workflows", None)

    def get_workflow(self, name: str) -> Json:
        """`GET /workflows/{name}`."""
        return self._call("GET", f"workflows/{_segment(name)}", bodies.WORKFLOW_DOCUMENT)

    def create_workflow(self, document: Json) -> Json:
        """`POST /workflows`: a new version, or `changed: false` when identical to the latest."""
        return self._call("POST", "workflows", bodies.WORKFLOW_SAVED, json=document)

    def delete_workflow(self, name: str) -> None:
        """`DELETE /workflows/{name}`."""
        self._call("DELETE", f"workflows/{_segment(name)}", bodies.NOTHING)

    def validate(self, name: str, document: Json | None = None) -> Json:
        """`POST /workflows/{name}/validate`: `document` if given, else the stored latest."""
        path = f"workflows/{_segment(name)}/validate"
        return self._call("POST", path, bodies.VALIDATION, json=document)

    def start_run(self, name: str, variables: dict[str, str], mode: str) -> Json:
        """`POST /workflows/{name}/run` -> the 202 body with `run_id`."""
        body = {"variables": variables, "mode": mode}
        return self._call("POST", f"workflows/{_segment(name)}/run", bodies.RUN_ACCEPTED, json=body)

    def list_runs(self, name: str | None, limit: int) -> list[Json]:
        """`GET /workflows/{name}/runs`, or `GET /workflow-runs` for every workflow: the newest
        `limit` runs, page after page (`?after=`), as a page holds about 512 KiB of them."""
        path = f"workflows/{_segment(name)}/runs" if name else "workflow-runs"
        return self._pages(path, bodies.RUN_LIST, "runs", limit)

    def _pages(self, path: str, shape: Shape, key: str, limit: int | None) -> list[Json]:
        """The `key` items of the list at `path`, page after page (`?after=` the previous
        page's `next_after`) until there are `limit` (None: every one) or the list ends. A
        gateway older than paging sends no `next_after`: its one page is the list. A cursor
        that cannot move the list on (one already followed, or after a page of no items) is
        a `GatewayError` (`_stuck`): followed, the same pages would be read without end."""
        items: list[Json] = []
        params: dict[str, Any] = {} if limit is None else {"limit": limit}
        followed: set[str] = set()
        while True:
            page = self._call("GET", path, shape, params=params)
            items += page[key]
            after = page.get("next_after")
            if not after or (limit is not None and len(items) >= limit):
                return items if limit is None else items[:limit]
            self._stuck(path, "next_after", after, followed, not page[key])
            params = {"after": after}
            if limit is not None:
                params["limit"] = limit - len(items)

    def get_run(self, run_id: str, timeout: float | None = None) -> Json:
        """`GET /workflow-runs/{id}`: summary, steps, handoffs, messages, estimate, every page
        of them (`next_steps_after`) made one; `timeout` replaces the client's for each request
        (a poll should not wait 30 s on a hung one)."""
        return self.rest_of_run(run_id, self.get_run_page(run_id, timeout), timeout)

    def get_run_page(self, run_id: str, timeout: float | None = None) -> Json:
        """`GET /workflow-runs/{id}`, its first page alone: the summary (`status`) and the
        first steps, with `next_steps_after` when more follow; what a poll needs."""
        extra: dict[str, Any] = {} if timeout is None else {"timeout": timeout}
        return self._call("GET", f"workflow-runs/{_segment(run_id)}", bodies.RUN_DETAIL, **extra)

    def rest_of_run(self, run_id: str, first: Json, timeout: float | None = None) -> Json:
        """`first`, the run's first page, and every page after it made one (`get_run`)."""
        extra: dict[str, Any] = {} if timeout is None else {"timeout": timeout}
        path = f"workflow-runs/{_segment(run_id)}"
        pages = [first]
        followed: set[str] = set()
        while (after := pages[-1].get("next_steps_after")) is not None:
            self._stuck(path, "next_steps_after", after, followed, not pages[-1].get("steps"))
            params = {"steps_after": after}
            pages.append(self._call("GET", path, bodies.RUN_DETAIL, params=params, **extra))
        return _whole_run(pages)

    def cancel_run(self, run_id: str, reason: str | None) -> tuple[bool, Json]:
        """`POST /workflow-runs/{id}/cancel` -> (True when this request recorded it: 202, body).

        Without `reason` no body is sent and the gateway records its default reason.
        """
        body = None if reason is None else {"reason": reason}
        path = f"workflow-runs/{_segment(run_id)}/cancel"
        code, answer = self._send("POST", path, bodies.RUN_CANCEL, json=body)
        return code == 202, answer

    def versions(self, name: str) -> list[Json]:
        """`GET /workflows/{name}/versions`, newest first: every version, page after page
        (`?after=`), as a page holds about 512 KiB of them."""
        path = f"workflows/{_segment(name)}/versions"
        return self._pages(path, bodies.VERSION_LIST, "versions", None)

    def rollback(self, name: str, version_id: str) -> Json:
        """`POST /workflows/{name}/rollback`: a new version equal to `version_id`."""
        body = {"version_id": version_id}
        return self._call(
            "POST", f"workflows/{_segment(name)}/rollback", bodies.ROLLED_BACK, json=body
        )

    def diff(self, from_id: str, to_id: str) -> Json:
        """`GET /workflow-versions/{from}/diff/{to}`."""
        path = f"workflow-versions/{_segment(from_id)}/diff/{_segment(to_id)}"
        return self._call("GET", path, bodies.VERSION_DIFF)

    def _stuck(self, path: str, name: str, after: str, followed: set[str], empty: bool) -> None:
        """A `GatewayError` naming the route and the cursor when `after`, a page's `name`,
        was `followed` already or came with a page of nothing (`empty`): a broken or older
        gateway's, which would have the CLI read the same pages without end. Else `after` is
        added to `followed`."""
        if after in followed:
            found = f"the same {name} {after!r} again"
        elif empty:
            found = f"a page with nothing on it and {name} {after!r}"
        else:
            followed.add(after)
            return
        raise GatewayError(
            f"the gateway at {self.base_url} answered GET /{path} with {found}: following it "
            "would read the same pages without end, so the list stops here (is the gateway "
            "older than this CLI, or broken?)",
            status=200,
        )

    def _call(self, method: str, path: str, shape: Shape, **kwargs: Any) -> Json:
        return self._send(method, path, shape, **kwargs)[1]

    def _send(self, method: str, path: str, shape: Shape, **kwargs: Any) -> tuple[int, Json]:
        """The HTTP status and decoded body of a 2xx answer whose body has `shape`; a
        `GatewayError` otherwise (a body the CLI cannot read names the route and the problem)."""
        import httpx

        try:
            response = self._http.request(method, path, **kwargs)
        except httpx.HTTPError as exc:
            reason = str(exc) or type(exc).__name__
            raise GatewayError(f"cannot reach the gateway at {self.base_url}: {reason}") from None
        if not response.is_success:
            raise _error_of(response, self.base_url)
        try:
            return response.status_code, bodies.read_body(response, shape)
        except bodies.UnreadableBody as exc:
            raise GatewayError(str(exc), status=response.status_code) from None


def _whole_run(pages: list[Json]) -> Json:
    """A run's detail from its pages: the last page's summary (the freshest), every page's
    steps in order, and their handoffs and messages in the order they happened."""
    if len(pages) == 1:
        return pages[0]
    whole = dict(pages[-1])
    whole["steps"] = [step for page in pages for step in page.get("steps") or []]
    for key in ("handoffs", "messages"):
        merged = [item for page in pages for item in page.get(key) or []]
        whole[key] = sorted(merged, key=_happened)  # stable: a page's own order is kept
    whole["more_steps"], whole["next_steps_after"] = 0, None
    return whole


def _happened(item: Json) -> datetime:
    at = item.get("at")
    try:
        return datetime.fromisoformat(at) if isinstance(at, str) else _NEVER
    except ValueError:
        return _NEVER


_NEVER = datetime.min.replace(tzinfo=UTC)


def _not_ours(response: httpx.Response) -> str:
    """An answer without the gateway's error body (a proxy's page, another server), said on
    one line: an HTML page printed as it came was a screenful of markup."""
    kind = response.headers.get("content-type", "").partition(";")[0].strip().lower()
    if kind in ("text/html", "application/xhtml+xml"):
        return f"{response.reason_phrase} (an HTML page, not the gateway's answer)"
    text = " ".join(response.text.split())
    return (text[:197] + "..." if len(text) > 200 else text) or response.reason_phrase


def _error_of(response: httpx.Response, base_url: str) -> GatewayError:
    """The common error body `{"error": {"code", "message", "details"}}` as a `GatewayError`."""
    status = response.status_code
    try:
        error = response.json().get("error")
    except (ValueError, AttributeError, RecursionError):
        error = None
    ours = isinstance(error, dict)
    if not ours:
        error = {"code": f"http_{status}", "message": _not_ours(response), "details": []}
    message = detail = str(error.get("message") or response.reason_phrase)
    details = error.get("details") or []
    problems = tuple(
        Problem(str(d.get("field") or ""), str(d.get("message") or ""))
        for d in details
        if isinstance(d, dict)
    )
    if status in UNREACHABLE_STATUSES and ours:
        # The gateway answered: what it could not reach is behind it ("no responders on
        # 'workflow.cmd.dag_cancel'"), not the gateway, as "cannot reach the gateway" said.
        message = f"the gateway at {base_url} could not serve this ({status}): {message}"
    elif status in UNREACHABLE_STATUSES:
        message = f"cannot reach the gateway at {base_url}: {message}"
    elif status == 401:
        message = f"the gateway refused the token: {message} ({_token_hint(message)})"
    else:
        message = f"HTTP {status} {error.get('code', '')}: {message}".replace("  ", " ")
    return GatewayError(message, status=status, problems=problems, detail=detail)


def _token_hint(refusal: str) -> str:
    """What to do about a refused token. One that does not verify was signed with another
    secret than the gateway's, the usual slip with a gateway run apart from `baton up`."""
    if "signature does not verify" in refusal:
        return (
            "it was signed with another secret than the gateway's BATON_JWT_SECRET: mint it "
            "with that one, `BATON_JWT_SECRET=... baton token --user NAME`, into BATON_TOKEN"
        )
    return "set BATON_TOKEN; see `baton token`"
