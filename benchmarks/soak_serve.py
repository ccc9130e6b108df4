"""Soak test of ``dpsynrag serve`` (issue 31, item 2): ``--minutes`` (default 10) of ``POST /v1/retrieve`` at
a fixed rate, expecting zero errors and flat memory.

Starts ``dpsynrag serve CORPUS --retrieval-only`` (the micro-batched service with its default settings, or
``--max-batch``/``--max-wait-ms``/``--queue-size``) as a separate process on loopback, as
``benchmarks/bench_serve.py`` does (same stand-in corpus and questions), sends ``--warmup`` requests, then
sends requests **open loop** at ``--rate`` requests/s: request i is due at ``start + i / rate`` whatever
the earlier ones are doing (``--workers`` client threads, one keep-alive connection each; a request that
no worker is free to send on time is sent late and its lateness is reported). Every ``--sample-s``
seconds it records the server's resident set size (``VmRSS`` of ``/proc/PID/status``, Linux).

Default rate: the batched throughput measured by the last ``bench_serve.py`` run
(``benchmarks/results/bench_serve.json``, ``after.throughput_rps``), i.e. the measured capacity.

Reports, per minute and overall: requests, errors (a transport error or any status but 200: a 503 of a
full queue and a 504 of a timeout count), latency p50/p95/max, RSS. Memory is called flat when the
least-squares slope of RSS over the samples after the first ``--settle-min`` minutes, times the length of
that window, is under ``--flat-mib`` MiB (default 16: allocator noise, far below a leak of even one
kilobyte per request at these rates). Writes ``benchmarks/results/soak_serve.json`` and ``.md``; exits 1
when there were errors or memory was not flat.

Usage::

    OMP_NUM_THREADS=1 python benchmarks/soak_serve.py                         # 10 min at the measured capacity
    OMP_NUM_THREADS=1 python benchmarks/soak_serve.py --minutes 0.5 --rate 20 --texts 100 --out /tmp/s.json  # quick
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
import numpy as np
from bench_serve import QUESTIONS, running_service, standin_corpus

RESULTS = Path(__file__).parent / "results"


def rss_mib(pid: int) -> float:
    """Resident set size of process ``pid``, MiB (``VmRSS``).

    Raises:
        SystemExit: ``/proc/PID/status`` cannot be read (not Linux, or the process is gone).
    """
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    sys.exit(f"cannot read the resident set size of process {pid} from /proc (this soak needs Linux).")


def percentiles(seconds: list[float]) -> dict:
    if not seconds:
        return {"p50": None, "p95": None, "max": None}
    ms = np.array(seconds) * 1000
    return {"p50": round(float(np.percentile(ms, 50)), 2), "p95": round(float(np.percentile(ms, 95)), 2),
            "max": round(float(ms.max()), 2)}


def soak(url: str, pid: int, *, rate: float, seconds: float, workers: int, top_k: int, sample_s: float) -> dict:
    """Open-loop load for ``seconds`` at ``rate``; returns per-request records and RSS samples."""
    n = int(rate * seconds)
    records: list[tuple[float, float, bool, float]] = []  # (due offset s, latency s, ok, lateness s)
    samples: list[tuple[float, float]] = []  # (offset s, RSS MiB)
    lock = threading.Lock()
    counter = iter(range(n))
    done = threading.Event()
    clients = [httpx.Client(base_url=url, timeout=120) for _ in range(workers)]  # made before the clock starts
    start = time.perf_counter() + 0.5

    def client(http: httpx.Client) -> None:
        with http:
            for i in counter:
                due = start + i / rate
                time.sleep(max(0.0, due - time.perf_counter()))
                t0 = time.perf_counter()
                try:
                    ok = http.post("/v1/retrieve", json={"question": QUESTIONS[i % len(QUESTIONS)], "top_k": top_k}).status_code == 200
                except httpx.TransportError:
                    ok = False
                with lock:
                    records.append((due - start, time.perf_counter() - t0, ok, t0 - due))

    def sampler() -> None:
        while not done.is_set():
            samples.append((time.perf_counter() - start, rss_mib(pid)))
            done.wait(sample_s)

    watcher = threading.Thread(target=sampler, daemon=True)
    watcher.start()
    threads = [threading.Thread(target=client, args=(http,)) for http in clients]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - start
    done.set()
    watcher.join()
    samples.append((wall, rss_mib(pid)))
    return {"records": records, "samples": samples, "wall": wall, "n": n}


def markdown(result: dict) -> str:
    o, m = result["overall"], result["memory"]
    rows = [f"| {r['minute']} | {r['requests']} | {r['errors']} | {r['latency_ms']['p50']} | {r['latency_ms']['p95']} "
            f"| {r['latency_ms']['max']} | {r['rss_mib']} |" for r in result["per_minute"]]
    return "\n".join([
        "# `dpsynrag serve` soak (issue 31)", "",
        f"{result['workload']['minutes']} min of `POST /v1/retrieve` at {result['workload']['rate_rps']} requests/s "
        f"(open loop; {result['workload']['rate_source']}), server `{result['workload']['server']}`, corpus: "
        f"{result['workload']['corpus']}; {result['machine']['cpus']} CPUs, OMP_NUM_THREADS={result['machine']['OMP_NUM_THREADS']}.", "",
        "| minute | requests | errors | p50 ms | p95 ms | max ms | RSS MiB (last sample) |", "|---|---|---|---|---|---|---|", *rows, "",
        f"- overall: {o['requests']} requests in {o['wall_s']} s ({o['achieved_rps']} requests/s), **{o['errors']} errors**, "
        f"p50 {o['latency_ms']['p50']} ms, p95 {o['latency_ms']['p95']} ms, max {o['latency_ms']['max']} ms; "
        f"largest lateness of a send {o['max_lateness_ms']} ms",
        f"- memory: RSS {m['rss_first_mib']} MiB at the start, {m['rss_settled_mib']} MiB after {m['settle_min']} min, "
        f"{m['rss_last_mib']} MiB at the end, max {m['rss_max_mib']} MiB; slope after settling {m['slope_mib_per_min']} MiB/min "
        f"(drift over the window {m['drift_mib']} MiB, flat under {m['flat_mib']} MiB): **{'flat' if m['flat'] else 'NOT flat'}**", "",
        f"Command: `{result['command']}`", ""])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--minutes", type=float, default=10.0)
    ap.add_argument("--rate", type=float, help="Requests per second (default: after.throughput_rps of results/bench_serve.json).")
    ap.add_argument("--corpus", type=Path, help="An existing corpus folder (default: a stand-in corpus).")
    ap.add_argument("--texts", type=int, default=500, help="Texts of the stand-in corpus.")
    ap.add_argument("--top-k", type=int, default=5)
    ap.add_argument("--workers", type=int, default=64, help="Client threads (enough to keep the rate open loop).")
    ap.add_argument("--warmup", type=int, default=50)
    ap.add_argument("--sample-s", type=float, default=5.0, help="Seconds between RSS samples.")
    ap.add_argument("--settle-min", type=float, default=1.0, help="Minutes before the memory slope is measured.")
    ap.add_argument("--flat-mib", type=float, default=16.0)
    ap.add_argument("--max-batch", type=int, help="Server --max-batch (default: the service's).")
    ap.add_argument("--max-wait-ms", type=float, help="Server --max-wait-ms (default: the service's).")
    ap.add_argument("--queue-size", type=int, help="Server --queue-size (default: the service's).")
    ap.add_argument("--out", type=Path, default=RESULTS / "soak_serve.json")
    args = ap.parse_args()
    rate_source = "--rate"
    if args.rate is None:
        try:
            args.rate = float(json.loads((RESULTS / "bench_serve.json").read_text())["after"]["throughput_rps"])
        except (OSError, KeyError, ValueError):
            ap.error("no --rate, and no benchmarks/results/bench_serve.json with after.throughput_rps: run bench_serve.py first")
        rate_source = "the capacity measured by bench_serve.py (after.throughput_rps)"
    if not args.rate > 0 or not args.minutes > 0 or min(args.workers, args.texts) < 1 or args.sample_s <= 0:
        ap.error("--rate, --minutes and --sample-s must be > 0, --workers and --texts >= 1")

    serve_args = [f for flag, v in (("--max-batch", args.max_batch), ("--max-wait-ms", args.max_wait_ms),
                                    ("--queue-size", args.queue_size)) if v is not None for f in (flag, f"{v:g}")]
    with tempfile.TemporaryDirectory() as tmp:
        corpus = args.corpus or standin_corpus(Path(tmp), args.texts)
        with running_service(corpus, serve_args, Path(tmp) / "serve.log") as (url, server):
            with httpx.Client(base_url=url, timeout=120) as http:
                for i in range(args.warmup):
                    http.post("/v1/retrieve", json={"question": QUESTIONS[i % len(QUESTIONS)], "top_k": args.top_k})
            run = soak(url, server.pid, rate=args.rate, seconds=args.minutes * 60, workers=args.workers,
                       top_k=args.top_k, sample_s=args.sample_s)

    records, samples = run["records"], run["samples"]
    per_minute = []
    for minute in range(int(np.ceil(args.minutes))):
        rows = [r for r in records if minute * 60 <= r[0] < (minute + 1) * 60]
        rss = [s for t, s in samples if t < (minute + 1) * 60]
        per_minute.append({"minute": minute + 1, "requests": len(rows), "errors": sum(not r[2] for r in rows),
                           "latency_ms": percentiles([r[1] for r in rows]), "rss_mib": round(rss[-1], 1) if rss else None})
    settle_s = args.settle_min * 60
    settled = [(t, s) for t, s in samples if t >= settle_s] or samples[-2:]
    t, s = np.array(settled).T
    slope = float(np.polyfit(t, s, 1)[0]) if len(t) > 1 and np.ptp(t) > 0 else 0.0  # MiB per second
    drift = slope * float(np.ptp(t))
    errors = sum(not r[2] for r in records)
    result = {
        "workload": {"endpoint": "POST /v1/retrieve", "minutes": args.minutes, "rate_rps": round(args.rate, 2),
                     "rate_source": rate_source, "workers": args.workers, "top_k": args.top_k,
                     "distinct_questions": len(QUESTIONS),
                     "corpus": str(args.corpus) if args.corpus else f"stand-in, {args.texts} templated texts",
                     "server": " ".join(["dpsynrag serve --retrieval-only", *serve_args])},
        "overall": {"requests": len(records), "errors": errors, "wall_s": round(run["wall"], 1),
                    "achieved_rps": round(len(records) / run["wall"], 1),
                    "latency_ms": percentiles([r[1] for r in records]),
                    "max_lateness_ms": round(max((r[3] for r in records), default=0.0) * 1000, 1)},
        "memory": {"rss_first_mib": round(samples[0][1], 1), "rss_settled_mib": round(settled[0][1], 1),
                   "rss_last_mib": round(samples[-1][1], 1), "rss_max_mib": round(max(v for _, v in samples), 1),
                   "settle_min": args.settle_min, "slope_mib_per_min": round(slope * 60, 3), "drift_mib": round(drift, 2),
                   "flat_mib": args.flat_mib, "flat": abs(drift) < args.flat_mib,
                   "samples": [(round(a, 1), round(b, 1)) for a, b in samples]},
        "per_minute": per_minute,
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count(),
                    "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS"), "loadavg_after": os.getloadavg()[0]},
        "command": "OMP_NUM_THREADS=" + str(os.environ.get("OMP_NUM_THREADS", "")) + " python " + " ".join(
            ["benchmarks/soak_serve.py", *sys.argv[1:]]),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    args.out.with_suffix(".md").write_text(markdown(result))
    print(markdown(result))
    sys.exit(0 if errors == 0 and result["memory"]["flat"] else 1)


if __name__ == "__main__":
    main()
