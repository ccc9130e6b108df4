"""The ``own`` task: your own document file and a question file, evaluated with no Python
(``dpsynrag eval --task own --database FILE --queries QUESTIONS --text-field ... --identifier-field ...``).

* **Database**: a JSON-lines, CSV or Parquet file (:func:`~dpsynrag.data.io.load_documents`): the text in
  ``text_field``, the id in ``id_field`` (default: the row number), the direct identifiers in
  ``identifier_fields`` (redacted by the builds, looked for by the leakage check).
* **Questions**: a JSON-lines file, one question per line: ``question`` (a string), ``answers`` (the accepted
  answers: a list of strings, or one string; ``answer`` is read when ``answers`` is absent), ``id``
  optional; or a CSV file (UTF-8, header row) with columns ``question``, ``answers`` (the accepted answers
  separated by ``|``) and optionally ``id``. There is no built-in split: the question file is required.
* **Correct**: an accepted answer occurs in the response as whole words after normalisation (lower case,
  punctuation and the articles a/an/the removed: :func:`~dpsynrag.tasks.searchqa.contains_answer`), so
  "15 EUR" is found in "The fee is 15 eur." but "8 EUR" is not found in "18 EUR".

No self-filter prompt (the corpus methods keep every fluent text; the presets turn the self-filter off), no
private names (the identifier fields stand for them), no attack prompts, no support buckets. Every
attribute is public: field names, not values.
"""

from __future__ import annotations

import csv
import os
from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

from dpsynrag.data.io import Document, load_documents
from dpsynrag.data.jsonl import read_jsonl
from dpsynrag.errors import DataError
from dpsynrag.tasks.base import Query, Task, read_query_file
from dpsynrag.tasks.searchqa import contains_answer

__all__ = ["OwnDataTask"]


class OwnDataTask(Task):
    """A user's document file and question file (see the module docstring).

    Args:
        data_dir: unused (a file is given to :meth:`load_database`); kept for :class:`Task`'s signature.
        text_field: the documents' text field (default ``"text"``).
        id_field: the documents' id field (None: the 0-based row number).
        identifier_fields: the documents' direct-identifier fields (their values become
            :attr:`~dpsynrag.data.io.Document.identifiers`).
    """

    name: ClassVar[str] = "own"
    description: ClassVar[str] = (
        "Your own documents (a JSON-lines, CSV or Parquet file) and questions (a JSON-lines file with "
        "'question' and the accepted 'answers')."
    )
    answer_system_prompt: ClassVar[str] = "Answer the question using the documents provided. Answer briefly."

    def __init__(self, data_dir: str | os.PathLike[str] | None = None, *, text_field: str = "text",
                 id_field: str | None = None, identifier_fields: Sequence[str] = ()) -> None:
        super().__init__(data_dir)
        self.text_field, self.id_field = text_field, id_field
        self.identifier_fields = tuple(identifier_fields)  # this instance's columns (the class declares none)

    def load_database(self, data_dir: str | os.PathLike[str] | None = None, *, limit: int | None = None,
                      unit_field: str | None = None) -> list[Document]:
        """The documents of the file ``data_dir`` (a file here, not a folder), in file order.

        Args:
            data_dir: the document file.
            limit: the first ``limit`` rows (None: all).
            unit_field: the field of each document's person key (``--privacy-unit-field``), or None.

        Raises:
            DataError: no file given, or the errors of :func:`~dpsynrag.data.io.load_documents` (a missing
                field names the row and field, never the value).
        """
        if data_dir is None or not Path(data_dir).is_file():
            raise DataError("task 'own' reads a document file: give --database FILE (JSON lines, CSV or Parquet).")
        return load_documents(data_dir, text_field=self.text_field, id_field=self.id_field, limit=limit,
                              identifier_fields=self.identifier_fields, unit_field=unit_field)

    def load_queries(self, path: str | os.PathLike[str] | None = None, *, limit: int | None = None,
                     split: str = "validation") -> list[Query]:
        """The questions of the JSON-lines file ``path`` (``question``; ``answers`` or ``answer``; ``id``), or
        of the CSV file ``path`` (``.csv``: ``question``, ``answers`` separated by ``|``, ``id``).

        Raises:
            DataError: no file given (the task has no split), a missing file or field, an empty question or
                answer list, a duplicate id (:func:`~dpsynrag.tasks.base.read_query_file`; CSV: the row named).
        """
        if path is None:
            raise DataError("task 'own' has no question split: give --queries FILE (JSON lines with 'question' "
                            "and 'answers', the accepted answers).")
        if Path(path).suffix.lower() == ".csv":
            return _csv_queries(Path(path), limit)
        first = read_jsonl(path, limit=1)
        field = "answers" if not first or "answers" in first[0] or "answer" not in first[0] else "answer"
        return read_query_file(path, answer_field=field, limit=limit)

    def is_correct(self, answer: str, query: Query, *, case_sensitive: bool = False) -> bool:
        """True when an accepted answer occurs in ``answer`` as whole words after normalisation
        (:func:`~dpsynrag.tasks.searchqa.contains_answer`; case kept with ``case_sensitive``)."""
        return any(contains_answer(answer, gold, case_sensitive=case_sensitive) for gold in query.answers)


def _csv_queries(path: Path, limit: int | None) -> list[Query]:
    """Questions of a CSV file: ``question``, ``answers`` (``|``-separated), optional ``id`` (default: the row)."""
    try:
        with open(path, encoding="utf-8-sig", newline="") as handle:
            rows = list(csv.DictReader(handle))
    except FileNotFoundError:
        raise DataError(f"`queries`: file not found: {str(path)!r}.") from None
    except UnicodeDecodeError:
        raise DataError(f"{path.name}: not UTF-8 text.") from None
    queries: list[Query] = []
    seen: set[str] = set()
    for index, row in enumerate(rows[:limit] if limit is not None else rows):
        where = f"{path.name}, question row {index} (line {index + 2})"
        missing = [f for f in ("question", "answers") if f not in row]
        if missing:
            raise DataError(f"{where}: missing column {missing[0]!r}; columns: {', '.join(row) or '(none)'}.")
        question = (row["question"] or "").strip()
        answers = tuple(a.strip() for a in (row["answers"] or "").split("|") if a.strip())
        if not question or not answers:
            raise DataError(f"{where}: {'question' if not question else 'answers'} is empty.")
        query_id = (row.get("id") or "").strip() or str(index)
        if query_id in seen:
            raise DataError(f"{path.name}: duplicate question id {query_id!r} at row {index}.")
        seen.add(query_id)
        queries.append(Query(id=query_id, question=question, answers=answers))
    if not queries:
        raise DataError(f"{path.name}: no questions found in {str(path)!r}.")
    return queries
