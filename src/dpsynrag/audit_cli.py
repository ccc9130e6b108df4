"""The ``dpsynrag audit`` command: the empirical privacy audit of :mod:`dpsynrag.audit` from the command
line (one build with canaries, the ε lower bound printed next to the claimed ε).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Optional

import typer

from dpsynrag.audit import AUDIT_FILE, run_audit
from dpsynrag.errors import ConfigError

__all__ = ["audit_command"]


def audit_command(
    input: Path = typer.Argument(..., help="Private collection: JSONL, CSV or Parquet file (or a task's data folder with --task)."),
    out: Path = typer.Option(..., "--out", help="New folder for the audited corpus (corpus/) and audit.json."),
    epsilon: float = typer.Option(..., "--epsilon", help="Claimed epsilon of the audited build (its target)."),
    delta: float = typer.Option(..., "--delta", help="Claimed total delta, in (0, 1)."),
    task: Optional[str] = typer.Option(None, "--task", help="Public task; medical has a built-in canary record."),
    canaries: int = typer.Option(64, "--canaries", help="Number m of canary documents (each included with probability 1/2)."),
    guesses_in: Optional[int] = typer.Option(None, "--guesses-in", help="Canaries guessed IN: the highest scores (default m/4)."),
    guesses_out: Optional[int] = typer.Option(None, "--guesses-out", help="Canaries guessed OUT: the lowest scores (default m/4)."),
    canary_template: Optional[str] = typer.Option(None, "--canary-template", help="A record in your documents' format with {secret} (required unless --task medical)."),
    confidence: float = typer.Option(0.95, "--confidence", help="Confidence of the epsilon lower bound."),
    documents: Optional[int] = typer.Option(None, "--documents", help="Audit the first N documents only (a CPU-sized slice)."),
    model: Optional[str] = typer.Option(None, "--model", help="Language model (default: offline SmolLM2-135M-Instruct)."),
    embedder: Optional[str] = typer.Option(None, "--embedder", help="Embedding model (default: offline all-MiniLM-L6-v2)."),
    K: int = typer.Option(10, "--K", help="Keywords per document."),
    R: int = typer.Option(500, "--R", help="Keywords released = clusters."),
    L: int = typer.Option(5, "--L", help="Most clusters a document joins."),
    k: int = typer.Option(80, "--k", help="Target documents per cluster after outlier removal."),
    T: int = typer.Option(70, "--T", help="Tokens per synthetic text."),
    tau: float = typer.Option(1.0, "--tau", help="Sampling temperature."),
    split: str = typer.Option("paper", help="Budget split: paper | fractions."),
    open_vocabulary: bool = typer.Option(False, "--open-vocabulary", help="Thresholded open-vocabulary histogram (secrets can become keywords)."),
    extractor: str = typer.Option("llm", help="Keyword extractor: llm | rarity."),
    no_self_filter: bool = typer.Option(False, "--no-self-filter", help="Keep every synthetic text."),
    no_outlier_removal: bool = typer.Option(False, "--no-outlier-removal", help="Skip the embedding threshold."),
    max_document_tokens: int = typer.Option(256, help="Truncate each document to this many tokens."),
    text_field: str = typer.Option("text", help="Field holding the document text."),
    id_field: Optional[str] = typer.Option(None, help="Field holding a unique document id."),
    seed: Optional[int] = typer.Option(None, "--seed", help="Seed of the audit design and of the build (reproducible, NOT for release)."),
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace --out if it holds an earlier audit."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
) -> None:
    """Empirical privacy audit: canaries in one build, an epsilon lower bound next to the claimed epsilon."""
    from pydantic import ValidationError
    from rich.console import Console
    from rich.table import Table

    from dpsynrag.checks import error_message
    from dpsynrag.data.io import load_documents
    from dpsynrag.errors import DpsynragError
    from dpsynrag.pipeline.config import BuildConfig

    console = Console(width=None if sys.stdout.isatty() else 140)
    err = Console(stderr=True, soft_wrap=True)
    try:
        config = BuildConfig(
            epsilon=epsilon, delta=delta, task=task, self_filter=not no_self_filter, model=model, embedder=embedder,
            K=K, R=R, L=L, k=k, T=T, temperature=tau, split=split, open_vocabulary=open_vocabulary,
            extractor=extractor, outlier_removal=not no_outlier_removal, max_document_tokens=max_document_tokens,
            seed=seed,
        )
        config.calibrate()
        if input.is_dir():
            if not task:
                raise ConfigError("INPUT is a folder: pass --task to say how to read it, or give a file.")
            from dpsynrag.tasks import get_task

            docs = get_task(task).load_database(input, limit=documents)
        else:
            docs = load_documents(input, text_field=text_field, id_field=id_field, limit=documents)
        if seed is not None:
            err.print("[yellow]warning:[/] --seed makes the output reproducible: it is NOT for release.")
        result = run_audit(
            docs, out, config, canaries=canaries, k_in=guesses_in, k_out=guesses_out, template=canary_template,
            seed=seed, confidence=confidence, overwrite=overwrite, progress=True,
        )
    except (ValidationError, DpsynragError, FileExistsError) as exc:
        flags = {"limit": "--documents", "confidence": "--confidence", "template": "--canary-template"}
        err.print(f"[bold red]error:[/] {error_message(exc, flags)}")
        raise typer.Exit(code=2) from None
    if as_json:
        typer.echo(json.dumps(result.to_dict(), indent=2))
        return
    table = Table(title=f"Privacy audit (one run, {100 * result.confidence:g}% confidence)")
    table.add_column("quantity")
    table.add_column("value", justify="right")
    rows = [
        ("claimed epsilon (delta)", f"{result.claimed_epsilon:g} ({result.claimed_delta:g})"),
        ("claimed epsilon, tight conversion (tested)", f"{result.claimed_epsilon_tight:.3f}"),
        ("canaries m (included)", f"{result.canaries} ({result.included})"),
        ("guesses r (IN + OUT)", f"{result.guesses} ({result.k_in} + {result.k_out})"),
        ("correct guesses v", str(result.correct)),
        ("epsilon lower bound (claimed delta)", f"{result.epsilon_lower_bound:.3f}"),
        ("largest reachable bound (claimed delta)", f"{result.max_epsilon_lower_bound:.3f}"),
    ]
    for name, value in rows:
        table.add_row(name, value)
    console.print(table)
    console.print(result.summary())
    console.print(f"audit record: {Path(out) / AUDIT_FILE}; audited corpus: {result.corpus}")
