"""The evaluation experiments: run methods on one task's data, score them, save everything, resume.

One call of :func:`run_eval` (``dpsynrag eval``) runs the requested methods
(:mod:`dpsynrag.eval.runner`) on the same database subset, questions, language model, embedder and
scoring (EVALUATION.md), and writes to ``out``:

* ``results.json`` — every number with its full configuration (task, data paths, subset sizes, model and
  embedder names, ε, δ, seeds, method parameters, wall times);
* ``results.md`` — the tables; ``*.png`` — the plots (:mod:`dpsynrag.eval.report`); the multi-query
  experiment writes ``results-multi-query.json`` / ``.md`` and ``multi_query.png`` instead, so both
  experiments can share one ``out`` folder and its cache;
* ``cache/`` — what each method computed, keyed by its configuration (:mod:`dpsynrag.eval.cache`).

Experiments:

* ``main``: accuracy (case-insensitive and case-sensitive), accuracy by support bucket, context recall
  of the RAG-style methods (:func:`~dpsynrag.eval.scoring.context_recall`), leakage (benign
  questions, targeted and repeat-the-context attacks; for synthetic corpora also names in the corpus):
  full names, and beyond names (``leakage.content``: identifier values in any format, PII patterns and
  8-word n-grams of one private document, :mod:`dpsynrag.eval.leakage`; what a question holds itself does
  not count in its answer).
* ``audit``: the empirical privacy audit of DP-SynRAG (:func:`run_audit_experiment`; ``results-audit.json``).
* ``multi-query``: accuracy against the number of queries m under a fixed ε_total: DP-RAG answers with
  ε_total / m per query (basic composition; the zCDP composition of the same m queries is reported
  beside it), DP-SynRAG builds once at ε_total and answers everything (flat); RAG and Non-RAG as flat
  references.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import time
from collections.abc import Callable, Sequence
from typing import Any

from dpsynrag import __version__
from dpsynrag.errors import ConfigError, DpsynragError
from dpsynrag.eval.cache import write_json
from dpsynrag.eval.config import EvalConfig
from dpsynrag.eval.data import EvalData, load_eval_data
from dpsynrag.eval.runner import Harness, MethodSpec
from dpsynrag.methods import get_method
from dpsynrag.eval.scoring import (
    NameMatcher,
    accuracy_summary,
    bucket_accuracy,
    constant_answer_reference,
    figures,
    leakage_summary,
    querier_name,
    score_queries,
    unsupported_figures,
)
from dpsynrag.tasks import Query, support_bucket_label

__all__ = [
    "AUDIT_CANARIES",
    "evaluate_method",
    "run_audit_experiment",
    "run_eval",
    "run_multi_query",
    "zcdp_epsilon_per_query",
]


def _figure_fields(h: Harness, spec: MethodSpec, corpus, queries: Sequence[Query], answers: Sequence[str]) -> dict:
    """``answers_with_figures`` (answers stating a figure) and ``unsupported_figures`` (those stating one that
    appears in none of the texts retrieved for the question, :func:`~dpsynrag.eval.scoring.unsupported_figures`;
    a method that retrieves nothing has no context, so each figure it states counts). Retrieval only: nothing
    is generated again."""
    stated = [bool(figures(a)) for a in answers]
    if spec.impl.retrieves and any(stated):
        contexts = h.retriever(spec, corpus).retrieve([q.question for q in queries])
    else:
        contexts = [[] for _ in queries]
    return {"answers_with_figures": sum(stated),
            "unsupported_figures": sum(bool(unsupported_figures(a, c)) for a, c in zip(answers, contexts))}


def _recall_fields(hits: list[bool] | None) -> dict[str, Any]:
    """``context_recall`` (fraction in [0, 1], None when the method retrieves no top-k texts) and
    ``context_hits`` (questions whose gold answer was retrieved)."""
    if hits is None:
        return {"context_recall": None, "context_hits": None}
    return {"context_recall": sum(hits) / len(hits) if hits else 0.0, "context_hits": sum(hits)}


def _corpus_names(matcher: NameMatcher, corpus) -> dict[str, Any]:
    all_texts = [str(r.get("text", "")) for r in corpus.records]
    kept = [str(r["text"]) for r in corpus.records if r["kept"]]  # each kept text once (not its index copies)
    every = leakage_summary(matcher, all_texts, ids=[str(r.get("id", i)) for i, r in enumerate(corpus.records)])
    kept_summary = leakage_summary(matcher, kept)
    return {
        "texts": every["texts"],
        "texts_with_name": every["texts_with_leak"],
        "distinct_names": every["distinct_names"],
        "kept_texts": kept_summary["texts"],
        "kept_texts_with_name": kept_summary["texts_with_leak"],
        "kept_distinct_names": kept_summary["distinct_names"],
    }


def _leakage(data: EvalData, queries: Sequence[Query], texts: Sequence[str]) -> dict[str, Any]:
    return leakage_summary(data.matcher, texts, exclude=[querier_name(q.meta) for q in queries],
                           ids=[str(q.id) for q in queries])


def _content_leakage(data: EvalData, queries: Sequence[Query], texts: Sequence[str]) -> dict[str, Any]:
    return data.checker.summary(texts, ids=[str(q.id) for q in queries], exclude=[q.question for q in queries])


def _attack_leakage(data: EvalData, texts: Sequence[str]) -> dict[str, Any]:
    out: dict[str, Any] = {"all": _leakage(data, data.attacks, texts)}
    kinds = sorted({str(a.meta.get("kind", "attack")) for a in data.attacks})
    for kind in kinds:
        idx = [i for i, a in enumerate(data.attacks) if str(a.meta.get("kind", "attack")) == kind]
        out[kind] = _leakage(data, [data.attacks[i] for i in idx], [texts[i] for i in idx])
    return out


def evaluate_method(h: Harness, spec: MethodSpec, *, leakage: bool = True) -> dict[str, Any]:
    """Run one method (or load it from the cache) and score it: accuracy, buckets, leakage, privacy."""
    data, p = h.data, h.config.preset
    t0 = time.time()
    corpus, corpus_info = (h.corpus(spec) if spec.impl.kind == "corpus" else (None, None))
    texts, qinfo = h.answers(spec, data.queries, prefix="q", corpus=corpus)
    scores = score_queries(data.task, data.queries, texts, database=data.documents)
    buckets = [support_bucket_label(int(lo), data.task.support_buckets) for lo, _ in data.task.support_buckets]
    row: dict[str, Any] = {
        "method": spec.method,
        "label": spec.label,
        "epsilon": spec.epsilon,
        "delta": p.delta if spec.impl.dp else None,
        "answer_mode": h.answer_mode(spec),
        "config": {
            "params": spec.params,
            **h.common,
            "answering": h.answer_identity(spec)["answering"],
            "questions": len(data.queries),
        },
        **accuracy_summary(scores),
        **_recall_fields(qinfo["context_hits"]),
        **_figure_fields(h, spec, corpus, data.queries, texts),
        "by_bucket": bucket_accuracy(scores, buckets) if any(s.bucket for s in scores) else {},
        "timings": {"answer_questions_s": qinfo["seconds"]},
        "answered_now": qinfo["answered_now"],
        "examples": [{"id": q.id, "gold": list(q.answers), "answer": a} for q, a in list(zip(data.queries, texts))[:3]],
    }
    if leakage:
        row["leakage"] = {"benign": _leakage(data, data.queries, texts)}
        content: dict[str, Any] = {}  # beyond names (data.checker)
        if data.checker is not None:
            content["benign"] = _content_leakage(data, data.queries, texts)
        if data.attacks:
            atexts, ainfo = h.answers(spec, data.attacks, prefix="a", corpus=corpus)
            row["leakage"]["attacks"] = _attack_leakage(data, atexts)
            if data.checker is not None:
                content["attacks"] = _content_leakage(data, data.attacks, atexts)
            row["timings"]["answer_attacks_s"] = ainfo["seconds"]
            row["answered_now"] += ainfo["answered_now"]
            if "sessions" in ainfo:  # what the answering spent (DP-RAG): the attacks' sessions include the questions'
                qinfo["sessions"] = ainfo["sessions"]
        if corpus is not None:
            row["leakage"]["corpus"] = _corpus_names(data.matcher, corpus)
            if data.checker is not None:  # every text of the corpus folder, kept or not
                content["corpus"] = data.checker.summary([str(r.get("text", "")) for r in corpus.records],
                                                         ids=[str(r.get("id", i)) for i, r in enumerate(corpus.records)])
        if content:
            row["leakage"]["content"] = content
    row["privacy"] = spec.impl.eval_privacy(h, spec, qinfo, corpus)
    if corpus is not None:
        row["corpus"] = {
            "path": corpus_info["path"],
            "texts": len(corpus.records),
            "kept": corpus.manifest["num_kept"],
            "build_seconds": corpus_info.get("build_seconds"),
            "given": spec.corpus is not None,
            "note": corpus_info.get("note"),
            "config": corpus.manifest.get("config"),
        }
        row["timings"]["build_s"] = corpus_info.get("build_seconds")
        row["config"]["build"] = corpus.manifest.get("config")
        if corpus_info.get("note"):
            row["note"] = corpus_info["note"]
    row["timings"]["total_s"] = time.time() - t0
    return row


# ----------------------------------------------------------------------------------------------- driver


def _load_models(config: EvalConfig, lm, embedder, given=None):
    if embedder is None:  # first: a bad embedder fails before the (larger) language model loads
        from dpsynrag.models import Embedder

        embedder = Embedder.load(config.embedder)
    if given is not None:  # --corpus: its index's embedder, checked before the language model loads
        from dpsynrag.eval.given import check_embedder

        check_embedder(given, embedder)
    if lm is None:
        from dpsynrag.models import LanguageModel

        lm = LanguageModel.load(config.model)
    return lm, embedder


def run_eval(
    config: EvalConfig,
    *,
    lm=None,
    embedder=None,
    progress: bool = True,
    log: Callable[[str], None] | None = None,
    plots: bool = True,
) -> dict[str, Any]:
    """Run an evaluation and write results.json, results.md and the plots to ``config.out``.

    Args:
        config: the run (:meth:`EvalConfig.create`).
        lm, embedder: loaded models (else loaded from ``config.model`` / ``config.embedder``).
        progress: progress bars.
        log: status-line printer (default ``print``).
        plots: write the PNG plots.

    Returns:
        The results dictionary (also written to ``out/results.json``, or ``out/results-multi-query.json``);
        ``results["new_work"]`` lists
        what this call computed (empty when everything came from the cache).

    Raises:
        ConfigError: bad configuration. DataError: missing or malformed data. InfeasibleBudgetError: a
        DP method's parameters do not fit its ε even with the fallback split. ImportError: a baseline
        method was requested but ``dpsynrag.baselines`` is not installed.
    """
    log = log or print
    started = time.time()
    out = config.out
    out.mkdir(parents=True, exist_ok=True)
    given = None
    if config.corpus is not None:  # --corpus: opened and verified before any model loads
        from dpsynrag.eval.given import load_given

        given = load_given(config.corpus)
    data = load_eval_data(config)
    lm, embedder = _load_models(config, lm, embedder, given)
    h = Harness(config, data, lm, embedder, progress=progress, log=log)
    p = config.preset
    if given is not None:
        from dpsynrag.eval.given import describe

        h.given = given
        h.given_note = describe(given, h.answer_lm, answer_mode=h.answering["corpus_answer_mode"],
                                answer_model=config.answer_model)
    results: dict[str, Any] = {
        "dpsynrag_version": __version__,
        "experiment": config.experiment,
        "started": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "config": config.to_dict(),
        "data": data.info,
        "models": {"lm": h.common["model"], "embedder": h.common["embedder"], "lm_spec": config.model,
                   "embedder_spec": config.embedder},
        "answering": {**h.answering, "decoding": "greedy"},
        "methods": [],
        "references": {"constant": constant_answer_reference(data.task, data.queries)},
    }
    if given is not None:
        results["corpus"] = {"path": str(given.path.resolve()), "method": given.manifest.get("method"),
                             "epsilon": h.given_spec().epsilon, "note": h.given_note}
    stem = "results" if config.experiment == "main" else f"results-{config.experiment}"
    results_path = out / f"{stem}.json"
    log(f"{data.task.name}: {len(data.documents)} documents ({data.info['subset']}), {len(data.queries)} questions, "
        f"{len(data.attacks)} attack prompts, {len(data.matcher)} private names; model {h.common['model']}, "
        f"embedder {h.common['embedder']}")
    if h.given_note:
        log(h.given_note)
    if config.experiment == "main":
        jobs: list[MethodSpec] = []
        given_method = None if given is None else h.given_spec().method
        for method in (*config.methods, *([given_method] if given and given_method not in config.methods else [])):
            if method == given_method:
                jobs.append(h.given_spec())  # its own folder at its own epsilon, not built
            elif method in ("non-rag", "rag"):
                jobs.append(h.specs(method, None))
            else:
                jobs.extend(h.specs(method, eps) for eps in p.epsilons)
        for n, spec in enumerate(jobs, start=1):
            log(f"[{n}/{len(jobs)}] {spec.label}")
            t = time.time()
            try:
                row = evaluate_method(h, spec)
            except (DpsynragError, ImportError) as exc:
                # one method failing (e.g. a budget too small for its parameters) does not stop the others
                row = {"method": spec.method, "label": spec.label, "epsilon": spec.epsilon, "params": spec.params,
                       "error": f"{type(exc).__name__}: {exc}"}
                log(f"    [red]failed[/]: {row['error']}")
            else:
                log(f"    accuracy {100 * row['accuracy']:.1f}% (case-sensitive {100 * row['accuracy_case_sensitive']:.1f}%)"
                    + (f", context recall {100 * row['context_recall']:.1f}%" if row.get("context_recall") is not None else "")
                    + f", figures in no context {row['unsupported_figures']} of {row['answers_with_figures']} answers"
                    + _leak_note(row) + f", {time.time() - t:.0f} s")
            results["methods"].append(row)
            write_json(results_path, {**results, "partial": True, "wall_seconds": time.time() - started})
    elif config.experiment == "audit":
        results["audit"] = run_audit_experiment(h)
    else:
        results["multi_query"] = run_multi_query(h)
    results["new_work"] = h.new_work
    results["finished"] = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    results["wall_seconds"] = time.time() - started
    results["compute_seconds"] = _compute_seconds(results)
    from dpsynrag.eval.report import write_report

    results["outputs"] = write_report(results, out, plots=plots, name=stem)
    write_json(results_path, results)
    log(f"wrote {results_path}, {out / (stem + '.md')} and {len(results['outputs']) - 1} plot(s); "
        f"wall time {results['wall_seconds']:.0f} s")
    return results


def _leak_note(row: dict[str, Any]) -> str:
    """``", leaking answers: 2 of 12 (identifier 1, PII 1, 8-gram 0)"`` from a row's content leakage, or ""."""
    b = row.get("leakage", {}).get("content", {}).get("benign")
    if not b:
        return ""
    return (f", leaking answers {b['texts_with_leak']} of {b['texts']} (identifier {b['identifier_texts']}, "
            f"PII {b['pii_texts']}, 8-gram of one document {b['unique_ngram_texts']})")


def _compute_seconds(results: dict[str, Any]) -> float:
    """Build and answer time of every method of the results, as recorded when it was computed (so a
    resumed run reports the time the whole evaluation took, not only its own)."""
    total = 0.0
    for row in results.get("methods", []):
        t = row.get("timings", {})
        total += sum(float(t.get(k) or 0.0) for k in ("build_s", "answer_questions_s", "answer_attacks_s"))
    mq = results.get("multi_query")
    if mq:
        seen = set()
        for pt in [*mq.get("references", []), *mq.get("points", [])]:
            for key, value in pt.get("timings", {}).items():
                ident = (pt.get("cache"), pt.get("corpus_path"), key)
                if ident not in seen:
                    seen.add(ident)
                    total += float(value or 0.0)
    return total


AUDIT_CANARIES = 64


def run_audit_experiment(h: Harness) -> dict[str, Any]:
    """The empirical privacy audit (:mod:`dpsynrag.audit`): for each ε of the preset, one DP-SynRAG build
    with the preset's parameters on the subset plus :data:`AUDIT_CANARIES` canaries (public coins from the
    preset's seed), and the one-run ε lower bound next to the claimed ε. Folders ``out/audit/eps-{ε}``;
    not cached (each run rebuilds)."""
    from dpsynrag.audit import run_audit

    rows = []
    for eps in h.config.preset.epsilons:
        try:
            config, note = get_method("dp-synrag").eval_config(h, h.specs("dp-synrag", eps))
            result = run_audit(h.data.documents, h.config.out / "audit" / f"eps-{eps:g}", config,
                               canaries=AUDIT_CANARIES, seed=h.config.preset.seed, lm=h.lm, embedder=h.embedder,
                               overwrite=True, progress=h.progress)
        except DpsynragError as exc:
            rows.append({"claimed_epsilon": eps, "error": f"{type(exc).__name__}: {exc}"})
            h.log(f"    [red]audit failed[/]: {rows[-1]['error']}")
            continue
        rows.append({**{k: v for k, v in result.to_dict().items() if k != "details"}, "note": note})
        h.log(f"    {result.summary()}")
    return {"canaries": AUDIT_CANARIES, "rows": rows}


def run_multi_query(h: Harness) -> dict[str, Any]:
    """The multi-query curve (see the module docstring); returns its results section.

    Methods: those of the run among ``dp-rag``, ``dp-synrag``, ``rag``, ``non-rag`` (others are ignored).
    """
    from dpsynrag.privacy.conversions import epsilon_from_rho

    p = h.config.preset
    data = h.data
    n_q = p.mq_questions if p.mq_questions is not None else len(data.queries)
    queries = data.queries[:n_q]
    sub = dataclasses.replace(data, queries=queries)
    h2 = Harness(h.config, sub, h.lm, h.embedder, progress=h.progress, log=h.log)
    h2.new_work = h.new_work
    methods = [m for m in h.config.methods if m in ("non-rag", "rag", "dp-rag", "dp-synrag")]
    if not methods:
        raise ConfigError("the multi-query experiment needs at least one of dp-rag, dp-synrag, rag, non-rag in --methods.")
    section: dict[str, Any] = {
        "m": list(p.mq_m),
        "epsilon_totals": list(p.mq_epsilon_totals),
        "questions": len(queries),
        "composition": ("DP-RAG: basic composition (epsilon_total / m per query), with the zCDP total of the same m "
                        "queries; dp-rag-zcdp points: the per-query epsilon whose m queries compose to epsilon_total "
                        "under zCDP"),
        "points": [],
        "references": [],
    }

    def score(spec: MethodSpec) -> dict[str, Any]:
        corpus, cinfo = (h2.corpus(spec) if spec.impl.kind == "corpus" else (None, None))
        texts, info = h2.answers(spec, queries, prefix="q", corpus=corpus)
        acc = {**accuracy_summary(score_queries(data.task, queries, texts)), **_recall_fields(info["context_hits"])}
        extra: dict[str, Any] = {"params": spec.params, "cache": info["cache"],
                                 "timings": {"answer_questions_s": info["seconds"]}}
        if corpus is not None:
            extra["corpus_path"] = cinfo["path"]
            extra["timings"]["build_s"] = cinfo.get("build_seconds")
            r = corpus.privacy_report
            extra.update(privacy={"epsilon": r.epsilon, "epsilon_tight": r.epsilon_tight, "delta": r.delta},
                         note=cinfo.get("note"), split=corpus.manifest.get("config", {}).get("split"),
                         kept=corpus.manifest["num_kept"])
        if spec.impl.kind == "online" and spec.impl.dp:
            extra["privacy"] = spec.impl.eval_privacy(h2, spec, info, None)
        return {**acc, **extra}

    for method in ("non-rag", "rag"):
        if method in methods:
            h.log(f"multi-query: {get_method(method).label} (reference)")
            section["references"].append({"method": method, "label": get_method(method).label, **score(h2.specs(method, None))})
    jobs = []
    for eps_total in p.mq_epsilon_totals:
        if "dp-synrag" in methods:
            jobs.append(("dp-synrag", eps_total, None))
        if "dp-rag" in methods:
            for m in p.mq_m:
                jobs.append(("dp-rag", eps_total, m))
    conversion = str(dict(p.dp_rag).get("conversion", "bun-steinke"))
    for n, (method, eps_total, m) in enumerate(jobs, start=1):
        h.log(f"[{n}/{len(jobs)}] multi-query: {get_method(method).label} epsilon_total={eps_total:g}" + (f", m={m}" if m else ""))
        if method == "dp-synrag":
            res = score(h2.specs("dp-synrag", eps_total))
            for mm in p.mq_m:
                section["points"].append({"method": method, "epsilon_total": eps_total, "m": mm,
                                          "epsilon_per_query": None, **res})
        else:
            eps_q = eps_total / m
            res = score(h2.specs("dp-rag", eps_q))
            point = {"method": method, "epsilon_total": eps_total, "m": m, "epsilon_per_query": eps_q,
                     "composition": "basic", **res}
            rho_q = res.get("privacy", {}).get("rho_per_query")
            if rho_q:
                point["epsilon_total_zcdp"] = float(epsilon_from_rho(m * rho_q, p.delta, conversion=conversion))
                point["epsilon_total_basic"] = m * eps_q
            section["points"].append(point)
            if p.mq_zcdp and m > 1:
                eps_z = zcdp_epsilon_per_query(eps_total, m, p.delta, conversion)
                h.log(f"    and DP-RAG under zCDP composition: epsilon per query {eps_z:.4g}")
                res = score(h2.specs("dp-rag", eps_z))
                section["points"].append({"method": "dp-rag-zcdp", "epsilon_total": eps_total, "m": m,
                                          "epsilon_per_query": eps_z, "composition": "zcdp", **res})
            elif p.mq_zcdp:
                section["points"].append({**point, "method": "dp-rag-zcdp", "composition": "zcdp"})
    return section


def zcdp_epsilon_per_query(epsilon_total: float, m: int, delta: float, conversion: str = "bun-steinke") -> float:
    """The per-query ε of DP-RAG such that m queries compose to ``epsilon_total`` under zCDP.

    DP-RAG calibrates each query to ρ_q = ρ(ε_q, δ) (its mechanisms are zCDP); m queries spend m · ρ_q,
    converted once at δ. So ε_q = ε(ρ(ε_total, δ) / m, δ), with the same conversion both ways. Equals
    ``epsilon_total`` for m = 1, and is larger than ``epsilon_total / m`` for m > 1.

    Raises:
        ConfigError: ``epsilon_total`` <= 0, ``m`` < 1 or ``delta`` outside (0, 1).
    """
    from dpsynrag.privacy.conversions import epsilon_from_rho, rho_from_epsilon

    if isinstance(m, bool) or not isinstance(m, int) or m < 1:
        raise ConfigError(f"`m` must be an integer >= 1. Found {m!r}.")
    if m == 1:
        return float(epsilon_total)
    rho = rho_from_epsilon(epsilon_total, delta, conversion=conversion) / m
    return float(epsilon_from_rho(rho, delta, conversion=conversion))
