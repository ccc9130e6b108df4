"""Check batch invariance (issue 12, item 1) on the machine at hand: a document's private-prediction
scores, greedy keywords and embedding must be bit for bit the same whether or not other documents
share its batch. tests/test_batch_invariance.py checks this on CPU with tiny random models; this
script checks it with a real model on any device — made for CUDA in bfloat16 (the CUDA default),
where it is not measured by the test suite.

Workload (as in the issue): ``--documents`` documents starting "the patient doctor" and one starting
"a", in the DP-SynRAG prompts. Checks, each with exact equality:

* ``decoder_lone``: the scores z of a one-member cluster (the "a" document), alone vs. in a batch
  with the others, after the prompt and after a public suffix of ``--tokens`` tokens;
* ``decoder_big``: the same for the cluster of all "the patient doctor" documents, with and
  without the "a" document in the batch;
* ``keywords``: the greedy keyword lists of the "a" document and of one other, alone vs. together;
* ``embedding``: their embeddings, alone vs. together (skipped with ``--no-embedder``).

Usage::

    python benchmarks/check_invariance_gpu.py                  # CUDA if available, its default dtype
    python benchmarks/check_invariance_gpu.py --device cpu --quick   # a short CPU run

Prints one line per check and a JSON summary (also written to ``--out`` if given); exits 1 if any
check differs.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np
import torch

from dpsynrag.models import Embedder, LanguageModel, PrivatePredictionDecoder
from dpsynrag.pipeline.build import REPHRASE_PROMPT
from dpsynrag.pipeline.keywords import LLMKeywordExtractor
from dpsynrag.rng import SeededRandom

_WORDS = (
    "presented with fever cough fatigue rash headache nausea diagnosis syndrome confirmed after blood tests "
    "imaging examination treatment included rest fluids antibiotics follow visits noted history asthma "
    "hypertension diabetes family symptoms improved within two weeks medication dose adjusted dizziness"
).split()


def documents(n: int, rng: np.random.Generator, max_words: int) -> list[str]:
    """``n`` documents starting "the patient doctor" with 1..max_words more words."""
    return ["the patient doctor " + " ".join(rng.choice(_WORDS, size=int(rng.integers(1, max_words + 1))))
            for _ in range(n)]


def compare(a, b) -> dict:
    a, b = torch.as_tensor(np.asarray(a)), torch.as_tensor(np.asarray(b))
    return {"equal": bool(torch.equal(a, b)), "max_abs_diff": float((a.double() - b.double()).abs().max())}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default=None, help="model id or path (default: offline SmolLM2-135M-Instruct)")
    ap.add_argument("--device", default=None, help="cpu, cuda, ... (default: cuda if available)")
    ap.add_argument("--dtype", default=None, help="float32, bfloat16, ... (default: bf16 on CUDA, fp32 on CPU)")
    ap.add_argument("--engine", choices=["shared", "fast", "generic"], default=None)
    ap.add_argument("--documents", type=int, default=None, help="other documents (default 40; 8 with --quick)")
    ap.add_argument("--tokens", type=int, default=None, help="suffix tokens checked (default 8; 3 with --quick)")
    ap.add_argument("--quick", action="store_true", help="a short run (CPU)")
    ap.add_argument("--no-embedder", action="store_true")
    ap.add_argument("--embedder", default=None, help="embedding model (default: offline all-MiniLM-L6-v2)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=None, help="write the JSON summary here")
    args = ap.parse_args(argv)
    n_docs = args.documents or (8 if args.quick else 40)
    n_tokens = args.tokens or (3 if args.quick else 8)
    start = time.perf_counter()

    lm = LanguageModel.load(args.model, device=args.device, dtype=args.dtype)
    if args.engine:
        lm = LanguageModel(lm.model, lm.tokenizer, name=lm.name, engine=args.engine)
    rng = np.random.default_rng(args.seed)
    mates = documents(n_docs, rng, 12 if args.quick else 60)
    lone = "a woman " + " ".join(rng.choice(_WORDS, size=7))
    result: dict = {
        "model": lm.name, "device": str(lm.device), "dtype": str(lm.model.dtype), "engine": lm.runner.mode,
        "torch": torch.__version__, "torch_threads": torch.get_num_threads(),
        "cuda_device": torch.cuda.get_device_name(lm.device) if lm.device.type == "cuda" else None,
        "documents": n_docs, "suffix_tokens": n_tokens, "checks": {},
    }
    checks = result["checks"]

    def prompt(doc: str) -> str:
        return lm.chat_prompt(REPHRASE_PROMPT.format(document=doc))

    decoder = PrivatePredictionDecoder(lm, clip=0.1, temperature=1.0, max_new_tokens=n_tokens, random=SeededRandom(0),
                                       prompt_prefix=lm.public_prefix(REPHRASE_PROMPT))
    suffix = lm.tokenizer("The patient was admitted with a fever and", add_special_tokens=False)["input_ids"][:n_tokens]
    lone_p, big = [prompt(lone)], [prompt(d) for d in mates]
    for name, s in (("after_prompt", ()), ("after_suffix", suffix)):
        z_lone = decoder.aggregated_logits([lone_p], s)[0]
        z_big = decoder.aggregated_logits([big], s)[0]
        together = decoder.aggregated_logits([big[: n_docs // 3], lone_p, big, big[n_docs // 2 :] + lone_p], s)
        checks[f"decoder_lone_{name}"] = compare(z_lone, together[1])
        checks[f"decoder_big_{name}"] = compare(z_big, together[2])

    extractor = LLMKeywordExtractor(lm, K=5)
    alone = extractor.extract([lone]) + extractor.extract([mates[1]])
    among = extractor.extract(mates[:n_docs // 2] + [lone] + mates[n_docs // 2 :])
    checks["keywords"] = {"equal": alone == [among[n_docs // 2], among[1]], "alone": alone,
                          "together": [among[n_docs // 2], among[1]]}

    if not args.no_embedder:
        embedder = Embedder.load(args.embedder, device=str(lm.device))
        e_alone = np.stack([embedder.encode([lone])[0], embedder.encode([mates[1]])[0]])
        e_among = embedder.encode(mates[:n_docs // 2] + [lone] + mates[n_docs // 2 :])
        checks["embedding"] = compare(e_alone, e_among[[n_docs // 2, 1]])

    result["seconds"] = time.perf_counter() - start
    ok = all(c["equal"] for c in checks.values())
    result["all_equal"] = ok
    for name, c in checks.items():
        print(f"{name:28s} {'equal' if c['equal'] else 'DIFFERS'}"
              + (f"  max |diff| = {c['max_abs_diff']:.3g}" if "max_abs_diff" in c else ""))
    text = json.dumps(result, indent=2)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
