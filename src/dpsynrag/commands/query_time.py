"""``dpsynrag query --method NAME`` for the query-time rivals of DP-RAG (MuRAG, MuRAG-Ada, DPVoteRAG,
DPSparseVoteRAG, DP-KSA; :mod:`dpsynrag.methods.rivals`): one session over the private ``--documents``
answers a QUESTION or every question of ``--questions FILE``, the whole session (ε = ``--total-epsilon``,
δ = ``--delta``) recorded on the ``--ledger`` before its first draw."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional

import typer

from rich.console import Console

from dpsynrag.commands.common import console, fail, seed_warning
from dpsynrag.commands.ledger import open_ledger, summary_line
from dpsynrag.errors import ConfigError, DpsynragError


def private_documents(documents: Path, *, task: Optional[str], text_field: str, id_field: Optional[str]):
    """The private collection of ``--documents``: a task's data folder (with ``--task``) or a file, and how
    it was read (for the ledger's source record)."""
    if documents.is_dir():
        if not task:
            raise ConfigError("--documents is a folder: pass --task to say how to read it, or give a file.")
        from dpsynrag.tasks import get_task

        return get_task(task).load_database(documents), {"task": task}
    from dpsynrag.data.io import load_documents

    reading = {"text_field": text_field, "id_field": id_field, "unit_field": None}
    return load_documents(documents, text_field=text_field, id_field=id_field), reading


def query_rival(method_name: str, question: Optional[str], *, questions: Optional[str], out: Optional[Path],
                documents: Optional[Path], total_epsilon: Optional[float], delta: Optional[float], T: Optional[int],
                top_k: Optional[int], task: Optional[str], model: Optional[str], embedder: Optional[str],
                text_field: str, id_field: Optional[str], max_document_tokens: int, seed: Optional[int],
                as_json: bool, ledger: Optional[Path], lifetime_epsilon: Optional[float]) -> None:
    """Run one session of a query-time rival and print its answers and privacy report (see the module)."""
    from pydantic import ValidationError

    from dpsynrag.checks import check_int
    from dpsynrag.commands.questions import read_questions
    from dpsynrag.methods import get_method
    from dpsynrag.privacy.sources import Source

    method = get_method(method_name)
    try:
        if documents is None or total_epsilon is None or delta is None:
            raise ConfigError(f"--method {method_name} needs --documents, --total-epsilon (the whole session's epsilon) "
                              "and --delta.")
        if (question is None) == (questions is None):
            raise ConfigError(f"--method {method_name} answers a QUESTION or the questions of --questions FILE: give one.")
        if out is not None and questions is None:
            raise ConfigError("--out applies to --questions.")
        check_int("--seed", seed, minimum=0, optional=True)
        asked = read_questions(questions) if questions is not None else [question]
        if not all(q.strip() for q in asked):
            raise ConfigError("the question is empty: ask something.")
        fields: dict[str, Any] = {"epsilon": total_epsilon, "delta": delta, "model": model, "embedder": embedder,
                                  "max_document_tokens": max_document_tokens}
        if T is not None:
            fields["max_new_tokens"] = T
        if top_k is not None:
            if "top_k" not in method.config_type.model_fields:
                raise ConfigError(f"--top-k does not apply to --method {method_name}.")
            fields["top_k"] = top_k
        if "queries" in method.config_type.model_fields:
            fields["queries"] = len(asked)  # the session plans exactly the questions it is given
        config = method.make_config(**fields)
        config.calibrate()
        docs, reading = private_documents(documents, task=task, text_field=text_field, id_field=id_field)
        seed_warning(seed)
        privacy_ledger = open_ledger(ledger, lifetime_epsilon, source=Source(documents, reading))
        session = method.session_type(docs, config, task=task, seed=seed, ledger=privacy_ledger)
        answers = session.answer(asked)
    except ValidationError as exc:
        fail(exc, {"max_new_tokens": "--T", "epsilon": "--total-epsilon"})
        return
    except (DpsynragError, FileExistsError) as exc:
        fail(exc)
        return
    report = session.report()
    if as_json and questions is None:
        typer.echo(json.dumps({"question": question, "answer": answers[0].text, "spent": session.spent(),
                               "privacy": report.to_dict(), "ledger": privacy_ledger.totals(session.ledger_dataset)},
                              indent=2))
        return
    where = console
    if questions is not None:  # the answers go out as JSON lines; the report to stderr
        lines = [json.dumps({"question": a.question, "answer": a.text}) for a in answers]
        if out is not None:
            out.write_text("\n".join(lines) + "\n", encoding="utf-8")
        else:
            typer.echo("\n".join(lines))
            where = Console(stderr=True, width=140)
    else:
        typer.echo(answers[0].text)
    where.print(report.table())
    where.print(f"{method.label} session: {session.queries} question(s); the session is (epsilon={report.epsilon:.4g}, "
                f"delta={report.delta:g})-DP.")
    where.print(summary_line(privacy_ledger, session.ledger_dataset))
