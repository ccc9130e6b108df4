"""The data contract of a blind own-data domain (``CONTRACT.md``): :func:`check` validates what a domain's
``generate(seed, n)`` returns, :func:`write` writes it as a collection folder:

| file | content |
|---|---|
| ``records.jsonl`` | the records |
| ``pii.jsonl`` | ``{"id", "pii": [{"kind", "text"}, ...]}`` per record |
| ``questions.jsonl`` | ``{"question", "answers", "type", "support"}`` |
| ``public.json`` | the public strings, product names and field names |
| ``meta.json`` | domain, seed, n, the request types with their facts and forms |
| ``public.txt`` | the public strings, one per line (for ``--pii-allow-file``) |
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

__all__ = ["PII_KINDS", "ContractError", "check", "holds", "write"]

PII_KINDS = frozenset({
    "person_name", "third_party_name", "agent_name", "address", "postcode", "phone", "email", "url_with_id",
    "account_number", "card_number", "iban", "imei", "date_of_birth", "licence_plate", "national_id", "other_id",
})


class ContractError(ValueError):
    """What a generated collection breaks of the contract."""


def holds(text: str, form: str) -> bool:
    """Whether ``form`` occurs in ``text`` as whole words, any case."""
    return re.search(rf"(?<!\w){re.escape(form)}(?!\w)", text, flags=re.IGNORECASE) is not None


def _need(ok: bool, message: str) -> None:
    if not ok:
        raise ContractError(message)


def check(c: dict, n: int) -> None:
    """Raise :class:`ContractError` on the first breach of ``CONTRACT.md``'s checks."""
    for key in ("domain", "records", "pii", "types", "questions", "public"):
        _need(key in c, f"missing key {key!r}")
    records, public = c["records"], c["public"]
    _need(len(records) == n, f"{len(records)} records, expected {n}")
    ids = [r["id"] for r in records]
    _need(len(set(ids)) == n and all(isinstance(i, str) for i in ids), "record ids must be unique strings")
    for key in ("company", "public_strings", "product_names", "identifier_fields", "id_field", "text_field",
                "unit_field"):
        _need(key in public, f"public lacks {key!r}")
    fields = [public["id_field"], public["text_field"], public["unit_field"], "type", *public["identifier_fields"]]
    for r in records:
        missing = [f for f in fields if f not in r]
        _need(not missing, f"record {r.get('id')} lacks {missing}")
        _need(isinstance(r["text"], str) and r["text"].strip() != "", f"record {r['id']}: empty text")
    _need(len(c["pii"]) == n and [p["id"] for p in c["pii"]] == ids, "pii rows must follow the records' order")
    for r, row in zip(records, c["pii"]):
        for item in row["pii"]:
            _need(item["kind"] in PII_KINDS, f"record {r['id']}: unknown PII kind {item['kind']!r}")
            _need(item["text"] and item["text"] in r["text"],
                  f"record {r['id']}: PII {item['text']!r} is not a substring of its text")
    counts = Counter(r["type"] for r in records)
    types = c["types"]
    _need(10 <= len(types) <= 14, f"{len(types)} request types, expected 10-14")
    _need({t["id"] for t in types} == set(counts), "types must be exactly the records' types")
    for t in types:
        _need(t["records"] == counts[t["id"]], f"type {t['id']}: records {t['records']} != {counts[t['id']]}")
        _need(t["fact"] in t["forms"], f"type {t['id']}: fact not among its forms")
        _need(0 <= t["stated_by"] <= t["records"] and 0 <= t["misquoted_by"] <= t["records"],
              f"type {t['id']}: stated_by / misquoted_by out of range")
    for t in types:
        for u in types:
            if t is not u:
                for a in t["forms"]:
                    for b in u["forms"]:
                        _need(not holds(b, a), f"form {a!r} of {t['id']} occurs in form {b!r} of {u['id']}")
    by_type = Counter(q["type"] for q in c["questions"])
    for t in types:
        _need(2 <= by_type[t["id"]] <= 3, f"type {t['id']}: {by_type[t['id']]} questions, expected 2-3")
    for q in c["questions"]:
        _need(bool(q["answers"]) and q["support"] == counts[q["type"]], f"question {q['question']!r}: answers/support")
        _need(not any(holds(q["question"], a) for a in q["answers"]), f"question {q['question']!r} holds its answer")
    contact = [t for t in types if any(s in t["forms"] for s in public["public_strings"])]
    _need(n < 400 or any(t["stated_by"] >= 20 for t in contact),
          "no type's fact is a public contact string stated by >= 20 records")
    texts = "\n".join(r["text"] for r in records)
    for s in public["public_strings"]:
        _need(s in texts, f"public string {s!r} occurs in no record")


def write(c: dict, out: str | Path, *, seed: int, n: int) -> Path:
    """Check ``c`` and write its folder ``out``; returns ``out``."""
    check(c, n)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)

    def jsonl(name: str, rows) -> None:
        with open(out / name, "w", encoding="utf-8") as f:
            for row in rows:
                f.write(json.dumps(row, ensure_ascii=False) + "\n")

    jsonl("records.jsonl", c["records"])
    jsonl("pii.jsonl", c["pii"])
    jsonl("questions.jsonl", c["questions"])
    (out / "public.json").write_text(json.dumps(c["public"], ensure_ascii=False, indent=1), encoding="utf-8")
    (out / "public.txt").write_text("".join(s + "\n" for s in c["public"]["public_strings"]), encoding="utf-8")
    meta = {"domain": c["domain"], "seed": seed, "n": n, "types": c["types"],
            "type_counts": {t["id"]: t["records"] for t in c["types"]}}
    (out / "meta.json").write_text(json.dumps(meta, ensure_ascii=False, indent=1), encoding="utf-8")
    return out
