"""The replica id kept in the data folder: reused after a restart, never by two live processes."""

from __future__ import annotations

import logging
import re
from pathlib import Path

import pytest

from baton_eventstore.replica_id import ReplicaIdFile

FILE_NAME = "workflow-replica-id"


def test_the_first_claim_makes_an_id_and_a_restart_gets_it_again(tmp_path: Path) -> None:
    first = ReplicaIdFile(tmp_path / "data", FILE_NAME)
    replica = first.claim()
    assert replica is not None and re.fullmatch(r"[0-9a-f]{32}", replica)
    assert (tmp_path / "data" / FILE_NAME).read_text() == f"{replica}\n"
    first.release()  # the process ended (the kernel closes the file however it ends)

    assert ReplicaIdFile(tmp_path / "data", FILE_NAME).claim() == replica


def test_a_second_live_process_on_the_folder_gets_no_id(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    first = ReplicaIdFile(tmp_path, FILE_NAME)
    replica = first.claim()
    second = ReplicaIdFile(tmp_path, FILE_NAME)  # another open of the file: another process's lock

    assert second.claim() is None
    assert f"{tmp_path / FILE_NAME} is held by another running process" in caplog.text
    first.release()
    assert second.claim() == replica


def test_a_file_without_an_id_gets_a_new_one(tmp_path: Path) -> None:
    (tmp_path / FILE_NAME).write_text("0f3a")  # cut short by a crash while it was written
    replica = ReplicaIdFile(tmp_path, FILE_NAME).claim()
    assert replica is not None and replica != "0f3a"
    assert (tmp_path / FILE_NAME).read_text() == f"{replica}\n"


def test_a_folder_that_cannot_be_used_gives_no_id(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / "taken").write_text("a file, not a folder")
    with caplog.at_level(logging.WARNING):
        assert ReplicaIdFile(tmp_path / "taken", FILE_NAME).claim() is None
    assert "cannot keep a replica id in" in caplog.text
