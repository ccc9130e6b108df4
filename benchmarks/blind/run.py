"""The blind own-data benchmark (issue 51), one command per split: generate the collections, evaluate each
with ``dpsynrag eval --task own`` (Non-RAG, RAG over the raw file and DP-SynRAG, the ``own-cpu`` preset, the
collection's identifier fields, ``--redact-pii`` with its public strings and product names allow-listed), then
measure redaction and the corpus's facts (:mod:`benchmarks.blind.measure`) and write a table.

    .venv/bin/python -m benchmarks.blind.run --split tuning --tag t1 [--seeds 0 1 2] [--methods non-rag,rag,dp-synrag]
    .venv/bin/python -m benchmarks.blind.run --split held_out --tag h1 --out benchmarks/results/blind_heldout.md

Collections go to ``runs/blind/NAME``, evaluations to ``runs/blind-eval/NAME-TAG``; the table (Markdown) and
the raw numbers (JSON beside it) to ``--out``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run by path: make the repository root importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.blind.generate import SPLIT, generate  # noqa: E402
from benchmarks.blind.measure import allow_list, corpus_facts, redaction  # noqa: E402


def corpus_facts_accuracy(run: Path) -> float | None:
    """RAG's accuracy in an ``eval`` output folder."""
    result = json.loads((run / "results.json").read_text(encoding="utf-8"))
    return next((m.get("accuracy") for m in result["methods"] if m["method"] == "rag"), None)

ROOT = Path(__file__).resolve().parents[2]


def evaluate(folder: Path, out: Path, methods: str, extra: list[str]) -> None:
    """``dpsynrag eval --task own`` over one collection (module docstring)."""
    public = json.loads((folder / "public.json").read_text(encoding="utf-8"))
    allow = folder / "allow.txt"
    allow.write_text("".join(s + "\n" for s in allow_list(folder)), encoding="utf-8")
    command = [str(ROOT / ".venv/bin/dpsynrag"), "eval", "--task", "own", "--database", str(folder / "records.jsonl"),
               "--queries", str(folder / "questions.jsonl"), "--text-field", "text", "--id-field", "id",
               *[a for f in public["identifier_fields"] for a in ("--identifier-field", f)], "--redact-pii",
               "--pii-allow-file", str(allow), "--preset", "own-cpu", "--methods", methods, "--out", str(out),
               "--no-plots", *extra]
    subprocess.run(command, check=True, cwd=ROOT, stdout=subprocess.DEVNULL)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", choices=["tuning", "held_out", "held_out_2", "held_out_3"], required=True)
    parser.add_argument("--tag", required=True)
    parser.add_argument("--seeds", type=int, nargs="+", default=SPLIT["seeds"])
    parser.add_argument("--methods", default="non-rag,rag,dp-synrag")
    parser.add_argument("--out", type=Path, help="the Markdown table (default: runs/blind-eval/SPLIT-TAG.md)")
    parser.add_argument("--no-redaction", action="store_true", help="skip the redaction measurement")
    parser.add_argument("extra", nargs="*", help="more eval options, after --")
    args = parser.parse_args(argv)
    out = args.out or ROOT / "runs" / "blind-eval" / f"{args.split}-{args.tag}.md"
    rows = []
    for domain in SPLIT[args.split]:
        for seed in args.seeds:
            name = f"{domain}-s{seed}"
            folder = ROOT / "runs" / "blind" / name
            if not (folder / "records.jsonl").exists():
                generate(domain, seed, 400, folder)
            run = ROOT / "runs" / "blind-eval" / f"{name}-{args.tag}"
            t = time.time()
            if not (run / "results.json").exists():
                evaluate(folder, run, args.methods, args.extra)
            extractive = run.with_name(run.name + "-rx")  # RAG over the raw file answering extractively too
            if "rag" in args.methods.split(",") and not (extractive / "results.json").exists():
                evaluate(folder, extractive, "rag", ["--answer-mode", "extractive", *args.extra])
            facts = corpus_facts(run, folder)
            if (extractive / "results.json").exists():
                facts["accuracy"]["rag-extractive"] = corpus_facts_accuracy(extractive)
            red = None if args.no_redaction else redaction(folder)
            rows.append({"name": name, "domain": domain, "seed": seed, "seconds": round(time.time() - t),
                         "facts": {k: v for k, v in facts.items() if k != "texts"}, "texts": facts["texts"],
                         "redaction": red})
            print(f"{name}: {facts['accuracy']}, kept {facts['kept']}, stating a fact {facts['kept_stating_a_fact']}"
                  + ("" if red is None else f", records holding PII {red['records_holding']}/{red['records']}"),
                  flush=True)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(json.dumps(rows, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    out.write_text(table(rows, args), encoding="utf-8")
    print(out)


def _pct(v) -> str:
    return "–" if v is None else f"{100 * v:.1f}%"


def table(rows: list[dict], args) -> str:
    """The Markdown table of one split: a row per collection, a mean per domain and over all."""
    lines = [f"| collection | Non-RAG | RAG (raw file) | RAG, extractive | DP-SynRAG | DP / RAG | kept texts | stating a fact "
             f"| types reached | contact fact in corpus | records holding PII | facts damaged by redaction |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]

    def line(label: str, rs: list[dict]) -> str:
        acc = lambda m: [r["facts"]["accuracy"].get(m) for r in rs if r["facts"]["accuracy"].get(m) is not None]  # noqa: E731
        mean = lambda xs: sum(xs) / len(xs) if xs else None  # noqa: E731
        rag, dp, non, rx = mean(acc("rag")), mean(acc("dp-synrag")), mean(acc("non-rag")), mean(acc("rag-extractive"))
        kept = sum(r["facts"]["kept"] for r in rs)
        fact = sum(r["facts"]["kept_stating_a_fact"] for r in rs)
        contact = [v for r in rs for v in r["facts"]["contact_facts"].values()]
        red = [r["redaction"] for r in rs if r["redaction"]]
        pii = f"{sum(x['records_holding'] for x in red)}/{sum(x['records'] for x in red)}" if red else "–"
        dmg = f"{sum(x['fact_damaged'] for x in red)}" if red else "–"
        types = sum(len(r["facts"]["types_reached"]) for r in rs)
        return (f"| {label} | {_pct(non)} | {_pct(rag)} | {_pct(rx)} | {_pct(dp)} | {'–' if not rag or dp is None else f'{dp / rag:.2f}×'} "
                f"| {kept} | {fact} ({fact / max(kept, 1):.0%}) | {types} / {sum(r['facts']['types'] for r in rs)} "
                f"| {sum(contact)} / {len(contact)} | {pii} | {dmg} |")

    for r in rows:
        lines.append(line(r["name"], [r]))
    for domain in dict.fromkeys(r["domain"] for r in rows):
        lines.append(line(f"**{domain}**", [r for r in rows if r["domain"] == domain]))
    lines.append(line("**all**", rows))
    head = (f"# Blind own-data benchmark: {args.split} domains (issue 51)\n\n"
            f"`.venv/bin/python -m benchmarks.blind.run --split {args.split} --tag {args.tag}` "
            f"(seeds {' '.join(map(str, args.seeds))}; methods {args.methods}). ε = 10, δ = 1e-3, the offline "
            "SmolLM2-135M-Instruct and all-MiniLM-L6-v2, the `own-cpu` preset (mechanism seed 0: not for release).\n\n")
    return head + "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
