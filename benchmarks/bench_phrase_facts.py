"""Diagnostic of the phrase synthesis on a generated own-data collection (benchmarks/owndata): with each request
type as one cluster (the clustering a perfect topic model would give; the build's DP clustering is not run) and
no noise, which types' facts would the phrase release carry into their cluster's text at the planned threshold?

Each record's identifier fields are replaced by ``[REDACTED]`` (as ``--identifier-field``); its phrase set is
``document_phrases`` (no keyword preference: the types have no released keyword here); a phrase is kept when
its exact count exceeds the threshold τ_p of ``BuildConfig(..., synthesis="phrases").calibrate()`` at ε = 10,
δ = 1e-3 with the cpu preset's K = 1, L = 1. Noise would move each count by σ_p (about 1.4-2.8), so this
is an upper bound on what the release carries, not a measurement of it. Not private (reads the types and the
exact counts): a development tool for choosing m and n on validation collections.

Usage::

    .venv/bin/python benchmarks/bench_phrase_facts.py runs/owndata/bank-s0 --m 8 16 32 --n 3 4
"""

from __future__ import annotations

import argparse
import json
from collections import Counter, defaultdict
from pathlib import Path

from dpsynrag.pipeline.config import BuildConfig
from dpsynrag.pipeline.phrases import document_phrases, phrase_text


def facts_carried(folder: Path, m: int, n: int) -> tuple[int, int, float]:
    """(types whose fact is in their text, types, τ_p) for one collection folder."""
    public = json.loads((folder / "public.json").read_text())
    meta = json.loads((folder / "meta.json").read_text())
    tau = BuildConfig(epsilon=10.0, delta=1e-3, K=1, L=1, open_vocabulary=True, synthesis="phrases",
                      phrase_max=m, phrase_n=n).calibrate().phrase_threshold
    by_type = defaultdict(list)
    for line in (folder / "records.jsonl").read_text().splitlines():
        record = json.loads(line)
        text = record["text"]
        for field in public["identifier_fields"]:
            if record.get(field):
                text = text.replace(str(record[field]), "[REDACTED]")
        by_type[record["type"]].append(text)
    carried = 0
    for kind, texts in by_type.items():
        counts = Counter(p for t in texts for p in document_phrases(t, n=n, max_phrases=m, placeholder="[REDACTED]"))
        text = phrase_text({p: c for p, c in counts.items() if c > tau}, n=n)
        carried += meta["facts"][kind].lower() in text.lower()
    return carried, len(by_type), tau


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folders", nargs="+", type=Path, help="collection folders written by benchmarks.owndata.generate")
    parser.add_argument("--m", nargs="+", type=int, default=[8, 16, 32])
    parser.add_argument("--n", nargs="+", type=int, default=[3, 4])
    args = parser.parse_args(argv)
    print("| collection | m | n | tau_p | facts carried |\n|---|---|---|---|---|")
    for folder in args.folders:
        for m in args.m:
            for n in args.n:
                carried, types, tau = facts_carried(folder, m, n)
                print(f"| {folder.name} | {m} | {n} | {tau:g} | {carried} of {types} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
