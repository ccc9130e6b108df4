"""``dpsynrag redact``: see what a build's models will read before spending anything — the redacted text of
the first documents and, for the whole file, the spans replaced per entity type, the strings replaced most
often and what the redacted texts still hold (:mod:`dpsynrag.data.review`); printed, or written to a file the
owner names (``--out``, never inside a corpus folder), as text or ``--json``. Never logged.

Also the redaction options that ``build`` and ``redact`` share (:func:`redaction_params`,
:func:`redaction_fields`).
"""

from __future__ import annotations

import inspect
import json
import os
from pathlib import Path
from typing import Any, Optional

import typer

from dpsynrag.commands.common import console, fail, output_console
from dpsynrag.commands.options import document_params, keyword_param, with_panel
from dpsynrag.errors import ConfigError, DpsynragError


def redaction_params() -> list[inspect.Parameter]:
    """The redaction options of ``build`` and ``redact``: ``--identifier-field``, ``--redact-pii`` and its
    ``--pii-entities``, ``--pii-allow``, ``--pii-allow-file``, ``--pii-names-file``, ``--pii-model``,
    ``--identifier-placeholder``."""
    from dpsynrag.data.pii import ALL_ENTITIES, PII_ENTITIES

    return [
        keyword_param("identifier_field", typer.Option(None, "--identifier-field", metavar="NAME", help="Field holding direct identifiers (names, e-mails, IBANs, phone or order numbers; repeat for several): each document's own values are redacted from its text however they are written (any separators and capitals, a phone's international or national form) before any model reads it."), Optional[list[str]]),
        keyword_param("redact_pii", typer.Option(False, "--redact-pii", help="Replace the personal identifiers found in each document's text before any model reads it: person names (public name lists with context cues) and postal addresses, and, by Microsoft Presidio's rule-based recognizers, e-mails, phone numbers, card numbers, IBANs, IP addresses, URLs, US SSNs, Bitcoin and MAC addresses; no model unless --pii-model (pip install 'dpsynrag[pii]')."), bool),
        keyword_param("pii_entities", typer.Option(None, "--pii-entities", metavar="A,B", help=f"Entity types --redact-pii replaces, comma-separated, among {', '.join(ALL_ENTITIES)} (default: {', '.join(PII_ENTITIES)}; LOCATION needs --pii-model)."), Optional[str]),
        keyword_param("pii_allow", typer.Option(None, "--pii-allow", metavar="TEXT", help="A public string --redact-pii must keep, found however it is written (your support number, your company's name; repeat for several)."), Optional[list[str]]),
        keyword_param("pii_allow_file", typer.Option(None, "--pii-allow-file", metavar="FILE", help="A UTF-8 file of public strings --redact-pii must keep, one a line."), Optional[Path]),
        keyword_param("pii_names_file", typer.Option(None, "--pii-names-file", metavar="FILE", help="A UTF-8 file of personal names --redact-pii must always replace, one person a line (your staff directory: 'Priya Shah'): found as written, as the given name alone, 'Priya S.', 'P. Shah', a title and the surname, and the initials. Owner-only: never written to the manifest or the log."), Optional[Path]),
        keyword_param("pii_model", typer.Option(None, "--pii-model", metavar="NAME_OR_PATH", help="A spaCy pipeline (an installed package's name or a local folder; never downloaded) whose named entities --redact-pii adds to the names (PERSON) and uses for places (LOCATION)."), Optional[str]),
        keyword_param("identifier_placeholder", typer.Option(None, "--identifier-placeholder", help="Public text replacing a redacted identifier (default [REDACTED]; needs --identifier-field or --redact-pii)."), Optional[str]),
    ]


def redaction_fields(values: dict[str, Any]) -> dict[str, Any]:
    """The config fields the typed redaction options set (None: not typed): ``redact_identifiers``,
    ``redact_pii``, ``pii_entities``, ``pii_allow`` (``--pii-allow`` then the file's lines), ``pii_model``,
    ``pii_names`` (``--pii-names-file``'s lines), ``identifier_placeholder``.

    Raises:
        ConfigError: ``--identifier-placeholder`` without a pass; a ``--pii-*`` option without
            ``--redact-pii``; an empty ``--pii-allow`` (an unset shell variable: it would allow nothing); an
            unreadable ``--pii-allow-file``; an unreadable or empty ``--pii-names-file``.
    """
    identifier_fields = tuple(values["identifier_field"] or ())
    if values["identifier_placeholder"] is not None and not (identifier_fields or values["redact_pii"]):
        raise ConfigError("--identifier-placeholder needs --identifier-field (the fields to redact) or --redact-pii.")
    allow = list(values["pii_allow"] or ())
    if any(not a.strip() for a in allow):
        raise ConfigError("--pii-allow is empty (an unset shell variable?): it would keep nothing. Give the public "
                          "string (the company's name, its support number), or leave the option out.")
    if values["pii_allow_file"] is not None:
        try:
            lines = values["pii_allow_file"].read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"--pii-allow-file {values['pii_allow_file']}: cannot read it as UTF-8 text ({exc}).") from exc
        allow += [line.strip() for line in lines if line.strip()]
    names = ()
    if values.get("pii_names_file") is not None:
        from dpsynrag.data.pii_names import read_names

        names = read_names(values["pii_names_file"])
    typed = {"--pii-entities": values["pii_entities"], "--pii-allow": allow, "--pii-model": values["pii_model"],
             "--pii-names-file": names}
    for flag, value in typed.items():
        if value and not values["redact_pii"]:
            raise ConfigError(f"{flag} needs --redact-pii.")
    entities = values["pii_entities"]
    return {"redact_identifiers": True if identifier_fields else None,
            "redact_pii": True if values["redact_pii"] else None,
            "pii_entities": None if entities is None else tuple(e for e in entities.split(",") if e.strip()),
            "pii_allow": tuple(allow) or None, "pii_model": values["pii_model"], "pii_names": names or None,
            "identifier_placeholder": values["identifier_placeholder"]}


def task_folder_documents(path: Path, task_name: str | None, identifier_fields: tuple[str, ...]):
    """The documents of a task's data folder INPUT (``build``, ``redact``), as the task reads them.

    Raises:
        ConfigError: no ``--task``, or an ``--identifier-field`` the task does not read."""
    if not task_name:
        raise ConfigError("INPUT is a folder: pass --task to say how to read it, or give a file.")
    from dpsynrag.tasks import get_task

    task = get_task(task_name)
    others = [f for f in identifier_fields if f not in task.identifier_fields]
    if others:
        raise ConfigError(f"--identifier-field {others[0]}: a task's data folder is read with the task's "
                          f"identifier fields ({', '.join(task.identifier_fields) or 'none'}).")
    return task.load_database(path)


def input_documents(values: dict[str, Any], identifier_fields: tuple[str, ...], max_chars: int):
    """The input as a build reads it: a file in a stream, or a task's data folder with ``--task``."""
    path: Path = values["input"]
    if path.is_dir():
        from dpsynrag.data.io import as_documents

        return as_documents(task_folder_documents(path, values["task"], identifier_fields), max_chars=max_chars)
    from dpsynrag.data.streaming import open_documents

    return open_documents(path, text_field=values["text_field"], id_field=values["id_field"],
                          identifier_fields=identifier_fields, max_chars=max_chars)


RESIDUE_LABELS = {"digit_run": "digit runs (6 or more digits)",
                  "name_pair": "name-like pairs (capitalised, not frequent words)"}


def check_out(out: Path, input: Path) -> Path:
    """The file ``--out`` names, resolved.

    Raises:
        ConfigError: a folder, INPUT itself, a file inside a folder holding a ``manifest.json`` (a corpus
            folder, or one above it: the review holds private strings), or a folder that does not exist."""
    target = out.expanduser().resolve()
    if target.is_dir():
        raise ConfigError(f"--out {out}: a folder; name a file.")
    if target == input.expanduser().resolve():
        raise ConfigError(f"--out {out} is INPUT itself: name another file.")
    for folder in target.parents:
        if (folder / "manifest.json").is_file():
            raise ConfigError(f"--out {out}: {folder} holds a manifest.json (a corpus folder). The review holds "
                              "private strings of your file: write it outside any corpus folder.")
    if not target.parent.is_dir():
        raise ConfigError(f"--out {out}: no folder {target.parent}.")
    return target


def _print_document(con, document_id: str, text: str) -> None:
    from rich.text import Text

    con.rule(Text(f"document {document_id}"), style="dim")  # Text: an id's brackets are not markup
    con.print(text, markup=False, highlight=False)


def _print_review(con, record: dict, top: int, where: str) -> None:
    """The review (:meth:`~dpsynrag.data.review.RedactionReview.record`) as tables and lines."""
    from rich.table import Table
    from rich.text import Text

    table = Table(title="Spans replaced")
    table.add_column("entity type")
    table.add_column("spans", justify="right")
    for entity, n in record["spans"].items():
        table.add_row(entity, str(n))
    con.print(table)
    con.print(f"{record['documents_with_spans']} of {record['documents']} documents held a span.")
    if top:
        strings = Table(title=f"Most often redacted ({record['owner_only']})")
        for column in ("string", "entity type", "spans", "documents"):
            strings.add_column(column, justify="right" if column in ("spans", "documents") else "left")
        for row in record["top_strings"]:
            strings.add_row(Text(row["string"]), ", ".join(row["entities"]), str(row["spans"]), str(row["documents"]))
        con.print(strings)
        con.print(f"{len(record['top_strings'])} of {record['distinct_strings']} distinct redacted strings. A public "
                  "one (a product's or your company's name) is kept with --pii-allow TEXT.", markup=False, highlight=False)
        if record["count_error"]:
            con.print(f"More distinct strings than could be counted at once: a count may be low by up to "
                      f"{record['count_error']}.")
    residue = Table(title=f"Left after redaction ({record['owner_only']})")
    for column in ("check", "documents", "matches"):
        residue.add_column(column, justify="left" if column == "check" else "right")
    for kind, found in record["residue"].items():
        residue.add_row(RESIDUE_LABELS[kind], str(found["documents"]), str(found["matches"]))
    con.print(residue)
    for kind, found in record["residue"].items():
        if found["examples"]:
            con.print(f"{RESIDUE_LABELS[kind]}: examples from {len(found['examples'])} of {found['documents']} "
                      "documents", markup=False, highlight=False)
            for example in found["examples"]:
                con.print(f"  {example['document']}: {example['snippet']}", markup=False, highlight=False)
    con.print(f"A build's models read the first {record['max_document_tokens']} tokens of each redacted text "
              f"(--max-document-tokens). Private: {where}, nothing spent.", markup=False, highlight=False)


def redact_command(
    input: Path = typer.Argument(..., help="Private collection: JSONL, CSV or Parquet file (or a task's data folder with --task)."),
    preview: int = typer.Option(5, "--preview", metavar="N", help="Print the redacted text of the first N documents (0: none)."),
    top: int = typer.Option(20, "--top", metavar="N", help="List the N strings replaced most often, with their entity type and counts (0: none); a public one goes to --pii-allow."),
    examples: int = typer.Option(5, "--examples", metavar="N", help="Show up to N snippets of what redaction left, per check (digit runs, name-like pairs; 0: counts only)."),
    as_json: bool = typer.Option(False, "--json", help="Print everything as one JSON object (documents, counts, top strings, what was left)."),
    out: Optional[Path] = typer.Option(None, "--out", metavar="FILE", help="Write the output to FILE instead of printing it (private strings: refused inside a corpus folder)."),
    task: Optional[str] = typer.Option(None, "--task", help="Public task whose data folder INPUT is."),
    **options: Any,
) -> None:
    """Show what a build would let its models read: the first documents' texts after redaction (cut as a
    build cuts them) and, for the whole file, the spans replaced per entity type, the strings replaced most
    often and the documents that still hold a long digit run or a name-like pair, with examples. Private
    strings of your file (owner-only): printed, or written to --out, never logged; nothing is spent, no
    model but the PII pass's is loaded."""
    values = {"input": input, "task": task, **options}
    try:
        from dpsynrag.checks import check_int
        from dpsynrag.data.io import max_document_chars
        from dpsynrag.data.redaction import DEFAULT_PLACEHOLDER, RedactedDocuments
        from dpsynrag.data.review import RedactionReview

        for flag, value in (("--preview", preview), ("--top", top), ("--examples", examples)):
            check_int(flag, value, minimum=0)
        target = check_out(out, input) if out is not None else None
        fields = redaction_fields(values)
        if not (fields["redact_identifiers"] or fields["redact_pii"]):
            raise ConfigError("nothing to redact: pass --identifier-field NAME and/or --redact-pii.")
        tokens = values["max_document_tokens"] if values["max_document_tokens"] is not None else 256
        check_int("--max-document-tokens", tokens, minimum=8)
        placeholder = fields["identifier_placeholder"] or DEFAULT_PLACEHOLDER
        pii = None
        if fields["redact_pii"]:
            from dpsynrag.data.pii import PIIRedactor

            pii = PIIRedactor(placeholder, entities=fields["pii_entities"], allow=fields["pii_allow"] or (),
                              model=fields["pii_model"], names=fields["pii_names"] or ())
        identifier_fields = tuple(values["identifier_field"] or ())
        source = input_documents(values, identifier_fields, max_document_chars(tokens))
        documents = RedactedDocuments(source, placeholder, identifiers=bool(identifier_fields), pii=pii)
        review = RedactionReview(fields["pii_allow"] or (), placeholder, examples=examples)
        streamed = target is None and not as_json  # the first documents printed as they are read
        shown = []
        for i, document in enumerate(source):
            spans = documents.find(document)
            redacted = documents.redact(document, spans)[0].text
            review.add(document.id, documents.normal(document).text, spans, redacted)
            if i < preview:
                shown.append({"id": document.id, "text": redacted})
                if streamed:
                    _print_document(console, document.id, redacted)
    except DpsynragError as exc:
        fail(exc, {"path": "INPUT"})
        return
    record = {"preview": shown, **review.record(top), "max_document_tokens": tokens}
    if target is None:
        if as_json:
            typer.echo(json.dumps(record, ensure_ascii=False, indent=1))
            return
        if preview:
            console.rule(style="dim")
        _print_review(console, record, top, "printed here only; nothing written")
        return
    try:  # a new file is readable by its owner alone
        with os.fdopen(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w", encoding="utf-8") as file:
            if as_json:
                file.write(json.dumps(record, ensure_ascii=False, indent=1) + "\n")
            else:
                con = output_console(file)
                for document in shown:
                    _print_document(con, document["id"], document["text"])
                if shown:
                    con.rule(style="dim")
                _print_review(con, record, top, f"written to {out} only")
    except OSError as exc:
        fail(ConfigError(f"--out {out}: cannot write it ({exc.strerror or exc})."))
        return
    console.print(f"Written to {out} ({record['owner_only']}); nothing spent.", markup=False, highlight=False)


redact_command.__signature__ = inspect.signature(redact_command).replace(parameters=[
    *[p for p in inspect.signature(redact_command).parameters.values() if p.kind is not inspect.Parameter.VAR_KEYWORD],
    *map(with_panel, [*document_params(), *redaction_params()])])
