"""Utility benchmark of DP-SynRAG on the demo-size Medical Synth run (issue: utility).

For each variant (a decoding selector and a clustering choice, with the build parameters of a
demo-size run) and each seed, it builds a corpus at ε = 10, δ = 1e-3 from the demo's database subset
(2,000 documents, public seed 0), answers the demo's 100 validation questions over it, and records:

* accuracy: the answer names the gold disease (the task's scoring, case-insensitive);
* context recall: the gold disease appears in one of the top-k retrieved texts — a property of the
  corpus and the retriever, independent of the answering model's skill;
* diseases named: distinct diseases of the database named in the kept synthetic texts, and the
  number of questions whose disease is named somewhere in the corpus (coverage);
* fluency: mean token log-probability (nats) of the kept texts under the public model, each text
  scored as the reply to an empty user turn (higher is more fluent);
* build time (seconds; the CPU must be otherwise idle for it to mean anything).

RAG on the private documents (no DP) is measured once, with the same questions, answerer and top-k,
for accuracy and context recall. Seeded builds are reproducible and not for release: this is a
benchmark. Results go to ``benchmarks/results/bench_utility.json`` and ``.md`` (mean ± sd over seeds).

Usage::

    python benchmarks/bench_utility.py                          # every variant, seeds 0 1 2
    python benchmarks/bench_utility.py --variants paper,default --seeds 0
    python benchmarks/bench_utility.py --documents 300 --questions 10 --variants default --seeds 0   # smoke
"""

from __future__ import annotations

import json
import math
import sys
import tempfile
import time
from pathlib import Path

import torch
from _common import (KEYWORD_REPHRASE_PROMPT, answer_corpus, arguments, demo_notes, machine, mean_sd_rows,
                     measure_rag, merge_runs, seed_list, write_results)

from dpsynrag.models import Embedder, LanguageModel
from dpsynrag.pipeline.build import KEYWORD_SLOT, REPHRASE_PROMPT, build_corpus
from dpsynrag.pipeline.config import BuildConfig
from dpsynrag.tasks import get_task

# Build parameters shared by every variant: the demo's cpu preset before this benchmark (2,000
# documents, rarity extractor, open vocabulary, T = 64, documents cut to 96 tokens, no self-filter).
COMMON = dict(
    epsilon=10.0, delta=1e-3, task="medical", extractor="rarity", open_vocabulary=True, T=64,
    max_document_tokens=96, self_filter=False,
)
# The rephrase instruction with the cluster's released keyword as the document (public after the histogram).
KEYWORD_PUBLIC_PROMPT = REPHRASE_PROMPT.format(document=KEYWORD_SLOT)
# name -> (what it is, build parameters). "paper-demo" is the demo preset measured before this change.
VARIANTS: dict[str, tuple[str, dict]] = {
    "paper-demo": ("demo preset before: K=3, L=3, R=24, k=50, paper clustering and decoding",
                   dict(K=3, L=3, R=24, k=50, clustering="paper", decoding="paper")),
    "paper-decoding": ("K=1, L=1, R=48, k=40, paper decoding",
                       dict(K=1, L=1, R=48, k=40, clustering="paper", decoding="paper")),
    "public-prior": ("K=1, L=1, R=48, k=40, public-prior decoding (omega=1)",
                     dict(K=1, L=1, R=48, k=40, clustering="paper", decoding="public-prior")),
    "public-prior-0.25": ("K=1, L=1, R=48, k=40, public-prior decoding (omega=0.25)",
                          dict(K=1, L=1, R=48, k=40, clustering="paper", decoding="public-prior", public_weight=0.25)),
    "invisibleink": ("K=1, L=1, R=48, k=40, InvisibleInk decoding (lambda=1)",
                     dict(K=1, L=1, R=48, k=40, clustering="paper", decoding="invisibleink")),
    "primary-K3": ("K=3, L=1, R=48, k=40, primary clustering, InvisibleInk decoding",
                   dict(K=3, L=1, R=48, k=40, clustering="primary", decoding="invisibleink")),
    "public-prior-0.25-fluency": ("K=1, L=1, R=48, k=40, public-prior (omega=0.25), fluency filter at -8 nats/token: "
                                  "the demo and eval cpu default before redact-copies",
                                  dict(K=1, L=1, R=48, k=40, clustering="paper", decoding="public-prior",
                                       public_weight=0.25, fluency_threshold=-8.0)),
    "public-prior-0.25-fluency-T48": ("public-prior-0.25-fluency with T=48 (fewer tokens: a larger clip c, a shorter build)",
                                      dict(K=1, L=1, R=48, k=40, T=48, clustering="paper", decoding="public-prior",
                                           public_weight=0.25, fluency_threshold=-8.0)),
    "keyword-prior-0.25": ("K=1, L=1, R=48, k=40, public-prior (omega=0.25) whose public prompt holds the cluster's "
                           "released keyword, fluency filter at -8 nats/token",
                           dict(K=1, L=1, R=48, k=40, clustering="paper", decoding="public-prior", public_weight=0.25,
                                public_prompt=KEYWORD_PUBLIC_PROMPT, fluency_threshold=-8.0)),
    "keyword-prior-1": ("K=1, L=1, R=48, k=40, public-prior (omega=1) whose public prompt holds the cluster's "
                        "released keyword, fluency filter at -8 nats/token",
                        dict(K=1, L=1, R=48, k=40, clustering="paper", decoding="public-prior", public_weight=1.0,
                             public_prompt=KEYWORD_PUBLIC_PROMPT, fluency_threshold=-8.0)),
    "keyword-title-k24": ("K=1, L=1, R=48, k=24, T=48, public-prior (omega=0.25) with the keyword public prompt, "
                          "fluency filter at -8, keyword titles (a shorter demo candidate; not the demo default)",
                    dict(K=1, L=1, R=48, k=24, T=48, clustering="paper", decoding="public-prior", public_weight=0.25,
                         public_prompt=KEYWORD_PUBLIC_PROMPT, fluency_threshold=-8.0, keyword_title=True)),
    "groups-15": ("keyword-title-k24 with k=200 and member groups of 15 (at most 8 per cluster)",
                  dict(K=1, L=1, R=48, k=200, T=48, clustering="paper", decoding="public-prior", public_weight=0.25,
                       public_prompt=KEYWORD_PUBLIC_PROMPT, fluency_threshold=-8.0, keyword_title=True,
                       group_size=15, max_groups=8)),
    "groups-20-R32": ("groups-15 with groups of 20 and R=32",
                      dict(K=1, L=1, R=32, k=200, T=48, clustering="paper", decoding="public-prior", public_weight=0.25,
                           public_prompt=KEYWORD_PUBLIC_PROMPT, fluency_threshold=-8.0, keyword_title=True,
                           group_size=20, max_groups=8)),
    "prefix-groups-15": ("K=1, L=1, R=32, k=45, T=40, public-prior (omega=0.25) with the keyword public prompt, "
                         "response prefix 'Symptoms:', member groups of 15, fluency filter at -8, keyword titles",
                         dict(K=1, L=1, R=32, k=45, T=40, clustering="paper", decoding="public-prior", public_weight=0.25,
                              public_prompt=KEYWORD_PUBLIC_PROMPT, fluency_threshold=-8.0, keyword_title=True,
                              response_prefix="Symptoms:", group_size=15, max_groups=8)),
    "prefix-groups-10": ("prefix-groups-15 with member groups of 10",
                         dict(K=1, L=1, R=32, k=45, T=40, clustering="paper", decoding="public-prior", public_weight=0.25,
                              public_prompt=KEYWORD_PUBLIC_PROMPT, fluency_threshold=-8.0, keyword_title=True,
                              response_prefix="Symptoms:", group_size=10, max_groups=8)),
    "prefix": ("keyword-title-k24 with the response prefix 'Symptoms:' and T=40",
               dict(K=1, L=1, R=48, k=24, T=40, clustering="paper", decoding="public-prior", public_weight=0.25,
                    public_prompt=KEYWORD_PUBLIC_PROMPT, fluency_threshold=-8.0, keyword_title=True,
                    response_prefix="Symptoms:")),
    "keyword-prior-topk-500": ("keyword-prior-0.25 sampling among the public prompt's top-500 tokens",
                               dict(K=1, L=1, R=48, k=40, clustering="paper", decoding="public-prior", public_weight=0.25,
                                    public_prompt=KEYWORD_PUBLIC_PROMPT, public_top_k=500, fluency_threshold=-8.0)),
    "keyword-prior-topk-2000": ("keyword-prior-0.25 sampling among the public prompt's top-2000 tokens",
                                dict(K=1, L=1, R=48, k=40, clustering="paper", decoding="public-prior", public_weight=0.25,
                                     public_prompt=KEYWORD_PUBLIC_PROMPT, public_top_k=2000, fluency_threshold=-8.0)),
    "topk-prefix": ("K=1, L=1, R=48, k=40, T=48, public-prior (omega=0.25) with the keyword public prompt, sampling "
                    "among the public prompt's top-200 tokens, response prefix 'Symptoms:', fluency filter at -8",
                    dict(K=1, L=1, R=48, k=40, T=48, clustering="paper", decoding="public-prior", public_weight=0.25,
                         public_prompt=KEYWORD_PUBLIC_PROMPT, public_top_k=200, response_prefix="Symptoms:",
                         fluency_threshold=-8.0)),
    "topk-prefix-title": ("topk-prefix with keyword titles",
                          dict(K=1, L=1, R=48, k=40, T=48, clustering="paper", decoding="public-prior",
                               public_weight=0.25, public_prompt=KEYWORD_PUBLIC_PROMPT, public_top_k=200,
                               response_prefix="Symptoms:", fluency_threshold=-8.0, keyword_title=True)),
    "redact-copies": ("public-prior-0.25-fluency with each document's patient name redacted (--identifier-field "
                      "patient_name), threshold excess weight 0.25 (a cluster of near-duplicates is kept whole, not "
                      "emptied) and index copies (one per 10 documents of the released count, at most 8): the demo "
                      "and eval cpu default",
                      dict(K=1, L=1, R=48, k=40, clustering="paper", decoding="public-prior", public_weight=0.25,
                           fluency_threshold=-8.0, redact_identifiers=True, threshold_excess_weight=0.25,
                           index_copy_size=10)),
    "copies": ("redact-copies without the redaction (patient names stay in the texts the models read; they are "
               "still never keywords): the 'without redaction' row of issue 27",
               dict(K=1, L=1, R=48, k=40, clustering="paper", decoding="public-prior", public_weight=0.25,
                    fluency_threshold=-8.0, threshold_excess_weight=0.25, index_copy_size=10)),
}
_DEMO = dict(K=1, L=1, R=48, k=40, clustering="paper", decoding="public-prior", public_weight=0.25,
             fluency_threshold=-8.0, redact_identifiers=True, threshold_excess_weight=0.25, index_copy_size=10,
             trim_partial_ending=True)
VARIANTS.update({
    "copies-trim": ("copies with each text's partial last clause cut (trim_partial_ending): the 'without redaction' "
                    "row of issue 27 at the demo's current settings", {**_DEMO, "redact_identifiers": False}),
    "demo": ("the demo preset's DP-SynRAG (redact-copies with trim_partial_ending)", _DEMO),
    "demo-L2": ("the demo preset's DP-SynRAG with L = 2 (soft clustering: a document joins up to 2 clusters)",
                {**_DEMO, "L": 2}),
    "demo-L3": ("the demo preset's DP-SynRAG with L = 3", {**_DEMO, "L": 3}),
    # K = 3 (a document's three rarest words): soft clustering can act (a document joins up to min(L, K) clusters)
    "demo-K3-L1": ("the demo preset's DP-SynRAG with K = 3, L = 1", {**_DEMO, "K": 3}),
    "demo-K3-L2": ("the demo preset's DP-SynRAG with K = 3, L = 2", {**_DEMO, "K": 3, "L": 2}),
    "demo-K3-L3": ("the demo preset's DP-SynRAG with K = 3, L = 3", {**_DEMO, "K": 3, "L": 3}),
    "demo-template": ("the demo preset's DP-SynRAG with the task's response template: every text opens with "
                      "'Given the symptoms (' (public: the record format of the collection), so the members continue "
                      "a record from its first word", {**_DEMO, "response_prefix": "Given the symptoms ("}),
    "copies-trim-template": ("copies-trim (no redaction) with the task's response template 'Given the symptoms ('",
                             {**_DEMO, "redact_identifiers": False, "response_prefix": "Given the symptoms ("}),
    "demo-keyword-rephrase": ("the demo preset's DP-SynRAG with the cluster's released keyword in every member's "
                              f"rephrase prompt ({KEYWORD_REPHRASE_PROMPT!r}) and so in the default public prompt",
                              {**_DEMO, "rephrase_prompt": KEYWORD_REPHRASE_PROMPT}),
})
TOP_K = 5
ANSWER_TOKENS = 24


def fluency(lm: LanguageModel, texts: list[str]) -> float:
    """Mean token log-probability (nats) of ``texts`` as replies to an empty user turn (NaN if none)."""
    prefix = lm.encode(lm.chat_prompt(""))
    total, count = 0.0, 0
    for text in texts:
        ids = lm.tokenizer(text, add_special_tokens=False)["input_ids"]
        if not ids:
            continue
        seq = torch.tensor([prefix + ids])
        with torch.inference_mode():
            logits = lm.model(input_ids=seq).logits[0, len(prefix) - 1 : -1, : lm.vocab_size].float()
        logp = torch.log_softmax(logits, dim=-1).gather(1, torch.tensor(ids)[:, None])
        total += float(logp.sum())
        count += len(ids)
    return total / count if count else math.nan


def main(argv: list[str] | None = None) -> int:
    parser = arguments(__doc__, "bench_utility", questions=100)
    parser.add_argument("--variants", default=",".join(VARIANTS), help=f"comma-separated, from {list(VARIANTS)}")
    parser.add_argument("--skip-rag", action="store_true", help="do not re-measure RAG on the private documents")
    args = parser.parse_args(argv)
    if args.merge:
        out, seeds = merge_runs(args.merge)
        rags = (json.loads(Path(f).read_text()).get("rag") for f in args.merge)
        out["rag"] = next((rag for rag in rags if rag), None)  # RAG measured in one of the runs, if any
        names = list(out["variants"])
        return _write(out, names, seeds, args.out, ["--merge", *args.merge])
    names = [v for v in args.variants.split(",") if v]
    unknown = [v for v in names if v not in VARIANTS]
    if unknown:
        parser.error(f"unknown variants {unknown}; choose from {list(VARIANTS)}")
    seeds = seed_list(args.seeds)

    task = get_task("medical")
    database = demo_notes(args.documents)  # the demo's subset: public seed 0
    queries = task.load_queries(limit=args.questions)
    diseases = sorted(task.disease_counts(database))
    lm = LanguageModel.load()
    emb = Embedder.load()

    out: dict = {
        "documents": len(database), "questions": len(queries), "top_k": TOP_K, **machine(lm, emb), "common": COMMON,
        "variants": {}, "runs": [], "diseases_in_database": len(diseases),
    }
    out["rag"] = None
    if not args.skip_rag:
        out["rag"] = measure_rag(task, database, queries, lm=lm, embedder=emb, top_k=TOP_K, answer_tokens=ANSWER_TOKENS)
        print(f"RAG (private documents): {out['rag']}", flush=True)

    for name in names:
        desc, params = VARIANTS[name]
        out["variants"][name] = {"description": desc, "parameters": params}
        for seed in seeds:
            config = BuildConfig(**{**COMMON, **params}, seed=seed)
            with tempfile.TemporaryDirectory() as tmp:
                t = time.time()
                corpus = build_corpus(database, Path(tmp) / "corpus", config, lm=lm, embedder=emb, progress=False)
                build_s = time.time() - t
                _, scores = answer_corpus(corpus, task, queries, lm=lm, embedder=emb, top_k=TOP_K,
                                          answer_tokens=ANSWER_TOKENS)
                kept = [r["text"] for r in corpus.records if r["kept"]]
                lower = " ".join(kept).lower()
                named = [d for d in diseases if d.lower() in lower]
                run = {
                    "variant": name, "seed": seed, **scores,
                    "diseases_named": len(named),
                    "questions_covered": sum(any(a.lower() in lower for a in q.answers) for q in queries) / len(queries),
                    "fluency": fluency(lm, kept), "build_seconds": build_s,
                    "epsilon": corpus.privacy_report.epsilon,
                    "examples": kept[:3],
                }
            out["runs"].append(run)
            print(json.dumps({k: v for k, v in run.items() if k != "examples"}), flush=True)

    return _write(out, names, seeds, args.out, sys.argv[1:] if argv is None else argv)


def _write(out: dict, names: list[str], seeds: list[int], path: str, command: list[str]) -> int:
    """The results as ``path``.json and a mean ± sd table as ``path``.md."""
    diseases = out.get("diseases_in_database")
    metrics = ("accuracy", "context_recall", "diseases_named", "questions_covered", "texts_kept", "fluency", "build_seconds")
    lines = [
        f"# Utility benchmark (Medical Synth, {out['documents']} documents, {out['questions']} questions, "
        f"epsilon=10, delta=1e-3, top-{TOP_K}, seeds {','.join(map(str, seeds))})",
        "",
        (f"RAG on the private documents (no DP): accuracy {out['rag']['accuracy']:.3f}, "
         f"context recall {out['rag']['context_recall']:.3f}. " if out["rag"] else "RAG not measured in this run. ")
        + f"Diseases in the database: {diseases}.",
        "",
        *mean_sd_rows(out["runs"], names, metrics, "variant"),
    ]
    lines += ["", "Variants:"] + [f"- {n}: {out['variants'][n]['description']}" for n in names]
    return write_results(out, lines, path, "bench_utility.py", command)


if __name__ == "__main__":
    sys.exit(main())
