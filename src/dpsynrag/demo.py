"""The main job: DP-SynRAG on Medical Synth, next to Non-RAG and RAG on the private documents.

``dpsynrag demo`` builds a DP synthetic corpus at ε = 10, δ = 1e-3 from a documented subset of the
Medical Synth database, answers validation questions three ways (Non-RAG; RAG over the private
documents, no DP; RAG over the synthetic corpus), and prints an accuracy table, the privacy report and
three synthetic texts. Presets:

* ``cpu`` (default): sized for 2 CPU cores and the offline SmolLM2-135M model (about 18 minutes):
  2,000 database documents drawn at random with the public seed 0 (the file is sorted by patient
  name, so its first rows share first names), the first 100 validation questions, the per-document
  rarity keyword extractor with K = 1 (each document votes for its most specific word, so the released
  keywords are distinct topics and a document joins one cluster: every cluster gets the whole
  per-cluster budget), the open-vocabulary histogram (δ term 1e-4), R = 48 clusters, L = 1, k = 40,
  ``public-prior`` decoding with ω = 0.25 (in benchmarks/results/bench_utility.md it named more diseases and
  gave a higher context recall than ``paper`` and ω = 1, which suppresses invented names), T = 64 tokens, documents truncated to 96 tokens, top-5 retrieval,
  the fluency filter at −8 nats/token (drops the token soup of clusters too small to outvote sampling
  noise: about −12, against −3 to −6 for the other texts; post-processing), and **no
  self-filter**: SmolLM2-135M's YES/NO judgements on these texts are worse than chance (in a
  measured run it kept 7 of 24 texts, mostly the garbled ones, and dropped most of the well-formed
  records), so the filter is left to the ``paper`` preset and stronger models.
* ``paper``: the paper's parameters (all 8,000 documents, 1,000 questions, LLM keyword extraction, K = 10,
  public vocabulary, R = 500, L = 5, k = 80, T = 70, top-10 retrieval) for a GPU and a stronger
  ``--model``.
"""

from __future__ import annotations

import json
import random
import time
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.table import Table

from dpsynrag.pipeline.build import build_corpus
from dpsynrag.pipeline.config import BuildConfig
from dpsynrag.rag import RAGAnswerer


@dataclass(frozen=True)
class DemoPreset:
    """Sizes and build parameters of a demo run (all public)."""

    documents: int | None
    subset_seed: int
    questions: int
    extractor: str
    K: int
    open_vocabulary: bool
    R: int
    L: int
    k: int
    T: int
    max_document_tokens: int
    top_k: int
    answer_tokens: int
    self_filter: bool
    clustering: str = "paper"
    decoding: str = "paper"
    public_weight: float | None = None
    fluency_threshold: float | None = None


PRESETS = {
    "cpu": DemoPreset(
        documents=2000, subset_seed=0, questions=100, extractor="rarity", K=1, open_vocabulary=True, R=48, L=1,
        k=40, T=64, max_document_tokens=96, top_k=5, answer_tokens=24, self_filter=False, clustering="paper",
        decoding="public-prior", public_weight=0.25, fluency_threshold=-8.0,
    ),
    "paper": DemoPreset(
        documents=None, subset_seed=0, questions=1000, extractor="llm", K=10, open_vocabulary=False, R=500, L=5, k=80, T=70,
        max_document_tokens=256, top_k=10, answer_tokens=64, self_filter=True,
    ),
}


def run_demo(
    *,
    preset: str = "cpu",
    data_dir: str | Path | None = None,
    out_dir: str | Path = "runs/demo",
    model: str | None = None,
    embedder: str | None = None,
    documents: int | None = None,
    questions: int | None = None,
    epsilon: float = 10.0,
    delta: float = 1e-3,
    seed: int | None = None,
    decoding: str | None = None,
    console: Console | None = None,
) -> dict:
    """Run the demo; returns the results dictionary (also written to ``out_dir/results.json``).

    Raises:
        ConfigError: unknown preset, bad ``documents``/``questions`` (< 1) or build parameter (named by
            its flag, checked before any data or model is read). DataError: the Medical Synth folder is missing and cannot be
            downloaded (the message names the folder to provide).
    """
    from dpsynrag.errors import ConfigError
    from dpsynrag.models import Embedder, LanguageModel
    from dpsynrag.tasks import get_task

    from pydantic import ValidationError

    from dpsynrag.checks import check_int, error_message

    if preset not in PRESETS:
        raise ConfigError(f"--preset must be one of {sorted(PRESETS)}. Found {preset!r}.")
    p = PRESETS[preset]
    check_int("--documents", documents, optional=True)
    check_int("--questions", questions, optional=True)
    try:  # before any data or model is read
        config = BuildConfig(
            epsilon=epsilon, delta=delta, task="medical", model=model, embedder=embedder, K=p.K, R=p.R, L=p.L, k=p.k,
            T=p.T, extractor=p.extractor, open_vocabulary=p.open_vocabulary, max_document_tokens=p.max_document_tokens,
            self_filter=p.self_filter, clustering=p.clustering, fluency_threshold=p.fluency_threshold,
            decoding=decoding or p.decoding,
            public_weight=p.public_weight if (decoding or p.decoding) == p.decoding else None, seed=seed,
        )
    except ValidationError as exc:
        raise ConfigError(error_message(exc)) from None
    console = console or Console()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.time()

    task = get_task("medical")
    n_docs = documents if documents is not None else p.documents
    n_questions = questions if questions is not None else p.questions
    database = task.load_database(data_dir)
    if n_docs is not None and n_docs < len(database):
        keep = sorted(random.Random(p.subset_seed).sample(range(len(database)), n_docs))
        database = [database[i] for i in keep]
    queries = task.load_queries(
        None if data_dir is None else Path(task.data_dir(data_dir)) / "validation.jsonl", limit=n_questions
    )
    console.print(
        f"[bold]dpsynrag demo[/] ({preset} preset): {len(database)} private documents "
        f"(random subset, public seed {p.subset_seed}), {len(queries)} validation questions, epsilon={epsilon:g}, delta={delta:g}"
    )
    emb = Embedder.load(embedder)  # first: a bad embedder fails before the (larger) language model loads
    lm = LanguageModel.load(model)
    console.print(f"model: {lm.name}; embedder: {emb.name}")
    t = time.time()
    corpus = build_corpus(database, out / "corpus", config, lm=lm, embedder=emb, overwrite=True, progress=True)
    build_s = time.time() - t

    answerers = {
        "Non-RAG": RAGAnswerer(lm, emb, [], system_prompt=task.answer_system_prompt, max_new_tokens=p.answer_tokens),
        "RAG (private documents, no DP)": RAGAnswerer(
            lm, emb, [d.text for d in database], top_k=p.top_k, system_prompt=task.answer_system_prompt,
            max_new_tokens=p.answer_tokens,
        ),
        f"DP-SynRAG (epsilon={epsilon:g})": corpus.answerer(
            lm=lm, embedder=emb, top_k=p.top_k, system_prompt=task.answer_system_prompt, max_new_tokens=p.answer_tokens
        ),
    }
    questions_text = [q.question for q in queries]
    rows = []
    for name, answerer in answerers.items():
        t = time.time()
        answers = answerer.answer(questions_text, progress=True)
        ci = sum(task.is_correct(a.text, q) for a, q in zip(answers, queries))
        cs = sum(task.is_correct(a.text, q, case_sensitive=True) for a, q in zip(answers, queries))
        rows.append(
            {
                "method": name,
                "accuracy": ci / len(queries),
                "accuracy_case_sensitive": cs / len(queries),
                "seconds": time.time() - t,
                "examples": [{"question": q.question, "gold": q.answers[0], "answer": a.text} for a, q in list(zip(answers, queries))[:3]],
            }
        )

    table = Table(title=f"Medical Synth accuracy ({len(queries)} validation questions, {len(database)} documents)")
    for col in ("method", "accuracy", "accuracy (case-sensitive)", "seconds"):
        table.add_column(col, justify="left" if col == "method" else "right")
    for r in rows:
        table.add_row(r["method"], f"{100 * r['accuracy']:.1f}%", f"{100 * r['accuracy_case_sensitive']:.1f}%", f"{r['seconds']:.0f}")
    console.print(table)
    report = corpus.privacy_report
    console.print(report.table())
    kept = [rec for rec in corpus.records if rec["kept"]]
    filtered = "kept by the self-filter" if p.self_filter else "kept; self-filter off in this preset"
    if p.fluency_threshold is not None:
        filtered += f", fluency filter at {p.fluency_threshold:g} nats/token"
    console.print(f"[bold]Synthetic texts[/] ({len(kept)} of {len(corpus.records)} {filtered}); three of them:")
    for rec in kept[:3]:
        console.print(f"- [cyan]{rec['keyword']}[/]: {rec['text']}")
    results = {
        "preset": preset,
        "parameters": p.__dict__,
        "documents": len(database),
        "questions": len(queries),
        "model": lm.name,
        "embedder": emb.name,
        "build_config": config.model_dump(),
        "build_seconds": build_s,
        "results": rows,
        "privacy": report.to_dict(),
        "synthetic_examples": [rec["text"] for rec in kept[:3]],
        "wall_seconds": time.time() - t0,
    }
    (out / "results.json").write_text(json.dumps(results, indent=2, ensure_ascii=False))
    console.print(f"results: {out / 'results.json'}; corpus: {out / 'corpus'}; wall time {results['wall_seconds']:.0f} s")
    return results
