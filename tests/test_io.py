"""Tests of dpsynrag.data.io: loading JSONL/CSV/Parquet collections, error messages, atomic writing."""

from __future__ import annotations

import json
import os
import re
import warnings

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from dpsynrag.data.io import DataFileNotFoundError, Document, load_documents
from dpsynrag.data.jsonl import read_jsonl, write_jsonl_atomic
from dpsynrag.errors import ConfigError, DataError


def _write_lines(path, lines):
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    return path


def test_jsonl_default_ids_are_row_indices(tmp_path):
    path = _write_lines(tmp_path / "d.jsonl", [{"text": "alpha"}, {"text": "béta"}, {"text": "gamma"}])
    docs = load_documents(path)
    assert docs == [Document("0", "alpha"), Document("1", "béta"), Document("2", "gamma")]


def test_jsonl_id_field_is_stringified_and_limit_keeps_first_rows(tmp_path):
    path = _write_lines(tmp_path / "d.jsonl", [{"id": 7, "body": "a"}, {"id": "x", "body": "b"}, {"id": 9, "body": "c"}])
    assert load_documents(path, text_field="body", id_field="id") == [
        Document("7", "a"), Document("x", "b"), Document("9", "c")]
    assert load_documents(path, text_field="body", id_field="id", limit=2) == [Document("7", "a"), Document("x", "b")]


def test_blank_lines_are_skipped_but_counted(tmp_path):
    path = tmp_path / "d.jsonl"
    path.write_text('{"text": "a"}\n\n{"text": ""}\n', encoding="utf-8")
    with pytest.raises(DataError, match=r"line 3 \(row 1\).*'text' is empty"):
        load_documents(path)


def test_duplicate_id_names_the_id_and_both_lines(tmp_path):
    path = _write_lines(tmp_path / "d.jsonl", [{"id": "a", "text": "x"}, {"id": "b", "text": "y"}, {"id": "a", "text": "z"}])
    with pytest.raises(DataError, match=r"line 3 \(row 2\): id field 'id' repeats the id of line 1 \(row 0\)"):
        load_documents(path, id_field="id")


def test_duplicate_after_stringification(tmp_path):
    path = _write_lines(tmp_path / "d.jsonl", [{"id": 1, "text": "x"}, {"id": "1", "text": "y"}])
    with pytest.raises(DataError, match="line 2 .*repeats the id of line 1"):
        load_documents(path, id_field="id")


def test_bad_utf8_reports_line_and_byte(tmp_path):
    path = tmp_path / "d.jsonl"
    path.write_bytes(b'{"text": "ok"}\n{"text": "caf\xe9"}\n')
    with pytest.raises(DataError, match=r"line 2: invalid UTF-8 at byte 13 of the line \(byte 28 of the file\)"):
        load_documents(path)


def test_malformed_json_reports_line(tmp_path):
    path = tmp_path / "d.jsonl"
    path.write_text('{"text": "ok"}\n{"text": "unterminated}\n', encoding="utf-8")
    with pytest.raises(DataError, match=r"line 2: malformed JSON"):
        load_documents(path)


def test_non_object_line(tmp_path):
    path = tmp_path / "d.jsonl"
    path.write_text('["text"]\n', encoding="utf-8")
    with pytest.raises(DataError, match=r"line 1: each line must be a JSON object, found list"):
        load_documents(path)


def test_missing_field_names_field_available_fields_and_line(tmp_path):
    path = _write_lines(tmp_path / "d.jsonl", [{"text": "a"}, {"body": "b", "id": 3}])
    with pytest.raises(DataError) as info:
        load_documents(path)
    message = str(info.value)
    assert "line 2 (row 1)" in message and "this row lacks the field 'text' that earlier rows have" in message
    assert "its fields: body, id" in message and "name the right field" not in message


def test_non_string_and_empty_text(tmp_path):
    path = _write_lines(tmp_path / "d.jsonl", [{"text": 12}])
    with pytest.raises(DataError, match=r"line 1 \(row 0\): field 'text' must be a string, found int\.$"):
        load_documents(path)
    path = _write_lines(tmp_path / "e.jsonl", [{"text": "ok"}, {"text": "   "}])
    with pytest.raises(DataError, match=r"line 2 \(row 1\): field 'text' is empty"):
        load_documents(path)


def test_empty_file_and_missing_file(tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n\n", encoding="utf-8")
    with pytest.raises(DataError, match="no documents"):
        load_documents(empty)
    missing = tmp_path / "nope.jsonl"
    with pytest.raises(DataFileNotFoundError, match="nope.jsonl") as info:
        load_documents(missing)
    assert isinstance(info.value, DataError) and isinstance(info.value, FileNotFoundError)
    assert isinstance(info.value, ValueError)


def test_unknown_extension_and_bad_limit(tmp_path):
    path = tmp_path / "d.txt"
    path.write_text("hello", encoding="utf-8")
    with pytest.raises(DataError, match=r"unknown file extension '\.txt'.*\.jsonl.*\.csv.*\.parquet"):
        load_documents(path)
    with pytest.raises(ConfigError, match="limit"):
        load_documents(path, limit=0)


def test_json_array_file(tmp_path):
    path = tmp_path / "d.json"
    path.write_text(json.dumps([{"text": "a"}, {"text": "b"}]), encoding="utf-8")
    assert [d.text for d in load_documents(path)] == ["a", "b"]


def test_csv_round_trip_with_quotes_commas_and_newlines(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text('doc_id,text\n10,"Hello, world"\n11,"two\nlines"\n12,plain\n', encoding="utf-8")
    docs = load_documents(path, id_field="doc_id")
    assert docs == [Document("10", "Hello, world"), Document("11", "two\nlines"), Document("12", "plain")]


def test_csv_errors(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("id,body\n1,x\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"line 2 \(row 0\): missing field 'text'; available fields: id, body"):
        load_documents(path)
    path.write_text("id,text\n1,x\n1,y\n", encoding="utf-8")
    with pytest.raises(DataError, match="line 3 .*repeats the id of line 2"):
        load_documents(path, id_field="id")
    path.write_text("id,text\n1,x\n2,\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"line 3 \(row 1\): field 'text' is empty"):
        load_documents(path)
    path.write_bytes(b"id,text\n1,ok\n2,caf\xe9\n")
    with pytest.raises(DataError, match=r"line 3: invalid UTF-8 at byte 5 of the line \(byte 18 of the file\)"):
        load_documents(path)
    path.write_text("id,text\n1,x,extra\n", encoding="utf-8")
    with pytest.raises(DataError, match="line 2 .*expected 2 columns"):
        load_documents(path)
    path.write_text("id,text\n", encoding="utf-8")
    with pytest.raises(DataError, match="no documents"):
        load_documents(path)
    # an unclosed quote must not merge the following rows (other privacy units) into one document
    path.write_text('id,text\n1,first\n2,"second private\n3,third private\n4,fourth\n', encoding="utf-8")
    with pytest.raises(DataError, match=r"line 3: a quoted field .* never closed"):
        load_documents(path)
    path.write_text('id,text\n1,"a"b\n', encoding="utf-8")  # text after a closing quote
    with pytest.raises(DataError, match=r"line 2: malformed CSV"):
        load_documents(path)


def test_parquet_round_trip_and_errors(tmp_path):
    path = tmp_path / "d.parquet"
    pq.write_table(pa.table({"key": [5, 6, 7], "text": ["a", "bb", "ccc"]}), path)
    assert load_documents(path, id_field="key") == [Document("5", "a"), Document("6", "bb"), Document("7", "ccc")]
    assert load_documents(path, limit=1) == [Document("0", "a")]
    with pytest.raises(DataError, match=r"missing field 'body' \(row 0\); available fields: key, text"):
        load_documents(path, text_field="body")
    pq.write_table(pa.table({"text": ["a", None]}), path)
    with pytest.raises(DataError, match=r"row 1: field 'text' must be a string, found NoneType"):
        load_documents(path)
    pq.write_table(pa.table({"id": ["a", "a"], "text": ["x", "y"]}), path)
    with pytest.raises(DataError, match="row 1: id field 'id' repeats the id of row 0"):
        load_documents(path, id_field="id")
    path.write_bytes(b"not parquet")
    with pytest.raises(DataError, match="not a readable Parquet file"):
        load_documents(path)


def test_write_jsonl_atomic_round_trip_and_no_leftovers(tmp_path):
    path = tmp_path / "sub" / "out.jsonl"
    records = [{"id": "1", "text": "é ü"}, Document("2", "plain")]
    assert write_jsonl_atomic(path, records) == path
    assert path.read_text(encoding="utf-8") == '{"id": "1", "text": "é ü"}\n{"id": "2", "text": "plain"}\n'
    assert load_documents(path, id_field="id") == [Document("1", "é ü"), Document("2", "plain")]
    assert read_jsonl(path) == [{"id": "1", "text": "é ü"}, {"id": "2", "text": "plain"}]
    assert sorted(os.listdir(path.parent)) == ["out.jsonl"]


def test_write_jsonl_atomic_failure_keeps_old_file(tmp_path):
    path = tmp_path / "out.jsonl"
    path.write_text("old\n", encoding="utf-8")

    def records():
        yield {"a": 1}
        yield {"b": object()}  # not JSON-serialisable

    with pytest.raises(TypeError):
        write_jsonl_atomic(path, records())
    assert path.read_text(encoding="utf-8") == "old\n"
    assert os.listdir(tmp_path) == ["out.jsonl"]
    with pytest.raises(TypeError, match=r"`records`\[0\] must be a mapping"):
        write_jsonl_atomic(path, ["text"])


def test_repeated_texts_are_warned_about(tmp_path):
    from dpsynrag.data.io import as_documents

    with pytest.warns(UserWarning, match=r"^2 document\(s\) repeat the exact text"):
        docs = as_documents(["a note", "another", "a note", "a note"])
    assert [d.id for d in docs] == ["0", "1", "2", "3"]  # kept: the warning only informs the owner
    path = tmp_path / "d.jsonl"
    path.write_text('{"text": "x"}\n{"text": "y"}\n{"text": "x"}\n', encoding="utf-8")
    with pytest.warns(UserWarning, match=r"^1 document\(s\) repeat"):
        as_documents(path)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert len(as_documents(["a", "b"])) == 2


SECRET = "Jane Roe, born 1970, HIV positive"


@pytest.mark.parametrize(
    "name, content, kwargs",
    [
        ("bad_json.jsonl", '{"text": "ok"}\n{"text": "' + SECRET + '", oops}\n', {}),
        ("not_object.jsonl", '["' + SECRET + '"]\n', {}),
        ("array.json", '[{"text": "ok"}, "' + SECRET + '"]', {}),
        ("number_text.jsonl", '{"text": ["' + SECRET + '"]}\n', {}),
        ("dict_id.jsonl", '{"id": {"name": "' + SECRET + '"}, "text": "ok"}\n', {"id_field": "id"}),
        ("duplicate_id.jsonl", '{"id": "' + SECRET + '", "text": "a"}\n{"id": "' + SECRET + '", "text": "b"}\n',
         {"id_field": "id"}),
        ("bad_utf8.jsonl", '{"text": "' + SECRET.replace("HIV", "H\udcffV") + '"}\n', {}),
        ("bad_utf8.csv", 'id,text\n1,"' + SECRET.replace("HIV", "H\udcffV") + '"\n', {}),
    ],
)
def test_errors_never_quote_record_content(tmp_path, name, content, kwargs):
    """Issue 12 (7): a malformed record's error says where (line, row, field) and what rule broke, and
    never quotes the private record itself (not its text, not its id, not its bytes)."""
    path = tmp_path / name
    path.write_bytes(content.encode("utf-8", errors="surrogateescape"))
    with pytest.raises(DataError) as info:
        load_documents(path, **kwargs)
    message = str(info.value)
    assert re.search(r"line \d|row \d", message)  # it does say where
    for fragment in ("Jane", "Roe", "1970", "HIV", "\\xff", "positive"):
        assert fragment not in message, message
