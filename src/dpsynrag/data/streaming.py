"""A private collection read in a stream: a file re-read at each pass instead of held in
memory (:class:`DocumentFile`; a build reads it once, into a :class:`~dpsynrag.data.spool.DocumentSpool`).
Rows are read and checked by :mod:`dpsynrag.data.io`.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from dpsynrag.data.io import Document, as_documents, iter_documents, warn_duplicate_texts
from dpsynrag.errors import DataError

__all__ = ["DocumentFile", "open_documents"]


class DocumentFile:
    """A document collection in a file, read again, one row at a time, each time it is iterated.

    Checked once when opened (every row, as :func:`iter_documents`; a warning when texts repeat, see
    :func:`warn_duplicate_texts`), so errors in the data surface before any model is loaded. Memory: one
    row at a time (see :func:`iter_documents`), never the whole collection.

    Args:
        path, text_field, id_field, identifier_fields, max_chars, unit_field: as in :func:`load_documents`.

    Iteration yields :class:`Document` in file order. ``len()`` is the number of documents; :attr:`cut`
    how many texts were cut at read time (``max_chars``; an owner-only count, never which).

    Raises:
        DataError: as :func:`load_documents`; on iteration also when the file changed (size, modification
            time or inode) since it was opened: the build would otherwise mix two collections.
    """

    def __init__(self, path: str | os.PathLike[str], *, text_field: str = "text", id_field: str | None = None,
                 identifier_fields: Sequence[str] = (), max_chars: int | None = None, unit_field: str | None = None):
        self.path = Path(path)
        self.text_field = text_field
        self.id_field = id_field
        self.identifier_fields = tuple(identifier_fields)
        self.max_chars = max_chars
        self.unit_field = unit_field
        self._identity = _file_identity(self.path)
        self._count = 0
        self.cut = 0
        warn_duplicate_texts(self._counted())

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[Document]:
        return self._iter_checked()

    def __repr__(self) -> str:
        return f"DocumentFile({str(self.path)!r}, documents={self._count})"

    def _counted(self) -> Iterator[Document]:
        for document in self._iter_checked():
            self._count += 1
            self.cut += document.text_sha256 is not None
            yield document

    def _iter_checked(self) -> Iterator[Document]:
        documents = iter_documents(self.path, text_field=self.text_field, id_field=self.id_field,
                                   identifier_fields=self.identifier_fields, max_chars=self.max_chars,
                                   unit_field=self.unit_field)
        self._check_unchanged()
        yield from documents
        self._check_unchanged()

    def _check_unchanged(self) -> None:
        if _file_identity(self.path) != self._identity:
            raise DataError(
                f"the document file {str(self.path)!r} changed while it was being read (size, modification time "
                "or inode). Hint: start again once nothing writes to it (or build from a copy)."
            )


def _file_identity(file: Path) -> tuple[int, int, int, int] | None:
    try:
        st = file.stat()
    except FileNotFoundError:
        return None
    return (st.st_size, st.st_mtime_ns, st.st_ino, st.st_dev)


def open_documents(documents: Sequence[Document] | Sequence[str] | str | os.PathLike,
                   **options: Any) -> DocumentFile | list[Document]:
    """The private collection for a build that reads it in a stream: a file path gives a
    :class:`DocumentFile` (re-read at each pass, never held in memory); Documents or strings give
    :func:`~dpsynrag.data.io.as_documents`' list. ``options``: the keywords of both (``text_field``,
    ``id_field``, ``identifier_fields``, ``max_chars``, ``unit_field``; see
    :func:`~dpsynrag.data.io.iter_documents`, and ``unit_field`` with Documents: ``as_documents``).

    Raises:
        DataError: as :func:`as_documents`.
    """
    if isinstance(documents, (str, os.PathLike)):
        return DocumentFile(documents, **options)
    return as_documents(documents, **options)
