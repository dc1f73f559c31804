"""A problem the gateway names by where the request held it reads as the user wrote it."""

from __future__ import annotations

import pytest

from baton_cli.gateway_client import Problem


@pytest.mark.parametrize(
    ("field", "shown"),
    [
        ("body.steps[0].agent", "steps[0].agent: bad"),  # a path in the file
        ("body.variables.topic", "variables.topic: bad"),  # a --var
        ("body", "bad"),  # the file as a whole
        ("query.limit", "limit: bad"),
        ("path.name", "name: bad"),
        ("", "bad"),
        ("steps[0]", "steps[0]: bad"),  # not in the request: as the gateway said it
    ],
)
def test_a_problem_reads_as_its_path_in_what_the_user_wrote(field: str, shown: str) -> None:
    assert str(Problem(field, "bad")) == shown
