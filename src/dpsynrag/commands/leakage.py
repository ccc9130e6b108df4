"""``dpsynrag leakage``: the owner's check of a corpus folder against the private file it was built from
(identifier values in any format, PII patterns, copied n-grams: :mod:`dpsynrag.eval.leakage`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer
from rich.table import Table

from dpsynrag.commands.common import console, err_console, fail
from dpsynrag.errors import DpsynragError

__all__ = ["leakage_command"]

_FLAGS = {"text_field": "--text-field", "id_field": "--id-field", "identifier_fields": "--identifier-field",
          "ngram_words": "--ngram-words", "allow_file": "--pii-allow-file"}
_LABELS = {"identifier": "identifier values (any format, 8-character fragments of codes)",
           "pii": "PII not allow-listed (IBAN, e-mail, card, phone shapes; the private texts' names, addresses)",
           "unique_ngram": "n-grams of exactly one private document",
           "ngram": "n-grams of any private document (shared phrases; not a leak alone)"}


def leakage_command(
    corpus_dir: Path = typer.Argument(..., help="A corpus folder made by `dpsynrag build`."),
    private_file: Path = typer.Argument(..., help="The private file it was built from (JSON lines, CSV, Parquet)."),
    text_field: str = typer.Option("text", "--text-field", help="The field holding each document's text."),
    id_field: Optional[str] = typer.Option(None, "--id-field", help="The field holding each document's id (checked for duplicates only)."),
    identifier_field: Optional[list[str]] = typer.Option(None, "--identifier-field", metavar="NAME", help="A field of direct identifiers whose values are looked for in any format (repeat for several)."),
    pii_allow: Optional[list[str]] = typer.Option(None, "--pii-allow", metavar="TEXT", help="A public string that never counts, found however it is written (your support number, your company's name; repeat for several)."),
    pii_allow_file: Optional[Path] = typer.Option(None, "--pii-allow-file", metavar="FILE", help="A UTF-8 file of public strings as --pii-allow, one a line."),
    ngram_words: int = typer.Option(8, "--ngram-words", help="Words of a copied n-gram (>= 2)."),
    show: int = typer.Option(5, "--show", help="Ids of offending corpus texts listed per kind."),
    as_json: bool = typer.Option(False, "--json", help="Print the counts and ids as JSON."),
    strict: bool = typer.Option(False, "--strict", help="Exit with code 1 when a corpus text leaks."),
) -> None:
    """Check a corpus for leaks of its private file: counts per kind and the first offending texts' ids.

    For the data owner's console: it reads the private file (nothing is written, nothing is spent) and prints
    counts and corpus text ids, never a private value. Owner-only, do not publish: the counts are not DP output,
    and deleting flagged texts from the corpus is a data-dependent edit; rebuild with the strings redacted or
    allow-listed instead."""
    from dpsynrag.corpus import SyntheticCorpus
    from dpsynrag.data.io import iter_documents
    from dpsynrag.eval.leakage import LeakageChecker, corpus_leakage, read_public_strings

    try:
        values = list(pii_allow or []) + (read_public_strings(pii_allow_file) if pii_allow_file is not None else [])
        corpus = SyntheticCorpus.load(corpus_dir)
        checker = LeakageChecker(iter_documents(private_file, text_field=text_field, id_field=id_field,
                                                identifier_fields=identifier_field or ()),
                                 allow=values, ngram_words=ngram_words)
        result = corpus_leakage(corpus, checker, show=max(show, 0))
    except DpsynragError as exc:
        fail(exc, _FLAGS)
        return
    result["private"] = {"documents": checker.documents, "identifier_values": checker.values,
                         "names_and_addresses": checker.found, "names_checked": checker.names,
                         "ngrams": checker.ngrams, "ngram_words": ngram_words, "allow": len(values)}
    try:
        result["input"] = _input_check(corpus_dir, private_file, text_field, id_field)
    except DpsynragError as exc:
        fail(exc, _FLAGS)
        return
    leaking = result["all"]["texts_with_leak"]
    if as_json:
        typer.echo(json.dumps({"notice": OWNER_ONLY, **result}, indent=2))
    else:
        _print(result, ngram_words)
    warning = _input_warning(result["input"], private_file)
    if warning:
        err_console.print(f"[bold yellow]warning:[/] {warning}", markup=True, highlight=False)
    if strict and leaking:
        raise typer.Exit(code=1)


def _input_check(corpus_dir: Path, private_file: Path, text_field: str, id_field: Optional[str]) -> dict:
    """Whether the private file's documents are the corpus's input, from the keyed fingerprints of the owner
    record beside the corpus (:func:`~dpsynrag.corpus.format.owner_fingerprints`; both fingerprint rules, as
    ``build --extend``): ``{"checked": False, "why": ...}`` when it cannot tell (no record, a record without
    fingerprints, or one of persons: ``--privacy-unit-field`` builds), else ``{"checked": True, "documents":
    N, "in_corpus_input": M}``. Counts only, for the owner's console.

    Raises:
        DataError: the private file cannot be read (as the check itself).
    """
    from dpsynrag.corpus.format import FINGERPRINT_ALGORITHMS_READ, owner_audit_path
    from dpsynrag.data.io import iter_documents
    from dpsynrag.privacy.fingerprints import fingerprints_under_every_rule

    path = owner_audit_path(corpus_dir)
    try:
        fp = json.loads(path.read_text(encoding="utf-8")).get("fingerprints")
    except (OSError, ValueError, AttributeError):
        return {"checked": False, "why": f"no readable owner record {path} beside the corpus"}
    if not isinstance(fp, dict) or fp.get("algorithm") not in FINGERPRINT_ALGORITHMS_READ or not isinstance(
            fp.get("fingerprints"), list):
        return {"checked": False, "why": f"the owner record {path} holds no document fingerprints"}
    if fp.get("unit_kind") != "document":
        return {"checked": False, "why": "the corpus was built per person (its record fingerprints persons)"}
    docs = list(iter_documents(private_file, text_field=text_field, id_field=id_field))
    key, built = bytes.fromhex(fp["key"]), set(fp["fingerprints"])
    found = sum(any(f.hex() in built for f in fps) for fps in fingerprints_under_every_rule(docs, key))
    return {"checked": True, "documents": len(docs), "in_corpus_input": found}


def _input_warning(check: dict, private_file: Path) -> str | None:
    """The owner's warning when the private file is not (all) the corpus's input; None when it is, or when
    that cannot be told (then a note says why)."""
    if not check["checked"]:
        err_console.print(f"[yellow]note:[/] whether {private_file} is the corpus's input was not checked: "
                          f"{check['why']}.", highlight=False)
        return None
    n, found = check["documents"], check["in_corpus_input"]
    if found == n:
        return None
    if found == 0:
        return (f"none of the {n} documents of {private_file} is among the documents the corpus was built from "
                "(its owner record's fingerprints): this file is not the corpus's input, so its counts say nothing "
                "about leaks of that input. Hint: pass the file the corpus was built from (and its --text-field).")
    return (f"{n - found} of the {n} documents of {private_file} are not among the documents the corpus was built "
            "from (its owner record's fingerprints): leaks of those cannot come from the corpus.")


def _print(result: dict, ngram_words: int) -> None:
    p, every, kept = result["private"], result["all"], result["kept"]
    console.print(f"private file: {p['documents']} documents, {p['identifier_values']} identifier values, "
                  f"{p['names_and_addresses']} names and addresses in the texts"
                  + ("" if p["names_checked"] else " (addresses only: pip install 'dpsynrag[pii]' for names)")
                  + f", {p['ngrams']} distinct {ngram_words}-word n-grams; {p['allow']} public strings allowed",
                  markup=False)
    table = Table(title="corpus texts with a leak", title_justify="left")
    for column in ("kind", "all texts", "kept texts", "first ids (all texts)"):
        table.add_column(column)
    for kind, label in _LABELS.items():
        table.add_row(label.replace("n-grams", f"{ngram_words}-word n-grams"), f"{every[f'{kind}_texts']} / {every['texts']}",
                      f"{kept[f'{kind}_texts']} / {kept['texts']}", ", ".join(every["first_ids"][kind]) or "–")
    table.add_row("leaking (identifier, PII or one document's n-gram)", f"{every['texts_with_leak']} / {every['texts']}",
                  f"{kept['texts_with_leak']} / {kept['texts']}", "")
    console.print(table)
    by_type = ", ".join(f"{k} {v}" for k, v in every["pii_by_type"].items() if v)
    if by_type:
        console.print(f"PII patterns by type (texts): {by_type}")
    err_console.print("[yellow]note:[/] ids of corpus texts only, for the owner's console: the private values "
                      "are not printed.")
    err_console.print(f"[bold yellow]{OWNER_ONLY}[/]", markup=True, highlight=False)


OWNER_ONLY = ("owner-only, do not publish: these counts of the private file and of the corpus's leaks are not DP "
              "output. Removing the flagged texts from the corpus is itself an edit that depends on private data: "
              "rebuild instead, with the offending strings redacted (--identifier-field, --redact-pii) or, if "
              "public, allow-listed (--pii-allow).")
"""The notice every ``leakage`` output carries (issue 53): what it prints is not DP, and acting on it by deleting
texts would leak too."""
