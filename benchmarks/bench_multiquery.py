"""Accuracy against the number of queries m at one total privacy budget (issue 45): the query-time methods
(DP-RAG and its rivals MuRAG, MuRAG-Ada, DPVoteRAG, DPSparseVoteRAG, DP-KSA) against synthetic corpora.

For each method, seed and m, one session over the private collection answers the first m validation
questions within the **whole** budget (ε = ``--epsilon``, δ = ``--delta``, default 10 and 1e-3):

* DP-RAG: zCDP composition, each query ρ(ε, δ)/m (``epsilon_per_query`` = that ρ converted at δ);
* DPVoteRAG, DPSparseVoteRAG, DP-KSA: ``queries`` = m (the budget split over the m planned answers);
* MuRAG, MuRAG-Ada: the per-document filter budget ρ(ε, δ), whatever m;
* ``--corpus DIR`` (repeatable): a synthetic corpus already built at that budget (``dpsynrag build``,
  DP-SynRAG or one of its syntheses) answers the same questions for free: one accuracy for every m.

Accuracy at m is over the m questions the session answered (the task's scoring). Results:
``benchmarks/results/bench_multiquery.{json,md}`` (or ``--out``). Data: Medical Synth (``--task medical``, the
default) or an own-data collection made by ``benchmarks/owndata`` (``--task own --database records.jsonl
--queries questions.jsonl``).

The full curve (m = 1 … 1,000, 3 seeds) needs a GPU; on a shared CPU run a smoke only::

    OMP_NUM_THREADS=1 python benchmarks/bench_multiquery.py --m 1,3 --seeds 0 --documents 200 --T 8 \\
        --methods dp-rag,murag,murag-ada,dp-vote-rag,dp-sparse-vote-rag,dp-ksa --out /tmp/mq_smoke
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

from dpsynrag.baselines import DPRAGConfig, DPRAGSession
from dpsynrag.methods import get_method
from dpsynrag.privacy.conversions import epsilon_from_rho, rho_from_epsilon

HERE = Path(__file__).resolve().parent
RIVALS = ("murag", "murag-ada", "dp-vote-rag", "dp-sparse-vote-rag", "dp-ksa")


def arguments(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--methods", default=",".join(("dp-rag", *RIVALS)))
    p.add_argument("--m", default="1,10,100,1000", help="numbers of queries, comma-separated")
    p.add_argument("--seeds", default="0,1,2")
    p.add_argument("--epsilon", type=float, default=10.0)
    p.add_argument("--delta", type=float, default=1e-3)
    p.add_argument("--documents", type=int, default=2000, help="a public-seed subset of the collection")
    p.add_argument("--T", type=int, default=16, help="answer tokens of every method")
    p.add_argument("--task", default="medical")
    p.add_argument("--database", default=None, help="the task's data folder, or the document file of task 'own'")
    p.add_argument("--queries", default=None, help="a question file (task 'own': JSON lines with question, answers)")
    p.add_argument("--corpus", action="append", default=[], help="a synthetic corpus folder (repeatable)")
    p.add_argument("--model", default=None)
    p.add_argument("--embedder", default=None)
    p.add_argument("--out", default=str(HERE / "results" / "bench_multiquery"))
    return p.parse_args(argv)


def session(method: str, docs, m: int, args, *, lm, embedder, task, seed: int):
    """One session of ``method`` that may answer m questions within (ε, δ) in total."""
    if method == "dp-rag":
        eps_q = epsilon_from_rho(rho_from_epsilon(args.epsilon, args.delta) / m, args.delta)
        cfg = DPRAGConfig(epsilon_per_query=eps_q, delta=args.delta, max_new_tokens=args.T)
        return DPRAGSession(docs, cfg, lm=lm, embedder=embedder, task=task, total_epsilon=args.epsilon,
                            composition="zcdp", seed=seed)
    impl = get_method(method)
    fields = {"epsilon": args.epsilon, "delta": args.delta, "max_new_tokens": args.T}
    if "queries" in impl.config_type.model_fields:
        fields["queries"] = m
    return impl.session(docs, fields, lm=lm, embedder=embedder, task=task, seed=seed)


def main(argv=None) -> int:
    args = arguments(argv)
    from dpsynrag.corpus import SyntheticCorpus
    from dpsynrag.models import Embedder, LanguageModel
    from dpsynrag.tasks import get_task

    task = get_task(args.task)
    docs = task.load_database(args.database)
    if args.documents < len(docs):  # public seed 0: the same subset for every method and seed
        docs = [docs[i] for i in sorted(random.Random(0).sample(range(len(docs)), args.documents))]
    ms = sorted(int(x) for x in args.m.split(","))
    queries = task.load_queries(args.queries, limit=max(ms))
    if len(queries) < max(ms):
        raise SystemExit(f"only {len(queries)} questions for m up to {max(ms)}: lower --m.")
    embedder, lm = Embedder.load(args.embedder), LanguageModel.load(args.model)
    runs = []
    for method in [m for m in args.methods.split(",") if m]:
        for seed in (int(s) for s in args.seeds.split(",")):
            for m in ms:
                t = time.time()
                s = session(method, docs, m, args, lm=lm, embedder=embedder, task=task, seed=seed)
                answers = s.answer([q.question for q in queries[:m]])
                acc = sum(task.is_correct(a.text, q) for a, q in zip(answers, queries)) / m
                runs.append({"method": method, "seed": seed, "m": m, "accuracy": acc, "seconds": time.time() - t,
                             "epsilon": s.report().epsilon})
                print(json.dumps(runs[-1]), file=sys.stderr)
    for folder in args.corpus:
        corpus = SyntheticCorpus.load(Path(folder))
        answerer = corpus.answerer(lm=lm, embedder=embedder, top_k=5, system_prompt=task.answer_system_prompt,
                                   max_new_tokens=args.T)
        answers = answerer.answer([q.question for q in queries])
        for m in ms:
            acc = sum(task.is_correct(a.text, q) for a, q in zip(answers[:m], queries)) / m
            runs.append({"method": f"corpus:{Path(folder).name}", "seed": None, "m": m, "accuracy": acc,
                         "epsilon": corpus.privacy_report.epsilon})
    names = list(dict.fromkeys(r["method"] for r in runs))
    lines = [f"Accuracy against m at total epsilon={args.epsilon:g}, delta={args.delta:g} ({args.task}, "
             f"{len(docs)} documents, seeds {args.seeds}; mean over seeds)", "",
             "| method | " + " | ".join(f"m={m}" for m in ms) + " |", "|---|" + "---|" * len(ms)]
    for name in names:
        cells = []
        for m in ms:
            vals = [r["accuracy"] for r in runs if r["method"] == name and r["m"] == m]
            cells.append(f"{sum(vals) / len(vals):.3f}" if vals else "n/a")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines += ["", "Command: python benchmarks/bench_multiquery.py " + " ".join(argv if argv is not None else sys.argv[1:])]
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out + ".json").write_text(json.dumps({"args": vars(args), "runs": runs}, indent=2))
    Path(args.out + ".md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
