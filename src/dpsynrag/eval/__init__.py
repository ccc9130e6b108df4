"""Evaluation harness (EVALUATION.md): accuracy, accuracy by support bucket, context recall, leakage,
multi-query curve,
DP-SynRAG ablations; results.json, results.md and PNG plots; resumable. CLI: ``dpsynrag eval``.

Modules: :mod:`~dpsynrag.eval.scoring` (pure scoring functions), :mod:`~dpsynrag.eval.harness` (running
and caching), :mod:`~dpsynrag.eval.report` (tables and plots), :mod:`~dpsynrag.eval.presets`.
"""

from dpsynrag.eval.harness import ABLATIONS, METHODS, EvalConfig, expand_methods, load_eval_data, run_eval
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

__all__ = [
    "ABLATIONS",
    "METHODS",
    "PRESETS",
    "EvalConfig",
    "EvalPreset",
    "NameMatcher",
    "accuracy_summary",
    "bucket_accuracy",
    "context_hits",
    "context_recall",
    "expand_methods",
    "get_preset",
    "leakage_summary",
    "load_eval_data",
    "querier_name",
    "render_markdown",
    "run_eval",
    "score_queries",
    "write_report",
]
