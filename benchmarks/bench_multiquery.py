"""Accuracy against the number of questions m one budget must pay for (issue 53): DP-SynRAG's corpus against
the six query-time methods (DP-RAG, MuRAG, MuRAG-Ada, DPVoteRAG, DPSparseVoteRAG, DP-KSA), all at one total
budget (ε = ``--epsilon``, δ = ``--delta``, default 10 and 1e-3).

A point (method, m) is the accuracy on the same ``--questions`` n answered questions (``--first``: the index
of the first one; questions 0-9 chose DP-RAG's defaults, so the default starts at 100), measured without
answering m questions:

* **per-question methods** (DP-RAG: zCDP composition, each question ρ(ε, δ)/m; DPVoteRAG,
  DPSparseVoteRAG, DP-KSA: ``queries`` = m, each with its own calibration): the answer to a question depends
  only on the per-question budget m implies, so the n questions are answered by ⌈n/m⌉ sessions planned for
  m questions each, every session within (ε, δ);
* **MuRAG, MuRAG-Ada** (a per-document filter of budget ρ(ε, δ) whatever m): what m changes is which
  documents have spent their uses. For m >= n one session first runs m − n other questions through retrieval
  and the filter's charges only (:meth:`~dpsynrag.baselines.murag.MuRAGSession.spend`: the same charges,
  no answer), then answers the n questions; for m < n, ⌈n/m⌉ sessions of m questions;
* **DP-SynRAG** (``--corpus DIR``, repeatable: a corpus built at this budget): flat in m by construction,
  answered once.

Results: ``{--out}.json`` (every point's per-question correctness and seconds) and ``{--out}.md`` (table,
mean over seeds, with the command), and ``{--out}.png``. Data: Medical Synth (``--task medical``) or an
own-data collection (``--task own --database records.jsonl --queries questions.jsonl``). The full curve
(n = 100, 3 seeds, two data sets) needs a GPU; on 2 CPU cores see ``benchmarks/results/bench_multiquery_cpu.md``
for what was measured and each method's seconds per question::

    OMP_NUM_THREADS=2 python benchmarks/bench_multiquery.py --m 1,10,100,1000 --questions 100 --seeds 0,1,2 \\
        --corpus runs/medical-eps10 --out benchmarks/results/bench_multiquery
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import textwrap
import time
from pathlib import Path

from dpsynrag.baselines import DPRAGConfig, DPRAGSession
from dpsynrag.methods import get_method
from dpsynrag.privacy.conversions import epsilon_from_rho, rho_from_epsilon

HERE = Path(__file__).resolve().parent
RIVALS = ("murag", "murag-ada", "dp-vote-rag", "dp-sparse-vote-rag", "dp-ksa")
FILTERS = ("murag", "murag-ada")


def arguments(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--methods", default=",".join(("dp-rag", *RIVALS)))
    p.add_argument("--m", default="1,10,100,1000", help="numbers of questions, comma-separated")
    p.add_argument("--questions", type=int, default=100, help="n questions answered per point")
    p.add_argument("--first", type=int, default=100, help="index of the first answered question")
    p.add_argument("--seeds", default="0,1,2")
    p.add_argument("--epsilon", type=float, default=10.0)
    p.add_argument("--delta", type=float, default=1e-3)
    p.add_argument("--documents", type=int, default=2000, help="a public-seed subset of the collection")
    p.add_argument("--T", type=int, default=24, help="answer tokens of every method (the CPU presets' 24)")
    p.add_argument("--task", default="medical")
    p.add_argument("--database", default=None, help="the task's data folder, or the document file of task 'own'")
    p.add_argument("--queries", default=None, help="a question file (task 'own': JSON lines with question, answers)")
    p.add_argument("--corpus", action="append", default=[], help="a synthetic corpus folder (repeatable)")
    p.add_argument("--model", default=None)
    p.add_argument("--embedder", default=None)
    p.add_argument("--out", default=str(HERE / "results" / "bench_multiquery"))
    return p.parse_args(argv)


class CachedEmbedder:
    """The embedder with each text's embedding kept: the ⌈n/m⌉ sessions of one point embed the same
    collection (embedding is a function of each text alone, so the values are those a fresh session computes)."""

    def __init__(self, embedder):
        self._embedder, self._cache = embedder, {}

    def encode(self, texts, **kwargs):
        import numpy as np

        missing = list(dict.fromkeys(t for t in texts if t not in self._cache))
        if missing:
            self._cache.update(zip(missing, self._embedder.encode(missing, **kwargs)))
        return np.stack([self._cache[t] for t in texts]) if texts else self._embedder.encode([], **kwargs)

    def __getattr__(self, name):
        return getattr(self._embedder, name)


def session(method: str, docs, m: int, args, *, lm, embedder, task, seed: int):
    """One session of ``method`` within (ε, δ) in total, planned for m questions."""
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


def point(method: str, docs, m: int, answered, others, args, *, lm, embedder, task, seed: int):
    """Correctness of each answered question at m, and the sessions' ε (each within the budget)."""
    n = len(answered)
    texts, epsilons = [], []
    if method in FILTERS and m >= n:
        s = session(method, docs, m, args, lm=lm, embedder=embedder, task=task, seed=seed)
        s.spend([q.question for q in others[: m - n]])
        texts = [a.text for a in s.answer([q.question for q in answered])]
        epsilons.append(s.report().epsilon)
    else:
        for k in range(math.ceil(n / m)):  # ⌈n/m⌉ sessions, each planned for m questions
            chunk = answered[k * m:(k + 1) * m]
            s = session(method, docs, m, args, lm=lm, embedder=embedder, task=task, seed=seed * 100_003 + k)
            texts += [a.text for a in s.answer([q.question for q in chunk])]
            epsilons.append(s.report().epsilon)
    return [bool(task.is_correct(t, q)) for t, q in zip(texts, answered)], max(epsilons), texts  # ε: the most a session spent


def table(runs, ms, header):
    names = list(dict.fromkeys(r["method"] for r in runs))
    lines = [header, "", "| method | " + " | ".join(f"m={m}" for m in ms) + " | s/question |",
             "|---|" + "---|" * (len(ms) + 1)]
    for name in names:
        cells = []
        for m in ms:
            vals = [r["accuracy"] for r in runs if r["method"] == name and r["m"] == m]
            cells.append(f"{100 * sum(vals) / len(vals):.1f}%" if vals else "n/a")
        secs = [r["seconds"] / r["answered"] for r in runs if r["method"] == name and r.get("seconds")]
        per_question = f"{sum(secs) / len(secs):.1f}" if secs else ""
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {per_question} |")
    return lines


def plot(runs, ms, path, title):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for name in dict.fromkeys(r["method"] for r in runs):
        ys = []
        for m in ms:
            vals = [r["accuracy"] for r in runs if r["method"] == name and r["m"] == m]
            ys.append(100 * sum(vals) / len(vals) if vals else float("nan"))
        ax.plot(ms, ys, marker="o", linestyle="--" if name.startswith("corpus:") else "-", label=name)
    ax.set_xscale("log")
    ax.set_xlabel("questions m paid by one budget")
    ax.set_ylabel("accuracy (%)")
    ax.set_title("\n".join(textwrap.wrap(title, 90)), fontsize=8)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


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
    queries = task.load_queries(args.queries)
    n, first = args.questions, args.first
    answered = queries[first:first + n]
    others = queries[:first] + queries[first + n:]  # MuRAG's earlier questions: never the answered ones
    if len(answered) < n or len(others) < max(ms) - n:
        raise SystemExit(f"{len(queries)} questions: not enough for n={n} from {first} and m up to {max(ms)}.")
    embedder, lm = CachedEmbedder(Embedder.load(args.embedder)), LanguageModel.load(args.model)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    runs = []

    def save():
        header = (f"Accuracy against m at total epsilon={args.epsilon:g}, delta={args.delta:g} ({args.task}, "
                  f"{len(docs)} documents, questions {first}-{first + n - 1}, seeds {args.seeds}, T={args.T}; "
                  "mean over seeds)")
        lines = table(runs, ms, header)
        lines += ["", "Command: python benchmarks/bench_multiquery.py "
                  + " ".join(argv if argv is not None else sys.argv[1:])]
        out.with_suffix(".json").write_text(json.dumps({"args": vars(args), "runs": runs}, indent=2))
        out.with_suffix(".md").write_text("\n".join(lines) + "\n")
        plot(runs, ms, out.with_suffix(".png"), header)
        return lines

    for folder in args.corpus:
        corpus = SyntheticCorpus.load(Path(folder))
        answerer = corpus.answerer(lm=lm, embedder=embedder, top_k=5, system_prompt=task.answer_system_prompt,
                                   max_new_tokens=args.T, repeat_copies=True)  # as the evaluation harness
        t = time.time()
        texts = [a.text for a in answerer.answer([q.question for q in answered])]
        correct = [bool(task.is_correct(x, q)) for x, q in zip(texts, answered)]
        for m in ms:  # flat in m: one corpus, any number of questions
            runs.append({"method": f"corpus:{Path(folder).name}", "seed": None, "m": m, "answered": n,
                         "accuracy": sum(correct) / n, "correct": correct, "seconds": time.time() - t if m == ms[0]
                         else None, "epsilon_spent": corpus.privacy_report.epsilon})
        save()
    for method in [m for m in args.methods.split(",") if m]:
        for seed in (int(s) for s in args.seeds.split(",")):
            for m in ms:
                t = time.time()
                correct, eps, texts = point(method, docs, m, answered, others, args, lm=lm, embedder=embedder,
                                            task=task, seed=seed)
                runs.append({"method": method, "seed": seed, "m": m, "answered": n, "accuracy": sum(correct) / n,
                             "correct": correct, "seconds": time.time() - t, "epsilon_spent": eps,
                             "answers": texts[:3]})
                print(json.dumps({k: v for k, v in runs[-1].items() if k != "correct"}), file=sys.stderr, flush=True)
                save()
    print("\n".join(save()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
