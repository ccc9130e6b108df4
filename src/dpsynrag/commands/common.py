"""What the commands share: the consoles, the one-line error exit, the corpus-content warning."""

from __future__ import annotations

import sys

import typer
from rich.console import Console
from rich.markup import escape

from dpsynrag.checks import error_message

# Wide enough for the report tables when output goes to a file or a pipe (rich defaults to 80 there).
console = Console(width=None if sys.stdout.isatty() else 140)
err_console = Console(stderr=True, soft_wrap=True)


def fail(exc: Exception, flags: dict[str, str] | None = None, note: str | None = None) -> None:
    """Print ``exc`` naming the flags the user typed (:func:`dpsynrag.checks.error_message`; ``flags``: the
    command's own field -> flag pairs), then ``note`` when given, and exit with code 2. The message is
    printed as written (brackets such as ``'dpsynrag[pii]'`` are not Rich markup)."""
    message = error_message(exc, flags) + ("" if note is None else f" {note}")
    err_console.print(f"[bold red]error:[/] {escape(message)}")
    raise typer.Exit(code=2)


def print_privacy(report) -> None:
    """A :class:`~dpsynrag.privacy.report.PrivacyReport`'s table, then its notes ("note: ...", one a line)."""
    console.print(report.table())
    for note in report.notes:
        console.print(f"note: {note}", markup=False, highlight=False)


def warn_content(corpus) -> None:
    """A warning on stderr when the corpus keeps no or few texts (post-processing of released counts)."""
    warning = corpus.content_warning
    if warning:
        err_console.print(f"[bold yellow]warning:[/] {warning}")


def seed_warning(seed) -> None:
    """Say on stderr that a seeded run is reproducible and not for release."""
    if seed is not None:
        err_console.print("[yellow]warning:[/] --seed makes the output reproducible: it is NOT for release.")
