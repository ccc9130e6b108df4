"""Row readers of the document file formats of :mod:`dpsynrag.data.io`: JSON lines (or one JSON
array in a ``.json`` file), CSV and Parquet. Each yields ``(row_index, where, row)`` with ``where`` a
human-readable location, and raises :class:`~dpsynrag.errors.DataError` as that module describes.

:func:`iter_rows` with ``max_chars`` cuts the text field of each row to ``max_chars`` characters as the row is
read (a :class:`CutText`): JSON lines and CSV right after the row is parsed (the reader drops the line and
the whole text before handing the row on), Parquet in Arrow before the text becomes a Python string.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from dpsynrag.errors import DataError
from dpsynrag.textkeys import whole_text_keys, whole_text_keys_of_utf8

JSONL_EXTENSIONS = (".jsonl", ".ndjson", ".json")
CSV_EXTENSIONS = (".csv",)
PARQUET_EXTENSIONS = (".parquet", ".pq")
SUPPORTED_EXTENSIONS: tuple[str, ...] = JSONL_EXTENSIONS + CSV_EXTENSIONS + PARQUET_EXTENSIONS
"""File extensions :func:`~dpsynrag.data.io.load_documents` accepts (lower-case comparison)."""


class CutText(str):
    """A text cut at read time to its first ``max_chars`` characters (a ``str`` of the kept prefix).

    Attributes:
        sha256: the SHA-256 digest (32 bytes) of the whole text, as UTF-8.
        key: the whole text's :func:`~dpsynrag.textkeys.whole_text_keys` (SHA-256 of its normal form and of
            the normal form of issue 42, 64 bytes).
        blank: whether the whole text was whitespace only.
    """

    sha256: bytes
    key: bytes
    blank: bool

    @classmethod
    def of(cls, text: str, max_chars: int) -> "CutText":
        """``text[:max_chars]`` with the whole ``text``'s digest and blankness (``text`` longer than ``max_chars``)."""
        cut = cls(text[:max_chars])
        cut.sha256 = hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()
        cut.key = whole_text_keys(text)
        cut.blank = text.isspace()
        return cut


def _cut_field(row: dict, field: str, max_chars: int | None) -> dict:
    """``row`` with its ``field`` replaced by a :class:`CutText` when that is a string longer than ``max_chars``."""
    value = row.get(field)
    if max_chars is not None and isinstance(value, str) and len(value) > max_chars:
        row[field] = CutText.of(value, max_chars)
    return row


def iter_rows(
    file: Path, text_field: str, id_field: str | None, identifier_fields: Sequence[str] = (), *,
    max_chars: int | None = None,
) -> Iterator[tuple[int, str, Mapping[str, Any]]]:
    """The rows of ``file`` by the reader of its extension (one of :data:`SUPPORTED_EXTENSIONS`);
    Parquet reads only the ``text_field``, ``id_field`` and ``identifier_fields`` columns. ``max_chars``:
    a ``text_field`` string longer than this many characters is cut as the row is read (a :class:`CutText`)."""
    suffix = file.suffix.lower()
    if suffix in JSONL_EXTENSIONS:
        return iter_json_rows(file, cut=(text_field, max_chars))
    if suffix in CSV_EXTENSIONS:
        return iter_csv_rows(file, cut=(text_field, max_chars))
    return iter_parquet_rows(file, text_field, id_field, identifier_fields, max_chars=max_chars)


def field_names(file: Path) -> list[str]:
    """The field names of a collection file, reading names only where the format allows: a CSV file's header
    row, a Parquet file's schema, the keys of a JSON-lines file's first object (its values are parsed but
    never returned). Empty for a file without rows.

    Raises:
        DataError: an unsupported extension, or a malformed first row (as when reading it).
    """
    suffix = file.suffix.lower()
    if suffix in PARQUET_EXTENSIONS:
        return list(_parquet_file(file).schema_arrow.names)
    if suffix in CSV_EXTENSIONS:
        _raise_csv_field_limit()
        with open(file, "rb") as raw:
            try:
                header = next(csv.reader(io.TextIOWrapper(raw, encoding="utf-8-sig", newline="")), [])
            except UnicodeDecodeError:
                raise _csv_utf8_error(file) from None
            except csv.Error as exc:
                raise DataError(f"{file.name}, line 1: malformed CSV header: {exc}.") from None
        return [name.strip() for name in header]
    if suffix in JSONL_EXTENSIONS:
        for _, _, row in iter_json_rows(file):
            return list(map(str, row.keys()))
        return []
    raise DataError(f"{file.name}: unsupported file type {file.suffix!r}; use one of {', '.join(SUPPORTED_EXTENSIONS)}.")


def _parquet_file(file: Path):
    """``file`` opened as a ``pyarrow.parquet.ParquetFile`` (its schema read, no row).

    Raises:
        DataError: it is not a readable Parquet file.
    """
    import pyarrow.parquet as pq

    try:
        return pq.ParquetFile(file)
    except Exception as exc:  # pyarrow raises ArrowInvalid / OSError for non-Parquet content
        raise DataError(f"{file.name}: not a readable Parquet file: {exc}.") from None


def _starts_with_bracket(handle) -> bool:
    """True when the first byte of ``handle`` that is not ASCII whitespace is ``[`` (reads only up to it)."""
    while chunk := handle.read(1 << 16):
        stripped = chunk.lstrip()
        if stripped:
            return stripped[:1] == b"["
    return False


def iter_json_rows(file: Path, *, allow_array: bool = True, cut: tuple[str, int | None] = ("", None)
                   ) -> Iterator[tuple[int, str, Mapping[str, Any]]]:
    """The objects of a JSON-lines file (blank lines skipped), or of one JSON array in a ``.json`` file
    when ``allow_array``. ``cut``: ``(field, max_chars)``, the field cut as in :func:`iter_rows`."""
    # JSON lines are read one line at a time (memory: one row); a .json file holding one array is parsed whole
    with open(file, "rb") as handle:
        if allow_array and file.suffix.lower() == ".json" and _starts_with_bracket(handle):
            handle.seek(0)
            for row_index, where, row in _iter_json_array(file, handle.read()):
                yield row_index, where, _cut_field(row, *cut)
            return
        handle.seek(0)
        yield from _iter_json_lines(file, handle, cut)


def _iter_json_lines(file: Path, handle, cut: tuple[str, int | None]) -> Iterator[tuple[int, str, Mapping[str, Any]]]:
    row_index = 0
    offset = 0
    for line_no, raw in enumerate(handle, start=1):  # binary lines end at b"\n" only
        line_offset = offset
        offset += len(raw)
        if raw.endswith(b"\n"):
            raw = raw[:-1]
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise DataError(
                f"{file.name}, line {line_no}: invalid UTF-8 at byte {exc.start} of the line "
                f"(byte {line_offset + exc.start} of the file): {exc.reason}. Hint: re-encode the file as UTF-8."
            ) from None
        if line_no == 1 and line.startswith("\ufeff"):
            line = line[1:]
        if not line or line.isspace():  # not line.strip(): no copy of a long line
            continue
        raw = b""  # the line is held once (decoded), then only as the parsed row
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DataError(
                f"{file.name}, line {line_no}: malformed JSON at column {exc.colno}: {exc.msg}. "
                "Hint: each line must be one JSON object."
            ) from None
        line = ""
        if not isinstance(row, dict):
            raise DataError(f"{file.name}, line {line_no}: each line must be a JSON object, found {type(row).__name__}.")
        yield row_index, f"line {line_no} (row {row_index})", _cut_field(row, *cut)
        row = None
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


def _csv_utf8_error(file: Path) -> DataError:
    """The error for the first invalid UTF-8 byte of ``file`` (found by reading it again line by line:
    a multi-byte character never spans a newline byte, so each line decodes on its own)."""
    offset = 0
    with open(file, "rb") as handle:
        for line_no, raw in enumerate(handle, start=1):
            try:
                raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                return DataError(
                    f"{file.name}, line {line_no}: invalid UTF-8 at byte {exc.start} of the line "
                    f"(byte {offset + exc.start} of the file): {exc.reason}. Hint: re-encode the file as UTF-8."
                )
            offset += len(raw)
    return DataError(f"{file.name}: invalid UTF-8. Hint: re-encode the file as UTF-8.")  # pragma: no cover


def iter_csv_rows(file: Path, *, cut: tuple[str, int | None] = ("", None)
                  ) -> Iterator[tuple[int, str, Mapping[str, Any]]]:
    """The rows of a UTF-8 CSV file with a header row, as ``{column: value}`` (blank lines skipped).
    ``cut``: ``(field, max_chars)``, the field cut as in :func:`iter_rows`."""
    _raise_csv_field_limit()
    with open(file, "rb") as raw:
        # read one line at a time (memory: one row); newline="" keeps line ends as the csv module needs
        text = io.TextIOWrapper(raw, encoding="utf-8-sig", newline="")
        try:
            yield from _iter_csv_text(file, text, cut)
        except UnicodeDecodeError:
            raise _csv_utf8_error(file) from None


def _iter_csv_text(file: Path, text, cut: tuple[str, int | None]) -> Iterator[tuple[int, str, Mapping[str, Any]]]:
    # strict: a quote that never closes is an error, not a field that swallows the following rows
    # (which would merge several documents, and several privacy units, into one)
    reader = csv.reader(text, strict=True)
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
        row = _cut_field(dict(zip(header, values)), *cut)
        values = None  # the whole text goes with the parsed values
        yield row_index, f"line {reader.line_num} (row {row_index})", row
        row = None
        row_index += 1


def iter_parquet_rows(
    file: Path, text_field: str, id_field: str | None, identifier_fields: Sequence[str] = (), *,
    max_chars: int | None = None,
) -> Iterator[tuple[int, str, Mapping[str, Any]]]:
    """The ``text_field`` (and ``id_field``, ``identifier_fields``) values of a Parquet file's rows, read in
    batches of 8,192 (a list column gives Python lists). ``max_chars``: a longer text is cut in Arrow (its
    digest read from Arrow's buffer), so it never becomes a whole Python string."""
    parquet = _parquet_file(file)
    available = list(parquet.schema_arrow.names)
    wanted = [text_field] + ([id_field] if id_field is not None else []) + list(identifier_fields)
    for name in wanted:
        if name not in available:
            raise DataError(
                f"{file.name}: missing field {name!r} (row 0); available fields: {', '.join(available)}."
            )
    row_index = 0
    for batch in parquet.iter_batches(columns=list(dict.fromkeys(wanted)), batch_size=8192):
        columns = {name: batch.column(name).to_pylist() for name in dict.fromkeys(wanted) if name != text_field}
        columns[text_field] = _parquet_texts(batch.column(text_field), max_chars)
        for i in range(batch.num_rows):
            yield row_index, f"row {row_index}", {name: values[i] for name, values in columns.items()}
            row_index += 1


def _parquet_texts(column, max_chars: int | None) -> list:
    """A Parquet batch's text column as Python values; with ``max_chars``, each longer string a
    :class:`CutText` made in Arrow (the whole value is hashed from Arrow's buffer, never copied)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if max_chars is None or not (pa.types.is_string(column.type) or pa.types.is_large_string(column.type)):
        return column.to_pylist()
    longer = pc.indices_nonzero(pc.fill_null(pc.greater(pc.utf8_length(column), max_chars), False)).to_pylist()
    if not longer:
        return column.to_pylist()
    values = pc.utf8_slice_codeunits(column, 0, max_chars).to_pylist()  # code points, as Python's str
    for i in longer:
        whole = column[i]
        cut = CutText(values[i])
        buffer = whole.as_buffer()
        cut.sha256 = hashlib.sha256(buffer).digest()
        view = memoryview(buffer)
        cut.key = whole_text_keys_of_utf8(lambda: (view[i:i + (1 << 14)] for i in range(0, len(view), 1 << 14)))
        cut.blank = bool(pc.utf8_is_space(whole).as_py())
        values[i] = cut
    return values


def _raise_csv_field_limit() -> None:
    limit = sys.maxsize
    while True:
        try:
            csv.field_size_limit(limit)
            return
        except OverflowError:
            limit //= 10
