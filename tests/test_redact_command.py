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
    result = _run(data, "--identifier-field", "name", "--preview", "0", "--identifier-placeholder", "<X>")
    assert result.exit_code == 0, result.output
    assert "Sarah" not in result.output and "document 0" not in result.output
    assert _counts(result.output) == {"IDENTIFIER": 1}
    assert "1 of 3 documents held a span." in result.output


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
        (["--redact-pii", "--pii-entities", "LOCATION"], "LOCATION needs --pii-model"),
        (["--identifier-field", "mail"], "missing field 'mail'"),
        (["--identifier-placeholder", "<X>"], "--identifier-placeholder needs --identifier-field"),
        (["--redact-pii", "--pii-model", "no-such-pipeline"], "not an installed spaCy pipeline"),
        (["--identifier-field", "name", "--preview", "-1"], "--preview"),
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
                                      "Northwind Bank", "--identifier-field", "iban"])
    assert result.exit_code == 2 and "captured" in result.output, result.output
    config = capture.seen["config"]
    assert config.pii_entities == ("PERSON", "IBAN_CODE") and config.pii_allow == ("Northwind Bank",)
    assert capture.seen["texts"][:2] == [f"Hi, I am {R}, IBAN {R}. Support: +44 20 7946 0000.",
                                         "My landlord Mr [REDACTED] lives at 12 Rose Lane, Leeds LS1 4AB. "
                                         "Northwind Bank blocked my card."]
