"""The ``dpsynrag audit`` command: the empirical privacy audit of :mod:`dpsynrag.audit` from the command
line (one build with canaries, the ε lower bound printed next to the claimed ε; with ``--epsilons`` one
audit per claimed ε and a table, JSON and plot of them all).
"""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import Any, Optional

import typer

from dpsynrag.audit import AUDIT_FILE, SEED_REQUIRED, TABLE_JSON, TABLE_MD, TABLE_PLOT, run_audit, run_audit_sweep
from dpsynrag.commands.common import console, err_console, fail, seed_warning
from dpsynrag.commands.options import (
    RegistryCommand,
    document_params,
    in_panel_order,
    keyword_param,
    method_fields,
    method_options,
    model_params,
)
from dpsynrag.errors import ConfigError
from dpsynrag.methods import Method, get_method

__all__ = ["audit_command"]


class AuditCommand(RegistryCommand):
    """Empirical privacy audit: canaries in one build, an epsilon lower bound next to the claimed epsilon.

    The audited build is DP-SynRAG's, with the options of `dpsynrag build` (the method registry's).

    With --privacy-unit-field the per-person build is audited, each canary a person of its own.

    The audit always builds with --seed: its corpus holds invented canaries and is never released."""

    build_options = False

    def choices(self) -> list[Method]:
        return [get_method("dp-synrag")]

    def common(self) -> list[inspect.Parameter]:
        return [
            keyword_param("input", typer.Argument(..., help="Private collection: JSONL, CSV or Parquet file (or a task's data folder with --task)."), Path),
            keyword_param("out", typer.Option(..., "--out", help="New folder for the audited corpus (corpus/) and audit.json."), Path),
            keyword_param("epsilon", typer.Option(None, "--epsilon", help="Claimed epsilon of the audited build (its target)."), Optional[float]),
            keyword_param("epsilons", typer.Option(None, "--epsilons", help="Instead of --epsilon: audit one build per claimed epsilon, e.g. 0.5,1,2,4,8, and write a table (markdown, JSON) and a plot."), Optional[str]),
            keyword_param("delta", typer.Option(..., "--delta", help="Claimed total delta, in (0, 1)."), float),
            keyword_param("task", typer.Option(None, "--task", help="Public task; medical has a built-in canary record."), Optional[str]),
            keyword_param("canaries", typer.Option(None, "--canaries", help="Number m of canary documents, each included with probability 1/2 (default: the public sizing rule, 1,000 to 16,000 from epsilon, delta and --confidence)."), Optional[int]),
            keyword_param("guesses_in", typer.Option(None, "--guesses-in", help="Canaries guessed IN: the highest scores (default m/4)."), Optional[int]),
            keyword_param("guesses_out", typer.Option(None, "--guesses-out", help="Canaries guessed OUT: the lowest scores (default m/4)."), Optional[int]),
            keyword_param("canary_template", typer.Option(None, "--canary-template", help="A record in your documents' format with {secret} (required unless --task medical)."), Optional[str]),
            keyword_param("confidence", typer.Option(0.95, "--confidence", help="Confidence of the epsilon lower bound."), float),
            keyword_param("documents", typer.Option(None, "--documents", help="Audit the first N documents only (a CPU-sized slice)."), Optional[int]),
            *model_params(),
            keyword_param("no_self_filter", typer.Option(False, "--no-self-filter", help="Keep every synthetic text."), bool),
            *document_params(),
            keyword_param("seed", typer.Option(None, "--seed", help="Seed of the audit design and of the build (required: reproducible, NOT for release)."), Optional[int]),
            keyword_param("overwrite", typer.Option(False, "--overwrite", help="Replace --out if it holds an earlier audit."), bool),
            keyword_param("as_json", typer.Option(False, "--json", help="Print the result as JSON."), bool),
        ]

    def arrange(self, common: list[inspect.Parameter], offered: list[inspect.Parameter]) -> list[inspect.Parameter]:
        """The audit's own options first, then the build's in their ``build --help`` panels."""
        return [*common, *in_panel_order(offered)]

    def __call__(self, ctx: typer.Context, **values: Any) -> None:
        from pydantic import ValidationError

        from dpsynrag.data.io import load_documents
        from dpsynrag.errors import DpsynragError

        epsilon, epsilons, input, out = values["epsilon"], values["epsilons"], values["input"], values["out"]
        unit_field, seed = values["privacy_unit_field"], values["seed"]
        method = self.choices()[0]
        # a sweep's claims set the build's epsilon: an error about it names --epsilons
        flags = {**{o.field: o.flag for o in method.options if not o.build_only}, "limit": "--documents",
                 "confidence": "--confidence", "template": "--canary-template",
                 "epsilon": "--epsilon" if epsilons is None else "--epsilons"}
        try:
            if (epsilon is None) == (epsilons is None):
                raise ConfigError("give the claimed epsilon: either --epsilon or --epsilons (e.g. 0.5,1,2,4,8), not both.")
            try:
                claims = [float(e) for e in epsilons.split(",")] if epsilons is not None else [epsilon]
            except ValueError:
                raise ConfigError(f"--epsilons must list numbers separated by commas (e.g. 0.5,1,2,4,8). Found {epsilons!r}.") from None
            fields, _ = method_fields(ctx, values, method, method_options(self.choices(), build=False))
            common = {"model": values["model"], "embedder": values["embedder"],
                      "max_document_tokens": values["max_document_tokens"]}
            config = method.make_config(
                epsilon=claims[0], delta=values["delta"], task=values["task"], seed=seed,
                self_filter=not values["no_self_filter"], **{k: v for k, v in common.items() if v is not None}, **fields,
            )
            if epsilons is None:  # a sweep's infeasible claims become rows of its table instead
                config.calibrate()
            if input.is_dir():
                if not values["task"]:
                    raise ConfigError("INPUT is a folder: pass --task to say how to read it, or give a file.")
                if unit_field is not None:
                    raise ConfigError("--privacy-unit-field reads each document's person key from a document file; a "
                                      "task's data folder has no such field: give a JSONL, CSV or Parquet file holding it.")
                from dpsynrag.tasks import get_task

                docs = get_task(values["task"]).load_database(input, limit=values["documents"])
            else:
                docs = load_documents(input, text_field=values["text_field"], id_field=values["id_field"],
                                      limit=values["documents"], unit_field=unit_field)
            if seed is None:  # checked before anything is built or written
                raise ConfigError(SEED_REQUIRED)
            seed_warning(seed)
            options = dict(canaries=values["canaries"], k_in=values["guesses_in"], k_out=values["guesses_out"],
                           template=values["canary_template"], seed=seed, confidence=values["confidence"],
                           overwrite=values["overwrite"], progress=True, log=err_console.print)
            if epsilons is not None:
                sweep = run_audit_sweep(docs, out, config, claims, **options)
            else:
                result = run_audit(docs, out, config, **options)
        except (ValidationError, DpsynragError, FileExistsError) as exc:
            fail(exc, flags)
            return
        if epsilons is not None:
            _print_sweep(sweep, out, values["as_json"])
            if all("error" in row for row in sweep):  # nothing was audited: not a result to pass on
                err_console.print("[bold red]error:[/] no claim was audited: every build failed (their errors are in the table).")
                raise typer.Exit(code=1)
            return
        _print_result(result, out, values["as_json"])


audit_command = AuditCommand()
"""The ``dpsynrag audit`` command (registered in :mod:`dpsynrag.cli`)."""


def _print_result(result, out: Path, as_json: bool) -> None:
    """One audit's table and summary on the console (or its record as JSON) and where its files are."""
    from rich.table import Table

    if as_json:
        typer.echo(json.dumps(result.to_dict(), indent=2))
        return
    table = Table(title=f"Privacy audit (one run, {100 * result.confidence:g}% confidence)")
    table.add_column("quantity")
    table.add_column("value", justify="right")
    rows = [
        ("claimed epsilon (delta)", f"{result.claimed_epsilon:g} ({result.claimed_delta:g})"),
        ("claimed epsilon, tight conversion (tested)", f"{result.claimed_epsilon_tight:.3f}"),
        ("canaries m (included)", f"{result.canaries} ({result.included})"),
        ("guesses r (IN + OUT)", f"{result.guesses} ({result.k_in} + {result.k_out})"),
        ("correct guesses v", str(result.correct)),
        ("epsilon lower bound (claimed delta)", f"{result.epsilon_lower_bound:.3f}"),
        ("largest reachable bound (claimed delta)", f"{result.max_epsilon_lower_bound:.3f}"),
    ]
    for name, value in rows:
        table.add_row(name, value)
    console.print(table)
    console.print(result.summary())
    console.print(f"audit record: {Path(out) / AUDIT_FILE}; audited corpus: {result.corpus}")


def _print_sweep(rows: list[dict], out: Path, as_json: bool) -> None:
    """The ε sweep's table on the console (or its rows as JSON) and where its files are."""
    from rich.table import Table

    if as_json:
        typer.echo(json.dumps(rows, indent=2))
        return
    table = Table(title="Privacy audit, one build per claimed epsilon")
    for name in ("claimed eps", "tight eps (tested)", "canaries m", "guesses r", "correct v", "lower bound",
                 "largest reachable bound", "verdict"):
        table.add_column(name, justify="left" if name == "verdict" else "right")
    for row in rows:
        if "error" in row:
            table.add_row(f"{row['claimed_epsilon']:g}", "", "", "", "", "", "", f"build failed: {row['error']}")
            continue
        table.add_row(f"{row['claimed_epsilon']:g}", f"{row['claimed_epsilon_tight']:.3f}", str(row["canaries"]),
                      str(row["guesses"]), str(row["correct"]), f"{row['epsilon_lower_bound']:.3f}",
                      f"{row['max_epsilon_lower_bound']:.3f}", row["verdict"])
    console.print(table)
    console.print(f"table: {out / TABLE_MD}, {out / TABLE_JSON}; plot: {out / TABLE_PLOT}; one audit per claim in "
                  f"{out}/eps-*/ (NOT for release)")
