"""What the answerer can do with a *perfect* synthetic corpus (a diagnostic, not a method; no DP).

DP-SynRAG writes one text per released keyword (per member group with ``--group-size``). This
benchmark replaces those texts by the ground truth — for the most frequent diseases of the demo's
2,000 documents, the record template without the patient's name ("Given the symptoms (...). The
diagnosis is X, the treatment should be Y.") — and answers the demo's 100 questions over them with
the same answerer, top-k and scoring as ``bench_utility.py``. It bounds what any corpus with that
many texts per topic can reach with this answerer, whatever the privacy mechanism:

* ``one-per-disease``: one perfect text for each of the 48 most frequent diseases, at top-5, top-3, top-1;
* ``copies-g``: ⌊count / g⌋ (at least 1) copies per disease, the number of texts member groups of
  g documents would write (``--group-size g``).

It reads the non-private fields of Medical Synth (disease, symptoms, treatment) to build the texts:
a benchmark of the answering side only. Results: ``benchmarks/results/bench_answer_ceiling.{json,md}``.

Usage::

    OMP_NUM_THREADS=1 python benchmarks/bench_answer_ceiling.py
"""

from __future__ import annotations

import argparse
import collections
import json
import random
import sys
import time
from pathlib import Path

import torch

from dpsynrag.eval.scoring import context_recall
from dpsynrag.models import Embedder, LanguageModel
from dpsynrag.rag import RAGAnswerer
from dpsynrag.tasks import get_task

ANSWER_TOKENS = 24


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--documents", type=int, default=2000)
    parser.add_argument("--questions", type=int, default=100)
    parser.add_argument("--diseases", type=int, default=48, help="the most frequent diseases given a text (R)")
    parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "bench_answer_ceiling"))
    args = parser.parse_args(argv)

    task = get_task("medical")
    rows = [json.loads(line) for line in (task.data_dir() / "database.jsonl").open(encoding="utf-8")]
    if args.documents < len(rows):  # the demo's subset: public seed 0
        keep = sorted(random.Random(0).sample(range(len(rows)), args.documents))
        rows = [rows[i] for i in keep]
    queries = task.load_queries(limit=args.questions)
    questions = [q.question for q in queries]
    counts = collections.Counter(r["disease"] for r in rows)
    info = {r["disease"]: r for r in rows}
    top = [d for d, _ in counts.most_common(args.diseases)]

    def text(disease: str) -> str:
        r = info[disease]
        return (f"Given the symptoms ({', '.join(r['symptoms'])}). The diagnosis is {disease}, "
                f"the treatment should be {r['treatment']}.")

    lm, emb = LanguageModel.load(), Embedder.load()
    runs = []

    def run(name: str, texts: list[str], top_k: int) -> None:
        t = time.time()
        answerer = RAGAnswerer(lm, emb, texts, top_k=top_k, system_prompt=task.answer_system_prompt,
                               max_new_tokens=ANSWER_TOKENS)
        answers = answerer.answer(questions)
        row = {"corpus": name, "texts": len(texts), "top_k": top_k,
               "accuracy": sum(task.is_correct(a.text, q) for a, q in zip(answers, queries)) / len(queries),
               "context_recall": context_recall([a.context for a in answers], queries, task),
               "seconds": time.time() - t}
        runs.append(row)
        print(json.dumps(row), flush=True)

    for k in (5, 3, 1):
        run("one-per-disease", [text(d) for d in top], k)
    for g in (40, 25, 15, 10):
        run(f"copies-{g}", [text(d) for d in top for _ in range(max(1, counts[d] // g))], 5)

    covered = sum(q.answers[0] in top for q in queries) / len(queries)
    out = {"documents": len(rows), "questions": len(queries), "diseases": len(top), "questions_covered": covered,
           "model": lm.name, "embedder": emb.name, "torch_threads": torch.get_num_threads(), "runs": runs}
    lines = [f"# Answer ceiling (Medical Synth, {len(rows)} documents, {len(queries)} questions, perfect texts for "
             f"the {len(top)} most frequent diseases, covering {covered:.0%} of the questions)", "",
             "| corpus | texts | top-k | accuracy | context recall |", "|---|---|---|---|---|"]
    lines += [f"| {r['corpus']} | {r['texts']} | {r['top_k']} | {r['accuracy']:.2f} | {r['context_recall']:.2f} |"
              for r in runs]
    lines += ["", "Command: python benchmarks/bench_answer_ceiling.py " + " ".join(sys.argv[1:] if argv is None else argv)]
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out + ".json").write_text(json.dumps(out, indent=2))
    Path(args.out + ".md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
