"""The README and the pages of ``docs/`` as a user reads them (issue 43): every ``dpsynrag`` command in
their ``bash`` blocks parses on the real command line (a wrong option name, a missing argument or a value of
the wrong type fails here), every link between the pages leads to a file and heading that exist, every
repository path they name exists, and the README fits a screen or two.

The README's own-data steps and the ledger example also run as written on small data:
``tests/test_build_presets.py`` and ``tests/test_rerelease.py``."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
import typer

from dpsynrag.cli import app

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def _name(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


def bash_commands(text: str) -> list[str]:
    """The ``dpsynrag`` command lines of a Markdown text's ``bash`` blocks, continuation lines joined."""
    found = []
    for block in re.findall(r"```bash\n(.*?)```", text, flags=re.S):
        for line in block.replace("\\\n", " ").splitlines():
            line = line.strip()
            if re.match(r"(\.venv/bin/)?dpsynrag ", line):
                found.append(line)
    return found


def arguments(line: str) -> list[str]:
    """The arguments of one command line as bash passes them (``$'…'`` read as a quoted string, ``#`` comments
    dropped), without the program name."""
    lexer = shlex.shlex(line.replace("$'", "'"), posix=True)
    lexer.whitespace_split = True
    lexer.commenters = "#"
    return list(lexer)[1:]


def parse(args: list[str]):
    """Parse ``args`` with the real ``dpsynrag`` command (typer's click objects), down to the subcommand,
    without running it; returns the subcommand's context. Raises what the command line would report."""
    command = typer.main.get_command(app)
    ctx = command.make_context("dpsynrag", list(args))
    while hasattr(command, "resolve_command"):  # a group: `dpsynrag`, `dpsynrag ledger`
        rest = [*ctx._protected_args, *ctx.args]
        name, command, rest = command.resolve_command(ctx, rest)
        ctx = command.make_context(name, rest, parent=ctx)
    return ctx


COMMANDS = [(_name(page), line) for page in PAGES for line in bash_commands(page.read_text(encoding="utf-8"))]


def test_the_pages_show_commands():
    pages = {page for page, _ in COMMANDS}
    assert len(COMMANDS) >= 40 and "README.md" in pages and "docs/cli.md" in pages
    assert sum(page == "README.md" for page, _ in COMMANDS) == 6  # the five steps (step 5: two commands)


@pytest.mark.parametrize(("page", "line"), COMMANDS, ids=[f"{p}:{i}" for i, (p, _) in enumerate(COMMANDS)])
def test_every_command_parses_on_the_real_command_line(page, line):
    args = arguments(line)
    ctx = parse(args)  # raises on a wrong option name, a missing argument, a value of the wrong type
    assert ctx.info_name in args[:2]  # parsed down to the subcommand (`build`; `show` of `ledger show`)


@pytest.mark.parametrize("args", [
    ["build", "notes.jsonl", "--out", "c", "--epsilonn", "1"],  # a misspelt option
    ["build", "--out", "c", "--epsilon", "1"],  # no INPUT
    ["query", "corpus/", "q", "--top-k", "three"],  # a value of the wrong type
    ["eval", "...", "--out", "runs/x"],  # a placeholder left in a command
    ["ledger", "show", "--epsilon", "1"],  # an option of another subcommand
    ["serv", "corpus/"],  # no such command
])
def test_the_parse_check_fails_on_a_wrong_command(args):
    with pytest.raises(Exception) as info:
        parse(args)
    assert type(info.value).__name__ in {"NoSuchOption", "MissingParameter", "BadParameter", "UsageError"}


def test_the_parse_reads_values_as_the_command_line_does():
    line = (".venv/bin/dpsynrag build notes.csv --out corpus/ --epsilon 10 --delta 1e-3 \\\n"
            "    --filter-prompt $'Answer YES or NO.\\nDocument: {document}\\nAnswer:'  # a comment")
    (line,) = bash_commands(f"```bash\n{line}\n```\n")
    ctx = parse(arguments(line))
    assert ctx.info_name == "build" and ctx.params["epsilon"] == 10.0 and ctx.params["delta"] == 1e-3
    assert ctx.params["filter_prompt"] == "Answer YES or NO.\\nDocument: {document}\\nAnswer:"
    assert ctx.params["out"] == Path("corpus/")


def test_the_readme_fits_a_screen_or_two():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) < 300
    headings = [line for line in lines if line.startswith("## ")]
    assert headings[:3] == ["## The two commands", "## Your own data in five steps", "## The guarantee, in plain words"]


def _slug(heading: str) -> str:
    """GitHub's anchor of a Markdown heading: lower case, punctuation but ``-`` and ``_`` removed, spaces to ``-``."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    return {_slug(m) for m in re.findall(r"^#+ (.+)$", text, flags=re.M)}


LINKS = [(_name(page), target) for page in PAGES
         for target in re.findall(r"\]\(([^)\s]+)\)", re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S))
         if not re.match(r"[a-z]+://", target)]


def test_the_slug_is_githubs():
    assert _slug("Phrase synthesis (`--synthesis phrases`)") == "phrase-synthesis---synthesis-phrases"
    assert _slug("Private prediction: three ways of forming z") == "private-prediction-three-ways-of-forming-z"


@pytest.mark.parametrize(("page", "target"), LINKS)
def test_every_link_leads_to_a_page_and_heading_that_exist(page, target):
    path, _, anchor = target.partition("#")
    file = (ROOT / page).parent / path if path else ROOT / page
    assert file.is_file(), f"{page} links to {target}: no such file"
    if anchor and file.suffix == ".md":
        assert anchor in _anchors(file), f"{page} links to {target}: no such heading"


def test_the_readme_links_every_page():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    pages = {_name(page) for page in PAGES[1:]}
    assert not [p for p in sorted(pages) if f"]({p})" not in readme]


PATHS = sorted({(_name(page), path) for page in PAGES
                for path in re.findall(r"`((?:benchmarks|src|examples|tests|scripts|docs)/[\w./-]*\w)`",
                                       page.read_text(encoding="utf-8"))})


@pytest.mark.parametrize(("page", "path"), PATHS)
def test_every_repository_path_named_exists(page, path):
    assert (ROOT / path).exists(), f"{page} names {path}"
