"""JSON-lines files: reading them (the parsing and error reporting of :mod:`dpsynrag.data.io`, without
field checks) and writing them, or any file, atomically."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from dpsynrag.data.io import DataFileNotFoundError, Document
from dpsynrag.data.readers import iter_json_rows
from dpsynrag.errors import ConfigError

__all__ = ["atomic_write", "read_jsonl", "write_jsonl_atomic"]


def read_jsonl(path: str | os.PathLike[str], *, limit: int | None = None) -> list[dict[str, Any]]:
    """Read a JSON-lines file (one JSON object per line; blank lines skipped) into dictionaries.

    Same parsing and error reporting as :func:`load_documents` for JSON lines, without field checks.

    Args:
        path: the file (any extension).
        limit: keep only the first ``limit`` objects, ``None`` for all.

    Raises:
        DataFileNotFoundError: ``path`` does not exist.
        DataError: bad UTF-8 (line and byte offset), malformed JSON or a non-object line (line number).
        ConfigError: ``limit`` is not a positive integer.
    """
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise ConfigError(f"`limit` must be a positive integer or None. Found {limit!r}.")
    file = Path(path)
    if not file.is_file():
        raise DataFileNotFoundError(
            f"`path`: JSON-lines file not found: {str(file)!r} (resolved: {str(file.resolve())!r})."
        )
    rows: list[dict[str, Any]] = []
    for _, _, row in iter_json_rows(file, allow_array=False):
        if limit is not None and len(rows) >= limit:
            break
        rows.append(dict(row))
    return rows


@contextlib.contextmanager
def atomic_write(path: str | os.PathLike[str], *, binary: bool = False) -> Iterator[Any]:
    """Write ``path`` atomically: yields a handle on a temporary file (mode 0600, from
    :func:`tempfile.mkstemp`) in the destination folder; on a clean exit it is flushed, fsync-ed and moved
    over ``path`` with ``os.replace``, so readers see either the old file or the complete new one. The
    folder is created if needed. On any error the temporary file is removed and ``path`` is left untouched.

    Args:
        path: destination file.
        binary: a bytes handle; else text, UTF-8 with ``"\\n"`` line ends.
    """
    dest = Path(path)
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".tmp", dir=dest.parent)
    try:
        with (os.fdopen(fd, "wb") if binary else os.fdopen(fd, "w", encoding="utf-8", newline="\n")) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp_name, dest)
    except BaseException:
        try:
            os.unlink(tmp_name)
        except FileNotFoundError:
            pass
        raise


def write_jsonl_atomic(path: str | os.PathLike[str], records: Iterable[Mapping[str, Any] | Any]) -> Path:
    """Write ``records`` as UTF-8 JSON lines, atomically.

    The lines go to a temporary file in the destination folder, which is flushed, fsync-ed and then
    moved over ``path`` with ``os.replace``: readers see either the old file or the complete new one,
    never a partial file. The folder is created if needed. On any error the temporary file is removed
    and ``path`` is left untouched.

    Args:
        path: destination file.
        records: mappings, or dataclass instances (converted with ``dataclasses.asdict``; a
            :class:`Document` to its id and text only, never its identifiers), one per line;
            serialised with ``json.dumps(..., ensure_ascii=False)`` (non-ASCII kept as UTF-8).

    Returns:
        The destination path.

    Raises:
        TypeError: a record is neither a mapping nor a dataclass instance, or is not JSON-serialisable.
    """
    dest = Path(path)
    with atomic_write(dest) as handle:
        for index, record in enumerate(records):
            if isinstance(record, Document):
                record = {"id": record.id, "text": record.text}
            elif dataclasses.is_dataclass(record) and not isinstance(record, type):
                record = dataclasses.asdict(record)
            if not isinstance(record, Mapping):
                raise TypeError(
                    f"`records`[{index}] must be a mapping or a dataclass instance, "
                    f"found {type(record).__name__}."
                )
            handle.write(json.dumps(dict(record), ensure_ascii=False))
            handle.write("\n")
    return dest
