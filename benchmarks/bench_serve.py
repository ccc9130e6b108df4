"""Bounded load test of ``dpsynrag serve`` on loopback: retrieval only.

Starts ``dpsynrag serve CORPUS --retrieval-only`` as a separate process on 127.0.0.1 (a free port), waits
for ``/healthz``, then sends ``--requests`` ``POST /v1/retrieve`` requests from ``--clients`` concurrent
clients (threads, one keep-alive HTTP connection each), questions cycling through a fixed list, and
reports throughput (requests/s over the whole run), latency percentiles (p50/p95/p99/max, ms, per
request as the client sees it) and the error count (a transport error or any status but 200). Writes
``benchmarks/results/bench_serve.json``.

Corpus: ``--corpus PATH`` serves an existing corpus folder (its own embedder is loaded). Without it, a
stand-in corpus of ``--texts`` templated public sentences (seeded; no private data, not a DP build: a
service's cost does not depend on how its texts were made) is written with the real offline default
embedder (all-MiniLM-L6-v2), the one a default build uses.

Usage::

    OMP_NUM_THREADS=1 python benchmarks/bench_serve.py                 # 2,000 requests, 8 clients
    OMP_NUM_THREADS=1 python benchmarks/bench_serve.py --requests 200  # quick
"""

from __future__ import annotations

import argparse
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
from pathlib import Path

import httpx
import numpy as np

SYMPTOMS = ["fever", "cough", "rash", "headache", "fatigue", "dizziness", "chest pain", "nausea", "sore throat",
            "joint pain", "shortness of breath", "blurred vision", "back pain", "itching", "insomnia"]
DURATIONS = ["two days", "a week", "three weeks", "a month", "since yesterday"]
QUESTIONS = [f"I have {a} and {b}. What could it be?" for a in SYMPTOMS for b in SYMPTOMS if a != b][:100]


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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, help="An existing corpus folder (default: a stand-in corpus).")
    ap.add_argument("--texts", type=int, default=500, help="Texts of the stand-in corpus.")
    ap.add_argument("--requests", type=int, default=2000)
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--top-k", type=int, default=5)
    ap.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "bench_serve.json")
    args = ap.parse_args()
    if args.requests < 1 or args.clients < 1:
        ap.error("--requests and --clients must be >= 1")

    with tempfile.TemporaryDirectory() as tmp:
        corpus = args.corpus or standin_corpus(Path(tmp), args.texts)
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        url = f"http://127.0.0.1:{port}"
        log = open(Path(tmp) / "serve.log", "w+")
        server = subprocess.Popen([sys.executable, "-m", "dpsynrag.cli", "serve", str(corpus), "--port", str(port),
                                   "--retrieval-only", "--request-threads", str(args.clients)], stdout=log, stderr=subprocess.STDOUT)
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
            num_texts = httpx.get(f"{url}/v1/corpora").json()["corpora"][0]["num_kept"]
            latencies: list[float] = []
            errors = [0]
            lock = threading.Lock()
            counter = iter(range(args.requests))

            def client() -> None:
                with httpx.Client(base_url=url, timeout=60) as http:
                    for i in counter:  # the shared iterator hands out exactly --requests requests
                        body = {"question": QUESTIONS[i % len(QUESTIONS)], "top_k": args.top_k}
                        t0 = time.perf_counter()
                        try:
                            ok = http.post("/v1/retrieve", json=body).status_code == 200
                        except httpx.TransportError:
                            ok = False
                        dt = time.perf_counter() - t0
                        with lock:
                            latencies.append(dt)
                            errors[0] += not ok

            threads = [threading.Thread(target=client) for _ in range(args.clients)]
            start = time.perf_counter()
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            wall = time.perf_counter() - start
        finally:
            server.terminate()
            server.wait(timeout=60)
            log.close()

    ms = np.array(latencies) * 1000
    result = {
        "workload": {"endpoint": "POST /v1/retrieve", "requests": args.requests, "clients": args.clients,
                     "top_k": args.top_k, "distinct_questions": len(QUESTIONS),
                     "corpus": str(args.corpus) if args.corpus else f"stand-in, {args.texts} templated texts",
                     "kept_texts": num_texts, "embedder": "corpus's own" if args.corpus else "offline all-MiniLM-L6-v2",
                     "server": f"dpsynrag serve --retrieval-only --request-threads {args.clients} (separate process, loopback)"},
        "wall_s": round(wall, 3),
        "throughput_rps": round(args.requests / wall, 1),
        "latency_ms": {"p50": round(float(np.percentile(ms, 50)), 2), "p95": round(float(np.percentile(ms, 95)), 2),
                       "p99": round(float(np.percentile(ms, 99)), 2), "max": round(float(ms.max()), 2)},
        "errors": errors[0],
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count(),
                    "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS")},
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
