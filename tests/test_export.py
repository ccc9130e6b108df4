"""`dpsynrag export` (Parquet, JSON Lines) and loading a corpus into a Hugging Face `datasets.Dataset`."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest
from fakes import HashEmbedder
from servers import TEXTS, write_corpus
from typer.testing import CliRunner

from dpsynrag.cli import app
from dpsynrag.corpus.export import corpus_rows, to_dataset

runner = CliRunner()
KEPT = [True, False, True, True, False, True]


@pytest.fixture()
def folder(tmp_path):
    write_corpus(tmp_path / "notes", HashEmbedder(), kept=KEPT)
    return tmp_path / "notes"


def _expected(include_rejected):
    return [{"id": 10 + i, "text": t, "kept": k, "keyword": t.split()[-1], "noisy_count": 5 + i}
            for i, (t, k) in enumerate(zip(TEXTS, KEPT)) if k or include_rejected]


@pytest.mark.parametrize("include_rejected", [False, True])
def test_export_parquet_and_jsonl(folder, tmp_path, include_rejected):
    extra = ["--include-rejected"] if include_rejected else []
    want = _expected(include_rejected)
    result = runner.invoke(app, ["export", str(folder), "--format", "parquet", "--out", str(tmp_path / "t.parquet"), *extra])
    assert result.exit_code == 0, result.output
    assert f"wrote {len(want)} texts" in result.output
    table = pq.read_table(tmp_path / "t.parquet")
    assert table.column_names == ["id", "text", "kept", "keyword", "noisy_count"]
    assert table.to_pylist() == want
    manifest = json.loads(table.schema.metadata[b"dpsynrag.manifest"])
    assert manifest == json.loads((folder / "manifest.json").read_text())

    result = runner.invoke(app, ["export", str(folder), "--format", "jsonl", "--out", str(tmp_path / "t.jsonl"), *extra])
    assert result.exit_code == 0, result.output
    assert [json.loads(line) for line in (tmp_path / "t.jsonl").read_text().splitlines()] == want
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes", "t.jsonl", "t.parquet"]  # no partial file left


def test_export_errors(folder, tmp_path):
    out = tmp_path / "t.jsonl"
    assert runner.invoke(app, ["export", str(folder), "--format", "jsonl", "--out", str(out)]).exit_code == 0
    result = runner.invoke(app, ["export", str(folder), "--format", "jsonl", "--out", str(out)])
    assert result.exit_code == 2 and "already exists" in result.output
    assert runner.invoke(app, ["export", str(folder), "--format", "jsonl", "--out", str(out), "--overwrite"]).exit_code == 0
    result = runner.invoke(app, ["export", str(folder), "--format", "csv", "--out", str(tmp_path / "t.csv")])
    assert result.exit_code == 2 and "--format" in result.output
    result = runner.invoke(app, ["export", str(tmp_path / "none"), "--out", str(tmp_path / "x.parquet")])
    assert result.exit_code == 2 and "does not exist" in result.output
    result = runner.invoke(app, ["export", str(folder), "--out", str(tmp_path)])
    assert result.exit_code == 2 and "is a folder" in result.output


def test_to_dataset(folder):
    import datasets

    ds = to_dataset(folder)
    assert isinstance(ds, datasets.Dataset) and ds.num_rows == sum(KEPT)
    assert ds.column_names == ["id", "text", "kept", "keyword", "noisy_count"]
    assert ds.to_list() == _expected(False)
    assert to_dataset(folder, include_rejected=True)["id"] == [10 + i for i in range(len(TEXTS))]
    assert corpus_rows(folder) == _expected(False)
