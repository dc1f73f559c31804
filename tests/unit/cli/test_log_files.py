"""`baton up`'s logs stay under `--log-max-mb`: a full one moves to `<name>.log.1`, and the
process writing it goes on writing at the start of the emptied file."""

from __future__ import annotations

import errno
import math
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from baton_cli.errors import CliError
from baton_cli.log_files import trim, trim_all
from baton_cli.up import UpOptions, run_up


@pytest.fixture
def log(tmp_path: Path) -> Iterator[tuple[Path, int]]:
    """A log and the descriptor its writer holds: opened to append, as a service's stdout is
    (and as nats-server opens its own), never reopened."""
    path = tmp_path / "notifier.log"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    yield path, fd
    os.close(fd)


def test_a_full_log_moves_aside_and_its_writer_goes_on_at_the_start(
    log: tuple[Path, int],
) -> None:
    path, fd = log
    lines = b"".join(f"GET /api/health 200 #{n}\n".encode() for n in range(100))
    os.write(fd, lines)
    assert trim(path, max_bytes=1000)
    assert path.with_name("notifier.log.1").read_bytes() == lines
    assert path.read_bytes() == b""
    os.write(fd, b"the next line\n")
    assert path.read_bytes() == b"the next line\n"  # at the start: no hole before it
    os.write(fd, lines)
    assert trim(path, max_bytes=1000)  # the one before is replaced: two files at most
    assert path.with_name("notifier.log.1").read_bytes() == b"the next line\n" + lines
    assert sorted(p.name for p in path.parent.iterdir()) == ["notifier.log", "notifier.log.1"]


def test_a_log_under_the_limit_is_left_as_it_is(log: tuple[Path, int]) -> None:
    path, fd = log
    os.write(fd, b"one line\n")
    assert not trim(path, max_bytes=9)
    assert path.read_bytes() == b"one line\n"
    assert not path.with_name("notifier.log.1").exists()
    assert not trim(path.with_name("gone.log"), max_bytes=0)


def test_every_log_of_the_folder_is_looked_at(tmp_path: Path) -> None:
    (tmp_path / "nats.log").write_bytes(b"x" * 20)
    (tmp_path / "workflow.log").write_bytes(b"y" * 5)
    (tmp_path / "notes.txt").write_bytes(b"z" * 20)
    assert trim_all(tmp_path, max_bytes=10) == []
    assert (tmp_path / "nats.log").read_bytes() == b""
    assert (tmp_path / "nats.log.1").read_bytes() == b"x" * 20
    assert (tmp_path / "workflow.log").read_bytes() == b"y" * 5
    assert (tmp_path / "notes.txt").read_bytes() == b"z" * 20


@pytest.mark.parametrize("limit", [0.0, -1.0, math.nan, math.inf])
def test_a_limit_that_is_not_a_finite_size_is_refused_before_anything_starts(
    tmp_path: Path, limit: float
) -> None:
    # `inf` passed a check for > 0 and failed only once services were starting: `baton up`
    # then hung (Ctrl+C included) with NATS left running.
    with pytest.raises(CliError, match="--log-max-mb: must be a finite number above 0, got "):
        run_up(UpOptions(data_dir=tmp_path / "data", log_max_mb=limit), lambda line: None)
    assert not (tmp_path / "data").exists()


def test_a_copy_cut_off_leaves_no_partial_file_and_the_log_as_it_was(
    log: tuple[Path, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    path, fd = log
    os.write(fd, b"x" * 2048)

    def disk_full(source: object, copy: Any) -> None:
        copy.write(b"x" * 1024)
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr("baton_cli.log_files.shutil.copyfileobj", disk_full)
    problems = trim_all(path.parent, 1024)
    assert len(problems) == 1 and "No space left on device" in problems[0]
    # The half copy took space the log needed, for good: every later try left it again.
    assert sorted(p.name for p in path.parent.iterdir()) == ["notifier.log"]
    assert path.stat().st_size == 2048
