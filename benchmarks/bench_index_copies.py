"""Index copies of built corpora under other rules (post-processing: no rebuild, no budget), scored.

A DP-SynRAG corpus indexes each kept text m = min(M, max(1, round(noisy count / G))) times
(``--index-copy-size G``, ``--max-index-copies M``), reading only the released noisy count of its
cluster. This benchmark re-indexes corpora already built (for example the ones ``dpsynrag eval`` caches
under ``OUT/cache/corpora``) with other rules ``G:M`` (``none``: one entry per text) and answers a slice
of a task's questions over each, with the answerer of ``bench_utility.py`` (top-5, 24 greedy answer
tokens, the task's answer prompt, every index copy retrieved as the evaluation harness does). Choose the
slice apart from the questions a result is reported on (e.g. Medical validation questions 100–199 to
tune, 0–99 to report), so that a rule is not tuned on its own test.

Usage::

    OMP_NUM_THREADS=1 python benchmarks/bench_index_copies.py OUT/cache --task medical --start 100 \\
        --questions 100 --rules 10:8,5:8 --out /tmp/copies
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from _common import machine, score, write_results

from dpsynrag.corpus import SyntheticCorpus
from dpsynrag.models import Embedder, LanguageModel
from dpsynrag.rag import RAGAnswerer
from dpsynrag.tasks import get_task

TOP_K = 5
ANSWER_TOKENS = 24


def copies(noisy_count: float, rule: str) -> int:
    """Index entries of a text whose cluster's released count is ``noisy_count`` under ``rule`` ("G:M" or
    "none"), as :meth:`~dpsynrag.pipeline.config.BuildConfig.index_copies` computes them."""
    if rule == "none":
        return 1
    if rule.count(":") != 1:
        raise ValueError(f"rule {rule!r} is not G:M or none")
    size, most = rule.split(":")
    if not (float(size) > 0 and int(most) >= 1):
        raise ValueError(f"rule {rule!r}: G must be > 0 and M >= 1")
    return int(min(int(most), max(1, round(float(noisy_count) / float(size)))))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpora", nargs="+", help="corpus folders, or folders holding them (searched for manifest.json)")
    parser.add_argument("--task", default="medical")
    parser.add_argument("--split", default="validation")
    parser.add_argument("--start", type=int, default=0, help="first question of the slice")
    parser.add_argument("--questions", type=int, default=100, help="questions in the slice")
    parser.add_argument("--rules", default="10:8", help="comma-separated G:M rules, or none")
    parser.add_argument("--out", required=True, help="results as OUT.json and OUT.md")
    args = parser.parse_args(argv)
    rules = args.rules.split(",")
    for rule in rules:
        try:
            copies(1.0, rule)  # a malformed rule fails before the models load
        except ValueError as exc:
            parser.error(f"--rules: {exc}")

    folders = []
    for given in map(Path, args.corpora):
        folders += [given] if (given / "manifest.json").exists() else sorted(p.parent for p in given.rglob("manifest.json"))
    # only DP-SynRAG records carry their cluster's released noisy count (an eval cache also holds other methods')
    folders = [f for f in folders if json.loads((f / "manifest.json").read_text()).get("method") == "dp-synrag"]
    if not folders:
        parser.error("no DP-SynRAG corpus folder (manifest.json with method dp-synrag) in " + " ".join(args.corpora))
    task = get_task(args.task)
    queries = task.load_queries(split=args.split)[args.start:args.start + args.questions]
    if not queries:
        parser.error(f"no {args.split} question from --start {args.start}")
    lm, emb = LanguageModel.load(), Embedder.load()
    runs = []
    for folder in folders:
        kept = [r for r in SyntheticCorpus.load(folder).records if r["kept"]]
        for rule in rules:
            texts = [r["text"] for r in kept for _ in range(copies(r["noisy_count"], rule))]
            t = time.time()
            answers = RAGAnswerer(lm, emb, texts, top_k=TOP_K, system_prompt=task.answer_system_prompt,
                                  max_new_tokens=ANSWER_TOKENS).answer([q.question for q in queries])
            run = {"corpus": str(folder), "rule": rule, "index_entries": len(texts), "texts_kept": len(kept),
                   **score(task, answers, queries), "seconds": time.time() - t}
            runs.append(run)
            print(run, flush=True)

    out = {"task": args.task, "split": args.split, "start": args.start, "questions": len(queries), "top_k": TOP_K,
           **machine(lm, emb), "runs": runs}
    lines = [f"# Index copies ({args.task}, {args.split} questions {args.start}–{args.start + len(queries) - 1}, "
             f"top-{TOP_K})", "", "| corpus | rule G:M | index entries | texts kept | accuracy | context recall |",
             "|---|---|---|---|---|---|"]
    lines += [f"| {Path(r['corpus']).name} | {r['rule']} | {r['index_entries']} | {r['texts_kept']} | "
              f"{r['accuracy']:.3f} | {r['context_recall']:.3f} |" for r in runs]
    return write_results(out, lines, args.out, "bench_index_copies.py", sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":
    sys.exit(main())
