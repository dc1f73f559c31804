"""Opening Mem0 over Qdrant (a local folder, or a server by URL) with Baton's embedder, and
what its stores raise when they are down."""

from __future__ import annotations

import logging
import math
import os
import sqlite3
from pathlib import Path
from typing import Any

import httpx
from openai import APIError
from qdrant_client import QdrantClient
from qdrant_client.http.exceptions import ResponseHandlingException, UnexpectedResponse

from baton_agent_runner.adapters.embedders import (
    Embedder,
    EmbedderSettings,
    EmbeddingDimsMismatch,
    make_embedder,
)
from baton_agent_runner.service.ports import StoreUnavailable
from baton_messaging.process import SettingUnusable

COLLECTION = "baton_facts"
# What a Qdrant server, a dead network or the embedding endpoint raise when they are down, and
# what a local folder's SQLite file raises when it cannot be written (a full disk, a locked or
# read-only file): Qdrant's own statements are fixed, so none is a fault of ours. Else a full
# disk failed a turn as `internal`, with a traceback at ERROR.
UNAVAILABLE = (
    ResponseHandlingException,
    UnexpectedResponse,
    httpx.TransportError,
    APIError,
    OSError,
    TimeoutError,
    sqlite3.OperationalError,
)


class _Dropped(logging.Filter):
    """Drops a logger's records whose message starts with one of `starts`."""

    def __init__(self, *starts: str) -> None:
        super().__init__()
        self.starts = starts

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith(self.starts)


# mem0's BM25 keyword search wants spaCy (lemmas) and fastembed (sparse vectors), and says so
# as a warning on first use when they are missing. Baton never runs that search: it searches
# by its own embedder's vectors, straight on Qdrant. Only these words are dropped: a model that
# is installed but fails to load still warns.
_NOISE = {
    "mem0.utils.spacy_models": _Dropped(
        "Failed to load spaCy lemma model: spaCy is not installed",
        "Failed to load spaCy full model: spaCy is not installed",
    ),
    "mem0.vector_stores.qdrant": _Dropped("fastembed not installed - BM25 keyword search disabled"),
    # `Updating memory with data='...'` (and `with ID ... with data='...'`): a user's fact, at
    # INFO, in the operator's log.
    "mem0.memory.main": _Dropped("Updating memory with "),
}


def quiet_mem0_noise() -> None:
    """Drop mem0's warnings about the BM25 extras Baton does not use, and its lines holding a
    user's fact (once per logger)."""
    for name, dropped in _NOISE.items():
        logging.getLogger(name).addFilter(dropped)  # adding it again changes nothing


def open_memory(
    qdrant_path: Path,
    qdrant_url: str | None,
    embedder: EmbedderSettings | None = None,
    timeout_seconds: float = 5.0,
) -> Any:
    """A Mem0 `Memory` on Qdrant with the configured embedder; telemetry off, state under the
    path. A collection made for vectors of another size stops here (`EmbeddingDimsMismatch`)."""
    quiet_mem0_noise()
    settings = embedder or EmbedderSettings()
    vectors = make_embedder(settings)  # before touching Qdrant: a missing extra fails first
    try:
        qdrant_path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:  # was a traceback from deep inside the start
        raise SettingUnusable(
            f"BATON_QDRANT_PATH: cannot create {qdrant_path}: {exc.strerror or exc}"
        ) from None
    # mem0 reads these at import time: no telemetry, and its own files next to our data.
    os.environ["MEM0_TELEMETRY"] = "False"
    os.environ.setdefault("MEM0_DIR", str(qdrant_path / "mem0"))
    from mem0 import Memory  # type: ignore[import-untyped]  # mem0 ships no type hints

    store: dict[str, Any] = {"collection_name": COLLECTION, "embedding_model_dims": vectors.dims}
    if qdrant_url:
        store["client"] = QdrantClient(url=qdrant_url, timeout=math.ceil(timeout_seconds))
    else:
        store.update({"path": str(qdrant_path), "on_disk": True})
    try:
        memory = Memory.from_config(
            {
                "vector_store": {"provider": "qdrant", "config": store},
                # Neither client is called: facts are added with infer=False and embedded by ours.
                "embedder": {
                    "provider": "openai",
                    "config": {"api_key": "unused", "embedding_dims": vectors.dims},
                },
                "llm": {"provider": "openai", "config": {"api_key": "unused"}},
                # Not a file: Mem0 opens one here before `NoHistory` replaces it.
                "history_db_path": ":memory:",
            }
        )
        memory.db.close()
        memory.db = NoHistory()
        memory.embedding_model = vectors
        _check_dims(memory, vectors, settings.kind)
    except UNAVAILABLE as exc:
        raise StoreUnavailable(
            f"memory: Qdrant at {qdrant_url} is unreachable: {exc}", "memory"
        ) from exc
    except RuntimeError as exc:
        if qdrant_url or "already accessed by another instance" not in str(exc):
            raise
        # A second agent-runner (a replica) on the same folder: was a traceback, exit 1.
        raise SettingUnusable(
            f"BATON_QDRANT_PATH: {qdrant_path} is in use by another process (another "
            "agent-runner?): a Qdrant folder serves one process at a time; run replicas "
            "against a Qdrant server (BATON_QDRANT_URL)"
        ) from None
    return memory


class NoHistory:
    """Mem0's history store (`memory.db`), keeping nothing.

    Mem0 wrote a row for every add, update and delete of a fact (the old text and the new) to
    `history.db` in the Qdrant folder, and never deleted one; Baton never reads them. Facts are
    saved on most turns, so the file grew by a row a turn for as long as the service ran, on
    every replica, and kept in full every fact a user corrected or took back. Its other table
    (an `infer=True` add's last messages) serves adds Baton never makes (`infer=False`).
    """

    def add_history(self, *args: Any, **kwargs: Any) -> None:
        """A fact was added, changed or deleted: nothing is kept of it."""

    def batch_add_history(self, records: list[dict[str, Any]]) -> None:
        """Facts were added: nothing is kept of them."""

    def get_history(self, memory_id: str) -> list[dict[str, Any]]:
        """No change of any fact is kept."""
        return []

    def save_messages(self, messages: list[dict[str, Any]], session_scope: str) -> None:
        """An `infer=True` add's messages: nothing is kept of them."""

    def get_last_messages(self, session_scope: str, limit: int = 10) -> list[dict[str, Any]]:
        """No messages are kept."""
        return []

    def reset(self) -> None:
        """Nothing to delete."""

    def close(self) -> None:
        """Nothing to release."""


def _check_dims(memory: Any, vectors: Embedder, kind: str) -> None:
    """Mem0 reuses an existing collection whatever its size; vectors of another size would
    then fail on every write (or, on some servers, be stored beside incomparable ones)."""
    client = memory.vector_store.client
    params = client.get_collection(COLLECTION).config.params.vectors
    size = params.size if hasattr(params, "size") else params[""].size
    if size != vectors.dims:
        client.close()
        raise EmbeddingDimsMismatch(
            f"memory: the Qdrant collection {COLLECTION!r} holds {size}-dimensional vectors, "
            f"but the {kind!r} embedder makes {vectors.dims}-dimensional ones; use the embedder "
            f"the collection was made with, or a new Qdrant folder or server"
        )
