"""Reading private document collections and writing JSON-lines files atomically.

A collection is a file of rows, each with a text field and optionally an id field:

* JSON lines (``.jsonl``, ``.ndjson``; ``.json`` holding either JSON lines or one JSON array of objects),
* CSV (``.csv``, UTF-8, header row; the standard ``csv`` module's dialect, quotes with ``"``),
* Parquet (``.parquet``, ``.pq``; read with ``pyarrow``).

The format is chosen by the file extension only. Every problem with the input raises
:class:`dpsynrag.errors.DataError` (a ``ValueError``) whose message says where (line or row number, byte
offset for bad UTF-8), which field, what rule was broken, the *type* found, and a hint. Messages never
quote the content of a record (no text, no id value, no bytes): the file is private, and errors end up
in terminals, logs and bug reports. A missing file raises :class:`DataFileNotFoundError`, which is both a
``DataError`` and a ``FileNotFoundError``.

Numbering: ``line`` numbers are 1-based physical lines of the file (JSON lines, CSV); ``row`` numbers are
0-based positions among the data rows (the default document id), so the first data row of a CSV file is
row 0 on line 2.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import os
import sys
import tempfile
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dpsynrag.errors import ConfigError, DataError

__all__ = [
    "DataFileNotFoundError",
    "Document",
    "SUPPORTED_EXTENSIONS",
    "load_documents",
    "read_jsonl",
    "write_jsonl_atomic",
]

_JSONL_EXTENSIONS = (".jsonl", ".ndjson", ".json")
_CSV_EXTENSIONS = (".csv",)
_PARQUET_EXTENSIONS = (".parquet", ".pq")
SUPPORTED_EXTENSIONS: tuple[str, ...] = _JSONL_EXTENSIONS + _CSV_EXTENSIONS + _PARQUET_EXTENSIONS
"""File extensions :func:`load_documents` accepts (lower-case comparison)."""


class DataFileNotFoundError(DataError, FileNotFoundError):
    """A data file or folder does not exist. Both a :class:`DataError` (``ValueError``) and a ``FileNotFoundError``."""


@dataclass(frozen=True)
class Document:
    """One private document.

    Attributes:
        id: identifier, unique within its collection (the id field stringified, or the 0-based row index).
        text: the document text, non-empty.
    """

    id: str
    text: str


def load_documents(
    path: str | os.PathLike[str],
    *,
    text_field: str = "text",
    id_field: str | None = None,
    limit: int | None = None,
) -> list[Document]:
    """Load a document collection from a JSON-lines, CSV or Parquet file.

    Args:
        path: the file; its extension (see :data:`SUPPORTED_EXTENSIONS`) selects the reader.
        text_field: name of the field holding the text. Each value must be a non-empty string
            (whitespace only counts as empty).
        id_field: name of the field holding the id (any scalar, converted with ``str``); ``None`` uses the
            0-based row index (``"0"``, ``"1"``, …). Ids must be unique.
        limit: keep only the first ``limit`` rows of the file (in file order), ``None`` for all. Rows
            after the limit are not read, so they are not validated either.

    Returns:
        The documents in file order.

    Raises:
        DataFileNotFoundError: ``path`` does not exist (also a ``DataError`` and a ``FileNotFoundError``).
        DataError: unknown extension, a malformed row (bad JSON, bad UTF-8, not an object), a missing
            field, a non-string or empty text, a missing id, a duplicate id, or no documents at all.
        ConfigError: ``limit`` is not a positive integer.
    """
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise ConfigError(f"`limit` must be a positive integer or None. Found {limit!r}.")
    file = Path(path)
    if not file.exists():
        raise DataFileNotFoundError(
            f"`path`: document file not found: {str(file)!r} (resolved: {str(file.resolve())!r}). "
            "Hint: check the path and the current directory."
        )
    if file.is_dir():
        raise DataError(f"`path` must be a file, found a directory: {str(file)!r}.")
    suffix = file.suffix.lower()
    if suffix in _JSONL_EXTENSIONS:
        rows = _iter_json_rows(file)
    elif suffix in _CSV_EXTENSIONS:
        rows = _iter_csv_rows(file)
    elif suffix in _PARQUET_EXTENSIONS:
        rows = _iter_parquet_rows(file, text_field, id_field)
    else:
        raise DataError(
            f"`path`: unknown file extension {file.suffix!r} for {str(file)!r}; "
            f"supported: {', '.join(SUPPORTED_EXTENSIONS)}. Hint: rename the file or convert it."
        )

    documents: list[Document] = []
    first_seen: dict[str, str] = {}
    for row_index, where, row in rows:
        if limit is not None and row_index >= limit:
            break
        text = _field(row, text_field, where, file)
        if not isinstance(text, str):
            raise DataError(f"{file.name}, {where}: field {text_field!r} must be a string, found {type(text).__name__}.")
        if not text.strip():
            raise DataError(
                f"{file.name}, {where}: field {text_field!r} is empty (or whitespace only). "
                "Hint: remove empty documents before loading."
            )
        if id_field is None:
            doc_id = str(row_index)
        else:
            raw_id = _field(row, id_field, where, file)
            if raw_id is None or (isinstance(raw_id, str) and not raw_id.strip()):
                raise DataError(f"{file.name}, {where}: id field {id_field!r} is empty (null, or whitespace only).")
            if isinstance(raw_id, (dict, list)):
                raise DataError(
                    f"{file.name}, {where}: id field {id_field!r} must be a scalar, found {type(raw_id).__name__}."
                )
            doc_id = str(raw_id)
        if doc_id in first_seen:
            raise DataError(
                f"{file.name}, {where}: id field {id_field!r} repeats the id of {first_seen[doc_id]}. "
                "Ids must be unique; hint: leave out the id field (no --id-field; id_field=None) to number rows instead."
            )
        first_seen[doc_id] = where
        documents.append(Document(id=doc_id, text=text))
    if not documents:
        raise DataError(f"{file.name}: no documents found in {str(file)!r} (the file has no data rows).")
    return documents


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
    for _, _, row in _iter_json_rows(file, allow_array=False):
        if limit is not None and len(rows) >= limit:
            break
        rows.append(dict(row))
    return rows


def write_jsonl_atomic(path: str | os.PathLike[str], records: Iterable[Mapping[str, Any] | Any]) -> Path:
    """Write ``records`` as UTF-8 JSON lines, atomically.

    The lines go to a temporary file in the destination folder, which is flushed, fsync-ed and then
    moved over ``path`` with ``os.replace``: readers see either the old file or the complete new one,
    never a partial file. The folder is created if needed. On any error the temporary file is removed
    and ``path`` is left untouched.

    Args:
        path: destination file.
        records: mappings, or dataclass instances (converted with ``dataclasses.asdict``), one per line;
            serialised with ``json.dumps(..., ensure_ascii=False)`` (non-ASCII kept as UTF-8).

    Returns:
        The destination path.

    Raises:
        TypeError: a record is neither a mapping nor a dataclass instance, or is not JSON-serialisable.
    """
    dest = Path(path)
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".tmp", dir=dest.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            for index, record in enumerate(records):
                if dataclasses.is_dataclass(record) and not isinstance(record, type):
                    record = dataclasses.asdict(record)
                if not isinstance(record, Mapping):
                    raise TypeError(
                        f"`records`[{index}] must be a mapping or a dataclass instance, "
                        f"found {type(record).__name__}."
                    )
                handle.write(json.dumps(dict(record), ensure_ascii=False))
                handle.write("\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp_name, dest)
    except BaseException:
        try:
            os.unlink(tmp_name)
        except FileNotFoundError:
            pass
        raise
    return dest


# --------------------------------------------------------------------------------------------------
# Readers. Each yields (row_index, where, row) with `where` a human-readable location.


def _iter_json_rows(file: Path, *, allow_array: bool = True) -> Iterator[tuple[int, str, Mapping[str, Any]]]:
    data = file.read_bytes()
    if allow_array and file.suffix.lower() == ".json" and data.lstrip()[:1] == b"[":
        yield from _iter_json_array(file, data)
        return
    row_index = 0
    offset = 0
    for line_no, raw in enumerate(data.split(b"\n"), start=1):
        line_offset = offset
        offset += len(raw) + 1
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise DataError(
                f"{file.name}, line {line_no}: invalid UTF-8 at byte {exc.start} of the line "
                f"(byte {line_offset + exc.start} of the file): {exc.reason}. Hint: re-encode the file as UTF-8."
            ) from None
        if line_no == 1 and line.startswith("\ufeff"):
            line = line[1:]
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DataError(
                f"{file.name}, line {line_no}: malformed JSON at column {exc.colno}: {exc.msg}. "
                "Hint: each line must be one JSON object."
            ) from None
        if not isinstance(row, dict):
            raise DataError(f"{file.name}, line {line_no}: each line must be a JSON object, found {type(row).__name__}.")
        yield row_index, f"line {line_no} (row {row_index})", row
        row_index += 1


def _iter_json_array(file: Path, data: bytes) -> Iterator[tuple[int, str, Mapping[str, Any]]]:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line_no = data.count(b"\n", 0, exc.start) + 1
        raise DataError(
            f"{file.name}, line {line_no}: invalid UTF-8 at byte {exc.start} of the file: {exc.reason}. "
            "Hint: re-encode the file as UTF-8."
        ) from None
    try:
        rows = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DataError(
            f"{file.name}, line {exc.lineno}: malformed JSON at column {exc.colno}: {exc.msg}."
        ) from None
    for row_index, row in enumerate(rows):
        if not isinstance(row, dict):
            raise DataError(
                f"{file.name}, row {row_index}: each array element must be a JSON object, found {type(row).__name__}."
            )
        yield row_index, f"row {row_index}", row


def _iter_csv_rows(file: Path) -> Iterator[tuple[int, str, Mapping[str, Any]]]:
    data = file.read_bytes()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        bom = 3 if data.startswith(b"\xef\xbb\xbf") else 0
        start = exc.start + bom
        line_no = data.count(b"\n", 0, start) + 1
        line_start = data.rfind(b"\n", 0, start) + 1
        raise DataError(
            f"{file.name}, line {line_no}: invalid UTF-8 at byte {start - line_start} of the line "
            f"(byte {start} of the file): {exc.reason}. Hint: re-encode the file as UTF-8."
        ) from None
    _raise_csv_field_limit()
    # strict: a quote that never closes is an error, not a field that swallows the following rows
    # (which would merge several documents, and several privacy units, into one)
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    try:
        header = next(reader)
    except StopIteration:
        return
    except csv.Error as exc:
        raise DataError(f"{file.name}, line {reader.line_num}: malformed CSV header: {exc}.") from None
    header = [name.strip() for name in header]
    row_index = 0
    while True:
        start = reader.line_num + 1
        try:
            values = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            if "unexpected end of data" in str(exc):
                raise DataError(
                    f"{file.name}, line {start}: a quoted field opened in the row starting here is never closed "
                    "(runs to the end of the file). Hint: close the quote, or double quotes inside a quoted field."
                ) from None
            raise DataError(f"{file.name}, line {reader.line_num}: malformed CSV: {exc}.") from None
        if not values:
            continue  # blank line
        if len(values) != len(header):
            raise DataError(
                f"{file.name}, line {reader.line_num} (row {row_index}): expected {len(header)} columns "
                f"({', '.join(header)}), found {len(values)}. Hint: quote fields that contain commas."
            )
        yield row_index, f"line {reader.line_num} (row {row_index})", dict(zip(header, values))
        row_index += 1


def _iter_parquet_rows(
    file: Path, text_field: str, id_field: str | None
) -> Iterator[tuple[int, str, Mapping[str, Any]]]:
    import pyarrow.parquet as pq

    try:
        parquet = pq.ParquetFile(file)
    except Exception as exc:  # pyarrow raises ArrowInvalid / OSError for non-Parquet content
        raise DataError(f"{file.name}: not a readable Parquet file: {exc}.") from None
    available = list(parquet.schema_arrow.names)
    wanted = [text_field] + ([id_field] if id_field is not None else [])
    for name in wanted:
        if name not in available:
            raise DataError(
                f"{file.name}: missing field {name!r} (row 0); available fields: {', '.join(available)}."
            )
    row_index = 0
    for batch in parquet.iter_batches(columns=list(dict.fromkeys(wanted)), batch_size=8192):
        columns = {name: batch.column(name).to_pylist() for name in dict.fromkeys(wanted)}
        for i in range(batch.num_rows):
            yield row_index, f"row {row_index}", {name: values[i] for name, values in columns.items()}
            row_index += 1


def _field(row: Mapping[str, Any], name: str, where: str, file: Path) -> Any:
    if name not in row:
        available = ", ".join(map(str, row.keys())) or "(none)"
        raise DataError(
            f"{file.name}, {where}: missing field {name!r}; available fields: {available}. "
            "Hint: name the right field (--text-field / --id-field; text_field= / id_field= in the API)."
        )
    return row[name]


def _raise_csv_field_limit() -> None:
    limit = sys.maxsize
    while True:
        try:
            csv.field_size_limit(limit)
            return
        except OverflowError:
            limit //= 10


def as_documents(
    documents: Sequence[Document] | Sequence[str] | str | os.PathLike,
    *,
    text_field: str = "text",
    id_field: str | None = None,
) -> list[Document]:
    """The private collection as a list of :class:`Document` (a file path is loaded; plain strings get
    their row index as id).

    Raises:
        DataError: an empty collection, a non-string/non-Document entry, an empty text, or a bad file.
    """
    if isinstance(documents, (str, os.PathLike)):
        out = load_documents(documents, text_field=text_field, id_field=id_field)
        warn_duplicate_texts(out)
        return out
    if isinstance(documents, bytes) or not isinstance(documents, Sequence):
        raise DataError(f"`documents` must be a sequence of Documents or strings, or a file path. Found {type(documents).__name__}.")
    out: list[Document] = []
    for i, d in enumerate(documents):
        if isinstance(d, Document):
            out.append(d)
        elif isinstance(d, str):
            out.append(Document(id=str(i), text=d))
        else:
            raise DataError(f"documents[{i}] must be a Document or a string. Found {type(d).__name__}.")
        if not out[-1].text.strip():
            raise DataError(f"documents[{i}] has an empty text.")
    if not out:
        raise DataError("the document collection is empty.")
    warn_duplicate_texts(out)
    return out


def warn_duplicate_texts(documents: Sequence[Document]) -> int:
    """Warn (``UserWarning``, to stderr: never into a corpus folder's log) when documents repeat the text of
    an earlier one: the privacy unit is one document, so a person whose record appears twice is protected
    only as two units. Returns the number of repeats."""
    seen: set[str] = set()
    repeats = 0
    for d in documents:
        if d.text in seen:
            repeats += 1
        seen.add(d.text)
    if repeats:
        warnings.warn(
            f"{repeats} document(s) repeat the exact text of an earlier one. The guarantee is per document: "
            "if copies belong to the same person, remove them (or merge each person's documents) first.",
            UserWarning,
            stacklevel=3,
        )
    return repeats
