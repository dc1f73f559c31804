"""What the agent-runner's log says when it first uses Mem0 with Baton's embedded defaults
(a local Qdrant folder, the hash embedder, facts added without inference).

Mem0 warned that spaCy and fastembed are not installed: they serve its BM25 keyword search,
which Baton never uses (it searches by its own vectors), so the warnings were noise on every
start. mem0 says each once per process, so the check runs in a fresh interpreter.
"""

from __future__ import annotations

import logging
import subprocess
import sys

import pytest

from baton_agent_runner.adapters.mem0_open import quiet_mem0_noise

# A fact saved, then corrected, as a turn does, with the service's log set up at INFO.
PROBE = """
import asyncio, sys
from pathlib import Path
from baton_messaging.log_lines import configure_logging
configure_logging("INFO")
from baton_agent_runner.adapters.mem0_memory import Mem0MemoryStore, open_memory
memory = open_memory(Path(sys.argv[1]), None)
store = Mem0MemoryStore(memory)

async def main():
    await store.put_fact("alice", "priorities", "launch", "ship the beta")
    await store.put_fact("alice", "priorities", "launch", "ship the beta on Friday")
    assert await store.facts("alice", "priorities") == {"launch": "ship the beta on Friday"}

asyncio.run(main())
memory.vector_store.client.close()
"""


@pytest.fixture(scope="module")
def first_use(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The agent-runner's log lines (stderr) of a process that saves and corrects a fact."""
    data = tmp_path_factory.mktemp("mem0-logs") / "qdrant"
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(data)], capture_output=True, text=True, timeout=90
    )
    assert done.returncode == 0, done.stderr
    return done.stderr


def test_mem0_says_nothing_of_the_keyword_search_baton_does_not_use(first_use: str) -> None:
    assert "spaCy" not in first_use
    assert "fastembed" not in first_use


def test_a_corrected_fact_leaves_no_user_words_and_no_deprecation_in_the_log(
    first_use: str,
) -> None:
    # mem0 logged `Updating memory with data='ship the beta on Friday'` at INFO: a user's
    # fact in the operator's log. And Baton called update() with its deprecated `data=`.
    assert "ship the beta" not in first_use
    assert "deprecated" not in first_use


def test_only_those_two_warnings_are_dropped(caplog: pytest.LogCaptureFixture) -> None:
    quiet_mem0_noise()
    caplog.set_level(logging.INFO)
    qdrant = logging.getLogger("mem0.vector_stores.qdrant")
    spacy = logging.getLogger("mem0.utils.spacy_models")
    qdrant.warning(
        'fastembed not installed - BM25 keyword search disabled. Install it with: pip install "x"'
    )
    spacy.warning("Failed to load spaCy lemma model: spaCy is not installed. Install it with: x")
    qdrant.warning("Failed to load BM25 encoder: the model file is corrupt")
    spacy.warning("Failed to load spaCy lemma model: [E050] Can't find model 'en_core_web_sm'")

    assert [r.getMessage() for r in caplog.records] == [
        "Failed to load BM25 encoder: the model file is corrupt",
        "Failed to load spaCy lemma model: [E050] Can't find model 'en_core_web_sm'",
    ]


def test_the_probe_reaches_mem0(first_use: str) -> None:
    # The probe's own lines prove it ran through Mem0's writes (so the checks above mean it).
    assert "mem0.vector_stores.qdrant: Inserting 1 vectors" in first_use
