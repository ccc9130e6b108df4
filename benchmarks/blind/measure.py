"""Measurements on blind own-data collections (``CONTRACT.md``; issue 51): what the library's redaction
leaves, and what a DP-SynRAG corpus states, judged by each generator's own truth.

**Redaction** (:func:`redaction`): the records read as ``dpsynrag build`` reads them (identifier fields of
``public.json``) and redacted by the library (:class:`dpsynrag.data.redaction.RedactedDocuments` with
:class:`dpsynrag.data.pii.PIIRedactor`, the allow-list of :func:`allow_list`). A PII item of ``pii.jsonl``
is still there when one of its probes occurs format-insensitively
(:func:`benchmarks.owndata.pii_residual.present`: letters and digits in order, any non-alphanumeric
characters between, any case, not inside a longer word or number; :func:`left`). Probes (:func:`probes`):
the surface form (a name that is one common English word, "May", only as written, with its case); a name's parts of 3+ letters that are not common English words (wordfreq Zipf < 4: "Callum" of
"Callum Green", not "Green"; titles aside); an address's comma-separated parts that hold a digit; a phone's
last 9 digits (its national number, whatever prefix). A record **holds a private string** when any item is
there. Also counted: records whose allow-listed strings did not survive verbatim, records where a product
name (``public.json``'s ``product_names``) was written and is damaged after redaction, both when the product
names are allow-listed and when they are not, and records where a form of their type's fact was written and
is damaged after redaction.

**Corpus facts** (:func:`corpus_facts`): a kept text **states a fact of its type** when one of the forms of
some type's fact (``meta.json``, the generator's ``forms``) occurs in it as whole words, any case. A public
contact fact (a type whose fact is a public string, stated by >= 15 records) **reaches the corpus** when that
string occurs verbatim in a kept text.

    python -m benchmarks.blind.measure redaction runs/blind/hr-s0 runs/blind/hr-s1 [--model none] [--names] [--json F]
    python -m benchmarks.blind.measure facts runs/blind-eval/hr-s0-TAG --collection runs/blind/hr-s0
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from functools import lru_cache
from pathlib import Path

if __package__ in (None, ""):  # run by path: make the repository root importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.blind.contract import holds  # noqa: E402
from benchmarks.owndata.pii_residual import present  # noqa: E402

__all__ = ["allow_list", "corpus_facts", "left", "probes", "redaction"]

NAME_KINDS = frozenset({"person_name", "third_party_name", "agent_name"})
TITLES = frozenset("mr mrs ms miss mx dr prof sir dame rev agent".split())
COMMON_ZIPF = 4.0


@lru_cache(maxsize=65536)
def _common(word: str) -> bool:
    import wordfreq

    return wordfreq.zipf_frequency(word.lower(), "en") >= COMMON_ZIPF


def probes(item: dict) -> list[str]:
    """The strings whose presence means ``item`` (``{"kind", "text"}``) is still there (module docstring)."""
    text, kind = item["text"], item["kind"]
    found = [] if kind in NAME_KINDS and _common(text) else [text]  # "May": see :func:`left`
    if kind in NAME_KINDS:
        for part in re.split(r"[\s,.]+", text):
            if len(part) >= 3 and part[0].isupper() and part.lower() not in TITLES and not _common(part):
                found.append(part)
    elif kind == "address":
        found += [p.strip() for p in text.split(",") if any(ch.isdigit() for ch in p)]
    elif kind == "phone":
        digits = "".join(ch for ch in text if ch.isdigit())
        if len(digits) >= 10:
            found.append(digits[-9:])
    return found


def left(item: dict, text: str) -> bool:
    """Whether ``item`` is still in ``text``: a probe found format-insensitively (:func:`probes`); a name that is
    one common word ("May", "Will", "guy") only where it is written as in the record, with its case."""
    if item["kind"] in NAME_KINDS and _common(item["text"]):
        if re.search(rf"(?<!\w){re.escape(item['text'])}(?!\w)", text):
            return True
    return any(present({"kind": item["kind"], "probes": [p]}, text) for p in probes(item))


def allow_list(folder: Path, *, products: bool = True) -> list[str]:
    """The public strings a user declares (``--pii-allow``): ``public_strings``, and ``product_names``."""
    public = json.loads((folder / "public.json").read_text(encoding="utf-8"))
    return list(public["public_strings"]) + (list(public["product_names"]) if products else [])


def staff_directory(folder: Path) -> list[str]:
    """The organisation's staff directory as its owner would give it (``--pii-names-file``), made from the
    generator's ``agent_name`` items: every surface written as a given name and a surname ("Priya Shah": two or
    three capitalised words without dots or digits, no title first), and the one-word surfaces ("Joy") that
    are no part of a listed person's name (staff the collection names only by one name). Initials, "Priya S.", "Agent Mills"
    are not lines of it: the directory's full names stand for them."""
    full: set[str] = set()
    single: set[str] = set()
    for row in map(json.loads, open(folder / "pii.jsonl", encoding="utf-8")):
        for item in row["pii"]:
            if item["kind"] != "agent_name":
                continue
            words = item["text"].split()
            if words and words[0].lower().rstrip(".") not in TITLES and all(re.fullmatch(r"[A-Z][a-z'’\-]+(?:[A-Z][a-z'’\-]+)?", w) for w in words):
                (full if 2 <= len(words) <= 3 else single if len(words) == 1 else set()).add(" ".join(words))
    parts = {w for name in full for w in name.split()}
    return sorted(full) + sorted(w for w in single if w not in parts)


def redaction(folder: str | Path, *, model: str | None = None, products: bool = True, names: bool = False) -> dict:
    """What the library's redaction leaves in one collection (module docstring); ``model`` as ``--pii-model``
    (None: the default), ``products``: the product names are allow-listed, ``names``: the staff directory is
    given (:func:`staff_directory`, as ``--pii-names-file``)."""
    from dpsynrag.data import load_documents
    from dpsynrag.data.pii import PIIRedactor
    from dpsynrag.data.redaction import RedactedDocuments

    folder = Path(folder)
    public = json.loads((folder / "public.json").read_text(encoding="utf-8"))
    records = [json.loads(line) for line in open(folder / "records.jsonl", encoding="utf-8")]
    pii = {row["id"]: row["pii"] for row in map(json.loads, open(folder / "pii.jsonl", encoding="utf-8"))}
    allow = allow_list(folder, products=products)
    documents = load_documents(folder / "records.jsonl", id_field="id",
                               identifier_fields=public["identifier_fields"])
    staff = staff_directory(folder) if names else []
    redacted = RedactedDocuments(documents, identifiers=True, pii=PIIRedactor(allow=allow, model=model, names=staff))
    texts = {d.id: d.text for d in redacted}
    forms = {t["id"]: t["forms"] for t in json.loads((folder / "meta.json").read_text(encoding="utf-8"))["types"]}
    by_kind: dict[str, Counter] = {}
    holding = public_lost = product_damaged = fact_damaged = 0
    left_examples: list[str] = []
    product_hits: Counter = Counter()
    for record in records:
        text = texts[str(record["id"])]
        holds_one = False
        for item in pii[record["id"]]:
            counts = by_kind.setdefault(item["kind"], Counter())
            counts["total"] += 1
            if left(item, text):
                counts["left"] += 1
                holds_one = True
                if len(left_examples) < 40:
                    left_examples.append(f"{item['kind']}: {item['text']}")
        holding += holds_one
        public_lost += any(s in record["text"] and s not in text for s in public["public_strings"])
        damaged = [p for p in public["product_names"] if holds(record["text"], p) and not holds(text, p)]
        product_damaged += bool(damaged)
        product_hits.update(damaged)
        fact_damaged += any(holds(record["text"], f) and not holds(text, f) for f in forms[record["type"]])
    n = len(records)
    return {"folder": str(folder), "model": model, "products_allowed": products, "staff_names": len(staff), "records": n,
            "records_holding": holding, "fraction": holding / n, "public_lost": public_lost,
            "product_damaged": product_damaged, "products": dict(product_hits.most_common()),
            "fact_damaged": fact_damaged,
            "by_kind": {k: dict(v) for k, v in sorted(by_kind.items())}, "examples": left_examples}


def corpus_facts(eval_dir: str | Path, collection: str | Path) -> dict:
    """The facts a DP-SynRAG corpus of an ``eval --task own`` output folder states (module docstring)."""
    eval_dir, collection = Path(eval_dir), Path(collection)
    meta = json.loads((collection / "meta.json").read_text(encoding="utf-8"))
    public = json.loads((collection / "public.json").read_text(encoding="utf-8"))
    corpus = next(p for p in sorted((eval_dir / "cache" / "corpora").iterdir())
                  if p.is_dir() and p.name.startswith("dp-synrag"))
    rows = [json.loads(line) for line in open(corpus / "texts.jsonl", encoding="utf-8")]
    kept = [r["text"] for r in rows if r.get("kept", True)]
    states = [[t["id"] for t in meta["types"] if any(holds(text, f) for f in t["forms"])] for text in kept]
    reached = sorted({t for s in states for t in s})
    contact = [t for t in meta["types"] if t["fact"] in public["public_strings"] and t["stated_by"] >= 15]
    result = json.loads((eval_dir / "results.json").read_text(encoding="utf-8"))
    accuracy = {m["method"]: m.get("accuracy") for m in result["methods"]}
    return {"run": eval_dir.name, "accuracy": accuracy, "kept": len(kept), "released": len(rows),
            "kept_stating_a_fact": sum(bool(s) for s in states), "types_reached": reached,
            "types": len(meta["types"]),
            "contact_facts": {t["id"]: any(t["fact"] in text for text in kept) for t in contact},
            "texts": kept}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="what", required=True)
    red = sub.add_parser("redaction")
    red.add_argument("folders", nargs="+", type=Path)
    red.add_argument("--model", default=None, help="as --pii-model (default: the library's default; none: rules)")
    red.add_argument("--no-products", action="store_true", help="do not allow-list the product names")
    red.add_argument("--names", action="store_true", help="give the staff directory (--pii-names-file; staff_directory)")
    red.add_argument("--json", type=Path)
    facts = sub.add_parser("facts")
    facts.add_argument("runs", nargs="+", type=Path)
    facts.add_argument("--collections", type=Path, default=Path("runs/blind"))
    facts.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    results = []
    if args.what == "redaction":
        for folder in args.folders:
            r = redaction(folder, model=args.model, products=not args.no_products, names=args.names)
            results.append(r)
            kinds = ", ".join(f"{k} {v.get('left', 0)}/{v['total']}" for k, v in r["by_kind"].items())
            print(f"{folder}: {r['records_holding']}/{r['records']} records hold a private string "
                  f"({r['fraction']:.1%}); public strings lost in {r['public_lost']}; product names damaged in "
                  f"{r['product_damaged']} {r['products']}; facts damaged in {r['fact_damaged']}; left: {kinds}")
        total = sum(r["records_holding"] for r in results), sum(r["records"] for r in results)
        print(f"total: {total[0]}/{total[1]} ({total[0] / total[1]:.1%})")
    else:
        for run in args.runs:
            name = run.name.rsplit("-", 1)[0]
            r = corpus_facts(run, args.collections / name)
            results.append(r)
            acc = ", ".join(f"{k} {v:.1%}" for k, v in r["accuracy"].items() if v is not None)
            print(f"{r['run']}: {acc}; kept {r['kept']}/{r['released']}, stating a fact {r['kept_stating_a_fact']} "
                  f"({r['kept_stating_a_fact'] / max(r['kept'], 1):.0%}); types reached {len(r['types_reached'])}/"
                  f"{r['types']}; contact facts {r['contact_facts']}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
