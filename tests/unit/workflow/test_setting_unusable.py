"""A setting read well but naming what cannot be used stops the workflow service with status
2 and one line naming its variable, as a bad setting does (found by a review of the settings:
they named the Python field, `workflow_tool_denied_hosts`, and exited with status 1)."""

from __future__ import annotations

from pathlib import Path

import pytest

from baton_workflow.entrypoints.main import main


@pytest.mark.parametrize(
    ("variable", "value", "said"),
    [
        (
            "BATON_WORKFLOW_TOOL_DENIED_HOSTS",
            '["10.0.0.0/33"]',
            "'10.0.0.0/33' is not an IP network",
        ),
        ("BATON_WORKFLOW_CHECKER_MODULES", '["no_such_mod_x"]', "cannot import 'no_such_mod_x'"),
        ("BATON_WORKFLOW_TOOL_MODULES", '["no_such_mod_x"]', "cannot import 'no_such_mod_x'"),
        ("BATON_WORKFLOW_SKILL_MODULES", '["json"]', "'json' has no register_skills(registry)"),
    ],
)
def test_an_unusable_setting_stops_the_service_with_one_line_naming_it(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    variable: str,
    value: str,
    said: str,
) -> None:
    monkeypatch.setenv("BATON_DATABASE_URL", f"sqlite+aiosqlite:///{tmp_path / 'w.db'}")
    monkeypatch.setenv(variable, value)
    with pytest.raises(SystemExit) as ended:
        main()
    assert ended.value.code == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(f"workflow: {variable}: {said}"), line


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("ftp://search.example/search", "must be an http:// or https://"),
        ("search.example", "must be an http:// or https://"),
        ("http://", "must be an http:// or https://"),
        # Taken as they were, every web-search step failed on its port at run time.
        ("http://search.example:eighty/search", "not a URL"),
        ("http://search.example:99999/search", "not a URL"),
    ],
)
def test_a_search_url_that_is_no_http_url_is_a_bad_setting(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], value: str, said: str
) -> None:
    # Taken as it was, every web-search step then failed with "only http, https URLs are
    # allowed", which reads like a fault of the step's input.
    monkeypatch.setenv("BATON_WORKFLOW_SEARCH_URL", value)
    with pytest.raises(SystemExit) as ended:
        main()
    assert ended.value.code == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(f"workflow: invalid settings: BATON_WORKFLOW_SEARCH_URL: {said}"), line
