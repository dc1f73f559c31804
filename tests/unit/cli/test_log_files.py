"""`baton up` writes each service's log itself, from a pipe, and keeps it under `--log-max-mb`
by renaming a full one to `<name>.log.1` between two lines: no line is lost or cut in two."""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
import re
import stat
import sys
from pathlib import Path

import pytest

from baton_cli.errors import CliError
from baton_cli.log_files import LogFile, OutputCopier, start_logged
from baton_cli.up import UpOptions, run_up

NUMBERED = re.compile(rb"line (\d{6})")


def older(path: Path) -> Path:
    return path.with_name(f"{path.name}.1")


def numbers_in(path: Path) -> list[int]:
    """The numbers of `line NNNNNN` in `<name>.log.1` then `<name>.log`, after checking that
    each file ends a line and holds nothing but whole numbered lines and baton up's own."""
    numbers = []
    for part in (older(path), path):
        text = part.read_bytes()
        assert text.endswith(b"\n"), part
        for line in text.splitlines():
            if not line.startswith(b"--- baton up: "):
                numbered = NUMBERED.fullmatch(line)
                assert numbered, (part, line)
                numbers.append(int(numbered[1]))
    return numbers


async def run_logged(log: LogFile, script: str) -> OutputCopier:
    """Run `script` with its output copied to `log`; once it has ended and its pipe with it."""
    process, output = await start_logged(log, sys.executable, "-c", script)
    # Bounds only so a broken run fails instead of hanging.
    await asyncio.wait_for(process.wait(), timeout=30)
    await asyncio.wait_for(output.finished(), timeout=30)
    return output


def lines_script(count: int, stream: str = "stdout") -> str:
    """A process writing `count` numbered lines as fast as it can, in 8 KiB blocks that end
    anywhere in a line."""
    return f"import sys\nfor n in range({count}):\n    sys.{stream}.write(f'line {{n:06d}}\\n')\n"


async def test_a_process_writing_fast_loses_no_line_across_the_renames(tmp_path: Path) -> None:
    # Copied aside and truncated in place, the log lost what the service wrote meanwhile.
    path, limit, count = tmp_path / "notifier.log", 4096, 20_000  # 240 KB: some 60 renames
    log = LogFile(path, limit, lambda line: pytest.fail(line))
    log.mark("--- baton up: starting notifier (baton_notifier) ---")
    await run_logged(log, lines_script(count))
    numbers = numbers_in(path)
    # The files hold the newest lines: the older ones were dropped whole with older files.
    assert numbers == list(range(numbers[0], count))
    assert len(numbers) > limit // len(b"line 000000\n")  # more than one file's worth
    for part in (older(path), path):
        assert part.stat().st_size <= limit + len(b"line 000000\n")
        assert stat.S_IMODE(part.stat().st_mode) == 0o600  # as the data dir: this user's
    assert sorted(os.listdir(tmp_path)) == ["notifier.log", "notifier.log.1"]


def test_each_file_is_renamed_at_the_first_line_end_past_the_limit(tmp_path: Path) -> None:
    path = tmp_path / "workflow.log"
    log = LogFile(path, 30, lambda line: pytest.fail(line))
    log.write(b"line 000000\nline 000001\nline 0")  # 30 bytes: at the limit, not past it
    assert not older(path).exists()
    log.write(b"00002\nline 000003\nline")
    assert older(path).read_bytes() == b"line 000000\nline 000001\nline 000002\n"
    assert path.read_bytes() == b"line 000003\nline"
    log.write(b" 000004\n")
    assert numbers_in(path) == [0, 1, 2, 3, 4]


def test_a_line_longer_than_the_limit_is_cut_at_twice_the_limit(tmp_path: Path) -> None:
    # Waiting for its end (output with no line break) let the file grow without bound.
    path = tmp_path / "agent.log"
    log = LogFile(path, 100, lambda line: pytest.fail(line))
    for _ in range(10):
        log.write(b"x" * 64)  # 640 bytes, no line end
    log.write(b"\nline 000001\n")
    assert older(path).read_bytes() == b"x" * 200
    assert path.read_bytes() == b"x" * 40 + b"\nline 000001\n"  # the rest of that line, whole


def test_the_start_marker_is_a_line_of_its_own(tmp_path: Path) -> None:
    path = tmp_path / "notifier.log"
    log = LogFile(path, 1000, lambda line: pytest.fail(line))
    log.write(b"a crash in the middle of a li")
    log.mark("--- baton up: starting notifier (baton_notifier) ---")
    assert path.read_text().splitlines() == [
        "a crash in the middle of a li", "--- baton up: starting notifier (baton_notifier) ---",
    ]  # fmt: skip


async def test_what_a_dead_process_wrote_is_all_in_the_log_once_drained(tmp_path: Path) -> None:
    # The supervisor drains before it says a service ended: the last lines of its traceback
    # are in the log the message points to.
    path = tmp_path / "workflow.log"
    log = LogFile(path, 1000, lambda line: pytest.fail(line))
    process, output = await start_logged(
        log, sys.executable, "-c", "import sys; print('line 000001'); sys.exit('line 000002')"
    )
    # Waited for without letting the event loop run, so nothing has been copied on its own.
    # (asyncio's watcher thread may have collected it already: it has ended then too.)
    with contextlib.suppress(ChildProcessError):
        os.waitid(os.P_PID, process.pid, os.WEXITED | os.WNOWAIT)  # noqa: ASYNC222
    output.drain()
    assert path.read_bytes() == b"line 000001\nline 000002\n"
    await asyncio.wait_for(process.wait(), timeout=30)
    output.close()


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full (Linux)")
async def test_a_log_that_cannot_be_written_is_said_once_and_the_process_goes_on(
    tmp_path: Path,
) -> None:
    path, said = tmp_path / "notifier.log", []
    path.symlink_to("/dev/full")  # every write fails: No space left on device
    log = LogFile(path, 1024 * 1024, said.append)
    # 1.2 MB, far more than a pipe holds: had the copier stopped reading, it would never end.
    await run_logged(log, lines_script(100_000))
    assert said == [
        f"could not write {path}: No space left on device;"
        " its output is dropped until it can be written again"
    ]
    path.unlink()  # room again: the next write opens the log anew
    log.write(b"line 000001\n")
    assert path.read_text().splitlines() == [
        "--- baton up: output dropped here: could not write this log (No space left on device) ---",
        "line 000001",
    ]
    assert said[1:] == [f"writing {path} again"]


@pytest.mark.parametrize("limit", [0.0, -1.0, math.nan, math.inf])
def test_a_limit_that_is_not_a_finite_size_is_refused_before_anything_starts(
    tmp_path: Path, limit: float
) -> None:
    # `inf` passed a check for > 0 and failed only once services were starting: `baton up`
    # then hung (Ctrl+C included) with NATS left running.
    with pytest.raises(CliError, match="--log-max-mb: must be a finite number above 0, got "):
        run_up(UpOptions(data_dir=tmp_path / "data", log_max_mb=limit), lambda line: None)
    assert not (tmp_path / "data").exists()
