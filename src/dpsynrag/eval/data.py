"""The data of an evaluation run: the database subset, the questions, the attack prompts, the private
names and the leakage index (:func:`load_eval_data`), with the fingerprints recorded in results.json."""

from __future__ import annotations

import hashlib
import random as _random
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dpsynrag.data.io import Document, load_documents
from dpsynrag.data.jsonl import read_jsonl
from dpsynrag.errors import ConfigError, DataError, DpsynragError
from dpsynrag.eval.config import EvalConfig
from dpsynrag.eval.leakage import LeakageChecker
from dpsynrag.eval.scoring import NameMatcher
from dpsynrag.tasks import OwnDataTask, Query, Task, get_task, support_bucket_label

__all__ = ["EvalData", "load_eval_data"]


@dataclass
class EvalData:
    """The data of a run: the database subset, the questions, the attacks and the private names.

    Attributes:
        task: the task (bound to the run's data folder where one was given).
        documents: the database documents actually used (the private input of every method).
        queries: the evaluation questions (scored).
        attacks: attack prompts (not scored; leakage only).
        matcher: the full names of the people in ``documents``.
        checker: the leakage index of ``documents`` (identifier values, PII allow-list, n-grams), or None.
        info: how they were chosen (paths, sizes, subset rule, fingerprints), for results.json.
    """

    task: Task
    documents: list[Document]
    queries: list[Query]
    attacks: list[Query]
    matcher: NameMatcher
    checker: LeakageChecker | None = None
    info: dict[str, Any] = field(default_factory=dict)


def _fingerprint(documents: Sequence[Document], *, identifiers: bool = False) -> str:
    h = hashlib.sha256()
    for d in documents:
        h.update(d.id.encode("utf-8") + b"\x00" + d.text.encode("utf-8") + b"\x01")
        if identifiers:  # task 'own': the identifier fields chosen change what a build redacts
            h.update(b"ids\x00" + "\x00".join(d.identifiers).encode("utf-8") + b"\x01")
        if d.unit is not None:  # per person: the grouping is part of the input (cached corpora follow it)
            h.update(b"unit\x00" + d.unit.encode("utf-8") + b"\x01")
    return h.hexdigest()


def _queries_fingerprint(queries: Sequence[Query]) -> str:
    h = hashlib.sha256()
    for q in queries:
        h.update(str(q.id).encode() + b"\x00" + q.question.encode("utf-8") + b"\x01")
    return h.hexdigest()


def _bound_task(name: str, folder: Path | None) -> Task:
    task = get_task(name)
    if folder is None:
        return task
    try:
        return type(task)(folder)
    except Exception:  # noqa: BLE001 - a user task whose constructor takes no folder: use the registered one
        return task


def load_eval_data(config: EvalConfig) -> EvalData:
    """Load the database subset, questions, attacks and private names of a run.

    Database: ``config.database`` is the task's data folder (read with ``task.load_database``) or a
    document file (field ``text``; ``id`` when present); then ``documents`` rows are kept, a seeded random
    sample in file order (``subset="random"``) or the first rows. Private names: the task's
    ``private_names`` (or, for a file, its ``patient_name``/``name``/``pseudonym`` field), restricted to
    the names that occur in the documents kept. Attacks: ``attacks`` per kind, a seeded sample of the
    attacked diseases (same diseases for both kinds). Task ``own``: the file is read with the config's
    ``text_field``, ``id_field`` and ``identifier_fields`` (:class:`~dpsynrag.tasks.OwnDataTask`), no names,
    no attacks. Leakage index: :class:`~dpsynrag.eval.leakage.LeakageChecker` of the documents kept (their
    identifier values and n-grams) with the config's ``allow`` list.

    Raises:
        DataError: missing or malformed files, no documents or no questions.
    """
    p = config.preset
    db = config.database
    folder = db if db is not None and db.is_dir() else None
    task = _bound_task(config.task, folder if folder is not None else (db.parent if db is not None else None))
    names: list[str] = []
    names_source = "task.private_names"
    # per person (DP-SynRAG's privacy_unit_field, --privacy-unit-field): each document's key read from the file
    unit_field = dict(p.synrag).get("privacy_unit_field")
    own = config.task == OwnDataTask.name
    if own:  # the user's own file: its fields from the run's configuration
        task = OwnDataTask(text_field=config.text_field, id_field=config.id_field,
                           identifier_fields=config.identifier_fields)
        all_docs = task.load_database(db, unit_field=unit_field)
        names_source = "none (task 'own': identifier fields)"
    elif db is not None and db.is_file():
        rows = read_jsonl(db) if db.suffix.lower() in (".jsonl", ".json") else None
        id_field = "id" if rows and "id" in rows[0] else None
        all_docs = load_documents(db, text_field=getattr(task, "text_field", "text"), id_field=id_field,
                                  unit_field=unit_field)
        name_field = next((k for k in ("patient_name", "name", "pseudonym") if rows and k in rows[0]), None)
        if name_field:
            names = [r[name_field] for r in rows if isinstance(r.get(name_field), str)]
            names_source = f"field {name_field!r} of {db.name}"
        else:
            try:
                names = task.private_names(db.parent)
            except DpsynragError:
                names, names_source = [], "none"
    else:
        if unit_field is not None:
            raise ConfigError(
                f"--privacy-unit-field {unit_field}: the task's data folder has no person key per document; give "
                "--database a document file holding the field (e.g. the one examples/per_person.py writes)."
            )
        all_docs = task.load_database(folder)
        names = task.private_names(folder)
    if not all_docs:
        raise DataError("the database holds no document.")
    total = len(all_docs)
    n = total if p.documents is None else min(p.documents, total)
    if n < total and p.subset == "random":
        chosen = sorted(_random.Random(p.subset_seed).sample(range(total), n))
        documents = [all_docs[i] for i in chosen]
    else:
        documents = all_docs[:n]

    # private names of the documents actually used
    all_names = NameMatcher(names)
    in_docs: set[str] = set()
    for d in documents:
        in_docs |= all_names.find(d.text)
    if in_docs or not names:
        matcher = NameMatcher(sorted(in_docs))
        names_rule = "names of the database that occur in the documents used"
    else:
        matcher = all_names
        names_rule = "all names of the database (none occurs verbatim in the documents)"

    if config.queries is not None:
        queries = task.load_queries(config.queries, limit=p.questions)
        queries_path = str(config.queries.resolve())
    else:
        try:
            queries = task.load_queries(None, limit=p.questions, split="validation")
        except DpsynragError:
            if folder is not None or db is None:
                raise
            raise DataError(  # a document file gives no questions: the task's split is looked for beside it
                f"`database` is a document file ({db.name}), so the questions to score need `queries` too: a query "
                f"file in the task's format (the task's validation split is not beside it in {db.parent})."
            ) from None
        queries_path = f"{task.name} validation split"
    if not queries:
        raise DataError("no evaluation question.")

    attacks_all = task.attack_queries(folder) if folder is not None or db is None else _attacks_near(task, db)
    attacks = _sample_attacks(attacks_all, p.attacks, p.subset_seed)

    checker = LeakageChecker(documents, allow=config.allow)
    data_dir = None
    try:
        data_dir = str(task.data_dir(folder).resolve()) if db is None or folder is not None else str(db.resolve())
    except DpsynragError:
        data_dir = None
    info = {
        "data_dir": data_dir,
        "database": str(db.resolve()) if db is not None else data_dir,
        "database_documents_total": total,
        "documents": len(documents),
        "subset": p.subset if n < total else "all",
        "subset_seed": p.subset_seed if n < total and p.subset == "random" else None,
        "documents_sha256": _fingerprint(documents, identifiers=own),
        "document_ids_head": [d.id for d in documents[:10]],
        "queries": queries_path,
        "questions": len(queries),
        "questions_sha256": _queries_fingerprint(queries),
        "attacks": len(attacks),
        "attack_kinds": _count_kinds(attacks),
        "attacks_total_available": len(attacks_all),
        "private_names": len(matcher),
        "private_names_source": names_source,
        "private_names_rule": names_rule,
        "identifier_fields": list(task.identifier_fields),
        "leakage_index": {"identifier_values": checker.values, "names_and_addresses": checker.found,
                          "names_checked": checker.names, "ngrams": checker.ngrams,
                          "ngram_words": checker.ngram_words, "allow": len(config.allow)},
        "support_buckets": [support_bucket_label(int(lo), task.support_buckets) for lo, _ in task.support_buckets],
    }
    return EvalData(task=task, documents=documents, queries=queries, attacks=attacks, matcher=matcher,
                    checker=checker, info=info)


def _attacks_near(task: Task, db: Path) -> list[Query]:
    try:
        return task.attack_queries(db.parent)
    except DpsynragError:
        return []


def _count_kinds(attacks: Sequence[Query]) -> dict[str, int]:
    out: dict[str, int] = {}
    for a in attacks:
        kind = str(a.meta.get("kind", "attack"))
        out[kind] = out.get(kind, 0) + 1
    return out


def _sample_attacks(attacks: list[Query], per_kind: int | None, seed: int) -> list[Query]:
    if per_kind is None or not attacks:
        return attacks
    kinds: dict[str, list[Query]] = {}
    for a in attacks:
        kinds.setdefault(str(a.meta.get("kind", "attack")), []).append(a)
    # the same target (e.g. disease) across kinds: sample target keys once
    targets = sorted({str(a.meta.get("disease", a.id)) for a in attacks})
    keep = set(_random.Random(seed).sample(targets, min(per_kind, len(targets))))
    out = []
    for group in kinds.values():
        chosen = [a for a in group if str(a.meta.get("disease", a.id)) in keep][:per_kind]
        out.extend(chosen)
    return out
