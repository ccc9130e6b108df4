"""``dpsynrag report``: a corpus's privacy report (and, for an extended corpus, its guarantee)."""

from __future__ import annotations

from pathlib import Path

import typer

from dpsynrag.commands.common import console, fail, print_privacy, warn_content
from dpsynrag.errors import DpsynragError


def report_command(
    corpus_dir: Path = typer.Argument(..., help="A corpus folder made by `dpsynrag build`."),
    as_json: bool = typer.Option(False, "--json", help="Print the privacy report as JSON."),
) -> None:
    """Print a corpus's privacy report."""
    from dpsynrag.corpus import SyntheticCorpus

    try:
        corpus = SyntheticCorpus.load(corpus_dir)
    except DpsynragError as exc:
        fail(exc)
        return
    if as_json:
        typer.echo(corpus.privacy_report.to_json())
        return
    print_privacy(corpus.privacy_report)
    m = corpus.manifest
    console.print(
        f"method {m['method']}, model {m['model']['name']}, embedder {m['embedder']['name']}; "
        f"{m['num_kept']} of {m['num_texts']} texts kept."
    )
    if "builds" in m:
        from dpsynrag.methods.extend import describe_guarantee

        console.print(describe_guarantee(m), markup=False, highlight=False)
    warn_content(corpus)
    if m.get("not_for_release"):
        console.print("[bold yellow]built with a seed: reproducible, NOT for release.[/]")
