"""The vector index of RAG (METHOD.md §4): exact cosine-similarity search over unit-norm embeddings."""

from __future__ import annotations

import os
from collections.abc import Sequence

import faiss
import numpy as np

from dpsynrag.errors import ConfigError


class VectorIndex:
    """Exact inner-product search over unit-norm embeddings (cosine similarity), on FAISS.

    Args:
        embeddings: float32 [n, dim], unit L2 rows; n may be 0.
    """

    def __init__(self, embeddings: np.ndarray):
        e = np.ascontiguousarray(np.asarray(embeddings, dtype=np.float32))
        if e.ndim != 2 or e.shape[1] < 1:
            raise ConfigError(f"`embeddings` must have shape [n, dim]. Found {e.shape}.")
        self.dim = int(e.shape[1])
        self._index = faiss.IndexFlatIP(self.dim)
        if len(e):
            self._index.add(e)

    def __len__(self) -> int:
        return int(self._index.ntotal)

    def search(self, queries: np.ndarray, top_k: int) -> tuple[np.ndarray, np.ndarray]:
        """Top-k by inner product.

        Args:
            queries: float32 [q, dim].
            top_k: >= 1; at most len(self) results are returned per query.

        Returns:
            (scores float32 [q, k'], ids int64 [q, k']) with k' = min(top_k, len(self)).
        """
        if isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 1:
            raise ConfigError(f"`top_k` must be an integer >= 1. Found {top_k!r}.")
        q = np.ascontiguousarray(np.asarray(queries, dtype=np.float32))
        if q.ndim != 2 or q.shape[1] != self.dim:
            raise ConfigError(f"`queries` must have shape [q, {self.dim}]. Found {q.shape}.")
        k = min(top_k, len(self))
        if k == 0:
            return np.zeros((len(q), 0), np.float32), np.zeros((len(q), 0), np.int64)
        scores, ids = self._index.search(q, k)
        return scores, ids.astype(np.int64)

    def subset(self, rows: Sequence[int]) -> "VectorIndex":
        """A new index holding the vectors of ``rows`` (0-based, in that order; the stored vectors
        read back exactly: a flat index keeps them as added)."""
        rows = np.asarray(list(rows), dtype=np.int64)
        if len(rows) and (rows.min() < 0 or rows.max() >= len(self)):
            raise ConfigError(f"`rows` must be in [0, {len(self)}).")
        if not len(rows):
            return VectorIndex(np.zeros((0, self.dim), np.float32))
        return VectorIndex(self._index.reconstruct_batch(rows))

    def save(self, path: str | os.PathLike) -> None:
        faiss.write_index(self._index, str(path))

    @classmethod
    def load(cls, path: str | os.PathLike) -> "VectorIndex":
        index = faiss.read_index(str(path))
        obj = cls.__new__(cls)
        obj.dim = int(index.d)
        obj._index = index
        return obj
