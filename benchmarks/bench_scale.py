"""CPU seconds per document of each stage of a DP-SynRAG build at 2,000 and 8,000 documents (issue 44, item 5).

Workload: the first N Medical Synth notes (``shared/data/medical_synth/database.jsonl``, 8,000 rows), built
from the file path with the cpu preset (rarity keywords, R = 48, k = 30, T = 48, public-prior decoding, the
fluency filter), each document's own name redacted (``--identifier-field patient_name``), seeded, one torch
thread, the offline models (SmolLM2-135M-Instruct, all-MiniLM-L6-v2).

Each size runs in a fresh subprocess that runs ``dpsynrag build`` in-process with the clock of the owner
record's stage times (``time.time`` in :mod:`dpsynrag.pipeline.build` and :mod:`dpsynrag.pipeline.run`)
replaced by the process's CPU clock (``time.process_time``, all threads): the owner record's ``*_s`` are then
CPU seconds of each stage, its ``total_s`` the CPU seconds from the start of the build (models loaded inside
it, ~6 s); "outside the stages" is total minus the stages. Peak memory: the child's ``ru_maxrss``.

Writes ``benchmarks/results/bench_scale.json`` and ``bench_scale.md``.

Usage::

    OMP_NUM_THREADS=1 python benchmarks/bench_scale.py                 # 2,000 and 8,000
    OMP_NUM_THREADS=1 python benchmarks/bench_scale.py --sizes 500
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
DATA = Path(os.environ.get("DPSYNRAG_SHARED", "/work/shared")) / "data" / "medical_synth" / "database.jsonl"
STAGES = ("read_and_redact_s", "keywords_s", "outlier_removal_s", "private_prediction_s", "self_filter_s")


def child(n: int, folder: Path) -> dict:
    """One build of the first ``n`` notes, stage clocks on CPU time; returns the owner record's timings."""
    import dpsynrag.pipeline.build as build
    import dpsynrag.pipeline.run as run

    class CPUClock:  # the stage timers read CPU seconds instead of wall seconds
        def __getattr__(self, name):
            return getattr(time, name)

        @staticmethod
        def time():
            return time.process_time()

    build.time = run.time = CPUClock()
    import dpsynrag.corpus.writer as writer

    writer.time = CPUClock()  # total_s: CPU seconds from the start of the build
    docs = folder / f"notes{n}.jsonl"
    with open(DATA, encoding="utf-8") as src, open(docs, "w", encoding="utf-8") as dst:
        for _, line in zip(range(n), src):
            dst.write(line)
    from dpsynrag.cli import app

    out = folder / "corpus"
    args = ["build", str(docs), "--out", str(out), "--epsilon", "10", "--delta", "1e-3", "--task", "medical",
            "--preset", "cpu", "--identifier-field", "patient_name", "--seed", "7", "--threads", "1", "--yes",
            "--ledger", str(folder / "ledger")]
    try:
        app(args, standalone_mode=False)
    except SystemExit as exc:
        if exc.code:
            raise
    owner = json.loads((folder / "corpus.owner.json").read_text(encoding="utf-8"))
    texts = (out / "texts.jsonl").read_bytes()
    import hashlib

    return {"documents": n, "timings_cpu_s": owner["timings"], "texts_sha256": hashlib.sha256(texts).hexdigest(),
            "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def row(result: dict) -> dict:
    t, n = result["timings_cpu_s"], result["documents"]
    stages = {k: t.get(k, 0.0) for k in STAGES}
    outside = t["total_s"] - sum(stages.values())
    per_doc = {k.removesuffix("_s"): 1e3 * v / n for k, v in stages.items()}
    return {**result, "ms_per_document": {**per_doc, "outside_stages": 1e3 * outside / n,
                                          "all_but_private_prediction": 1e3 * (t["total_s"] - stages["private_prediction_s"]) / n}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[2000, 8000])
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--folder", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print("RESULT " + json.dumps(child(args.child, Path(args.folder))))
        return
    rows = []
    for n in args.sizes:
        with tempfile.TemporaryDirectory() as folder:
            t = time.time()
            done = subprocess.run([sys.executable, __file__, "--child", str(n), "--folder", folder],
                                  capture_output=True, text=True, env={**os.environ, "OMP_NUM_THREADS": "1"})
            if done.returncode:
                sys.exit(done.stderr[-4000:])
            result = json.loads(next(line[7:] for line in done.stdout.splitlines() if line.startswith("RESULT ")))
            rows.append(row({**result, "wall_s": time.time() - t}))
            print(json.dumps(rows[-1]["ms_per_document"]), flush=True)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT).stdout.strip()
    record = {"commit": commit, "machine": {"cpu_count": os.cpu_count(), "platform": platform.platform()}, "runs": rows}
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "bench_scale.json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    lines = [f"# bench_scale ({commit}): CPU ms per document per stage, cpu preset, one thread", "",
             "| documents | read+redact+cut | keywords | embeddings+outliers | private prediction | filter | "
             "outside stages | all but private prediction | peak RSS MiB |", "|---" * 9 + "|"]
    for r in rows:
        m = r["ms_per_document"]
        lines.append(f"| {r['documents']} | {m['read_and_redact']:.2f} | {m['keywords']:.2f} | "
                     f"{m['outlier_removal']:.2f} | {m['private_prediction']:.2f} | {m['self_filter']:.2f} | "
                     f"{m['outside_stages']:.2f} | {m['all_but_private_prediction']:.2f} | {r['peak_rss_mib']:.0f} |")
    (RESULTS / "bench_scale.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
