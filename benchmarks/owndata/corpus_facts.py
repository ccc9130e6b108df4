"""Which request types' facts reached a DP-SynRAG corpus of an own-data collection (issue 41), and the
eval's accuracy and context recall: one table row per ``dpsynrag eval --task own`` output folder.

Per folder: the collection (``--collections``/NAME, NAME the folder's name up to its last ``-``, e.g.
``bank-s2`` of ``bank-s2-own``), the DP-SynRAG corpus under ``cache/corpora/``, and ``results.json``. A
kept text **holds a type's fact** when one of the type's accepted answers (``questions.jsonl``) occurs in
it as whole words, case-insensitive (the accuracy rule). With ``--fluency`` a kept text is also scored
fluent as in ``benchmarks/bench_tickets.py`` (mean token log-probability under the public model, as the reply
to an empty user turn, at least ``FLUENT_BOUND`` = -6 nats), and the table counts the kept texts that are
fluent and hold a fact (the issue's "fluent and on topic", with "on topic" read strictly as stating a fact).

    .venv/bin/python -m benchmarks.owndata.corpus_facts runs/owndata-topics/*-s2-own --collections runs/owndata
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import regex


def _holds(text: str, answer: str) -> bool:
    return regex.search(rf"(?<!\w){regex.escape(answer)}(?!\w)", text, flags=regex.IGNORECASE) is not None


FLUENT_BOUND = -6.0
"""Mean token log-probability (nats) from which a text counts as fluent (``bench_tickets.FLUENT_BOUND``)."""


def row(folder: Path, collections: Path, lm=None) -> dict:
    """{run, accuracy, context_recall, released, kept, kept_with_fact, types_in_corpus, large_types_in_corpus}."""
    name = folder.name.rsplit("-", 1)[0]
    answers: dict[str, list[str]] = {}
    for line in open(collections / name / "questions.jsonl", encoding="utf-8"):
        q = json.loads(line)
        answers.setdefault(q["type"], []).extend(a for a in q["answers"] if a not in answers.get(q["type"], []))
    counts = json.loads((collections / name / "meta.json").read_text(encoding="utf-8"))["type_counts"]
    corpus = next(p for p in (folder / "cache" / "corpora").iterdir() if p.is_dir() and p.name.startswith("dp-synrag"))
    records = [json.loads(line) for line in open(corpus / "texts.jsonl", encoding="utf-8")]
    kept = [r["text"] for r in records if r.get("kept", True)]
    found = {t for t, a in answers.items() for text in kept if any(_holds(text, x) for x in a)}
    facts = [any(_holds(text, x) for a in answers.values() for x in a) for text in kept]
    with_fact = sum(facts)
    fluent = None if lm is None or not kept else [float(f) >= FLUENT_BOUND for f in lm.reply_logprobs(kept)]
    result = json.loads((folder / "results.json").read_text(encoding="utf-8"))
    method = next(m for m in result["methods"] if m["method"] == "dp-synrag")
    rag_results = folder.parent / f"{name}-rag" / "results.json"  # RAG over the raw file, when it was run
    rag = None if not rag_results.exists() else next(
        m for m in json.loads(rag_results.read_text(encoding="utf-8"))["methods"] if m["method"] == "rag")["accuracy"]
    return {"run": folder.name, "accuracy": method.get("accuracy"), "context_recall": method.get("context_recall"), "rag": rag,
            "released": len(records), "kept": len(kept), "kept_with_fact": with_fact, "types_in_corpus": len(found),
            "large_types_in_corpus": len({t for t in found if counts[t] >= 30}),
            "large_types": sum(n >= 30 for n in counts.values()),
            "fluent_with_fact": None if fluent is None else sum(f and x for f, x in zip(fluent, facts)),
            "fluent": None if fluent is None else sum(fluent)}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="+", type=Path)
    parser.add_argument("--collections", type=Path, default=Path("runs/owndata"))
    parser.add_argument("--fluency", action="store_true", help="score kept texts' fluency with the offline model")
    args = parser.parse_args(argv)
    lm = None
    if args.fluency:
        from dpsynrag.models import LanguageModel

        lm = LanguageModel.load()
    print("| run | accuracy | context recall | RAG over the raw file | texts (kept / all) | kept texts holding a fact | "
          "types whose fact is in the corpus | of the types with >= 30 records | fluent | fluent and holding a fact |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    pct = lambda v: "–" if v is None else f"{100 * v:.1f}%"  # noqa: E731
    opt = lambda v: "–" if v is None else v  # noqa: E731
    groups: dict[str, list[dict]] = {}
    for folder in args.folders:
        r = row(folder, args.collections, lm)
        groups.setdefault(folder.name.rsplit("-", 1)[1], []).append(r)
        print(f"| {r['run']} | {pct(r['accuracy'])} | {pct(r['context_recall'])} | {pct(r['rag'])} | {r['kept']} / "
              f"{r['released']} | {r['kept_with_fact']} | {r['types_in_corpus']} / 13 | {r['large_types_in_corpus']} / "
              f"{r['large_types']} | {opt(r['fluent'])} | {opt(r['fluent_with_fact'])} |")
    for suffix, rows in groups.items():  # unweighted means over the runs of one setting
        mean = lambda key: sum(r[key] for r in rows) / len(rows)  # noqa: E731
        fmean = lambda key: "–" if rows[0][key] is None else f"{mean(key):.1f}"  # noqa: E731
        rags = [r["rag"] for r in rows if r["rag"] is not None]
        print(f"| mean of {len(rows)} `{suffix}` | {pct(mean('accuracy'))} | {pct(mean('context_recall'))} | "
              f"{pct(sum(rags) / len(rags)) if rags else '–'} ({len(rags)} runs) | {mean('kept'):.1f} / {mean('released'):.1f} | "
              f"{mean('kept_with_fact'):.1f} | {mean('types_in_corpus'):.1f} / 13 | {mean('large_types_in_corpus'):.1f} / "
              f"{mean('large_types'):.1f} | {fmean('fluent')} | {fmean('fluent_with_fact')} |")


if __name__ == "__main__":
    main()
