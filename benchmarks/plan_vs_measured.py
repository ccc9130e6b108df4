"""The planner's estimate of a build against the build (issue 44, deliverable 2).

Estimate: ``dpsynrag build --dry-run --expected-documents N`` of the bench_scale workload (Medical Synth notes,
``--task medical --preset cpu --identifier-field patient_name --threads 1``; ``--preset``, ``--text-field`` change
it), run in-process with the clock of
the planner's timing probe (:func:`dpsynrag.commands.plan.time_model`) replaced by the process's CPU clock, as
``benchmarks/bench_scale.py`` replaces the build's stage clocks: on a shared machine the probe then times the
forwards' CPU seconds, not the other jobs. Per stage: :func:`dpsynrag.commands.plan.stage_work`.

Measured: ``benchmarks/results/bench_scale.json`` (CPU seconds per stage of the same build), and with
``--build N`` a build of the first N notes run here (a subprocess; stage clocks on CPU time) whose language-model
and embedder forwards are counted per stage by hooks on the models, so the estimate's counts can be compared too.

With ``--measure-input`` the estimate is ``--dry-run --measure-input`` on bench_scale's own file of N notes
(:func:`bench_scale.write_notes`): the work counted on the documents (owner-only counts) instead of a declared N.

Writes ``benchmarks/results/plan_vs_measured[_PRESET][_FIELD][_measured].json``.

Usage::

    OMP_NUM_THREADS=1 python benchmarks/plan_vs_measured.py --sizes 8000 32000
    OMP_NUM_THREADS=1 python benchmarks/plan_vs_measured.py --sizes 8000 --build 8000 --text-field dialogue
    OMP_NUM_THREADS=1 python benchmarks/plan_vs_measured.py --sizes 8000 32000 --preset paper
    OMP_NUM_THREADS=1 python benchmarks/plan_vs_measured.py --sizes 8000 32000 --measure-input
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_scale import CPUClock, write_notes  # noqa: E402  (the same CPU clock and notes as the measured side)

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
DATA = Path(os.environ.get("DPSYNRAG_SHARED", "/work/shared")) / "data" / "medical_synth" / "database.jsonl"
FLAGS = ["--epsilon", "10", "--delta", "1e-3", "--task", "medical", "--identifier-field", "patient_name",
         "--threads", "1"]
STAGES = {"keyword extraction": "keywords_s", "embeddings": "outlier_removal_s", "private prediction":
          "private_prediction_s", "filters": "self_filter_s"}




def estimate(n: int, extra: list[str], measure: bool = False) -> dict:
    """The dry run's work and per-stage estimate (CPU-timed probe) for a declared ``n`` documents, or with
    ``measure`` counted on bench_scale's file of ``n`` notes (``--measure-input``)."""
    import dpsynrag.commands.plan as plan
    from dpsynrag.cli import app

    seen = {}
    time_model = getattr(plan.time_model, "original", plan.time_model)

    def timed(lm, embedder, config, work, **kw):
        seen.update(config=config, work=work, timing=time_model(lm, embedder, config, work, **kw))
        return seen["timing"]

    timed.original = time_model
    plan.time, plan.time_model = CPUClock(), timed
    with tempfile.TemporaryDirectory() as folder:
        data = DATA
        if measure:
            data = Path(folder) / "notes.jsonl"
            write_notes(n, data)
        args = ["build", str(data), "--out", str(Path(folder) / "c"), *FLAGS, "--dry-run",
                *(["--measure-input"] if measure else ["--expected-documents", str(n)]), *extra]
        try:
            app(args, standalone_mode=False)
        except SystemExit as exc:
            if exc.code:
                raise
    work, timing = seen["work"], seen["timing"]
    stages = {stage: seconds for stage, _, seconds in plan.stage_work(work, timing, seen["config"])}
    return {"documents": n, "work": work.to_dict(), "timing_cpu_s": timing.__dict__, "stages_cpu_s": stages,
            "total_cpu_s": plan.estimate_seconds(work, timing)}


def child(n: int, extra: list[str], folder: Path) -> dict:
    """A build of the first ``n`` notes, stage clocks on CPU time, forwards counted per stage."""
    import torch

    import dpsynrag.corpus.writer as writer
    import dpsynrag.pipeline.build as build
    import dpsynrag.pipeline.run as run
    from dpsynrag.models import Embedder, LanguageModel
    from dpsynrag.pipeline.display import BuildDisplay

    build.time = run.time = writer.time = CPUClock()
    stage = ["setup"]
    start = BuildDisplay.start

    def started(self, name, **kw):
        stage[0] = name
        return start(self, name, **kw)

    BuildDisplay.start = started
    counts: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)

    def hook(kind):
        def count(module, args, kwargs):
            ids = kwargs.get("input_ids", args[0] if args else None)
            ids = ids if torch.is_tensor(ids) else ids["input_ids"]
            rows = int(ids.shape[0])
            what = "embedder forwards" if kind == "embedder" else "prefills" if rows == 1 else "decode forwards"
            counts[stage[0]][what] += 1
            counts[stage[0]][f"{kind} rows"] += rows
        return count

    def loader(cls, kind):
        load = cls.load.__func__

        def loaded(c, *a, **k):
            model = load(c, *a, **k)
            model.model.register_forward_pre_hook(hook(kind), with_kwargs=True)
            return model
        return classmethod(loaded)

    LanguageModel.load, Embedder.load = loader(LanguageModel, "lm"), loader(Embedder, "embedder")
    docs = folder / "notes.jsonl"
    with open(DATA, encoding="utf-8") as src, open(docs, "w", encoding="utf-8") as dst:
        for _, line in zip(range(n), src):
            dst.write(line)
    from dpsynrag.cli import app

    args = ["build", str(docs), "--out", str(folder / "corpus"), *FLAGS, "--seed", "7", "--yes", "--ledger",
            str(folder / "ledger"), *extra]
    try:
        app(args, standalone_mode=False)
    except SystemExit as exc:
        if exc.code:
            raise
    owner = json.loads((folder / "corpus.owner.json").read_text(encoding="utf-8"))
    return {"documents": n, "extra": extra, "timings_cpu_s": owner["timings"],
            "forwards": {k: dict(v) for k, v in counts.items()}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[8000, 32000])
    parser.add_argument("--build", type=int, help="also run and count a build of the first N notes")
    parser.add_argument("--text-field", help="build and estimate with this text field (e.g. dialogue)")
    parser.add_argument("--preset", default="cpu", help="the build's preset (default cpu)")
    parser.add_argument("--measure-input", action="store_true", help="count the work on the notes themselves")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--folder", help=argparse.SUPPRESS)
    args = parser.parse_args()
    extra = ["--preset", args.preset, *(["--text-field", args.text_field] if args.text_field else [])]
    if args.child:
        print("RESULT " + json.dumps(child(args.child, extra, Path(args.folder))))
        return
    record = {"flags": FLAGS + extra + (["--measure-input"] if args.measure_input else []),
              "estimates": [estimate(n, extra, args.measure_input) for n in args.sizes]}
    if not args.text_field and args.preset == "cpu" and (RESULTS / "bench_scale.json").exists():
        scale = json.loads((RESULTS / "bench_scale.json").read_text(encoding="utf-8"))
        record["bench_scale"] = {"commit": scale["commit"], "runs": [  # the local builds' CPU seconds per stage
            {k: r[k] for k in ("documents", "ray_workers", "timings_s", "timings_cpu_s") if k in r} for r in scale["runs"]]}
    if args.build:
        with tempfile.TemporaryDirectory() as folder:
            t = time.time()
            done = subprocess.run([sys.executable, __file__, "--child", str(args.build), "--folder", folder,
                                   "--preset", args.preset, *(["--text-field", args.text_field] if args.text_field else [])],
                                  capture_output=True, text=True, env={**os.environ, "OMP_NUM_THREADS": "1"})
            if done.returncode:
                sys.exit(done.stderr[-4000:])
            record["build"] = json.loads(next(line[7:] for line in done.stdout.splitlines() if line.startswith("RESULT ")))
            record["build"]["wall_s"] = time.time() - t
    measured = {r["documents"]: r.get("timings_s") or r["timings_cpu_s"]  # CPU seconds (the key of older results)
                for r in record.get("bench_scale", {}).get("runs", []) if not r.get("ray_workers")}
    if "build" in record:
        measured[args.build] = record["build"]["timings_cpu_s"]
    for e in record["estimates"]:
        if e["documents"] in measured:
            e["measured_cpu_s"] = compare(e, measured[e["documents"]])
        print(e["documents"], json.dumps(e.get("measured_cpu_s") or e["stages_cpu_s"]))
    name = "_".join(["plan_vs_measured", *([args.preset] if args.preset != "cpu" else []),
                     *([args.text_field] if args.text_field else []),
                     *(["measured"] if args.measure_input else [])]) + ".json"
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / name).write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")


def compare(estimate: dict, timings: dict) -> dict:
    """Per stage (and in total): the estimate, the measured CPU seconds and estimate / measured."""
    out = {}
    pairs = [(stage, estimate["stages_cpu_s"].get(stage, 0.0), timings.get(key, 0.0)) for stage, key in STAGES.items()]
    for stage, est, got in [*pairs, ("total", estimate["total_cpu_s"], timings["total_s"])]:
        out[stage] = {"estimate": round(est, 1), "measured": round(got, 1), "ratio": round(est / got, 2) if got else None}
    return out


if __name__ == "__main__":
    main()
