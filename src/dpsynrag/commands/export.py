"""``dpsynrag export``: a corpus's synthetic texts as Parquet or JSON Lines (:mod:`dpsynrag.corpus.export`)."""

from __future__ import annotations

from pathlib import Path

import typer

from dpsynrag.corpus.export import export_corpus
from dpsynrag.errors import DpsynragError


def export_command(
    corpus_dir: Path = typer.Argument(..., help="A corpus folder made by `dpsynrag build`."),
    fmt: str = typer.Option("parquet", "--format", help="parquet | jsonl."),
    out: Path = typer.Option(..., "--out", help="File to write."),
    include_rejected: bool = typer.Option(False, "--include-rejected", help="Also the texts the self-filter rejected (kept: false)."),
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace --out if it exists."),
) -> None:
    """Export a corpus's synthetic texts (id, text, kept, keyword, noisy count) as Parquet or JSON Lines."""
    from rich.console import Console

    try:
        n = export_corpus(corpus_dir, out, fmt=fmt, include_rejected=include_rejected, overwrite=overwrite)
    except DpsynragError as exc:
        Console(stderr=True, soft_wrap=True).print(f"[bold red]error:[/] {exc}")
        raise typer.Exit(code=2) from None
    typer.echo(f"wrote {n} texts to {out} ({fmt}).")
