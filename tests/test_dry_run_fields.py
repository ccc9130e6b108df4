"""Issue 42 (6): `build --dry-run` checks that the named fields exist, from field names only."""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from dpsynrag.cli import app
from dpsynrag.data.io import check_fields
from dpsynrag.data.readers import field_names
from dpsynrag.errors import DataError

runner = CliRunner()


@pytest.fixture()
def no_gpu_no_models(monkeypatch):
    """No CUDA (the cpu preset's machine) and no model load: a dry run without --expected-documents loads none."""
    import torch

    from dpsynrag.models import Embedder, LanguageModel

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    for cls in (LanguageModel, Embedder):
        monkeypatch.setattr(cls, "load", classmethod(lambda c, *a, **k: pytest.fail(f"{c.__name__} loaded")))
ROWS = [{"id": 1, "body": "Card blocked, call +44 20 7946 0000", "iban": "GB47 NWBK", "person": "a"},
        {"id": 2, "body": "Fee is 15 EUR", "iban": "GB11", "person": "b", "extra": "x"}]


def _write(tmp_path, kind):
    if kind == "jsonl":
        path = tmp_path / "bank.jsonl"
        path.write_text("\n".join(json.dumps(r) for r in ROWS) + "\n", encoding="utf-8")
    elif kind == "csv":
        path = tmp_path / "bank.csv"
        path.write_text("id, body,iban,person\n1,\"a, b\",GB47,a\n", encoding="utf-8")
    else:
        path = tmp_path / "bank.parquet"
        pq.write_table(pa.Table.from_pylist(ROWS[:1]), path)
    return path


@pytest.mark.parametrize("kind", ["jsonl", "csv", "parquet"])
def test_field_names_per_format(tmp_path, kind):
    assert field_names(_write(tmp_path, kind)) == ["id", "body", "iban", "person"]  # JSONL: the first row's keys
    assert check_fields(_write(tmp_path, kind), {"--text-field": "body", "--identifier-field": ("iban",),
                                                  "--id-field": None}) == ["id", "body", "iban", "person"]
    with pytest.raises(DataError, match=r"no field 'phone' \(--identifier-field\); the file's fields: id, body, iban, person"):
        check_fields(_write(tmp_path, kind), {"--text-field": "body", "--identifier-field": ("iban", "phone")})


def _dry_run(path, tmp_path, *extra):
    return runner.invoke(app, ["build", str(path), "--out", str(tmp_path / "c"), "--epsilon", "10", "--delta", "1e-3",
                               "--preset", "cpu", "--dry-run", "--ledger", str(tmp_path / "ledger"), *extra])


def test_dry_run_refuses_a_missing_field_and_names_the_flag(tmp_path, no_gpu_no_models):
    path = _write(tmp_path, "jsonl")
    result = _dry_run(path, tmp_path, "--text-field", "text")
    assert result.exit_code != 0 and "no field 'text' (--text-field)" in result.output
    assert "Card blocked" not in result.output  # names only, never a value
    result = _dry_run(path, tmp_path, "--text-field", "body", "--identifier-field", "iban",
                      "--privacy-unit-field", "customer")
    assert result.exit_code != 0 and "no field 'customer' (--privacy-unit-field)" in result.output
    result = _dry_run(path, tmp_path, "--text-field", "body", "--identifier-field", "iban", "--id-field", "id",
                      "--privacy-unit-field", "person")
    assert result.exit_code == 0, result.output
    assert "dry run: INPUT's field names checked (no document read), nothing spent, nothing written." in result.output
    assert not (tmp_path / "c").exists() and not (tmp_path / "ledger").exists()


def test_dry_run_before_the_file_exists_says_its_fields_were_not_checked(tmp_path, no_gpu_no_models):
    result = _dry_run(tmp_path / "later.jsonl", tmp_path, "--text-field", "body")
    assert result.exit_code == 0, result.output
    assert "does not exist (yet): its fields were not checked." in result.output
    assert "dry run: no data read, nothing spent, nothing written." in result.output


@pytest.mark.parametrize("content, name", [("", "empty.jsonl"), ("\n  \n", "blank.jsonl"), ("", "empty.csv")])
def test_a_file_without_rows_is_said_to_have_no_documents(tmp_path, content, name):
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    with pytest.raises(DataError, match=rf"{name}: no documents found in .* \(the file has no data rows\)"):
        check_fields(path, {"--text-field": "text"})
    (tmp_path / "first.jsonl").write_text("{}\n", encoding="utf-8")  # a row without fields is not "no rows"
    with pytest.raises(DataError, match=r"no field 'text' \(--text-field\); the file's fields: \(none\)\."):
        check_fields(tmp_path / "first.jsonl", {"--text-field": "text"})


def test_a_corrupt_parquet_file_is_one_clear_error(tmp_path):
    path = tmp_path / "bank.parquet"
    path.write_bytes(b"not parquet at all")
    with pytest.raises(DataError, match=r"bank.parquet: not a readable Parquet file"):
        field_names(path)
