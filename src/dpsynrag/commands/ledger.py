"""`dpsynrag ledger show | set-budget`: the persistent privacy-budget ledger per document or privacy
unit (:mod:`dpsynrag.privacy.ledger`), and the helpers `build` and `query --method dp-rag` use to record
their releases there (:func:`open_ledger`; a build's re-release warning and confirmation,
:func:`rerelease_guard`)."""

from __future__ import annotations

import json
import math
import re
import sys
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.table import Table

from dpsynrag.commands.common import output_console
from dpsynrag.errors import ConfigError, DpsynragError
from dpsynrag.privacy.charge import Rerelease
from dpsynrag.privacy.ledger import LEDGER_FILE, PrivacyLedger, default_ledger_dir
from dpsynrag.privacy.sources import Source

ledger_app = typer.Typer(
    help="The privacy-budget ledger: what every build and DP-RAG query released from each dataset, and lifetime budgets.",
    no_args_is_help=True,
)
console = output_console()
err_console = Console(stderr=True, soft_wrap=True)

LEDGER_HELP = "Privacy-budget ledger folder (default: $DPSYNRAG_LEDGER, else the user data folder, e.g. ~/.local/share/dpsynrag)."
LIFETIME_HELP = (
    "Refuse, before anything is drawn, if this release would take the dataset's lifetime epsilon (all releases "
    "recorded in the ledger, zCDP composition, Bun-Steinke at the summed delta) above this."
)


def open_ledger(directory: Optional[Path], lifetime_epsilon: Optional[float] = None, *,
                existing: bool = False, source: Optional[Source] = None, on_rerelease=None) -> PrivacyLedger:
    """The ledger of ``--ledger`` (None: the default folder) with ``--lifetime-epsilon``.

    Args:
        existing: a reading command's ledger: a missing one is refused, never created (a mistyped
            --ledger would otherwise show an empty new ledger).
        source, on_rerelease: as :class:`PrivacyLedger` (the input read, owner-only; :func:`rerelease_guard`).

    Raises:
        ConfigError: ``existing`` and there is no ledger file in the folder; as :class:`PrivacyLedger`.
    """
    if existing:
        folder = Path(directory).expanduser() if directory is not None else default_ledger_dir()
        if not (folder / LEDGER_FILE).is_file():
            raise ConfigError(
                f"no privacy ledger at {folder / LEDGER_FILE} (--ledger): check the folder. A ledger is made by the "
                "first build or DP-RAG query that records a release there (or by `dpsynrag ledger set-budget`)."
            )
    return PrivacyLedger(directory, lifetime_epsilon=lifetime_epsilon, source=source, on_rerelease=on_rerelease)


def _interactive() -> bool:
    """Whether a person can answer a question here (stdin is a terminal)."""
    return sys.stdin.isatty()


def rerelease_warning(r: Rerelease) -> str:
    """What a build says before it spends on documents (persons) that earlier releases read: how many,
    their lifetime ε now and after this build, the files the collection was read from (owner-only). With
    persons (``--privacy-unit-field``) each person and each of their documents is a unit of the ledger
    (:func:`~dpsynrag.privacy.fingerprints.scan_collection`): both are counted."""
    kinds = "persons and documents" if r.unit_kind == "unit" else "documents"  # a person's release charges both
    files = f" (read before from {', '.join(r.sources)})" if r.sources else ""
    return (f"{r.released} of the {r.units} {kinds} of this input already have releases in the privacy ledger, up to "
            f"{r.releases} each{files}. Their lifetime epsilon (the most-spent one) is {_fmt_eps(r.epsilon_now)} now "
            f"and would be {_fmt_eps(r.epsilon_after)} after this build (Bun-Steinke at summed delta "
            f"{r.delta_after:.3g}): every build of the same {kinds} adds to it, while the new corpus's own report "
            "shows this build's epsilon only.")


def rerelease_guard(yes: bool):
    """The ``on_rerelease`` of ``dpsynrag build`` (:class:`PrivacyLedger`): print :func:`rerelease_warning`
    on stderr, then go on with ``yes`` (``--yes``); else ask on a terminal (default no), and stop when
    not answered yes or when no one can answer (stdin not a terminal).

    Raises (from the returned callable):
        ConfigError: stopped: nothing drawn or recorded (the build exits with code 2).
    """
    def guard(r: Rerelease) -> None:
        import click

        err_console.print(f"[bold yellow]warning:[/] {rerelease_warning(r)}", highlight=False)
        if yes:
            err_console.print("--yes: building anyway.")
            return
        if not _interactive():
            raise ConfigError("stopped before spending anything (nothing drawn or recorded): these documents already "
                              "have releases. Pass --yes to build from them again.")
        try:
            if typer.confirm("Spend more of their budget?", default=False, err=True):
                return
        except click.exceptions.Abort:
            pass
        raise ConfigError("stopped as you answered, before spending anything (nothing drawn or recorded).")

    return guard


def _fmt_eps(value: float) -> str:
    return "inf (summed delta >= 1: no guarantee)" if math.isinf(value) else f"{value:.4f}"


def _counts(units: dict, kind: str) -> str:
    """"A of B unit(s)", or, where some units are persons, "A of B person(s) and C of D document(s)"
    (a per-person release charges each person and each document it read)."""
    persons, at = units.get("persons", 0), units.get("persons_at_max", 0)
    if not persons:
        return f"{units['at_max']} of {units['units']} {kind}(s)"
    return (f"{at} of {persons} person(s) and {units['at_max'] - at} of {units['units'] - persons} document(s)")


def most_spent_line(units: dict | None) -> str | None:
    """"most-spent document: ..." from :meth:`PrivacyLedger.unit_totals` (None when no unit is recorded);
    persons and documents are counted apart."""
    if units is None:
        return None
    m, kind = units["max"], units["unit_kind"]
    return (f"most-spent {kind}: lifetime epsilon={_fmt_eps(m['epsilon'])} (tight {_fmt_eps(m['epsilon_tight'])}) "
            f"after {m['releases']} release(s), rho={m['rho']:.6g}, summed delta={m['delta']:.3g}; "
            f"{_counts(units, kind)} at it")


def summary_line(ledger: PrivacyLedger, dataset: str) -> str:
    """One line: the dataset's releases, their lifetime ε under both conversions, its most-spent
    document or unit (counting releases on any collection that held it) and its budget."""
    t = ledger.totals(dataset)
    budget = t["budget"]
    extra = "" if budget is None else f"; lifetime budget epsilon={budget['epsilon']:g} ({budget['conversion']})"
    most = most_spent_line(t["units"])
    return (
        f"ledger {ledger.path}: dataset {dataset[:12]} has {t['releases']} release(s), rho={t['rho']:.6g}, "
        f"summed delta={t['delta']:.3g}: lifetime epsilon={_fmt_eps(t['epsilon'])} (tight {_fmt_eps(t['epsilon_tight'])})"
        f"{'' if most is None else '; ' + most}{extra}."
    )


def _resolve_dataset(ledger: PrivacyLedger, dataset: str, *, task: Optional[str], text_field: Optional[str],
                     id_field: Optional[str], unit_field: Optional[str] = None) -> str:
    """A fingerprint from DATASET: an input file (or a task's data folder with --task), whose documents
    are registered in the ledger (:meth:`PrivacyLedger.register`: keyed fingerprints; a collection recorded
    by a schema-1 ledger has its releases carried onto its documents), or a fingerprint (or a unique prefix
    of one, at least 6 hex digits) already in the ledger. A file or folder is read as it was last read when
    registered (:meth:`PrivacyLedger.reading_of`: a build's --text-field, --id-field, --privacy-unit-field,
    --task) for each of those not given here; else with the field ``text``; the reading is said on stderr."""
    path = Path(dataset)
    if path.exists():
        flags = ({"task": "--task"} if path.is_dir() else
                 {"text_field": "--text-field", "id_field": "--id-field", "unit_field": "--privacy-unit-field"})
        given = {"text_field": text_field, "id_field": id_field, "unit_field": unit_field, "task": task}
        recorded = {k: v for k, v in (ledger.reading_of(path) or {}).items()
                    if k in flags and given[k] is None and v is not None}
        if recorded:
            err_console.print(f"read {dataset} as its last build did: "
                              + ", ".join(f"{flags[k]} {v}" for k, v in recorded.items()),
                              markup=False, highlight=False)
        reading = {k: given[k] if given[k] is not None else recorded.get(k) for k in flags}
        task, id_field, unit_field = reading.get("task"), reading.get("id_field"), reading.get("unit_field")
        text_field = reading.get("text_field") or "text"
        ledger.source = Source(path, {**reading, **({} if path.is_dir() else {"text_field": text_field})})
        if path.is_dir():
            if not task:
                raise ConfigError(f"DATASET {dataset} is a folder: pass --task to say how to read it, or give a file.")
            if unit_field:
                raise ConfigError("--privacy-unit-field needs DATASET as a file holding that field, not a task's folder.")
            from dpsynrag.tasks import get_task

            return ledger.register(get_task(task).load_database(path))
        from dpsynrag.data.io import load_documents

        return ledger.register(load_documents(path, text_field=text_field, id_field=id_field, unit_field=unit_field))
    if not re.fullmatch(r"[0-9a-f]{6,64}", dataset):
        raise ConfigError(f"DATASET {dataset!r} is neither an existing input file or folder nor a fingerprint (hex).")
    if len(dataset) == 64:
        return dataset
    matches = [d for d in ledger.datasets() if d.startswith(dataset)]
    if len(matches) != 1:
        raise ConfigError(
            f"DATASET {dataset!r} matches {len(matches)} fingerprints in the ledger {ledger.path}; give more digits "
            "or the input file."
        )
    return matches[0]


@ledger_app.command("show")
def show(
    dataset: Optional[str] = typer.Argument(None, help="An input file (or data folder with --task) or a fingerprint prefix; default: every dataset."),
    ledger: Optional[Path] = typer.Option(None, "--ledger", help=LEDGER_HELP),
    task: Optional[str] = typer.Option(None, "--task", help="How to read a DATASET folder (default: as the last build of that folder)."),
    text_field: Optional[str] = typer.Option(None, help="Field holding the document text (DATASET file; default: as the last build of that file read it, else text)."),
    id_field: Optional[str] = typer.Option(None, help="Field holding a unique document id (DATASET file; default: as the last build read it)."),
    unit_field: Optional[str] = typer.Option(None, "--privacy-unit-field", help="Field holding each document's person key, as the builds read it (DATASET file; default: as the last build read it): the ledger then counts persons."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Print each dataset's most-spent document (or privacy unit) with how many documents are at that
    maximum (the number the lifetime budget checks), the files it was read from (owner-only: the ledger
    is), then its releases and their total under both conversions (Bun-Steinke, tight CKS). A missing
    ledger is refused (never created).

    Releases compose in zCDP: rho adds, delta adds; epsilon is converted once at the summed delta. A
    document's spend counts every release that read it, from any file; the lifetime budget is checked for
    the most-spent one."""
    try:
        led = open_ledger(ledger, existing=True)
        names = ([_resolve_dataset(led, dataset, task=task, text_field=text_field, id_field=id_field,
                                  unit_field=unit_field)]
                 if dataset else led.datasets())
        data = {d: {"totals": led.totals(d), "releases": [r.__dict__ for r in led.releases(d)],
                    "sources": led.sources(d)} for d in names}
        overall = led.unit_totals()
    except DpsynragError as exc:
        err_console.print(f"[bold red]error:[/] {exc}")
        raise typer.Exit(code=2) from None
    if as_json:
        typer.echo(json.dumps({"ledger": str(led.path), "units": overall, "datasets": data}, indent=2))
        return
    if not data:
        console.print(f"ledger {led.path}: no release recorded.")
        return
    for name, entry in data.items():
        t = entry["totals"]
        most = most_spent_line(t["units"])
        console.print(f"dataset {name}: {most} (counting releases on every collection that held it; the lifetime "
                      "budget is checked for it)." if most else
                      f"dataset {name}: documents not registered yet (recorded by an older ledger): give the input "
                      "file, `dpsynrag ledger show FILE`, to carry its releases onto its documents.")
        for src in entry["sources"]:
            console.print(f"  read from {src['path']} (first {src['first']}, last {src['last']})", markup=False,
                          highlight=False)
        table = Table(title=f"releases on exactly dataset {name}")
        for col in ("#", "when (UTC)", "kind", "method", "runs", "rho", "delta terms", "delta", "output"):
            table.add_column(col, justify="right" if col in ("#", "runs", "rho", "delta terms", "delta") else "left")
        for r in entry["releases"]:
            table.add_row(str(r["id"]), r["created"], r["kind"], r["method"], str(r["count"]), f"{r['rho']:.6g}",
                          f"{r['delta_terms']:.3g}", f"{r['delta']:.3g}", r["label"])
        table.add_section()
        table.add_row("total", "", "", "", "", f"{t['rho']:.6g}", f"{t['delta_terms']:.3g}", f"{t['delta']:.3g}", "")
        console.print(table)
        console.print(
            f"releases on exactly this collection: epsilon at summed delta {t['delta']:.3g}: {_fmt_eps(t['epsilon'])} "
            f"(Bun-Steinke), {_fmt_eps(t['epsilon_tight'])} (tight, CKS)"
        )
        b = t["budget"]
        if b is not None:
            delta = "" if b["delta"] is None else f", summed delta at most {b['delta']:g}"
            console.print(f"lifetime budget: epsilon {b['epsilon']:g} ({b['conversion']}){delta}")
    if dataset is None and overall is not None:
        console.print(f"whole ledger: {most_spent_line(overall)}.")


@ledger_app.command("set-budget")
def set_budget(
    dataset: str = typer.Argument(..., help="An input file (or data folder with --task) or a fingerprint (prefix) in the ledger."),
    epsilon: float = typer.Option(..., "--epsilon", help="Lifetime epsilon of the dataset (all builds and DP-RAG queries together)."),
    delta: Optional[float] = typer.Option(None, "--delta", help="Optional cap on the summed delta of its releases."),
    conversion: str = typer.Option("bun-steinke", "--conversion", help="rho->epsilon conversion of the check: bun-steinke | cks."),
    ledger: Optional[Path] = typer.Option(None, "--ledger", help=LEDGER_HELP),
    task: Optional[str] = typer.Option(None, "--task", help="How to read a DATASET folder (default: as the last build of that folder)."),
    text_field: Optional[str] = typer.Option(None, help="Field holding the document text (DATASET file; default: as the last build of that file read it, else text)."),
    id_field: Optional[str] = typer.Option(None, help="Field holding a unique document id (DATASET file; default: as the last build read it)."),
    unit_field: Optional[str] = typer.Option(None, "--privacy-unit-field", help="Field holding each document's person key, as the builds read it (DATASET file; default: as the last build read it): the ledger then counts persons."),
) -> None:
    """Set a dataset's lifetime budget, on the collection and on each of its documents (units): later
    builds and DP-RAG queries that would take any of them over it are refused before anything is drawn,
    also on a subset or a superset of the collection."""
    try:
        led = open_ledger(ledger)
        name = _resolve_dataset(led, dataset, task=task, text_field=text_field, id_field=id_field,
                                unit_field=unit_field)
        led.set_budget(name, epsilon, delta=delta, conversion=conversion)
        line = summary_line(led, name)
    except DpsynragError as exc:
        err_console.print(f"[bold red]error:[/] {exc}")
        raise typer.Exit(code=2) from None
    console.print(line)
