"""A private collection read in a stream: a file re-read at each pass instead of held in
memory (:class:`DocumentFile`), and the texts a model reads computed afresh at each pass
(:class:`DocumentTexts`). Rows are read and checked by :mod:`dpsynrag.data.io`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from dpsynrag.data.io import Document, as_documents, iter_documents, warn_duplicate_texts
from dpsynrag.errors import DataError

__all__ = ["DocumentFile", "DocumentTexts", "open_documents"]


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


class DocumentTexts:
    """The texts of a collection as a model reads them (each passed through ``prepare``, e.g. the language
    model's cut), computed afresh at each pass instead of kept: iterate for every text in order, or
    :meth:`rows` for some. Memory: one text.

    Args:
        documents: a re-iterable collection with ``len()`` (a :class:`DocumentFile` or a list of Documents).
        prepare: a function of one text alone (the same text gives the same result at every pass).
    """

    def __init__(self, documents: Iterable[Document], prepare: Callable[[str], str]):
        self.documents = documents
        self.prepare = prepare
        self._changed: int | None = None

    def __len__(self) -> int:
        return len(self.documents)

    def __iter__(self) -> Iterator[str]:
        changed = 0
        for d in self.documents:
            text = self.prepare(d.text)
            changed += text != d.text or d.text_sha256 is not None  # cut here, or at read time
            yield text
        self._changed = changed

    def rows(self, rows: Iterable[int]) -> Iterator[tuple[int, str]]:
        """``(row, prepared text)`` for the given 0-based rows, which must be increasing; reading stops
        after the last one.

        Raises:
            DataError: rows not strictly increasing, or past the end of the collection.
        """
        wanted = iter(rows)
        want = next(wanted, None)
        if want is None:
            return
        for row, d in enumerate(self.documents):
            if row == want:
                yield row, self.prepare(d.text)
                following = next(wanted, None)
                if following is None:
                    return
                if following <= want:
                    raise DataError(f"`rows` must be strictly increasing; found {int(following)} after {int(want)}.")
                want = following
        raise DataError(f"`rows`: row {int(want)} is past the end of the collection ({len(self.documents)} documents).")

    @property
    def changed(self) -> int:
        """How many texts ``prepare`` changed or were cut at read time (:attr:`Document.text_sha256`; an
        owner-only count: never which), from the last full pass (one is made now when none was)."""
        if self._changed is None:
            for _ in self:
                pass
        return self._changed


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
