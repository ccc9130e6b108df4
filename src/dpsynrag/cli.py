"""The ``dpsynrag`` command line. A thin layer: it parses arguments and calls the library."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.table import Table

from dpsynrag.errors import DpsynragError
from dpsynrag.privacy.accountant import ZCDPAccountant
from dpsynrag.privacy.calibration import calibrate, make_split
from dpsynrag.privacy.report import PrivacyReport

app = typer.Typer(
    help="Differentially private synthetic corpora for retrieval-augmented generation (DP-SynRAG).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
# Wide enough for the report tables when output goes to a file or a pipe (rich defaults to 80 there).
console = Console(width=None if sys.stdout.isatty() else 140)
err_console = Console(stderr=True, soft_wrap=True)


@app.callback()
def _root() -> None:
    """Differentially private synthetic corpora for retrieval-augmented generation (DP-SynRAG)."""


def _fail(exc: Exception) -> None:
    err_console.print(f"[bold red]error:[/] {exc}")
    raise typer.Exit(code=2)


@app.command()
def budget(
    epsilon: float = typer.Option(..., "--epsilon", help="Target epsilon (> 0)."),
    delta: float = typer.Option(..., "--delta", help="Target total delta, in (0, 1)."),
    K: int = typer.Option(10, "--K", help="Keywords per document (histogram L2 sensitivity sqrt(K))."),
    L: int = typer.Option(5, "--L", help="Most clusters a document joins."),
    T: int = typer.Option(70, "--T", help="Tokens per synthetic text."),
    R: int = typer.Option(500, "--R", help="Number of clusters (keywords released)."),
    tau: float = typer.Option(1.0, "--tau", help="Sampling temperature of private prediction."),
    conversion: str = typer.Option("bun-steinke", help="rho->epsilon conversion used to calibrate: bun-steinke | cks."),
    split: str = typer.Option("paper", help="Budget split: paper (absolute constants) | fractions (scale with epsilon)."),
    rho_hist: Optional[float] = typer.Option(None, help="Override the histogram share (rho, or a fraction)."),
    epsilon_theta: Optional[float] = typer.Option(None, help="Override the threshold share (epsilon_theta, or a fraction)."),
    rho_embed: Optional[float] = typer.Option(None, help="Override the embedding-sum share (rho per cluster, or a fraction)."),
    open_vocabulary_delta: Optional[float] = typer.Option(
        None, help="Use the open-vocabulary histogram with this delta term (taken out of --delta)."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of tables."),
) -> None:
    """Calibrate a DP-SynRAG build for a target (epsilon, delta) and print its privacy report."""
    try:
        cal = calibrate(
            epsilon=epsilon,
            delta=delta,
            K=K,
            L=L,
            T=T,
            temperature=tau,
            split=make_split(split, L=L, hist=rho_hist, theta=epsilon_theta, embed=rho_embed),
            conversion=conversion,  # type: ignore[arg-type]
            open_vocabulary_delta=open_vocabulary_delta,
        )
        accountant = ZCDPAccountant()
        accountant.compose(cal.histogram_event())
        accountant.open_parallel(cal.branch_plan(), num_branches=R, max_branches_per_unit=L)
        report = PrivacyReport.from_accountant(accountant, delta=delta, parameters=cal.to_dict())
    except DpsynragError as exc:
        _fail(exc)
        return
    if as_json:
        typer.echo(report.to_json())
        return
    params = Table(title="Calibrated parameters")
    params.add_column("parameter")
    params.add_column("value", justify="right")
    for key, value in cal.to_dict().items():
        params.add_row(key, "-" if value is None else (f"{value:.6g}" if isinstance(value, float) else str(value)))
    console.print(params)
    console.print(report.table())


@app.command()
def build(
    input: Path = typer.Argument(..., help="Private collection: JSONL, CSV or Parquet file (or a task's data folder with --task)."),
    out: Path = typer.Option(..., "--out", help="Corpus folder to create."),
    epsilon: float = typer.Option(..., "--epsilon", help="Target epsilon (> 0)."),
    delta: float = typer.Option(..., "--delta", help="Target total delta, in (0, 1)."),
    task: Optional[str] = typer.Option(None, "--task", help="Public task (medical, movielens, ...): its self-filter and answer prompts."),
    filter_prompt: Optional[str] = typer.Option(None, "--filter-prompt", help="Self-filter prompt with {document} (instead of --task)."),
    no_self_filter: bool = typer.Option(False, "--no-self-filter", help="Keep every synthetic text (ablation)."),
    model: Optional[str] = typer.Option(None, "--model", help="Language model: hub id, folder or GGUF file (default: offline SmolLM2-135M-Instruct)."),
    embedder: Optional[str] = typer.Option(None, "--embedder", help="Sentence-transformers model id or folder (default: offline all-MiniLM-L6-v2)."),
    K: int = typer.Option(10, "--K", help="Keywords per document."),
    R: int = typer.Option(500, "--R", help="Keywords released = clusters."),
    L: int = typer.Option(5, "--L", help="Most clusters a document joins."),
    k: int = typer.Option(80, "--k", help="Target documents per cluster after outlier removal."),
    T: int = typer.Option(70, "--T", help="Tokens per synthetic text."),
    tau: float = typer.Option(1.0, "--tau", help="Sampling temperature."),
    seed: Optional[int] = typer.Option(None, "--seed", help="Seed: reproducible output, NOT for release (default: secure randomness)."),
    open_vocabulary: bool = typer.Option(False, "--open-vocabulary", help="Thresholded open-vocabulary histogram (keeps domain words)."),
    open_vocabulary_delta: Optional[float] = typer.Option(None, help="Delta term of the open-vocabulary histogram (default delta/10)."),
    extractor: str = typer.Option("llm", help="Keyword extractor: llm (paper) | rarity (fast, per-document statistics)."),
    split: str = typer.Option("paper", help="Budget split: paper | fractions."),
    conversion: str = typer.Option("bun-steinke", help="rho->epsilon conversion used to calibrate: bun-steinke | cks."),
    no_outlier_removal: bool = typer.Option(False, "--no-outlier-removal", help="Skip the embedding threshold (ablation)."),
    match_text: bool = typer.Option(False, "--match-text", help="Cluster on keyword occurrence in the text instead of extracted keywords."),
    max_document_tokens: int = typer.Option(256, help="Truncate each document to this many tokens."),
    text_field: str = typer.Option("text", help="Field holding the document text."),
    id_field: Optional[str] = typer.Option(None, help="Field holding a unique document id."),
    batch_size: Optional[int] = typer.Option(None, help="Prompts per generation batch."),
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace --out if it exists (after a successful build)."),
) -> None:
    """Build a differentially private synthetic corpus from a private collection."""
    from pydantic import ValidationError

    from dpsynrag.pipeline.build import build_corpus
    from dpsynrag.pipeline.config import BuildConfig

    try:
        config = BuildConfig(
            epsilon=epsilon, delta=delta, task=task, filter_prompt=filter_prompt, self_filter=not no_self_filter,
            model=model, embedder=embedder, K=K, R=R, L=L, k=k, T=T, temperature=tau, seed=seed,
            open_vocabulary=open_vocabulary, open_vocabulary_delta=open_vocabulary_delta, extractor=extractor,
            split=split, conversion=conversion, outlier_removal=not no_outlier_removal, match_text=match_text,
            max_document_tokens=max_document_tokens, batch_size=batch_size,
        )
        config.calibrate()
        documents = input
        if input.is_dir():
            if not task:
                raise typer.BadParameter("INPUT is a folder: pass --task to say how to read it, or give a file.")
            from dpsynrag.tasks import get_task

            documents = get_task(task).load_database(input)
        if seed is not None:
            err_console.print("[yellow]warning:[/] --seed makes the output reproducible: it is NOT for release.")
        corpus = build_corpus(
            documents, out, config, text_field=text_field, id_field=id_field, overwrite=overwrite, progress=True
        )
    except ValidationError as exc:
        _fail(ValueError(_pydantic_message(exc)))
        return
    except (DpsynragError, FileExistsError) as exc:
        _fail(exc)
        return
    console.print(corpus.privacy_report.table())
    m = corpus.manifest
    console.print(
        f"[bold green]built[/] {out}: {m['num_kept']} of {m['num_texts']} synthetic texts kept; "
        f"epsilon={corpus.privacy_report.epsilon:.4f} (tight {corpus.privacy_report.epsilon_tight:.4f}), delta={delta:g}."
    )


def _pydantic_message(exc) -> str:
    parts = []
    for e in exc.errors():
        where = ".".join(str(x) for x in e.get("loc", ())) or "config"
        parts.append(f"`{where}`: {e.get('msg')} (found {e.get('input')!r})")
    return "; ".join(parts)


@app.command()
def query(
    corpus_dir: Path = typer.Argument(..., help="A corpus folder made by `dpsynrag build`."),
    question: str = typer.Argument(..., help="The question."),
    top_k: Optional[int] = typer.Option(None, "--top-k", help="Synthetic texts retrieved (default: the task's, else 10)."),
    show_context: bool = typer.Option(False, "--show-context", help="Print the retrieved synthetic texts."),
) -> None:
    """Answer a question from a synthetic corpus (post-processing: costs no privacy budget)."""
    from dpsynrag.corpus import SyntheticCorpus

    try:
        corpus = SyntheticCorpus.load(corpus_dir)
        answer = corpus.answer_many([question], top_k=top_k)[0]
    except DpsynragError as exc:
        _fail(exc)
        return
    if show_context:
        for i, text in enumerate(answer.context, start=1):
            console.print(f"[dim][{i}] {text}[/]")
    typer.echo(answer.text)


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
        _fail(exc)
        return
    if as_json:
        typer.echo(corpus.privacy_report.to_json())
        return
    console.print(corpus.privacy_report.table())
    m = corpus.manifest
    console.print(
        f"method {m['method']}, model {m['model']['name']}, embedder {m['embedder']['name']}; "
        f"{m['num_kept']} of {m['num_texts']} texts kept."
    )
    if m.get("not_for_release"):
        console.print("[bold yellow]built with a seed: reproducible, NOT for release.[/]")


@app.command()
def demo(
    preset: str = typer.Option("cpu", help="cpu (2 cores, offline SmolLM2, ~15 min) | paper (GPU, stronger --model)."),
    data_dir: Optional[Path] = typer.Option(None, help="Medical Synth folder (default: ../shared/data/medical_synth, or a verified download)."),
    out: Path = typer.Option(Path("runs/demo"), "--out", help="Where the corpus and results.json go."),
    model: Optional[str] = typer.Option(None, "--model", help="Language model: hub id, folder or GGUF file."),
    embedder: Optional[str] = typer.Option(None, "--embedder", help="Embedding model id or folder."),
    documents: Optional[int] = typer.Option(None, help="Override the number of database documents."),
    questions: Optional[int] = typer.Option(None, help="Override the number of validation questions."),
    seed: Optional[int] = typer.Option(None, "--seed", help="Reproducible run (not for release)."),
) -> None:
    """The main job: a DP synthetic corpus of Medical Synth at epsilon=10, compared with Non-RAG and RAG."""
    from dpsynrag.demo import run_demo

    try:
        run_demo(
            preset=preset, data_dir=data_dir, out_dir=out, model=model, embedder=embedder, documents=documents,
            questions=questions, seed=seed, console=console,
        )
    except DpsynragError as exc:
        _fail(exc)


from dpsynrag.eval.command import eval_command  # noqa: E402  (evaluation harness, issue #6)

app.command("eval")(eval_command)


if __name__ == "__main__":  # pragma: no cover
    app()
