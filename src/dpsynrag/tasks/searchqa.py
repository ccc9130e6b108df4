"""The SearchQA task (DP-SynRAG §6.1 and App. C.2; data: Dunn et al. 2017, "SearchQA: A New Q&A Dataset
Augmented with Context from a Search Engine", arXiv:1704.05179).

Jeopardy! clues, each with the Google search snippets retrieved for it. The private database holds the
snippets: **one private document per snippet** (the privacy unit is the snippet, not the question).

Construction (deterministic; parameters in :class:`SearchQAConfig`):

1. **Read** every question of the data folder, in either distributed format (:data:`EXPECTED_LAYOUT`):
   the original JSON release (one ``*.json`` file per question with ``question``, ``answer`` and
   ``search_results``, a list of ``{"title", "snippet", "url", ...}``) or the Hugging Face parquet layout
   (``*.parquet`` with columns ``question``, ``answer`` and ``search_results``, a struct of parallel lists
   ``titles``, ``snippets``, ``urls``, ``related_links``; a list of ``{title, snippet}`` structs is read
   too). Files anywhere below the folder, in sorted path order; parquet files take precedence when both
   kinds are present. Questions with an empty clue or answer are skipped, and so is a question whose clue
   and answer repeat an earlier one. Question id: ``"q"`` + the first 16 hex digits of
   SHA-256(clue NUL answer), so both formats of the same data give the same ids, split and database.
2. **Snippet document**: ``"{title}\\n{snippet}"`` (whitespace collapsed; the snippet alone when the title
   is empty; results without snippet text are skipped), id ``"{question id}:{rank}"`` with ``rank`` the
   0-based position in the question's search results.
3. **Support** of a question: how many of its own snippet documents contain the answer
   (:func:`contains_answer`).
4. **Selection and split** (paper App. C.2: training questions with at least 40 supporting snippets in
   six bins 40–50, …, 90–100, 17 test questions per bin and as many for validation): bin ``b`` holds the
   questions with support in ``[min_support + b·bin_width, min_support + (b+1)·bin_width)``, the last bin
   also its upper end. In each bin the questions are ordered by SHA-256(f"{seed}:{id}"); the first
   ``per_bin`` go to validation, the next ``per_bin`` to test (a bin with fewer than 2·per_bin questions
   gives validation the first half, rounded up, and test the rest).
5. **Database**: the snippet documents of all selected questions (validation and test), questions in id
   order (the paper: 204 questions, 7,054 snippets).
6. **Query**: ``"Question: {clue}"`` (paper Table 5); gold answer = the Jeopardy! answer. **Correct** when
   the normalised answer occurs in the normalised response as whole words (:func:`normalise_answer`: lower
   case, punctuation removed, articles a/an/the removed, whitespace collapsed).

No self-filter (the paper uses none: the questions are diverse and have no fixed task); the presets
``searchqa-cpu`` and ``searchqa-paper`` (R = 1000) turn it off. No private names, no attack prompts.

Data folder: ``data_dir`` argument (``dpsynrag eval --database DIR``), else env ``DPSYNRAG_SEARCHQA_DIR``,
else ``shared/data/searchqa`` found above the current directory or the package. Point it at the questions
to draw from (the paper: the training questions).
"""

from __future__ import annotations

import functools
import hashlib
import heapq
import json
import math
import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from dpsynrag.data.io import Document
from dpsynrag.errors import ConfigError, DataError
from dpsynrag.tasks.base import Query, Task, read_query_file, resolve_data_dir

__all__ = [
    "EXPECTED_LAYOUT",
    "QUERY_TEMPLATE",
    "SEARCHQA_ENV_VAR",
    "SearchQAConfig",
    "SearchQAData",
    "SearchQAQuestion",
    "SearchQATask",
    "contains_answer",
    "load_searchqa",
    "normalise_answer",
    "question_id",
]

SEARCHQA_ENV_VAR = "DPSYNRAG_SEARCHQA_DIR"
QUERY_TEMPLATE = "Question: {clue}"
"""Query form of the paper (Table 5); ``{clue}`` is the Jeopardy! clue."""

EXPECTED_LAYOUT = (
    "Expected layout, one of: (a) the original JSON release (github.com/nyu-dl/dl4ir-searchQA), one "
    "<name>.json file per question anywhere below the folder, each an object with 'question', 'answer' and "
    "'search_results' (a list of {'title', 'snippet', 'url', ...}); (b) the Hugging Face parquet files of "
    "the search_qa dataset (e.g. train_test_val/train/*.parquet), columns 'question', 'answer' and "
    "'search_results' (a struct with lists 'titles', 'snippets', 'urls', 'related_links')."
)
"""The data-folder layouts the task reads (quoted in its error messages)."""

_SPLITS = ("validation", "test")
_NON_WORD = re.compile(r"[^\w\s]|_")
_ARTICLES = frozenset(("a", "an", "the"))


# ---------------------------------------------------------------------- scoring


def normalise_answer(text: str, *, case_sensitive: bool = False) -> str:
    """The text lower-cased (unless ``case_sensitive``), punctuation and symbols removed (every character
    that is neither a letter, a digit nor whitespace; "D.C." → "DC"), the articles a/an/the removed
    (in any case) and whitespace collapsed: the answer normalisation of SQuAD's evaluation script,
    extended to Unicode. ``normalise_answer("The Nile!")`` → ``"nile"``."""
    if not case_sensitive:
        return " ".join(w for w in _NON_WORD.sub("", text.lower()).split() if w not in _ARTICLES)
    return " ".join(w for w in _NON_WORD.sub("", text).split() if w.lower() not in _ARTICLES)


def contains_answer(text: str, answer: str, *, case_sensitive: bool = False) -> bool:
    """True when the normalised ``answer`` (non-empty) occurs in the normalised ``text`` as a sequence of
    whole words (:func:`normalise_answer`): "It is the Nile." contains "Nile"; "Nileland" does not."""
    gold = normalise_answer(answer, case_sensitive=case_sensitive)
    return bool(gold) and f" {gold} " in f" {normalise_answer(text, case_sensitive=case_sensitive)} "


# ---------------------------------------------------------------------- data


@dataclass(frozen=True)
class SearchQAConfig:
    """Selection and split parameters (public; defaults = the paper's App. C.2).

    Attributes:
        min_support: lower end of the first support bin (40 supporting snippets).
        bin_width: width of a support bin (10).
        n_bins: number of bins (6: 40–50, …, 90–100).
        per_bin: questions per bin in each of validation and test (17: 102 + 102 questions).
        seed: split seed (a string; questions ordered by SHA-256(f"{seed}:{id}") within a bin).
    """

    min_support: int = 40
    bin_width: int = 10
    n_bins: int = 6
    per_bin: int = 17
    seed: str = "dpsynrag/searchqa/split/v1"

    def __post_init__(self) -> None:
        for name in ("min_support", "bin_width", "n_bins", "per_bin"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"`{name}` must be a positive integer. Found {value!r}.")

    def bin_of(self, support: int) -> int | None:
        """Index of the bin holding ``support``, or None when it is outside every bin."""
        top = self.min_support + self.n_bins * self.bin_width
        if support < self.min_support or support > top:
            return None
        return min((support - self.min_support) // self.bin_width, self.n_bins - 1)


@dataclass(frozen=True)
class SearchQAQuestion:
    """One selected question.

    Attributes:
        id: question id (:func:`question_id`).
        clue: the Jeopardy! clue (the dataset's ``question`` field).
        answer: the gold answer.
        category: the Jeopardy! category, or None when the file has none.
        support: its snippet documents that contain the answer.
        split: ``"validation"`` or ``"test"``.
        documents: its snippet documents, in search-result order.
    """

    id: str
    clue: str
    answer: str
    category: str | None
    support: int
    split: str
    documents: tuple[Document, ...]


@dataclass(frozen=True)
class SearchQAData:
    """The built task: selected questions (sorted by id) and where they came from.

    Attributes:
        config: the parameters used.
        questions: the selected questions, sorted by id.
        source: the data folder.
        format: ``"json"`` or ``"parquet"``.
        questions_read: distinct questions read (before selection).
    """

    config: SearchQAConfig
    questions: tuple[SearchQAQuestion, ...]
    source: str
    format: str
    questions_read: int

    def split(self, name: str) -> tuple[SearchQAQuestion, ...]:
        """The questions of split ``name`` (``"validation"`` or ``"test"``), sorted by id."""
        if name not in _SPLITS:
            raise ConfigError(f"`split` must be one of {', '.join(_SPLITS)}. Found {name!r}.")
        return tuple(q for q in self.questions if q.split == name)

    def documents(self) -> list[Document]:
        """The private database: every snippet document of every selected question."""
        return [d for q in self.questions for d in q.documents]

    def sizes(self) -> dict[str, int]:
        """Numbers of validation and test questions, snippet documents and questions read."""
        return {"validation": len(self.split("validation")), "test": len(self.split("test")),
                "documents": sum(len(q.documents) for q in self.questions), "questions_read": self.questions_read}


def question_id(clue: str, answer: str) -> str:
    """``"q"`` + the first 16 hex digits of SHA-256(clue NUL answer): the same in every format."""
    return "q" + hashlib.sha256(f"{clue}\x00{answer}".encode("utf-8")).hexdigest()[:16]


def _clean(value: Any) -> str:
    return " ".join(value.split()) if isinstance(value, str) else ""


def _snippet_texts(results: Sequence[tuple[Any, Any]]) -> list[tuple[int, str]]:
    """(rank, document text) of the results with snippet text (module docstring, step 2)."""
    texts = []
    for rank, (title, snippet) in enumerate(results):
        title, snippet = _clean(title), _clean(snippet)
        if snippet:
            texts.append((rank, f"{title}\n{snippet}" if title else snippet))
    return texts


def _data_files(folder: Path) -> tuple[str, list[Path]]:
    """The format and data files of ``folder`` (hidden and ``__MACOSX`` entries ignored)."""

    def visible(path: Path) -> bool:
        parts = path.relative_to(folder).parts
        return not any(p.startswith(".") or p == "__MACOSX" for p in parts)

    parquet = sorted(p for p in folder.rglob("*.parquet") if p.is_file() and visible(p))
    if parquet:
        return "parquet", parquet
    return "json", sorted(p for p in folder.rglob("*.json") if p.is_file() and visible(p))


def _json_rows(folder: Path, file: Path) -> Iterator[tuple[str, Any, Any, Any, list[tuple[Any, Any]]]]:
    where = str(file.relative_to(folder))
    try:
        with open(file, encoding="utf-8") as handle:
            row = json.load(handle)
    except UnicodeDecodeError as exc:
        raise DataError(f"searchqa: {where}: invalid UTF-8 at byte {exc.start}.") from None
    except json.JSONDecodeError as exc:
        raise DataError(f"searchqa: {where}: not valid JSON ({exc.msg}, line {exc.lineno}). {EXPECTED_LAYOUT}") from None
    if not isinstance(row, dict) or any(k not in row for k in ("question", "answer", "search_results")):
        found = ", ".join(map(str, row)) if isinstance(row, dict) else type(row).__name__
        raise DataError(f"searchqa: {where}: expected an object with fields 'question', 'answer' and "
                        f"'search_results'; found {found or '(none)'}. {EXPECTED_LAYOUT}")
    results = row["search_results"] or []
    if not isinstance(results, list) or not all(isinstance(r, dict) for r in results):
        raise DataError(f"searchqa: {where}: 'search_results' must be a list of objects.")
    yield where, row["question"], row["answer"], row.get("category"), [(r.get("title"), r.get("snippet")) for r in results]


def _parquet_rows(folder: Path, file: Path) -> Iterator[tuple[str, Any, Any, Any, list[tuple[Any, Any]]]]:
    import pyarrow.parquet as pq

    name = str(file.relative_to(folder))
    try:
        parquet = pq.ParquetFile(file)
    except Exception as exc:  # pyarrow raises ArrowInvalid / OSError for non-Parquet content
        raise DataError(f"searchqa: {name}: not a readable Parquet file: {exc}.") from None
    available = list(parquet.schema_arrow.names)
    missing = [c for c in ("question", "answer", "search_results") if c not in available]
    if missing:
        raise DataError(f"searchqa: {name}: missing column(s) {', '.join(missing)}; available: "
                        f"{', '.join(available)}. {EXPECTED_LAYOUT}")
    columns = ["question", "answer", "search_results"] + (["category"] if "category" in available else [])
    row = 0
    for batch in parquet.iter_batches(columns=columns, batch_size=256):
        values = {c: batch.column(c).to_pylist() for c in columns}
        categories = values.get("category", [None] * batch.num_rows)
        for i in range(batch.num_rows):
            results = values["search_results"][i]
            if isinstance(results, dict):  # Hugging Face: a struct of parallel lists
                titles, snippets = results.get("titles") or [], results.get("snippets") or []
                pairs = [(titles[k] if k < len(titles) else None, s) for k, s in enumerate(snippets)]
            elif isinstance(results, list):  # a list of {title, snippet} structs
                pairs = [(r.get("title"), r.get("snippet")) if isinstance(r, dict) else (None, None) for r in results]
            elif results is None:
                pairs = []
            else:
                raise DataError(f"searchqa: {name}, row {row}: 'search_results' must be a struct of lists "
                                f"or a list of structs. {EXPECTED_LAYOUT}")
            yield f"{name}, row {row}", values["question"][i], values["answer"][i], categories[i], pairs
            row += 1


def load_searchqa(data_dir: str | os.PathLike[str], config: SearchQAConfig = SearchQAConfig()) -> SearchQAData:
    """Read, select and split SearchQA from ``data_dir`` (module docstring, steps 1–5). Cached per
    folder, configuration and file modification times.

    Memory: only the ``2·per_bin`` questions first in hash order of each bin are kept while reading.

    Raises:
        DataFileNotFoundError: the folder does not exist.
        DataError: no data file (the message names the folder and :data:`EXPECTED_LAYOUT`), a malformed
            file (named, with the row), or no question in any support bin.
    """
    resolve_data_dir(data_dir)  # DataFileNotFoundError when the folder does not exist
    folder = Path(data_dir)
    kind, files = _data_files(folder)
    if not files:
        raise DataError(f"searchqa: no SearchQA data file (*.json or *.parquet) in the data folder "
                        f"{str(folder.resolve())!r}. {EXPECTED_LAYOUT}")
    stamps = tuple((str(p), p.stat().st_mtime_ns, p.stat().st_size) for p in files)
    return _load_cached(str(folder), kind, config, stamps)


@functools.lru_cache(maxsize=4)
def _load_cached(folder_name: str, kind: str, config: SearchQAConfig, stamps: tuple) -> SearchQAData:
    folder = Path(folder_name)
    reader = _parquet_rows if kind == "parquet" else _json_rows
    kept: list[list[tuple[int, str, tuple]]] = [[] for _ in range(config.n_bins)]  # heaps of (-order, ...)
    seen: set[str] = set()
    for stamp in stamps:
        for where, clue, answer, category, results in reader(folder, Path(stamp[0])):
            for field, value in (("question", clue), ("answer", answer)):
                if value is not None and not isinstance(value, str):
                    raise DataError(f"searchqa: {where}: field {field!r} must be a string, found "
                                    f"{type(value).__name__}.")
            clue, answer = _clean(clue), _clean(answer)
            if not clue or not answer:
                continue
            qid = question_id(clue, answer)
            if qid in seen:
                continue
            seen.add(qid)
            texts = _snippet_texts(results)
            gold = f" {normalise_answer(answer)} "
            support = sum(gold in f" {normalise_answer(t)} " for _, t in texts) if gold.strip() else 0
            b = config.bin_of(support)
            if b is None:
                continue
            order = int.from_bytes(hashlib.sha256(f"{config.seed}:{qid}".encode()).digest(), "big")
            entry = (-order, qid, (clue, answer, _clean(category) or None, support, texts))
            if len(kept[b]) < 2 * config.per_bin:  # keep the 2·per_bin smallest orders of the bin
                heapq.heappush(kept[b], entry)
            elif order < -kept[b][0][0]:
                heapq.heapreplace(kept[b], entry)
    questions: list[SearchQAQuestion] = []
    for heap in kept:
        ordered = sorted(heap, key=lambda e: -e[0])
        n_val = min(config.per_bin, math.ceil(len(ordered) / 2))
        for rank, (_, qid, (clue, answer, category, support, texts)) in enumerate(ordered):
            documents = tuple(Document(id=f"{qid}:{r}", text=text) for r, text in texts)
            questions.append(SearchQAQuestion(id=qid, clue=clue, answer=answer, category=category, support=support,
                                              split="validation" if rank < n_val else "test", documents=documents))
    if not questions:
        raise DataError(
            f"searchqa: no question of {str(folder.resolve())!r} ({len(seen)} read) has between "
            f"{config.min_support} and {config.min_support + config.n_bins * config.bin_width} snippets that "
            "contain its answer (SearchQAConfig.min_support, bin_width, n_bins)."
        )
    questions.sort(key=lambda q: q.id)
    return SearchQAData(config=config, questions=tuple(questions), source=folder_name, format=kind,
                        questions_read=len(seen))


# ---------------------------------------------------------------------- task


class SearchQATask(Task):
    """SearchQA: answer Jeopardy! clues from web search snippets (one private document per snippet).

    Args:
        data_dir: the data folder (default: env ``DPSYNRAG_SEARCHQA_DIR`` or ``shared/data/searchqa``).
        config: selection and split parameters (default :attr:`default_config`, the paper's).
    """

    name = "searchqa"
    description = (
        "SearchQA: web search snippets (title and text) retrieved for Jeopardy! clues, one document per "
        "snippet. A question is a Jeopardy! clue; the answer is the word or name it describes."
    )
    filter_prompt = None
    answer_system_prompt = (
        "Answer the question using the documents provided. The question is a Jeopardy! clue: answer "
        "briefly with the word or name it describes."
    )
    rag_top_k = 10
    data_env_var = SEARCHQA_ENV_VAR
    shared_subdir = "data/searchqa"
    support_buckets = ((0, 1), (1, 10), (10, 40), (40, 60), (60, 80), (80, 100), (100, float("inf")))
    default_config: ClassVar[SearchQAConfig] = SearchQAConfig()

    def __init__(self, data_dir: str | os.PathLike[str] | None = None, *,
                 config: SearchQAConfig | None = None) -> None:
        super().__init__(data_dir)
        self.config = config if config is not None else self.default_config
        self._support_cache: tuple[Sequence[Document], list[str]] | None = None

    def _missing_data_message(self) -> str:
        return (
            f"searchqa: no SearchQA data folder given, {SEARCHQA_ENV_VAR} is not set and no "
            f"shared/{self.shared_subdir} folder was found above the current directory or the package. "
            "SearchQA is not shipped: download it (docs/tasks.md, section SearchQA) and pass its folder with "
            f"--database DIR (data_dir=... in the API) or set {SEARCHQA_ENV_VAR}. {EXPECTED_LAYOUT}"
        )

    def build(self, data_dir: str | os.PathLike[str] | None = None) -> SearchQAData:
        """The selected questions of the data folder (cached; :func:`load_searchqa`).

        Raises:
            DataError: no folder found (the message says how to provide one and the expected layout),
                no data file, malformed data or no question selected.
        """
        return load_searchqa(self.data_dir(data_dir), self.config)

    def load_database(self, data_dir: str | os.PathLike[str] | None = None, *,
                      limit: int | None = None) -> list[Document]:
        """The snippet documents of the selected questions (questions by id, snippets in result order);
        ``limit`` keeps the first ``limit`` of them, ``None`` all."""
        _check_limit(limit)
        return self.build(data_dir).documents()[:limit]

    def load_queries(self, path: str | os.PathLike[str] | None = None, *, limit: int | None = None,
                     split: str = "validation") -> list[Query]:
        """Queries ``"Question: {clue}"`` with the answer as gold answer.

        Args:
            path: a JSON-lines file with fields ``question`` (used as it is) and ``answer`` (a string or a
                list of accepted answers), optional ``id``, ``category``; None builds the queries of
                ``split`` from the data folder.
            limit: the first ``limit`` queries (by id), ``None`` for all.
            split: ``"validation"`` or ``"test"``.

        Raises:
            ConfigError: unknown ``split`` or bad ``limit``. DataError: see :meth:`build`.
        """
        _check_limit(limit)
        if path is not None:
            return read_query_file(path, answer_field="answer", limit=limit, meta_fields=("category",))
        questions = self.build().split(split)[:limit]
        return [Query(id=q.id, question=QUERY_TEMPLATE.format(clue=q.clue), answers=(q.answer,),
                      meta={"clue": q.clue, "category": q.category, "support": q.support, "split": q.split})
                for q in questions]

    def is_correct(self, answer: str, query: Query, *, case_sensitive: bool = False) -> bool:
        """True when the response ``answer`` contains any gold answer after normalisation
        (:func:`contains_answer`; case is kept when ``case_sensitive``)."""
        return any(contains_answer(answer, gold, case_sensitive=case_sensitive) for gold in query.answers)

    def support(self, query: Query, database: Sequence[Document]) -> int:
        """Number of documents of ``database`` that contain the query's answer (:func:`contains_answer`);
        the normalised texts are cached for the last ``database`` object seen."""
        cache = self._support_cache
        if cache is None or cache[0] is not database:
            cache = (database, [f" {normalise_answer(d.text)} " for d in database])
            self._support_cache = cache
        golds = [normalise_answer(g) for g in query.answers]
        golds = [f" {g} " for g in golds if g]
        return sum(any(g in text for g in golds) for text in cache[1])


def _check_limit(limit: int | None) -> None:
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise ConfigError(f"`limit` must be a positive integer or None. Found {limit!r}.")
