"""Opening Mem0 through Baton keeps its telemetry off and its files in Baton's folder.

mem0 reads `MEM0_TELEMETRY` and `MEM0_DIR` once, when it is first imported: set any later and
it has already made `~/.mem0` and started a PostHog client that reports every memory call. So
the check runs in a fresh interpreter, where `mem0_open` is the first to import it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

# Opens the memory as the agent-runner does, then says what mem0 made of its environment.
PROBE = """
import json, sys
from pathlib import Path
from baton_agent_runner.adapters.mem0_open import open_memory
memory = open_memory(Path(sys.argv[1]), None)
import mem0.configs.base, mem0.memory.setup, mem0.memory.telemetry
print(json.dumps({
    "telemetry": mem0.memory.telemetry.MEM0_TELEMETRY,
    "posthog": mem0.memory.telemetry.client_telemetry.posthog is not None,
    "setup_dir": mem0.memory.setup.mem0_dir,
    "config_dir": mem0.configs.base.mem0_dir,
}))
memory.vector_store.client.close()
"""


def _open_in_fresh_interpreter(home: Path, data: Path) -> dict[str, object]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEM0_")}
    # A proxy nobody listens on: should telemetry come on after all, it fails here at once
    # instead of reporting to PostHog from a test run.
    dead_proxy = "http://127.0.0.1:9"
    env |= {"HOME": str(home), "HTTP_PROXY": dead_proxy, "HTTPS_PROXY": dead_proxy}
    env |= {"http_proxy": dead_proxy, "https_proxy": dead_proxy, "NO_PROXY": "", "no_proxy": ""}
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(data)],
        env=env,
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_opening_the_memory_leaves_mem0_telemetry_off_and_its_files_in_the_data_folder(
    tmp_path: Path,
) -> None:
    home, data = tmp_path / "home", tmp_path / "qdrant"
    home.mkdir()

    seen = _open_in_fresh_interpreter(home, data)

    assert seen == {
        "telemetry": False,
        "posthog": False,
        "setup_dir": str(data / "mem0"),
        "config_dir": str(data / "mem0"),
    }
    assert (data / "mem0").is_dir()
    assert not (home / ".mem0").exists()  # nothing written to the user's home
