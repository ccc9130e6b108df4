"""`dpsynrag build`, `query` and `report` on a small slice of Medical Synth with the offline models."""

import json

import pytest
from typer.testing import CliRunner

from dpsynrag.cli import app

pytestmark = pytest.mark.slow
runner = CliRunner()


@pytest.fixture(scope="module")
def slice_file(tmp_path_factory, medical_slice):
    path = tmp_path_factory.mktemp("data") / "notes.jsonl"
    with open(path, "w") as f:
        for d in medical_slice[:80]:
            f.write(json.dumps({"note_id": f"n{d.id}", "body": d.text}) + "\n")
    return path


def test_build_query_report(tmp_path, slice_file, offline_lm, offline_embedder):
    out = tmp_path / "corpus"
    args = [
        "build", str(slice_file), "--out", str(out), "--epsilon", "10", "--delta", "1e-3", "--task", "medical",
        "--text-field", "body", "--id-field", "note_id", "--K", "5", "--R", "3", "--L", "2", "--k", "10", "--T", "5",
        "--extractor", "rarity", "--max-document-tokens", "64", "--seed", "0", "--preset", "paper",
    ]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "Privacy report" in result.output and "built" in result.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["privacy"]["epsilon"] <= 10 and manifest["num_texts"] == 3
    kept = manifest["num_kept"]
    built = " ".join(result.output.split())
    assert f"{kept} of 3 synthetic texts kept" in built
    assert ("warning: no synthetic text was kept (0 of 3)" in built) == (kept == 0)
    owner = tmp_path / "corpus.owner.json"  # owner-only facts beside the folder, never inside it
    assert "corpus.owner.json" in result.output.replace("\n", "")
    assert json.loads(owner.read_text())["input_fingerprint"]["documents"] == 80
    assert "input_fingerprint" not in manifest and "timings" not in manifest

    result = runner.invoke(app, ["report", str(out), "--json"])
    assert result.exit_code == 0
    assert json.loads(result.output)["epsilon"] == pytest.approx(manifest["privacy"]["epsilon"])

    result = runner.invoke(app, ["query", str(out), "I feel dizzy. What is my disease?", "--top-k", "2"])
    if kept:
        assert result.exit_code == 0, result.output
        assert result.output.strip()
    else:  # 5-token texts: the self-filter may keep none; then query refuses to answer from the model alone
        assert result.exit_code == 2 and "keeps no synthetic text" in " ".join(result.output.split())

    # the folder exists now: a second build refuses without --overwrite
    result = runner.invoke(app, args)
    assert result.exit_code == 2 and "already exists" in result.output

    # without the self-filter every non-empty text is kept, and query answers from them (the same documents
    # again: a re-release, said and refused without --yes before anything is spent, issue 43)
    result = runner.invoke(app, [*args, "--no-self-filter", "--overwrite"])
    assert result.exit_code == 2 and "Pass --yes" in " ".join(result.output.split())
    result = runner.invoke(app, [*args, "--no-self-filter", "--overwrite", "--yes"])
    assert result.exit_code == 0, result.output
    assert json.loads((out / "manifest.json").read_text())["num_kept"] == 3
    result = runner.invoke(app, ["query", str(out), "I feel dizzy. What is my disease?", "--top-k", "2",
                                 "--show-context"])
    assert result.exit_code == 0, result.output
    assert "context [1] (similarity " in result.output and "context [2] (similarity " in result.output
    assert "answer: " in result.output and "warning" not in result.output


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--epsilon", "1"], "keyword histogram"),
        (["--epsilon", "-2"], "epsilon"),
        (["--K", "0"], "K"),
        (["--extractor", "tfidf"], "extractor"),
    ],
)
def test_build_bad_parameters_exit_2(tmp_path, slice_file, extra, message):
    base = ["build", str(slice_file), "--out", str(tmp_path / "c"), "--epsilon", "10", "--delta", "1e-3", "--task", "medical"]
    result = runner.invoke(app, base + extra)
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert not (tmp_path / "c").exists()


def test_build_missing_input_and_query_missing_corpus(tmp_path):
    result = runner.invoke(app, ["build", str(tmp_path / "nope.jsonl"), "--out", str(tmp_path / "c"), "--epsilon", "10", "--delta", "1e-3", "--task", "medical"])
    assert result.exit_code == 2 and "nope.jsonl" in result.output
    result = runner.invoke(app, ["query", str(tmp_path / "nocorpus"), "hi"])
    assert result.exit_code == 2 and "does not exist" in result.output
    (tmp_path / "notes.jsonl").write_text('{"text": "x"}\n')
    result = runner.invoke(app, ["report", str(tmp_path / "notes.jsonl")])
    assert result.exit_code == 2 and "is a file, not a corpus folder" in result.output
    (tmp_path / "somefolder").mkdir()
    result = runner.invoke(app, ["report", str(tmp_path / "somefolder")])
    assert result.exit_code == 2 and "not a corpus folder: manifest.json is missing" in " ".join(result.output.split())
