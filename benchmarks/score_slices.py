"""Score the answers that ``dpsynrag eval`` cached (``OUT/cache/answers/*.jsonl``) on slices of the questions, so
that one run of ``--limit 200`` gives the reported questions 0–99 and held-out 100–199 apart.

Usage::

    python benchmarks/score_slices.py OUT [OUT ...] --task medical --slices 0:100,100:200
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from dpsynrag.tasks import get_task


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="+", help="eval output folders (each with cache/answers)")
    parser.add_argument("--task", default="medical")
    parser.add_argument("--slices", default="0:100,100:200", help="comma-separated start:stop question ranges")
    args = parser.parse_args(argv)
    slices = [tuple(map(int, s.split(":"))) for s in args.slices.split(",")]
    task = get_task(args.task)
    queries = task.load_queries(limit=max(stop for _, stop in slices))
    for run in args.runs:
        for path in sorted(Path(run, "cache", "answers").glob("*.jsonl")):
            records = {r["id"]: r for r in map(json.loads, path.read_text(encoding="utf-8").splitlines()[1:])}
            cells = []
            for start, stop in slices:
                got = [records.get(f"q:{q.id}") for q in queries[start:stop]]
                if not got or None in got:
                    cells.append(f"Q{start}-{stop - 1}: {sum(g is None for g in got)} of {len(got)} unanswered")
                    continue
                accuracy = sum(task.is_correct(g["text"], q) for g, q in zip(got, queries[start:stop])) / len(got)
                recall = sum(bool(g.get("context_hit")) for g in got) / len(got)
                cells.append(f"Q{start}-{stop - 1}: accuracy {accuracy:.2f}, context recall {recall:.2f}")
            print(f"{Path(run).name} {path.stem}: " + " | ".join(cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
