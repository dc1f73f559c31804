"""A broken or older gateway that hands back a cursor that cannot move its list on (the same
`next_after` again, or one after a page of nothing) stops the CLI's page-following loops
with an error naming the route and the cursor, instead of reading the same pages without end.

The fake gateway gives up repeating itself after `GIVE_UP` requests (a last page, no cursor),
so that a CLI without the guard ends too, and fails these tests instead of hanging them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from baton_cli.gateway_client import GatewayClient, GatewayError
from baton_cli.main import app
from baton_cli.workflows import WorkflowCliDeps

from .fake_workflow_gateway import TOKEN

runner = CliRunner()
ENV = {"BATON_URL": "http://gw.test", "BATON_TOKEN": TOKEN, "BATON_USER": None}
GIVE_UP = 20

Page = Callable[[httpx.Request, int], dict[str, object]]


class StuckGateway:
    """Answers every request with `page(request, n)`, n counting requests from 1; after
    `GIVE_UP` requests, with a last page (no cursor)."""

    def __init__(self, key: str, page: Page) -> None:
        self.key, self.page, self.requests = key, page, 0

    def handle(self, request: httpx.Request) -> httpx.Response:
        self.requests += 1
        if self.requests > GIVE_UP:
            return httpx.Response(200, json={self.key: [{"name": "last"}], "next_after": None})
        return httpx.Response(200, json=self.page(request, self.requests))


def run(tmp_path: Path, gateway: StuckGateway, *args: str) -> tuple[int, str]:
    obj = WorkflowCliDeps(transport=httpx.MockTransport(gateway.handle))
    result = runner.invoke(app, ["workflow", "--data-dir", str(tmp_path), *args], obj=obj, env=ENV)
    return result.exit_code, result.stderr


def same_cursor(key: str) -> StuckGateway:
    return StuckGateway(key, lambda _, n: {key: [{"name": f"w{n}", "run_id": f"r{n}"}],
                                            "next_after": "stuck"})  # fmt: skip


@pytest.mark.parametrize(
    ("args", "key", "route"),
    [
        (["list"], "workflows", "GET /workflows"),
        (["history", "w"], "versions", "GET /workflows/w/versions"),
        (["runs", "--limit", "1000", "--json"], "runs", "GET /workflow-runs"),
        (["runs", "w", "--limit", "1000", "--json"], "runs", "GET /workflows/w/runs"),
    ],
)
def test_the_same_next_after_again_stops_the_list_naming_the_route_and_cursor(
    tmp_path: Path, args: list[str], key: str, route: str
) -> None:
    gateway = same_cursor(key)
    code, stderr = run(tmp_path, gateway, *args)
    assert code == 1, stderr
    assert route in stderr and "the same next_after 'stuck' again" in stderr
    assert gateway.requests == 2  # the first page, and the one that repeated its cursor


def test_a_cursor_that_comes_round_again_later_stops_the_list_too(tmp_path: Path) -> None:
    cursors = ["a", "b", "c", "a"]  # the fourth page's cursor is the first page's

    def page(request: httpx.Request, n: int) -> dict[str, object]:
        return {"workflows": [{"name": f"w{n}"}], "next_after": cursors[min(n, 4) - 1]}

    gateway = StuckGateway("workflows", page)
    code, stderr = run(tmp_path, gateway, "list")
    assert code == 1, stderr
    assert "GET /workflows" in stderr and "next_after 'a' again" in stderr
    assert gateway.requests == 4


def test_a_page_of_nothing_with_a_next_after_stops_the_list_rather_than_cutting_it_short(
    tmp_path: Path,
) -> None:
    """Said to be followed by more, an empty page would leave the list cut short unsaid."""

    def page(request: httpx.Request, n: int) -> dict[str, object]:
        if n == 1:
            return {"versions": [{"version_id": "w@2"}], "next_after": "w@2"}
        return {"versions": [], "next_after": "w@1"}

    code, stderr = run(tmp_path, StuckGateway("versions", page), "history", "w")
    assert code == 1, stderr
    assert "GET /workflows/w/versions" in stderr
    assert "a page with nothing on it and next_after 'w@1'" in stderr


def test_a_list_whose_cursors_move_on_is_read_to_its_end(tmp_path: Path) -> None:
    def page(request: httpx.Request, n: int) -> dict[str, object]:
        more = n < 3
        return {"workflows": [{"name": f"w{n}"}], "next_after": f"w{n}" if more else None}

    gateway = StuckGateway("workflows", page)
    code, stderr = run(tmp_path, gateway, "list", "--json")
    assert code == 0, stderr
    assert gateway.requests == 3


def test_a_runs_page_repeating_its_steps_cursor_stops_naming_the_route_and_cursor() -> None:
    """`next_steps_after`, the run detail's cursor, is guarded the same way."""

    def page(request: httpx.Request, n: int) -> dict[str, object]:
        steps = [{"id": f"s{n}", "status": "pending"}]
        return {"run_id": "r1", "status": "running", "steps": steps, "next_steps_after": "s1"}

    gateway = StuckGateway("steps", page)
    client = GatewayClient("http://gw.test", TOKEN, transport=httpx.MockTransport(gateway.handle))
    with pytest.raises(GatewayError) as caught:
        client.get_run("r1")
    assert "GET /workflow-runs/r1" in str(caught.value)
    assert "the same next_steps_after 's1' again" in str(caught.value)
    assert not caught.value.unreachable
