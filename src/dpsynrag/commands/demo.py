"""The main job (``dpsynrag demo``, ``make demo``): DP-SynRAG on Medical Synth next to Non-RAG and RAG on
the private documents, run by the evaluation harness with the ``demo`` preset
(:data:`dpsynrag.eval.presets.PRESETS`), then printed: an accuracy table, the corpus's privacy report and
three synthetic texts. Everything the harness writes is in ``--out`` (``results.json``, ``results.md``,
plots, and the corpus under ``cache/corpora/``); running it again reuses what is there.

Presets: ``cpu`` (default; the ``demo`` evaluation preset: 2 CPU cores, the offline SmolLM2-135M model,
2,000 documents, 100 questions, secure randomness) and ``paper`` (the ``paper`` evaluation preset's sizes
and DP-SynRAG parameters, for a GPU and a stronger ``--model``).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.table import Table

from dpsynrag.commands.common import console as stdout_console, fail
from dpsynrag.errors import DpsynragError

DEMO_PRESETS = {"cpu": "demo", "paper": "paper"}
"""``dpsynrag demo --preset`` -> the evaluation preset it runs."""
METHODS = ("non-rag", "rag", "dp-synrag")


def run_demo(
    *,
    preset: str = "cpu",
    data_dir: str | Path | None = None,
    out_dir: str | Path = "runs/demo",
    model: str | None = None,
    embedder: str | None = None,
    documents: int | None = None,
    questions: int | None = None,
    epsilon: float = 10.0,
    seed: int | None = None,
    decoding: str | None = None,
    console: Console | None = None,
) -> dict:
    """Run the demo; returns the evaluation results (also in ``out_dir/results.json``).

    Args:
        preset: ``"cpu"`` or ``"paper"``. data_dir: the Medical Synth folder (None: the default).
        out_dir: the evaluation folder. model, embedder: model names (None: the offline defaults).
        documents, questions: override the preset's sizes. epsilon: DP-SynRAG's ε (δ is the preset's).
        seed: None (secure randomness) or a seed (reproducible, NOT for release).
        decoding: override DP-SynRAG's private decoding (``paper``, ``public-prior``, ``invisibleink``).

    Raises:
        ConfigError: unknown preset, bad ``documents``/``questions`` (< 1) or DP-SynRAG parameter (named by
            its flag; checked before any data or model is read). DataError: the Medical Synth folder is
            missing and cannot be downloaded (the message names the folder to provide).
    """
    from pydantic import ValidationError

    from dpsynrag.checks import check_int, error_message
    from dpsynrag.errors import ConfigError
    from dpsynrag.eval import EvalConfig, get_preset, run_eval
    from dpsynrag.eval.presets import for_task
    from dpsynrag.methods import get_method
    from dpsynrag.tasks.medical import MedicalTask

    if preset not in DEMO_PRESETS:
        raise ConfigError(f"--preset must be one of {sorted(DEMO_PRESETS)}. Found {preset!r}.")
    check_int("--documents", documents, optional=True)
    check_int("--questions", questions, optional=True)
    check_int("--seed", seed, minimum=0, optional=True)
    base = get_preset(DEMO_PRESETS[preset])
    synrag = dict(base.synrag)
    if decoding is not None and decoding != synrag.get("decoding", "paper"):
        synrag["decoding"] = decoding
        synrag.pop("public_weight", None)  # the preset's weight belongs to its own decoding
    try:  # before any data or model is read
        get_method("dp-synrag").make_config(epsilon=epsilon, delta=base.delta, **for_task(synrag, MedicalTask))
    except ValidationError as exc:
        raise ConfigError(error_message(exc)) from None
    resolved = dataclasses.replace(base, seed=seed, epsilons=(epsilon,), synrag=synrag, methods=METHODS)
    config = EvalConfig.create(task="medical", out=out_dir, preset=resolved, database=data_dir, model=model,
                               embedder=embedder, documents=documents, questions=questions)
    console = console or Console()
    results = run_eval(config, progress=True, log=console.print)
    _print(results, console)
    return results


def _print(results: dict, console: Console) -> None:
    """The accuracy table, DP-SynRAG's privacy report and three of its kept texts."""
    from dpsynrag.corpus import SyntheticCorpus

    data = results["data"]
    table = Table(title=f"Medical Synth accuracy ({data['questions']} validation questions, {data['documents']} documents)")
    for col in ("method", "accuracy", "accuracy (case-sensitive)", "gold answer retrieved", "seconds"):
        table.add_column(col, justify="left" if col == "method" else "right")
    for row in results["methods"]:
        if "error" in row:
            table.add_row(row["label"], "error", "", "", "")
            continue
        recall = row.get("context_recall")
        table.add_row(row["label"], f"{100 * row['accuracy']:.1f}%", f"{100 * row['accuracy_case_sensitive']:.1f}%",
                      "–" if recall is None else f"{100 * recall:.0f}%", f"{row['timings']['total_s']:.0f}")
    constant = results.get("references", {}).get("constant")
    if constant is not None:  # a reference line (issue 53): the most frequent gold answer, for every question
        from dpsynrag.eval.report import constant_label

        table.add_row(constant_label(constant), f"{100 * constant['accuracy']:.1f}%",
                      f"{100 * constant['accuracy_case_sensitive']:.1f}%", "–", "–", style="dim")
    console.print(table)
    for row in results["methods"]:
        if row.get("corpus"):
            corpus = SyntheticCorpus.load(row["corpus"]["path"])
            console.print(corpus.privacy_report.table())
            kept = [r for r in corpus.records if r["kept"]]
            console.print(f"[bold]Synthetic texts[/] ({len(kept)} of {len(corpus.records)} kept); three of them:")
            for rec in kept[:3]:
                console.print(f"- [cyan]{rec.get('keyword', '')}[/]: {rec['text']}")
            console.print(f"corpus: {corpus.path}")
            from dpsynrag.corpus.card import write_corpus_card

            card = write_corpus_card(corpus.path, Path(results["config"]["out"]) / "corpus_card.html")
            console.print(f"corpus card (publishable report, HTML): {card}")
    console.print(f"results: {Path(results['config']['out']) / 'results.json'}; wall time {results['wall_seconds']:.0f} s")


def demo_command(
    preset: str = typer.Option("cpu", help="cpu (the `demo` evaluation preset: 2 cores, offline SmolLM2) | paper (GPU, stronger --model)."),
    data_dir: Optional[Path] = typer.Option(None, help="Medical Synth folder (default: ../shared/data/medical_synth, or a verified download)."),
    out: Path = typer.Option(Path("runs/demo"), "--out", help="Evaluation folder: results.json, results.md, plots, cache/ (the corpus; reused by a rerun)."),
    model: Optional[str] = typer.Option(None, "--model", help="Language model: hub id, folder or GGUF file."),
    embedder: Optional[str] = typer.Option(None, "--embedder", help="Embedding model id or folder."),
    documents: Optional[int] = typer.Option(None, help="Override the number of database documents."),
    questions: Optional[int] = typer.Option(None, help="Override the number of validation questions."),
    seed: Optional[int] = typer.Option(None, "--seed", help="Reproducible run (not for release)."),
    decoding: Optional[str] = typer.Option(None, "--decoding", help="Override the preset's decoding: paper | public-prior | invisibleink."),
) -> None:
    """The main job: a DP synthetic corpus of Medical Synth at epsilon=10, compared with Non-RAG and RAG
    (the evaluation harness with the `demo` preset; see `dpsynrag eval` for every method)."""
    try:
        run_demo(
            preset=preset, data_dir=data_dir, out_dir=out, model=model, embedder=embedder, documents=documents,
            questions=questions, seed=seed, decoding=decoding, console=stdout_console,
        )
    except DpsynragError as exc:
        fail(exc)
