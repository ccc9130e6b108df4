"""``dpsynrag query``: answer from a synthetic corpus (post-processing, free), or with DP-RAG over the
private documents (``--method dp-rag``: each query costs its ε). A corpus query answers one QUESTION, a
file of them (``--questions``) or questions typed one by one (``--interactive``) with its models loaded
once, or asks a running ``dpsynrag serve`` (``--server``; :mod:`dpsynrag.commands.questions`)."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Optional

import typer

from dpsynrag.checks import check_int, typed_flags
from dpsynrag.commands.common import console, fail, seed_warning, warn_content
from dpsynrag.commands.questions import LocalAsker, RemoteAsker, answer_file, answer_typed, print_answer, read_questions
from dpsynrag.errors import ConfigError, DpsynragError
from dpsynrag.commands.ledger import LEDGER_HELP, LIFETIME_HELP, open_ledger, summary_line
from dpsynrag.methods import methods
from dpsynrag.methods.rivals import RIVALS
from dpsynrag.rag.answer import ANSWER_MODES, DEFAULT_ANSWER_TOKENS


DP_RAG_PANEL = "DP-RAG (--method dp-rag: each query costs its epsilon)"
"""The ``--help`` panel of the options of ``--method dp-rag`` only: a corpus query refuses them when typed."""
RIVAL_NAMES = tuple(rival.name for rival in RIVALS)
"""``--method`` values of the query-time rivals of DP-RAG (:mod:`dpsynrag.methods.rivals`)."""
MANY_PANEL = "Many questions, or a running service (corpus queries)"
"""The ``--help`` panel of ``--questions``, ``--interactive``, ``--out`` and ``--server``."""
SERVER_KEY_ENV = "DPSYNRAG_API_KEY"
"""The environment variable holding the API key ``query --server`` sends (``dpsynrag serve --api-key-file``)."""


def query_command(
    ctx: typer.Context,
    corpus_dir: Optional[str] = typer.Argument(None, help="A corpus folder made by `dpsynrag build` (none with --method dp-rag; with --server: the served corpus's name, or none when it serves one)."),
    question: Optional[str] = typer.Argument(None, help="The question (none with --questions or --interactive; none on a terminal: --interactive)."),
    questions: Optional[str] = typer.Option(None, "--questions", metavar="FILE", help="Answer every question of FILE (- : stdin): one a line, or JSON lines with a `question` field; the models load once. Answers go out as JSON lines (question, answer, covered, contexts with ids and scores) to stdout or --out.", rich_help_panel=MANY_PANEL),
    interactive: bool = typer.Option(False, "--interactive", "-i", help="Load the models once, then answer each question typed, one a line, until an empty line or Ctrl-D (the default with no QUESTION on a terminal).", rich_help_panel=MANY_PANEL),
    out: Optional[Path] = typer.Option(None, "--out", help="Write the answers as JSON lines to this file (created or replaced) instead of stdout (--questions), or as well (--interactive).", rich_help_panel=MANY_PANEL),
    server: Optional[str] = typer.Option(None, "--server", metavar="URL", help=f"Ask a running `dpsynrag serve` at URL (e.g. http://127.0.0.1:8000) instead of loading anything: its corpus, models and answer length default; API key from ${SERVER_KEY_ENV}.", rich_help_panel=MANY_PANEL),
    top_k: Optional[int] = typer.Option(None, "--top-k", help="Synthetic texts retrieved (default: the task's, else 10); dp-rag: the top-k target."),
    show_context: bool = typer.Option(False, "--show-context", help="Print the retrieved synthetic texts, each labelled with its similarity (and whether it was under --min-similarity), then the answer labelled."),
    min_similarity: Optional[float] = typer.Option(None, "--min-similarity", help="A public similarity floor (cosine, in [-1, 1]): retrieved texts below it are not given to the model, and a question no text reaches is answered 'The corpus does not cover this question.' (default: none)."),
    repeat_copies: bool = typer.Option(False, "--repeat-copies", help="Retrieve a text once per index copy (--index-copy-size), as the evaluation harness does; default: --top-k distinct texts."),
    max_tokens: Optional[int] = typer.Option(None, "--max-tokens", help=f"Answer length in tokens (default {DEFAULT_ANSWER_TOKENS}: the answer length of `dpsynrag eval`'s presets cpu, demo, own-cpu and searchqa-cpu, so that their scores compare; the paper presets answer with 64; --server: the service's; dp-rag: --T)."),
    answer_mode: Optional[str] = typer.Option(None, "--answer-mode", metavar="|".join(ANSWER_MODES), help="generate: the model answers from the retrieved texts; extractive: the answer is the sentence of the retrieved texts most similar to the question (the embedder's cosine; ties: the earlier text), no model loaded. Default: the corpus's: extractive for an own-data corpus (a phrase release over the collection, --preset own-cpu), else generate."),
    method: str = typer.Option("corpus", "--method", help="corpus (RAG over a synthetic corpus: free) | dp-rag (query-time DP over --documents: costs budget) | a query-time rival: murag, murag-ada, dp-vote-rag, dp-sparse-vote-rag, dp-ksa (one session over --documents answering QUESTION or --questions, the session's epsilon --total-epsilon)."),
    documents: Optional[Path] = typer.Option(None, "--documents", help="dp-rag: the private collection (file, or a task's data folder with --task).", rich_help_panel=DP_RAG_PANEL),
    epsilon_per_query: Optional[float] = typer.Option(None, "--epsilon-per-query", help="dp-rag: epsilon of each query.", rich_help_panel=DP_RAG_PANEL),
    delta: Optional[float] = typer.Option(None, "--delta", help="dp-rag: delta of each query (and of the zCDP session total).", rich_help_panel=DP_RAG_PANEL),
    total_epsilon: Optional[float] = typer.Option(None, "--total-epsilon", help="dp-rag: refuse the query if it alone exceeds this total (one call is one session; across calls use --lifetime-epsilon or `dpsynrag ledger set-budget`); rivals: the whole session's epsilon.", rich_help_panel=DP_RAG_PANEL),
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
    --questions FILE and --interactive answer many questions with the models loaded once; --server URL
    asks a running `dpsynrag serve` and loads nothing.

    A corpus that keeps no synthetic text has no context to give: the command says so and exits with
    code 2 instead of answering from the model alone; one that keeps few texts answers, with a warning
    on stderr."""
    if method in RIVAL_NAMES:
        not_here = typed_flags(ctx, {"show_context", "max_tokens", "answer_mode", "repeat_copies", "min_similarity",
                                     "interactive", "server", "answer_endpoint", "answer_model", "epsilon_per_query", "composition",
                                     "utility", "top_p", "retrieval_epsilon", "public_weight"})
        if not_here:
            fail(ConfigError(f"{_flags_verb(not_here, 'does', 'do')} not apply to --method {method} (its answer length is "
                             "--T; its context is private; its budget is the session's --total-epsilon)."))
        if question is None and corpus_dir is not None:
            corpus_dir, question = None, corpus_dir  # the only positional argument is the question
        if corpus_dir is not None:
            fail(ConfigError(f"--method {method} reads the private --documents, not a corpus folder."))
        from dpsynrag.commands.query_time import query_rival

        query_rival(method, question, questions=questions, out=out, documents=documents, total_epsilon=total_epsilon,
                    delta=delta, T=T if typed_flags(ctx, {"T"}) else None, top_k=top_k, task=task, model=model,
                    embedder=embedder, text_field=text_field, id_field=id_field,
                    max_document_tokens=max_document_tokens, seed=seed, as_json=as_json, ledger=ledger,
                    lifetime_epsilon=lifetime_epsilon)
        return
    if method == "dp-rag":
        if answer_endpoint is not None or answer_model is not None:
            fail(ConfigError("--answer-endpoint and --answer-model do not apply to --method dp-rag: its private "
                              "prediction needs the model's next-token logits."))
        not_here = typed_flags(ctx, {"show_context", "max_tokens", "answer_mode", "repeat_copies", "min_similarity",
                                     "questions", "interactive", "out", "server"})
        if not_here:
            fail(ConfigError(f"{_flags_verb(not_here, 'does', 'do')} not apply to --method dp-rag (its answer length is "
                             "--T; its context is private; each of its questions costs epsilon: one a call)."))
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
            raise ConfigError(f"`--method` must be corpus (or the corpus's method: {', '.join(corpus_methods)}), dp-rag or "
                              f"a query-time rival ({', '.join(RIVAL_NAMES)}). "
                              f"Found {method!r}.")
        extra = typed_flags(ctx, {p.name for p in ctx.command.params if getattr(p, "rich_help_panel", None) == DP_RAG_PANEL})
        if extra:
            raise ConfigError(f"{_flags_verb(extra, 'applies', 'apply')} only to --method dp-rag.")
        if model is not None and answer_endpoint is not None:
            raise ConfigError("--model and --answer-endpoint both choose the answering model: give one.")
        check_int("--max-tokens", max_tokens, optional=True)
        if answer_mode is not None and answer_mode not in ANSWER_MODES:
            raise ConfigError(f"--answer-mode must be one of {', '.join(ANSWER_MODES)}. Found {answer_mode!r}.")
        if server is not None and answer_mode is not None:
            raise ConfigError("--answer-mode does not apply to --server: the service answers with its model (generate).")
        if questions is not None and interactive:
            raise ConfigError("--questions and --interactive both say where the questions come from: give one.")
        if server is not None:
            corpus_dir, question = _served(ctx, corpus_dir, question, many=questions is not None or interactive)
        if questions is None and not interactive and question is None and (corpus_dir or server) and _terminal():
            interactive = True  # no QUESTION on a terminal: ask for them
        if questions is not None or interactive:
            if question is not None:
                raise ConfigError(f"give a QUESTION or {'--questions' if questions is not None else '--interactive'}, "
                                  "not both.")
            if questions is not None and out is not None and questions != "-" and Path(questions).resolve() == out.resolve():
                raise ConfigError("--out is the --questions file: write the answers to another file.")
        elif out is not None:
            raise ConfigError("--out applies to --questions and --interactive: a single answer goes to stdout.")
        if (corpus_dir is None and server is None) or (question is None and questions is None and not interactive):
            raise ConfigError("give a corpus folder and a question: dpsynrag query CORPUS_DIR QUESTION (or --questions "
                              "FILE, or --interactive).")
        if question is not None and not question.strip():
            raise ConfigError("the question is empty: ask something.")
        asked = read_questions(questions) if questions is not None else None
        t_load = time.perf_counter()
        if server is not None:
            import os

            asker = RemoteAsker(server, corpus_dir, api_key=os.environ.get(SERVER_KEY_ENV), top_k=top_k,
                                max_tokens=max_tokens, repeat_copies=repeat_copies, min_similarity=min_similarity)
        else:
            asker = _local_asker(corpus_dir, method, model=model, embedder=embedder, answer_endpoint=answer_endpoint,
                                 answer_model=answer_model, top_k=top_k, max_tokens=max_tokens,
                                 repeat_copies=repeat_copies, min_similarity=min_similarity,
                                 contexts=show_context or as_json or question is None, answer_mode=answer_mode,
                                 generating=typed_flags(ctx, {"model", "answer_endpoint", "answer_model", "max_tokens"}))
        ready_s = time.perf_counter() - t_load
        if asked is not None:
            answer_file(asker, asked, out, ready_s=ready_s)
        elif interactive:
            answer_typed(asker, out, show_context=show_context, as_json=as_json, ready_s=ready_s)
        else:
            print_answer(asker.ask([question])[0], show_context=show_context, as_json=as_json, indent=2)
    except DpsynragError as exc:
        fail(exc)


def _terminal() -> bool:
    """Whether questions can be typed here (stdin is a terminal)."""
    return sys.stdin.isatty()


def _served(ctx: typer.Context, corpus_dir: Optional[str], question: Optional[str], *,
            many: bool) -> tuple[Optional[str], Optional[str]]:
    """``(corpus name, question)`` of ``query --server``: CORPUS is a served corpus's name (a corpus folder
    stands for its name), optional when the service serves one; a single positional argument is the
    question, unless the questions come from --questions or --interactive (then it is CORPUS).

    Raises:
        ConfigError: an option that chooses what the service holds (--model, --embedder, --answer-endpoint,
            --answer-model).
    """
    typed = typed_flags(ctx, {"model", "embedder", "answer_endpoint", "answer_model"})
    if typed:
        raise ConfigError(f"{_flags_verb(typed, 'does', 'do')} not apply to --server: the service answers with the "
                          "models it loaded (see its GET /v1/corpora).")
    if question is None and not many:
        corpus_dir, question = None, corpus_dir  # the only positional argument is the question
    if corpus_dir is not None and Path(corpus_dir, "manifest.json").is_file():
        corpus_dir = Path(corpus_dir).resolve().name  # served under its folder name
    return corpus_dir, question


def _local_asker(corpus_dir: str, method: str, *, model, embedder, answer_endpoint, answer_model, top_k, max_tokens,
                 repeat_copies, min_similarity, contexts: bool, answer_mode: Optional[str] = None,
                 generating: list[str] = ()) -> LocalAsker:
    """The corpus folder and its models, loaded once: the --embedder (checked against the index) or the
    corpus's, then (generated answers) the --answer-endpoint, the --model or the corpus's language model;
    extractive answers (--answer-mode, else the corpus's default) load no language model.

    Raises:
        CorpusError: not a corpus, another method's, or a corpus keeping no text (said before any model
            loads; a corpus keeping few texts answers, with a warning on stderr). ConfigError: bad options,
            among them an option of generation (``generating``: the typed ones) with extractive answers.
    """
    from dpsynrag.corpus import SyntheticCorpus

    corpus = SyntheticCorpus.load(Path(corpus_dir))
    if method != "corpus" and corpus.manifest.get("method") != method:
        raise ConfigError(f"{corpus_dir} is a {corpus.manifest.get('method')} corpus, not {method}.")
    mode = answer_mode or corpus.default_answer_mode
    if mode == "extractive" and generating:
        why = "--answer-mode extractive" if answer_mode else "this corpus answers extractively by default (an own-data corpus)"
        raise ConfigError(f"{_flags_verb(list(generating), 'chooses', 'choose')} how the model generates, but {why}: "
                          "the answer is the best-matching sentence of the retrieved texts and no model is asked. Add "
                          "--answer-mode generate to answer with a model.")
    if not corpus.texts:  # refused by LocalAsker before any model loads
        return LocalAsker(corpus, lm=None, embedder=None, top_k=top_k, max_tokens=max_tokens,
                          repeat_copies=repeat_copies, min_similarity=min_similarity, contexts=False, name=corpus_dir)
    warn_content(corpus)
    from dpsynrag.models import Embedder, LanguageModel

    emb = _query_embedder(embedder, corpus) or Embedder.load(corpus.manifest["embedder"]["spec"])  # before the LM
    lm = None
    if mode == "generate":
        lm = _answer_lm(answer_endpoint, answer_model) or LanguageModel.load(model or corpus.manifest["model"]["spec"])
    return LocalAsker(corpus, lm=lm, embedder=emb, top_k=top_k, max_tokens=max_tokens, repeat_copies=repeat_copies,
                      min_similarity=min_similarity, contexts=contexts, name=corpus_dir, answer_mode=mode)


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
        from dpsynrag.privacy.sources import Source

        reading = {"task": task} if documents.is_dir() else {"text_field": text_field, "id_field": id_field,
                                                             "unit_field": None}
        privacy_ledger = open_ledger(ledger, lifetime_epsilon, source=Source(documents, reading))  # owner-only
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
