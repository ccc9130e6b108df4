"""Load test of ``dpsynrag serve`` on loopback, retrieval only: unbatched (before) against micro-batched
(after) in one run (issue 31, item 2).

Each configuration starts ``dpsynrag serve CORPUS --retrieval-only`` as a separate process on 127.0.0.1 (a
free port), waits for ``/healthz``, sends ``--warmup`` requests (not measured), then ``--requests``
``POST /v1/retrieve`` requests from ``--clients`` concurrent clients (threads, one keep-alive HTTP
connection each), questions cycling through a fixed list of ``len(QUESTIONS)`` public questions, and
measures throughput (requests/s over the whole run), latency percentiles (p50/p95/p99/max, ms, per
request as the client sees it), the error count (a transport error or any status but 200) and the
server's CPU time per request (user + system, from ``/proc``; less noisy than wall time on a shared
machine):

* **before**: ``--max-batch 1``: one question per forward pass of the embedder (the service before
  micro-batching; the queue, timeout and everything else as after);
* **after**: ``--max-batch B --max-wait-ms W`` (defaults 32 and 5, the service's defaults).

Equivalence: each question's result is also fetched alone from the *before* server (one request at a
time, so a batch of one) and compared with the result the *after* server gave it under load (batched):
the ranked ids must be equal and the scores within 1e-5 (float rounding of the padded forward pass,
:meth:`dpsynrag.corpus.retrieval.CorpusRetriever.encode`); the counts are reported.

Writes ``benchmarks/results/bench_serve.json`` and ``bench_serve.md`` (``--out``: the JSON path, the
Markdown beside it).

Corpus: ``--corpus PATH`` serves an existing corpus folder (its own embedder is loaded). Without it, a
stand-in corpus of ``--texts`` templated public sentences (seeded; no private data, not a DP build: a
service's cost does not depend on how its texts were made) is written with the real offline default
embedder (all-MiniLM-L6-v2), the one a default build uses.

Usage::

    OMP_NUM_THREADS=1 python benchmarks/bench_serve.py                               # 2,000 requests each, 8 clients
    OMP_NUM_THREADS=1 python benchmarks/bench_serve.py --requests 300 --texts 100 --out /tmp/b.json  # quick
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import random
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import numpy as np

SYMPTOMS = ["fever", "cough", "rash", "headache", "fatigue", "dizziness", "chest pain", "nausea", "sore throat",
            "joint pain", "shortness of breath", "blurred vision", "back pain", "itching", "insomnia"]
DURATIONS = ["two days", "a week", "three weeks", "a month", "since yesterday"]
QUESTIONS = [f"I have {a} and {b}. What could it be?" for a in SYMPTOMS for b in SYMPTOMS if a != b][:100]
SCORE_TOLERANCE = 1e-5
"""Largest difference accepted between a question's cosine scores alone and batched."""


def standin_corpus(folder: Path, n: int, seed: int = 0) -> Path:
    """A corpus folder of ``n`` templated sentences, indexed with the offline default embedder."""
    from dpsynrag.corpus import CorpusWriter
    from dpsynrag.models import Embedder
    from dpsynrag.privacy.accountant import ZCDPAccountant
    from dpsynrag.privacy.events import GaussianEvent
    from dpsynrag.privacy.report import PrivacyReport

    rng = random.Random(seed)
    texts = [f"The patient reports {a} and {b} for {rng.choice(DURATIONS)}; the doctor advised rest and a follow-up test."
             for a, b in (rng.sample(SYMPTOMS, 2) for _ in range(n))]
    records = [{"id": i, "keyword": t.split()[3], "noisy_count": 0, "text": t, "kept": True} for i, t in enumerate(texts)]
    report = PrivacyReport.from_accountant(ZCDPAccountant().compose(GaussianEvent("stand-in", sensitivity=1.0, sigma=1.0)),
                                           delta=1e-3)
    manifest = {"method": "stand-in", "config": {}, "model": {"spec": None, "name": "none"}, "embedder": {"spec": None},
                "privacy": report.to_dict(), "not_for_release": True}
    out = folder / "standin"
    with CorpusWriter(out) as w:
        w.finish(records, manifest, Embedder.load(None))
    return out


@contextlib.contextmanager
def running_service(corpus: Path, serve_args: list[str], log_path: Path) -> Iterator[tuple[str, subprocess.Popen]]:
    """``dpsynrag serve CORPUS --retrieval-only SERVE_ARGS`` on a free loopback port, ready (``/healthz``);
    yields ``(url, process)`` and stops it with SIGTERM (graceful shutdown) on exit.

    Raises:
        SystemExit: the service exited before it was ready (its log is shown).
    """
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    with open(log_path, "w+") as log:
        server = subprocess.Popen([sys.executable, "-m", "dpsynrag.cli", "serve", str(corpus), "--port", str(port),
                                   "--retrieval-only", *serve_args], stdout=log, stderr=subprocess.STDOUT)
        try:
            for _ in range(1200):  # wait for the models to load (at most ~10 min)
                try:
                    if httpx.get(f"{url}/healthz").status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                if server.poll() is not None:
                    log.seek(0)
                    sys.exit(f"the service exited:\n{log.read()}")
                time.sleep(0.5)
            yield url, server
        finally:
            server.terminate()
            server.wait(timeout=120)


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU seconds of process ``pid`` so far (Linux ``/proc``; None elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def ranking(response: httpx.Response) -> list[tuple[int, float]]:
    return [(h["id"], h["score"]) for h in response.json()["results"]]


def load(url: str, n: int, clients: int, top_k: int) -> dict:
    """``n`` requests from ``clients`` closed-loop clients: wall time, latencies (s), errors, and the first
    ranking returned for each question."""
    latencies: list[float] = []
    errors = [0]
    seen: dict[int, list[tuple[int, float]]] = {}
    lock = threading.Lock()
    counter = iter(range(n))

    def client() -> None:
        with httpx.Client(base_url=url, timeout=120) as http:
            for i in counter:  # the shared iterator hands out exactly n requests
                q = i % len(QUESTIONS)
                t0 = time.perf_counter()
                try:
                    resp = http.post("/v1/retrieve", json={"question": QUESTIONS[q], "top_k": top_k})
                    ok = resp.status_code == 200
                except httpx.TransportError:
                    ok = False
                dt = time.perf_counter() - t0
                with lock:
                    latencies.append(dt)
                    errors[0] += not ok
                    if ok and q not in seen:
                        seen[q] = ranking(resp)

    threads = [threading.Thread(target=client) for _ in range(clients)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return {"wall": time.perf_counter() - start, "latencies": latencies, "errors": errors[0], "seen": seen}


def summary(run: dict, n: int) -> dict:
    ms = np.array(run["latencies"]) * 1000
    return {"wall_s": round(run["wall"], 3), "throughput_rps": round(n / run["wall"], 1),
            "latency_ms": {p: round(float(np.percentile(ms, q)), 2) for p, q in (("p50", 50), ("p95", 95), ("p99", 99))}
            | {"max": round(float(ms.max()), 2)},
            "errors": run["errors"]}


def markdown(result: dict) -> str:
    w, b, a, r, eq = result["workload"], result["before"], result["after"], result["ratio"], result["equivalence"]
    rows = [f"| {name} | `{cfg['server']}` | {cfg['throughput_rps']} | {cfg['latency_ms']['p50']} | {cfg['latency_ms']['p95']} "
            f"| {cfg['latency_ms']['p99']} | {cfg['latency_ms']['max']} | {cfg['errors']} | {cfg['server_cpu_ms_per_request']} |" for name, cfg in (("before", b), ("after", a))]
    return "\n".join([
        "# `dpsynrag serve` under load: unbatched (before) vs micro-batched (after), one run (issue 31)", "",
        f"Workload: {w['requests']} `POST /v1/retrieve` requests per configuration (after {w['warmup']} warm-up requests) "
        f"from {w['clients']} concurrent closed-loop clients on loopback, top_k {w['top_k']}, {w['distinct_questions']} "
        f"distinct questions; corpus: {w['corpus']} ({w['kept_texts']} kept texts), embedder: {w['embedder']}. "
        f"Machine: {result['machine']['cpus']} CPUs, Python {result['machine']['python']}, "
        f"OMP_NUM_THREADS={result['machine']['OMP_NUM_THREADS']}; clients and server share the machine.", "",
        "| | server | requests/s | p50 ms | p95 ms | p99 ms | max ms | errors | server CPU ms / request |",
        "|---|---|---|---|---|---|---|---|---|", *rows, "",
        f"- throughput after / before: **{r['throughput']}x**; p95 after / before: **{r['p95']}x**",
        f"- equivalence on the {eq['questions']} benchmark questions (alone from *before*, batched under load from *after*): "
        f"rankings equal for {eq['rankings_equal']}; largest score difference {eq['max_score_diff']:.2e} "
        f"(tolerance {SCORE_TOLERANCE:g})", "",
        f"Command: `{result['command']}`", ""])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, help="An existing corpus folder (default: a stand-in corpus).")
    ap.add_argument("--texts", type=int, default=500, help="Texts of the stand-in corpus.")
    ap.add_argument("--requests", type=int, default=2000, help="Measured requests per configuration.")
    ap.add_argument("--warmup", type=int, default=50, help="Requests per configuration before measuring.")
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--top-k", type=int, default=5)
    ap.add_argument("--max-batch", type=int, default=32, help="--max-batch of the batched (after) server.")
    ap.add_argument("--max-wait-ms", type=float, default=5.0, help="--max-wait-ms of the batched (after) server.")
    ap.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "bench_serve.json")
    args = ap.parse_args()
    if min(args.requests, args.clients, args.texts, args.max_batch) < 1 or args.warmup < 0:
        ap.error("--requests, --clients, --texts and --max-batch must be >= 1, --warmup >= 0")

    configs = {"before": ["--max-batch", "1"],
               "after": ["--max-batch", str(args.max_batch), "--max-wait-ms", f"{args.max_wait_ms:g}"]}
    runs, alone = {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        corpus = args.corpus or standin_corpus(Path(tmp), args.texts)
        for name, flags in configs.items():
            serve_args = [*flags, "--request-threads", str(args.clients)]
            with running_service(corpus, serve_args, Path(tmp) / f"serve-{name}.log") as (url, server):
                num_texts = httpx.get(f"{url}/v1/corpora").json()["corpora"][0]["num_kept"]
                load(url, args.warmup, args.clients, args.top_k)
                cpu0 = cpu_seconds(server.pid)
                runs[name] = load(url, args.requests, args.clients, args.top_k)
                cpu1 = cpu_seconds(server.pid)
                runs[name]["server_cpu_ms_per_request"] = None if cpu0 is None else round((cpu1 - cpu0) * 1000 / args.requests, 2)
                runs[name]["server"] = f"dpsynrag serve --retrieval-only {' '.join(serve_args)}"
                if name == "before":  # each question alone: one request at a time, a batch of one
                    with httpx.Client(base_url=url, timeout=120) as http:
                        alone = {q: ranking(http.post("/v1/retrieve", json={"question": text, "top_k": args.top_k}))
                                 for q, text in enumerate(QUESTIONS)}

    batched = runs["after"]["seen"]
    compared = sorted(set(batched) & set(alone))
    equal = sum([i for i, _ in batched[q]] == [i for i, _ in alone[q]] for q in compared)
    diffs = [abs(s - t) for q in compared for (_, s), (_, t) in zip(batched[q], alone[q])]
    before, after = summary(runs["before"], args.requests), summary(runs["after"], args.requests)
    result = {
        "workload": {"endpoint": "POST /v1/retrieve", "requests": args.requests, "warmup": args.warmup,
                     "clients": args.clients, "top_k": args.top_k, "distinct_questions": len(QUESTIONS),
                     "corpus": str(args.corpus) if args.corpus else f"stand-in, {args.texts} templated texts",
                     "kept_texts": num_texts, "embedder": "corpus's own" if args.corpus else "offline all-MiniLM-L6-v2"},
        **{name: {"server": runs[name]["server"], **stats,
                  "server_cpu_ms_per_request": runs[name]["server_cpu_ms_per_request"]}
           for name, stats in (("before", before), ("after", after))},
        "ratio": {"throughput": round(after["throughput_rps"] / before["throughput_rps"], 2),
                  "p95": round(after["latency_ms"]["p95"] / before["latency_ms"]["p95"], 2)},
        "equivalence": {"questions": len(compared), "rankings_equal": equal,
                        "max_score_diff": max(diffs, default=0.0), "tolerance": SCORE_TOLERANCE},
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count(),
                    "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS"),
                    "loadavg_after": os.getloadavg()[0]},
        "command": "OMP_NUM_THREADS=" + str(os.environ.get("OMP_NUM_THREADS", "")) + " python " + " ".join(
            ["benchmarks/bench_serve.py", *sys.argv[1:]]),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    args.out.with_suffix(".md").write_text(markdown(result))
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
