"""Evaluation harness (EVALUATION.md): accuracy, accuracy by support bucket, context recall, leakage (names;
identifier values, PII and copied n-grams), multi-query curve,
DP-SynRAG ablations; results.json, results.md and PNG plots; resumable. CLI: ``dpsynrag eval``.

Modules: :mod:`~dpsynrag.eval.scoring` (pure scoring functions), :mod:`~dpsynrag.eval.config` (the run's
configuration), :mod:`~dpsynrag.eval.data` (its data), :mod:`~dpsynrag.eval.runner` (running the methods),
:mod:`~dpsynrag.eval.cache` (caching), :mod:`~dpsynrag.eval.experiments` (the experiments, :func:`run_eval`),
:mod:`~dpsynrag.eval.report` (tables and plots), :mod:`~dpsynrag.eval.presets`, :mod:`~dpsynrag.eval.leakage`
(leakage beyond names, also the ``dpsynrag leakage`` command's).
"""

from dpsynrag.eval.config import EXPERIMENTS, EvalConfig, expand_methods
from dpsynrag.eval.data import EvalData, load_eval_data
from dpsynrag.eval.experiments import run_eval, zcdp_epsilon_per_query
from dpsynrag.eval.leakage import LeakageChecker, corpus_leakage
from dpsynrag.eval.presets import PRESETS, EvalPreset, get_preset
from dpsynrag.eval.report import render_markdown, write_report
from dpsynrag.eval.scoring import (
    NameMatcher,
    accuracy_summary,
    bucket_accuracy,
    context_hits,
    context_recall,
    leakage_summary,
    querier_name,
    score_queries,
)
from dpsynrag.eval.runner import Harness, MethodSpec

__all__ = [
    "EXPERIMENTS",
    "PRESETS",
    "EvalConfig",
    "EvalData",
    "EvalPreset",
    "Harness",
    "LeakageChecker",
    "MethodSpec",
    "NameMatcher",
    "accuracy_summary",
    "bucket_accuracy",
    "context_hits",
    "context_recall",
    "corpus_leakage",
    "expand_methods",
    "get_preset",
    "leakage_summary",
    "load_eval_data",
    "querier_name",
    "render_markdown",
    "run_eval",
    "score_queries",
    "write_report",
    "zcdp_epsilon_per_query",
]
