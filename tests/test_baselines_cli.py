"""`dpsynrag build --method dp-synth|aug-pe`, `dpsynrag report` on their folders, and
`dpsynrag query --method dp-rag` (answer + the session's privacy report); bad options exit with 2."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from dpsynrag.cli import app

runner = CliRunner()


@pytest.fixture()
def slice_file(tmp_path, medical_slice):
    path = tmp_path / "notes.jsonl"
    with open(path, "w") as f:
        for d in medical_slice[:16]:
            f.write(json.dumps({"note_id": f"n{d.id}", "body": d.text}) + "\n")
    return path


@pytest.fixture()
def preloaded(monkeypatch, offline_lm, offline_embedder):
    """The CLI loads the offline models itself; hand it the session's copies (same models, faster)."""
    from dpsynrag.models import Embedder, LanguageModel

    monkeypatch.setattr(LanguageModel, "load", classmethod(lambda cls, *a, **k: offline_lm))
    monkeypatch.setattr(Embedder, "load", classmethod(lambda cls, *a, **k: offline_embedder))


BUILD = ["--epsilon", "10", "--delta", "1e-3", "--task", "medical", "--text-field", "body", "--id-field", "note_id",
         "--T", "4", "--max-document-tokens", "48", "--seed", "0", "--preset", "paper"]


@pytest.mark.slow
def test_build_dp_synth_then_report_and_query(tmp_path, slice_file, preloaded):
    out = tmp_path / "synth"
    # no self-filter: the 135M model's YES/NO on 4-token texts may keep none, and a corpus with no kept
    # text cannot be queried (exit 2); this test is about the build -> report -> query flow
    result = runner.invoke(app, ["build", str(slice_file), "--out", str(out), "--method", "dp-synth", "--num-batches", "2",
                                 "--no-self-filter", *BUILD])
    assert result.exit_code == 0, result.output
    assert "Privacy report" in result.output and "built" in result.output
    result = runner.invoke(app, ["report", str(out)])
    assert result.exit_code == 0, result.output
    assert "method dp-synth" in result.output and "disjoint batches" in result.output
    report = json.loads(runner.invoke(app, ["report", str(out), "--json"]).output)
    assert report["epsilon"] <= 10 and report["mechanisms"][0]["num_branches"] == 2
    result = runner.invoke(app, ["query", str(out), "I feel dizzy. What is my disease?", "--top-k", "1", "--method", "dp-synth"])
    assert result.exit_code == 0, result.output
    result = runner.invoke(app, ["query", str(out), "hi", "--method", "aug-pe"])
    assert result.exit_code == 2 and "dp-synth corpus" in result.output


@pytest.mark.slow
def test_build_aug_pe_then_report(tmp_path, slice_file, preloaded):
    out = tmp_path / "pe"
    args = ["build", str(slice_file), "--out", str(out), "--method", "aug-pe", "--population-size", "2",
            "--iterations", "2", "--pe-L", "1", *BUILD]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    report = json.loads(runner.invoke(app, ["report", str(out), "--json"]).output)
    assert [m["mechanism"] for m in report["mechanisms"]] == ["discrete_gaussian", "discrete_gaussian"] and report["epsilon"] <= 10
    assert "method aug-pe" in runner.invoke(app, ["report", str(out)]).output


@pytest.mark.slow
def test_query_dp_rag_prints_answer_and_session_report(tmp_path, slice_file, preloaded):
    base = ["query", "--method", "dp-rag", "--documents", str(slice_file), "--text-field", "body", "--id-field", "note_id",
            "--epsilon-per-query", "10", "--delta", "1e-3", "--utility", "top-k", "--top-k", "3", "--T", "4",
            "--public-weight", "0", "--max-document-tokens", "48", "--seed", "0", "--ledger", str(tmp_path / "ledger")]
    result = runner.invoke(app, [*base, "I feel dizzy. What is my disease?", "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.output[result.output.index("{"):])
    assert out["spent"]["queries"] == 1 and out["spent"]["epsilon_basic"] == 10.0
    assert out["privacy"]["epsilon"] <= 10.0 and isinstance(out["answer"], str)
    result = runner.invoke(app, [*base, "I feel dizzy. What is my disease?"])
    assert result.exit_code == 0, result.output
    assert "Privacy report" in result.output and "basic composition epsilon=10" in result.output
    assert "has 2 release(s)" in " ".join(result.output.split())  # the ledger counts the earlier call
    result = runner.invoke(app, [*base, "--total-epsilon", "5", "hello?"])
    assert result.exit_code == 2 and "one query" in result.output


@pytest.mark.parametrize(
    "args, message",
    [
        (["build", "x.jsonl", "--out", "o", "--epsilon", "1", "--delta", "1e-3", "--method", "dp-synth", "--K", "3"], "--K"),
        (["build", "x.jsonl", "--out", "o", "--epsilon", "1", "--delta", "1e-3", "--method", "dp-synrag", "--num-batches", "3"], "--num-batches"),
        (["build", "x.jsonl", "--out", "o", "--epsilon", "1", "--delta", "1e-3", "--method", "aug-pe", "--num-batches", "3"], "--num-batches"),
        (["build", "x.jsonl", "--out", "o", "--epsilon", "1", "--delta", "1e-3", "--method", "magic"], "method"),
        (["build", "x.jsonl", "--out", "o", "--epsilon", "1", "--delta", "1e-3", "--method", "dp-synth", "--num-batches", "0"], "num_batches"),
        (["build", "x.jsonl", "--out", "o", "--epsilon", "0", "--delta", "1e-3", "--method", "aug-pe"], "epsilon"),
        (["query", "--method", "dp-rag", "what?"], "--documents"),
        (["query", "--method", "dp-rag", "--documents", "x.jsonl", "--epsilon-per-query", "-1", "--delta", "1e-3", "q"], "epsilon_per_query"),
        (["query", "--method", "dp-rag", "--documents", "x.jsonl", "--epsilon-per-query", "1", "--delta", "1e-3",
          "--retrieval-epsilon", "9", "q"], "retrieval"),
        (["query", "somewhere", "--method", "dp-rag", "--documents", "x.jsonl", "--epsilon-per-query", "1", "--delta", "1e-3", "q"], "corpus folder"),
        (["query", "corpus", "q", "--documents", "x.jsonl"], "applies only to --method dp-rag"),
        (["query", "--method", "dp-rag", "--documents", "missing.jsonl", "--epsilon-per-query", "1", "--delta", "1e-3", "q"], "missing.jsonl"),
        (["query", "--method", "dp-rag", "--documents", "x.jsonl", "--epsilon-per-query", "1", "--delta", "1e-3", "  "], "question is empty"),
        (["query", "corpus", ""], "question is empty"),
        (["build", "x.jsonl", "--out", "o", "--epsilon", "10", "--delta", "1e-3", "--task", "medicl", "--no-self-filter"], "unknown task"),
    ],
)
def test_bad_options_exit_2(tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert not (tmp_path / "o").exists()
