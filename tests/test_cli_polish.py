"""CLI and service polish (issue 28, item 6): ``--version``, ``query --json`` on a corpus, an offline
``/docs`` page, error wording, ``--help`` without value placeholders on switches, the method(s) of each
method option, the ``build`` / ``budget`` option panels, ``serve --request-threads``, and the evaluation
report's row of a corpus that kept no text."""

from __future__ import annotations

import json
import re

import pytest
from fakes import HashEmbedder
from fastapi.testclient import TestClient
from servers import write_corpus
from typer.testing import CliRunner

from dpsynrag import __version__
from dpsynrag.cli import app
from dpsynrag.commands.build import BudgetCommand, BuildCommand
from dpsynrag.commands.options import HELP_PANELS
from dpsynrag.serve import CorpusService, create_app

runner = CliRunner()


def _out(result) -> str:
    """The output with the help boxes' borders removed and whitespace collapsed (rich wraps long lines)."""
    return " ".join(result.output.replace("│", " ").split())


def _help(*command: str) -> str:
    result = runner.invoke(app, [*command, "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    return result.output


def test_version():
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and result.output == f"dpsynrag {__version__}\n"
    assert "--version" in _help()


@pytest.mark.parametrize("command", [(), ("build",), ("budget",), ("query",), ("serve",), ("report",), ("eval",),
                                     ("ledger", "show"), ("export",)])
def test_switches_show_no_value_placeholder(command):
    text = _help(*command)
    assert "<bool>" not in text
    lines = [line for line in text.splitlines() if re.search(r"--help\b", line)]
    assert lines and all(re.fullmatch(r"[│ ]*--help\s+Show this message and exit\.[│ ]*", line) for line in lines)
    if command in (("build",), ("query",)):
        assert "<int>" in text  # options taking a value still show its type


def test_build_method_error_lists_only_the_methods_build_accepts():
    result = runner.invoke(app, ["build", "x.jsonl", "--out", "o", "--epsilon", "1", "--delta", "1e-3", "--method", "nope"])
    assert result.exit_code == 2
    assert "`--method` must be one of dp-synth, aug-pe, dp-synrag. Found 'nope'." in _out(result)
    assert "non-rag" not in _out(result) and "registered" not in _out(result)
    result = runner.invoke(app, ["budget", "--epsilon", "1", "--delta", "1e-3", "--method", "rag"])
    assert result.exit_code == 2 and ("must be one of dp-rag, murag, murag-ada, dp-vote-rag, dp-sparse-vote-rag, dp-ksa, dp-synth, "
                                                  "aug-pe, dp-synrag. Found 'rag'.") in _out(result)


def test_error_wording_agrees_with_the_number_of_flags(tmp_path):
    write_corpus(tmp_path / "c", HashEmbedder())
    result = runner.invoke(app, ["query", str(tmp_path / "c"), "Q?", "--T", "3"])
    assert result.exit_code == 2 and "error: --T applies only to --method dp-rag." in _out(result)
    result = runner.invoke(app, ["query", str(tmp_path / "c"), "Q?", "--T", "3", "--top-p", "0.5"])
    assert result.exit_code == 2 and "--top-p, --T apply only to --method dp-rag." in _out(result)
    result = runner.invoke(app, ["query", "Q?", "--method", "dp-rag", "--repeat-copies"])
    assert result.exit_code == 2 and "--repeat-copies does not apply to --method dp-rag" in _out(result)
    result = runner.invoke(app, ["build", "x.jsonl", "--out", "o", "--epsilon", "1", "--delta", "1e-3", "--method",
                                 "dp-synth", "--K", "3", "--R", "4"])
    assert result.exit_code == 2 and "--K, --R do not apply to --method dp-synth." in _out(result)


def test_ray_help_names_the_extra():
    assert "pip install 'dpsynrag[ray]'" in _out(runner.invoke(app, ["build", "--help"], env={"COLUMNS": "200"}))


def _options(command) -> dict[str, object]:
    """flag -> typer OptionInfo of a registry command's signature."""
    return {p.default.param_decls[0]: p.default for p in command.__signature__.parameters.values()
            if hasattr(p.default, "param_decls") and p.default.param_decls and p.default.param_decls[0].startswith("--")}


@pytest.mark.parametrize("command", [BuildCommand(), BudgetCommand()])
def test_every_method_option_names_its_methods(command):
    choices = command.choices()
    owners: dict[str, set[str]] = {}
    for m in choices:
        for o in m.options:
            owners.setdefault(o.flag, set()).add(m.name)
    options = _options(command)
    for flag, names in owners.items():
        if flag not in options:
            continue  # a build-only option in budget
        help = options[flag].help
        if names == {m.name for m in choices}:
            assert "(--method" not in help, flag
        else:
            listed = re.search(r"\(--method ([a-z0-9, -]+)\)$", help)
            assert listed and set(listed.group(1).split(", ")) == names, (flag, help)
    assert options["--num-batches"].help.endswith("(--method dp-synth)")
    assert options["--batch-size"].help.startswith("aug-pe: Prompts per generation batch (default 32). dp-synrag:")


def test_option_panels():
    from test_method_registry import ToyCounts

    from dpsynrag.methods import register, unregister

    method = register(ToyCounts())
    try:
        options = _options(BuildCommand())
    finally:
        unregister(method.name)
    panel = {flag: info.rich_help_panel for flag, info in options.items()}
    assert panel["--epsilon"] == panel["--method"] == "Core"
    assert panel["--K"] == panel["--clustering"] == "Keywords and clustering"
    assert panel["--T"] == panel["--decoding"] == "Decoding"
    assert panel["--index-copy-size"] == panel["--max-index-copies"] == "Index"
    assert panel["--threads"] == panel["--resume"] == panel["--ledger"] == "Run"
    assert panel["--toy-words"] == panel["--num-batches"] == "Other methods"  # not in the mapping: the fallback
    assert all(panel[flag] == name for flag, name in HELP_PANELS.items() if flag in panel)
    # DP-SynRAG's own flags never fall back to the other methods' panel
    from dpsynrag.methods import get_method

    assert [o.flag for o in get_method("dp-synrag").options if panel[o.flag] == "Other methods"] == []
    text = _help("build")
    assert re.findall(r"╭─ (.+?) ─", text) == ["Arguments", "Options", "Core", "Keywords and clustering", "Decoding", "Index", "Run",
                      "Other methods"]
    assert re.findall(r"╭─ (.+?) ─", _help("budget"))[:3] == ["Options", "Core", "Keywords and clustering"]


@pytest.fixture()
def client(tmp_path):
    write_corpus(tmp_path / "notes", HashEmbedder())
    return TestClient(create_app(CorpusService.load([tmp_path / "notes"], embedder=HashEmbedder(), retrieval_only=True)))


def test_docs_page_works_offline(client):
    page = client.get("/docs")
    assert page.status_code == 200 and "SwaggerUIBundle" in page.text
    assert not re.search(r"https?://", page.text)  # nothing from a CDN
    assert '"validatorUrl": null' in page.text  # and no validator badge fetched from swagger.io
    assets = re.findall(r'(?:src|href)="([^"]+)"', page.text)
    assert {"/docs/assets/swagger-ui-bundle.js", "/docs/assets/swagger-ui.css"} <= set(assets)
    for url in assets:
        r = client.get(url)
        assert r.status_code == 200 and len(r.content) > 500, url
    assert "javascript" in client.get("/docs/assets/swagger-ui-bundle.js").headers["content-type"]
    assert client.get("/redoc").status_code == 404  # ReDoc would load from a CDN: not served
    schema = client.get("/openapi.json").json()
    assert "/docs" not in schema["paths"] and "repeat_copies" in json.dumps(schema["components"])


def test_serve_request_threads_and_the_deprecated_alias(tmp_path):
    write_corpus(tmp_path / "notes", HashEmbedder())
    text = _help("serve")
    assert "--request-threads" in text and "--threads" not in text.replace("--request-threads", "")
    result = runner.invoke(app, ["serve", str(tmp_path / "notes"), "--request-threads", "0"])
    assert result.exit_code == 2 and "`--request-threads` must be >= 1. Found 0." in _out(result)
    result = runner.invoke(app, ["serve", str(tmp_path / "notes"), "--threads", "0"])
    assert result.exit_code == 2 and "serve --threads is deprecated: it is --request-threads" in _out(result)
    assert "`--request-threads` must be >= 1. Found 0." in _out(result)


def test_query_json_on_a_corpus(tmp_path, tiny_lm, monkeypatch):
    from dpsynrag.models import Embedder, LanguageModel

    write_corpus(tmp_path / "notes", HashEmbedder())
    monkeypatch.setattr(LanguageModel, "load", classmethod(lambda cls, *a, **kw: tiny_lm))
    monkeypatch.setattr(Embedder, "load", classmethod(lambda cls, *a, **kw: HashEmbedder()))
    result = runner.invoke(app, ["query", str(tmp_path / "notes"), "fever and cough", "--json", "--top-k", "2",
                                 "--max-tokens", "3"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert set(payload) == {"question", "answer", "answer_mode", "covered", "min_similarity", "corpus", "contexts"}
    assert payload["question"] == "fever and cough" and payload["covered"] is True and payload["min_similarity"] is None
    assert payload["answer_mode"] == "generate"  # write_corpus builds no own-data corpus: the model answers
    assert len(payload["contexts"]) == 2
    assert all({"id", "text", "score", "keyword", "noisy_count", "copies"} <= set(c) and c["copies"] == 1
               for c in payload["contexts"])
    assert payload["contexts"][0]["text"] == "the patient has fever and cough"  # its words are the question's
    assert payload["contexts"][0]["score"] >= payload["contexts"][1]["score"]


def test_eval_report_marks_a_corpus_that_kept_no_text():
    from test_eval_scoring import _fake_results

    from dpsynrag.eval.report import render_markdown

    results = _fake_results()
    empty = json.loads(json.dumps(next(r for r in results["methods"] if r["method"] == "dp-synrag")))
    empty.update(label="DP-SynRAG (ε=1)", accuracy=0.1, accuracy_case_sensitive=0.05)
    empty["corpus"] = {"texts": 8, "kept": 0}
    results["methods"].append(empty)
    md = render_markdown(results)
    assert "| DP-SynRAG (ε=1) | 10 | 10.0% (no text kept) | 5.0% (no text kept) |" in md
    assert "| DP-SynRAG (ε=10) | 10 | 40.0% | 20.0% |" in md  # a corpus that kept texts is not marked
    assert ("no text kept: the corpus of DP-SynRAG (ε=1) (0 of 8) kept no synthetic text, so there was no context "
            "to retrieve and the answers came from the model alone") in md
    assert "no text kept" not in render_markdown(_fake_results())


def test_own_warnings_print_as_one_warning_line(capsys, monkeypatch):
    """A build's warnings.warn (e.g. pipeline/build.py's release warnings) reads `warning: …` on the command line,
    not Python's `…/build.py:245: UserWarning: …`; another library's warning keeps Python's form."""
    import warnings

    from dpsynrag import cli
    from dpsynrag.pipeline import build

    monkeypatch.setattr(warnings, "showwarning", warnings.showwarning)  # restored after the test
    runner.invoke(app, ["report", "/nonexistent/corpus"])  # any command: the root callback installs it
    assert warnings.showwarning is cli._show_warning
    warnings.showwarning(UserWarning("k = 30 (--k) is larger than every released keyword count [largest 5.0]"), UserWarning,
                         build.__file__, 245)
    assert capsys.readouterr().err == "warning: k = 30 (--k) is larger than every released keyword count [largest 5.0]\n"
    python_form = []
    monkeypatch.setattr(cli, "_python_showwarning", lambda *args: python_form.append(args))
    warnings.showwarning(UserWarning("from elsewhere"), UserWarning, "/elsewhere/lib.py", 3)
    warnings.showwarning(DeprecationWarning("old"), DeprecationWarning, build.__file__, 9)
    assert [(str(a[0]), a[2], a[3]) for a in python_form] == [("from elsewhere", "/elsewhere/lib.py", 3),
                                                             ("old", build.__file__, 9)]
    assert capsys.readouterr().err == ""


DP_RAG_ONLY = {"--documents": "x.jsonl", "--epsilon-per-query": "1", "--delta": "1e-3", "--total-epsilon": "5",
               "--composition": "zcdp", "--utility": "top-k", "--top-p": "0.1", "--retrieval-epsilon": "0.5", "--T": "9",
               "--public-weight": "0.1", "--task": "medical", "--text-field": "body", "--id-field": "id",
               "--max-document-tokens": "64", "--seed": "1", "--ledger": "l.sqlite", "--lifetime-epsilon": "20"}


def test_query_groups_the_dp_rag_options_and_a_corpus_query_refuses_each(tmp_path, monkeypatch):
    """`query --help` shows --method dp-rag's own options in one panel, and that panel is the list a corpus query refuses."""
    text = _help("query")
    assert re.findall(r"╭─ (.+?) ─", text) == ["Arguments", "Options", "Many questions, or a running service (corpus queries)",
                                            "DP-RAG (--method dp-rag: each query costs its epsilon)"]
    dp_rag_panel = text[text.index("╭─ DP-RAG"):]
    assert {flag for flag in DP_RAG_ONLY if re.search(rf"{re.escape(flag)}\b", dp_rag_panel)} == set(DP_RAG_ONLY)
    monkeypatch.chdir(tmp_path)
    for flag, value in DP_RAG_ONLY.items():
        result = runner.invoke(app, ["query", "corpus", "q", flag, value])
        assert result.exit_code == 2 and f"error: {flag} applies only to --method dp-rag." in _out(result), (flag, result.output)


def test_python_dash_m_runs_the_command_line():
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "dpsynrag", "--help"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "Usage: dpsynrag" in done.stdout and "build" in done.stdout
