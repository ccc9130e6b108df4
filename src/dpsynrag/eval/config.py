"""The evaluation run's configuration: :class:`EvalConfig`, the experiments and the ``--methods`` parser.

The method names and what each method needs live in :mod:`dpsynrag.eval.runner`.
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dpsynrag.checks import check_int
from dpsynrag.errors import ConfigError, DataError
from dpsynrag.eval.presets import EvalPreset, default_preset, get_preset
from dpsynrag.methods import get_method, method_names, methods
from dpsynrag.rag.answer import check_answer_mode
from dpsynrag.tasks import get_task

__all__ = ["EXPERIMENTS", "EvalConfig", "expand_methods"]

BASELINES = ("non-rag", "rag", "dp-rag", "dp-synth", "aug-pe")


def _aliases() -> dict[str, tuple[str, ...]]:
    """``ablations`` (every registered ablation), ``baselines`` (the paper's), ``rivals`` (the query-time
    rivals of DP-RAG, :mod:`dpsynrag.methods.rivals`), ``all`` (every method)."""
    from dpsynrag.methods.rivals import RIVALS

    return {"ablations": tuple(m.name for m in methods() if m.ablation), "baselines": BASELINES,
            "rivals": tuple(r.name for r in RIVALS),
            "all": tuple(method_names())}
EXPERIMENTS = ("main", "multi-query", "audit")


def expand_methods(methods: str | Sequence[str]) -> list[str]:
    """Method names from a comma-separated string or a list, aliases expanded, duplicates dropped,
    in the registry's order (:func:`dpsynrag.methods.method_names`).

    Raises:
        ConfigError: an unknown name (the message lists the valid ones), or no method.
    """
    items = methods.split(",") if isinstance(methods, str) else list(methods)
    aliases, names = _aliases(), method_names()
    chosen: set[str] = set()
    for item in items:
        name = item.strip().lower()
        if not name:
            continue
        if name in aliases:
            chosen.update(aliases[name])
        elif name in names:
            chosen.add(name)
        else:
            raise ConfigError(
                f"`methods`: unknown method {item.strip()!r}; valid: {', '.join(names)} "
                f"(aliases: {', '.join(aliases)})."
            )
    if not chosen:
        raise ConfigError("`methods`: no method given.")
    return [m for m in names if m in chosen]


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
        text_field, id_field, identifier_fields: the fields of a ``task="own"`` document file
            (:class:`~dpsynrag.tasks.owndata.OwnDataTask`): its text, its id (None: the row number) and its
            direct identifiers (redacted by the corpus builds whose config says ``redact_identifiers``,
            looked for by the leakage check). Other tasks read their own format: only the defaults.
        allow: public strings the leakage check never counts (a support number, the company's name:
            :class:`~dpsynrag.eval.leakage.LeakageChecker`).
        corpus: a corpus folder made by ``dpsynrag build`` to score as it is (``--corpus``): the row of its
            manifest's method is that corpus's answers, at its own ε, and it is not built (the other methods
            run as usual); None: every corpus method builds its own (seeded) corpus. Main experiment only.
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
    text_field: str = "text"
    id_field: str | None = None
    identifier_fields: tuple[str, ...] = ()
    allow: tuple[str, ...] = ()
    corpus: Path | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "out", Path(self.out))
        object.__setattr__(self, "identifier_fields", tuple(self.identifier_fields))
        object.__setattr__(self, "allow", tuple(self.allow))
        object.__setattr__(self, "methods", tuple(expand_methods(self.methods)))
        if self.database is not None:
            object.__setattr__(self, "database", Path(self.database))
        if self.queries is not None:
            object.__setattr__(self, "queries", Path(self.queries))
        if self.corpus is not None:
            object.__setattr__(self, "corpus", Path(self.corpus))
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
        text_field: str = "text",
        id_field: str | None = None,
        identifier_fields: Sequence[str] = (),
        allow: Sequence[str] = (),
        corpus: str | os.PathLike | None = None,
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
            text_field=text_field,
            id_field=id_field,
            identifier_fields=tuple(identifier_fields),
            allow=tuple(allow),
            corpus=Path(corpus) if corpus is not None else None,
        )

    def validate(self) -> None:
        """Check the values; raises :class:`ConfigError` naming the bad one."""
        p = self.preset
        if (self.answer_endpoint is None) != (self.answer_model is None):
            raise ConfigError("--answer-endpoint and --answer-model go together: give both or neither.")
        if self.answer_endpoint is not None:
            refused = [m for m in self.methods if get_method(m).private_prompts]
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
        check_answer_mode(p.answer_mode)
        if p.corpus_answer_mode is not None:
            check_answer_mode(p.corpus_answer_mode)
        if self.corpus is not None:
            if not (self.corpus / "manifest.json").is_file():
                raise DataError(f"`corpus` (--corpus): {str(self.corpus)!r} is not a corpus folder (no manifest.json; "
                                "build one with `dpsynrag build`).")
            if self.experiment != "main":
                raise ConfigError(f"`corpus` (--corpus) scores a built corpus in the main experiment; the {self.experiment} "
                                  "experiment builds its own corpora.")
        if p.seed is not None:  # None: secure randomness; checked here, not after the models load
            check_int("seed", p.seed, minimum=0)
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
        if self.task == "own":
            if self.database is None or not self.database.is_file() or self.queries is None:
                raise ConfigError("task 'own' evaluates your own files: give `database` (a JSON-lines, CSV or "
                                  "Parquet document file) and `queries` (JSON lines with 'question' and 'answers').")
        elif self.text_field != "text" or self.id_field is not None or self.identifier_fields:
            raise ConfigError(f"`text_field`, `id_field` and `identifier_fields` describe a document file of task "
                              f"'own'; task {self.task!r} reads its own format.")
        for name, value in (("text_field", self.text_field), ("id_field", self.id_field),
                            *(("identifier_fields", f) for f in self.identifier_fields)):
            if value is not None and (not isinstance(value, str) or not value.strip()):
                raise ConfigError(f"`{name}` must be a non-empty field name. Found {value!r}.")
        if any(not isinstance(a, str) or not a.strip() for a in self.allow):
            raise ConfigError("`allow` must hold non-empty strings.")
        task = get_task(self.task)  # unknown task -> ConfigError
        if task.filter_prompt is None:  # e.g. searchqa: no self-filter prompt, so no corpus may self-filter
            filtering = [m for m in self.methods if get_method(m).self_filters(p)]
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
            "text_field": self.text_field,
            "id_field": self.id_field,
            "identifier_fields": list(self.identifier_fields),
            "allow": list(self.allow),
            "corpus": str(self.corpus.resolve()) if self.corpus else None,
            "preset": self.preset.to_dict(),
        }
