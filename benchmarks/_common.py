"""What the Medical Synth benchmarks (``bench_extend.py``, ``bench_units.py``, ``bench_utility.py``) share: their
command-line arguments, the demo's sample of the notes, the scoring of a corpus's answers and of RAG on the
private notes, the record of the machine, and the results written as ``.json`` and a mean ± sd table in ``.md``.

Imported by the scripts as ``_common`` (``python benchmarks/bench_x.py`` puts this folder on ``sys.path``).
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import torch

from dpsynrag.eval.scoring import context_recall

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "examples"))

from per_person import demo_notes  # noqa: E402  (the demo's seeded sample of the notes)

__all__ = ["HERE", "answer_corpus", "arguments", "demo_notes", "machine", "mean_sd", "mean_sd_rows", "measure_rag", "merge_runs",
           "score", "seed_list", "write_results", "KEYWORD_REPHRASE_PROMPT"]

KEYWORD_REPHRASE_PROMPT = ("Rephrase the following document about {keyword} without altering the important "
                           "information contained within it.\nDocument: {document}")
"""The paper's rephrase prompt naming the cluster's released keyword (public): one generic variant judged on every
kind of data (Medical in bench_utility.py, tickets in bench_tickets.py, MovieLens with eval_variant.py)."""


def arguments(doc: str, name: str, *, documents: int = 2000, documents_help: str | None = None,
              questions: int | None = None) -> argparse.ArgumentParser:
    """The parser of a benchmark script (``doc``: its module docstring) with the shared arguments: ``--seeds``
    (comma-separated, default 0,1,2), ``--documents``, ``--questions`` (None: the demo preset's) and ``--out``
    (default ``benchmarks/results/NAME``, written as ``.json`` and ``.md``)."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--documents", type=int, default=documents, help=documents_help)
    parser.add_argument("--questions", type=int, default=questions,
                        help=None if questions is not None else "default: the demo preset's")
    parser.add_argument("--out", default=str(HERE / "results" / name))
    parser.add_argument("--merge", nargs="+", metavar="JSON",
                        help="write one table to --out from the .json outputs of earlier runs (e.g. one seed each)")
    return parser


def merge_runs(paths: Sequence[str], *, same: Sequence[str] = ("documents", "questions", "model", "embedder", "top_k")
               ) -> tuple[dict, list[int]]:
    """The .json outputs of earlier runs of one script as one: the first file's fields, every file's runs (in
    order) and variants (when recorded), the files' names under ``merged_from``; and the sorted seeds of the runs.

    Raises:
        ValueError: the files differ in one of the ``same`` fields (what was measured, with which models).
    """
    parts = [json.loads(Path(p).read_text()) for p in paths]
    for key in same:
        values = {json.dumps(part.get(key)) for part in parts}
        if len(values) > 1:
            raise ValueError(f"cannot merge runs with different {key!r}: {sorted(values)}")
    out = {**parts[0], "runs": [r for part in parts for r in part["runs"]], "merged_from": list(paths)}
    if any("variants" in part for part in parts):
        out["variants"] = {k: v for part in parts for k, v in part.get("variants", {}).items()}
    return out, sorted({r["seed"] for r in out["runs"]})


def seed_list(text: str) -> list[int]:
    """``--seeds``: ``"0,1,2"`` -> ``[0, 1, 2]``."""
    return [int(s) for s in text.split(",")]


def score(task, answers, queries) -> dict:
    """Accuracy (the answer names the gold answer, the task's scoring) and context recall (the gold answer is in
    one of the retrieved texts) of ``answers`` to ``queries``."""
    correct = [task.is_correct(a.text, q) for a, q in zip(answers, queries)]
    return {"accuracy": sum(correct) / len(queries),
            "context_recall": context_recall([a.context for a in answers], queries, task)}


def answer_corpus(corpus, task, queries, *, lm, embedder, top_k: int, answer_tokens: int) -> tuple[list, dict]:
    """``corpus`` answers ``queries`` as the evaluation harness does (every index copy retrieved): the answers,
    and their :func:`score` with the texts kept and written."""
    answerer = corpus.answerer(lm=lm, embedder=embedder, top_k=top_k, system_prompt=task.answer_system_prompt,
                               max_new_tokens=answer_tokens, repeat_copies=True)
    answers = answerer.answer([q.question for q in queries])
    return answers, {**score(task, answers, queries), "texts_kept": sum(bool(r["kept"]) for r in corpus.records),
                     "texts": len(corpus.records)}


def measure_rag(task, documents, queries, *, lm, embedder, top_k: int, answer_tokens: int) -> dict:
    """RAG on the private ``documents`` (no DP), answering ``queries`` with the same answerer settings as the
    corpora: its :func:`score` and wall seconds."""
    from dpsynrag.rag import RAGAnswerer

    t = time.time()
    rag = RAGAnswerer(lm, embedder, [d.text for d in documents], top_k=top_k, system_prompt=task.answer_system_prompt,
                      max_new_tokens=answer_tokens)
    return {**score(task, rag.answer([q.question for q in queries]), queries), "seconds": time.time() - t}


def machine(lm, embedder) -> dict:
    """The models and the machine a run measured on."""
    return {"model": lm.name, "embedder": embedder.name, "torch_threads": torch.get_num_threads(),
            "machine": platform.processor() or platform.machine()}


def mean_sd(values: list[float]) -> str:
    """``mean ± sd`` of the non-NaN ``values`` (one value alone; ``n/a`` for none)."""
    values = [v for v in values if not math.isnan(v)]
    if not values:
        return "n/a"
    if len(values) == 1:
        return f"{values[0]:.3f}"
    return f"{statistics.mean(values):.3f} ± {statistics.stdev(values):.3f}"


def mean_sd_rows(runs: list[dict], names: Sequence[str], metrics: Sequence[str], column: str) -> list[str]:
    """A markdown table: one row per name (the runs whose ``variant`` it is), the ``mean ± sd`` of each metric."""
    lines = [f"| {column} | " + " | ".join(metrics) + " |", "|---|" + "---|" * len(metrics)]
    for name in names:
        chosen = [r for r in runs if r["variant"] == name]
        lines.append(f"| {name} | " + " | ".join(mean_sd([float(r[m]) for r in chosen]) for m in metrics) + " |")
    return lines


def write_results(out: dict, lines: list[str], path: str, script: str, command: Sequence[str]) -> int:
    """``out`` as ``path``.json and ``lines`` with the command that made them as ``path``.md (also printed)."""
    lines = [*lines, "", f"Command: python benchmarks/{script} {' '.join(command)}"]
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path + ".json").write_text(json.dumps(out, indent=2, ensure_ascii=False))
    Path(path + ".md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0
