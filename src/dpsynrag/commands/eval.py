"""The ``dpsynrag eval`` command (registered in :mod:`dpsynrag.cli`)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Optional

import typer
from rich.console import Console

from dpsynrag.checks import FLAGS, error_message
from dpsynrag.errors import ConfigError, DpsynragError
from dpsynrag.rag.answer import ANSWER_MODES, DEFAULT_ANSWER_TOKENS

__all__ = ["eval_command"]

# The flag of each field that `dpsynrag eval` sets (EvalConfig, its preset, and the methods' configs): the
# others come from the preset, which has no flag, and keep their field names in messages.
_EVAL_FLAGS = {
    **{name: FLAGS[name] for name in ("epsilon", "delta", "seed", "model", "embedder", "task", "top_k")},
    **{name: f"--{name}" for name in ("preset", "experiment", "methods", "database", "queries", "documents",
                                      "subset", "attacks")},
    "allow": "--pii-allow", "allow_file": "--pii-allow-file",
    "text_field": "--text-field", "id_field": "--id-field", "identifier_fields": "--identifier-field",
    "epsilons": "--epsilon", "epsilon_per_query": "--epsilon", "questions": "--limit", "answer_tokens": "--answer-tokens",
    "answer_mode": "--answer-mode", "corpus": "--corpus",
    "mq_m": "--m", "mq_epsilon_totals": "--epsilon-total",
}


def _floats(text: Optional[str], name: str) -> Optional[list[float]]:
    if text is None:
        return None
    try:
        values = [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise typer.BadParameter(f"{name} must be comma-separated numbers, found {text!r}.") from None
    if not values:
        raise typer.BadParameter(f"{name} is empty.")
    return values


def _ints(text: Optional[str], name: str) -> Optional[list[int]]:
    if text is None:
        return None
    try:
        return [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise typer.BadParameter(f"{name} must be comma-separated integers, found {text!r}.") from None


def _settings(items: Optional[list[str]]) -> dict[str, Any]:
    """``--synrag KEY=VALUE`` items: VALUE read as JSON when it is JSON (numbers, true, lists), else as text."""
    out: dict[str, Any] = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep or not key.strip().isidentifier():
            raise ConfigError(f"--synrag takes FIELD=VALUE (e.g. synthesis=phrases), found {item!r}.")
        try:
            out[key.strip()] = json.loads(value)
        except json.JSONDecodeError:
            out[key.strip()] = value
    return out


def _corpus_fields(synrag: dict[str, Any], redaction: dict[str, Any], privacy_unit_field: Optional[str]) -> dict[str, Any]:
    """The preset overrides of the corpus methods: ``redaction`` (every corpus method; the fields
    :func:`~dpsynrag.commands.redact.redaction_fields` gives, None: not typed), ``--privacy-unit-field`` and
    ``--synrag`` (DP-SynRAG)."""
    redaction = {k: v for k, v in redaction.items() if v is not None}
    synrag = {**redaction, **({"privacy_unit_field": privacy_unit_field} if privacy_unit_field else {}), **synrag}
    return {"synrag": synrag or None, "dp_synth": redaction or None, "aug_pe": redaction or None}


def eval_command(
    task: str = typer.Option("medical", "--task", help="Task: medical | movielens | searchqa | own (your --database FILE and --queries FILE) | package.module:Class."),
    database: Optional[Path] = typer.Option(None, "--database", help="The task's data folder or a database file (default: the task's folder under shared/)."),
    queries: Optional[Path] = typer.Option(None, "--queries", help="Query file in the task's format (default: the task's validation split; needed with a --database file). --task own: JSON lines with 'question' and 'answers' (the accepted answers), or CSV with answers separated by |."),
    text_field: str = typer.Option("text", "--text-field", help="--task own: the field holding each document's text."),
    id_field: Optional[str] = typer.Option(None, "--id-field", help="--task own: the field holding each document's id (default: the row number)."),
    identifier_field: Optional[list[str]] = typer.Option(None, "--identifier-field", metavar="NAME", help="--task own: a field of direct identifiers (repeat for several): redacted by every corpus build, looked for in answers and corpora in any format."),
    redact_pii: bool = typer.Option(False, "--redact-pii", help="Every corpus build replaces the personal identifiers found in each document's text first (as build --redact-pii)."),
    pii_entities: Optional[str] = typer.Option(None, "--pii-entities", metavar="A,B", help="Entity types --redact-pii replaces, comma-separated (as build --pii-entities)."),
    pii_allow: Optional[list[str]] = typer.Option(None, "--pii-allow", metavar="TEXT", help="A public string (your support number, your company's name; repeat for several): the leakage check never counts it, and --redact-pii keeps it."),
    pii_allow_file: Optional[Path] = typer.Option(None, "--pii-allow-file", metavar="FILE", help="A UTF-8 file of public strings as --pii-allow, one a line."),
    pii_model: Optional[str] = typer.Option(None, "--pii-model", metavar="NAME_OR_PATH", help="A spaCy pipeline --redact-pii uses (as build --pii-model)."),
    identifier_placeholder: Optional[str] = typer.Option(None, "--identifier-placeholder", help="Public text replacing a redacted identifier (default [REDACTED]; needs --identifier-field or --redact-pii)."),
    synrag: Optional[list[str]] = typer.Option(None, "--synrag", metavar="FIELD=VALUE", help="A DP-SynRAG build field over the preset's (BuildConfig; repeat), e.g. --synrag synthesis=phrases."),
    privacy_unit_field: Optional[str] = typer.Option(None, "--privacy-unit-field", help="DP-SynRAG per person: the --database file's field holding each document's person key (the other methods stay per document)."),
    methods: Optional[str] = typer.Option(
        None, "--methods",
        help="Comma-separated: non-rag, rag, dp-rag, murag, murag-ada, dp-vote-rag, dp-sparse-vote-rag, dp-ksa, "
             "dp-synth, aug-pe, dp-synrag, dp-synrag-l1, dp-synrag-no-outlier-removal, dp-synrag-no-self-filter; "
             "aliases ablations, baselines, rivals (the query-time rivals of DP-RAG; epsilon: per session), all "
             "(default: the preset's: all).",
    ),
    epsilon: Optional[str] = typer.Option(None, "--epsilon", help="Epsilon(s) of the DP methods, comma-separated (DP-RAG: per query). Default: the preset's (10)."),
    delta: Optional[float] = typer.Option(None, "--delta", help="Delta of every DP method (default 1e-3)."),
    out: Path = typer.Option(..., "--out", help="Output folder: results.json, results.md, PNG plots, cache/ (rerun to resume)."),
    preset: Optional[str] = typer.Option(None, "--preset", help="cpu (2 cores, offline SmolLM2, < 1 h) | demo (the main job: non-rag, rag, dp-synrag; secure randomness) | paper (paper sizes, GPU) | searchqa-cpu | searchqa-paper (R = 1000) | own-cpu (cpu for your own records: K = 5, 256-token documents, no outlier removal, phrase synthesis). Default: searchqa-cpu for --task searchqa, own-cpu for --task own, else cpu."),
    experiment: str = typer.Option("main", "--experiment", help="main (accuracy, buckets, leakage) | multi-query (accuracy vs number of queries) | audit (empirical privacy audit of DP-SynRAG)."),
    limit: Optional[int] = typer.Option(None, "--limit", help="Evaluation questions: the first N of the query file (0: all)."),
    documents: Optional[int] = typer.Option(None, "--documents", help="Database documents used (seeded random subset in the cpu preset; 0: all)."),
    subset: Optional[str] = typer.Option(None, "--subset", help="Which documents: random (seeded) | first."),
    attacks: Optional[int] = typer.Option(None, "--attacks", help="Attack prompts per kind (targeted, repeat-the-context; 0: all)."),
    model: Optional[str] = typer.Option(None, "--model", help="Language model: hub id, folder or GGUF (default: offline SmolLM2-135M-Instruct)."),
    embedder: Optional[str] = typer.Option(None, "--embedder", help="Embedding model id or folder (default: offline all-MiniLM-L6-v2)."),
    seed: Optional[int] = typer.Option(None, "--seed", help="Seed of the mechanisms (default: the preset's, 0). Seeded outputs are not for release."),
    top_k: Optional[int] = typer.Option(None, "--top-k", help="Retrieval depth of RAG and of RAG over synthetic corpora."),
    answer_tokens: Optional[int] = typer.Option(None, "--answer-tokens", help=f"Greedy answer length in tokens (default: the preset's: {DEFAULT_ANSWER_TOKENS}, the default of `dpsynrag query --max-tokens` too, so that their answers compare; paper and searchqa-paper: 64)."),
    answer_mode: Optional[str] = typer.Option(None, "--answer-mode", metavar="|".join(ANSWER_MODES), help="How RAG and the synthetic corpora answer: generate (the model, greedy) or extractive (the sentence of the retrieved texts most similar to the question, by the embedder's cosine; no generation). Non-RAG and DP-RAG always generate. Default: the preset's (own-cpu: the corpora extractive, RAG generate; the others: generate)."),
    corpus: Optional[Path] = typer.Option(None, "--corpus", metavar="DIR", help="Score this corpus folder (made by `dpsynrag build`) as it is instead of building one: the row of its manifest's method (e.g. dp-synrag, added to --methods) is its answers at its own epsilon; the other --methods run as usual on --database. Its embedder must be this run's (--embedder); main experiment only."),
    m: Optional[str] = typer.Option(None, "--m", help="Multi-query: numbers of queries, comma-separated."),
    epsilon_total: Optional[str] = typer.Option(None, "--epsilon-total", help="Multi-query: total budgets, comma-separated."),
    no_plots: bool = typer.Option(False, "--no-plots", help="Skip the PNG plots."),
    answer_endpoint: Optional[str] = typer.Option(None, "--answer-endpoint", help="OpenAI-compatible API root (e.g. http://127.0.0.1:8080/v1) answering the synthetic-corpus methods and Non-RAG; key from $DPSYNRAG_ANSWER_API_KEY. Refused with rag and dp-rag."),
    answer_model: Optional[str] = typer.Option(None, "--answer-model", help="Model name the --answer-endpoint serves."),
) -> None:
    """Evaluate methods on one task, or on your own file and questions (--task own): accuracy, context recall,
    support buckets, leakage (names, identifier values, PII, copied n-grams) or the multi-query curve; tables
    and plots."""
    from pydantic import ValidationError

    from dpsynrag.eval.config import EvalConfig
    from dpsynrag.eval.experiments import run_eval
    from dpsynrag.commands.redact import redaction_fields
    from dpsynrag.eval.leakage import read_public_strings

    console = Console(width=None if sys.stdout.isatty() else 140)
    err = Console(stderr=True)
    try:
        public = list(pii_allow or []) + (read_public_strings(pii_allow_file) if pii_allow_file is not None else [])
        config = EvalConfig.create(
            task=task, out=out, methods=methods, preset=preset, experiment=experiment, database=database,
            queries=queries, model=model, embedder=embedder, answer_endpoint=answer_endpoint, answer_model=answer_model,
            epsilons=_floats(epsilon, "--epsilon"), delta=delta, questions=limit, documents=documents,
            subset=subset, attacks=attacks, seed=seed, top_k=top_k, answer_tokens=answer_tokens, answer_mode=answer_mode,
            corpus_answer_mode=answer_mode, corpus=corpus,
            mq_m=_ints(m, "--m"), mq_epsilon_totals=_floats(epsilon_total, "--epsilon-total"),
            text_field=text_field, id_field=id_field, identifier_fields=identifier_field or (), allow=public,
            **_corpus_fields(_settings(synrag), redaction_fields({
                "identifier_field": identifier_field, "redact_pii": redact_pii, "pii_entities": pii_entities,
                "pii_allow": public if redact_pii else None, "pii_allow_file": None, "pii_model": pii_model,
                "identifier_placeholder": identifier_placeholder}), privacy_unit_field),
        )
        run_eval(config, progress=True, log=console.print, plots=not no_plots)
    except (DpsynragError, FileExistsError, ImportError, ValidationError) as exc:
        err.print(f"[bold red]error:[/] {error_message(exc, base=_EVAL_FLAGS)}", soft_wrap=True)
        raise typer.Exit(code=2) from None
