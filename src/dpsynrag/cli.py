"""The ``dpsynrag`` command line. A thin layer: it parses arguments and calls the library.

Commands: ``build``, ``budget`` (:mod:`dpsynrag.commands.build`: method options from the registry),
``query`` (:mod:`dpsynrag.commands.query`), ``report``, ``demo``, ``eval`` (:mod:`dpsynrag.eval.command`),
``audit``, ``ledger``, ``serve``, ``export``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from typer.core import TyperGroup, TyperOption

from dpsynrag import __version__
from dpsynrag.commands.build import BudgetCommand, BuildCommand
from dpsynrag.commands.common import console, fail, warn_content
from dpsynrag.commands.query import query_command
from dpsynrag.errors import DpsynragError
from dpsynrag.ledger_cli import ledger_app
from dpsynrag.threads import passive_wait

passive_wait()  # before torch loads: OpenMP threads sleep instead of spinning while they wait (dpsynrag.threads)


def _switches_take_no_value(command, ctx) -> None:
    """Show no value placeholder after a switch in ``--help`` (typer prints ``<bool>`` after ``--json`` or
    ``--help``, as if they took a value): an empty metavar, on ``command``, its help option and, for a
    group, its subcommands."""
    for param in [*command.params, command.get_help_option(ctx)]:
        if isinstance(param, TyperOption) and param.is_flag and param.metavar is None:
            param.metavar = ""
    for sub in getattr(command, "commands", {}).values():
        _switches_take_no_value(sub, ctx)


class _Group(TyperGroup):
    """The root command group; its commands' ``--help`` shows switches without a value placeholder."""

    def get_params(self, ctx):
        _switches_take_no_value(self, ctx)
        return super().get_params(ctx)

    def get_command(self, ctx, cmd_name):
        command = super().get_command(ctx, cmd_name)
        if command is not None:
            _switches_take_no_value(command, ctx)
        return command


app = typer.Typer(
    cls=_Group,
    help="Differentially private synthetic corpora for retrieval-augmented generation (DP-SynRAG).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _exit_on_sigterm(signum, frame) -> None:
    # SystemExit unwinds like Ctrl-C: a build's partial folder is deleted by its CorpusWriter.
    raise SystemExit(128 + signum)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"dpsynrag {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", is_eager=True, callback=_print_version,
                                 help="Print the dpsynrag version and exit."),
) -> None:
    """Differentially private synthetic corpora for retrieval-augmented generation (DP-SynRAG)."""
    import signal
    import threading

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _exit_on_sigterm)


app.command("budget")(BudgetCommand())
app.command("build")(BuildCommand())
app.command("query")(query_command)


@app.command()
def report(
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
    console.print(corpus.privacy_report.table())
    for note in corpus.privacy_report.notes:
        console.print(f"note: {note}", markup=False, highlight=False)
    m = corpus.manifest
    console.print(
        f"method {m['method']}, model {m['model']['name']}, embedder {m['embedder']['name']}; "
        f"{m['num_kept']} of {m['num_texts']} texts kept."
    )
    if "builds" in m:
        from dpsynrag.corpus_extend import describe_guarantee

        console.print(describe_guarantee(m), markup=False, highlight=False)
    warn_content(corpus)
    if m.get("not_for_release"):
        console.print("[bold yellow]built with a seed: reproducible, NOT for release.[/]")


@app.command()
def demo(
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
    from dpsynrag.demo import run_demo

    try:
        run_demo(
            preset=preset, data_dir=data_dir, out_dir=out, model=model, embedder=embedder, documents=documents,
            questions=questions, seed=seed, decoding=decoding, console=console,
        )
    except DpsynragError as exc:
        fail(exc)


from dpsynrag.eval.command import eval_command  # noqa: E402  (evaluation harness, issue #6)

app.command("eval")(eval_command)

from dpsynrag.audit_cli import audit_command  # noqa: E402  (empirical privacy audit, issue #12)

app.command("audit")(audit_command)
app.add_typer(ledger_app, name="ledger")  # `dpsynrag ledger show | set-budget` (issue 15)

from dpsynrag.export import export_command  # noqa: E402  (export, issue #14)
from dpsynrag.serve import serve_command  # noqa: E402  (HTTP query service, issue #14)

app.command("serve")(serve_command)
app.command("export")(export_command)


if __name__ == "__main__":  # pragma: no cover
    app()
