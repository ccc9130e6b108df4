"""How much of a generated collection's PII survives a redaction, and whether its public strings do.

For each record of a folder written by :mod:`benchmarks.owndata.generate`, the redacted text is searched
for every PII item of ``pii.jsonl``, **format-insensitively**: each of the item's probes (its surface form,
a name's parts, an address's parts with a digit, a phone's national digits; see
:class:`~benchmarks.owndata.people.PII`) counts as present when its letters and digits occur in that order
with only non-alphanumeric characters (or none) between them, in any case, not inside a longer word or number
(a phone's national digits may follow other digits: a country code or trunk ``0``). So an IBAN left as
``gb47-nwbk-2158...`` is present, ``07700 900123`` still holds ``+44 7700 900123``, and ``Ana`` is not found
in ``banana``. A record holds PII when any item is present. Every public string of ``public.json`` that
appeared (verbatim) in a record's text must still appear verbatim after redaction.

Python: ``residual(folder, redact)`` with ``redact(record) -> str`` (any redaction of a record dict).
Command line, with the library's own redaction (:class:`dpsynrag.data.redaction.RedactedDocuments` over the
records read by :func:`dpsynrag.data.load_documents` with the identifier fields, and with ``--redact-pii``
:class:`dpsynrag.data.pii.PIIRedactor`, which needs ``pip install 'dpsynrag[pii]'``)::

    .venv/bin/python -m benchmarks.owndata.pii_residual runs/owndata/bank-s0 runs/owndata/bank-s1
    .venv/bin/python -m benchmarks.owndata.pii_residual runs/owndata/bank-s* --redact-pii --json runs/owndata/res.json
    .venv/bin/python -m benchmarks.owndata.pii_residual runs/owndata/bank-s0 --identifier-field customer_name

Without ``--identifier-field`` the fields named in ``public.json`` are used; ``--no-identifiers`` uses none.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable, Iterable
from functools import lru_cache
from pathlib import Path

if __package__ in (None, ""):  # run by path: make the repository root importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

__all__ = ["library_redactor", "present", "read_collection", "residual"]

_SEP = r"[\W_]*"  # any run of characters that are not letters or digits
_NOT_AFTER, _NOT_BEFORE = r"(?<![^\W_])", r"(?![^\W_])"  # no letter or digit just before / after


@lru_cache(maxsize=65536)
def _pattern(probe: str, after_digits: bool) -> re.Pattern | None:
    chars = [c for c in probe if c.isalnum()]
    if not chars:
        return None
    return re.compile(("" if after_digits else _NOT_AFTER) + _SEP.join(re.escape(c) for c in chars) + _NOT_BEFORE,
                      re.IGNORECASE)


def present(item: dict, text: str) -> bool:
    """Whether any probe of the PII ``item`` (``{"kind", "text", "probes"}``, a row of ``pii.jsonl``'s ``pii``
    list) occurs in ``text`` format-insensitively (see the module docstring)."""
    for probe in item["probes"]:
        pattern = _pattern(probe, item["kind"] == "phone")
        if pattern is not None and pattern.search(text):
            return True
    return False


def read_collection(folder: str | Path) -> tuple[list[dict], dict[str, list[dict]], dict]:
    """A generated folder's records (in file order), PII items by record id, and ``public.json``.

    Raises:
        FileNotFoundError: a file of the folder is missing.
    """
    folder = Path(folder)
    with open(folder / "records.jsonl", encoding="utf-8") as f:
        records = [json.loads(line) for line in f]
    with open(folder / "pii.jsonl", encoding="utf-8") as f:
        pii = {row["id"]: row["pii"] for row in map(json.loads, f)}
    return records, pii, json.loads((folder / "public.json").read_text(encoding="utf-8"))


def residual(folder: str | Path, redact: Callable[[dict], str]) -> dict:
    """Count the PII left by ``redact`` in a generated collection and the public strings it removed.

    Args:
        folder: a folder written by :mod:`benchmarks.owndata.generate`.
        redact: the redaction under test: a record dict (a row of ``records.jsonl``) to its redacted text.

    Returns:
        ``{"folder", "records", "records_with_pii", "fraction"`` (records_with_pii / records),
        ``"by_kind": {kind: {"records", "left", "total"}}`` (records still holding an item of the kind; items
        of the kind present after redaction; items written), ``"public": {"records_with", "records_losing",
        "lost": {string: records}}}`` (records whose original text holds a public string; those where one of
        them is no longer there; per string).
    """
    records, pii, public = read_collection(folder)
    by_kind: dict[str, dict[str, int]] = {}
    lost: dict[str, int] = {s: 0 for s in public["strings"]}
    with_pii = with_public = losing = 0
    for record in records:
        text = redact(record)
        kinds_left = set()
        for item in pii[record["id"]]:
            counts = by_kind.setdefault(item["kind"], {"records": 0, "left": 0, "total": 0})
            counts["total"] += 1
            if present(item, text):
                counts["left"] += 1
                kinds_left.add(item["kind"])
        for kind in kinds_left:
            by_kind[kind]["records"] += 1
        with_pii += bool(kinds_left)
        shown = [s for s in public["strings"] if s in record["text"]]
        gone = [s for s in shown if s not in text]
        with_public += bool(shown)
        losing += bool(gone)
        for s in gone:
            lost[s] += 1
    return {"folder": str(folder), "records": len(records), "records_with_pii": with_pii,
            "fraction": with_pii / len(records), "by_kind": dict(sorted(by_kind.items())),
            "public": {"records_with": with_public, "records_losing": losing, "lost": lost}}


def library_redactor(folder: str | Path, identifier_fields: Iterable[str] | None = None, *,
                     redact_pii: bool = False, allow_public: bool = False) -> Callable[[dict], str]:
    """The library's redaction of a generated folder, as ``redact(record) -> str`` for :func:`residual`.

    The records are read as ``dpsynrag build`` reads them (:func:`dpsynrag.data.load_documents`, id field
    ``id``) and redacted by :class:`dpsynrag.data.redaction.RedactedDocuments`: with ``redact_pii``, first
    :class:`dpsynrag.data.pii.PIIRedactor`, then each record's own ``identifier_fields`` values (None: the
    fields of the folder's ``public.json``; empty: none). ``allow_public``: the automatic pass keeps the
    folder's public strings (``public.json``'s ``strings`` as ``--pii-allow``), as a user would declare them.

    Raises:
        dpsynrag.errors.ConfigError: ``redact_pii`` without presidio installed.
        dpsynrag.errors.DataError: an identifier field the records do not have.
    """
    from dpsynrag.data import load_documents
    from dpsynrag.data.redaction import RedactedDocuments

    folder = Path(folder)
    if identifier_fields is None:
        identifier_fields = json.loads((folder / "public.json").read_text(encoding="utf-8"))["identifier_fields"]
    fields = list(identifier_fields)
    pii = None
    if redact_pii:
        from dpsynrag.data.pii import PIIRedactor

        allow = json.loads((folder / "public.json").read_text(encoding="utf-8"))["strings"] if allow_public else ()
        pii = PIIRedactor(allow=allow)
    documents = load_documents(folder / "records.jsonl", id_field="id", identifier_fields=fields)
    texts = {d.id: d.text for d in RedactedDocuments(documents, identifiers=bool(fields), pii=pii)}
    return lambda record: texts[str(record["id"])]


def _line(result: dict) -> str:
    kinds = ", ".join(f"{k} {v['left']}/{v['total']}" for k, v in result["by_kind"].items())
    pub = result["public"]
    return (f"{result['folder']}: {result['records_with_pii']}/{result['records']} records still hold PII "
            f"({result['fraction']:.1%}); items left: {kinds}; public strings lost in "
            f"{pub['records_losing']}/{pub['records_with']} records")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="+", help="folders written by benchmarks.owndata.generate")
    parser.add_argument("--identifier-field", action="append", dest="fields",
                        help="a record field whose values are redacted (repeat; default: public.json's)")
    parser.add_argument("--no-identifiers", action="store_true", help="redact no identifier field")
    parser.add_argument("--redact-pii", action="store_true", help="also the library's automatic PII pass (presidio)")
    parser.add_argument("--allow-public", action="store_true",
                        help="with --redact-pii: the folder's public strings (public.json) as the allow-list (--pii-allow)")
    parser.add_argument("--json", help="write the results (a list, one per folder, and the total) here")
    args = parser.parse_args(argv)
    fields = [] if args.no_identifiers else args.fields
    results = []
    for folder in args.folders:
        results.append(residual(folder, library_redactor(folder, fields, redact_pii=args.redact_pii,
                                                         allow_public=args.allow_public)))
        print(_line(results[-1]))
    total = {"records": sum(r["records"] for r in results),
             "records_with_pii": sum(r["records_with_pii"] for r in results),
             "records_losing_public": sum(r["public"]["records_losing"] for r in results)}
    total["fraction"] = total["records_with_pii"] / total["records"]
    print(f"total: {total['records_with_pii']}/{total['records']} records still hold PII ({total['fraction']:.1%}); "
          f"public strings lost in {total['records_losing_public']} records")
    if args.json:
        Path(args.json).write_text(json.dumps({"identifier_fields": fields, "redact_pii": args.redact_pii,
                                               "allow_public": args.allow_public,
                                               "folders": results, "total": total}, indent=1) + "\n",
                                   encoding="utf-8")


if __name__ == "__main__":
    main()
