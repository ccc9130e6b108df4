"""Which topics a DP-SynRAG build of an own-data collection releases, without a model run (issue 41).

For each collection folder (written by :mod:`benchmarks.owndata.generate`) and each setting, the build's
stage 1 as the library runs it: the records redacted by their identifier fields (``public.json``; no
``--redact-pii`` pass, which changes few keywords), cut to ``--tokens`` tokens of the offline model's
tokenizer, read by :func:`~dpsynrag.data.words.keyword_view`, the rarity extractor's first K candidates
without the placeholder's and identifiers' words (and, unless ``--keep-public``, the public strings' words),
the open-vocabulary histogram of the calibrated build (ε = 10, δ = 1e-3; mechanism seeds 0, 1, 2), its
top R keywords and the soft clustering (L = 1). Scored with the records' request types (evaluation
only): a large type (>= 30 records) **owns** a cluster when it holds >= 60% of it and >= 15 members;
it is **reached** when >= 20 of its records share one cluster (enough for a phrase stated alike by a
few of them to pass the phrase release's threshold).

    .venv/bin/python -m benchmarks.owndata.topics runs/owndata/{bank,saas,helpdesk}-s{0,1} --K 1 5 --tokens 96 256
"""

from __future__ import annotations

import argparse
import itertools
import json
from collections import Counter
from pathlib import Path

from dpsynrag.data.words import excluded_words, keyword_view
from dpsynrag.pipeline.clustering import soft_cluster, top_keywords
from dpsynrag.pipeline.config import BuildConfig
from dpsynrag.pipeline.keywords import RarityKeywordExtractor, extract_keyword_sets
from dpsynrag.privacy.accountant import ZCDPAccountant
from dpsynrag.privacy.mechanisms import gaussian_sparse_histogram
from dpsynrag.rng import SeededRandom

PLACEHOLDER = "[REDACTED]"
LARGE, PURITY, OWN_SIZE, REACH = 30, 0.6, 15, 20


def _records(folder: Path, tokens: int, tokenizer) -> tuple[list[str], list[frozenset[str]], list[str], list[str]]:
    """(texts as the extractor reads them, each record's identifier words, request types, public strings)."""
    from dpsynrag.data import load_documents
    from dpsynrag.data.redaction import RedactedDocuments

    public = json.loads((folder / "public.json").read_text(encoding="utf-8"))
    docs = load_documents(folder / "records.jsonl", id_field="id", identifier_fields=public["identifier_fields"])
    texts = []
    for d in RedactedDocuments(docs, PLACEHOLDER):
        enc = tokenizer(d.text, add_special_tokens=False, return_offsets_mapping=True)
        cut = d.text if len(enc["input_ids"]) <= tokens else d.text[:enc["offset_mapping"][tokens - 1][1]]
        texts.append(keyword_view(cut, PLACEHOLDER))
    identifiers = [excluded_words(d.identifiers) for d in docs]
    types = [json.loads(line)["type"] for line in open(folder / "records.jsonl", encoding="utf-8")]
    return texts, identifiers, types, public["strings"]


def score(texts, identifiers, types, strings, *, K: int, keep_public: bool, rho_hist: float | None,
          seed: int, R: int = 48) -> dict:
    """One seeded release: {released, owned, reached, large, clusters: [[keyword, size, top type, share]]}."""
    shared = excluded_words((), PLACEHOLDER, public=() if keep_public else strings)
    sets = extract_keyword_sets(RarityKeywordExtractor(), texts, max_keywords=K,
                                excluded=[shared | own for own in identifiers])
    fields = dict(K=K, R=R, L=1, k=30, extractor="rarity", open_vocabulary=True, synthesis="phrases",
                  **({} if rho_hist is None else {"rho_hist": rho_hist}))
    cal = BuildConfig(epsilon=10.0, delta=1e-3, **fields).calibrate()
    released = gaussian_sparse_histogram(sets, max_keywords=K, sigma=cal.sigma_hist, threshold=cal.hist_threshold,
                                         accountant=ZCDPAccountant(), random=SeededRandom(seed))
    W = [w for w, _ in top_keywords(released, R)] if released else []
    clusters = soft_cluster(sets, W, L=1) if W else []
    large = {t for t, n in Counter(types).items() if n >= LARGE}
    owned, reached, rows = set(), set(), []
    for w, members in zip(W, clusters):
        counts = Counter(types[i] for i in members)
        reached |= {t for t, n in counts.items() if n >= REACH}
        if members:
            t, n = counts.most_common(1)[0]
            rows.append([w, len(members), t, round(n / len(members), 2)])
            if n >= OWN_SIZE and n >= PURITY * len(members):
                owned.add(t)
    return {"released": len(W), "owned": len(owned & large), "reached": len(reached & large), "large": len(large),
            "clusters": rows}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="+", type=Path)
    parser.add_argument("--K", type=int, nargs="+", default=[1, 5])
    parser.add_argument("--tokens", type=int, nargs="+", default=[96, 256])
    parser.add_argument("--rho-hist", type=float, nargs="+", default=[None])
    parser.add_argument("--keep-public", action="store_true", help="also score with the public strings' words kept")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--json", type=Path, help="write every release's clusters here")
    args = parser.parse_args(argv)
    from transformers import AutoTokenizer

    from dpsynrag.models._defaults import smollm2_cache_dir

    tokenizer = AutoTokenizer.from_pretrained(str(smollm2_cache_dir()))
    data = {(f, n): _records(f, n, tokenizer) for f in args.folders for n in args.tokens}
    out = []
    print("| tokens | K | ρ_hist | public words | released per build | large types owning a cluster | reached |")
    print("|---|---|---|---|---|---|---|")
    for n, K, rho, keep in itertools.product(args.tokens, args.K, args.rho_hist, [True, False] if args.keep_public else [False]):
        runs = [dict(folder=str(f), seed=s, **score(*data[(f, n)], K=K, keep_public=keep, rho_hist=rho, seed=s))
                for f in args.folders for s in args.seeds]
        out.append({"tokens": n, "K": K, "rho_hist": rho, "keep_public": keep, "runs": runs})
        total = sum(r["large"] for r in runs)
        print(f"| {n} | {K} | {rho or 'preset (0.1)'} | {'kept' if keep else 'excluded'} | "
              f"{sum(r['released'] for r in runs) / len(runs):.1f} | {sum(r['owned'] for r in runs)}/{total} | "
              f"{sum(r['reached'] for r in runs)}/{total} |", flush=True)
    if args.json:
        args.json.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
