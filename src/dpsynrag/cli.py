"""The ``dpsynrag`` command line. A thin layer: it parses arguments and calls the library."""

from __future__ import annotations

import sys
from typing import Optional

import typer
from rich.console import Console
from rich.table import Table

from dpsynrag.errors import DpsynragError
from dpsynrag.privacy.accountant import ZCDPAccountant
from dpsynrag.privacy.calibration import BudgetSplit, calibrate
from dpsynrag.privacy.report import PrivacyReport

app = typer.Typer(
    help="Differentially private synthetic corpora for retrieval-augmented generation (DP-SynRAG).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
# Wide enough for the report tables when output goes to a file or a pipe (rich defaults to 80 there).
console = Console(width=None if sys.stdout.isatty() else 140)
err_console = Console(stderr=True)


@app.callback()
def _root() -> None:
    """Differentially private synthetic corpora for retrieval-augmented generation (DP-SynRAG)."""


def _fail(exc: Exception) -> None:
    err_console.print(f"[bold red]error:[/] {exc}")
    raise typer.Exit(code=2)


def make_split(split: str, rho_hist: Optional[float], epsilon_theta: Optional[float], rho_embed: Optional[float], L: int) -> BudgetSplit:
    """The budget split named on the command line, with optional overrides of its three shares."""
    if split == "paper":
        base = BudgetSplit.paper()
    elif split == "fractions":
        base = BudgetSplit.paper_fractions(L=L)
    else:
        raise typer.BadParameter(f"--split must be 'paper' or 'fractions'. Found {split!r}.")
    return BudgetSplit(
        base.kind,
        base.hist if rho_hist is None else rho_hist,
        base.theta if epsilon_theta is None else epsilon_theta,
        base.embed if rho_embed is None else rho_embed,
    )


@app.command()
def budget(
    epsilon: float = typer.Option(..., "--epsilon", help="Target epsilon (> 0)."),
    delta: float = typer.Option(..., "--delta", help="Target total delta, in (0, 1)."),
    K: int = typer.Option(10, "--K", help="Keywords per document (histogram L2 sensitivity sqrt(K))."),
    L: int = typer.Option(5, "--L", help="Most clusters a document joins."),
    T: int = typer.Option(70, "--T", help="Tokens per synthetic text."),
    R: int = typer.Option(500, "--R", help="Number of clusters (keywords released)."),
    tau: float = typer.Option(1.0, "--tau", help="Sampling temperature of private prediction."),
    conversion: str = typer.Option("bun-steinke", help="rho->epsilon conversion used to calibrate: bun-steinke | cks."),
    split: str = typer.Option("paper", help="Budget split: paper (absolute constants) | fractions (scale with epsilon)."),
    rho_hist: Optional[float] = typer.Option(None, help="Override the histogram share (rho, or a fraction)."),
    epsilon_theta: Optional[float] = typer.Option(None, help="Override the threshold share (epsilon_theta, or a fraction)."),
    rho_embed: Optional[float] = typer.Option(None, help="Override the embedding-sum share (rho per cluster, or a fraction)."),
    open_vocabulary_delta: Optional[float] = typer.Option(
        None, help="Use the open-vocabulary histogram with this delta term (taken out of --delta)."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of tables."),
) -> None:
    """Calibrate a DP-SynRAG build for a target (epsilon, delta) and print its privacy report."""
    try:
        cal = calibrate(
            epsilon=epsilon,
            delta=delta,
            K=K,
            L=L,
            T=T,
            temperature=tau,
            split=make_split(split, rho_hist, epsilon_theta, rho_embed, L),
            conversion=conversion,  # type: ignore[arg-type]
            open_vocabulary_delta=open_vocabulary_delta,
        )
        accountant = ZCDPAccountant()
        accountant.compose(cal.histogram_event())
        accountant.open_parallel(cal.branch_plan(), num_branches=R, max_branches_per_unit=L)
        report = PrivacyReport.from_accountant(accountant, delta=delta, parameters=cal.to_dict())
    except DpsynragError as exc:
        _fail(exc)
        return
    if as_json:
        typer.echo(report.to_json())
        return
    params = Table(title="Calibrated parameters")
    params.add_column("parameter")
    params.add_column("value", justify="right")
    for key, value in cal.to_dict().items():
        params.add_row(key, "-" if value is None else (f"{value:.6g}" if isinstance(value, float) else str(value)))
    console.print(params)
    console.print(report.table())


if __name__ == "__main__":  # pragma: no cover
    app()
