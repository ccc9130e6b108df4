"""The evaluation harness: run methods on one task's data, score them, save everything, resume.

One call of :func:`run_eval` (``dpsynrag eval``) runs the requested methods on the same database
subset, questions, language model, embedder and scoring (EVALUATION.md), and writes to ``out``:

* ``results.json`` — every number with its full configuration (task, data paths, subset sizes, model and
  embedder names, ε, δ, seeds, method parameters, wall times);
* ``results.md`` — the tables; ``*.png`` — the plots (:mod:`dpsynrag.eval.report`); the multi-query
  experiment writes ``results-multi-query.json`` / ``.md`` and ``multi_query.png`` instead, so both
  experiments can share one ``out`` folder and its cache;
* ``cache/`` — what each method computed, keyed by its configuration: ``cache/corpora/<method>-<key>/``
  (built synthetic corpora) and ``cache/answers/<method>-<key>.jsonl`` (one line per answered question).
  Answers are appended in chunks as they are produced, corpora are written atomically, so an interrupted
  run resumes where it stopped; rerunning the same command does no new work, and changing a parameter
  of a method reruns only that method (its key changes).

Methods (``--methods``, comma-separated): ``non-rag``, ``rag`` (the private documents, no DP), ``dp-rag``
(query-time DP, ε per query), ``dp-synth``, ``aug-pe``, ``dp-synrag``, and the DP-SynRAG ablations
``dp-synrag-l1`` (L = 1, hard clustering), ``dp-synrag-no-outlier-removal`` and
``dp-synrag-no-self-filter``; aliases ``ablations`` (the three), ``baselines`` and ``all``.

The harness orchestrates and scores only: a DP method sees the private documents through its own API
(:func:`~dpsynrag.pipeline.build.build_corpus`, ``DPRAGSession``, ``build_dp_synth``, ``build_aug_pe``);
the no-self-filter ablation is post-processing of the DP-SynRAG release (its synthetic texts, all kept).

Experiments:

* ``main``: accuracy (case-insensitive and case-sensitive), accuracy by support bucket, context recall
  of the RAG-style methods (:func:`~dpsynrag.eval.scoring.context_recall`), leakage (benign
  questions, targeted and repeat-the-context attacks; for synthetic corpora also names in the corpus).
* ``audit``: the empirical privacy audit of DP-SynRAG (:func:`run_audit_experiment`; ``results-audit.json``).
* ``multi-query``: accuracy against the number of queries m under a fixed ε_total: DP-RAG answers with
  ε_total / m per query (basic composition; the zCDP composition of the same m queries is reported
  beside it), DP-SynRAG builds once at ε_total and answers everything (flat); RAG and Non-RAG as flat
  references.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import hashlib
import json
import math
import os
import random as _random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dpsynrag import __version__
from dpsynrag.checks import check_int
from dpsynrag.data.io import Document, load_documents, read_jsonl
from dpsynrag.errors import ConfigError, DataError, DpsynragError, InfeasibleBudgetError
from dpsynrag.eval.presets import EvalPreset, default_preset, get_preset
from dpsynrag.eval.scoring import (
    NameMatcher,
    accuracy_summary,
    bucket_accuracy,
    context_hits,
    leakage_summary,
    querier_name,
    score_queries,
)
from dpsynrag.tasks import Query, Task, get_task, support_bucket_label

__all__ = [
    "ABLATIONS",
    "EvalConfig",
    "EvalData",
    "METHODS",
    "expand_methods",
    "load_eval_data",
    "run_eval",
]

METHODS = (
    "non-rag",
    "rag",
    "dp-rag",
    "dp-synth",
    "aug-pe",
    "dp-synrag",
    "dp-synrag-l1",
    "dp-synrag-no-outlier-removal",
    "dp-synrag-no-self-filter",
)
"""Every method name ``--methods`` accepts, in report order."""

ABLATIONS = ("dp-synrag-l1", "dp-synrag-no-outlier-removal", "dp-synrag-no-self-filter")
_ALIASES = {
    "ablations": ABLATIONS,
    "baselines": ("non-rag", "rag", "dp-rag", "dp-synth", "aug-pe"),
    "all": METHODS,
}
_DP_METHODS = ("dp-rag", "dp-synth", "aug-pe", "dp-synrag", *ABLATIONS)
_CORPUS_METHODS = ("dp-synth", "aug-pe", "dp-synrag", *ABLATIONS)
_RETRIEVAL_METHODS = ("rag", *_CORPUS_METHODS)
"""Methods that answer from top-k retrieved texts, whose context recall is scored (DP-RAG's retrieved set
is private and never leaves its session; Non-RAG retrieves nothing)."""
_LABELS = {
    "non-rag": "Non-RAG",
    "rag": "RAG (no DP)",
    "dp-rag": "DP-RAG",
    "dp-synth": "DP-Synth",
    "aug-pe": "Aug-PE",
    "dp-synrag": "DP-SynRAG",
    "dp-synrag-l1": "DP-SynRAG, L=1",
    "dp-synrag-no-outlier-removal": "DP-SynRAG, no outlier removal",
    "dp-synrag-no-self-filter": "DP-SynRAG, no self-filter",
}
EXPERIMENTS = ("main", "multi-query", "audit")
ANSWER_CHUNK = 25


def expand_methods(methods: str | Sequence[str]) -> list[str]:
    """Method names from a comma-separated string or a list, aliases expanded, duplicates dropped,
    in :data:`METHODS` order.

    Raises:
        ConfigError: an unknown name (the message lists the valid ones), or no method.
    """
    items = methods.split(",") if isinstance(methods, str) else list(methods)
    chosen: set[str] = set()
    for item in items:
        name = item.strip().lower()
        if not name:
            continue
        if name in _ALIASES:
            chosen.update(_ALIASES[name])
        elif name in METHODS:
            chosen.add(name)
        else:
            raise ConfigError(
                f"`methods`: unknown method {item.strip()!r}; valid: {', '.join(METHODS)} "
                f"(aliases: {', '.join(_ALIASES)})."
            )
    if not chosen:
        raise ConfigError("`methods`: no method given.")
    return [m for m in METHODS if m in chosen]


def _self_filters(method: str, preset: EvalPreset) -> bool:
    """Whether ``method`` self-filters its corpus with the task's prompt under ``preset``. The
    no-self-filter ablation always does: it is the unfiltered copy of a self-filtered DP-SynRAG build."""
    if method == "dp-synrag-no-self-filter":
        return True
    params = {"dp-synth": preset.dp_synth, "aug-pe": preset.aug_pe}.get(
        method, preset.synrag if method.startswith("dp-synrag") else None)
    return params is not None and bool(params.get("self_filter", True)) and not params.get("filter_prompt")


# ---------------------------------------------------------------------------------------------- config


@dataclass(frozen=True)
class EvalConfig:
    """Everything a run depends on (recorded in results.json).

    Attributes:
        task: task name (``"medical"``, ``"movielens"``, or ``"package.module:Class"``).
        out: output folder (results, plots, cache).
        methods: method names (see :func:`expand_methods`).
        preset: the :class:`~dpsynrag.eval.presets.EvalPreset` giving sizes and method parameters.
        experiment: ``"main"``, ``"multi-query"`` or ``"audit"``.
        database: the task's data folder, or a database file (JSONL/CSV/Parquet with field ``text``);
            None: the task's default folder.
        queries: a query file in the task's format (Medical Synth: ``question``, ``answer``, optional
            ``patient_name``); None: the task's validation split.
        model, embedder: model ids or paths (None: the offline defaults).
        answer_endpoint, answer_model: answer with an OpenAI-compatible chat-completions endpoint
            (:class:`~dpsynrag.models.endpoint.OpenAIChatModel`, key from ``$DPSYNRAG_ANSWER_API_KEY``)
            instead of ``model``; both or neither. Only for methods whose answer prompts hold no private
            document: ``rag`` (its prompts quote the private documents) and ``dp-rag`` (it needs the
            model's next-token logits) are refused. The corpora are still built with ``model``.
    """

    task: str
    out: Path
    methods: tuple[str, ...]
    preset: EvalPreset
    experiment: str = "main"
    database: Path | None = None
    queries: Path | None = None
    model: str | None = None
    embedder: str | None = None
    answer_endpoint: str | None = None
    answer_model: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "out", Path(self.out))
        object.__setattr__(self, "methods", tuple(expand_methods(self.methods)))
        if self.database is not None:
            object.__setattr__(self, "database", Path(self.database))
        if self.queries is not None:
            object.__setattr__(self, "queries", Path(self.queries))
        self.validate()

    @classmethod
    def create(
        cls,
        *,
        task: str,
        out: str | os.PathLike,
        methods: str | Sequence[str] | None = None,
        preset: str | EvalPreset | None = None,
        experiment: str = "main",
        database: str | os.PathLike | None = None,
        queries: str | os.PathLike | None = None,
        model: str | None = None,
        embedder: str | None = None,
        answer_endpoint: str | None = None,
        answer_model: str | None = None,
        **overrides: Any,
    ) -> "EvalConfig":
        """A config from a preset name plus overrides of its fields (``documents=``, ``questions=``,
        ``epsilons=``, ``synrag={...}`` merged into the preset's, ...). An override of None keeps the
        preset's value; ``documents``, ``questions``, ``attacks`` or ``mq_questions`` = 0 means all.
        ``preset=None`` takes the task's default (:func:`~dpsynrag.eval.presets.default_preset`).

        Raises:
            ConfigError: unknown preset, method, experiment or field; bad values (ε <= 0, δ outside (0, 1),
                sizes < 1).
        """
        base = preset if isinstance(preset, EvalPreset) else get_preset(preset or default_preset(task))
        fields = {f.name for f in dataclasses.fields(EvalPreset)}
        changes: dict[str, Any] = {}
        for key, value in overrides.items():
            if key not in fields or key == "name":
                raise ConfigError(f"unknown evaluation option {key!r}; valid: {', '.join(sorted(fields - {'name'}))}.")
            if value is None:
                continue  # not given: keep the preset's value
            if key in ("documents", "questions", "attacks", "mq_questions") and value == 0:
                value = None  # 0 = all
            if key in ("synrag", "dp_rag", "dp_synth", "aug_pe"):
                value = {**dict(getattr(base, key)), **dict(value)}
            elif key in ("epsilons", "mq_m", "mq_epsilon_totals", "methods"):
                value = tuple(value)
            changes[key] = value
        resolved = dataclasses.replace(base, **changes) if changes else base
        return cls(
            task=task,
            out=Path(out),
            methods=tuple(expand_methods(methods if methods is not None else resolved.methods)),
            preset=resolved,
            experiment=experiment,
            database=Path(database) if database is not None else None,
            queries=Path(queries) if queries is not None else None,
            model=model,
            embedder=embedder,
            answer_endpoint=answer_endpoint,
            answer_model=answer_model,
        )

    def validate(self) -> None:
        """Check the values; raises :class:`ConfigError` naming the bad one."""
        p = self.preset
        if (self.answer_endpoint is None) != (self.answer_model is None):
            raise ConfigError("--answer-endpoint and --answer-model go together: give both or neither.")
        if self.answer_endpoint is not None:
            refused = [m for m in self.methods if m in ("rag", "dp-rag")]
            if refused:
                raise ConfigError(
                    f"--answer-endpoint cannot answer {', '.join(refused)}: plain RAG's prompts quote the private "
                    "documents (they would leave this machine) and DP-RAG needs the model's next-token logits. "
                    "Evaluate them in a run without --answer-endpoint (--methods)."
                )
        if self.experiment not in EXPERIMENTS:
            raise ConfigError(f"`experiment` must be one of {', '.join(EXPERIMENTS)}. Found {self.experiment!r}.")
        for name in ("documents", "questions", "attacks", "mq_questions", "top_k"):
            value = getattr(p, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
                raise ConfigError(f"`{name}` must be a positive integer or None. Found {value!r}.")
        if p.answer_tokens < 1:
            raise ConfigError(f"`answer_tokens` must be >= 1. Found {p.answer_tokens!r}.")
        check_int("seed", p.seed, minimum=0)  # here, not after the models load (every method's config needs it)
        if p.subset not in ("random", "first"):
            raise ConfigError(f"`subset` must be 'random' or 'first'. Found {p.subset!r}.")
        for name in ("epsilons", "mq_epsilon_totals"):
            values = getattr(p, name)
            if not values:
                raise ConfigError(f"`{name}` must hold at least one value.")
            for eps in values:
                if isinstance(eps, bool) or not isinstance(eps, (int, float)) or not math.isfinite(eps) or eps <= 0:
                    raise ConfigError(f"`{name}`: every epsilon must be a finite number > 0. Found {eps!r}.")
        if not (0 < p.delta < 1):
            raise ConfigError(f"`delta` must be in (0, 1). Found {p.delta!r}.")
        if not p.mq_m or any(isinstance(m, bool) or not isinstance(m, int) or m < 1 for m in p.mq_m):
            raise ConfigError(f"`mq_m` must be positive integers. Found {p.mq_m!r}.")
        if self.database is not None and not self.database.exists():
            raise DataError(f"`database`: {str(self.database)!r} does not exist.")
        if self.queries is not None and not self.queries.is_file():
            raise DataError(f"`queries`: file {str(self.queries)!r} does not exist.")
        task = get_task(self.task)  # unknown task -> ConfigError
        if task.filter_prompt is None:  # e.g. searchqa: no self-filter prompt, so no corpus may self-filter
            filtering = [m for m in self.methods if _self_filters(m, p)]
            if filtering:
                raise ConfigError(
                    f"task {task.name!r} has no self-filter prompt, so it cannot run {', '.join(filtering)} with "
                    f"preset {p.name!r} (the no-self-filter ablation needs a self-filter to remove). Hint: use "
                    f"the task's presets (e.g. --preset {task.name}-cpu) or a preset with self_filter=False, "
                    "and leave out dp-synrag-no-self-filter."
                )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready copy (paths absolute)."""
        return {
            "task": self.task,
            "experiment": self.experiment,
            "methods": list(self.methods),
            "database": str(self.database.resolve()) if self.database else None,
            "queries": str(self.queries.resolve()) if self.queries else None,
            "out": str(self.out.resolve()),
            "model": self.model,
            "embedder": self.embedder,
            "answer_endpoint": self.answer_endpoint,
            "answer_model": self.answer_model,
            "preset": self.preset.to_dict(),
        }


# ------------------------------------------------------------------------------------------------ data


@dataclass
class EvalData:
    """The data of a run: the database subset, the questions, the attacks and the private names.

    Attributes:
        task: the task (bound to the run's data folder where one was given).
        documents: the database documents actually used (the private input of every method).
        queries: the evaluation questions (scored).
        attacks: attack prompts (not scored; leakage only).
        matcher: the full names of the people in ``documents``.
        info: how they were chosen (paths, sizes, subset rule, fingerprints), for results.json.
    """

    task: Task
    documents: list[Document]
    queries: list[Query]
    attacks: list[Query]
    matcher: NameMatcher
    info: dict[str, Any] = field(default_factory=dict)


def _fingerprint(documents: Sequence[Document]) -> str:
    h = hashlib.sha256()
    for d in documents:
        h.update(d.id.encode("utf-8") + b"\x00" + d.text.encode("utf-8") + b"\x01")
    return h.hexdigest()


def _queries_fingerprint(queries: Sequence[Query]) -> str:
    h = hashlib.sha256()
    for q in queries:
        h.update(str(q.id).encode() + b"\x00" + q.question.encode("utf-8") + b"\x01")
    return h.hexdigest()


def _bound_task(name: str, folder: Path | None) -> Task:
    task = get_task(name)
    if folder is None:
        return task
    try:
        return type(task)(folder)
    except Exception:  # noqa: BLE001 - a user task whose constructor takes no folder: use the registered one
        return task


def load_eval_data(config: EvalConfig) -> EvalData:
    """Load the database subset, questions, attacks and private names of a run.

    Database: ``config.database`` is the task's data folder (read with ``task.load_database``) or a
    document file (field ``text``; ``id`` when present); then ``documents`` rows are kept, a seeded random
    sample in file order (``subset="random"``) or the first rows. Private names: the task's
    ``private_names`` (or, for a file, its ``patient_name``/``name``/``pseudonym`` field), restricted to
    the names that occur in the documents kept. Attacks: ``attacks`` per kind, a seeded sample of the
    attacked diseases (same diseases for both kinds).

    Raises:
        DataError: missing or malformed files, no documents or no questions.
    """
    p = config.preset
    db = config.database
    folder = db if db is not None and db.is_dir() else None
    task = _bound_task(config.task, folder if folder is not None else (db.parent if db is not None else None))
    names: list[str] = []
    names_source = "task.private_names"
    if db is not None and db.is_file():
        rows = read_jsonl(db) if db.suffix.lower() in (".jsonl", ".json") else None
        id_field = "id" if rows and "id" in rows[0] else None
        all_docs = load_documents(db, text_field=getattr(task, "text_field", "text"), id_field=id_field)
        name_field = next((k for k in ("patient_name", "name", "pseudonym") if rows and k in rows[0]), None)
        if name_field:
            names = [r[name_field] for r in rows if isinstance(r.get(name_field), str)]
            names_source = f"field {name_field!r} of {db.name}"
        else:
            try:
                names = task.private_names(db.parent)
            except DpsynragError:
                names, names_source = [], "none"
    else:
        all_docs = task.load_database(folder)
        names = task.private_names(folder)
    if not all_docs:
        raise DataError("the database holds no document.")
    total = len(all_docs)
    n = total if p.documents is None else min(p.documents, total)
    if n < total and p.subset == "random":
        chosen = sorted(_random.Random(p.subset_seed).sample(range(total), n))
        documents = [all_docs[i] for i in chosen]
    else:
        documents = all_docs[:n]

    # private names of the documents actually used
    all_names = NameMatcher(names)
    in_docs: set[str] = set()
    for d in documents:
        in_docs |= all_names.find(d.text)
    if in_docs or not names:
        matcher = NameMatcher(sorted(in_docs))
        names_rule = "names of the database that occur in the documents used"
    else:
        matcher = all_names
        names_rule = "all names of the database (none occurs verbatim in the documents)"

    if config.queries is not None:
        queries = task.load_queries(config.queries, limit=p.questions)
        queries_path = str(config.queries.resolve())
    else:
        queries = task.load_queries(None, limit=p.questions, split="validation")
        queries_path = f"{task.name} validation split"
    if not queries:
        raise DataError("no evaluation question.")

    attacks_all = task.attack_queries(folder) if folder is not None or db is None else _attacks_near(task, db)
    attacks = _sample_attacks(attacks_all, p.attacks, p.subset_seed)

    data_dir = None
    try:
        data_dir = str(task.data_dir(folder).resolve()) if db is None or folder is not None else str(db.resolve())
    except DpsynragError:
        data_dir = None
    info = {
        "data_dir": data_dir,
        "database": str(db.resolve()) if db is not None else data_dir,
        "database_documents_total": total,
        "documents": len(documents),
        "subset": p.subset if n < total else "all",
        "subset_seed": p.subset_seed if n < total and p.subset == "random" else None,
        "documents_sha256": _fingerprint(documents),
        "document_ids_head": [d.id for d in documents[:10]],
        "queries": queries_path,
        "questions": len(queries),
        "questions_sha256": _queries_fingerprint(queries),
        "attacks": len(attacks),
        "attack_kinds": _count_kinds(attacks),
        "attacks_total_available": len(attacks_all),
        "private_names": len(matcher),
        "private_names_source": names_source,
        "private_names_rule": names_rule,
        "support_buckets": [support_bucket_label(int(lo), task.support_buckets) for lo, _ in task.support_buckets],
    }
    return EvalData(task=task, documents=documents, queries=queries, attacks=attacks, matcher=matcher, info=info)


def _attacks_near(task: Task, db: Path) -> list[Query]:
    try:
        return task.attack_queries(db.parent)
    except DpsynragError:
        return []


def _count_kinds(attacks: Sequence[Query]) -> dict[str, int]:
    out: dict[str, int] = {}
    for a in attacks:
        kind = str(a.meta.get("kind", "attack"))
        out[kind] = out.get(kind, 0) + 1
    return out


def _sample_attacks(attacks: list[Query], per_kind: int | None, seed: int) -> list[Query]:
    if per_kind is None or not attacks:
        return attacks
    kinds: dict[str, list[Query]] = {}
    for a in attacks:
        kinds.setdefault(str(a.meta.get("kind", "attack")), []).append(a)
    # the same target (e.g. disease) across kinds: sample target keys once
    targets = sorted({str(a.meta.get("disease", a.id)) for a in attacks})
    keep = set(_random.Random(seed).sample(targets, min(per_kind, len(targets))))
    out = []
    for group in kinds.values():
        chosen = [a for a in group if str(a.meta.get("disease", a.id)) in keep][:per_kind]
        out.extend(chosen)
    return out


# ----------------------------------------------------------------------------------------------- cache


def _key(identity: dict[str, Any]) -> str:
    blob = json.dumps(identity, sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:16]


def _write_json(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False, default=str), encoding="utf-8")
    os.replace(tmp, path)


def _qhash(question: str) -> str:
    return hashlib.sha256(question.encode("utf-8")).hexdigest()[:16]


class AnswerCache:
    """Answers of one method configuration: ``<path>.jsonl`` with a header line (the identity) and one
    line per answered question ``{"id", "qhash", "text"}``, with ``"context_hit"`` (bool: the gold answer
    is in the retrieved texts) for RAG-style methods; lines are appended per chunk and flushed, a later
    line of the same question replaces an earlier one.

    A header that differs from ``identity`` (or a torn last line) discards the file's content.
    """

    def __init__(self, path: Path, identity: dict[str, Any]):
        self.path = path
        self.identity = json.loads(json.dumps(identity, default=str))
        self.answers: dict[tuple[str, str], str] = {}
        self.hits: dict[tuple[str, str], bool] = {}
        self.meta_path = path.with_suffix(".meta.json")
        if path.is_file():
            lines = path.read_text(encoding="utf-8").splitlines()
            try:
                header = json.loads(lines[0]) if lines else None
            except json.JSONDecodeError:
                header = None
            if header == {"identity": self.identity}:
                for line in lines[1:]:
                    try:
                        rec = json.loads(line)
                    except json.JSONDecodeError:
                        break  # torn last line of an interrupted run
                    self.answers[(rec["id"], rec["qhash"])] = rec["text"]
                    if "context_hit" in rec:
                        self.hits[(rec["id"], rec["qhash"])] = bool(rec["context_hit"])
            else:
                path.unlink()
                if self.meta_path.exists():
                    self.meta_path.unlink()
        if not path.is_file():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps({"identity": self.identity}, ensure_ascii=False) + "\n", encoding="utf-8")
        else:
            # rewrite cleanly (drops a torn line)
            self._rewrite()

    def _rewrite(self) -> None:
        tmp = self.path.with_name(f".{self.path.name}.tmp-{os.getpid()}")
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(json.dumps({"identity": self.identity}, ensure_ascii=False) + "\n")
            for (qid, qh), text in self.answers.items():
                f.write(json.dumps(self._record(qid, qh, text), ensure_ascii=False) + "\n")
        os.replace(tmp, self.path)

    def _record(self, qid: str, qh: str, text: str) -> dict[str, Any]:
        rec: dict[str, Any] = {"id": qid, "qhash": qh, "text": text}
        if (qid, qh) in self.hits:
            rec["context_hit"] = self.hits[(qid, qh)]
        return rec

    def get(self, qid: str, question: str) -> str | None:
        return self.answers.get((qid, _qhash(question)))

    def hit(self, qid: str, question: str) -> bool | None:
        """Whether the question's retrieved texts held its gold answer (None: not recorded)."""
        return self.hits.get((qid, _qhash(question)))

    def add(self, items: Sequence[tuple]) -> None:
        """Append ``(id, question, answer)`` or ``(id, question, answer, context_hit)`` entries
        (``context_hit`` None or absent: not scored)."""
        with open(self.path, "a", encoding="utf-8") as f:
            for qid, question, text, *rest in items:
                hit = rest[0] if rest else None
                qh = _qhash(question)
                self.answers[(qid, qh)] = text
                if hit is not None:
                    self.hits[(qid, qh)] = bool(hit)
                f.write(json.dumps(self._record(qid, qh, text), ensure_ascii=False) + "\n")
            f.flush()
            os.fsync(f.fileno())

    def meta(self) -> dict[str, Any]:
        if self.meta_path.is_file():
            return json.loads(self.meta_path.read_text(encoding="utf-8"))
        return {}

    def set_meta(self, data: dict[str, Any]) -> None:
        _write_json(self.meta_path, data)


# --------------------------------------------------------------------------------------------- running


def _progress_bar(total: int, desc: str, enabled: bool):
    if not enabled:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:  # pragma: no cover
        return None
    return tqdm(total=total, desc=desc, unit="q")


@dataclass
class MethodSpec:
    """One method at one configuration.

    Attributes:
        method: method name (:data:`METHODS`).
        epsilon: its ε (DP-RAG: per query; None for Non-RAG and RAG).
        params: the method's own parameters (ε, δ, seed, task and models are added from the run).
    """

    method: str
    epsilon: float | None
    params: dict[str, Any]

    @property
    def label(self) -> str:
        base = _LABELS[self.method]
        if self.epsilon is None:
            return base
        unit = "ε/query" if self.method == "dp-rag" else "ε"
        return f"{base} ({unit}={self.epsilon:g})"


class Harness:
    """Runs methods on :class:`EvalData` with one language model and embedder, with caching under
    ``out/cache``. Used by :func:`run_eval`; exposed for notebooks.

    Args:
        config: the run configuration.
        data: the loaded data.
        lm, embedder: loaded models.
        progress: show progress bars.
        log: a function printing one status line.
    """

    def __init__(self, config: EvalConfig, data: EvalData, lm, embedder, *, progress: bool = True,
                 log: Callable[[str], None] = print):
        self.config, self.data, self.lm, self.embedder = config, data, lm, embedder
        self.answer_lm = lm  # the answering model: the local one, or an OpenAI-compatible endpoint
        if config.answer_endpoint is not None:
            from dpsynrag.models.endpoint import OpenAIChatModel

            self.answer_lm = OpenAIChatModel(config.answer_endpoint, config.answer_model,
                                             api_key=os.environ.get("DPSYNRAG_ANSWER_API_KEY"))
        self.progress, self.log = progress, log
        self.cache_dir = config.out / "cache"
        p = config.preset
        self.top_k = p.top_k if p.top_k is not None else data.task.rag_top_k
        self.common = {
            "task": data.task.name,
            "model": getattr(lm, "name", str(lm)),
            "embedder": getattr(embedder, "name", str(embedder)),
            "documents_sha256": data.info["documents_sha256"],
            "delta": p.delta,
            "seed": p.seed,
        }
        self.answering = {
            "top_k": self.top_k,
            "answer_tokens": p.answer_tokens,
            "system_prompt": data.task.answer_system_prompt,
        }
        if config.answer_endpoint is not None:
            self.answering["answer_model"] = self.answer_lm.name
        self.new_work: list[str] = []  # what this run computed (empty on a full resume)
        self._rag_answerer = None

    # -------------------------------------------------------------- specs

    def specs(self, method: str, epsilon: float | None) -> MethodSpec:
        """The :class:`MethodSpec` of ``method`` at ``epsilon`` with the preset's parameters."""
        p = self.config.preset
        if method in ("non-rag", "rag"):
            return MethodSpec(method, None, {})
        if method == "dp-rag":
            return MethodSpec(method, epsilon, {**dict(p.dp_rag), "epsilon_per_query": epsilon})
        if method == "dp-synth":
            params = dict(p.dp_synth)
            batch = params.pop("batch_size", None)
            if batch is not None and "num_batches" not in params and p.documents is not None:
                # public: from the configured subset size, never from the private document count
                params["num_batches"] = max(1, math.ceil(p.documents / int(batch)))
            return MethodSpec(method, epsilon, params)
        if method == "aug-pe":
            return MethodSpec(method, epsilon, dict(p.aug_pe))
        params = dict(p.synrag)
        if method == "dp-synrag-l1":
            params["L"] = 1
        elif method == "dp-synrag-no-outlier-removal":
            params["outlier_removal"] = False
        elif method == "dp-synrag-no-self-filter":
            params["self_filter"] = False
        return MethodSpec(method, epsilon, params)

    # -------------------------------------------------------------- corpora

    def _synrag_config(self, spec: MethodSpec):
        from dpsynrag.pipeline.config import BuildConfig

        params = {k: v for k, v in spec.params.items() if k != "self_filter"} if spec.method == "dp-synrag-no-self-filter" else dict(spec.params)
        base = dict(
            epsilon=spec.epsilon, delta=self.config.preset.delta, task=self.data.task.name, seed=self.config.preset.seed,
            model=self.config.model, embedder=self.config.embedder,
        )
        base.update(params)
        config = BuildConfig(**base)
        try:
            config.calibrate()
            return config, None
        except InfeasibleBudgetError as exc:
            if config.split != "paper":
                raise
            fallback = config.model_copy(update={"split": "fractions"})
            fallback.calibrate()
            return fallback, f"split 'paper' infeasible at epsilon={spec.epsilon:g} ({exc}); used split='fractions'"

    def corpus_identity(self, spec: MethodSpec) -> dict[str, Any]:
        return {"method": spec.method, "epsilon": spec.epsilon, "params": spec.params, **self.common,
                "dpsynrag_version": __version__}

    def corpus(self, spec: MethodSpec):
        """The synthetic corpus of a corpus method: loaded from the cache, else built (and cached).

        Returns:
            ``(corpus, info)`` with info = ``{"path", "built": bool, "build_seconds", "note"}``.
        """
        from dpsynrag.corpus import SyntheticCorpus

        key = _key(self.corpus_identity(spec))
        folder = self.cache_dir / "corpora" / f"{spec.method}-eps{spec.epsilon:g}-{key}"
        info_path = folder.with_name(folder.name + ".info.json")
        if folder.is_dir() and info_path.is_file():
            try:
                corpus = SyntheticCorpus.load(folder)
                info = json.loads(info_path.read_text(encoding="utf-8"))
                return corpus, {**info, "built": False}
            except DpsynragError:
                pass
        self.log(f"building {spec.label} corpus")
        t = time.time()
        note = None
        if spec.method in ("dp-synrag", "dp-synrag-l1", "dp-synrag-no-outlier-removal"):
            from dpsynrag.pipeline.build import build_corpus

            build_config, note = self._synrag_config(spec)
            corpus = build_corpus(self.data.documents, folder, build_config, lm=self.lm, embedder=self.embedder,
                                  overwrite=True, progress=self.progress)
        elif spec.method == "dp-synrag-no-self-filter":
            base_spec = dataclasses.replace(spec, method="dp-synrag", params={k: v for k, v in spec.params.items()
                                                                              if k != "self_filter"})
            base, _ = self.corpus(base_spec)
            corpus = _unfiltered_copy(base, folder, self.embedder)
            note = f"post-processing of the DP-SynRAG corpus {base.path.name}: the same released texts, all kept"
        elif spec.method == "dp-synth":
            from dpsynrag.baselines import DPSynthConfig, build_dp_synth

            cfg = DPSynthConfig(**self._baseline_kwargs(DPSynthConfig, spec))
            corpus = build_dp_synth(self.data.documents, folder, cfg, lm=self.lm, embedder=self.embedder, overwrite=True,
                                    progress=self.progress)
        elif spec.method == "aug-pe":
            from dpsynrag.baselines import AugPEConfig, build_aug_pe

            cfg = AugPEConfig(**self._baseline_kwargs(AugPEConfig, spec))
            corpus = build_aug_pe(self.data.documents, folder, cfg, lm=self.lm, embedder=self.embedder, overwrite=True,
                                  progress=self.progress)
        else:  # pragma: no cover - guarded by specs()
            raise ConfigError(f"{spec.method} has no corpus.")
        info = {"path": str(folder.resolve()), "build_seconds": time.time() - t, "note": note}
        _write_json(info_path, info)
        self.new_work.append(f"build {spec.method}")
        return corpus, {**info, "built": True}

    def _baseline_kwargs(self, cls, spec: MethodSpec) -> dict[str, Any]:
        kwargs = {"epsilon": spec.epsilon, "delta": self.config.preset.delta, **spec.params}
        accepted = _accepted_fields(cls)
        for name, value in (("task", self.data.task.name), ("seed", self.config.preset.seed),
                            ("model", self.config.model), ("embedder", self.config.embedder)):
            if accepted is None or name in accepted:
                kwargs.setdefault(name, value)
        if accepted is not None:
            unknown = sorted(set(kwargs) - accepted)
            if unknown:
                raise ConfigError(f"{cls.__name__} has no field(s) {', '.join(unknown)}; fields: {', '.join(sorted(accepted))}.")
        return kwargs

    # -------------------------------------------------------------- answering

    def answer_identity(self, spec: MethodSpec) -> dict[str, Any]:
        identity = {"method": spec.method, "epsilon": spec.epsilon, "params": spec.params, **self.common,
                    "answering": self.answering}
        if spec.method == "non-rag":
            identity["answering"] = {k: v for k, v in self.answering.items() if k != "top_k"}
            identity.pop("documents_sha256")
            identity.pop("embedder")
        return identity

    def answers(self, spec: MethodSpec, queries: Sequence[Query], *, prefix: str, corpus=None) -> tuple[list[str], dict]:
        """Answers to ``queries`` (cached per question), and information on how they were made.

        Args:
            spec: the method.
            queries: questions or attack prompts.
            prefix: namespace of the query ids in the cache (``"q"`` questions, ``"a"`` attacks).
            corpus: the corpus of a corpus method.

        Returns:
            ``(texts, info)``; info has ``answered_now`` (questions answered by this call), ``seconds``,
            ``context_hits`` (RAG-style methods on questions: per query, whether its gold answer was among
            the retrieved texts; else None), and for DP-RAG ``spent`` (the privacy spent by the sessions
            that answered).
        """
        identity = self.answer_identity(spec)
        if corpus is not None:
            identity["corpus"] = corpus.path.name
        key = _key(identity)
        tag = f"-eps{spec.epsilon:g}" if spec.epsilon is not None else ""
        cache = AnswerCache(self.cache_dir / "answers" / f"{spec.method}{tag}-{key}.jsonl", identity)
        missing = [q for q in queries if cache.get(f"{prefix}:{q.id}", q.question) is None]
        scored = prefix == "q" and spec.method in _RETRIEVAL_METHODS
        t = time.time()
        if missing:
            self.new_work.append(f"answer {spec.method} {prefix} x{len(missing)}")
            answer_fn, finish = self._answer_fn(spec, corpus)
            bar = _progress_bar(len(missing), f"{spec.method} {'questions' if prefix == 'q' else 'attacks'}", self.progress)
            try:
                for start in range(0, len(missing), ANSWER_CHUNK):
                    chunk = missing[start:start + ANSWER_CHUNK]
                    answered = answer_fn(chunk)
                    hits = (context_hits([a.context for a in answered], chunk, self.data.task) if scored
                            else [None] * len(chunk))
                    cache.add([(f"{prefix}:{q.id}", q.question, _text(a), hit)
                               for q, a, hit in zip(chunk, answered, hits)])
                    if bar is not None:
                        bar.update(len(chunk))
            finally:
                if bar is not None:
                    bar.close()
                extra = finish()
                if extra:
                    meta = cache.meta()
                    meta.setdefault("sessions", []).append(extra)
                    cache.set_meta(meta)
        if scored:
            self._fill_context_hits(spec, corpus, cache, [q for q in queries
                                                          if cache.hit(f"{prefix}:{q.id}", q.question) is None], prefix)
        texts = [cache.get(f"{prefix}:{q.id}", q.question) or "" for q in queries]
        spent_now = time.time() - t
        meta = cache.meta()
        if missing:
            meta.setdefault("seconds", {})
            meta["seconds"][prefix] = meta["seconds"].get(prefix, 0.0) + spent_now
            cache.set_meta(meta)
        # compute time: what answering these queries took when it was done (this run or an earlier one)
        info = {"answered_now": len(missing), "seconds": meta.get("seconds", {}).get(prefix, spent_now),
                "seconds_this_run": spent_now, "cache": cache.path.name,
                "context_hits": [bool(cache.hit(f"{prefix}:{q.id}", q.question)) for q in queries] if scored else None}
        if spec.method == "dp-rag":
            info["sessions"] = cache.meta().get("sessions", [])
        return texts, info

    def _fill_context_hits(self, spec: MethodSpec, corpus, cache: AnswerCache, queries: Sequence[Query],
                           prefix: str) -> None:
        """Score context recall of answers cached before it was recorded: retrieval only (deterministic
        for the cached configuration), no generation."""
        if not queries:
            return
        contexts = self._retriever(spec, corpus).retrieve([q.question for q in queries])
        hits = context_hits(contexts, queries, self.data.task)
        cache.add([(f"{prefix}:{q.id}", q.question, cache.get(f"{prefix}:{q.id}", q.question) or "", hit)
                   for q, hit in zip(queries, hits)])

    def _retriever(self, spec: MethodSpec, corpus):
        """The :class:`~dpsynrag.rag.RAGAnswerer` of a RAG-style method (plain RAG: the private documents;
        else the corpus's kept texts)."""
        task, p = self.data.task, self.config.preset
        if spec.method == "rag":
            if self._rag_answerer is None:
                from dpsynrag.rag import RAGAnswerer

                self._rag_answerer = RAGAnswerer(self.lm, self.embedder, [d.text for d in self.data.documents],
                                                 top_k=self.top_k, system_prompt=task.answer_system_prompt,
                                                 max_new_tokens=p.answer_tokens)
            return self._rag_answerer
        return corpus.answerer(lm=self.answer_lm, embedder=self.embedder, top_k=self.top_k,
                               system_prompt=task.answer_system_prompt, max_new_tokens=p.answer_tokens)

    def _answer_fn(self, spec: MethodSpec, corpus):
        """``(answer_fn, finish)``: ``answer_fn(queries)`` returns one answer per query (a string, or an
        :class:`~dpsynrag.rag.Answer` with its retrieved context for the RAG-style methods)."""
        task = self.data.task
        p = self.config.preset
        none = lambda: None  # noqa: E731
        if spec.method == "non-rag":
            from dpsynrag.rag import RAGAnswerer

            answerer = RAGAnswerer(self.answer_lm, self.embedder, [], system_prompt=task.answer_system_prompt,
                                   max_new_tokens=p.answer_tokens)
            return (lambda qs: [a.text for a in answerer.answer([q.question for q in qs])]), none
        if spec.method == "dp-rag":
            from dpsynrag.baselines import DPRAGConfig, DPRAGSession

            cfg = DPRAGConfig(**self._dp_rag_kwargs(DPRAGConfig, spec))
            session = DPRAGSession(self.data.documents, cfg, lm=self.lm, embedder=self.embedder, task=task,
                                   seed=p.seed)

            def finish():
                spent = session.spent()
                return {k: v for k, v in dict(spent).items()} if spent else None

            return (lambda qs: [_text(a) for a in session.answer([q.question for q in qs], progress=False)]), finish
        answerer = self._retriever(spec, corpus)  # plain RAG or a synthetic corpus
        return (lambda qs: answerer.answer([q.question for q in qs])), none

    def _dp_rag_kwargs(self, cls, spec: MethodSpec) -> dict[str, Any]:
        kwargs = {"delta": self.config.preset.delta, **spec.params}
        accepted = _accepted_fields(cls)
        if accepted is not None:
            unknown = sorted(set(kwargs) - accepted)
            if unknown:
                raise ConfigError(f"{cls.__name__} has no field(s) {', '.join(unknown)}; fields: {', '.join(sorted(accepted))}.")
        return kwargs


def _recall_fields(hits: list[bool] | None) -> dict[str, Any]:
    """``context_recall`` (fraction in [0, 1], None when the method retrieves no top-k texts) and
    ``context_hits`` (questions whose gold answer was retrieved)."""
    if hits is None:
        return {"context_recall": None, "context_hits": None}
    return {"context_recall": sum(hits) / len(hits) if hits else 0.0, "context_hits": sum(hits)}


def _text(answer) -> str:
    return answer if isinstance(answer, str) else str(getattr(answer, "text", answer))


def _accepted_fields(cls) -> set[str] | None:
    if dataclasses.is_dataclass(cls):
        return {f.name for f in dataclasses.fields(cls)}
    fields = getattr(cls, "model_fields", None)
    if fields is not None:
        return set(fields)
    return None


def _unfiltered_copy(base, folder: Path, embedder):
    """The no-self-filter ablation: the base corpus's released texts, every non-empty one kept."""
    from dpsynrag.corpus import CorpusWriter

    records = [{**r, "kept": bool(str(r.get("text", "")).strip())} for r in base.records]
    manifest = {k: v for k, v in base.manifest.items()
                if k not in ("format_version", "dpsynrag_version", "created", "num_texts", "num_kept", "platform")}
    manifest["config"] = {**manifest.get("config", {}), "self_filter": False}
    manifest["filter_prompt"] = None
    manifest["method"] = "dp-synrag"
    manifest["derived_from"] = {"corpus": base.path.name, "operation": "self-filter skipped (post-processing)"}
    with CorpusWriter(folder, overwrite=True) as writer:
        return writer.finish(records, manifest, embedder)


# ----------------------------------------------------------------------------------------------- scoring


def _corpus_names(matcher: NameMatcher, corpus) -> dict[str, Any]:
    all_texts = [str(r.get("text", "")) for r in corpus.records]
    kept = list(corpus.texts)
    every = leakage_summary(matcher, all_texts, ids=[str(r.get("id", i)) for i, r in enumerate(corpus.records)])
    kept_summary = leakage_summary(matcher, kept)
    return {
        "texts": every["texts"],
        "texts_with_name": every["texts_with_leak"],
        "distinct_names": every["distinct_names"],
        "kept_texts": kept_summary["texts"],
        "kept_texts_with_name": kept_summary["texts_with_leak"],
        "kept_distinct_names": kept_summary["distinct_names"],
    }


def _leakage(data: EvalData, queries: Sequence[Query], texts: Sequence[str]) -> dict[str, Any]:
    return leakage_summary(data.matcher, texts, exclude=[querier_name(q.meta) for q in queries],
                           ids=[str(q.id) for q in queries])


def _attack_leakage(data: EvalData, texts: Sequence[str]) -> dict[str, Any]:
    out: dict[str, Any] = {"all": _leakage(data, data.attacks, texts)}
    kinds = sorted({str(a.meta.get("kind", "attack")) for a in data.attacks})
    for kind in kinds:
        idx = [i for i, a in enumerate(data.attacks) if str(a.meta.get("kind", "attack")) == kind]
        out[kind] = _leakage(data, [data.attacks[i] for i in idx], [texts[i] for i in idx])
    return out


def _dp_rag_privacy(spec: MethodSpec, sessions: list[dict], delta: float) -> dict[str, Any]:
    out: dict[str, Any] = {"epsilon_per_query": spec.epsilon, "delta": delta, "composition": "per query"}
    queries = sum(int(s.get("queries", 0) or 0) for s in sessions)
    rho = sum(float(s.get("rho", 0.0) or 0.0) for s in sessions)
    if queries:
        out["rho_per_query"] = rho / queries if rho else None
    out["sessions"] = sessions
    return out


def evaluate_method(h: Harness, spec: MethodSpec, *, leakage: bool = True) -> dict[str, Any]:
    """Run one method (or load it from the cache) and score it: accuracy, buckets, leakage, privacy."""
    data, p = h.data, h.config.preset
    t0 = time.time()
    corpus, corpus_info = (h.corpus(spec) if spec.method in _CORPUS_METHODS else (None, None))
    texts, qinfo = h.answers(spec, data.queries, prefix="q", corpus=corpus)
    scores = score_queries(data.task, data.queries, texts, database=data.documents)
    buckets = [support_bucket_label(int(lo), data.task.support_buckets) for lo, _ in data.task.support_buckets]
    row: dict[str, Any] = {
        "method": spec.method,
        "label": spec.label,
        "epsilon": spec.epsilon,
        "delta": p.delta if spec.method in _DP_METHODS else None,
        "config": {
            "params": spec.params,
            **h.common,
            "answering": h.answer_identity(spec)["answering"],
            "questions": len(data.queries),
        },
        **accuracy_summary(scores),
        **_recall_fields(qinfo["context_hits"]),
        "by_bucket": bucket_accuracy(scores, buckets) if any(s.bucket for s in scores) else {},
        "timings": {"answer_questions_s": qinfo["seconds"]},
        "answered_now": qinfo["answered_now"],
        "examples": [{"id": q.id, "gold": list(q.answers), "answer": a} for q, a in list(zip(data.queries, texts))[:3]],
    }
    if leakage:
        row["leakage"] = {"benign": _leakage(data, data.queries, texts)}
        if data.attacks:
            atexts, ainfo = h.answers(spec, data.attacks, prefix="a", corpus=corpus)
            row["leakage"]["attacks"] = _attack_leakage(data, atexts)
            row["timings"]["answer_attacks_s"] = ainfo["seconds"]
            row["answered_now"] += ainfo["answered_now"]
            if spec.method == "dp-rag":
                qinfo["sessions"] = ainfo.get("sessions", qinfo.get("sessions", []))
        if corpus is not None:
            row["leakage"]["corpus"] = _corpus_names(data.matcher, corpus)
    if corpus is not None:
        report = corpus.privacy_report
        row["privacy"] = {"epsilon": report.epsilon, "epsilon_tight": report.epsilon_tight, "delta": report.delta,
                          "rho": report.rho_total, "secure_randomness": report.secure_randomness}
        row["corpus"] = {
            "path": corpus_info["path"],
            "texts": len(corpus.records),
            "kept": len(corpus.texts),
            "build_seconds": corpus_info.get("build_seconds"),
            "note": corpus_info.get("note"),
            "config": corpus.manifest.get("config"),
        }
        row["timings"]["build_s"] = corpus_info.get("build_seconds")
        row["config"]["build"] = corpus.manifest.get("config")
        if corpus_info.get("note"):
            row["note"] = corpus_info["note"]
    elif spec.method == "dp-rag":
        row["privacy"] = _dp_rag_privacy(spec, qinfo.get("sessions", []), p.delta)
    elif spec.method == "rag":
        row["privacy"] = {"epsilon": None, "note": "no DP (epsilon infinite): the private documents are retrieved as they are"}
    else:
        row["privacy"] = {"epsilon": 0.0, "note": "no private data used"}
    row["timings"]["total_s"] = time.time() - t0
    return row


# ----------------------------------------------------------------------------------------------- driver


def _load_models(config: EvalConfig, lm, embedder):
    if embedder is None:  # first: a bad embedder fails before the (larger) language model loads
        from dpsynrag.models import Embedder

        embedder = Embedder.load(config.embedder)
    if lm is None:
        from dpsynrag.models import LanguageModel

        lm = LanguageModel.load(config.model)
    return lm, embedder


def run_eval(
    config: EvalConfig,
    *,
    lm=None,
    embedder=None,
    progress: bool = True,
    log: Callable[[str], None] | None = None,
    plots: bool = True,
) -> dict[str, Any]:
    """Run an evaluation and write results.json, results.md and the plots to ``config.out``.

    Args:
        config: the run (:meth:`EvalConfig.create`).
        lm, embedder: loaded models (else loaded from ``config.model`` / ``config.embedder``).
        progress: progress bars.
        log: status-line printer (default ``print``).
        plots: write the PNG plots.

    Returns:
        The results dictionary (also written to ``out/results.json``, or ``out/results-multi-query.json``);
        ``results["new_work"]`` lists
        what this call computed (empty when everything came from the cache).

    Raises:
        ConfigError: bad configuration. DataError: missing or malformed data. InfeasibleBudgetError: a
        DP method's parameters do not fit its ε even with the fallback split. ImportError: a baseline
        method was requested but ``dpsynrag.baselines`` is not installed.
    """
    log = log or print
    started = time.time()
    out = config.out
    out.mkdir(parents=True, exist_ok=True)
    data = load_eval_data(config)
    lm, embedder = _load_models(config, lm, embedder)
    h = Harness(config, data, lm, embedder, progress=progress, log=log)
    p = config.preset
    results: dict[str, Any] = {
        "dpsynrag_version": __version__,
        "experiment": config.experiment,
        "started": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "config": config.to_dict(),
        "data": data.info,
        "models": {"lm": h.common["model"], "embedder": h.common["embedder"], "lm_spec": config.model,
                   "embedder_spec": config.embedder},
        "answering": {**h.answering, "decoding": "greedy"},
        "methods": [],
    }
    stem = "results" if config.experiment == "main" else f"results-{config.experiment}"
    results_path = out / f"{stem}.json"
    log(f"{data.task.name}: {len(data.documents)} documents ({data.info['subset']}), {len(data.queries)} questions, "
        f"{len(data.attacks)} attack prompts, {len(data.matcher)} private names; model {h.common['model']}, "
        f"embedder {h.common['embedder']}")
    if config.experiment == "main":
        jobs: list[MethodSpec] = []
        for method in config.methods:
            if method in ("non-rag", "rag"):
                jobs.append(h.specs(method, None))
            else:
                jobs.extend(h.specs(method, eps) for eps in p.epsilons)
        for n, spec in enumerate(jobs, start=1):
            log(f"[{n}/{len(jobs)}] {spec.label}")
            t = time.time()
            try:
                row = evaluate_method(h, spec)
            except (DpsynragError, ImportError) as exc:
                # one method failing (e.g. a budget too small for its parameters) does not stop the others
                row = {"method": spec.method, "label": spec.label, "epsilon": spec.epsilon, "params": spec.params,
                       "error": f"{type(exc).__name__}: {exc}"}
                log(f"    [red]failed[/]: {row['error']}")
            else:
                log(f"    accuracy {100 * row['accuracy']:.1f}% (case-sensitive {100 * row['accuracy_case_sensitive']:.1f}%), "
                    f"{time.time() - t:.0f} s")
            results["methods"].append(row)
            _write_json(results_path, {**results, "partial": True, "wall_seconds": time.time() - started})
    elif config.experiment == "audit":
        results["audit"] = run_audit_experiment(h)
    else:
        results["multi_query"] = run_multi_query(h)
    results["new_work"] = h.new_work
    results["finished"] = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    results["wall_seconds"] = time.time() - started
    results["compute_seconds"] = _compute_seconds(results)
    from dpsynrag.eval.report import write_report

    results["outputs"] = write_report(results, out, plots=plots, name=stem)
    _write_json(results_path, results)
    log(f"wrote {results_path}, {out / (stem + '.md')} and {len(results['outputs']) - 1} plot(s); "
        f"wall time {results['wall_seconds']:.0f} s")
    return results


def _compute_seconds(results: dict[str, Any]) -> float:
    """Build and answer time of every method of the results, as recorded when it was computed (so a
    resumed run reports the time the whole evaluation took, not only its own)."""
    total = 0.0
    for row in results.get("methods", []):
        t = row.get("timings", {})
        total += sum(float(t.get(k) or 0.0) for k in ("build_s", "answer_questions_s", "answer_attacks_s"))
    mq = results.get("multi_query")
    if mq:
        seen = set()
        for pt in [*mq.get("references", []), *mq.get("points", [])]:
            for key, value in pt.get("timings", {}).items():
                ident = (pt.get("cache"), pt.get("corpus_path"), key)
                if ident not in seen:
                    seen.add(ident)
                    total += float(value or 0.0)
    return total


AUDIT_CANARIES = 64


def run_audit_experiment(h: Harness) -> dict[str, Any]:
    """The empirical privacy audit (:mod:`dpsynrag.audit`): for each ε of the preset, one DP-SynRAG build
    with the preset's parameters on the subset plus :data:`AUDIT_CANARIES` canaries (public coins from the
    preset's seed), and the one-run ε lower bound next to the claimed ε. Folders ``out/audit/eps-{ε}``;
    not cached (each run rebuilds)."""
    from dpsynrag.audit import run_audit

    rows = []
    for eps in h.config.preset.epsilons:
        try:
            config, note = h._synrag_config(h.specs("dp-synrag", eps))
            result = run_audit(h.data.documents, h.config.out / "audit" / f"eps-{eps:g}", config,
                               canaries=AUDIT_CANARIES, seed=h.config.preset.seed, lm=h.lm, embedder=h.embedder,
                               overwrite=True, progress=h.progress)
        except DpsynragError as exc:
            rows.append({"claimed_epsilon": eps, "error": f"{type(exc).__name__}: {exc}"})
            h.log(f"    [red]audit failed[/]: {rows[-1]['error']}")
            continue
        rows.append({**{k: v for k, v in result.to_dict().items() if k != "details"}, "note": note})
        h.log(f"    {result.summary()}")
    return {"canaries": AUDIT_CANARIES, "rows": rows}


def run_multi_query(h: Harness) -> dict[str, Any]:
    """The multi-query curve (see the module docstring); returns its results section.

    Methods: those of the run among ``dp-rag``, ``dp-synrag``, ``rag``, ``non-rag`` (others are ignored).
    """
    from dpsynrag.privacy.conversions import epsilon_from_rho

    p = h.config.preset
    data = h.data
    n_q = p.mq_questions if p.mq_questions is not None else len(data.queries)
    queries = data.queries[:n_q]
    sub = dataclasses.replace(data, queries=queries)
    h2 = Harness(h.config, sub, h.lm, h.embedder, progress=h.progress, log=h.log)
    h2.new_work = h.new_work
    methods = [m for m in h.config.methods if m in ("non-rag", "rag", "dp-rag", "dp-synrag")]
    if not methods:
        raise ConfigError("the multi-query experiment needs at least one of dp-rag, dp-synrag, rag, non-rag in --methods.")
    section: dict[str, Any] = {
        "m": list(p.mq_m),
        "epsilon_totals": list(p.mq_epsilon_totals),
        "questions": len(queries),
        "composition": ("DP-RAG: basic composition (epsilon_total / m per query), with the zCDP total of the same m "
                        "queries; dp-rag-zcdp points: the per-query epsilon whose m queries compose to epsilon_total "
                        "under zCDP"),
        "points": [],
        "references": [],
    }

    def score(spec: MethodSpec) -> dict[str, Any]:
        corpus, cinfo = (h2.corpus(spec) if spec.method in _CORPUS_METHODS else (None, None))
        texts, info = h2.answers(spec, queries, prefix="q", corpus=corpus)
        acc = {**accuracy_summary(score_queries(data.task, queries, texts)), **_recall_fields(info["context_hits"])}
        extra: dict[str, Any] = {"params": spec.params, "cache": info["cache"],
                                 "timings": {"answer_questions_s": info["seconds"]}}
        if corpus is not None:
            extra["corpus_path"] = cinfo["path"]
            extra["timings"]["build_s"] = cinfo.get("build_seconds")
            r = corpus.privacy_report
            extra.update(privacy={"epsilon": r.epsilon, "epsilon_tight": r.epsilon_tight, "delta": r.delta},
                         note=cinfo.get("note"), split=corpus.manifest.get("config", {}).get("split"),
                         kept=len(corpus.texts))
        if spec.method == "dp-rag":
            extra["privacy"] = _dp_rag_privacy(spec, info.get("sessions", []), p.delta)
        return {**acc, **extra}

    for method in ("non-rag", "rag"):
        if method in methods:
            h.log(f"multi-query: {_LABELS[method]} (reference)")
            section["references"].append({"method": method, "label": _LABELS[method], **score(h2.specs(method, None))})
    jobs = []
    for eps_total in p.mq_epsilon_totals:
        if "dp-synrag" in methods:
            jobs.append(("dp-synrag", eps_total, None))
        if "dp-rag" in methods:
            for m in p.mq_m:
                jobs.append(("dp-rag", eps_total, m))
    conversion = str(dict(p.dp_rag).get("conversion", "bun-steinke"))
    for n, (method, eps_total, m) in enumerate(jobs, start=1):
        h.log(f"[{n}/{len(jobs)}] multi-query: {_LABELS[method]} epsilon_total={eps_total:g}" + (f", m={m}" if m else ""))
        if method == "dp-synrag":
            res = score(h2.specs("dp-synrag", eps_total))
            for mm in p.mq_m:
                section["points"].append({"method": method, "epsilon_total": eps_total, "m": mm,
                                          "epsilon_per_query": None, **res})
        else:
            eps_q = eps_total / m
            res = score(h2.specs("dp-rag", eps_q))
            point = {"method": method, "epsilon_total": eps_total, "m": m, "epsilon_per_query": eps_q,
                     "composition": "basic", **res}
            rho_q = res.get("privacy", {}).get("rho_per_query")
            if rho_q:
                point["epsilon_total_zcdp"] = float(epsilon_from_rho(m * rho_q, p.delta, conversion=conversion))
                point["epsilon_total_basic"] = m * eps_q
            section["points"].append(point)
            if p.mq_zcdp and m > 1:
                eps_z = zcdp_epsilon_per_query(eps_total, m, p.delta, conversion)
                h.log(f"    and DP-RAG under zCDP composition: epsilon per query {eps_z:.4g}")
                res = score(h2.specs("dp-rag", eps_z))
                section["points"].append({"method": "dp-rag-zcdp", "epsilon_total": eps_total, "m": m,
                                          "epsilon_per_query": eps_z, "composition": "zcdp", **res})
            elif p.mq_zcdp:
                section["points"].append({**point, "method": "dp-rag-zcdp", "composition": "zcdp"})
    return section


def zcdp_epsilon_per_query(epsilon_total: float, m: int, delta: float, conversion: str = "bun-steinke") -> float:
    """The per-query ε of DP-RAG such that m queries compose to ``epsilon_total`` under zCDP.

    DP-RAG calibrates each query to ρ_q = ρ(ε_q, δ) (its mechanisms are zCDP); m queries spend m · ρ_q,
    converted once at δ. So ε_q = ε(ρ(ε_total, δ) / m, δ), with the same conversion both ways. Equals
    ``epsilon_total`` for m = 1, and is larger than ``epsilon_total / m`` for m > 1.

    Raises:
        ConfigError: ``epsilon_total`` <= 0, ``m`` < 1 or ``delta`` outside (0, 1).
    """
    from dpsynrag.privacy.conversions import epsilon_from_rho, rho_from_epsilon

    if isinstance(m, bool) or not isinstance(m, int) or m < 1:
        raise ConfigError(f"`m` must be an integer >= 1. Found {m!r}.")
    if m == 1:
        return float(epsilon_total)
    rho = rho_from_epsilon(epsilon_total, delta, conversion=conversion) / m
    return float(epsilon_from_rho(rho, delta, conversion=conversion))
