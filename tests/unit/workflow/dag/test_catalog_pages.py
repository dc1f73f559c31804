"""A diff of two versions is at most about `PAGE_BYTES` of JSON: long lines cut, lines past the
bound left out, each place saying so; and the list and read of workflows cut a description
only where it would not fit."""

from __future__ import annotations

import json

from baton_contracts.dag_api import (
    DagVersionDiff,
    DagVersionList,
    DagWorkflowList,
    ListDagVersions,
    ListDagWorkflows,
)
from baton_contracts.workflow_api import PAGE_BYTES
from baton_workflow.service.dag_catalog_pages import LONGEST_LINE, bounded_diff


def test_a_diff_that_fits_is_whole() -> None:
    diff = "--- w@1\n+++ w@2\n@@ -1 +1 @@\n-" + "a" * 100_000 + "\n+b\n"
    assert bounded_diff(diff) == (diff, False)


def test_a_diff_of_many_lines_leaves_out_those_past_the_bound() -> None:
    lines = [f'-  "v{n}": "{"é" * 40}",\n' for n in range(20_000)]
    shortened, cut = bounded_diff("--- w@1\n+++ w@2\n" + "".join(lines))
    assert cut
    assert PAGE_BYTES // 2 < len(json.dumps(shortened, ensure_ascii=False)) <= PAGE_BYTES
    kept = shortened.splitlines()
    assert kept[:2] == ["--- w@1", "+++ w@2"] and kept[2] == lines[0].rstrip("\n")
    assert kept[-1].startswith(f"\\ {20_002 - len(kept) + 1} more lines left out")


def test_a_long_line_is_cut_saying_how_much() -> None:
    line = "+" + "é" * 600_000
    shortened, cut = bounded_diff(f"--- w@1\n+++ w@2\n{line}\n c\n")
    assert cut
    assert shortened.splitlines()[2] == (
        line[:LONGEST_LINE] + f"… [{600_001 - LONGEST_LINE} more characters cut: a diff holds "
        "about 512 KiB]"
    )
    assert shortened.endswith("\n c\n")


def test_shortened_is_left_off_the_wire_unless_true() -> None:
    """A gateway older than the field refuses unknown ones: it still reads every whole diff."""
    whole = DagVersionDiff(from_version="w@1", to_version="w@2", diff="")
    assert "shortened" not in json.loads(whole.model_dump_json(by_alias=True))
    cut = whole.model_copy(update={"shortened": True})
    assert json.loads(cut.model_dump_json(by_alias=True))["shortened"] is True


def test_paging_fields_are_left_off_the_wire_at_their_defaults() -> None:
    """A workflow service older than paging refuses unknown fields: the first page's query is
    the query it knew; and an older gateway reads a last page."""
    assert json.loads(ListDagWorkflows(user_id="u").model_dump_json()).keys() == {
        "type",
        "user_id",
    }
    versions = ListDagVersions(user_id="u", name="w")
    assert json.loads(versions.model_dump_json()).keys() == {"type", "user_id", "name"}
    asked = ListDagVersions(user_id="u", name="w", after="w@2", limit=5)
    assert json.loads(asked.model_dump_json())["after"] == "w@2"
    assert "next_after" not in DagWorkflowList(workflows=[]).model_dump_json()
    assert "next_after" not in DagVersionList(name="w", versions=[]).model_dump_json()
