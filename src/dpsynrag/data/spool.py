"""The private documents read once per build (issue 44): :class:`DocumentSpool` reads a collection in one
pass (a build's: the documents redacted, cut and keyed by :mod:`dpsynrag.data.preparation`, in its process or
on Ray workers) and keeps the result for every later pass of the build, instead of reading, redacting and
cutting the input again.

Memory stays flat in the number of documents: the documents are kept in memory up to ``memory_bytes``
(:data:`SPOOL_MEMORY_BYTES`, estimated from the characters of their fields); past that, all of them go to an
owner-only temporary file (mode 0600, created beside the corpus folder and, on POSIX, unlinked at once, so
it disappears when closed or when the process ends, even killed). Each record of the file carries its
length and CRC-32, checked whenever it is read back: a damaged spool raises instead of feeding another
text to the build.
"""

from __future__ import annotations

import json
import os
import struct
import weakref
import zlib
from collections.abc import Iterable, Iterator

from dpsynrag.data.io import Document
from dpsynrag.errors import DataError

__all__ = ["DocumentSpool", "SPOOL_MEMORY_BYTES", "SpoolTexts"]

SPOOL_MEMORY_BYTES = 16 * 2**20
"""Documents kept in memory up to about this many bytes (from their fields' characters); beyond, a temporary file."""

_HEADER = struct.Struct("<II")  # record length in bytes, CRC-32 of the record
_READ_CHUNK = 1 << 20  # bytes per read of the file


def _record(document: Document) -> bytes:
    return json.dumps([document.id, document.text, list(document.identifiers),
                       None if document.text_sha256 is None else document.text_sha256.hex(), document.unit,
                       None if document.text_key is None else document.text_key.hex()],
                      ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _document(record: bytes) -> Document:
    doc_id, text, identifiers, sha, unit, key = json.loads(record)
    return Document(doc_id, text, tuple(identifiers), None if sha is None else bytes.fromhex(sha), unit,
                    None if key is None else bytes.fromhex(key))


def _size(document: Document) -> int:
    """About the bytes a document holds in memory: its strings' characters plus a fixed overhead (an estimate)."""
    return (len(document.id) + len(document.text) + sum(len(v) for v in document.identifiers)
            + 200)  # the objects around them


class DocumentSpool:
    """A collection read (redacted, cut and keyed by its reader) once, kept for the build's later passes.

    Args:
        documents: any iterable of :class:`Document` (read once, in order; a build's: the documents of
            :meth:`~dpsynrag.data.preparation.ReadingTally.documents`, prepared during this read).
        folder: where the temporary file goes when the documents outgrow ``memory_bytes`` (a build: beside its
            corpus folder, as its checkpoint).
        memory_bytes: about the most bytes of documents kept in memory (>= 0; 0: always a file).

    Iteration gives the kept :class:`Document` objects in order (any number of iterations, also at the same
    time), every field as given; ``len()`` their number; :meth:`rows` some of them; :attr:`texts` a view of
    their texts. Memory: at most ``memory_bytes`` plus one read chunk (1 MiB).

    Raises:
        DataError: on reading back, a record whose length or CRC-32 does not match (a damaged file).
    """

    def __init__(self, documents: Iterable[Document], *, folder: str | os.PathLike,
                 memory_bytes: int = SPOOL_MEMORY_BYTES):
        if isinstance(memory_bytes, bool) or not isinstance(memory_bytes, int) or memory_bytes < 0:
            raise DataError(f"`memory_bytes` must be an integer >= 0. Found {memory_bytes!r}.")
        self.folder, self.memory_bytes = folder, memory_bytes
        self._kept: list[Document] | None = []
        self._fd: int | None = None
        self._end = 0  # bytes written to the file
        self._count = 0
        held = 0
        try:
            for d in documents:
                self._count += 1
                if self._kept is not None:
                    self._kept.append(d)
                    held += _size(d)
                    if held > memory_bytes:
                        self._spill()
                else:
                    self._write(d)
        except BaseException:
            self.close()
            raise

    # ------------------------------------------------------------------ writing

    def _spill(self) -> None:
        """Move every kept document to the temporary file (from now on, every new one goes there too)."""
        import tempfile

        fd, name = tempfile.mkstemp(prefix=".dpsynrag-documents-", suffix=".spool", dir=self.folder)
        if os.name == "posix":
            os.unlink(name)
            name = None
        self._fd = fd
        self._finalizer = weakref.finalize(self, _close_and_delete, fd, name)
        kept, self._kept = self._kept, None
        for d in kept:
            self._write(d)

    def _write(self, document: Document) -> None:
        payload = _record(document)
        data = _HEADER.pack(len(payload), zlib.crc32(payload)) + payload
        written = os.pwrite(self._fd, data, self._end)
        if written != len(data):
            raise OSError(f"the document spool could not be written ({written} of {len(data)} bytes)")
        self._end += len(data)

    # ------------------------------------------------------------------ reading

    @property
    def in_memory(self) -> bool:
        """Whether the documents are held in memory (else in the temporary file)."""
        return self._kept is not None

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[Document]:
        if self._kept is not None:
            return iter(self._kept)
        return (_document(record) for record in self._records())

    def _records(self) -> Iterator[bytes]:
        """The file's records in order, each checked against its length and CRC-32."""
        if self._fd is None:
            raise DataError("the document spool is closed.")
        fd, at, buffer, n = self._fd, 0, b"", 0
        while n < self._count:
            while len(buffer) < _HEADER.size:
                buffer += self._read(fd, at + len(buffer))
            length, crc = _HEADER.unpack_from(buffer)
            while len(buffer) < _HEADER.size + length:
                buffer += self._read(fd, at + len(buffer))
            record = buffer[_HEADER.size:_HEADER.size + length]
            if zlib.crc32(record) != crc:
                raise DataError(f"the document spool is damaged (record {n}: CRC-32 mismatch); start the build again.")
            yield record
            buffer = buffer[_HEADER.size + length:]
            at += _HEADER.size + length
            n += 1

    def _read(self, fd: int, offset: int) -> bytes:
        chunk = os.pread(fd, _READ_CHUNK, offset)
        if not chunk:
            raise DataError("the document spool is damaged (shorter than its records); start the build again.")
        return chunk

    def rows(self, rows: Iterable[int]) -> Iterator[tuple[int, Document]]:
        """``(row, Document)`` for the given 0-based rows, which must be strictly increasing.

        Raises:
            DataError: rows not strictly increasing, or past the end of the collection.
        """
        last = -1
        kept = self._kept
        records = None if kept is not None else enumerate(self._records())
        for want in rows:
            want = int(want)
            if want <= last:
                raise DataError(f"`rows` must be strictly increasing; found {want} after {last}.")
            if want >= self._count:
                raise DataError(f"`rows`: row {want} is past the end of the collection ({self._count} documents).")
            last = want
            if kept is not None:
                yield want, kept[want]
                continue
            for row, record in records:
                if row == want:
                    yield want, _document(record)
                    break

    @property
    def texts(self) -> "SpoolTexts":
        """The texts alone (:class:`SpoolTexts`)."""
        return SpoolTexts(self)

    def close(self) -> None:
        """Drop the documents (and close the temporary file). Idempotent."""
        self._kept = None
        finalizer = getattr(self, "_finalizer", None)
        if finalizer is not None:
            finalizer()
        self._fd = None

    def __enter__(self) -> "DocumentSpool":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"DocumentSpool(documents={self._count}, in_memory={self.in_memory})"


class SpoolTexts:
    """The texts of a :class:`DocumentSpool` as the build's stages read them: iterate for every text in order,
    :meth:`rows` for some, ``len()``."""

    def __init__(self, spool: DocumentSpool):
        self.spool = spool

    def __len__(self) -> int:
        return len(self.spool)

    def __iter__(self) -> Iterator[str]:
        return (d.text for d in self.spool)

    def rows(self, rows: Iterable[int]) -> Iterator[tuple[int, str]]:
        """``(row, text)`` for the given strictly increasing 0-based rows (as :meth:`DocumentSpool.rows`)."""
        return ((row, d.text) for row, d in self.spool.rows(rows))


def _close_and_delete(fd: int, name: str | None) -> None:
    os.close(fd)
    if name is not None:
        try:
            os.unlink(name)
        except FileNotFoundError:
            pass
