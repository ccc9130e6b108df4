"""The ``dpsynrag audit`` command: the empirical privacy audit of :mod:`dpsynrag.audit` from the command
line (one build with canaries, the ε lower bound printed next to the claimed ε; with ``--epsilons`` one
audit per claimed ε and a table, JSON and plot of them all).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Optional

import typer

from dpsynrag.audit import AUDIT_FILE, SEED_REQUIRED, TABLE_JSON, TABLE_MD, TABLE_PLOT, run_audit, run_audit_sweep
from dpsynrag.errors import ConfigError

__all__ = ["audit_command"]


def audit_command(
    input: Path = typer.Argument(..., help="Private collection: JSONL, CSV or Parquet file (or a task's data folder with --task)."),
    out: Path = typer.Option(..., "--out", help="New folder for the audited corpus (corpus/) and audit.json."),
    epsilon: Optional[float] = typer.Option(None, "--epsilon", help="Claimed epsilon of the audited build (its target)."),
    epsilons: Optional[str] = typer.Option(None, "--epsilons", help="Instead of --epsilon: audit one build per claimed epsilon, e.g. 0.5,1,2,4,8, and write a table (markdown, JSON) and a plot."),
    delta: float = typer.Option(..., "--delta", help="Claimed total delta, in (0, 1)."),
    task: Optional[str] = typer.Option(None, "--task", help="Public task; medical has a built-in canary record."),
    canaries: Optional[int] = typer.Option(None, "--canaries", help="Number m of canary documents, each included with probability 1/2 (default: the public sizing rule, 1,000 to 16,000 from epsilon, delta and --confidence)."),
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
    privacy_unit_field: Optional[str] = typer.Option(None, "--privacy-unit-field", help="Field holding each document's person key: audit the per-person build (each canary is a person of its own)."),
    seed: Optional[int] = typer.Option(None, "--seed", help="Seed of the audit design and of the build (required: reproducible, NOT for release)."),
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace --out if it holds an earlier audit."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
) -> None:
    """Empirical privacy audit: canaries in one build, an epsilon lower bound next to the claimed epsilon.

    The audit always builds with --seed: its corpus holds invented canaries and is never released."""
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
        if (epsilon is None) == (epsilons is None):
            raise ConfigError("give the claimed epsilon: either --epsilon or --epsilons (e.g. 0.5,1,2,4,8), not both.")
        try:
            claims = [float(e) for e in epsilons.split(",")] if epsilons is not None else [epsilon]
        except ValueError:
            raise ConfigError(f"--epsilons must list numbers separated by commas (e.g. 0.5,1,2,4,8). Found {epsilons!r}.") from None
        config = BuildConfig(
            epsilon=claims[0], delta=delta, task=task, self_filter=not no_self_filter, model=model, embedder=embedder,
            K=K, R=R, L=L, k=k, T=T, temperature=tau, split=split, open_vocabulary=open_vocabulary,
            extractor=extractor, outlier_removal=not no_outlier_removal, max_document_tokens=max_document_tokens,
            seed=seed, privacy_unit_field=privacy_unit_field,
        )
        if epsilons is None:  # a sweep's infeasible claims become rows of its table instead
            config.calibrate()
        if input.is_dir():
            if not task:
                raise ConfigError("INPUT is a folder: pass --task to say how to read it, or give a file.")
            if privacy_unit_field is not None:
                raise ConfigError("--privacy-unit-field reads each document's person key from a document file; a "
                                  "task's data folder has no such field: give a JSONL, CSV or Parquet file holding it.")
            from dpsynrag.tasks import get_task

            docs = get_task(task).load_database(input, limit=documents)
        else:
            docs = load_documents(input, text_field=text_field, id_field=id_field, limit=documents,
                                  unit_field=privacy_unit_field)
        if seed is None:  # checked before anything is built or written
            raise ConfigError(SEED_REQUIRED)
        err.print("[yellow]warning:[/] --seed makes the output reproducible: it is NOT for release.")
        options = dict(canaries=canaries, k_in=guesses_in, k_out=guesses_out, template=canary_template, seed=seed,
                       confidence=confidence, overwrite=overwrite, progress=True, log=err.print)
        if epsilons is not None:
            sweep = run_audit_sweep(docs, out, config, claims, **options)
        else:
            result = run_audit(docs, out, config, **options)
    except (ValidationError, DpsynragError, FileExistsError) as exc:
        flags = {"limit": "--documents", "confidence": "--confidence", "template": "--canary-template"}
        err.print(f"[bold red]error:[/] {error_message(exc, flags)}")
        raise typer.Exit(code=2) from None
    if epsilons is not None:
        _print_sweep(console, sweep, out, as_json)
        if all("error" in row for row in sweep):  # nothing was audited: not a result to pass on
            err.print("[bold red]error:[/] no claim was audited: every build failed (their errors are in the table).")
            raise typer.Exit(code=1)
        return
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


def _print_sweep(console, rows: list[dict], out: Path, as_json: bool) -> None:
    """The ε sweep's table on the console (or its rows as JSON) and where its files are."""
    from rich.table import Table

    if as_json:
        typer.echo(json.dumps(rows, indent=2))
        return
    table = Table(title="Privacy audit, one build per claimed epsilon")
    for name in ("claimed eps", "tight eps (tested)", "canaries m", "guesses r", "correct v", "lower bound",
                 "largest reachable bound", "verdict"):
        table.add_column(name, justify="left" if name == "verdict" else "right")
    for row in rows:
        if "error" in row:
            table.add_row(f"{row['claimed_epsilon']:g}", "", "", "", "", "", "", f"build failed: {row['error']}")
            continue
        table.add_row(f"{row['claimed_epsilon']:g}", f"{row['claimed_epsilon_tight']:.3f}", str(row["canaries"]),
                      str(row["guesses"]), str(row["correct"]), f"{row['epsilon_lower_bound']:.3f}",
                      f"{row['max_epsilon_lower_bound']:.3f}", row["verdict"])
    console.print(table)
    console.print(f"table: {out / TABLE_MD}, {out / TABLE_JSON}; plot: {out / TABLE_PLOT}; one audit per claim in "
                  f"{out}/eps-*/ (NOT for release)")
