"""Benchmark of the private-prediction decoder against a naive reference (DP-RAG's approach).

Workload: R clusters × m members × T tokens, members drawn from a pool of synthetic documents so
that, as in a real build with soft clustering, a document sits in 1..L clusters (L = 5). Prompts
are the DP-SynRAG rephrasing prompt in the model's chat template (METHOD.md §2d).

* ours: :class:`dpsynrag.models.PrivatePredictionDecoder` (all clusters at once, within its memory
  budget; the public prompt prefix and shared documents computed once; batch-invariant engine), with
  the engine sizes a build picks: ``min(L, GROUP_ROWS)`` query slots per stored prompt and
  ``default_step_rows(device, expected_rows=R·m)`` rows per decode forward.
* naive: transformers' ``generate()`` one cluster at a time, the cluster's member prompts as one
  left-padded batch, with a logits processor that clips each member's logits, sums them, samples
  the token with the same mechanism (same c, τ, same ``sample_private_tokens``) and forces it on
  every row.

Both run the same law. To give both exactly the same work, EOS does not end a text in this
benchmark (every cluster decodes T tokens in both). As a check of the law, the first-step aggregated
scores z of cluster 0 are computed both ways and their largest difference is reported.

Reports synthetic tokens/s (R·T / s), member-token evaluations/s (Σ_r |S_r| · T / s), the fraction
of this machine's matrix-multiply bound that rate reaches (:func:`matmul_bound`: the model's own
linear layers on 512 rows, measured in the same run, over 2 × their weight count FLOP per token
evaluation; prefill is not counted as evaluations, so prompts longer than T keep the fraction well
below 1), and peak resident memory of each phase (sampled every 5 ms) and of the process. Writes a JSON result; the
last printed line is ``speedup: <naive seconds / ours seconds>``.

Usage::

    python benchmarks/bench_decoder.py            # 8 clusters × 32 members × 32 tokens
    python benchmarks/bench_decoder.py --quick    # 4 × 8 × 8
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import resource
import sys
import threading
import time
from pathlib import Path

import numpy as np
import torch

from dpsynrag.models import LanguageModel, PrivatePredictionDecoder
from dpsynrag.models.engine import GROUP_ROWS, default_step_rows
from dpsynrag.privacy.accountant import ZCDPAccountant
from dpsynrag.privacy.prediction import clip_logits, sample_private_tokens
from dpsynrag.rng import SeededRandom

REPHRASE = "Rephrase the following document without altering the important information contained within it.\nDocument: {doc}"

_WORDS = (
    "patient presented with fever cough fatigue rash headache nausea diagnosis of the syndrome was confirmed "
    "after blood tests imaging and a physical examination treatment included rest fluids antibiotics and "
    "follow up visits the doctor noted a history of asthma hypertension and diabetes in the family symptoms "
    "improved within two weeks medication dose was adjusted because of side effects such as dizziness "
    "the hospital recorded the case in the registry with the age sex and occupation of the patient"
).split()
_NAMES = ["Alice Moreau", "Bilal Chen", "Carla Diaz", "Dmitri Ivanov", "Ema Sato", "Farid Haddad", "Greta Olsen"]
_DISEASES = ["Flurbis syndrome", "Quenton fever", "Marrow pox", "Velisian flu", "Drakel disease"]


def make_documents(n: int, words: int, rng: np.random.Generator) -> list[str]:
    """``n`` synthetic medical-style documents of about ``words`` words each."""
    docs = []
    for i in range(n):
        body = " ".join(rng.choice(_WORDS, size=words))
        docs.append(
            f"{_NAMES[i % len(_NAMES)]} (record {i}) was diagnosed with {_DISEASES[i % len(_DISEASES)]}. {body}."
        )
    return docs


def make_clusters(n_clusters: int, members: int, max_branches: int, rng: np.random.Generator) -> tuple[list[list[int]], int]:
    """Member lists (document indices): every cluster has ``members`` distinct documents and every
    document is in 1..``max_branches`` clusters (its count drawn uniformly, then capped by space)."""
    remaining = np.full(n_clusters, members)
    clusters: list[list[int]] = [[] for _ in range(n_clusters)]
    doc = 0
    while remaining.sum() > 0:
        k = int(rng.integers(1, max_branches + 1))
        open_ = np.flatnonzero(remaining > 0)
        k = min(k, len(open_))
        # the k clusters with the most room left (ties broken at random)
        order = open_[np.lexsort((rng.random(len(open_)), -remaining[open_]))][:k]
        for c in order:
            clusters[c].append(doc)
            remaining[c] -= 1
        doc += 1
    return clusters, doc


class PeakRSS:
    """Peak resident set size of this process during a ``with`` block, sampled every 5 ms."""

    def __init__(self):
        self.peak = 0
        self._stop = threading.Event()

    @staticmethod
    def rss() -> int:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

    def _run(self):
        while not self._stop.is_set():
            self.peak = max(self.peak, self.rss())
            time.sleep(0.005)

    def __enter__(self):
        self.peak = self.rss()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, self.rss())


def matmul_bound(lm: LanguageModel, seconds: float = 2.0) -> dict:
    """The member-token evaluations per second this machine's matrix products allow right now.

    Times the model's own ``nn.Linear`` layers (lm_head included) on a 512-row float32 input with
    the current torch threads for about ``seconds``; one token evaluation costs 2 × their weight
    count FLOP (≈ 270 MFLOP for SmolLM2-135M, issue 16). Attention, norms and the rest are not
    counted: the bound is the rate of a forward that would be all matrix products.
    """
    lin = [m for m in lm.model.modules() if isinstance(m, torch.nn.Linear)]
    flop = 2 * sum(m.weight.numel() for m in lin)
    dtype = next(lm.model.parameters()).dtype
    xs = {m.in_features: torch.randn(512, m.in_features, dtype=dtype, device=lm.device) for m in lin}
    with torch.inference_mode():
        for m in lin:
            m(xs[m.in_features])  # warm-up
        n, t0 = 0, time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            for m in lin:
                m(xs[m.in_features])
            n += 1
        elapsed = time.perf_counter() - t0
    gflops = n * 512 * flop / elapsed / 1e9
    return {"gflop_per_s": gflops, "mflop_per_token_evaluation": flop / 1e6,
            "member_token_evals_per_s": gflops * 1e9 / flop}


class NaiveDPRagProcessor:
    """DP-RAG-style logits processor: clip each row, sum, sample one token, force it on all rows."""

    def __init__(self, *, vocab_size, clip, temperature, accountant, random):
        self.vocab_size, self.clip, self.temperature = vocab_size, clip, temperature
        self.accountant, self.random = accountant, random

    def __call__(self, input_ids: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:
        z = clip_logits(scores[:, : self.vocab_size], self.clip).sum(dim=0, keepdim=True)
        token = int(sample_private_tokens(z, clip=self.clip, temperature=self.temperature,
                                          accountants=[self.accountant], random=self.random)[0])
        forced = torch.full_like(scores, -torch.inf)
        forced[:, token] = 0.0
        return forced


def naive_generate(lm: LanguageModel, clusters: list[list[str]], *, clip, temperature, tokens, random) -> list[list[int]]:
    """The reference: ``generate()`` with :class:`NaiveDPRagProcessor`, one cluster at a time."""
    from transformers import GenerationConfig, LogitsProcessorList

    tok = lm.tokenizer
    tok.padding_side = "left"
    pad = tok.pad_token_id if tok.pad_token_id is not None else 0
    config = GenerationConfig(max_new_tokens=tokens, min_new_tokens=tokens, do_sample=False,
                              eos_token_id=None, pad_token_id=pad)
    outs = []
    for members in clusters:
        enc = tok(members, return_tensors="pt", padding=True, add_special_tokens=False).to(lm.device)
        proc = NaiveDPRagProcessor(vocab_size=lm.vocab_size, clip=clip, temperature=temperature,
                                   accountant=ZCDPAccountant(), random=random)
        with torch.inference_mode():
            out = lm.model.generate(**enc, generation_config=config, logits_processor=LogitsProcessorList([proc]))
        outs.append(out[0, enc["input_ids"].shape[1]:].tolist())
    return outs


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="smaller size: 4 clusters x 8 members x 8 tokens")
    ap.add_argument("--clusters", type=int, default=None)
    ap.add_argument("--members", type=int, default=None)
    ap.add_argument("--tokens", type=int, default=None)
    ap.add_argument("--max-branches", type=int, default=5, help="L: most clusters a document is in")
    ap.add_argument("--doc-words", type=int, default=60, help="words of each synthetic document")
    ap.add_argument("--clip", type=float, default=0.1057)
    ap.add_argument("--temperature", type=float, default=1.0)
    ap.add_argument("--memory-budget-gb", type=float, default=2.0)
    ap.add_argument("--model", default=None, help="model id or path (default: offline SmolLM2-135M-Instruct)")
    ap.add_argument("--threads", type=int, default=None, help="torch threads (default: torch's choice)")
    ap.add_argument("--engine", choices=["shared", "fast", "generic"], default=None,
                    help="decoding engine of ours (default: the best the model supports)")
    ap.add_argument("--skip-naive", action="store_true")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=None, help="JSON path (default benchmarks/results/bench_decoder[_quick].json)")
    args = ap.parse_args(argv)
    R = args.clusters or (4 if args.quick else 8)
    M = args.members or (8 if args.quick else 32)
    T = args.tokens or (8 if args.quick else 32)
    if args.threads:
        torch.set_num_threads(args.threads)

    start = time.perf_counter()
    lm = LanguageModel.load(args.model)
    load_s = time.perf_counter() - start
    if args.engine:
        lm = LanguageModel(lm.model, lm.tokenizer, name=lm.name, engine=args.engine)
    rng = np.random.default_rng(args.seed)
    member_ids, n_docs = make_clusters(R, M, args.max_branches, rng)
    docs = make_documents(n_docs, args.doc_words, rng)
    prompts = [lm.chat_prompt(REPHRASE.format(doc=d)) for d in docs]
    clusters = [[prompts[i] for i in m] for m in member_ids]
    prompt_tokens = [len(lm.encode(p)) for p in prompts]
    membership = np.bincount([i for m in member_ids for i in m], minlength=n_docs)
    print(f"model: {lm.name} (loaded in {load_s:.1f} s); engine: {lm.runner.mode}; torch threads: "
          f"{torch.get_num_threads()}; load average {os.getloadavg()[0]:.2f}")
    print(f"workload: {R} clusters x {M} members x {T} tokens; {n_docs} documents, clusters per document "
          f"{membership.min()}..{membership.max()} (mean {membership.mean():.2f}); prompt tokens "
          f"{min(prompt_tokens)}..{max(prompt_tokens)} (mean {np.mean(prompt_tokens):.1f})")

    eos = lm.eos_token_ids
    lm.eos_token_ids = ()  # equal work: every cluster decodes T tokens in both implementations
    member_evals = sum(len(c) for c in clusters) * T
    result: dict = {
        "benchmark": "private prediction decoder",
        "model": lm.name,
        "device": str(lm.device),
        "engine": lm.runner.mode,
        "torch_threads": torch.get_num_threads(),
        "load_average_at_start": os.getloadavg(),
        "cpu_count": os.cpu_count(),
        "platform": platform.platform(),
        "python": sys.version.split()[0],
        "torch": torch.__version__,
        "workload": {
            "clusters": R, "members": M, "tokens": T, "max_branches_per_document": args.max_branches,
            "documents": n_docs, "mean_clusters_per_document": float(membership.mean()),
            "prompt_tokens_mean": float(np.mean(prompt_tokens)), "prompt_tokens_max": int(max(prompt_tokens)),
            "clip": args.clip, "temperature": args.temperature, "eos_stops": False,
        },
    }
    try:
        # warm-up (one-time allocator and kernel set-up), not timed
        PrivatePredictionDecoder(lm, clip=args.clip, temperature=args.temperature, max_new_tokens=2,
                                 random=SeededRandom(1)).generate([clusters[0][:2]], [ZCDPAccountant()])

        decoder = PrivatePredictionDecoder(lm, clip=args.clip, temperature=args.temperature, max_new_tokens=T,
                                           random=SeededRandom(args.seed), memory_budget_gb=args.memory_budget_gb,
                                           prompt_prefix=lm.public_prefix(REPHRASE.replace("{doc}", "{document}")),
                                           rows_per_group=min(args.max_branches, GROUP_ROWS),
                                           step_rows=default_step_rows(lm.device, expected_rows=R * M))
        accountants = [ZCDPAccountant() for _ in clusters]
        gc.collect()
        with PeakRSS() as mem:
            t0 = time.perf_counter()
            ours_ids = decoder.generate_ids(clusters, accountants)
            ours_s = time.perf_counter() - t0
        assert all(len(t) == T for t in ours_ids)
        assert all(len(a.ledger) == T for a in accountants)
        result["ours"] = {
            "seconds": ours_s, "synthetic_tokens_per_s": R * T / ours_s,
            "member_token_evals_per_s": member_evals / ours_s, "peak_rss_gb": mem.peak / 2**30,
            "rho_per_cluster": accountants[0].rho, "step_rows": decoder.step_rows,
            "rows_per_group": decoder.rows_per_group,
        }
        print(f"ours : {ours_s:8.2f} s  {R * T / ours_s:7.2f} synthetic tokens/s  "
              f"{member_evals / ours_s:8.1f} member-token evals/s  peak RSS {mem.peak / 2**30:.2f} GB")
        bound = matmul_bound(lm)
        result["matmul_bound"] = bound
        result["ours"]["fraction_of_matmul_bound"] = member_evals / ours_s / bound["member_token_evals_per_s"]
        print(f"matmul bound: {bound['gflop_per_s']:.1f} GFLOP/s / {bound['mflop_per_token_evaluation']:.0f} MFLOP = "
              f"{bound['member_token_evals_per_s']:.0f} member-token evals/s; ours reaches "
              f"{result['ours']['fraction_of_matmul_bound']:.0%} of it")
        print("sample (ours, cluster 0):", repr(lm.tokenizer.decode(ours_ids[0], skip_special_tokens=True)[:160]))

        # same law: first-step aggregated scores of cluster 0, ours vs a direct padded batch
        z_ours = decoder.aggregated_logits([clusters[0]])[0]
        lm.tokenizer.padding_side = "left"
        enc = lm.tokenizer(clusters[0], return_tensors="pt", padding=True, add_special_tokens=False)
        positions = (enc["attention_mask"].cumsum(-1) - 1).clamp(min=0)  # as generate() numbers them
        with torch.inference_mode():
            logits = lm.model(**enc, position_ids=positions).logits[:, -1, : lm.vocab_size]
        z_ref = clip_logits(logits, args.clip).sum(dim=0)
        result["law_check_first_step_max_abs_diff_z"] = float((z_ours - z_ref).abs().max())
        print(f"law check: max |z_ours - z_reference| on cluster 0, step 1 = "
              f"{result['law_check_first_step_max_abs_diff_z']:.2e} (sensitivity c = {args.clip})")

        if not args.skip_naive:
            gc.collect()
            with PeakRSS() as mem:
                t0 = time.perf_counter()
                naive_ids = naive_generate(lm, clusters, clip=args.clip, temperature=args.temperature, tokens=T,
                                           random=SeededRandom(args.seed + 1))
                naive_s = time.perf_counter() - t0
            assert all(len(t) == T for t in naive_ids), [len(t) for t in naive_ids]
            result["naive"] = {
                "method": "transformers generate() + clipping logits processor, one cluster at a time",
                "seconds": naive_s, "synthetic_tokens_per_s": R * T / naive_s,
                "member_token_evals_per_s": member_evals / naive_s, "peak_rss_gb": mem.peak / 2**30,
            }
            print(f"naive: {naive_s:8.2f} s  {R * T / naive_s:7.2f} synthetic tokens/s  "
                  f"{member_evals / naive_s:8.1f} member-token evals/s  peak RSS {mem.peak / 2**30:.2f} GB")
            print("sample (naive, cluster 0):", repr(lm.tokenizer.decode(naive_ids[0], skip_special_tokens=True)[:160]))
            result["speedup"] = naive_s / ours_s
    finally:
        lm.eos_token_ids = eos
    result["process_peak_rss_gb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    result["load_average_at_end"] = os.getloadavg()
    out = Path(args.out) if args.out else Path(__file__).parent / "results" / (
        "bench_decoder_quick.json" if args.quick else "bench_decoder.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"process peak RSS {result['process_peak_rss_gb']:.2f} GB; wrote {out}")
    print(f"speedup: {result['speedup']:.2f}" if "speedup" in result else "speedup: n/a")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
