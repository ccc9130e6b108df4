"""What the commands share: the consoles, the one-line error exit, the corpus-content warning."""

from __future__ import annotations

import sys

import typer
from rich.console import Console
from rich.markup import escape
from rich.rule import Rule

from dpsynrag.checks import error_message

UNWRAPPED_WIDTH = 10_000
"""The width of a console that is not a terminal: wider than any table row, so tables come out at their
natural width (rich would otherwise wrap them at 80 columns)."""

RULE_WIDTH = 100
"""The width of a rule (``console.rule``) on a console that is not a terminal."""


class _Unwrapped(Console):
    """A console for a pipe or a file: no line is wrapped (``soft_wrap``; tables at their natural width) and
    rules are :data:`RULE_WIDTH` columns, not :data:`UNWRAPPED_WIDTH`."""

    def rule(self, title="", *, characters="─", style="rule.line", align="center") -> None:
        self.print(Rule(title, characters=characters, style=style, align=align), width=RULE_WIDTH)


def output_console(file=None) -> Console:
    """A console for a command's output on ``file`` (None: stdout, whichever it is when printing): on a
    terminal, rich's own (the terminal's width, long lines wrapped); on a pipe or a file, nothing wrapped —
    every text line and table row comes out whole, so that ``grep`` and other programs read it, and rules
    are :data:`RULE_WIDTH` columns."""
    if (file if file is not None else sys.stdout).isatty():
        return Console(file=file)
    return _Unwrapped(file=file, width=UNWRAPPED_WIDTH, soft_wrap=True)


console = output_console()
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
