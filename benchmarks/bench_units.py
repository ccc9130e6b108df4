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

import argparse
import dataclasses
import json
import math
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

import torch

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "examples"))

from per_person import assign_patients, demo_notes  # noqa: E402

from dpsynrag.errors import DataError  # noqa: E402
from dpsynrag.eval.presets import get_preset  # noqa: E402
from dpsynrag.eval.scoring import context_recall  # noqa: E402
from dpsynrag.models import Embedder, LanguageModel  # noqa: E402
from dpsynrag.pipeline.build import build_corpus  # noqa: E402
from dpsynrag.pipeline.config import BuildConfig  # noqa: E402
from dpsynrag.rag import RAGAnswerer  # noqa: E402
from dpsynrag.tasks import get_task  # noqa: E402

UNIT_FIELD = "patient_id"
VARIANTS = {"per document": None, "per patient": UNIT_FIELD}


def score(task, answers, queries) -> dict:
    correct = [task.is_correct(a.text, q) for a, q in zip(answers, queries)]
    return {"accuracy": sum(correct) / len(queries),
            "context_recall": context_recall([a.context for a in answers], queries, task)}


def mean_sd(values: list[float]) -> str:
    values = [v for v in values if not math.isnan(v)]
    if not values:
        return "n/a"
    if len(values) == 1:
        return f"{values[0]:.3f}"
    return f"{statistics.mean(values):.3f} ± {statistics.stdev(values):.3f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--documents", type=int, default=2000)
    parser.add_argument("--questions", type=int, default=None, help="default: the demo preset's")
    parser.add_argument("--out", default=str(HERE / "results" / "bench_units"))
    args = parser.parse_args(argv)
    seeds = [int(s) for s in args.seeds.split(",")]

    preset = get_preset("demo")
    questions_n = args.questions or preset.questions
    task = get_task("medical")
    notes = demo_notes(args.documents)
    patients = assign_patients(len(notes), seed=0)
    documents = [dataclasses.replace(d, unit=p) for d, p in zip(notes, patients)]
    queries = task.load_queries(limit=questions_n)
    questions = [q.question for q in queries]
    top_k, answer_tokens = preset.top_k or task.rag_top_k, preset.answer_tokens
    lm = LanguageModel.load()
    emb = Embedder.load()
    params = dict(preset.synrag)
    out: dict = {
        "documents": len(documents), "patients": len(set(patients)), "questions": len(queries), "top_k": top_k,
        "model": lm.name, "embedder": emb.name, "torch_threads": torch.get_num_threads(),
        "machine": platform.processor() or platform.machine(), "preset": "demo", "parameters": params, "runs": [],
    }
    t = time.time()
    rag = RAGAnswerer(lm, emb, [d.text for d in documents], top_k=top_k, system_prompt=task.answer_system_prompt,
                      max_new_tokens=answer_tokens)
    out["rag"] = {**score(task, rag.answer(questions), queries), "seconds": time.time() - t}
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
                answerer = corpus.answerer(lm=lm, embedder=emb, top_k=top_k, system_prompt=task.answer_system_prompt,
                                           max_new_tokens=answer_tokens, repeat_copies=True)
                run = {"variant": name, "seed": seed, **score(task, answerer.answer(questions), queries),
                       "texts_kept": sum(bool(r["kept"]) for r in corpus.records), "texts": len(corpus.records),
                       "build_seconds": build_s, "epsilon": corpus.privacy_report.epsilon,
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
        "| guarantee | " + " | ".join(metrics) + " |",
        "|---|" + "---|" * len(metrics),
    ]
    for name in VARIANTS:
        runs = [r for r in out["runs"] if r["variant"] == name]
        lines.append(f"| {name} | " + " | ".join(mean_sd([float(r[m]) for r in runs]) for m in metrics) + " |")
    lines += ["", f"Command: python benchmarks/bench_units.py {' '.join(command)}"]
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path + ".json").write_text(json.dumps(out, indent=2, ensure_ascii=False))
    Path(path + ".md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
