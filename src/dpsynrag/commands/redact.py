"""``dpsynrag redact``: see what a build's models will read before spending anything — the redacted text of
the first documents and the spans replaced per entity type in the whole file, on the terminal only.

Also the redaction options that ``build`` and ``redact`` share (:func:`redaction_params`,
:func:`redaction_fields`).
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any, Optional

import typer

from dpsynrag.commands.common import console, fail
from dpsynrag.commands.options import document_params, keyword_param, with_panel
from dpsynrag.errors import ConfigError, DpsynragError


def redaction_params() -> list[inspect.Parameter]:
    """The redaction options of ``build`` and ``redact``: ``--identifier-field``, ``--redact-pii`` and its
    ``--pii-entities``, ``--pii-allow``, ``--pii-allow-file``, ``--pii-model``, ``--identifier-placeholder``."""
    from dpsynrag.data.pii import ALL_ENTITIES, PII_ENTITIES

    return [
        keyword_param("identifier_field", typer.Option(None, "--identifier-field", metavar="NAME", help="Field holding direct identifiers (names, e-mails, IBANs, phone or order numbers; repeat for several): each document's own values are redacted from its text however they are written (any separators and capitals, a phone's international or national form) before any model reads it."), Optional[list[str]]),
        keyword_param("redact_pii", typer.Option(False, "--redact-pii", help="Replace the personal identifiers found in each document's text before any model reads it: person names (public name lists with context cues) and postal addresses, and, by Microsoft Presidio's rule-based recognizers, e-mails, phone numbers, card numbers, IBANs, IP addresses, URLs, US SSNs, Bitcoin and MAC addresses; no model unless --pii-model (pip install 'dpsynrag[pii]')."), bool),
        keyword_param("pii_entities", typer.Option(None, "--pii-entities", metavar="A,B", help=f"Entity types --redact-pii replaces, comma-separated, among {', '.join(ALL_ENTITIES)} (default: {', '.join(PII_ENTITIES)}; LOCATION needs --pii-model)."), Optional[str]),
        keyword_param("pii_allow", typer.Option(None, "--pii-allow", metavar="TEXT", help="A public string --redact-pii must keep, found however it is written (your support number, your company's name; repeat for several)."), Optional[list[str]]),
        keyword_param("pii_allow_file", typer.Option(None, "--pii-allow-file", metavar="FILE", help="A UTF-8 file of public strings --redact-pii must keep, one a line."), Optional[Path]),
        keyword_param("pii_model", typer.Option(None, "--pii-model", metavar="NAME_OR_PATH", help="A spaCy pipeline (an installed package's name or a local folder; never downloaded) whose named entities --redact-pii adds to the names (PERSON) and uses for places (LOCATION)."), Optional[str]),
        keyword_param("identifier_placeholder", typer.Option(None, "--identifier-placeholder", help="Public text replacing a redacted identifier (default [REDACTED]; needs --identifier-field or --redact-pii)."), Optional[str]),
    ]


def redaction_fields(values: dict[str, Any]) -> dict[str, Any]:
    """The config fields the typed redaction options set (None: not typed): ``redact_identifiers``,
    ``redact_pii``, ``pii_entities``, ``pii_allow`` (``--pii-allow`` then the file's lines), ``pii_model``,
    ``identifier_placeholder``.

    Raises:
        ConfigError: ``--identifier-placeholder`` without a pass; a ``--pii-*`` option without
            ``--redact-pii``; an empty ``--pii-allow`` (an unset shell variable: it would allow nothing); an
            unreadable ``--pii-allow-file``.
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
    typed = {"--pii-entities": values["pii_entities"], "--pii-allow": allow, "--pii-model": values["pii_model"]}
    for flag, value in typed.items():
        if value and not values["redact_pii"]:
            raise ConfigError(f"{flag} needs --redact-pii.")
    entities = values["pii_entities"]
    return {"redact_identifiers": True if identifier_fields else None,
            "redact_pii": True if values["redact_pii"] else None,
            "pii_entities": None if entities is None else tuple(e for e in entities.split(",") if e.strip()),
            "pii_allow": tuple(allow) or None, "pii_model": values["pii_model"],
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


def _print_counts(counts: dict) -> None:
    from rich.table import Table

    table = Table(title="Spans replaced")
    table.add_column("entity type")
    table.add_column("spans", justify="right")
    for entity, n in counts["spans"].items():
        table.add_row(entity, str(n))
    console.print(table)
    console.print(f"{counts['documents_with_spans']} of {counts['documents']} documents held a span.")


def redact_command(
    input: Path = typer.Argument(..., help="Private collection: JSONL, CSV or Parquet file (or a task's data folder with --task)."),
    preview: int = typer.Option(5, "--preview", metavar="N", help="Print the redacted text of the first N documents (0: counts only)."),
    task: Optional[str] = typer.Option(None, "--task", help="Public task whose data folder INPUT is."),
    **options: Any,
) -> None:
    """Show what a build would let its models read: the first documents' texts after redaction (cut as a
    build cuts them) and, for the whole file, the spans replaced per entity type. Private text, printed on
    this terminal only: nothing is written, nothing is spent, no model but --pii-model is loaded."""
    values = {"input": input, "task": task, **options}
    try:
        from dpsynrag.checks import check_int
        from dpsynrag.data.io import max_document_chars
        from dpsynrag.data.redaction import DEFAULT_PLACEHOLDER, RedactedDocuments

        check_int("--preview", preview, minimum=0)
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
                              model=fields["pii_model"])
        identifier_fields = tuple(values["identifier_field"] or ())
        documents = RedactedDocuments(input_documents(values, identifier_fields, max_document_chars(tokens)), placeholder,
                                      identifiers=bool(identifier_fields), pii=pii)
        for i, document in enumerate(documents):
            if i < preview:
                console.rule(f"document {document.id}", style="dim")
                console.print(document.text, markup=False, highlight=False)
        counts = documents.span_counts()
    except DpsynragError as exc:
        fail(exc, {"path": "INPUT"})
        return
    if preview:
        console.rule(style="dim")
    _print_counts(counts)
    console.print(f"A build's models read the first {tokens} tokens of each redacted text (--max-document-tokens). "
                  "Private: printed here only; nothing written, nothing spent.", markup=False, highlight=False)


redact_command.__signature__ = inspect.signature(redact_command).replace(parameters=[
    *[p for p in inspect.signature(redact_command).parameters.values() if p.kind is not inspect.Parameter.VAR_KEYWORD],
    *map(with_panel, [*document_params(), *redaction_params()])])
