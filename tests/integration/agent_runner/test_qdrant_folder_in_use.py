"""A Qdrant folder serves one process: a second agent-runner on it is told so in one line.

Run as replicas with one `BATON_QDRANT_PATH`, the second agent-runner exited 1 with a
traceback from deep inside qdrant-client ("Storage folder ... is already accessed by another
instance of Qdrant client"), naming no setting.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from baton_agent_runner.adapters.mem0_open import open_memory
from baton_messaging.process import SettingUnusable


def test_a_qdrant_folder_another_process_holds_is_a_setting_that_cannot_be_used(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "qdrant"
    first = open_memory(folder, None)
    try:
        with pytest.raises(SettingUnusable) as refused:
            open_memory(folder, None)
    finally:
        first.vector_store.client.close()
    assert str(refused.value) == (
        f"BATON_QDRANT_PATH: {folder} is in use by another process (another agent-runner?): "
        "a Qdrant folder serves one process at a time; run replicas against a Qdrant server "
        "(BATON_QDRANT_URL)"
    )
