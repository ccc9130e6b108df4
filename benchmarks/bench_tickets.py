"""Ticket benchmark: DP-SynRAG on generated support tickets, where content varies inside a topic (issue 27).

Medical Synth's records of one disease are identical once the patient's name is redacted, so it cannot tell
whether a decoding writes fluent text when cluster members really disagree. This benchmark builds corpora
from ``tests/tickets.py`` tickets (invented customers, names, e-mails and order numbers redacted with
``--identifier-field``) at epsilon = 10, delta = 1e-3 with the ``cpu`` preset's DP-SynRAG settings (no
self-filter: the tickets have no task), one build per variant and seed, and scores the kept texts:

* fluent: the text's mean token log-probability under the public model, as the reply to an empty user
  turn (``LanguageModel.reply_logprobs``, what ``--fluency-threshold`` reads), is at least
  :data:`FLUENT_BOUND` nats (token soup scores about -12, fluent text -3 to -6 with SmolLM2-135M);
* on topic: the text names its cluster's released keyword (case-insensitive);
* identifier leaks: released keywords that are a redaction placeholder word or a word of any ticket's
  identifiers (must be 0), and kept texts holding any ticket's full name, e-mail or order number;
* build time (seconds; meaningful only on an otherwise idle machine).

There are no questions: this measures the texts, not answers. Seeded builds (not for release).
Results: ``benchmarks/results/bench_tickets.json`` and ``.md``.

Usage::

    python benchmarks/bench_tickets.py                             # every variant, seeds 0 1 2, 300 tickets
    python benchmarks/bench_tickets.py --variants cpu --seeds 0 --tickets 100    # smoke
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from tickets import make_tickets  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import KEYWORD_REPHRASE_PROMPT, mean_sd, merge_runs  # noqa: E402

from dpsynrag.eval.presets import for_task, get_preset  # noqa: E402
from dpsynrag.models import Embedder, LanguageModel  # noqa: E402
from dpsynrag.pipeline.build import KEYWORD_SLOT, REPHRASE_PROMPT, build_corpus  # noqa: E402
from dpsynrag.pipeline.config import BuildConfig  # noqa: E402
from dpsynrag.data.words import excluded_words  # noqa: E402

FLUENT_BOUND = -6.0
"""Mean token log-probability (nats) from which a text counts as fluent."""
IDENTIFIER_FIELDS = ["customer_name", "email", "order_number"]
KEYWORD_PUBLIC_PROMPT = REPHRASE_PROMPT.format(document=KEYWORD_SLOT)
CUSTOMER_REPHRASE_PROMPT = (
    "Rewrite this customer's support message about {keyword} in the customer's own words. "
    "Do not answer it.\nMessage: {document}"
)
"""A per-task rephrase prompt (public text a user of a support desk would write; {keyword} = the cluster's
released keyword)."""
TICKET_TEMPLATE = "Hello, this is [REDACTED]. My order number is [REDACTED]. {}"
"""A per-task response template (public: the collection's ticket format, identifiers as the redaction's
placeholder); ``{}`` is the private slot (:mod:`dpsynrag.models.template_selector`)."""
TICKET_ABOUT_TEMPLATE = "Hello, this is [REDACTED]. My order number is [REDACTED]. I am writing about my {}"
# name -> (what it is, BuildConfig fields over the cpu preset's DP-SynRAG fields)
VARIANTS: dict[str, tuple[str, dict]] = {
    "cpu": ("the cpu preset's DP-SynRAG settings (public-prior omega 0.25, T = 48, fluency filter at -8)", {}),
    "cpu-keyword-ngram": ("cpu with the cluster's released keyword in the public prompt and no repeated 3-grams",
                          dict(public_prompt=KEYWORD_PUBLIC_PROMPT, no_repeat_ngram=3)),
    "svt": ("cpu-keyword-ngram with sparse-vector decoding: at most 16 paid tokens of T = 64 steps",
            dict(public_prompt=KEYWORD_PUBLIC_PROMPT, no_repeat_ngram=3, T=64, svt_max_paid=16)),
    "customer": ("cpu-keyword-ngram with a per-task response template: every text opens with 'Customer:' (public: "
                 "the collection is customer tickets), so the members continue a customer's message",
                 dict(public_prompt=KEYWORD_PUBLIC_PROMPT, no_repeat_ngram=3, response_prefix="Customer:")),
    "customer-svt": ("customer with sparse-vector decoding: at most 16 paid tokens of T = 64 steps",
                     dict(public_prompt=KEYWORD_PUBLIC_PROMPT, no_repeat_ngram=3, response_prefix="Customer:", T=64,
                          svt_max_paid=16)),
    "customer-prompt": ("customer with a per-task rephrase prompt (public): each member's ticket is put into "
                        f"{CUSTOMER_REPHRASE_PROMPT!r}, and the public prompt is that instruction with an empty "
                        "message (the keyword kept)",
                        dict(rephrase_prompt=CUSTOMER_REPHRASE_PROMPT, no_repeat_ngram=3, response_prefix="Customer:")),
    "customer-prompt-svt": ("customer-prompt with sparse-vector decoding: at most 16 paid tokens of T = 64 steps",
                            dict(rephrase_prompt=CUSTOMER_REPHRASE_PROMPT, no_repeat_ngram=3,
                                 response_prefix="Customer:", T=64, svt_max_paid=16)),
    "customer-slots": ("cpu-keyword-ngram with slot-template decoding: the public ticket format "
                       f"{TICKET_TEMPLATE!r} written for free, only its slot drawn privately (T = 32 drawn tokens)",
                       dict(public_prompt=KEYWORD_PUBLIC_PROMPT, no_repeat_ngram=3, response_template=TICKET_TEMPLATE,
                            T=32)),
    "customer-slots-about": ("customer-slots with the customer's own opening of the request in the template: "
                             f"{TICKET_ABOUT_TEMPLATE!r} (public wording; the slot starts where the topic does)",
                             dict(public_prompt=KEYWORD_PUBLIC_PROMPT, no_repeat_ngram=3,
                                  response_template=TICKET_ABOUT_TEMPLATE, T=32)),
    "keyword-rephrase": ("cpu with the paper's rephrase prompt naming the cluster's released keyword (the generic "
                         "variant of bench_utility.py's demo-keyword-rephrase; no per-task text)",
                         dict(rephrase_prompt=KEYWORD_REPHRASE_PROMPT)),
}


def score(corpus, lm: LanguageModel, tickets: list[dict], placeholder: str) -> dict:
    records = corpus.records
    kept = [r for r in records if r["kept"]]
    fluency = [float(f) for f in lm.reply_logprobs([r["text"] for r in kept])] if kept else []
    fluent = [f >= FLUENT_BOUND for f in fluency]
    on_topic = [r["keyword"].lower() in r["text"].lower() for r in kept]
    forbidden = set(excluded_words([], placeholder)).union(
        *(excluded_words([t[f] for f in IDENTIFIER_FIELDS]) for t in tickets))
    values = {t[f].lower() for t in tickets for f in IDENTIFIER_FIELDS}
    n = len(kept)
    return {
        "keywords": len(records),
        "identifier_keywords": sum(r["keyword"] in forbidden for r in records),
        "texts_kept": n,
        "fluent": sum(fluent) / n if n else 0.0,
        "on_topic": sum(on_topic) / n if n else 0.0,
        "fluent_and_on_topic": sum(f and o for f, o in zip(fluent, on_topic)) / n if n else 0.0,
        "mean_logprob": statistics.mean(fluency) if fluency else float("nan"),
        "texts_with_identifier": sum(any(v in r["text"].lower() for v in values) for r in kept),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variants", default=",".join(VARIANTS), help=f"comma-separated, from {list(VARIANTS)}")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--tickets", type=int, default=300)
    parser.add_argument("--ticket-seed", type=int, default=0, help="seed of the generated collection (public)")
    parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "bench_tickets"))
    parser.add_argument("--examples", type=int, default=3, help="kept texts per build printed and stored")
    parser.add_argument("--merge", nargs="+", metavar="JSON",
                        help="write one table to --out from the .json outputs of earlier runs (e.g. one seed each)")
    args = parser.parse_args(argv)
    if args.merge:
        out, seeds = merge_runs(args.merge, same=("tickets", "ticket_seed", "model", "embedder", "fluent_bound"))
        return _write(out, list(out["variants"]), seeds, args.out, ["--merge", *args.merge])
    names = [v for v in args.variants.split(",") if v]
    unknown = [v for v in names if v not in VARIANTS]
    if unknown:
        parser.error(f"unknown variants {unknown}; choose from {list(VARIANTS)}")
    seeds = [int(s) for s in args.seeds.split(",")]

    tickets = make_tickets(args.tickets, args.ticket_seed)
    lm = LanguageModel.load()
    emb = Embedder.load()
    base = {**for_task(get_preset("cpu").synrag), "self_filter": False, "redact_identifiers": True}
    out: dict = {"tickets": len(tickets), "ticket_seed": args.ticket_seed, "model": lm.name, "embedder": emb.name,
                 "torch_threads": torch.get_num_threads(), "machine": platform.processor() or platform.machine(),
                 "fluent_bound": FLUENT_BOUND, "base": base, "variants": {}, "runs": []}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "tickets.jsonl"
        path.write_text("".join(json.dumps(t, ensure_ascii=False) + "\n" for t in tickets), encoding="utf-8")
        for name in names:
            desc, params = VARIANTS[name]
            out["variants"][name] = {"description": desc, "parameters": params}
            for seed in seeds:
                config = BuildConfig(epsilon=10.0, delta=1e-3, **{**base, **params}, seed=seed)
                t = time.time()
                corpus = build_corpus(path, Path(tmp) / f"{name}-{seed}", config, lm=lm, embedder=emb,
                                      text_field="body", identifier_fields=IDENTIFIER_FIELDS, progress=False)
                run = {"variant": name, "seed": seed, "build_seconds": time.time() - t,
                       **score(corpus, lm, tickets, config.identifier_placeholder),
                       "examples": [r["text"] for r in corpus.records if r["kept"]][:args.examples]}
                out["runs"].append(run)
                print(json.dumps({k: v for k, v in run.items() if k != "examples"}), flush=True)
                for text in run["examples"]:
                    print("   ", text[:200].replace("\n", " "), flush=True)
    return _write(out, names, seeds, args.out, argv if argv is not None else sys.argv[1:])


def _write(out: dict, names: list[str], seeds: list[int], stem: str, argv: list[str]) -> int:
    Path(stem).parent.mkdir(parents=True, exist_ok=True)
    Path(f"{stem}.json").write_text(json.dumps(out, indent=1, ensure_ascii=False), encoding="utf-8")
    columns = ["keywords", "identifier_keywords", "texts_kept", "fluent", "on_topic", "fluent_and_on_topic",
               "mean_logprob", "texts_with_identifier", "build_seconds"]
    lines = [f"# Ticket benchmark ({out['tickets']} generated tickets, epsilon=10, delta=1e-3, seeds "
             f"{','.join(map(str, seeds))}; fluent: mean token log-probability >= {out['fluent_bound']} nats)", "",
             "| variant | " + " | ".join(columns) + " |", "|---" * (len(columns) + 1) + "|"]
    for name in names:
        runs = [r for r in out["runs"] if r["variant"] == name]
        lines.append(f"| {name} | " + " | ".join(mean_sd([float(r[c]) for r in runs]) for c in columns) + " |")
    lines += ["", "Variants:"] + [f"- {n}: {out['variants'][n]['description']}" for n in names]
    lines += ["", f"Command: python benchmarks/bench_tickets.py {' '.join(argv)}", "", "Examples (first kept texts):"]
    for r in out["runs"]:
        lines += [f"- {r['variant']} seed {r['seed']}: " + " / ".join(t[:160].replace("\n", " ") for t in r["examples"])]
    Path(f"{stem}.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {stem}.json and {stem}.md")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
