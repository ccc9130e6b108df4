"""``dpsynrag redact FILE --preview N``: what a build's models would read (the redacted texts of the first
documents) and the spans replaced per entity type in the whole file, on the terminal only; nothing written,
nothing spent, no model loaded. The same counts land in a build's owner-only record."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from dpsynrag.cli import app
from dpsynrag.data.redaction import DEFAULT_PLACEHOLDER

R = DEFAULT_PLACEHOLDER
ROWS = [
    {"text": "Hi, I am Sarah Jenkins, IBAN GB47 NWBK 2158 0012 3456 78. Support: +44 20 7946 0000.",
     "name": "Sarah Jenkins", "iban": "GB47NWBK21580012345678"},
    {"text": "My landlord Mr Okafor lives at 12 Rose Lane, Leeds LS1 4AB. Northwind Bank blocked my card.",
     "name": "Tom Price", "iban": ""},
    {"text": "Nothing private here, thanks.", "name": "Bo Chen", "iban": None},
]


@pytest.fixture()
def data(tmp_path, monkeypatch):
    from dpsynrag.models import Embedder, LanguageModel

    monkeypatch.setattr(LanguageModel, "load", classmethod(lambda cls, *a, **k: pytest.fail("a model was loaded")))
    monkeypatch.setattr(Embedder, "load", classmethod(lambda cls, *a, **k: pytest.fail("a model was loaded")))
    path = tmp_path / "d.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    return path


def _run(*args):
    return CliRunner().invoke(app, ["redact", *map(str, args)], env={"COLUMNS": "200"})


def _counts(output: str) -> dict[str, int]:
    rows = [line.replace("│", " ").split() for line in output.splitlines() if line.startswith("│")]
    return {row[0]: int(row[1]) for row in rows if len(row) == 2 and row[1].isdigit()}


def test_preview_prints_the_redacted_texts_and_the_counts(data, tmp_path):
    before = sorted(p.name for p in tmp_path.iterdir())
    result = _run(data, "--identifier-field", "name", "--identifier-field", "iban", "--redact-pii",
                  "--pii-allow", "+44 20 7946 0000", "--pii-allow", "Northwind Bank", "--preview", "2")
    assert result.exit_code == 0, result.output
    out = " ".join(result.output.split())
    assert f"Hi, I am {R}, IBAN {R}. Support: +44 20 7946 0000." in out
    assert f"My landlord Mr {R} lives at {R}. Northwind Bank blocked my card." in out
    assert "document 0" in out and "document 1" in out and "document 2" not in out  # the first 2 only
    assert "Nothing private here" not in out
    # the whole file: the name and IBAN by the identifier pass (the PII pass finds both too), the landlord,
    # the address
    assert _counts(result.output) == {"ADDRESS": 1, "IBAN_CODE": 1, "IDENTIFIER": 2, "PERSON": 2}
    assert "2 of 3 documents held a span." in out
    assert "nothing written, nothing spent" in out
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing written


def test_counts_only_and_identifiers_only(data):
    result = _run(data, "--identifier-field", "name", "--preview", "0", "--identifier-placeholder", "<X>",
                  "--top", "0", "--examples", "0")
    assert result.exit_code == 0, result.output
    assert "Sarah" not in result.output and "document 0" not in result.output  # no private string at all
    assert "Most often redacted" not in result.output and "«" not in result.output
    assert _counts(result.output) == {"IDENTIFIER": 1}
    assert "1 of 3 documents held a span." in result.output
    # left: the IBAN's digits (no PII pass), counted
    assert ["digit runs (6 or more digits)", "1", "2"] in _rows(result.output, "Left after redaction")
    top = _run(data, "--identifier-field", "name", "--preview", "0", "--identifier-placeholder", "<X>")
    assert _rows(top.output, "Most often redacted") == [["Sarah Jenkins", "IDENTIFIER", "1", "1"]]


def test_allow_file_and_entities(data, tmp_path):
    allow = tmp_path / "allow.txt"
    allow.write_text("Northwind Bank\n\n020 7946 0000\n", encoding="utf-8")
    result = _run(data, "--redact-pii", "--pii-entities", "PHONE_NUMBER,address", "--pii-allow-file", allow,
                  "--preview", "3")
    assert result.exit_code == 0, result.output
    assert "Hi, I am Sarah Jenkins, IBAN GB47 NWBK 2158 0012 3456 78. Support: +44 20 7946 0000." in result.output
    assert f"My landlord Mr Okafor lives at {R}. Northwind Bank" in result.output
    assert _counts(result.output) == {"ADDRESS": 1}


@pytest.mark.parametrize(
    "args, message",
    [
        ([], "nothing to redact: pass --identifier-field NAME and/or --redact-pii"),
        (["--pii-allow", "X", "--identifier-field", "name"], "--pii-allow needs --redact-pii"),
        (["--pii-model", "x"], "--pii-model needs --redact-pii"),
        (["--redact-pii", "--pii-entities", "NAMES"], "--pii-entities: NAMES; choose among"),
        (["--redact-pii", "--pii-entities", "LOCATION", "--pii-model", "none"], "LOCATION needs a named-entity model"),
        (["--identifier-field", "mail"], "missing field 'mail'"),
        (["--identifier-placeholder", "<X>"], "--identifier-placeholder needs --identifier-field"),
        (["--redact-pii", "--pii-model", "no-such-pipeline"], "not an installed spaCy pipeline"),
        (["--identifier-field", "name", "--preview", "-1"], "--preview"),
        (["--identifier-field", "name", "--top", "-1"], "--top"),
        (["--identifier-field", "name", "--examples", "-2"], "--examples"),
        (["--identifier-field", "name", "--out", "no/such/folder/r.txt"], "no folder"),
        (["--redact-pii", "--pii-allow", ""], "--pii-allow is empty (an unset shell variable?)"),
    ],
)
def test_refusals_name_the_flag(data, args, message):
    result = _run(data, *args)
    assert result.exit_code == 2 and message in " ".join(result.output.split()), result.output
    assert "Sarah" not in result.output  # no private text in an error


def test_help_and_build_share_the_options():
    for command in ("redact", "build"):
        text = " ".join(CliRunner().invoke(app, [command, "--help"], env={"COLUMNS": "200"}).output
                        .replace("│", " ").split())
        for flag in ("--identifier-field", "--redact-pii", "--pii-entities", "--pii-allow", "--pii-allow-file",
                     "--pii-model", "--identifier-placeholder", "--text-field", "--max-document-tokens"):
            assert flag in text, (command, flag)
        assert "pip install 'dpsynrag[pii]'" in text, command


def test_build_passes_the_pii_options_to_the_config(data, tmp_path, capture):
    result = CliRunner().invoke(app, ["build", str(data), "--out", str(tmp_path / "c"), "--epsilon", "10",
                                      "--delta", "1e-3", "--method", capture.name, "--no-self-filter",
                                      "--redact-pii", "--pii-entities", "PERSON,IBAN_CODE", "--pii-allow",
                                      "Northwind Bank", "--identifier-field", "iban", "--pii-model", "none"])
    assert result.exit_code == 2 and "captured" in result.output, result.output
    config = capture.seen["config"]
    assert config.pii_entities == ("PERSON", "IBAN_CODE") and config.pii_allow == ("Northwind Bank",)
    assert capture.seen["texts"][:2] == [f"Hi, I am {R}, IBAN {R}. Support: +44 20 7946 0000.",
                                         "My landlord Mr [REDACTED] lives at 12 Rose Lane, Leeds LS1 4AB. "
                                         "Northwind Bank blocked my card."]


LONG_LINE = " ".join(["word"] * 40)[:200].strip() + "."  # one line of about 200 characters
REVIEW_ROWS = [
    {"text": "I love my Veltrix Nuvola plan, and Veltrix Nuvola loves me.", "name": "Tom Price"},
    {"text": "Tom Price here: the Veltrix Nuvola phone with IMEI 35 209900 176148 1 is blocked.", "name": "Tom Price"},
    {"text": "Please unblock IMEI 352099001761481 on my Veltrix Nuvola today.", "name": "Ann Lee"},
    {"text": f"Nothing private.\n{LONG_LINE}\nThanks.", "name": "Bo Chen"},
]
REVIEW_ARGS = ["--identifier-field", "name", "--redact-pii", "--pii-entities", "PERSON", "--top", "3",
               "--examples", "1", "--preview", "4"]


@pytest.fixture()
def review_data(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in REVIEW_ROWS), encoding="utf-8")
    return path


def _rows(output: str, title: str) -> list[list[str]]:
    """The cells of the rows of the table titled ``title`` (the lines up to the table's bottom border)."""
    lines = output.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(title))
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("└"))
    return [[c.strip() for c in line.strip("│").split("│")] for line in lines[start:end] if line.startswith("│")]


def test_the_review_lists_the_top_strings_and_what_was_left(review_data):
    result = _run(review_data, *REVIEW_ARGS)
    assert result.exit_code == 0, result.output
    out = result.output
    # the product name that the name rules take for a person: its exact string and counts, first
    top = _rows(out, "Most often redacted (owner-only: private strings of your file; do not publish)")
    assert top == [["Veltrix Nuvola", "PERSON", "4", "3"],  # one place found by both passes: 1 span, both types
                   ["Tom Price", "IDENTIFIER, PERSON", "1", "1"]]
    # the IMEI left in two documents, whichever way it is written
    residue = _rows(out, "Left after redaction (owner-only: private strings of your file; do not publish)")
    assert residue == [["digit runs (6 or more digits)", "2", "2"],
                       ["name-like pairs (capitalised, not frequent words)", "0", "0"]]
    assert "digit runs (6 or more digits): examples from 1 of 2 documents" in out
    assert f"  1: …here: the {R} phone with IMEI «35 209900 176148 1» is blocked." in out.splitlines()
    # not a terminal: nothing wrapped, the 200-character line of a document is one line
    assert LONG_LINE in out.splitlines()
    assert max(len(line) for line in out.splitlines() if line.startswith("─")) == 100  # rules: 100 columns


def test_json_holds_what_is_printed(review_data):
    printed = _run(review_data, *REVIEW_ARGS)
    result = _run(review_data, *REVIEW_ARGS, "--json")
    assert result.exit_code == 0, result.output
    record = json.loads(result.output)
    assert record["owner_only"] == "owner-only: private strings of your file; do not publish"
    assert [d["id"] for d in record["preview"]] == ["0", "1", "2", "3"] and record["preview"][3]["text"].endswith("Thanks.")
    assert (record["documents"], record["documents_with_spans"]) == (4, 3)
    assert _counts(printed.output) == record["spans"] == {"IDENTIFIER": 1, "PERSON": 5}
    top = _rows(printed.output, "Most often redacted")
    assert top == [[t["string"], ", ".join(t["entities"]), str(t["spans"]), str(t["documents"])]
                   for t in record["top_strings"]]
    residue = _rows(printed.output, "Left after redaction")
    assert [[r[1], r[2]] for r in residue] == [[str(v["documents"]), str(v["matches"])]
                                               for v in record["residue"].values()]
    assert record["residue"]["digit_run"]["examples"] == [
        {"document": "1", "match": "35 209900 176148 1",
         "snippet": f"…here: the {R} phone with IMEI «35 209900 176148 1» is blocked."}]
    assert record["max_document_tokens"] == 256 and record["count_error"] == 0


def test_out_writes_the_file_only_and_never_into_a_corpus_folder(review_data, tmp_path):
    corpus = tmp_path / "corpus"
    (corpus / "sub").mkdir(parents=True)
    (corpus / "manifest.json").write_text("{}", encoding="utf-8")
    for target in (corpus / "review.txt", corpus / "sub" / "review.json"):
        result = _run(review_data, *REVIEW_ARGS, "--out", target)
        assert result.exit_code == 2 and "holds a manifest.json (a corpus folder)" in result.output, result.output
        assert not target.exists() and "Veltrix" not in result.output
    result = _run(review_data, *REVIEW_ARGS, "--out", review_data)
    assert result.exit_code == 2 and "is INPUT itself" in result.output
    assert json.loads(review_data.read_text(encoding="utf-8").splitlines()[0]) == REVIEW_ROWS[0]
    target = tmp_path / "review.json"
    result = _run(review_data, *REVIEW_ARGS, "--json", "--out", target)
    assert result.exit_code == 0, result.output
    assert "Veltrix" not in result.output and "Written to" in result.output  # stdout: where it went, no string
    assert json.loads(target.read_text(encoding="utf-8")) == json.loads(_run(review_data, *REVIEW_ARGS, "--json").output)
    assert target.stat().st_mode & 0o777 == 0o600  # private strings: for the owner alone
    text = tmp_path / "review.txt"
    assert _run(review_data, *REVIEW_ARGS, "--out", text).exit_code == 0
    written = text.read_text(encoding="utf-8")
    assert "Veltrix Nuvola" in written and LONG_LINE in written.splitlines() and "written to" in written


def test_output_console_wraps_nothing_off_a_terminal():
    import io

    from rich.table import Table

    from dpsynrag.commands.common import output_console

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    table = Table(title="t")
    table.add_column("cell")
    table.add_row("x" * 300)
    pipe = io.StringIO()
    console = output_console(pipe)
    console.print(table)
    console.print("y" * 500)
    console.rule("r")
    lines = pipe.getvalue().splitlines()
    assert any("x" * 300 in line for line in lines) and "y" * 500 in lines and len(lines[-1]) == 100
    terminal = Terminal()
    output_console(terminal).print("y" * 500)  # a terminal: rich's own wrapping at its width
    assert "y" * 500 not in terminal.getvalue().splitlines()


def test_private_strings_are_printed_as_written_not_as_markup(tmp_path):
    path = tmp_path / "m.jsonl"
    path.write_text(json.dumps({"id": "[/red]7", "text": "Ring [/red]Zed[b] now.", "name": "[/red]Zed[b]"}) + "\n",
                    encoding="utf-8")
    result = _run(path, "--id-field", "id", "--identifier-field", "name", "--preview", "1")
    assert result.exit_code == 0, result.output
    assert "document [/red]7" in result.output and f"Ring {R} now." in result.output
    assert _rows(result.output, "Most often redacted") == [["[/red]Zed[b]", "IDENTIFIER", "1", "1"]]
