"""Reading private document collections (a file, or Documents and strings in memory).

A collection is a file of rows, each with a text field, optionally an id field and columns of direct
identifiers (:mod:`dpsynrag.data.redaction`):

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

The cut at read time (``max_chars``; a build passes :func:`max_document_chars` of its
``max_document_tokens``): each text longer than ``max_chars`` characters is cut to its first ``max_chars``
as soon as its row is read, so a huge field is never carried through a build (nor tokenized whole). It is
a function of each document alone and, on ordinary text, never changes what a model reads: the bound is
:data:`MAX_CHARS_PER_TOKEN` characters per token, above the longest token of the default model's
tokenizer, so ``LanguageModel.truncate(text, max_document_tokens)`` ends before the cut and keeps the same
prefix whether or not the text was cut first (a text under the bound is not touched at all). A cut
document keeps the SHA-256 of its whole text (:attr:`Document.text_sha256`): the privacy ledger identifies
the collection by its whole texts, whatever the cut.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import re
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dpsynrag import textkeys
from dpsynrag.data.readers import SUPPORTED_EXTENSIONS, CutText, iter_rows
from dpsynrag.errors import ConfigError, DataError

__all__ = [
    "DataFileNotFoundError",
    "Document",
    "MAX_CHARS_PER_TOKEN",
    "SUPPORTED_EXTENSIONS",
    "check_fields",
    "cut_text",
    "iter_documents",
    "load_documents",
    "max_document_chars",
]


class DataFileNotFoundError(DataError, FileNotFoundError):
    """A data file or folder does not exist. Both a :class:`DataError` (``ValueError``) and a ``FileNotFoundError``."""


MAX_CHARS_PER_TOKEN = 128
"""A public bound on the characters one token covers, for the cut at read time (:func:`max_document_chars`).
The longest token of the default language model (SmolLM2's tokenizer) covers 81 characters (a newline and
80 spaces); a word token covers far fewer (about 4 characters per token on English text)."""


def max_document_chars(max_tokens: int) -> int:
    """The cut at read time of a build that reads at most ``max_tokens`` tokens of each document
    (``--max-document-tokens``): ``(max_tokens + 1) * MAX_CHARS_PER_TOKEN`` characters (public: a function of
    public parameters only). One token more than needed, so that the word the cut falls in lies past
    ``max_tokens`` tokens of ordinary text.

    Raises:
        ConfigError: ``max_tokens`` is not an integer >= 1 (--max-document-tokens).
    """
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
        raise ConfigError(
            f"`max_document_tokens` (--max-document-tokens) must be an integer >= 1. Found {max_tokens!r}."
        )
    return (max_tokens + 1) * MAX_CHARS_PER_TOKEN


def cut_text(text: str, max_chars: int | None) -> tuple[str, bytes | None, bytes | None]:
    """``(text[:max_chars], SHA-256 of the whole text, its normal-form keys)`` when ``text`` is longer than
    ``max_chars`` characters (the keys: :func:`~dpsynrag.textkeys.whole_text_keys`), else ``(text, None, None)``
    (also when ``max_chars`` is None)."""
    if max_chars is None or len(text) <= max_chars:
        return text, None, None
    return text[:max_chars], hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest(), textkeys.whole_text_keys(text)


@dataclass(frozen=True)
class Document:
    """One private document.

    Attributes:
        id: identifier, unique within its collection (the id field stringified, or the 0-based row index).
        text: the document text, non-empty.
        identifiers: the document's own direct identifiers (values of the ``identifier_fields``), for
            :mod:`dpsynrag.data.redaction`; private: left out of ``repr`` and never written
            (:func:`~dpsynrag.data.jsonl.write_jsonl_atomic` writes a Document as its id and text).
        text_sha256: when ``text`` was cut at read time (``max_chars``; see the module docstring), the
            SHA-256 digest (32 bytes) of the whole text, which the privacy ledger fingerprints
            (:func:`~dpsynrag.privacy.fingerprints.dataset_fingerprint`); None for a text as read. Private: left
            out of ``repr``, never written.
        text_key: when ``text`` was cut (at read time, or by a build's preparation), the whole text's
            :func:`~dpsynrag.textkeys.whole_text_keys` (64 bytes: SHA-256 of its normal form, how the ledger
            and ``--extend`` recognise the document across files, line endings, whitespace, invisible format
            characters and compatibility forms; then that of issue 42's normal form, for ledgers written
            before); None for a text as read. Private, as ``text_sha256``.
        unit: the key of the privacy unit (person) the document belongs to: the value of the
            ``unit_field`` (``--privacy-unit-field``; stringified, never empty), None when the collection is
            read without one (each document is its own unit). Documents with the same key are one unit:
            neighbouring collections differ by all of them (:mod:`dpsynrag.pipeline.units`). Private: left
            out of ``repr``, never written; the ledger may keep a keyed hash of it, never the value.
    """

    id: str
    text: str
    identifiers: tuple[str, ...] = field(default=(), repr=False)
    text_sha256: bytes | None = field(default=None, repr=False)
    unit: str | None = field(default=None, repr=False)
    text_key: bytes | None = field(default=None, repr=False)


def load_documents(path: str | os.PathLike[str], **options: Any) -> list[Document]:
    """Load a document collection from a JSON-lines, CSV or Parquet file: the documents of
    :func:`iter_documents` (same keyword ``options``: ``text_field``, ``id_field``, ``limit``,
    ``identifier_fields``, ``max_chars``, ``unit_field``; same checks and errors), all in memory, in
    file order.
    """
    return list(iter_documents(path, **options))


def iter_documents(
    path: str | os.PathLike[str],
    *,
    text_field: str = "text",
    id_field: str | None = None,
    limit: int | None = None,
    identifier_fields: Sequence[str] = (),
    max_chars: int | None = None,
    unit_field: str | None = None,
) -> Iterator[Document]:
    """The documents of a JSON-lines, CSV or Parquet file, read and checked one row at a time.

    Rows are checked as they are read: each error is raised when its row is reached (rows before it have
    been yielded). Memory: one row (JSON lines, CSV; a ``.json`` file holding one JSON array is parsed whole; Parquet: one batch of 8,192 rows) plus a 64-bit hash per id (the
    duplicate-id check; a repeated hash reads the file again to confirm and locate the earlier row).
    With ``max_chars``, a longer text is cut as soon as its row is parsed (JSON lines, CSV: the row is
    read whole first, and the whole text is dropped before the row is handed on) or before it becomes a
    Python string at all (Parquet: cut in Arrow).
    The "path", extension and ``limit`` errors are raised by the call itself, before iteration.

    Args:
        path: the file; its extension (see :data:`SUPPORTED_EXTENSIONS`) selects the reader.
        text_field: name of the field holding the text. Each value must be a non-empty string
            (whitespace only counts as empty).
        id_field: name of the field holding the id (any scalar, converted with ``str``); ``None`` uses the
            0-based row index (``"0"``, ``"1"``, …). Ids must be unique.
        limit: keep only the first ``limit`` rows of the file (in file order), ``None`` for all. Rows
            after the limit are not read, so they are not validated either.
        identifier_fields: names of the fields holding the row's direct identifiers (names, e-mails,
            account numbers), which become :attr:`Document.identifiers`: a string, another scalar
            (converted with ``str``) or a list of them; null and empty values give none.
        max_chars: cut each text to its first ``max_chars`` characters as its row is read (see the
            module docstring; a whitespace-only text is refused before the cut); None: no cut.
        unit_field: name of the field holding the row's privacy unit (person) key, which becomes
            :attr:`Document.unit` (a scalar, converted with ``str``; ``--privacy-unit-field``); every row
            must have a non-empty value. None: no units (each document is its own unit).

    Returns:
        An iterator over the documents in file order (:func:`load_documents`: all of them in a list).

    Raises:
        DataFileNotFoundError: ``path`` does not exist (also a ``DataError`` and a ``FileNotFoundError``).
        DataError: unknown extension, a malformed row (bad JSON, bad UTF-8, not an object), a missing
            field (text, id, identifier or unit), a non-string or empty text, a missing id, a duplicate id,
            an identifier that is an object, a unit value that is missing, null, empty or not a scalar, or no
            documents at all. Messages name the row and field, never the value.
        ConfigError: ``limit`` is not a positive integer.
    """
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise ConfigError(f"`limit` must be a positive integer or None. Found {limit!r}.")
    file = _collection_file(path)
    return _iter_documents(file, text_field, id_field, limit, identifier_fields=tuple(identifier_fields),
                           max_chars=max_chars, unit_field=unit_field)


def check_fields(path: str | os.PathLike[str], fields: Mapping[str, str | Sequence[str] | None]) -> list[str]:
    """Check, from field names only, that a collection file has the fields a build will read (``build
    --dry-run``): a CSV header, a Parquet schema, the keys of a JSON-lines file's first object
    (:func:`~dpsynrag.data.readers.field_names`). No value is returned, printed or used.

    Args:
        path: the collection file.
        fields: flag -> field name(s), e.g. ``{"--text-field": "text", "--identifier-field": ("iban",)}``;
            None or empty: not used.

    Returns:
        The file's field names.

    Raises:
        DataFileNotFoundError, DataError: as :func:`iter_documents` for the path; a named field the file does
            not have (naming the flag, the field and the fields there are).
    """
    from dpsynrag.data.readers import field_names

    file = _collection_file(path)
    names = field_names(file)
    if not names and not _has_rows(file):
        raise DataError(f"{file.name}: no documents found in {str(file)!r} (the file has no data rows).")
    for flag, wanted in fields.items():
        for name in (wanted,) if isinstance(wanted, str) else (wanted or ()):
            if name not in names:
                raise DataError(f"{file.name}: no field {name!r} ({flag}); the file's fields: "
                                f"{', '.join(names) or '(none)'}.")
    return names


def _has_rows(file: Path) -> bool:
    """Whether a collection file whose field names are none (:func:`~dpsynrag.data.readers.field_names`) has a
    row at all: a JSON-lines file whose first object is ``{}`` has; an empty file has not."""
    from dpsynrag.data.readers import JSONL_EXTENSIONS, iter_json_rows

    return file.suffix.lower() in JSONL_EXTENSIONS and next(iter(iter_json_rows(file)), None) is not None


def _collection_file(path: str | os.PathLike[str]) -> Path:
    """``path`` as a collection file that exists, is a file and has a supported extension (else the errors
    of :func:`iter_documents`)."""
    file = Path(path)
    if not file.exists():
        raise DataFileNotFoundError(
            f"`path`: document file not found: {str(file)!r} (resolved: {str(file.resolve())!r}). "
            "Hint: check the path and the current directory."
        )
    if file.is_dir():
        raise DataError(f"`path` must be a file, found a directory: {str(file)!r}.")
    if file.suffix.lower() not in SUPPORTED_EXTENSIONS:
        raise DataError(
            f"`path`: unknown file extension {file.suffix!r} for {str(file)!r}; "
            f"supported: {', '.join(SUPPORTED_EXTENSIONS)}. Hint: rename the file or convert it."
        )
    return file


def _iter_documents(file: Path, text_field: str, id_field: str | None, limit: int | None, *,
                    identifier_fields: Sequence[str] = (), max_chars: int | None = None,
                    unit_field: str | None = None) -> Iterator[Document]:
    seen_ids: set[int] = set()  # 64-bit hashes of the ids so far (not the ids: memory stays small)
    count = 0
    columns = (*identifier_fields, *((unit_field,) if unit_field is not None else ()))  # Parquet reads only these
    for row_index, where, row in iter_rows(file, text_field, id_field, columns, max_chars=max_chars):
        if limit is not None and row_index >= limit:
            break
        text = _field(row, text_field, where, file, later=row_index > 0)
        if not isinstance(text, str):
            raise DataError(f"{file.name}, {where}: field {text_field!r} must be a string, found {type(text).__name__}.")
        blank = text.blank if isinstance(text, CutText) else not text or text.isspace()  # isspace: no copy
        if blank:
            raise DataError(
                f"{file.name}, {where}: field {text_field!r} is empty (or whitespace only). "
                "Hint: remove empty documents before loading."
            )
        text, digest, normal_key = (str(text), text.sha256, text.key) if isinstance(text, CutText) else cut_text(
            text, max_chars)
        doc_id = str(row_index) if id_field is None else _document_id(row, id_field, where, file, row_index > 0)
        if id_field is not None:
            key = _hash64(doc_id)
            if key in seen_ids:
                earlier = _earlier_row_with_id(file, text_field, id_field, doc_id, row_index)
                if earlier is not None:
                    raise DataError(
                        f"{file.name}, {where}: id field {id_field!r} repeats the id of {earlier}. Ids must be "
                        "unique; hint: leave out the id field (no --id-field; id_field=None) to number rows instead."
                    )
            seen_ids.add(key)
        identifiers = tuple(v for name in identifier_fields for v in _identifiers(row, name, where, file, row_index > 0))
        unit = None if unit_field is None else _unit(row, unit_field, where, file, row_index > 0)
        count += 1
        del row  # with a cut text, the whole one goes now
        yield Document(id=doc_id, text=text, identifiers=identifiers, text_sha256=digest, unit=unit,
                       text_key=normal_key)
    if not count:
        raise DataError(f"{file.name}: no documents found in {str(file)!r} (the file has no data rows).")


def _document_id(row: Mapping[str, Any], id_field: str, where: str, file: Path, later: bool = False) -> str:
    raw_id = _field(row, id_field, where, file, later=later)
    if raw_id is None or (isinstance(raw_id, str) and not raw_id.strip()):
        raise DataError(f"{file.name}, {where}: id field {id_field!r} is empty (null, or whitespace only).")
    if isinstance(raw_id, (dict, list)):
        raise DataError(f"{file.name}, {where}: id field {id_field!r} must be a scalar, found {type(raw_id).__name__}.")
    return str(raw_id)


def _unit(row: Mapping[str, Any], unit_field: str, where: str, file: Path, later: bool = False) -> str:
    """The row's privacy unit key: the value of ``unit_field``, stringified with surrounding whitespace
    removed and a whole number written as one (``1``, ``1.0``, ``"1.0"`` and ``" 1 "`` are the same person, as a
    spreadsheet or pandas export may write one id several ways); never quoted in an error."""
    raw = _field(row, unit_field, where, file, what="privacy unit field",
                 hint="Every document needs its person's key. Hint: name the right field (--privacy-unit-field; "
                      "privacy_unit_field= in the API) or add the key to every row.", later=later,
                 later_hint="Every document needs its person's key. Hint: add it to this row.")
    if isinstance(raw, (dict, list)):
        raise DataError(f"{file.name}, {where}: privacy unit field {unit_field!r} must be a scalar, found "
                        f"{type(raw).__name__}.")
    if raw is None or not str(raw).strip():
        raise DataError(
            f"{file.name}, {where}: privacy unit field {unit_field!r} is empty (null, or whitespace only). Every "
            "document needs its person's key: a document without one cannot be bounded per person. Hint: fill "
            "it in (a document of its own person gets a key of its own) or remove the row."
        )
    if isinstance(raw, float) and raw.is_integer():
        return str(int(raw))
    key = str(raw).strip()
    return key.split(".")[0] if _WHOLE_NUMBER.fullmatch(key) else key


_WHOLE_NUMBER = re.compile(r"-?[0-9]+\.0+")


def _identifiers(row: Mapping[str, Any], name: str, where: str, file: Path, later: bool = False) -> list[str]:
    """The non-empty values of identifier field ``name``: a scalar (stringified) or a list of them; a null
    value is a row without identifiers (the key itself must be there: a missing key is an error)."""
    none = (f'A row without a value writes "{name}": null (accepted: it has no identifiers to redact), or fill '
            "the value in.")
    raw = _field(row, name, where, file, hint=f"If other rows have this field: {none} Otherwise name the right field "
                 "(--identifier-field; identifier_fields= in the API).", later=later, later_hint=f"Hint: {none}")
    values = raw if isinstance(raw, list) else [raw]
    for v in values:
        if isinstance(v, (dict, list)):
            raise DataError(f"{file.name}, {where}: identifier field {name!r} must be a scalar or a list of "
                            f"scalars, found {type(v).__name__}{' in a list' if v is not raw else ''}.")
    return [str(v) for v in values if v is not None and str(v).strip()]


def _hash64(value: str) -> int:
    return int.from_bytes(hashlib.blake2b(value.encode("utf-8", "surrogatepass"), digest_size=8).digest(), "little")


def _earlier_row_with_id(file: Path, text_field: str, id_field: str, doc_id: str, before: int) -> str | None:
    """Where the first row before row ``before`` with id ``doc_id`` is (None: a 64-bit hash collision)."""
    for row_index, where, row in iter_rows(file, text_field, id_field):
        if row_index >= before:
            return None
        if id_field in row and str(row[id_field]) == doc_id:
            return where
    return None


_FIELD_HINT = ("Hint: name the right field (--text-field / --id-field / --identifier-field; text_field= / "
               "id_field= / identifier_fields= in the API).")


_LATER_HINT = "Hint: add the key to this row, or remove the row."


def _field(row: Mapping[str, Any], name: str, where: str, file: Path, *, what: str = "field",
           hint: str = _FIELD_HINT, later: bool = False, later_hint: str = _LATER_HINT) -> Any:
    """``row[name]``; a missing field raises a DataError naming the row, the field and the fields there are.
    ``later``: not the first row, so earlier rows had the key (each row is checked as read) and the field's
    name is right: the message says this row lacks it and gives ``later_hint``, not ``hint``."""
    if name not in row:
        available = ", ".join(map(str, row.keys())) or "(none)"
        if later:
            raise DataError(f"{file.name}, {where}: this row lacks the {what} {name!r} that earlier rows have (its "
                            f"fields: {available}). {later_hint}")
        raise DataError(f"{file.name}, {where}: missing {what} {name!r}; available fields: {available}. {hint}")
    return row[name]


def as_documents(
    documents: Sequence[Document] | Sequence[str] | str | os.PathLike,
    *,
    text_field: str = "text",
    id_field: str | None = None,
    identifier_fields: Sequence[str] = (),
    max_chars: int | None = None,
    unit_field: str | None = None,
) -> list[Document]:
    """The private collection as a list of :class:`Document` (a file path is loaded with the fields of
    :func:`load_documents`; plain strings get their row index as id and no identifiers). ``max_chars``:
    each longer text is cut (:func:`cut_text`; Documents given in memory too, so a build reads the same
    text from a file or a list). ``unit_field``: a file's privacy unit field; Documents given in memory
    must then each carry a non-empty :attr:`Document.unit` (plain strings have none, so are refused).

    Raises:
        DataError: an empty collection, a non-string/non-Document entry, an empty text, a missing or empty
            unit (with ``unit_field``), or a bad file.
    """
    if isinstance(documents, (str, os.PathLike)):
        out = load_documents(documents, text_field=text_field, id_field=id_field, identifier_fields=identifier_fields,
                             max_chars=max_chars, unit_field=unit_field)
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
        text = out[-1].text
        if not text or text.isspace():
            raise DataError(f"documents[{i}] has an empty text.")
        unit = out[-1].unit
        if unit_field is not None and (not isinstance(unit, str) or not unit.strip()):
            raise DataError(
                f"documents[{i}] has no privacy unit (Document.unit is {'empty' if isinstance(unit, str) else 'None'}) "
                f"but the build is per person ({unit_field}). Every document needs its person's key: give each "
                "Document its unit=..., or build without privacy_unit_field."
            )
        cut, digest, key = cut_text(text, max_chars)
        if digest is not None:
            out[-1] = dataclasses.replace(out[-1], text=cut, text_sha256=out[-1].text_sha256 or digest,
                                          text_key=out[-1].text_key or key)
    if not out:
        raise DataError("the document collection is empty.")
    warn_duplicate_texts(out)
    return out


def warn_duplicate_texts(documents: Iterable[Document]) -> int:
    """Warn (``UserWarning``, to stderr: never into a corpus folder's log) when documents repeat the text of
    an earlier one: the privacy unit is one document, so a person whose record appears twice is protected
    only as two units. With privacy units (:attr:`Document.unit`), a copy within the same unit is no
    repeat (that person is one unit whatever their number of documents); a copy under another unit is.
    Returns the number of repeats.

    Memory: a 128-bit BLAKE2b digest per distinct text, not the texts (two different texts share a digest
    with probability about n²·2⁻¹²⁹ for n documents)."""
    seen: dict[bytes, str | None] = {}  # digest -> the unit of its first document
    repeats = 0
    for d in documents:
        # a text cut at read time: by its whole text's digest (texts that differ only after the cut differ)
        digest = (b"cut:" + d.text_sha256 if getattr(d, "text_sha256", None) is not None
                  else hashlib.blake2b(d.text.encode("utf-8", "surrogatepass"), digest_size=16).digest())
        unit = getattr(d, "unit", None)
        if digest in seen:
            repeats += unit is None or seen[digest] != unit
        else:
            seen[digest] = unit
    if repeats:
        warnings.warn(
            f"{repeats} document(s) repeat the exact text of an earlier one. The guarantee is per document (per "
            "person with --privacy-unit-field): if copies belong to the same person, remove them, or give every "
            "document its person's key and build per person (--privacy-unit-field).",
            UserWarning,
            stacklevel=3,
        )
    return repeats
