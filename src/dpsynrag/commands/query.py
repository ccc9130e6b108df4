"""``dpsynrag query``: answer from a synthetic corpus (post-processing, free), or with DP-RAG over the
private documents (``--method dp-rag``: each query costs its ε)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from dpsynrag.checks import check_int, typed_flags
from dpsynrag.commands.common import console, fail, seed_warning, warn_content
from dpsynrag.errors import ConfigError, DpsynragError
from dpsynrag.commands.ledger import LEDGER_HELP, LIFETIME_HELP, open_ledger, summary_line
from dpsynrag.methods import methods


DP_RAG_PANEL = "DP-RAG (--method dp-rag: each query costs its epsilon)"
"""The ``--help`` panel of the options of ``--method dp-rag`` only: a corpus query refuses them when typed."""


def query_command(
    ctx: typer.Context,
    corpus_dir: Optional[str] = typer.Argument(None, help="A corpus folder made by `dpsynrag build` (none with --method dp-rag)."),
    question: Optional[str] = typer.Argument(None, help="The question."),
    top_k: Optional[int] = typer.Option(None, "--top-k", help="Synthetic texts retrieved (default: the task's, else 10); dp-rag: the top-k target."),
    show_context: bool = typer.Option(False, "--show-context", help="Print the retrieved synthetic texts, each labelled with its similarity (and whether it was under --min-similarity), then the answer labelled."),
    min_similarity: Optional[float] = typer.Option(None, "--min-similarity", help="A public similarity floor (cosine, in [-1, 1]): retrieved texts below it are not given to the model, and a question no text reaches is answered 'The corpus does not cover this question.' (default: none)."),
    repeat_copies: bool = typer.Option(False, "--repeat-copies", help="Retrieve a text once per index copy (--index-copy-size), as the evaluation harness does; default: --top-k distinct texts."),
    max_tokens: Optional[int] = typer.Option(None, "--max-tokens", help="Answer length in tokens (default 64; dp-rag: --T)."),
    method: str = typer.Option("corpus", "--method", help="corpus (RAG over a synthetic corpus: free) | dp-rag (query-time DP over --documents: costs budget)."),
    documents: Optional[Path] = typer.Option(None, "--documents", help="dp-rag: the private collection (file, or a task's data folder with --task).", rich_help_panel=DP_RAG_PANEL),
    epsilon_per_query: Optional[float] = typer.Option(None, "--epsilon-per-query", help="dp-rag: epsilon of each query.", rich_help_panel=DP_RAG_PANEL),
    delta: Optional[float] = typer.Option(None, "--delta", help="dp-rag: delta of each query (and of the zCDP session total).", rich_help_panel=DP_RAG_PANEL),
    total_epsilon: Optional[float] = typer.Option(None, "--total-epsilon", help="dp-rag: refuse the query if it alone exceeds this total (one call is one session; across calls use --lifetime-epsilon or `dpsynrag ledger set-budget`).", rich_help_panel=DP_RAG_PANEL),
    composition: str = typer.Option("basic", "--composition", help="dp-rag: composition checked against --total-epsilon: basic | zcdp.", rich_help_panel=DP_RAG_PANEL),
    utility: str = typer.Option("top-p", "--utility", help="dp-rag: retrieval threshold utility: top-p | top-k.", rich_help_panel=DP_RAG_PANEL),
    top_p: float = typer.Option(0.02, "--top-p", help="dp-rag: share of the score weight retrieved (top-p utility).", rich_help_panel=DP_RAG_PANEL),
    retrieval_epsilon: Optional[float] = typer.Option(None, "--retrieval-epsilon", help="dp-rag: epsilon of the retrieval threshold (default epsilon/11).", rich_help_panel=DP_RAG_PANEL),
    T: int = typer.Option(70, "--T", help="dp-rag: answer tokens.", rich_help_panel=DP_RAG_PANEL),
    public_weight: float = typer.Option(0.01, "--public-weight", help="dp-rag: weight of the public prompt (the question alone).", rich_help_panel=DP_RAG_PANEL),
    task: Optional[str] = typer.Option(None, "--task", help="dp-rag: public task (reads a task's data folder).", rich_help_panel=DP_RAG_PANEL),
    model: Optional[str] = typer.Option(None, "--model", help="Language model: hub id, folder or GGUF file (default: the corpus's; dp-rag: offline SmolLM2-135M-Instruct)."),
    embedder: Optional[str] = typer.Option(None, "--embedder", help="Embedding model id or folder (default: the corpus's, and of its dimension; dp-rag: offline all-MiniLM-L6-v2)."),
    text_field: str = typer.Option("text", help="dp-rag: field holding the document text.", rich_help_panel=DP_RAG_PANEL),
    id_field: Optional[str] = typer.Option(None, help="dp-rag: field holding a unique document id.", rich_help_panel=DP_RAG_PANEL),
    max_document_tokens: int = typer.Option(256, help="dp-rag: truncate each document to this many tokens.", rich_help_panel=DP_RAG_PANEL),
    seed: Optional[int] = typer.Option(None, "--seed", help="dp-rag: reproducible, NOT for release.", rich_help_panel=DP_RAG_PANEL),
    as_json: bool = typer.Option(False, "--json", help="Print JSON: the answer and its contexts (id, score, keyword, copies, text); dp-rag: the answer and the session's privacy report."),
    answer_endpoint: Optional[str] = typer.Option(None, "--answer-endpoint", help="Answer with an OpenAI-compatible API (e.g. http://127.0.0.1:8080/v1) instead of the corpus's model; key from $DPSYNRAG_ANSWER_API_KEY."),
    answer_model: Optional[str] = typer.Option(None, "--answer-model", help="The model name the --answer-endpoint serves."),
    ledger: Optional[Path] = typer.Option(None, "--ledger", help="dp-rag: " + LEDGER_HELP, rich_help_panel=DP_RAG_PANEL),
    lifetime_epsilon: Optional[float] = typer.Option(None, "--lifetime-epsilon", help="dp-rag: " + LIFETIME_HELP, rich_help_panel=DP_RAG_PANEL),
) -> None:
    """Answer a question from a synthetic corpus (post-processing: costs no privacy budget), or with
    DP-RAG over the private documents (--method dp-rag: each query costs --epsilon-per-query).

    A corpus that keeps no synthetic text has no context to give: the command says so and exits with
    code 2 instead of answering from the model alone; one that keeps few texts answers, with a warning
    on stderr."""
    from dpsynrag.corpus import SyntheticCorpus

    if method == "dp-rag":
        if answer_endpoint is not None or answer_model is not None:
            fail(ConfigError("--answer-endpoint and --answer-model do not apply to --method dp-rag: its private "
                              "prediction needs the model's next-token logits."))
        not_here = typed_flags(ctx, {"show_context", "max_tokens", "repeat_copies", "min_similarity"})
        if not_here:
            fail(ConfigError(f"{_flags_verb(not_here, 'does', 'do')} not apply to --method dp-rag (its answer length is "
                             "--T; its context is private)."))
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
        corpus_methods = [m.name for m in methods("corpus") if not m.ablation]
        if method not in ("corpus", *corpus_methods):
            raise ConfigError(f"`--method` must be corpus (or the corpus's method: {', '.join(corpus_methods)}) or dp-rag. "
                              f"Found {method!r}.")
        extra = typed_flags(ctx, {p.name for p in ctx.command.params if getattr(p, "rich_help_panel", None) == DP_RAG_PANEL})
        if extra:
            raise ConfigError(f"{_flags_verb(extra, 'applies', 'apply')} only to --method dp-rag.")
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
            warn_content(corpus)  # few texts: answered, with a warning; none: answer_many refuses (exit 2)
        emb = _query_embedder(embedder, corpus) if corpus.texts else None  # before the LM: a bad one fails first
        if emb is None and corpus.texts:
            from dpsynrag.models import Embedder

            emb = Embedder.load(corpus.manifest["embedder"]["spec"])  # the corpus's, shared with the context listing
        lm = _answer_lm(answer_endpoint, answer_model)
        if model is not None and corpus.texts:
            from dpsynrag.models import LanguageModel

            lm = LanguageModel.load(model)
        answer = corpus.answer_many([question], top_k=top_k, lm=lm, embedder=emb, max_new_tokens=max_tokens,
                                    repeat_copies=repeat_copies, min_similarity=min_similarity)[0]
        hits = []
        if show_context or as_json:
            from dpsynrag.corpus.retrieval import CorpusRetriever

            # the same search of the same view with the same embedder: the answer's context, with ids and scores,
            # and the retrieved texts under the floor (not given to the model)
            retriever = CorpusRetriever(corpus, emb)
            hits = retriever.search([question], top_k or retriever.resolve_top_k(None), repeat_copies=repeat_copies)[0]
            hits = hits if min_similarity is not None else hits[:len(answer.context)]
    except DpsynragError as exc:
        fail(exc)
        return
    if as_json:
        import json

        typer.echo(json.dumps({"question": question, "answer": answer.text, "covered": answer.covered,
                               "min_similarity": min_similarity, "corpus": str(corpus_dir),
                               "contexts": [{**h.to_dict(), "given": _given(h, min_similarity)} for h in hits]}, indent=2))
        return
    if show_context:
        for i, h in enumerate(hits, start=1):
            under = "" if _given(h, min_similarity) else f", under the floor {min_similarity:g}: not given to the model"
            console.print(f"context [{i}] (similarity {h.score:.3f}{under}): {h.text}", style="dim", markup=False,
                          highlight=False)
        if not hits:
            console.print("no context retrieved.", style="dim")
        typer.echo(f"answer: {answer.text}")
        return
    typer.echo(answer.text)


def _given(hit, floor: Optional[float]) -> bool:
    """Whether a retrieved text was given to the model (at or above the similarity floor, or no floor)."""
    return floor is None or hit.score >= floor


def _flags_verb(flags: list[str], singular: str, plural: str) -> str:
    """``"--a applies"`` / ``"--a, --b apply"``: the typed flags and the verb agreeing with their number."""
    return f"{', '.join(flags)} {singular if len(flags) == 1 else plural}"




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
        seed_warning(seed)
        privacy_ledger = open_ledger(ledger, lifetime_epsilon)
        session = DPRAGSession(docs, config, task=task, total_epsilon=total_epsilon, composition=composition, seed=seed,
                               ledger=privacy_ledger)
        answer = session.answer([question])[0]
    except ValidationError as exc:
        fail(exc, {"max_new_tokens": "--T"})
        return
    except (DpsynragError, FileExistsError) as exc:
        fail(exc)
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
