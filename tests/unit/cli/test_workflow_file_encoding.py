"""A workflow file the CLI cannot decode is one usage error saying what to do."""

from __future__ import annotations

from pathlib import Path

import pytest

from baton_cli.workflow_input import InputError, load_document

DOCUMENT = '{"name": "w", "steps": [{"id": "a", "prompt": "héllo"}]}'


@pytest.mark.parametrize(("encoding", "byte"), [("utf-16", 0), ("latin-1", 48)])
def test_a_file_not_in_utf8_is_named_with_the_byte_and_the_fix(
    tmp_path: Path, encoding: str, byte: int
) -> None:
    path = tmp_path / "wf.json"
    path.write_bytes(DOCUMENT.encode(encoding))
    with pytest.raises(InputError) as caught:
        load_document(path)
    assert str(caught.value) == (
        f"{path}: cannot read: it is not UTF-8 (byte {byte}); save it as UTF-8"
    )


def test_a_utf8_file_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    path = tmp_path / "wf.json"
    path.write_bytes(DOCUMENT.encode("utf-8-sig"))
    assert load_document(path)["steps"][0]["prompt"] == "héllo"


@pytest.mark.parametrize(
    ("name", "text", "where"),
    [
        ("wf.json", '{"name": "w",\n  "steps": [}', "at line 2, column 13"),
        ("wf.yaml", "name: w\nsteps: [a\n", "at line 3, column 1"),
    ],
)
def test_a_syntax_error_is_placed_as_the_gateway_places_it(
    tmp_path: Path, name: str, text: str, where: str
) -> None:
    # The CLI wrote "at line 3 column 1" where the gateway (and dag-workflows.md) write
    # "at line 3, column 1".
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(InputError) as caught:
        load_document(path)
    assert str(caught.value).endswith(where)
