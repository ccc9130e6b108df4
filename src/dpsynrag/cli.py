"""The ``dpsynrag`` command line. A thin layer: it parses arguments and calls the library.

Commands: ``build``, ``budget`` (:mod:`dpsynrag.commands.build`: method options from the registry),
``query`` (:mod:`dpsynrag.commands.query`), ``report``, ``demo``, ``eval`` (:mod:`dpsynrag.commands.eval`),
``audit``, ``ledger``, ``serve``, ``export``, ``redact`` (:mod:`dpsynrag.commands.redact`), ``leakage``
(:mod:`dpsynrag.commands.leakage`), ``models convert`` (:mod:`dpsynrag.commands.models`).
"""

from __future__ import annotations

import os
import warnings

import typer
from typer.core import TyperGroup, TyperOption

from dpsynrag import __version__
from dpsynrag.threads import passive_wait

passive_wait()  # before torch loads: OpenMP threads sleep instead of spinning while they wait (dpsynrag.threads)

# the commands (imported after passive_wait: they may load faiss or torch, whose OpenMP runtime reads it)
from dpsynrag.commands.audit import audit_command  # noqa: E402
from dpsynrag.commands.build import BudgetCommand, BuildCommand  # noqa: E402
from dpsynrag.commands.demo import demo_command  # noqa: E402
from dpsynrag.commands.eval import eval_command  # noqa: E402
from dpsynrag.commands.export import export_command  # noqa: E402
from dpsynrag.commands.leakage import leakage_command  # noqa: E402
from dpsynrag.commands.ledger import ledger_app  # noqa: E402
from dpsynrag.commands.models import models_app  # noqa: E402
from dpsynrag.commands.query import query_command  # noqa: E402
from dpsynrag.commands.redact import redact_command  # noqa: E402
from dpsynrag.commands.report import report_command  # noqa: E402
from dpsynrag.commands.serve import serve_command  # noqa: E402


def _switches_take_no_value(command, ctx) -> None:
    """Show no value placeholder after a switch in ``--help`` (typer prints ``<bool>`` after ``--json`` or
    ``--help``, as if they took a value): an empty metavar, on ``command``, its help option and, for a
    group, its subcommands."""
    for param in [*command.params, command.get_help_option(ctx)]:
        if isinstance(param, TyperOption) and param.is_flag and param.metavar is None:
            param.metavar = ""
    for sub in getattr(command, "commands", {}).values():
        _switches_take_no_value(sub, ctx)


class _Group(TyperGroup):
    """The root command group; its commands' ``--help`` shows switches without a value placeholder."""

    def get_params(self, ctx):
        _switches_take_no_value(self, ctx)
        return super().get_params(ctx)

    def get_command(self, ctx, cmd_name):
        command = super().get_command(ctx, cmd_name)
        if command is not None:
            _switches_take_no_value(command, ctx)
        return command


app = typer.Typer(
    cls=_Group,
    help="Differentially private synthetic corpora for retrieval-augmented generation (DP-SynRAG).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _exit_on_sigterm(signum, frame) -> None:
    # SystemExit unwinds like Ctrl-C: a build's partial folder is deleted by its CorpusWriter.
    raise SystemExit(128 + signum)


_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
_python_showwarning = warnings.showwarning


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """``warnings.showwarning`` of the command line: a ``UserWarning`` raised from dpsynrag's own code is one
    ``warning: …`` line on stderr, as the commands print theirs (not Python's ``path:line: UserWarning: …``);
    any other warning as Python prints it."""
    if issubclass(category, UserWarning) and os.path.abspath(filename).startswith(_PACKAGE_DIR):
        from rich.console import Console
        from rich.markup import escape

        Console(stderr=True, soft_wrap=True).print(f"[yellow]warning:[/] {escape(str(message))}")
        return
    _python_showwarning(message, category, filename, lineno, file, line)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"dpsynrag {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", is_eager=True, callback=_print_version,
                                 help="Print the dpsynrag version and exit."),
) -> None:
    """Differentially private synthetic corpora for retrieval-augmented generation (DP-SynRAG)."""
    import signal
    import threading

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _exit_on_sigterm)
    warnings.showwarning = _show_warning



app.command("budget")(BudgetCommand())
app.command("build")(BuildCommand())
app.command("query")(query_command)
app.command("report")(report_command)
app.command("demo")(demo_command)
app.command("eval")(eval_command)
app.command("audit")(audit_command)
app.add_typer(ledger_app, name="ledger")  # `dpsynrag ledger show | set-budget` (issue 15)
app.command("serve")(serve_command)
app.command("export")(export_command)
app.command("redact")(redact_command)
app.command("leakage")(leakage_command)
app.add_typer(models_app, name="models")  # `dpsynrag models convert FILE.gguf --out DIR` (issue 43)


if __name__ == "__main__":  # pragma: no cover
    app()
