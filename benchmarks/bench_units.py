"""Per person against per document (issue 30, privacy units): the same notes, two guarantees.

The demo's 2,000 Medical Synth notes get a made-up patient id, 3 to 6 notes per patient
(``examples/per_person.py``, public assignment seed 0). For each seed, DP-SynRAG builds two corpora with the
demo preset's parameters at ε = 10, δ = 1e-3: per document (the paper's guarantee) and per patient
(``privacy_unit_field="patient_id"``: neighbouring collections differ by all of one patient's notes; each
patient gives at most K keywords, joins at most L clusters and is one member of a cluster). The same ε buys
a stronger guarantee per patient, paid in utility: a patient is one member, so fewer notes speak. Both
answer the demo's validation questions over their corpus; recorded per run:

* accuracy: the answer names the gold disease (the task's scoring);
* context recall: the gold disease appears in one of the top-k retrieved texts;
* texts kept, build time (seconds; the machine must be otherwise idle for it to mean anything), ε.

A build whose histogram releases no keyword (too few persons per topic for the open-vocabulary threshold)
is recorded with accuracy 0, no texts and its error message.

RAG on the private notes (no DP) is measured once, with the same questions, answerer and top-k. Seeded
builds are reproducible and not for release: this is a benchmark. Results go to
``benchmarks/results/bench_units.json`` and ``.md`` (mean ± sd over seeds).

Usage::

    python benchmarks/bench_units.py                                   # 2,000 notes, seeds 0 1 2 (the acceptance run)
    python benchmarks/bench_units.py --documents 200 --questions 10 --seeds 0 --out /tmp/bench_units   # smoke
"""

from __future__ import annotations

import dataclasses
import json
import math
import sys
import tempfile
import time
from pathlib import Path

from _common import (answer_corpus, arguments, demo_notes, machine, mean_sd_rows, measure_rag, merge_runs, seed_list,
                     write_results)
from per_person import assign_patients  # examples/, on sys.path through _common

from dpsynrag.errors import DataError
from dpsynrag.eval.presets import for_task, get_preset
from dpsynrag.models import Embedder, LanguageModel
from dpsynrag.pipeline.build import build_corpus
from dpsynrag.pipeline.config import BuildConfig
from dpsynrag.tasks import get_task

UNIT_FIELD = "patient_id"
VARIANTS = {"per document": None, "per patient": UNIT_FIELD}


def main(argv: list[str] | None = None) -> int:
    args = arguments(__doc__, "bench_units").parse_args(argv)
    if args.merge:
        out, seeds = merge_runs(args.merge)
        return _write(out, seeds, args.out, ["--merge", *args.merge])
    seeds = seed_list(args.seeds)

    preset = get_preset("demo")
    questions_n = args.questions or preset.questions
    task = get_task("medical")
    notes = demo_notes(args.documents)
    patients = assign_patients(len(notes), seed=0)
    documents = [dataclasses.replace(d, unit=p) for d, p in zip(notes, patients)]
    queries = task.load_queries(limit=questions_n)
    top_k, answer_tokens = preset.top_k or task.rag_top_k, preset.answer_tokens
    lm = LanguageModel.load()
    emb = Embedder.load()
    params = for_task(preset.synrag, task)
    out: dict = {
        "documents": len(documents), "patients": len(set(patients)), "questions": len(queries), "top_k": top_k,
        **machine(lm, emb), "preset": "demo", "parameters": params, "runs": [],
    }
    out["rag"] = measure_rag(task, documents, queries, lm=lm, embedder=emb, top_k=top_k, answer_tokens=answer_tokens)
    print(f"RAG (private notes): {out['rag']}", flush=True)

    for seed in seeds:
        for name, field in VARIANTS.items():
            config = BuildConfig(epsilon=10.0, delta=1e-3, task="medical", seed=seed, privacy_unit_field=field,
                                 **params)
            with tempfile.TemporaryDirectory() as tmp:
                t = time.time()
                try:
                    corpus = build_corpus(documents, Path(tmp) / "corpus", config, lm=lm, embedder=emb,
                                          identifier_fields=task.identifier_fields)
                except DataError as exc:  # e.g. no keyword above the open-vocabulary threshold: nothing to answer from
                    run = {"variant": name, "seed": seed, "accuracy": 0.0, "context_recall": 0.0, "texts_kept": 0,
                           "texts": 0, "build_seconds": time.time() - t, "epsilon": math.nan, "error": str(exc)}
                    out["runs"].append(run)
                    print(json.dumps(run), flush=True)
                    continue
                build_s = time.time() - t
                _, scores = answer_corpus(corpus, task, queries, lm=lm, embedder=emb, top_k=top_k,
                                          answer_tokens=answer_tokens)
                run = {"variant": name, "seed": seed, **scores, "build_seconds": build_s,
                       "epsilon": corpus.privacy_report.epsilon,
                       "neighbouring_relation": corpus.privacy_report.neighbouring_relation}
            out["runs"].append(run)
            print(json.dumps(run), flush=True)
    return _write(out, seeds, args.out, sys.argv[1:] if argv is None else list(argv))


def _write(out: dict, seeds: list[int], path: str, command: list[str]) -> int:
    """The results as ``path``.json and a mean ± sd table as ``path``.md."""
    metrics = ("accuracy", "context_recall", "texts_kept", "build_seconds", "epsilon")
    lines = [
        f"# Per patient vs per document (Medical Synth, {out['documents']} notes of {out['patients']} made-up "
        f"patients, 3-6 notes each; {out['questions']} questions, demo preset, epsilon=10, delta=1e-3, "
        f"top-{out['top_k']}, seeds {','.join(map(str, seeds))})",
        "",
        f"RAG on the private notes (no DP): accuracy {out['rag']['accuracy']:.3f}, context recall "
        f"{out['rag']['context_recall']:.3f}.",
        "",
        *mean_sd_rows(out["runs"], list(VARIANTS), metrics, "guarantee"),
    ]
    return write_results(out, lines, path, "bench_units.py", command)


if __name__ == "__main__":
    sys.exit(main())
