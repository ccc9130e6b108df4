"""The ``dpsynrag`` command line. A thin layer: it parses arguments and calls the library."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.table import Table

from dpsynrag.checks import check_int, error_message, typed_flags
from dpsynrag.errors import ConfigError, DpsynragError
from dpsynrag.ledger_cli import LEDGER_HELP, LIFETIME_HELP, ledger_app, open_ledger, summary_line
from dpsynrag.privacy.report import PrivacyReport
from dpsynrag.threads import passive_wait

passive_wait()  # before torch loads: OpenMP threads sleep instead of spinning while they wait (dpsynrag.threads)

app = typer.Typer(
    help="Differentially private synthetic corpora for retrieval-augmented generation (DP-SynRAG).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
# Wide enough for the report tables when output goes to a file or a pipe (rich defaults to 80 there).
console = Console(width=None if sys.stdout.isatty() else 140)
err_console = Console(stderr=True, soft_wrap=True)


def _exit_on_sigterm(signum, frame) -> None:
    # SystemExit unwinds like Ctrl-C: a build's partial folder is deleted by its CorpusWriter.
    raise SystemExit(128 + signum)


@app.callback()
def _root() -> None:
    """Differentially private synthetic corpora for retrieval-augmented generation (DP-SynRAG)."""
    import signal
    import threading

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _exit_on_sigterm)


def _fail(exc: Exception, flags: dict[str, str] | None = None) -> None:
    """Print ``exc`` naming the flags the user typed (:func:`dpsynrag.checks.error_message`; ``flags``: the
    command's own field -> flag pairs) and exit with code 2."""
    err_console.print(f"[bold red]error:[/] {error_message(exc, flags)}")
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
    open_vocabulary: bool = typer.Option(False, "--open-vocabulary", help="Plan the thresholded open-vocabulary histogram (as build --open-vocabulary)."),
    open_vocabulary_delta: Optional[float] = typer.Option(
        None, help="Delta term of the open-vocabulary histogram, taken out of --delta (default delta/10; implies --open-vocabulary)."
    ),
    no_outlier_removal: bool = typer.Option(False, "--no-outlier-removal", help="Plan without the embedding threshold (as build)."),
    match_text: bool = typer.Option(False, "--match-text", help="Plan clustering on keyword occurrence in the text (as build): L is then not capped at K."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of tables."),
) -> None:
    """Print the privacy plan of a DP-SynRAG build for a target (epsilon, delta): the same configuration,
    calibration and plan `dpsynrag build` uses with these options (its guarantee, fixed before any data is read)."""
    from pydantic import ValidationError

    from dpsynrag.pipeline.config import BuildConfig

    try:
        config = BuildConfig(
            epsilon=epsilon, delta=delta, K=K, R=R, L=L, T=T, temperature=tau, conversion=conversion, split=split,
            rho_hist=rho_hist, epsilon_theta=epsilon_theta, rho_embed=rho_embed,
            outlier_removal=not no_outlier_removal, match_text=match_text,
            open_vocabulary=open_vocabulary or open_vocabulary_delta is not None,
            open_vocabulary_delta=open_vocabulary_delta,
        )
        cal = config.calibrate()
        report = PrivacyReport.from_plan(config.plan(cal), delta=delta, parameters=cal.to_dict(), notes=config.plan_notes)
    except ValidationError as exc:
        _fail(exc)
        return
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
    fluency_threshold: Optional[float] = typer.Option(None, "--fluency-threshold", help="Also drop texts whose mean token log-probability under the model is below this (nats, < 0; post-processing)."),
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
    language: str = typer.Option("en", "--language", help="Language of the documents (wordfreq code: en, de, ru, ar, ja, zh, ...): keyword tokenisation, stop words, public word frequencies and vocabulary."),
    split: str = typer.Option("paper", help="Budget split: paper | fractions."),
    conversion: str = typer.Option("bun-steinke", help="rho->epsilon conversion used to calibrate: bun-steinke | cks."),
    no_outlier_removal: bool = typer.Option(False, "--no-outlier-removal", help="Skip the embedding threshold (ablation)."),
    match_text: bool = typer.Option(False, "--match-text", help="Cluster on keyword occurrence in the text instead of extracted keywords."),
    clustering: str = typer.Option("paper", "--clustering", help="Membership rule: paper (least frequent keyword first) | primary (a document's own first L released keywords)."),
    decoding: str = typer.Option("paper", "--decoding", help="Private decoding: paper (clipped sum) | public-prior (+ omega x public log-probabilities) | invisibleink (clip each document's difference to the public log-probabilities)."),
    public_prompt: Optional[str] = typer.Option(None, "--public-prompt", help="Public prompt of the decoding, no private data (default: the rephrase instruction with an empty document)."),
    public_weight: Optional[float] = typer.Option(None, "--public-weight", help="Omega of the public term: paper (default 0) | public-prior (default 1)."),
    invisibleink_lambda: float = typer.Option(1.0, "--invisibleink-lambda", help="invisibleink: weight lambda of the public log-probabilities."),
    invisibleink_top_k: Optional[int] = typer.Option(None, "--invisibleink-top-k", help="invisibleink: sample only among the top-k+ public tokens (default: whole vocabulary)."),
    invisibleink_margin: float = typer.Option(0.0, "--invisibleink-margin", help="invisibleink: top-k+ also keeps tokens within this many nats of the k-th public log-probability."),
    max_document_tokens: int = typer.Option(256, help="Truncate each document to this many tokens."),
    text_field: str = typer.Option("text", help="Field holding the document text."),
    id_field: Optional[str] = typer.Option(None, help="Field holding a unique document id."),
    batch_size: Optional[int] = typer.Option(None, help="Prompts per generation batch."),
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace --out if it exists (after a successful build)."),
    resume: bool = typer.Option(False, "--resume", help="dp-synrag: continue a build of --out that was killed, from its checkpoints in .NAME.work beside --out (same input and options; released values are reused, never redrawn)."),
    method: str = typer.Option("dp-synrag", "--method", help="dp-synrag (default) | dp-synth (Amin et al. 2024) | aug-pe (Xie et al. 2024)."),
    num_batches: Optional[int] = typer.Option(None, "--num-batches", help="dp-synth: public number of disjoint batches = texts (default 80)."),
    population_size: Optional[int] = typer.Option(None, "--population-size", help="aug-pe: synthetic population size (default 200)."),
    iterations: Optional[int] = typer.Option(None, "--iterations", help="aug-pe: private vote histograms (default 10)."),
    pe_L: Optional[int] = typer.Option(None, "--pe-L", help="aug-pe: population/L parents kept, each with L-1 variations (default 2)."),
    selection: Optional[str] = typer.Option(None, "--selection", help="aug-pe: rank | prob (default rank)."),
    num_nearest_neighbor: Optional[int] = typer.Option(None, "--num-nearest-neighbor", help="aug-pe: samples each document votes for (default 1)."),
    count_threshold: Optional[float] = typer.Option(None, "--count-threshold", help="aug-pe: noisy counts below it are zeroed (default 0)."),
    description: Optional[str] = typer.Option(None, "--description", help="aug-pe: public description of the collection (default: the task's)."),
    threads: Optional[int] = typer.Option(None, "--threads", help="Torch CPU threads (per Ray worker with --ray; default: the cores free to the process, or $DPSYNRAG_THREADS)."),
    ray: bool = typer.Option(False, "--ray", help="dp-synrag: private prediction on a local Ray cluster, one model per worker (pip install 'dpsynrag[ray]')."),
    ray_address: Optional[str] = typer.Option(None, "--ray-address", help="dp-synrag: private prediction on the running Ray cluster at this address (host:6379, ray://host:10001, auto)."),
    ray_workers: Optional[int] = typer.Option(None, "--ray-workers", help="With --ray/--ray-address: model actors (default: one per GPU, else one per --threads CPUs)."),
    ledger: Optional[Path] = typer.Option(None, "--ledger", help=LEDGER_HELP),
    lifetime_epsilon: Optional[float] = typer.Option(None, "--lifetime-epsilon", help=LIFETIME_HELP),
) -> None:
    """Build a differentially private synthetic corpus from a private collection. The build is recorded
    in the privacy-budget ledger (--ledger; see `dpsynrag ledger show`)."""
    from pydantic import ValidationError

    from dpsynrag.pipeline.build import build_corpus
    from dpsynrag.pipeline.config import BuildConfig

    try:
        common = dict(
            epsilon=epsilon, delta=delta, task=task, filter_prompt=filter_prompt, self_filter=not no_self_filter,
            model=model, embedder=embedder, T=T, temperature=tau, seed=seed, conversion=conversion,
            max_document_tokens=max_document_tokens,
        )
        synrag_only = {"--K": K != 10, "--R": R != 500, "--L": L != 5, "--k": k != 80, "--open-vocabulary": open_vocabulary,
                       "--open-vocabulary-delta": open_vocabulary_delta is not None, "--extractor": extractor != "llm",
                       "--language": language != "en",
                       "--split": split != "paper", "--no-outlier-removal": no_outlier_removal, "--match-text": match_text,
                       "--clustering": clustering != "paper", "--decoding": decoding != "paper",
                       "--public-prompt": public_prompt is not None, "--public-weight": public_weight is not None,
                       "--invisibleink-lambda": invisibleink_lambda != 1.0, "--invisibleink-top-k": invisibleink_top_k is not None,
                       "--invisibleink-margin": invisibleink_margin != 0.0, "--resume": resume,
                       "--fluency-threshold": fluency_threshold is not None}
        pe = {"--population-size": population_size, "--iterations": iterations, "--pe-L": pe_L, "--selection": selection,
              "--num-nearest-neighbor": num_nearest_neighbor, "--count-threshold": count_threshold, "--description": description}
        given = {"dp-synrag": [n for n, v in {**pe, "--num-batches": num_batches}.items() if v is not None],
                 "dp-synth": [n for n, v in synrag_only.items() if v] + [n for n, v in pe.items() if v is not None]
                 + (["--batch-size"] if batch_size is not None else []),
                 "aug-pe": [n for n, v in synrag_only.items() if v] + (["--num-batches"] if num_batches is not None else [])}
        if method not in given:
            raise ConfigError(f"`--method` must be dp-synrag, dp-synth or aug-pe. Found {method!r}.")
        if given[method]:
            raise ConfigError(f"{', '.join(given[method])} do not apply to --method {method}.")
        if method == "dp-synth":
            from dpsynrag.baselines import DPSynthConfig, build_dp_synth as builder

            config = DPSynthConfig(**common, **({} if num_batches is None else {"num_batches": num_batches}))
        elif method == "aug-pe":
            from dpsynrag.baselines import AugPEConfig, build_aug_pe as builder

            options = {"population_size": population_size, "iterations": iterations, "L": pe_L, "selection": selection,
                       "num_nearest_neighbor": num_nearest_neighbor, "threshold": count_threshold,
                       "description": description, "batch_size": batch_size}
            config = AugPEConfig(**common, **{key: v for key, v in options.items() if v is not None})
        else:
            builder = build_corpus
            config = BuildConfig(
                **common, K=K, R=R, L=L, k=k, open_vocabulary=open_vocabulary, open_vocabulary_delta=open_vocabulary_delta,
                extractor=extractor, language=language, split=split, outlier_removal=not no_outlier_removal,
                match_text=match_text, clustering=clustering, batch_size=batch_size, decoding=decoding,
                public_prompt=public_prompt, public_weight=public_weight, invisibleink_lambda=invisibleink_lambda,
                invisibleink_top_k=invisibleink_top_k, invisibleink_margin=invisibleink_margin,
                fluency_threshold=fluency_threshold,
            )
        config.calibrate()
        distributed = {}
        if ray or ray_address is not None or ray_workers is not None:
            if method != "dp-synrag":
                raise ConfigError(f"--ray, --ray-address and --ray-workers do not apply to --method {method}.")
            if not (ray or ray_address is not None):
                raise ConfigError("--ray-workers needs --ray (a local Ray cluster) or --ray-address.")
            from dpsynrag.pipeline.distributed import RayOptions

            distributed = {"ray": RayOptions(address=ray_address, workers=ray_workers, threads=threads)}
        from dpsynrag.threads import configure_threads

        configure_threads(threads)
        documents = input
        if input.is_dir():
            if not task:
                raise typer.BadParameter("INPUT is a folder: pass --task to say how to read it, or give a file.")
            from dpsynrag.tasks import get_task

            documents = get_task(task).load_database(input)
        if seed is not None:
            err_console.print("[yellow]warning:[/] --seed makes the output reproducible: it is NOT for release.")
        privacy_ledger = open_ledger(ledger, lifetime_epsilon)
        corpus = builder(
            documents, out, config, text_field=text_field, id_field=id_field, overwrite=overwrite, progress=True,
            ledger=privacy_ledger, **distributed, **({"resume": True} if resume else {}),
        )
    except ValidationError as exc:
        _fail(exc, {"L": "--pe-L", "threshold": "--count-threshold"} if method == "aug-pe" else None)
        return
    except (DpsynragError, FileExistsError) as exc:
        _fail(exc, {"path": "INPUT", "out_dir": "--out"})
        return
    console.print(corpus.privacy_report.table())
    m = corpus.manifest
    console.print(
        f"[bold green]built[/] {out}: {m['num_kept']} of {m['num_texts']} synthetic texts kept; "
        f"epsilon={corpus.privacy_report.epsilon:.4f} (tight {corpus.privacy_report.epsilon_tight:.4f}), delta={delta:g}."
    )
    _warn_content(corpus)
    from dpsynrag.corpus import owner_audit_path

    built = [r for r in privacy_ledger.releases() if r.label == str(out.resolve())]
    if built:
        console.print(summary_line(privacy_ledger, built[-1].dataset))
    console.print(f"owner-only audit record (input fingerprint, wall times; not DP, never publish): {owner_audit_path(out)}")


def _warn_content(corpus) -> None:
    """A warning on stderr when the corpus keeps no or few texts (post-processing of released counts)."""
    warning = corpus.content_warning
    if warning:
        err_console.print(f"[bold yellow]warning:[/] {warning}")


@app.command()
def query(
    ctx: typer.Context,
    corpus_dir: Optional[str] = typer.Argument(None, help="A corpus folder made by `dpsynrag build` (none with --method dp-rag)."),
    question: Optional[str] = typer.Argument(None, help="The question."),
    top_k: Optional[int] = typer.Option(None, "--top-k", help="Synthetic texts retrieved (default: the task's, else 10); dp-rag: the top-k target."),
    show_context: bool = typer.Option(False, "--show-context", help="Print the retrieved synthetic texts."),
    max_tokens: Optional[int] = typer.Option(None, "--max-tokens", help="Answer length in tokens (default 64; dp-rag: --T)."),
    method: str = typer.Option("corpus", "--method", help="corpus (RAG over a synthetic corpus: free) | dp-rag (query-time DP over --documents: costs budget)."),
    documents: Optional[Path] = typer.Option(None, "--documents", help="dp-rag: the private collection (file, or a task's data folder with --task)."),
    epsilon_per_query: Optional[float] = typer.Option(None, "--epsilon-per-query", help="dp-rag: epsilon of each query."),
    delta: Optional[float] = typer.Option(None, "--delta", help="dp-rag: delta of each query (and of the zCDP session total)."),
    total_epsilon: Optional[float] = typer.Option(None, "--total-epsilon", help="dp-rag: refuse the query if it alone exceeds this total (one call is one session; across calls use --lifetime-epsilon or `dpsynrag ledger set-budget`)."),
    composition: str = typer.Option("basic", "--composition", help="dp-rag: composition checked against --total-epsilon: basic | zcdp."),
    utility: str = typer.Option("top-p", "--utility", help="dp-rag: retrieval threshold utility: top-p | top-k."),
    top_p: float = typer.Option(0.02, "--top-p", help="dp-rag: share of the score weight retrieved (top-p utility)."),
    retrieval_epsilon: Optional[float] = typer.Option(None, "--retrieval-epsilon", help="dp-rag: epsilon of the retrieval threshold (default epsilon/11)."),
    T: int = typer.Option(70, "--T", help="dp-rag: answer tokens."),
    public_weight: float = typer.Option(0.01, "--public-weight", help="dp-rag: weight of the public prompt (the question alone)."),
    task: Optional[str] = typer.Option(None, "--task", help="dp-rag: public task (reads a task's data folder)."),
    model: Optional[str] = typer.Option(None, "--model", help="Language model: hub id, folder or GGUF file (default: the corpus's; dp-rag: offline SmolLM2-135M-Instruct)."),
    embedder: Optional[str] = typer.Option(None, "--embedder", help="Embedding model id or folder (default: the corpus's, and of its dimension; dp-rag: offline all-MiniLM-L6-v2)."),
    text_field: str = typer.Option("text", help="dp-rag: field holding the document text."),
    id_field: Optional[str] = typer.Option(None, help="dp-rag: field holding a unique document id."),
    max_document_tokens: int = typer.Option(256, help="dp-rag: truncate each document to this many tokens."),
    seed: Optional[int] = typer.Option(None, "--seed", help="dp-rag: reproducible, NOT for release."),
    as_json: bool = typer.Option(False, "--json", help="dp-rag: print the answer and the session's privacy report as JSON."),
    answer_endpoint: Optional[str] = typer.Option(None, "--answer-endpoint", help="Answer with an OpenAI-compatible API (e.g. http://127.0.0.1:8080/v1) instead of the corpus's model; key from $DPSYNRAG_ANSWER_API_KEY."),
    answer_model: Optional[str] = typer.Option(None, "--answer-model", help="The model name the --answer-endpoint serves."),
    ledger: Optional[Path] = typer.Option(None, "--ledger", help="dp-rag: " + LEDGER_HELP),
    lifetime_epsilon: Optional[float] = typer.Option(None, "--lifetime-epsilon", help="dp-rag: " + LIFETIME_HELP),
) -> None:
    """Answer a question from a synthetic corpus (post-processing: costs no privacy budget), or with
    DP-RAG over the private documents (--method dp-rag: each query costs --epsilon-per-query).

    A corpus that keeps no synthetic text has no context to give: the command says so and exits with
    code 2 instead of answering from the model alone; one that keeps few texts answers, with a warning
    on stderr."""
    from dpsynrag.corpus import SyntheticCorpus

    if method == "dp-rag":
        if answer_endpoint is not None or answer_model is not None:
            _fail(ConfigError("--answer-endpoint and --answer-model do not apply to --method dp-rag: its private "
                              "prediction needs the model's next-token logits."))
        not_here = typed_flags(ctx, {"show_context", "max_tokens"})
        if not_here:
            _fail(ConfigError(f"{', '.join(not_here)} do not apply to --method dp-rag (its answer length is --T; "
                              "its context is private)."))
        if question is None and corpus_dir is not None:
            corpus_dir, question = None, corpus_dir  # the only positional argument is the question
        _query_dp_rag(
            corpus_dir, question, documents=documents, epsilon_per_query=epsilon_per_query, delta=delta,
            total_epsilon=total_epsilon, composition=composition, utility=utility, top_p=top_p, top_k=top_k,
            retrieval_epsilon=retrieval_epsilon, T=T, public_weight=public_weight, task=task, model=model,
            embedder=embedder, text_field=text_field, id_field=id_field, max_document_tokens=max_document_tokens,
            seed=seed, as_json=as_json, ledger=ledger, lifetime_epsilon=lifetime_epsilon,
        )
        return
    try:
        if method not in ("corpus", "dp-synrag", "dp-synth", "aug-pe"):
            raise ConfigError(f"`--method` must be corpus (or the corpus's method: dp-synrag, dp-synth, aug-pe) or dp-rag. Found {method!r}.")
        extra = typed_flags(ctx, _CORPUS_QUERY_IGNORES)
        if extra:
            raise ConfigError(f"{', '.join(extra)} only apply to --method dp-rag.")
        if model is not None and answer_endpoint is not None:
            raise ConfigError("--model and --answer-endpoint both choose the answering model: give one.")
        check_int("--max-tokens", max_tokens, optional=True)
        if corpus_dir is None or question is None:
            raise ConfigError("give a corpus folder and a question: dpsynrag query CORPUS_DIR QUESTION.")
        if not question.strip():
            raise ConfigError("the question is empty: ask something.")
        corpus = SyntheticCorpus.load(Path(corpus_dir))
        if method != "corpus" and corpus.manifest.get("method") != method:
            raise ConfigError(f"{corpus_dir} is a {corpus.manifest.get('method')} corpus, not {method}.")
        if corpus.texts:
            _warn_content(corpus)  # few texts: answered, with a warning; none: answer_many refuses (exit 2)
        emb = _query_embedder(embedder, corpus) if corpus.texts else None  # before the LM: a bad one fails first
        lm = _answer_lm(answer_endpoint, answer_model)
        if model is not None and corpus.texts:
            from dpsynrag.models import LanguageModel

            lm = LanguageModel.load(model)
        answer = corpus.answer_many([question], top_k=top_k, lm=lm, embedder=emb, max_new_tokens=max_tokens)[0]
    except DpsynragError as exc:
        _fail(exc)
        return
    if show_context:
        for i, text in enumerate(answer.context, start=1):
            console.print(f"[dim][{i}] {text}[/]")
    typer.echo(answer.text)


# `dpsynrag query` options of --method dp-rag only: a corpus query refuses them when typed.
_CORPUS_QUERY_IGNORES = {
    "documents", "epsilon_per_query", "delta", "total_epsilon", "composition", "utility", "top_p", "retrieval_epsilon",
    "T", "public_weight", "task", "text_field", "id_field", "max_document_tokens", "seed", "as_json", "ledger",
    "lifetime_epsilon",
}


def _query_embedder(name: Optional[str], corpus):
    """The --embedder of a corpus query, loaded and checked against the index's dimension (None: the corpus's)."""
    if name is None:
        return None
    from dpsynrag.models import Embedder

    emb = Embedder.load(name)
    if emb.dim != corpus.index.dim:
        raise ConfigError(
            f"--embedder {name!r} gives {emb.dim}-dimensional vectors, but the corpus index holds {corpus.index.dim}-"
            f"dimensional ones (built with {corpus.manifest['embedder']['name']!r}): retrieve with that embedder "
            "(the default) or one of the same dimension."
        )
    return emb


def _answer_lm(endpoint: Optional[str], model: Optional[str]):
    """The OpenAI-compatible answering model of --answer-endpoint/--answer-model, or None (the corpus's own)."""
    if endpoint is None and model is None:
        return None
    if endpoint is None or model is None:
        raise ConfigError("--answer-endpoint and --answer-model go together: give both or neither.")
    import os

    from dpsynrag.models.endpoint import OpenAIChatModel

    return OpenAIChatModel(endpoint, model, api_key=os.environ.get("DPSYNRAG_ANSWER_API_KEY"))


def _query_dp_rag(corpus_dir, question, *, documents, epsilon_per_query, delta, total_epsilon, composition, utility,
                  top_p, top_k, retrieval_epsilon, T, public_weight, task, model, embedder, text_field, id_field,
                  max_document_tokens, seed, as_json, ledger, lifetime_epsilon) -> None:
    """`dpsynrag query --method dp-rag`: one DP-RAG session answering one question."""
    import json

    from pydantic import ValidationError

    from dpsynrag.baselines import DPRAGConfig, DPRAGSession

    try:
        if corpus_dir is not None:
            raise ConfigError("--method dp-rag reads the private --documents, not a corpus folder: give only the question.")
        if question is None or documents is None or epsilon_per_query is None or delta is None:
            raise ConfigError("--method dp-rag needs a QUESTION, --documents, --epsilon-per-query and --delta.")
        check_int("--seed", seed, minimum=0, optional=True)
        if not question.strip():
            raise ConfigError("the question is empty: ask something.")
        config = DPRAGConfig(
            epsilon_per_query=epsilon_per_query, delta=delta, utility=utility, top_p=top_p, max_new_tokens=T,
            public_weight=public_weight, retrieval_epsilon=retrieval_epsilon, max_document_tokens=max_document_tokens,
            model=model, embedder=embedder, **({} if top_k is None else {"top_k": top_k}),
        )
        config.calibrate()
        docs = documents
        if documents.is_dir():
            if not task:
                raise ConfigError("--documents is a folder: pass --task to say how to read it, or give a file.")
            from dpsynrag.tasks import get_task

            docs = get_task(task).load_database(documents)
        else:
            from dpsynrag.data.io import load_documents

            docs = load_documents(documents, text_field=text_field, id_field=id_field)
        if seed is not None:
            err_console.print("[yellow]warning:[/] --seed makes the output reproducible: it is NOT for release.")
        privacy_ledger = open_ledger(ledger, lifetime_epsilon)
        session = DPRAGSession(docs, config, task=task, total_epsilon=total_epsilon, composition=composition, seed=seed,
                               ledger=privacy_ledger)
        answer = session.answer([question])[0]
    except ValidationError as exc:
        _fail(exc, {"max_new_tokens": "--T"})
        return
    except (DpsynragError, FileExistsError) as exc:
        _fail(exc)
        return
    spent = session.spent()
    lifetime = privacy_ledger.totals(session.ledger_dataset)
    if as_json:
        typer.echo(json.dumps({"question": question, "answer": answer.text, "spent": spent,
                               "privacy": session.report().to_dict(), "ledger": lifetime}, indent=2))
        return
    typer.echo(answer.text)
    console.print(session.report().table())
    console.print(
        f"DP-RAG session: {spent['queries']} query; basic composition epsilon={spent['epsilon_basic']:.4g}, "
        f"delta={spent['delta_basic']:.3g}; zCDP rho={spent['rho']:.4g}, epsilon={spent['epsilon_zcdp']:.4f} "
        f"(tight {spent['epsilon_zcdp_tight']:.4f}) at delta={spent['delta']:g}."
    )
    console.print(summary_line(privacy_ledger, session.ledger_dataset))


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
    _warn_content(corpus)
    if m.get("not_for_release"):
        console.print("[bold yellow]built with a seed: reproducible, NOT for release.[/]")


@app.command()
def demo(
    preset: str = typer.Option("cpu", help="cpu (2 cores, offline SmolLM2, ~18 min) | paper (GPU, stronger --model)."),
    data_dir: Optional[Path] = typer.Option(None, help="Medical Synth folder (default: ../shared/data/medical_synth, or a verified download)."),
    out: Path = typer.Option(Path("runs/demo"), "--out", help="Where the corpus and results.json go."),
    model: Optional[str] = typer.Option(None, "--model", help="Language model: hub id, folder or GGUF file."),
    embedder: Optional[str] = typer.Option(None, "--embedder", help="Embedding model id or folder."),
    documents: Optional[int] = typer.Option(None, help="Override the number of database documents."),
    questions: Optional[int] = typer.Option(None, help="Override the number of validation questions."),
    seed: Optional[int] = typer.Option(None, "--seed", help="Reproducible run (not for release)."),
    decoding: Optional[str] = typer.Option(None, "--decoding", help="Override the preset's decoding: paper | public-prior | invisibleink."),
) -> None:
    """The main job: a DP synthetic corpus of Medical Synth at epsilon=10, compared with Non-RAG and RAG."""
    from dpsynrag.demo import run_demo

    try:
        run_demo(
            preset=preset, data_dir=data_dir, out_dir=out, model=model, embedder=embedder, documents=documents,
            questions=questions, seed=seed, decoding=decoding, console=console,
        )
    except DpsynragError as exc:
        _fail(exc)


from dpsynrag.eval.command import eval_command  # noqa: E402  (evaluation harness, issue #6)

app.command("eval")(eval_command)

from dpsynrag.audit import audit_command  # noqa: E402  (empirical privacy audit, issue #12)

app.command("audit")(audit_command)
app.add_typer(ledger_app, name="ledger")  # `dpsynrag ledger show | set-budget` (issue 15)

from dpsynrag.export import export_command  # noqa: E402  (export, issue #14)
from dpsynrag.serve import serve_command  # noqa: E402  (HTTP query service, issue #14)

app.command("serve")(serve_command)
app.command("export")(export_command)


if __name__ == "__main__":  # pragma: no cover
    app()
