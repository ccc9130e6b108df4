"""GPU benchmark of private prediction at the paper's shapes (issue 16, item 2).

Model: a randomly initialised Llama with Llama-3.1-8B's shapes (32 layers, hidden 4096, MLP 14336,
32 query / 8 key-value heads, 128,256-token vocabulary, llama3 RoPE): the same compute per token as
the real model, no weights to download. Its tokenizer is a word-level one built in code with one
word per vocabulary entry (``w0`` … ``w128247`` and 8 specials), so every prompt has exactly the
length asked for. bfloat16 on CUDA (float32 on CPU).

Workload (DP-SynRAG §4): clusters of k = 80 member prompts of 150 tokens (rephrase instruction in a
chat template + a random document), T = 70 tokens per cluster, documents in 1..L = 5 clusters
each (as ``benchmarks/bench_decoder.py``); EOS never ends a text, so both implementations do the
same work.

* ours: :class:`dpsynrag.models.PrivatePredictionDecoder` (batch-invariant engine, clusters batched
  within ``--memory-budget-gb``), ``--clusters`` clusters;
* naive: transformers ``generate()`` one cluster at a time with a logits processor that clips,
  sums, samples and forces the token (``bench_decoder.naive_generate``), ``--naive-clusters``.

Reports member-token evaluations per second (Σ_r |S_r| · T / s), peak accelerator memory
(``torch.cuda.max_memory_allocated``; peak RSS on CPU), a batch-invariance check (cluster 0's
first-step scores alone vs. in the batch, exact), and the projected private-prediction time of a
paper-scale build (8,000 documents, R = 500 clusters of k = 80, T = 70): seconds per cluster × 500
(prefill of each cluster's documents included; keyword extraction, embeddings and self-filtering
not). Writes ``benchmarks/results/bench_gpu.json`` (``bench_gpu_tiny.json`` with ``--tiny``).

Sized to finish within 8 minutes on one recent data-centre GPU (model init, warm-up, ours on 8
clusters, naive on 2). ``--tiny`` runs a 2-layer model at small shapes on CPU in seconds (a test).

Usage::

    python benchmarks/bench_gpu.py                 # CUDA, paper shapes
    python benchmarks/bench_gpu.py --tiny --device cpu
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).parent))
from bench_decoder import PeakRSS, make_clusters, naive_generate  # noqa: E402

from dpsynrag.models import LanguageModel, PrivatePredictionDecoder  # noqa: E402
from dpsynrag.privacy.accountant import ZCDPAccountant  # noqa: E402
from dpsynrag.rng import SeededRandom  # noqa: E402

INSTRUCTION = "Rephrase the following document without altering the important information contained within it."
SPECIALS = ["[PAD]", "[UNK]", "[BOS]", "[EOS]", "<|system|>", "<|user|>", "<|assistant|>", "<|end|>"]
TEMPLATE = ("{% for m in messages %}<|{{ m['role'] }}|> {{ m['content'] }} <|end|> {% endfor %}"
            "{% if add_generation_prompt %}<|assistant|>{% endif %}")

# Llama-3.1-8B (config.json of meta-llama/Llama-3.1-8B-Instruct).
LLAMA_8B = dict(hidden_size=4096, intermediate_size=14336, num_hidden_layers=32, num_attention_heads=32,
                num_key_value_heads=8, vocab_size=128256, max_position_embeddings=131072, rope_theta=500000.0,
                rms_norm_eps=1e-5, rope_scaling={"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                                                 "high_freq_factor": 4.0, "original_max_position_embeddings": 8192})
TINY = dict(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
            vocab_size=512, max_position_embeddings=512)
PAPER = {"documents": 8000, "R": 500, "L": 5, "k": 80, "T": 70}


def make_tokenizer(vocab_size: int):
    """A word-level tokenizer with ``vocab_size`` entries: the specials, the instruction's words, then ``w<i>``."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    words = SPECIALS + sorted(set(INSTRUCTION.split()))
    words += [f"w{i}" for i in range(vocab_size - len(words))]
    backend = Tokenizer(models.WordLevel(vocab={w: i for i, w in enumerate(words)}, unk_token="[UNK]"))
    backend.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tok = PreTrainedTokenizerFast(tokenizer_object=backend, unk_token="[UNK]", pad_token="[PAD]", bos_token="[BOS]",
                                  eos_token="[EOS]")
    tok.chat_template = TEMPLATE
    return tok


def make_model(shapes: dict, device: torch.device, dtype: torch.dtype):
    """A randomly initialised LlamaForCausalLM of ``shapes``, built directly on ``device`` in ``dtype``."""
    from transformers import LlamaConfig, LlamaForCausalLM

    config = LlamaConfig(**shapes, bos_token_id=2, eos_token_id=3, pad_token_id=0, tie_word_embeddings=False)
    torch.manual_seed(0)
    old = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        with torch.device(device):
            model = LlamaForCausalLM(config)
    finally:
        torch.set_default_dtype(old)
    return model.eval()


def make_prompts(lm: LanguageModel, n: int, length: int, rng: np.random.Generator) -> list[str]:
    """``n`` rendered rephrase prompts of exactly ``length`` tokens (a random document of ``w<i>`` words)."""
    empty = len(lm.encode(lm.chat_prompt(f"{INSTRUCTION}\nDocument: ")))
    words = max(1, length - empty)
    vocab = lm.vocab_size - len(SPECIALS) - len(set(INSTRUCTION.split()))
    prompts = []
    for _ in range(n):
        doc = " ".join(f"w{i}" for i in rng.integers(0, vocab, size=words))
        prompts.append(lm.chat_prompt(f"{INSTRUCTION}\nDocument: {doc}"))
    return prompts


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


class _PeakMemory:
    """Peak accelerator memory (CUDA) or peak RSS (CPU) during a ``with`` block, in bytes."""

    def __init__(self, device: torch.device):
        self.device, self.peak = device, 0

    def __enter__(self):
        if self.device.type == "cuda":
            torch.cuda.reset_peak_memory_stats(self.device)
        else:
            self._rss = PeakRSS().__enter__()
        return self

    def __exit__(self, *exc):
        if self.device.type == "cuda":
            _sync(self.device)
            self.peak = torch.cuda.max_memory_allocated(self.device)
        else:
            self._rss.__exit__(*exc)
            self.peak = self._rss.peak


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tiny", action="store_true", help="2-layer model, small shapes (CPU test)")
    ap.add_argument("--device", default=None, help="cuda (default when available) or cpu")
    ap.add_argument("--clusters", type=int, default=None, help="clusters decoded by ours (default 8; tiny 3)")
    ap.add_argument("--naive-clusters", type=int, default=None, help="clusters decoded by naive (default 2; tiny 1)")
    ap.add_argument("--members", type=int, default=None, help="k, members per cluster (default 80; tiny 4)")
    ap.add_argument("--prompt-tokens", type=int, default=None, help="tokens per member prompt (default 150; tiny 40)")
    ap.add_argument("--tokens", type=int, default=None, help="T (default 70; tiny 4)")
    ap.add_argument("--max-branches", type=int, default=5, help="L: most clusters a document is in")
    ap.add_argument("--memory-budget-gb", type=float, default=None, help="decoder batch budget (default 40; tiny 1)")
    ap.add_argument("--clip", type=float, default=0.1057)
    ap.add_argument("--temperature", type=float, default=1.0)
    ap.add_argument("--skip-naive", action="store_true")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=None, help="JSON path (default benchmarks/results/bench_gpu[_tiny].json)")
    args = ap.parse_args(argv)
    tiny = args.tiny
    device = torch.device(args.device or ("cuda" if torch.cuda.is_available() else "cpu"))
    dtype = torch.bfloat16 if device.type == "cuda" else torch.float32
    R = args.clusters or (3 if tiny else 8)
    R_naive = 0 if args.skip_naive else min(R, args.naive_clusters or (1 if tiny else 2))
    M = args.members or (4 if tiny else PAPER["k"])
    P = args.prompt_tokens or (40 if tiny else 150)
    T = args.tokens or (4 if tiny else PAPER["T"])
    budget = args.memory_budget_gb or (1.0 if tiny else 40.0)
    shapes = TINY if tiny else LLAMA_8B

    t0 = time.perf_counter()
    model = make_model(shapes, device, dtype)
    lm = LanguageModel(model, make_tokenizer(shapes["vocab_size"]), name="random-llama-3.1-8b-shaped"
                       if not tiny else "random-tiny-llama")
    _sync(device)
    init_s = time.perf_counter() - t0
    rng = np.random.default_rng(args.seed)
    member_ids, n_docs = make_clusters(R, M, args.max_branches, rng)
    prompts = make_prompts(lm, n_docs, P, rng)
    clusters = [[prompts[i] for i in m] for m in member_ids]
    lengths = [len(lm.encode(p)) for p in prompts]
    prefix = lm.public_prefix(f"{INSTRUCTION}\nDocument: {{document}}")
    params = sum(p.numel() for p in model.parameters())
    print(f"model: {lm.name}, {params / 1e9:.2f} B parameters, {dtype}, on {device} (built in {init_s:.1f} s); "
          f"engine {lm.runner.mode}; torch threads {torch.get_num_threads()}")
    print(f"workload: {R} clusters x {M} members x {T} tokens; {n_docs} documents of {min(lengths)}..{max(lengths)} "
          f"prompt tokens; naive on {R_naive} clusters")

    eos = lm.eos_token_ids
    lm.eos_token_ids = ()  # equal work: every cluster decodes T tokens in both implementations
    result: dict = {
        "benchmark": "private prediction at paper shapes (random Llama-3.1-8B-shaped model)" if not tiny
        else "private prediction, tiny shapes (test configuration)",
        "tiny": tiny, "model": lm.name, "parameters": params, "shapes": shapes, "device": str(device),
        "device_name": torch.cuda.get_device_name(device) if device.type == "cuda" else platform.processor(),
        "dtype": str(dtype).removeprefix("torch."), "engine": lm.runner.mode, "torch": torch.__version__,
        "torch_threads": torch.get_num_threads(), "model_init_s": init_s,
        "workload": {"clusters": R, "members": M, "prompt_tokens": P, "tokens": T, "documents": n_docs,
                     "max_branches_per_document": args.max_branches, "memory_budget_gb": budget, "eos_stops": False},
    }
    try:
        warm = PrivatePredictionDecoder(lm, clip=args.clip, temperature=args.temperature, max_new_tokens=2,
                                        random=SeededRandom(1), prompt_prefix=prefix)
        warm.generate_ids([clusters[0][:2]], [ZCDPAccountant()])  # kernel and allocator set-up, not timed

        decoder = PrivatePredictionDecoder(lm, clip=args.clip, temperature=args.temperature, max_new_tokens=T,
                                           random=SeededRandom(args.seed), memory_budget_gb=budget,
                                           prompt_prefix=prefix)
        streams = [SeededRandom(args.seed).child(f"cluster-{r}") for r in range(R)]
        accountants = [ZCDPAccountant() for _ in clusters]
        evals = sum(len(c) for c in clusters) * T
        gc.collect()
        with _PeakMemory(device) as mem:
            t = time.perf_counter()
            ids = decoder.generate_ids(clusters, accountants, streams=streams)
            _sync(device)
            ours_s = time.perf_counter() - t
        assert all(len(x) == T for x in ids) and all(len(a.ledger) == T for a in accountants)
        per_cluster = ours_s / R
        result["ours"] = {"seconds": ours_s, "batches": len(decoder._plan(*decoder._encode(clusters))),
                          "member_token_evals": evals, "member_token_evals_per_s": evals / ours_s,
                          "synthetic_tokens_per_s": R * T / ours_s, "peak_memory_gb": mem.peak / 2**30,
                          "peak_memory_kind": "cuda max_memory_allocated" if device.type == "cuda" else "process RSS"}
        print(f"ours : {ours_s:8.2f} s  {evals / ours_s:10.1f} member-token evals/s  peak memory {mem.peak / 2**30:.2f} GB")

        # batch invariance on this device: cluster 0's first-step scores alone vs. with the others
        z_alone = decoder.aggregated_logits([clusters[0]])[0]
        z_batch = decoder.aggregated_logits(clusters[: min(R, 4)])[0]
        result["batch_invariant_first_step"] = bool(torch.equal(z_alone, z_batch))
        result["batch_invariance_max_abs_diff"] = float((z_alone - z_batch).abs().max())
        print(f"batch invariance (cluster 0, first step, alone vs. in a batch of {min(R, 4)}): "
              f"{'equal' if result['batch_invariant_first_step'] else 'DIFFERENT'} "
              f"(max |diff| {result['batch_invariance_max_abs_diff']:.3g})")

        if R_naive:
            naive_clusters = clusters[:R_naive]
            naive_evals = sum(len(c) for c in naive_clusters) * T
            gc.collect()
            with _PeakMemory(device) as mem:
                t = time.perf_counter()
                naive_ids = naive_generate(lm, naive_clusters, clip=args.clip, temperature=args.temperature,
                                           tokens=T, random=SeededRandom(args.seed + 1))
                _sync(device)
                naive_s = time.perf_counter() - t
            assert all(len(x) == T for x in naive_ids)
            result["naive"] = {"method": "transformers generate() + clipping logits processor, one cluster at a time",
                               "clusters": R_naive, "seconds": naive_s, "member_token_evals": naive_evals,
                               "member_token_evals_per_s": naive_evals / naive_s, "peak_memory_gb": mem.peak / 2**30}
            result["speedup"] = result["ours"]["member_token_evals_per_s"] / result["naive"]["member_token_evals_per_s"]
            print(f"naive: {naive_s:8.2f} s  {naive_evals / naive_s:10.1f} member-token evals/s  "
                  f"peak memory {mem.peak / 2**30:.2f} GB")
    finally:
        lm.eos_token_ids = eos
    result["paper_scale_projection"] = {
        **PAPER, "member_token_evals": PAPER["R"] * PAPER["k"] * PAPER["T"],
        "private_prediction_s": per_cluster * PAPER["R"],
        "how": "seconds per cluster of this run x R (each cluster's documents prefilled with it); keyword "
               "extraction, embeddings and self-filtering not included",
    }
    if "naive" in result:
        result["paper_scale_projection"]["naive_private_prediction_s"] = result["naive"]["seconds"] / R_naive * PAPER["R"]
    proj = result["paper_scale_projection"]
    print(f"projected private prediction of a paper-scale build (R={PAPER['R']}, k={PAPER['k']}, T={PAPER['T']}): "
          f"{proj['private_prediction_s'] / 60:.1f} min"
          + (f" (naive {proj['naive_private_prediction_s'] / 60:.1f} min)" if "naive" in result else ""))
    out = Path(args.out) if args.out else Path(__file__).parent / "results" / (
        "bench_gpu_tiny.json" if tiny else "bench_gpu.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {out}")
    print(f"speedup: {result['speedup']:.2f}" if "speedup" in result else "speedup: n/a")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
