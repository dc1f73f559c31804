"""The example in docs/messaging.md runs as written."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

DOC = Path(__file__).parents[3] / "docs" / "messaging.md"


def test_docs_example_runs_as_written(tmp_path: Path) -> None:
    example = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)[0]
    script = tmp_path / "example.py"
    script.write_text(example)
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["text='hello, Ada'", "not_found nobody to greet"]


def test_the_step_start_filter_example_prints_what_the_doc_says(tmp_path: Path) -> None:
    text = DOC.read_text()
    section = text[text.index("Only the starts of the brain dump's agent") :]
    example, printed = re.findall(r"```(?:python)?\n(.*?)```", section, re.S)[:2]
    script = tmp_path / "filters.py"
    script.write_text(example)
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == printed.strip().splitlines()
