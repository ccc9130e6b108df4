"""Identifier redaction: each document's own direct identifiers (``--identifier-field``) are replaced in its
text by a public placeholder before any model reads it (dpsynrag.data.redaction), from the readers to
``dpsynrag build``."""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from dpsynrag.cli import app
from dpsynrag.data.io import Document, load_documents
from dpsynrag.data.jsonl import write_jsonl_atomic
from dpsynrag.data.streaming import DocumentFile
from dpsynrag.data.redaction import DEFAULT_PLACEHOLDER, RedactedDocuments, redact_identifiers
from dpsynrag.errors import ConfigError, DataError
from dpsynrag.pipeline.config import BuildConfig
from dpsynrag.pipeline.run import BuildRun

R = DEFAULT_PLACEHOLDER


# ------------------------------------------------------------------------------------ redact_identifiers


@pytest.mark.parametrize(
    "text, identifiers, expected",
    [
        ("Jane van Dijk is ill.", ["Jane van Dijk"], f"{R} is ill."),  # the full name, once
        ("Jane said: van Dijk, Dijk.", ["Jane van Dijk"], f"{R} said: van {R}, {R}."),  # parts; "van" alone is kept
        ("de la Cruz met de Souza", ["Ana de la Cruz"], f"de la {R} met de Souza"),  # particles never alone
        ("JANE jane Jane", ["Jane Roe"], f"JANE jane {R}"),  # case-sensitive
        ("Li lives in Lisbon, near Lille; Li Wei.", ["Li Wei"], f"{R} lives in Lisbon, near Lille; {R}."),
        ("Anne and Ann, Ann2, 2Ann, Ann's", ["Ann"], f"Anne and {R}, Ann2, 2Ann, {R}'s"),  # whole words
        ("患者张伟的诊断是流感。张伟很好", ["张伟"], f"患者{R}的诊断是流感。{R}很好"),  # CJK in unspaced CJK text
        ("Bob Ray wrote to bob@x.org from 12-34", ["Bob Ray", "bob@x.org", "12-34"], f"{R} wrote to {R} from {R}"),
        ("Jane  Doe and Jane\nDoe", ["Jane Doe"], f"{R} and {R}"),  # any whitespace between a value's parts
        ("订单ORD-123456的退款", ["ORD-123456"], f"订单{R}的退款"),  # an id between CJK characters
        ("Mail ADA.LEE@Example.COM or ord-123456.", ["ada.lee@example.com", "ORD-123456"], f"Mail {R} or {R}."),
        ("Rose said: rose ROSE BAKER", ["Rose Baker"], f"{R} said: rose {R}"),  # a whole value in any capitals
        ("XORD-1 ORD-12 ORD-1", ["ORD-1"], f"XORD-1 ORD-12 {R}"),  # still whole words in spaced scripts
        ("Nothing to do for Jane.", [], "Nothing to do for Jane."),
        ("Nothing to do for Jane.", ["", "  "], "Nothing to do for Jane."),
    ],
)
def test_redact_identifiers_closed_cases(text, identifiers, expected):
    assert redact_identifiers(text, identifiers) == expected


def test_redact_identifiers_uses_the_placeholder_literally_and_longest_first():
    assert redact_identifiers("Ann Lee met Lee", ["Ann Lee"], placeholder=r"<\1 name>") == r"<\1 name> met <\1 name>"
    assert redact_identifiers("Mary Ann Smith", ["Mary Ann Smith", "Ann"], placeholder="X") == "X"


# ------------------------------------------------------------------------------------ readers


def _jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_identifiers_from_jsonl_csv_and_parquet(tmp_path):
    rows = [{"text": "a", "name": "Ann Lee", "mail": "ann@x.org"}, {"text": "b", "name": None, "mail": ""},
            {"text": "c", "name": 42, "mail": ["c@x.org", "", None, "d@x.org"]}]
    expected = [("Ann Lee", "ann@x.org"), (), ("42", "c@x.org", "d@x.org")]
    docs = load_documents(_jsonl(tmp_path / "d.jsonl", rows), identifier_fields=["name", "mail"])
    assert [d.identifiers for d in docs] == expected
    assert load_documents(tmp_path / "d.jsonl")[0] == Document("0", "a")  # not asked: none

    (tmp_path / "d.csv").write_text("text,name\na,Ann Lee\nb,\n", encoding="utf-8")
    assert [d.identifiers for d in load_documents(tmp_path / "d.csv", identifier_fields=["name"])] == [("Ann Lee",), ()]

    pq.write_table(pa.table({"text": ["a", "b"], "name": ["Ann Lee", None], "aliases": [["Annie"], []]}),
                   tmp_path / "d.parquet")
    docs = load_documents(tmp_path / "d.parquet", identifier_fields=["name", "aliases"])
    assert [d.identifiers for d in docs] == [("Ann Lee", "Annie"), ()]


def test_identifier_field_errors_name_field_and_row_never_content(tmp_path):
    path = _jsonl(tmp_path / "d.jsonl", [{"text": "a", "name": "Ann"}, {"text": "b"}])
    with pytest.raises(DataError) as info:  # the field is right (row 0 has it): the row lacks the key
        load_documents(path, identifier_fields=["name"])
    message = str(info.value)
    assert "line 2 (row 1): this row lacks the field 'name' that earlier rows have" in message
    assert 'writes "name": null (accepted' in message and "name the right field" not in message
    _jsonl(path, [{"text": "a", "name": "Ann"}, {"text": "b", "name": None}])  # null: a row without a value
    assert [d.identifiers for d in load_documents(path, identifier_fields=["name"])] == [("Ann",), ()]
    path = _jsonl(tmp_path / "f.jsonl", [{"text": "a"}])  # the first row: the field may be wrong
    with pytest.raises(DataError, match=r"row 0\): missing field 'name'.*null.*--identifier-field"):
        load_documents(path, identifier_fields=["name"])
    path = _jsonl(tmp_path / "e.jsonl", [{"text": "a", "name": {"first": "Jane Roe"}}])
    with pytest.raises(DataError, match=r"row 0\): identifier field 'name' must be a scalar.*found dict") as info:
        load_documents(path, identifier_fields=["name"])
    assert "Jane" not in str(info.value)
    pq.write_table(pa.table({"text": ["a"]}), tmp_path / "d.parquet")
    with pytest.raises(DataError, match=r"missing field 'name' \(row 0\)"):
        load_documents(tmp_path / "d.parquet", identifier_fields=["name"])


def test_identifiers_are_never_written_nor_shown(tmp_path):
    doc = Document("1", "Ann is ill", ("Ann",))
    write_jsonl_atomic(tmp_path / "out.jsonl", [doc])
    assert (tmp_path / "out.jsonl").read_text(encoding="utf-8") == '{"id": "1", "text": "Ann is ill"}\n'
    assert "identifiers" not in repr(doc)


# ------------------------------------------------------------------------------------ RedactedDocuments


def test_redacted_documents_over_a_list_and_a_document_file(tmp_path):
    docs = [Document("a", "Ann Lee is ill.", ("Ann Lee",)), Document("b", "Bo is fine.")]
    redacted = RedactedDocuments(docs, "[NAME]")
    assert len(redacted) == 2
    assert list(redacted) == list(redacted) == [Document("a", "[NAME] is ill.", ("Ann Lee",)), docs[1]]
    assert redacted[0].text == "[NAME] is ill." and redacted[-1] == docs[1]
    assert [d.text for d in redacted[:1]] == ["[NAME] is ill."]

    path = _jsonl(tmp_path / "d.jsonl", [{"text": "Ann Lee is ill.", "name": "Ann Lee"}, {"text": "Lee? Bo.", "name": "Bo"}])
    stream = RedactedDocuments(DocumentFile(path, identifier_fields=["name"]))
    assert len(stream) == 2
    assert [d.text for d in stream] == [d.text for d in stream] == [f"{R} is ill.", f"Lee? {R}."]
    with pytest.raises(TypeError):
        stream[0]  # a DocumentFile is read in a stream, not indexed


# ------------------------------------------------------------------------------------ BuildRun and config


def _config(**fields):
    return BuildConfig(epsilon=10.0, delta=1e-3, self_filter=False, **fields)


def test_build_run_reads_redacted_texts_and_fingerprints_the_input(tmp_path):
    path = _jsonl(tmp_path / "d.jsonl", [{"text": "Ann Lee has a rash.", "name": "Ann Lee"},
                                         {"text": "Bo Chen has a cough, Chen said.", "name": "Bo Chen"}])
    config = _config(redact_identifiers=True, identifier_placeholder="[P]")
    for stream in (False, True):
        run = BuildRun("dp-synrag", path, tmp_path / "c", config, identifier_fields=["name"], stream=stream,
                       plan=config.plan)
        assert [d.text for d in run.documents] == ["[P] has a rash.", "[P] has a cough, [P] said."]
        assert [d.text for d in run.input_documents][0] == "Ann Lee has a rash."  # the ledger's dataset
    config = _config()
    run = BuildRun("dp-synrag", path, tmp_path / "c", config, identifier_fields=["name"], plan=config.plan)
    assert [d.text for d in run.documents][0] == "Ann Lee has a rash."  # redaction is off by default


def test_redaction_without_any_identifier_value_warns(tmp_path):
    path = _jsonl(tmp_path / "d.jsonl", [{"text": "Ann has a rash.", "name": None}, {"text": "Bo coughs.", "name": ""}])
    config = _config(redact_identifiers=True)
    with pytest.warns(UserWarning, match="nothing is redacted"):
        BuildRun("dp-synrag", path, tmp_path / "c", config, identifier_fields=["name"], plan=config.plan)
    path = _jsonl(tmp_path / "e.jsonl", [{"text": "Ann has a rash.", "name": "Ann"}, {"text": "Bo coughs.", "name": None}])
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # one document with a value: no warning
        BuildRun("dp-synrag", path, tmp_path / "c", config, identifier_fields=["name"], plan=config.plan)


def test_redaction_of_a_file_needs_identifier_fields(tmp_path, monkeypatch):
    from dpsynrag.models import Embedder, LanguageModel

    monkeypatch.setattr(LanguageModel, "load", classmethod(lambda cls, *a, **k: pytest.fail("a model was loaded")))
    monkeypatch.setattr(Embedder, "load", classmethod(lambda cls, *a, **k: pytest.fail("a model was loaded")))
    path = _jsonl(tmp_path / "d.jsonl", [{"text": "Ann has a rash.", "name": "Ann"}])
    with pytest.raises(ConfigError, match=r"--identifier-field NAME \(identifier_fields="):
        BuildRun("dp-synrag", path, tmp_path / "c", _config(redact_identifiers=True))
    with pytest.raises(Exception, match="identifier_placeholder"):
        _config(identifier_placeholder="")


# ------------------------------------------------------------------------------------ the CLI


def test_cli_identifier_field_turns_redaction_on(tmp_path, capture):
    path = _jsonl(tmp_path / "d.jsonl", [{"text": "Ann Lee, rash; ann@x.org", "name": "Ann Lee", "mail": "ann@x.org"}])
    args = ["build", str(path), "--out", str(tmp_path / "c"), "--epsilon", "10", "--delta", "1e-3",
            "--method", capture.name, "--no-self-filter"]
    result = CliRunner().invoke(app, [*args, "--identifier-field", "name", "--identifier-field", "mail",
                                      "--identifier-placeholder", "<X>"])
    assert result.exit_code == 2 and "captured" in result.output, result.output
    config = capture.seen["config"]
    assert config.redact_identifiers and config.identifier_placeholder == "<X>"
    assert capture.seen["texts"] == ["<X>, rash; <X>"]

    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2 and not capture.seen["config"].redact_identifiers
    assert capture.seen["texts"] == ["Ann Lee, rash; ann@x.org"]

    result = CliRunner().invoke(app, [*args, "--identifier-placeholder", "<X>"])
    assert result.exit_code == 2 and "--identifier-placeholder needs --identifier-field" in " ".join(result.output.split())

    args[1] = str(tmp_path)  # a task's data folder is read with the task's identifier fields
    result = CliRunner().invoke(app, [*args, "--task", "medical", "--identifier-field", "name"])
    assert result.exit_code == 2 and "identifier fields (patient_name)" in " ".join(result.output.split())


def test_movielens_task_reads_the_pseudonym_as_identifier():
    from dpsynrag.tasks import get_task

    task = get_task("movielens")
    assert task.identifier_fields == ("pseudonym",)
    first = task.load_database(limit=1)[0]
    (pseudonym,) = first.identifiers
    assert first.text.startswith(pseudonym)
    redacted = next(iter(RedactedDocuments([first]))).text
    assert redacted.startswith(f"{R} ") and pseudonym.split()[-1] not in redacted


def test_medical_task_reads_the_patient_name_as_identifier():
    from dpsynrag.tasks import get_task

    task = get_task("medical")
    assert task.identifier_fields == ("patient_name",)
    first = task.load_database(limit=1)[0]
    assert first.identifiers == ("Achille Ketterer",)
    assert "Ketterer" not in next(iter(RedactedDocuments([first]))).text


# ------------------------------------------------------------------------------------ values however written


@pytest.mark.parametrize(
    "value, text, expected",
    [
        # IBAN: compact, groups of four, lower case, dashes
        ("GB47NWBK21580012345678", "IBAN GB47 NWBK 2158 0012 3456 78.", f"IBAN {R}."),
        ("GB47 NWBK 2158 0012 3456 78", "to gb47nwbk21580012345678 now", f"to {R} now"),
        ("GB47NWBK21580012345678", "GB47-NWBK-2158-0012-3456-78 / GB47NWBK2158", f"{R} / GB47NWBK2158"),
        # phone: international +CC / 00CC, national trunk 0, (0), spaces, dashes, dots, parentheses
        ("+44 7700 900123", "call 07700 900123 or 07700-900-123", f"call {R} or {R}"),
        ("+44 7700 900123", "(07700) 900.123; +44 (0)7700 900123; 0044 7700900123", f"{R}; {R}; {R}"),
        ("07700 900123", "call +44 7700 900 123 today", f"call {R} today"),
        ("+1 (212) 555-0199", "Phone 212.555.0199, (212) 555-0199 or +1 212 555 0199", f"Phone {R}, {R} or {R}"),
        ("+39 06 1234 5678", "Roma: 06 1234 5678", f"Roma: {R}"),  # Italy keeps its leading 0
        # e-mail: any capitals, spaces around @
        ("ada.lee@example.com", "Mail ADA.LEE@Example.COM or ada.lee @ example.com", f"Mail {R} or {R}"),
        # order numbers: separators, capitals, "#123456", "order no. 123456" (only the number replaced)
        ("ORD-123456", "ord 123456, ORD123456, #123456", f"{R}, {R}, {R}"),
        ("ORD-123456", "my order no. 123456 and Order number is 123 456", f"my order no. {R} and Order number is {R}"),
        # card numbers with other separators
        ("4111 1111 1111 1111", "card 4111-1111-1111-1111 or 4111111111111111", f"card {R} or {R}"),
    ],
)
def test_a_value_is_found_however_it_is_written(value, text, expected):
    assert redact_identifiers(text, [value]) == expected


@pytest.mark.parametrize(
    "value, text",
    [
        ("+44 7700 900123", "Support: +44 20 7946 0000, or 7700 of us, +44."),  # a phone's parts are not replaced
        ("GB47NWBK21580012345678", "Sort code NWBK 2158, bank GB47."),  # nor an IBAN's
        ("ORD-123456", "Order ORD-654321 and code 1234567 and ORD-12345"),  # other numbers, longer and shorter
        ("ada.lee@example.com", "ada.lee wrote from example.com; xada.lee@example.com.au"),  # an e-mail's parts
        ("+44 7700 900123", "ref 177009001234 and 77009001230"),  # digits glued to more digits
    ],
)
def test_a_structured_value_s_parts_are_never_replaced(value, text):
    assert redact_identifiers(text, [value]) == text


def test_value_spans_are_whole_values_only():
    from dpsynrag.data.redaction import value_spans

    text = "Northwind Bank: NORTHWIND  BANK; Northwind; +44 20 7946 0000 = 020 7946 0000"
    assert value_spans(text, ["Northwind Bank", "+44 20 7946 0000"]) == [(0, 14), (16, 31), (44, 60), (63, 76)]


def test_name_parts_inside_protected_spans_are_kept():
    from dpsynrag.data.redaction import identifier_spans

    text = "Grace Barclay banks at Barclay Bank."
    assert identifier_spans(text, ["Grace Barclay"]) == [(0, 13), (23, 30)]
    assert identifier_spans(text, ["Grace Barclay"], protected=[(23, 35)]) == [(0, 13)]
    assert identifier_spans("Barclay Bank", ["Barclay Bank"], protected=[(0, 12)]) == [(0, 12)]  # a whole value: always


def test_span_counts_from_the_first_complete_iteration(tmp_path):
    docs = [Document("a", "Ann Lee (+44 7700 900123) is ill; Lee said.", ("Ann Lee", "07700 900123")),
            Document("b", "Bo is fine."), Document("c", "Cy Ra and Cy.", ("Cy Ra",))]
    redacted = RedactedDocuments(docs)
    expected = {"documents": 3, "documents_with_spans": 2, "spans": {"IDENTIFIER": 5}}
    assert redacted.span_counts() == expected  # no pass yet: one counting pass
    again = RedactedDocuments(docs)
    first = next(iter(again))
    assert first.text == f"{R} ({R}) is ill; {R} said." and again._counts is None  # an unfinished pass counts nothing
    assert [d.text for d in again][2] == f"{R} and {R}."
    assert again.span_counts() == expected
