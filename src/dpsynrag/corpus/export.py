"""Export (``dpsynrag export``): a corpus's synthetic texts as Parquet or JSON Lines, and as a Hugging Face
``datasets.Dataset``.

Rows are the released records of ``texts.jsonl``: ``id``, ``text``, ``kept`` (self-filter verdict) and
the method's released fields (DP-SynRAG: ``keyword``, ``noisy_count``; DP-Synth: ``batch``; Aug-PE:
``noisy_count``). By default only the kept texts (the ones retrieval uses). Everything exported is DP
output or post-processing of it; the owner-only ``NAME.owner.json`` is never read. A Parquet file also
carries the corpus manifest (parameters and privacy report) in its schema metadata under
``dpsynrag.manifest``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from dpsynrag.errors import ConfigError

__all__ = ["corpus_rows", "corpus_table", "export_corpus", "to_dataset"]

FORMATS = ("parquet", "jsonl")
_FIRST = ("id", "text", "kept")


def _load(corpus):
    from dpsynrag.corpus.reader import SyntheticCorpus

    return corpus if isinstance(corpus, SyntheticCorpus) else SyntheticCorpus.load(corpus)


def corpus_rows(corpus, *, include_rejected: bool = False) -> list[dict]:
    """The records of ``corpus`` (a :class:`~dpsynrag.corpus.SyntheticCorpus` or a folder), ``id``, ``text``,
    ``kept`` first, then the other fields in name order (missing ones None). Only kept texts unless
    ``include_rejected``."""
    corpus = _load(corpus)
    records = [r for r in corpus.records if include_rejected or r["kept"]]
    keys = list(_FIRST) + sorted({k for r in corpus.records for k in r} - set(_FIRST))
    return [{k: r.get(k) for k in keys} for r in records]


def corpus_table(corpus, *, include_rejected: bool = False):
    """The rows of :func:`corpus_rows` as a ``pyarrow.Table`` (manifest JSON in the schema metadata)."""
    import pyarrow as pa

    corpus = _load(corpus)
    rows = corpus_rows(corpus, include_rejected=include_rejected)
    keys = list(_FIRST) + sorted({k for r in corpus.records for k in r} - set(_FIRST))
    base = {"id": pa.int64(), "text": pa.string(), "kept": pa.bool_()}
    columns = {k: [r[k] for r in rows] for k in keys}
    table = pa.table({k: pa.array(v, type=base.get(k)) for k, v in columns.items()})
    return table.replace_schema_metadata({"dpsynrag.manifest": json.dumps(corpus.manifest, ensure_ascii=False)})


def to_dataset(corpus, *, include_rejected: bool = False):
    """The corpus's texts as a Hugging Face ``datasets.Dataset`` (columns as :func:`corpus_rows`; needs the
    ``datasets`` package: ``pip install 'dpsynrag[export]'``).

    Raises:
        ImportError: ``datasets`` is not installed.
    """
    try:
        import datasets
    except ImportError as exc:
        raise ImportError("to_dataset needs the `datasets` package: pip install 'dpsynrag[export]'.") from exc
    return datasets.Dataset(corpus_table(corpus, include_rejected=include_rejected))


def export_corpus(corpus_dir: str | os.PathLike, out: str | os.PathLike, *, fmt: str = "parquet",
                  include_rejected: bool = False, overwrite: bool = False) -> int:
    """Write a corpus's texts to ``out``.

    Args:
        corpus_dir: the corpus folder. out: the file to write. fmt: ``parquet`` or ``jsonl``.
        include_rejected: also the texts the self-filter rejected (``kept`` false).
        overwrite: replace an existing file (never a folder).

    Returns:
        The number of rows written.

    Raises:
        ConfigError: bad ``fmt``; ``out`` exists (without ``overwrite``) or is a folder.
        CorpusError: ``corpus_dir`` is not a corpus folder.
    """
    if fmt not in FORMATS:
        raise ConfigError(f"`--format` must be parquet or jsonl. Found {fmt!r}.")
    out = Path(out)
    if out.is_dir():
        raise ConfigError(f"`--out` {out} is a folder: give a file name.")
    if out.exists() and not overwrite:
        raise ConfigError(f"`--out` {out} already exists; choose another file or replace it (--overwrite).")
    if not out.parent.is_dir():
        raise ConfigError(f"`--out` {out}: the folder {out.parent} does not exist.")
    corpus = _load(corpus_dir)
    partial = out.parent / f".{out.name}.partial-{os.getpid()}"
    try:
        if fmt == "parquet":
            import pyarrow.parquet as pq

            table = corpus_table(corpus, include_rejected=include_rejected)
            pq.write_table(table, partial)
            n = table.num_rows
        else:
            rows = corpus_rows(corpus, include_rejected=include_rejected)
            with open(partial, "w", encoding="utf-8") as f:
                for r in rows:
                    f.write(json.dumps(r, ensure_ascii=False) + "\n")
            n = len(rows)
        partial.replace(out)
    finally:
        partial.unlink(missing_ok=True)
    return n
