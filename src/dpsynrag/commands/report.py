"""``dpsynrag report``: a corpus's privacy report (and, for an extended corpus, its guarantee)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from dpsynrag.commands.common import console, fail, print_privacy, warn_content
from dpsynrag.errors import ConfigError, DpsynragError


def report_command(
    corpus_dir: Path = typer.Argument(..., help="A corpus folder made by `dpsynrag build`."),
    as_json: bool = typer.Option(False, "--json", help="Print the privacy report as JSON."),
    html: Optional[Path] = typer.Option(
        None, "--html", help="Write the corpus card, one self-contained HTML page (no script, no network), to "
        "this file: the publishable variant (DP output and public settings) unless --owner."),
    owner: bool = typer.Option(False, "--owner", help="With --html: the owner variant (adds the owner record and "
                               "the leakage checks; not DP, never published; refused inside the corpus folder)."),
    eval_dir: Optional[Path] = typer.Option(
        None, "--eval", help="With --html: an evaluation folder (`dpsynrag eval --out`) whose accuracy table and "
        "plots are added (owner variant; the publishable one only with --publish-eval)."),
    publish_eval: bool = typer.Option(False, "--publish-eval", help="With --html and --eval: release the "
                                      "evaluation, measured on private data, in the publishable variant."),
    samples: Optional[int] = typer.Option(None, "--samples", min=0, max=100_000,
                                          help="With --html: synthetic texts shown (default 8)."),
    ledger: Optional[Path] = typer.Option(None, "--ledger", help="With --html --owner: a privacy ledger folder; the "
                                          "card adds the dataset's releases and its units by lifetime epsilon."),
    dataset: Optional[str] = typer.Option(None, "--dataset", help="With --ledger: the corpus's dataset (`dpsynrag "
                                          "ledger show` lists them; default: the ledger's only one)."),
) -> None:
    """Print a corpus's privacy report, or write its corpus card as HTML (--html)."""
    from dpsynrag.corpus import SyntheticCorpus

    if html is None and (owner or eval_dir is not None or publish_eval or ledger is not None or samples is not None):
        fail(ConfigError("--owner, --eval, --publish-eval, --ledger and --samples go with --html FILE."))
        return
    if publish_eval and eval_dir is None:
        fail(ConfigError("--publish-eval goes with --eval DIR (the evaluation to release)."))
        return
    if dataset is not None and ledger is None:
        fail(ConfigError("--dataset goes with --ledger."))
        return
    try:
        corpus = SyntheticCorpus.load(corpus_dir)
        if html is not None:
            from dpsynrag.corpus.card import write_corpus_card

            path = write_corpus_card(corpus_dir, html, variant="owner" if owner else "publishable",
                                     eval_dir=eval_dir, publish_eval=publish_eval,
                                     samples=8 if samples is None else samples,
                                     ledger=ledger, dataset=dataset)
            console.print(f"{'owner' if owner else 'publishable'} corpus card written to {path}"
                          + (" (OWNER ONLY: do not publish)" if owner else ""))
            return
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
