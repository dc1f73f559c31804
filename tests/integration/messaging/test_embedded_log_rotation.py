"""The embedded nats-server keeps its own log to a size: it renames a full one and starts anew,
keeping a fixed number of files, as `baton up` asks it to (`--log-max-mb`)."""

from __future__ import annotations

import re
from pathlib import Path

from baton_messaging.embedded import EmbeddedNatsServer

LIMIT = 1000  # bytes: a start alone logs a few times this (its banner, JetStream's settings)
ROTATED = re.compile(r"nats\.log\.\d{4}\.\d{2}\.\d{2}\.\d{2}\.\d{2}\.\d{2}\.\d{9}")


def test_nats_server_renames_a_full_log_and_keeps_only_the_newest_older_one(
    tmp_path: Path,
) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    log = logs / "nats.log"
    server = EmbeddedNatsServer(
        store_dir=tmp_path / "nats", log_file=log, log_size_limit=LIMIT, log_files_kept=2
    )
    # Twice, as `baton up` starts it again after a crash: the files of the run before count.
    for _ in range(2):
        server.start()
        server.stop()

    older = [path for path in logs.iterdir() if path != log]
    assert len(older) == 1, sorted(path.name for path in logs.iterdir())
    assert ROTATED.fullmatch(older[0].name)
    # The file it writes now says which one it renamed last: the one kept.
    first_line = log.read_text().splitlines()[0]
    assert first_line.endswith(f'[INF] Rotated log, backup saved as "{older[0]}"')
    for path in (log, older[0]):
        text = path.read_bytes()
        longest = max(len(line) for line in text.splitlines(keepends=True))
        assert text.endswith(b"\n")  # renamed at a line's end: no line is cut in two
        assert len(text) <= LIMIT + longest
