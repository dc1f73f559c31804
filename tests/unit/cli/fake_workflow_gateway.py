"""An in-memory gateway speaking the DAG workflow HTTP contract, behind `httpx.MockTransport`.

Runs advance one move each time they are read: the first unfinished step goes pending ->
running -> success. A step whose prompt contains `FAIL` ends in `error` (stopping the run), one
with `OVER_BUDGET` too but with `error_code` `budget_exceeded`; one
whose prompt contains `FLAKY` needs a second attempt. A run whose cancel was recorded ends
`cancelled` when it is next read. Knobs: `down` refuses every connection, `unreachable_reads`
answers 503 to that many run reads, `status_503` answers 503 to everything,
`validates_stored_only` answers 404 to validating a document whose workflow is not stored yet,
`late_cancels` lets a run go on to its end by itself although its cancel was recorded.
"""

from __future__ import annotations

import copy
import difflib
import json
import re
from dataclasses import dataclass, field
from typing import Any

import httpx
import yaml  # type: ignore[import-untyped]

from baton_auth import InvalidToken, verify_token

TOKEN = "test-token"
SECRET = "s" * 40
NAME = re.compile(r"^[A-Za-z0-9_-]{1,128}$")
T0 = "2025-01-01T10:00:00+00:00"
T1 = "2025-01-01T10:00:01.500000+00:00"
DEFAULT_CANCEL_REASON = "cancelled by its owner"

Json = dict[str, Any]


class Reply(Exception):
    """Raised inside the handler to answer with a status and body."""

    def __init__(self, status: int, body: Json | None = None) -> None:
        self.status = status
        self.body = body


def _error(status: int, code: str, message: str, details: list[Json] | None = None) -> Reply:
    return Reply(status, {"error": {"code": code, "message": message, "details": details or []}})


def _no_run(run_id: str) -> list[Json]:
    """What the gateway names for a run that is not there (every 404 of its routes names it)."""
    return [{"field": "path.run_id", "message": f"no run {run_id!r}"}]


def problems_of(document: Json) -> list[Json]:
    """A few of the real rules, enough to report several problems at once, each named as the
    gateway names it: by its path in the body."""
    found: list[Json] = []
    name = document.get("name")
    if not isinstance(name, str) or not NAME.match(name):
        found.append({"field": "body.name", "message": "required; letters, digits, - and _ only"})
    steps = document.get("steps") or []
    if not steps:
        found.append({"field": "body.steps", "message": "at least one step is required"})
    ids = {step.get("id") for step in steps}
    for i, step in enumerate(steps):
        for j, dep in enumerate(step.get("dependsOn") or []):
            if dep not in ids:
                found.append({"field": f"body.steps[{i}].dependsOn[{j}]",
                              "message": f'unknown step "{dep}"'})  # fmt: skip
        if step.get("onError", "stop") not in ("stop", "skip", "retry"):
            found.append({"field": f"body.steps[{i}].onError",
                          "message": "must be one of stop, skip, retry"})  # fmt: skip
    return found


@dataclass
class FakeGateway:
    """The contract's routes over dicts; `requests` keeps every request the CLI sent."""

    versions: dict[str, list[Json]] = field(default_factory=dict)
    history: dict[str, list[Json]] = field(default_factory=dict)
    deleted: set[str] = field(default_factory=set)
    runs: dict[str, Json] = field(default_factory=dict)
    cancels: dict[str, str] = field(default_factory=dict)
    runs_page: int = 0
    """The most runs a page lists, as a page's bytes bound it (0: `limit` alone)."""
    list_page: int = 0
    """The most workflows, or versions, a page lists, as its bytes bound it (0: no bound)."""
    requests: list[httpx.Request] = field(default_factory=list)
    users: list[str] = field(default_factory=list)
    sleeps: list[float] = field(default_factory=list)
    down: bool = False
    status_503: bool = False
    unreachable_reads: int = 0
    validates_stored_only: bool = False
    warnings: list[str] = field(default_factory=list)  # in a save's or a validation's answer
    late_cancels: bool = False
    steps_per_page: int | None = None  # a run's detail lists this many steps a page
    run_cost: float = 0.0021  # what a run costs once it succeeds
    estimate_cost: float = 0.0123  # a dry run's estimate

    @property
    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self.handle)

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)

    # --- setup helpers -----------------------------------------------------------------
    def store(self, document: Json, action: str = "create", since: str | None = None) -> Json:
        name = document["name"]
        self.deleted.discard(name)
        versions = self.versions.setdefault(name, [])
        versions.append(copy.deepcopy(document))
        number = len(versions)
        self.history.setdefault(name, []).insert(0, {
            "version": number, "version_id": f"{name}@{number}", "created_at": T0,
            "action": action if number > 1 or action == "rollback" else "create",
            "rolled_back_to": since,
        })  # fmt: skip
        return {"name": name, "version": number, "version_id": f"{name}@{number}", "changed": True}

    def add_run(self, run: Json) -> None:
        self.runs[run["run_id"]] = run

    # --- transport ---------------------------------------------------------------------
    def handle(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if self.down:
            raise httpx.ConnectError("[Errno 111] Connection refused", request=request)
        try:
            if self.status_503:
                raise _error(503, "unavailable", "the workflow service did not answer")
            self._authorize(request)
            self._route(request)
        except Reply as reply:
            if reply.body is None:
                return httpx.Response(reply.status)
            return httpx.Response(reply.status, json=reply.body)
        raise AssertionError(f"unrouted {request.method} {request.url.path}")

    def _authorize(self, request: httpx.Request) -> None:
        token = request.headers.get("Authorization", "").removeprefix("Bearer ")
        if token == TOKEN:
            self.users.append("token-user")
            return
        try:
            self.users.append(verify_token(SECRET, token).user_id)
        except InvalidToken as exc:
            raise _error(401, "unauthorized", str(exc)) from None

    def _route(self, request: httpx.Request) -> None:
        parts = request.url.path.strip("/").split("/")
        method = request.method
        if parts == ["workflows"]:
            self._list(request) if method == "GET" else self._create(request)
        if parts[0] == "workflows" and len(parts) == 2:
            self._get(parts[1]) if method == "GET" else self._delete(parts[1])
        if parts[0] == "workflows" and len(parts) == 3:
            name, action = parts[1], parts[2]
            handler = {"validate": self._validate, "run": self._run, "runs": self._runs_of,
                       "versions": self._versions, "rollback": self._rollback}[action]  # fmt: skip
            handler(name, request)
        if parts[0] == "workflow-runs":
            if len(parts) == 1:
                self._all_runs(request)
            if parts[2:] == ["cancel"]:
                self._cancel(parts[1], request)
            self._read_run(parts[1], request)
        if parts[0] == "workflow-versions":
            self._diff(parts[1], parts[3])

    def _latest(self, name: str) -> Json:
        if name not in self.versions or name in self.deleted:
            missing = [{"field": "path.name", "message": f"no workflow {name!r}"}]
            raise _error(404, "not_found", f"workflow {name!r} not found", missing)
        return self.versions[name][-1]

    def _list(self, request: httpx.Request) -> None:
        rows = [{"name": n, "description": v[-1].get("description", ""), "version": len(v),
                 "version_id": f"{n}@{len(v)}", "steps": len(v[-1]["steps"]), "updated_at": T0}
                for n, v in sorted(self.versions.items()) if n not in self.deleted]  # fmt: skip
        after = request.url.params.get("after")
        rows = [r for r in rows if after is None or r["name"] > after]
        page = rows[: self.list_page or None]
        more = len(page) < len(rows)
        raise Reply(200, {"workflows": page, "next_after": page[-1]["name"] if more else None})

    def _body(self, request: httpx.Request) -> Json:
        if request.headers.get("content-type", "").startswith("application/yaml"):
            loaded: Json = yaml.safe_load(request.content)
            return loaded
        loaded = json.loads(request.content)
        return loaded

    def _create(self, request: httpx.Request) -> None:
        document = self._body(request)
        if found := problems_of(document):
            raise _error(422, "invalid", "workflow is invalid", found)
        name = document["name"]
        latest = self.versions.get(name, [None])[-1] if name not in self.deleted else None
        if latest == document:
            n = len(self.versions[name])
            raise Reply(200, {"name": name, "version": n, "version_id": f"{name}@{n}",
                              "changed": False})  # fmt: skip
        saved = self.store(document, "update" if name in self.versions else "create")
        raise Reply(201, {**saved, **({"warnings": self.warnings} if self.warnings else {})})

    def _get(self, name: str) -> None:
        doc = self._latest(name)
        n = len(self.versions[name])
        raise Reply(200, {"name": name, "description": doc.get("description", ""), "version": n,
                          "version_id": f"{name}@{n}", "definition": doc, "created_at": T0,
                          "updated_at": T0})  # fmt: skip

    def _delete(self, name: str) -> None:
        self._latest(name)
        self.deleted.add(name)
        raise Reply(204)

    def _validate(self, name: str, request: httpx.Request) -> None:
        if self.validates_stored_only:
            self._latest(name)
        document = self._body(request) if request.content else self._latest(name)
        found = problems_of(document)
        if not found and document.get("name") != name:  # checked once the document is valid
            found.append({"field": "body.name", "message": f"must be {name}"})
        if found:
            raise _error(422, "invalid", "workflow is invalid", found)
        warned = {"warnings": self.warnings} if self.warnings else {}
        raise Reply(200, {"valid": True, "name": name, "problems": [], **warned})

    def _run(self, name: str, request: httpx.Request) -> None:
        doc = self._latest(name)
        body = self._body(request)
        defaults: dict[str, str] = doc.get("variables") or {}
        given: dict[str, str] = body.get("variables") or {}
        found = [{"field": f"body.variables.{k}", "message": "required variable has no value"}
                 for k, v in defaults.items() if v == "" and k not in given]  # fmt: skip
        found += [{"field": f"body.variables.{k}", "message": "unknown variable"}
                  for k in given if k not in defaults]  # fmt: skip
        if found:
            raise _error(422, "invalid", "variables are invalid", found)
        n = len(self.versions[name])
        run_id = f"run-{len(self.runs) + 1}"
        run = {"run_id": run_id, "workflow": name, "version": n, "version_id": f"{name}@{n}",
               "mode": body.get("mode", "live"), "status": "running", "started_at": T0,
               "finished_at": None, "cost_usd": 0.0, "error": None,
               "variables": {**defaults, **given}, "handoffs": [], "messages": [],
               "estimate": None, "steps": [_step(s) for s in doc["steps"]]}  # fmt: skip
        self.runs[run_id] = run
        raise Reply(202, {k: run[k] for k in ("run_id", "workflow", "version", "version_id",
                                              "mode", "status")})  # fmt: skip

    def _summaries(self, runs: list[Json], request: httpx.Request) -> None:
        limit = int(request.url.params.get("limit", "50"))
        keys = ("run_id", "workflow", "version", "version_id", "mode", "status", "started_at",
                "finished_at", "cost_usd", "error")  # fmt: skip
        rows = [{k: r[k] for k in keys} for r in reversed(runs) if r["mode"] != "shadow"]
        after = request.url.params.get("after")
        if after is not None:
            rows = rows[[r["run_id"] for r in rows].index(after) + 1 :]
        page = rows[: min(limit, self.runs_page or limit)]
        more = len(page) < len(rows)
        raise Reply(200, {"runs": page, "next_after": page[-1]["run_id"] if more else None})

    def _runs_of(self, name: str, request: httpx.Request) -> None:
        self._latest(name)
        self._summaries([r for r in self.runs.values() if r["workflow"] == name], request)

    def _all_runs(self, request: httpx.Request) -> None:
        wanted = request.url.params.get("workflow")
        runs = [r for r in self.runs.values() if wanted in (None, r["workflow"])]
        self._summaries(runs, request)

    def _read_run(self, run_id: str, request: httpx.Request) -> None:
        if self.unreachable_reads > 0:
            self.unreachable_reads -= 1
            raise _error(503, "unavailable", "workflow service restarting")
        run = self.runs.get(run_id)
        if run is None:
            raise _error(404, "not_found", f"no run {run_id}", _no_run(run_id))
        _advance(run, None if self.late_cancels else self.cancels.get(run_id), self)
        raise Reply(200, self._page(public_run(run), request.url.params.get("steps_after")))

    def _page(self, run: Json, steps_after: str | None) -> Json:
        """The steps after `steps_after`, `steps_per_page` of them, with their messages and
        handoffs, as the gateway pages a run too large for one reply."""
        if self.steps_per_page is None:
            return run
        ids = [step["id"] for step in run["steps"]]
        start = ids.index(steps_after) + 1 if steps_after is not None else 0
        listed = ids[start : start + self.steps_per_page]
        more = len(ids) - start - len(listed)
        return {**run, "steps": [s for s in run["steps"] if s["id"] in listed],
                "messages": [m for m in run["messages"] if m["step"] in listed],
                "handoffs": [h for h in run["handoffs"] if h["to"] in listed],
                "more_steps": more, "next_steps_after": listed[-1] if more else None}  # fmt: skip

    def _cancel(self, run_id: str, request: httpx.Request) -> None:
        reason = self._body(request).get("reason") if request.content else DEFAULT_CANCEL_REASON
        if not isinstance(reason, str) or not 1 <= len(reason) <= 500:
            found = [{"field": "body.reason", "message": "must be 1 to 500 characters"}]
            raise _error(422, "invalid", "the cancel request is invalid", found)
        run = self.runs.get(run_id)
        if run is None:
            raise _error(404, "not_found", f"no run {run_id}", _no_run(run_id))
        if run["status"] not in ("running", "cancelled"):
            raise _error(409, "conflict", f"run {run_id} already ended with status "
                         f"{run['status']}; only a running run can be cancelled")  # fmt: skip
        recorded = run["status"] == "running" and run_id not in self.cancels
        reason = self.cancels.setdefault(run_id, reason)  # the first reason is kept
        raise Reply(202 if recorded else 200,
                    {"run_id": run_id, "status": run["status"], "reason": reason})  # fmt: skip

    def _versions(self, name: str, request: httpx.Request) -> None:
        self._latest(name)
        rows = self.history[name]
        after = request.url.params.get("after")
        if after is not None:
            rows = rows[[r["version_id"] for r in rows].index(after) + 1 :]
        page = rows[: self.list_page or None]
        more = len(page) < len(rows)
        after = page[-1]["version_id"] if more else None
        raise Reply(200, {"name": name, "versions": page, "next_after": after})

    def _rollback(self, name: str, request: httpx.Request) -> None:
        self._latest(name)
        target = json.loads(request.content)["version_id"]
        answer = self.store(self._document(target, "body.version_id"), "rollback", target)
        answer.pop("changed")
        raise Reply(200, {**answer, "rolled_back_to": target})

    def _document(self, version_id: str, field: str) -> Json:
        """The version's document; a 404 naming `field`, as the gateway's does."""
        name, _, number = version_id.partition("@")
        if name not in self.versions or int(number) > len(self.versions[name]):
            missing = [{"field": field, "message": f"no version {version_id!r}"}]
            raise _error(404, "not_found", f"version {version_id!r} not found", missing)
        return self.versions[name][int(number) - 1]

    def _diff(self, from_id: str, to_id: str) -> None:
        a, b = (json.dumps(self._document(v, f), indent=2).splitlines(keepends=True)
                for v, f in ((from_id, "path.from_id"), (to_id, "path.to_id")))  # fmt: skip
        text = "".join(difflib.unified_diff(a, b, fromfile=from_id, tofile=to_id))
        raise Reply(200, {"from": from_id, "to": to_id, "diff": text})


def public_run(run: Json) -> Json:
    """The run as the gateway shows it (without the fake's hidden `_prompt`)."""
    shown = copy.deepcopy(run)
    for step in shown["steps"]:
        step.pop("_prompt", None)
    return shown


def _step(step: Json) -> Json:
    return {"id": step["id"], "type": step.get("type", "dispatch"), "status": "pending",
            "attempts": 0, "output": "", "error": None, "error_code": None, "started_at": None,
            "finished_at": None,
            "cost_usd": 0.0, "tokens_in": 0, "tokens_out": 0, "agent": step.get("agent"),
            "_prompt": step.get("prompt", "")}  # fmt: skip


def _advance(run: Json, cancel: str | None, costs: FakeGateway) -> None:
    """One move of the first unfinished step (hidden `_prompt` says how it behaves), or the end
    of a run whose `cancel` was recorded: its running steps cancelled, its pending ones skipped."""
    if run["status"] != "running":
        return
    if cancel is not None:
        error = f"run cancelled: {cancel}"
        for step in run["steps"]:
            if step["status"] == "running":
                step.update(status="cancelled", error=error, finished_at=T1)
            elif step["status"] == "pending":
                step.update(status="skipped")
        run.update(status="cancelled", finished_at=T1, error=error)
        return
    pending = [s for s in run["steps"] if s["status"] in ("pending", "running")]
    if not pending:
        run.update(status="success", finished_at=T1, cost_usd=costs.run_cost)
        return
    step = pending[0]
    prompt = step["_prompt"]
    if step["status"] == "pending":
        step.update(status="running", attempts=1, started_at=T0)
    elif "FLAKY" in prompt and step["attempts"] == 1:
        step.update(attempts=2)
    elif "FAIL" in prompt or "OVER_BUDGET" in prompt:
        if "FAIL" in prompt:
            step.update(error="agent hisui failed: model refused", error_code="error")
        else:
            step.update(error="step cost $0.5000 exceeded its budget $0.1000",
                        error_code="budget_exceeded")  # fmt: skip
        step.update(status="error", finished_at=T1)
        for other in pending[1:]:
            other.update(status="skipped")
        run.update(status="error", finished_at=T1, error=f"step {step['id']} failed")
    else:
        output = prompt if "LONG" in prompt else f"[{step['id']}] done: {prompt[:40]}"
        step.update(status="success", output=output, finished_at=T1, cost_usd=0.001)
        if run["mode"] == "dry_run":
            estimate = costs.estimate_cost
            run["estimate"] = {"tokens_in": 1200, "tokens_out": 800, "cost_usd": estimate}
