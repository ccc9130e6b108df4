"""Growing collections (issue 30, incremental refresh): extend a 1,000-note corpus by 1,000 new notes against
one build over all 2,000.

Medical Synth's 2,000 demo notes (the demo preset's seeded sample of the database) are split by a seeded
permutation into two halves A and B of 1,000. For each seed, with the demo preset's DP-SynRAG parameters
at ε = 10, δ = 1e-3:

* full: one build over A ∪ B (what a rebuild from scratch costs);
* base: a build over A alone (the corpus before the new notes arrive);
* extension: ``extend_corpus`` of the base corpus by B (``dpsynrag build B --extend BASE``): a build over B
  only, merged with the base corpus's texts into one index. A and B are disjoint, so every note is covered
  by one build's ε = 10 (parallel composition); the ledger (a temporary one) must show each note read once.

Each corpus answers the demo's validation questions; recorded per run: accuracy (the answer names the gold
disease), context recall (the gold disease is in one of the top-k retrieved texts), texts kept, wall
seconds (the machine must be otherwise idle for them to mean anything). The acceptance: the extension's
accuracy within noise (the seeds' spread) of the full build's, and its time against a full rebuild. Seeded
builds are reproducible and not for release: this is a benchmark. Results go to
``benchmarks/results/bench_extend.json`` and ``.md`` (mean ± sd over seeds).

Usage::

    python benchmarks/bench_extend.py                                        # 1,000 + 1,000 notes, seeds 0 1 2
    python benchmarks/bench_extend.py --documents 200 --questions 10 --seeds 0 --out /tmp/bench_extend  # smoke
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
import time
from pathlib import Path

from _common import (answer_corpus, arguments, demo_notes, machine, mean_sd, mean_sd_rows, merge_runs, seed_list,
                     write_results)

from dpsynrag.eval.presets import for_task, get_preset
from dpsynrag.methods.extend import extend_corpus
from dpsynrag.models import Embedder, LanguageModel
from dpsynrag.pipeline.build import build_corpus
from dpsynrag.pipeline.config import BuildConfig
from dpsynrag.privacy.ledger import PrivacyLedger
from dpsynrag.tasks import get_task

VARIANTS = ("full", "base", "extension")
SPLIT_SEED = 0  # public: which notes are "new"


def main(argv: list[str] | None = None) -> int:
    args = arguments(__doc__, "bench_extend", documents_help="both halves together").parse_args(argv)
    if args.merge:
        out, seeds = merge_runs(args.merge)
        return _write(out, seeds, args.out, ["--merge", *args.merge])
    seeds = seed_list(args.seeds)

    preset = get_preset("demo")
    task = get_task("medical")
    documents = demo_notes(args.documents, subset_seed=preset.subset_seed)
    order = list(range(len(documents)))
    random.Random(SPLIT_SEED).shuffle(order)
    half = len(documents) // 2
    old_docs = [documents[i] for i in sorted(order[:half])]
    new_docs = [documents[i] for i in sorted(order[half:])]
    queries = task.load_queries(limit=args.questions or preset.questions)
    top_k, answer_tokens = preset.top_k or task.rag_top_k, preset.answer_tokens
    lm, emb = LanguageModel.load(), Embedder.load()
    params = for_task(preset.synrag, task)
    out: dict = {
        "documents": len(documents), "old": len(old_docs), "new": len(new_docs), "questions": len(queries),
        "top_k": top_k, **machine(lm, emb), "preset": "demo", "parameters": params, "runs": [],
    }

    def answer(corpus) -> dict:
        return answer_corpus(corpus, task, queries, lm=lm, embedder=emb, top_k=top_k, answer_tokens=answer_tokens)[1]

    for seed in seeds:
        config = BuildConfig(epsilon=10.0, delta=1e-3, task="medical", seed=seed, **params)
        with tempfile.TemporaryDirectory() as tmp:
            tmp = Path(tmp)
            ledger = PrivacyLedger(tmp / "ledger")
            runs = {}
            t = time.time()
            full = build_corpus(documents, tmp / "full", config, lm=lm, embedder=emb,
                                identifier_fields=task.identifier_fields)
            runs["full"] = {"seconds": time.time() - t, **answer(full)}
            t = time.time()
            base = build_corpus(old_docs, tmp / "base", config, lm=lm, embedder=emb,
                                identifier_fields=task.identifier_fields, ledger=ledger)
            runs["base"] = {"seconds": time.time() - t, **answer(base)}
            t = time.time()
            grown = extend_corpus("dp-synrag", new_docs, tmp / "base", tmp / "grown", config, lm=lm, embedder=emb,
                                  identifier_fields=task.identifier_fields, ledger=ledger)
            seconds = time.time() - t
            units = ledger.unit_totals()
            owner = json.loads((tmp / "grown.owner.json").read_text())
            runs["extension"] = {
                "seconds": seconds, **answer(grown),
                "epsilon_one_build": grown.manifest["guarantee"]["one_build"]["epsilon"],
                "epsilon_several_builds": grown.manifest["guarantee"]["several_builds"]["epsilon"],
                "dropped_units": owner["extension"]["dropped_units"],  # already in the base corpus: left out
                "ledger_most_spent_releases": units["max"]["releases"], "ledger_units": units["units"],
            }
        for name in VARIANTS:
            run = {"variant": name, "seed": seed, **runs[name]}
            out["runs"].append(run)
            print(json.dumps(run), flush=True)
    return _write(out, seeds, args.out, sys.argv[1:] if argv is None else list(argv))


def _dropped(ext: list[dict]) -> str:
    """Already-built notes the extensions left out (runs made before ``dropped_units`` was recorded: unknown)."""
    known = [r["dropped_units"] for r in ext if "dropped_units" in r]
    missing = len(ext) - len(known)
    return str(sum(known)) + (f" (not recorded in {missing} of {len(ext)} runs)" if missing else "")


def _write(out: dict, seeds: list[int], path: str, command: list[str]) -> int:
    """The results as ``path``.json and a mean ± sd table as ``path``.md."""
    ext = [r for r in out["runs"] if r["variant"] == "extension"]
    lines = [
        f"# Extension vs full build (Medical Synth demo sample: {out['old']} notes, then {out['new']} new ones; "
        f"{out['questions']} questions, demo preset, epsilon=10, delta=1e-3, top-{out['top_k']}, seeds "
        f"{','.join(map(str, seeds))})",
        "",
        *mean_sd_rows(out["runs"], VARIANTS, ("accuracy", "context_recall", "texts_kept", "seconds"), "corpus"),
        "",
        "full: one build over all notes; base: the first half alone; extension: the base corpus extended by a build "
        "over the second half only (its seconds: that build and the merge, not the base).",
        f"Guarantee of the extension: epsilon {mean_sd([r['epsilon_one_build'] for r in ext])} for a note in one "
        f"build (all of them here; already-built notes left out: {_dropped(ext)}), "
        f"{mean_sd([r['epsilon_several_builds'] for r in ext])} for a note in both; the ledger's most-spent note "
        f"was read by {max(r['ledger_most_spent_releases'] for r in ext)} release(s).",
    ]
    return write_results(out, lines, path, "bench_extend.py", command)


if __name__ == "__main__":
    sys.exit(main())
