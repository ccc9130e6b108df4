"""The task interface: what a dataset must provide to be built into a private corpus and evaluated.

A :class:`Task` bundles everything that is specific to one kind of private data:

* the private database (``load_database`` → :class:`~dpsynrag.data.io.Document` list),
* the evaluation queries and their gold answers (``load_queries`` → :class:`Query` list),
* the scoring rule (``is_correct``),
* the public prompts: the self-filter prompt (METHOD.md §2e) and the answering system prompt,
* the downstream retrieval depth (``rag_top_k``),
* leakage material: the private names to look for in answers and the attack prompts,
* optionally a per-query "support" (how many database documents hold the answer) and its buckets.

Everything on a task except the files it reads is **public**: prompts, descriptions and parameters are
part of the public side of the privacy model (METHOD.md §0).

Tasks are looked up by name in a registry (:func:`get_task`, :func:`register_task`,
:func:`available_tasks`); ``get_task("package.module:ClassName")`` also imports a user's task class, so a
new dataset needs no change to dpsynrag itself.
"""

from __future__ import annotations

import importlib
import os
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, ClassVar

from dpsynrag.data.io import DataFileNotFoundError, Document
from dpsynrag.data.jsonl import read_jsonl
from dpsynrag.errors import ConfigError, DataError

SHARED_DIR_NAME = "shared"


@dataclass(frozen=True)
class Query:
    """One evaluation query.

    Attributes:
        id: identifier, unique within its query set.
        question: the text given to the answering model (and to the retriever).
        answers: the gold answers the scorer looks for (a task may accept any of them); empty for
            attack prompts, which are not scored.
        meta: task-specific read-only extras, e.g. medical ``disease``, ``patient_name``,
            ``question_symptoms``; movielens ``user_id``, ``pseudonym``, ``favourites``.
    """

    id: str
    question: str
    answers: tuple[str, ...] = ()
    meta: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "answers", tuple(self.answers))
        object.__setattr__(self, "meta", MappingProxyType(dict(self.meta)))


class Task(ABC):
    """A pluggable dataset + scoring definition. Subclass it to run dpsynrag on your own data.

    Class attributes to set (all public, never derived from private data):
        name: registry key, e.g. ``"medical"`` (used by ``--task``).
        description: one-paragraph public description of the data and the question asked.
        filter_prompt: self-filter prompt template containing ``"{document}"`` (the synthetic text is
            substituted with ``str.replace``, so other braces are safe), or ``None`` for no self-filter.
            The filter keeps a text when the model answers YES.
        answer_system_prompt: system prompt for answering a query from retrieved documents.
        rag_top_k: documents retrieved per query downstream.
        data_env_var: environment variable that overrides the default data folder (or ``None``).
        shared_subdir: path of the default data folder inside the project's ``shared/`` folder (found by
            :func:`find_shared_dir`), or ``None``.
        support_buckets: half-open ``[low, high)`` intervals for accuracy by support; empty when the task
            has no notion of support.
        identifier_fields: the database fields holding direct identifiers (a patient's name, ...): public
            schema knowledge. :meth:`load_database` reads their values into
            :attr:`~dpsynrag.data.io.Document.identifiers`, which a build redacts when its config's
            ``redact_identifiers`` is on (:mod:`dpsynrag.data.redaction`).
        response_template: the public format of a record of this task with private slots (``{}``, ``{N}``:
            :mod:`dpsynrag.models.template_selector`), or ``None``. An evaluation preset whose DP-SynRAG
            fields say ``task_response_template=True`` builds with it (slot-template decoding: the skeleton
            is written for free, only the slots are drawn and charged).

    Methods to implement: :meth:`load_database` and :meth:`load_queries`. The others have defaults:
    substring scoring, no private names, no attacks, no support.
    """

    name: ClassVar[str]
    description: ClassVar[str]
    filter_prompt: ClassVar[str | None] = None
    answer_system_prompt: ClassVar[str] = (
        "Answer the question using the documents provided. Answer briefly."
    )
    rag_top_k: ClassVar[int] = 10
    data_env_var: ClassVar[str | None] = None
    shared_subdir: ClassVar[str | None] = None
    support_buckets: ClassVar[tuple[tuple[float, float], ...]] = ()
    identifier_fields: ClassVar[tuple[str, ...]] = ()
    response_template: ClassVar[str | None] = None

    def __init__(self, data_dir: str | os.PathLike[str] | None = None) -> None:
        """Args:
        data_dir: data folder used when a method is called without one; ``None`` uses
            :attr:`default_data_dir`.
        """
        self._data_dir = Path(data_dir) if data_dir is not None else None

    # ------------------------------------------------------------------ data location

    @property
    def default_data_dir(self) -> Path | None:
        """The data folder used when none is given: the constructor's ``data_dir``, else the folder named
        by :attr:`data_env_var`, else ``shared/<shared_subdir>`` found by :func:`find_shared_dir`;
        ``None`` when none exists. Raises :class:`DataError` when the env var names a missing folder.
        """
        return resolve_data_dir(self._data_dir, env_var=self.data_env_var, shared_subdir=self.shared_subdir)

    def data_dir(self, data_dir: str | os.PathLike[str] | None = None) -> Path:
        """Resolve the data folder: ``data_dir`` if given, else :attr:`default_data_dir`.

        Raises:
            DataFileNotFoundError: ``data_dir`` (or the env var's folder) does not exist.
            DataError: no folder was given and none was found; the message says how to provide one.
        """
        found = resolve_data_dir(
            data_dir if data_dir is not None else self._data_dir,
            env_var=self.data_env_var,
            shared_subdir=self.shared_subdir,
        )
        if found is None:
            raise DataError(self._missing_data_message())
        return found

    def _missing_data_message(self) -> str:
        parts = [f"task {self.name!r}: no data folder given and none found."]
        if self.shared_subdir:
            parts.append(f"Looked for {SHARED_DIR_NAME}/{self.shared_subdir} above the current directory "
                         "and above the installed package.")
        parts.append("Pass data_dir=...")
        if self.data_env_var:
            parts.append(f"or set the environment variable {self.data_env_var}.")
        return " ".join(parts)

    # ------------------------------------------------------------------ required

    @abstractmethod
    def load_database(self, data_dir: str | os.PathLike[str] | None = None, *,
                      limit: int | None = None) -> list[Document]:
        """The private documents (the DP input D), in a fixed order.

        Args:
            data_dir: data folder; ``None`` for the default.
            limit: keep a documented, deterministic subset of ``limit`` documents, ``None`` for all.
        """

    @abstractmethod
    def load_queries(self, path: str | os.PathLike[str] | None = None, *, limit: int | None = None,
                     split: str = "validation") -> list[Query]:
        """Evaluation queries with gold answers.

        Args:
            path: a query file to read instead of the task's own split (format set by the task).
            limit: keep the first ``limit`` queries, ``None`` for all.
            split: which of the task's splits to use when ``path`` is None (``"validation"``, ``"test"``).
        """

    # ------------------------------------------------------------------ defaults

    def is_correct(self, answer: str, query: Query, *, case_sensitive: bool = False) -> bool:
        """True when ``answer`` contains any of ``query.answers`` (substring; lower-cased unless
        ``case_sensitive``). Tasks override this for fuzzier matching (e.g. movie titles)."""
        if not case_sensitive:
            answer = answer.lower()
        for gold in query.answers:
            if gold and (gold if case_sensitive else gold.lower()) in answer:
                return True
        return False

    def private_names(self, data_dir: str | os.PathLike[str] | None = None, *,
                      limit: int | None = None) -> list[str]:
        """Full names of the people in the database (``limit`` as in :meth:`load_database`), sorted,
        for leakage tests: an answer containing one of them leaks. Default: none."""
        return []

    def attack_queries(self, data_dir: str | os.PathLike[str] | None = None) -> list[Query]:
        """Extraction prompts for the leakage test (not scored). Default: none."""
        return []

    def support(self, query: Query, database: Sequence[Document]) -> int | None:
        """How many documents of ``database`` hold the query's answer; ``None`` when undefined (default)."""
        return None

    def support_bucket(self, support: int | None) -> str | None:
        """Label of the :attr:`support_buckets` interval holding ``support`` (e.g. ``"[10,30)"``), or None."""
        if support is None:
            return None
        return support_bucket_label(support, self.support_buckets)

    # ------------------------------------------------------------------ prompts

    def answer_user_prompt(self, question: str, documents: Sequence[str | Document] = ()) -> str:
        """The user turn for answering: the retrieved documents numbered ``[1]``, ``[2]``, … then the
        question (EVALUATION.md). With no documents (Non-RAG) only the question."""
        from dpsynrag.rag.answer import answer_user_prompt

        return answer_user_prompt(question, [d.text if isinstance(d, Document) else str(d) for d in documents])

    def answer_messages(self, question: str, documents: Sequence[str | Document] = ()) -> list[dict[str, str]]:
        """Chat messages (system + user) for answering ``question`` from ``documents``."""
        return [
            {"role": "system", "content": self.answer_system_prompt},
            {"role": "user", "content": self.answer_user_prompt(question, documents)},
        ]

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"


# ---------------------------------------------------------------------- helpers


def support_bucket_label(support: int, buckets: Sequence[tuple[float, float]]) -> str | None:
    """Label ``"[low,high)"`` (``inf`` written ``inf``) of the first bucket with low <= support < high."""
    for low, high in buckets:
        if low <= support < high:
            return f"[{_fmt(low)},{_fmt(high)})"
    return None


def _fmt(x: float) -> str:
    return "inf" if x == float("inf") else str(int(x))


def find_shared_dir(start: str | os.PathLike[str] | None = None) -> Path | None:
    """The project's ``shared/`` folder: the first ``<dir>/shared`` (a folder) found walking up from
    ``start`` (or, when ``start`` is None, from the current directory and then from this package's
    location) to the filesystem root. ``None`` when there is none (a user's machine)."""
    starts = [Path(start)] if start is not None else [Path.cwd(), Path(__file__).resolve().parent]
    for origin in starts:
        origin = origin.resolve()
        for folder in (origin, *origin.parents):
            candidate = folder / SHARED_DIR_NAME
            if candidate.is_dir():
                return candidate
    return None


def resolve_data_dir(
    explicit: str | os.PathLike[str] | None,
    *,
    env_var: str | None = None,
    shared_subdir: str | None = None,
    search_from: str | os.PathLike[str] | None = None,
) -> Path | None:
    """Find a data folder by the rule shared by all tasks.

    Order: ``explicit`` if given; else the folder in environment variable ``env_var`` if set and
    non-empty; else ``find_shared_dir(search_from) / shared_subdir`` if that folder exists; else None.

    Raises:
        DataFileNotFoundError: ``explicit`` or the env var's value is not an existing folder.
    """
    if explicit is not None:
        folder = Path(explicit)
        if not folder.is_dir():
            raise DataFileNotFoundError(
                f"`data_dir`: folder not found: {str(folder)!r} (resolved: {str(folder.resolve())!r})."
            )
        return folder
    if env_var:
        value = os.environ.get(env_var, "").strip()
        if value:
            folder = Path(value).expanduser()
            if not folder.is_dir():
                raise DataFileNotFoundError(
                    f"environment variable {env_var}={value!r} does not name an existing folder. "
                    f"Hint: fix or unset {env_var}."
                )
            return folder
    if shared_subdir:
        shared = find_shared_dir(search_from)
        if shared is not None and (shared / shared_subdir).is_dir():
            return shared / shared_subdir
    return None


def read_query_file(
    path: str | os.PathLike[str],
    *,
    answer_field: str = "answer",
    limit: int | None = None,
    meta_fields: Sequence[str] = (),
) -> list[Query]:
    """Read queries from a JSON-lines file: ``question`` (non-empty string) and ``answer_field`` (a string
    or a list of strings) per line; ``id`` optional (default: the 0-based row index); the fields in
    ``meta_fields`` (when present) go to :attr:`Query.meta`.

    Raises:
        DataFileNotFoundError: missing file.
        DataError: malformed line, missing or ill-typed field (line/row named), duplicate id, no queries.
    """
    rows = read_jsonl(path, limit=limit)
    name = Path(path).name
    queries: list[Query] = []
    seen: set[str] = set()
    for index, row in enumerate(rows):
        where = f"{name}, query row {index}"
        for required in ("question", answer_field):
            if required not in row:
                raise DataError(
                    f"{where}: missing field {required!r}; available fields: {', '.join(row) or '(none)'}."
                )
        question = row["question"]
        if not isinstance(question, str) or not question.strip():
            raise DataError(f"{where}: field 'question' must be a non-empty string, found {question!r}.")
        raw = row[answer_field]
        answers = (raw,) if isinstance(raw, str) else raw
        if not isinstance(answers, (list, tuple)) or not all(isinstance(a, str) and a.strip() for a in answers) \
                or not answers:
            raise DataError(
                f"{where}: field {answer_field!r} must be a non-empty string or a non-empty list of "
                f"non-empty strings, found {raw!r}."
            )
        query_id = str(row.get("id", index))
        if query_id in seen:
            raise DataError(f"{name}: duplicate query id {query_id!r} at row {index}.")
        seen.add(query_id)
        meta = {key: row[key] for key in meta_fields if key in row}
        queries.append(Query(id=query_id, question=question, answers=tuple(answers), meta=meta))
    if not queries:
        raise DataError(f"{name}: no queries found in {str(path)!r}.")
    return queries


# ---------------------------------------------------------------------- registry

_REGISTRY: dict[str, Task] = {}


def register_task(task: Task | type[Task], *, replace: bool = False) -> Task:
    """Add a task to the registry under ``task.name`` (a class is instantiated with no arguments).

    Args:
        task: a :class:`Task` instance or subclass.
        replace: allow replacing a task already registered under that name.

    Returns:
        The registered instance.

    Raises:
        ConfigError: not a Task, no ``name``, or the name is taken and ``replace`` is False.
    """
    if isinstance(task, type) and issubclass(task, Task):
        task = task()
    if not isinstance(task, Task):
        raise ConfigError(f"`task` must be a Task instance or subclass, found {type(task).__name__}.")
    name = getattr(task, "name", None)
    if not isinstance(name, str) or not name or ":" in name:
        raise ConfigError(f"`task.name` must be a non-empty string without ':', found {name!r}.")
    if name in _REGISTRY and not replace and _REGISTRY[name] is not task:
        raise ConfigError(
            f"a task named {name!r} is already registered ({_REGISTRY[name]!r}). "
            "Hint: pass replace=True or choose another name."
        )
    _REGISTRY[name] = task
    return task


def get_task(name: str) -> Task:
    """The registered task called ``name``, or ``"module.path:Attribute"`` imported on the fly (a Task
    instance or subclass; registered as a side effect unless its name is already taken).

    Raises:
        ConfigError: unknown name (the message lists the registered ones), or the import fails.
    """
    if name in _REGISTRY:
        return _REGISTRY[name]
    if ":" in name:
        module_name, _, attribute = name.partition(":")
        try:
            obj = getattr(importlib.import_module(module_name), attribute)
        except (ImportError, AttributeError) as exc:
            raise ConfigError(f"`task`: cannot import {name!r}: {exc}.") from exc
        if isinstance(obj, type) and issubclass(obj, Task):
            obj = obj()
        if not isinstance(obj, Task):
            raise ConfigError(f"`task`: {name!r} is a {type(obj).__name__}, not a Task.")
        if getattr(obj, "name", None) not in _REGISTRY:
            register_task(obj)
        return obj
    raise ConfigError(
        f"`task`: unknown task {name!r}; available: {', '.join(available_tasks()) or '(none)'}. "
        "Hint: register_task(MyTask()) or pass 'package.module:MyTask'."
    )


def available_tasks() -> tuple[str, ...]:
    """Names of the registered tasks, sorted."""
    return tuple(sorted(_REGISTRY))
