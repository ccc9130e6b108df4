"""LLM keyword extraction on the first N Medical Synth notes: CPU seconds per note and how full its decode
forwards are (issue 44, deliverable 2).

Each note's patient name is replaced by the redaction placeholder and the text cut to ``--cut`` tokens and put
in the keyword view, as a build's keyword stage reads it; :func:`~dpsynrag.pipeline.keywords.extract_keyword_sets`
runs the paper preset's extractor (K words, 6·K new tokens, the offline SmolLM2) on one thread. Counted:
prompt forwards (``RowBatch`` prefills) and, at each decode step, the live rows and the forwards of
``step_rows`` rows they take; "fill" is live rows / (forwards × step_rows).

Prints one JSON line; ``--sets FILE`` writes the keyword sets (compare two commits' files for equality).

Usage::

    OMP_NUM_THREADS=1 python benchmarks/bench_keyword_rows.py --documents 200 --field text --sets after.json
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

DATA = Path(os.environ.get("DPSYNRAG_SHARED", "/work/shared")) / "data" / "medical_synth" / "database.jsonl"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--documents", type=int, default=200)
    parser.add_argument("--field", default="text", help="text or dialogue")
    parser.add_argument("--K", type=int, default=10)
    parser.add_argument("--cut", type=int, default=256, help="--max-document-tokens")
    parser.add_argument("--sets", help="write the keyword sets here (JSON)")
    args = parser.parse_args()

    import torch

    torch.set_num_threads(1)
    from dpsynrag.data.words import keyword_view
    from dpsynrag.models import LanguageModel, engine
    from dpsynrag.pipeline.keywords import LLMKeywordExtractor, extract_keyword_sets

    with open(DATA, encoding="utf-8") as f:
        rows = [json.loads(line) for _, line in zip(range(args.documents), f)]
    lm = LanguageModel.load(None, device="cpu")
    placeholder = "[REDACTED]"
    texts = [keyword_view(lm.truncate(r[args.field].replace(r["patient_name"], placeholder), args.cut), placeholder)
             for r in rows]
    seen = {"prefills": 0, "decode_forwards": 0, "live_rows": 0, "step_rows": 0}
    step, prefill = engine.RowBatch.step, engine.RowBatch._prefill_one

    def counted_step(self, tokens):
        seen["decode_forwards"] += -(-self.rows // self.step_rows)
        seen["live_rows"] += self.rows
        seen["step_rows"] = self.step_rows
        return step(self, tokens)

    def counted_prefill(self, *a, **k):
        seen["prefills"] += 1
        return prefill(self, *a, **k)

    engine.RowBatch.step, engine.RowBatch._prefill_one = counted_step, counted_prefill
    t = time.process_time()
    sets = extract_keyword_sets(LLMKeywordExtractor(lm, K=args.K), texts, max_keywords=args.K)
    cpu = time.process_time() - t
    fill = seen["live_rows"] / max(1, seen["decode_forwards"] * seen["step_rows"])
    print(json.dumps({"documents": len(texts), "field": args.field, "distinct": len(set(texts)), "K": args.K,
                      "cpu_s_per_document": round(cpu / len(texts), 4), **seen, "fill": round(fill, 3),
                      "keywords": sum(len(s) for s in sets)}))
    if args.sets:
        Path(args.sets).write_text(json.dumps([list(s) for s in sets]), encoding="utf-8")


if __name__ == "__main__":
    main()
