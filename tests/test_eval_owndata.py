"""Own-data evaluation from the command line (issue 41.4): `dpsynrag eval --task own` over a user's file and
question file, with its text, id and identifier fields: accuracy, context recall and leakage beyond names
(issue 42.4: a RAG answer quoting the first 12 characters of a customer's IBAN is a leak).

The models are the tiny Llama and the hash embedder; the tiny model's greedy answers are replaced by an
echo: with retrieved documents, the first 40 characters of the first one (a RAG answer that quotes its
context), without, "I do not know".
"""

import json
import re

import pytest
from typer.testing import CliRunner

from dpsynrag.cli import app
from dpsynrag.errors import ConfigError, DataError
from dpsynrag.eval import EvalConfig
from dpsynrag.tasks import OwnDataTask, Query, get_task

runner = CliRunner()
FACTS = {"fever": "the doctor has a blue skin test", "rash": "the blood test was bad"}


def _records(n: int = 24) -> list[dict]:
    out = []
    for i in range(n):
        kind = "fever" if i % 2 else "rash"
        iban = f"GB{10 + i} NWBK 2158 {1000 + i} 3456 78"
        out.append({"rid": f"r{i}", "customer": f"Ann{chr(97 + i)} Lee", "iban": iban.replace(" ", ""),
                    "message": f"{iban} the patient has {kind} and pain . {FACTS[kind]} . Support +44 20 7946 0000"})
    return out


@pytest.fixture()
def owndata(tmp_path):
    records = tmp_path / "records.jsonl"
    records.write_text("".join(json.dumps(r) + "\n" for r in _records()))
    questions = tmp_path / "questions.jsonl"
    questions.write_text(
        json.dumps({"id": "q1", "question": "the patient has fever", "answers": ["GB11 NWBK", "blue skin test"]}) + "\n"
        + json.dumps({"id": "q2", "question": "the patient has rash", "answers": "the blood test was bad"}) + "\n")
    return records, questions


@pytest.fixture()
def echo_models(monkeypatch, tiny_lm):
    from fakes import HashEmbedder

    from dpsynrag.models import Embedder, LanguageModel

    def echo(prompts, *, max_new_tokens, batch_size=None, progress=False):
        return [m.group(1) if (m := re.search(r"\[1\] (.{0,40})", p)) else "I do not know" for p in prompts]

    tiny_lm.generate_greedy = echo
    monkeypatch.setattr(LanguageModel, "load", classmethod(lambda cls, *a, **k: tiny_lm))
    monkeypatch.setattr(Embedder, "load", classmethod(lambda cls, *a, **k: HashEmbedder()))


def test_own_task_reads_fields_and_scores_whole_words(owndata):
    records, questions = owndata
    task = OwnDataTask(text_field="message", id_field="rid", identifier_fields=("customer", "iban"))
    docs = task.load_database(records)
    assert len(docs) == 24 and docs[1].id == "r1" and docs[1].identifiers == ("Annb Lee", "GB11NWBK21581001345678")
    qs = task.load_queries(questions)
    assert [q.answers for q in qs] == [("GB11 NWBK", "blue skin test"), ("the blood test was bad",)]
    q = Query("x", "fee?", ("8 EUR",))
    assert task.is_correct("It is 8 eur.", q) and not task.is_correct("It is 18 EUR.", q)
    assert get_task("own").name == "own" and get_task("own").filter_prompt is None
    with pytest.raises(DataError, match="task 'own' has no question split: give --queries FILE"):
        task.load_queries(None)


def test_own_task_reads_csv_questions(tmp_path):
    task = OwnDataTask()
    path = tmp_path / "questions.csv"
    path.write_text("question,answers\nHow long does a new card take?,5 working days | five working days\n"
                    "What is the fee?,15 EUR\n", encoding="utf-8")
    qs = task.load_queries(path)
    assert [(q.id, q.question, q.answers) for q in qs] == [
        ("0", "How long does a new card take?", ("5 working days", "five working days")),
        ("1", "What is the fee?", ("15 EUR",))]
    assert len(task.load_queries(path, limit=1)) == 1
    path.write_text("question,answer\nWhat?,x\n", encoding="utf-8")
    with pytest.raises(DataError, match="questions.csv, question row 0 \\(line 2\\): missing column 'answers'"):
        task.load_queries(path)
    path.write_text("question,answers\nWhat?, | \n", encoding="utf-8")
    with pytest.raises(DataError, match="question row 0 \\(line 2\\): answers is empty"):
        task.load_queries(path)


def test_eval_config_of_task_own(tmp_path, owndata):
    records, questions = owndata
    with pytest.raises(ConfigError, match="task 'own' evaluates your own files: give `database`"):
        EvalConfig.create(task="own", out=tmp_path / "o", database=records)
    with pytest.raises(ConfigError, match="task 'medical' reads its own format"):
        EvalConfig.create(task="medical", out=tmp_path / "o", identifier_fields=["iban"])


def test_eval_own_file_from_the_command_line(tmp_path, owndata, echo_models):
    records, questions = owndata
    out = tmp_path / "run"
    result = runner.invoke(app, [
        "eval", "--task", "own", "--database", str(records), "--queries", str(questions), "--text-field", "message",
        "--id-field", "rid", "--identifier-field", "customer", "--identifier-field", "iban",
        "--pii-allow", "+44 20 7946 0000", "--methods", "non-rag,rag,dp-synrag", "--out", str(out), "--no-plots",
        "--synrag", "R=3", "--synrag", "k=8", "--synrag", "T=4", "--synrag", "max_document_tokens=48",
        "--answer-tokens", "4", "--top-k", "1"])
    assert result.exit_code == 0, result.output
    saved = json.loads((out / "results.json").read_text())
    assert saved["data"]["documents"] == 24 and saved["data"]["identifier_fields"] == ["customer", "iban"]
    assert saved["data"]["leakage_index"]["identifier_values"] == 48 and saved["config"]["allow"] == ["+44 20 7946 0000"]
    rows = {r["method"]: r for r in saved["methods"]}
    assert "error" not in rows["dp-synrag"], rows["dp-synrag"].get("error")
    build = rows["dp-synrag"]["config"]["build"]
    assert build["R"] == 3 and build["k"] == 8 and build["redact_identifiers"] is True and build["task"] == "own"
    assert rows["non-rag"]["accuracy"] == 0.0 and rows["non-rag"]["context_recall"] is None
    nonrag = rows["non-rag"]["leakage"]["content"]["benign"]
    assert nonrag["texts_with_leak"] == 0 and nonrag["identifier_texts"] == 0
    # RAG quotes the first 40 characters of its top document: the customer's IBAN (its first 12 characters
    # and more), which is an identifier leak and a copied 8-gram of one document, never the support number
    rag = rows["rag"]["leakage"]["content"]["benign"]
    assert rag["texts"] == 2 and rag["identifier_texts"] == 2 and rag["texts_with_leak"] == 2
    assert rag["first_ids"]["identifier"] == ["q1", "q2"] and rag["pii_by_type"] == {"iban": 2, "email": 0, "card": 0, "phone": 0, "address": 0, "name": 0}
    assert rows["rag"]["context_recall"] in (0.0, 0.5, 1.0) and rows["rag"]["context_hits"] in (0, 1, 2)
    # RAG's quoted IBAN digits are in its retrieved context; Non-RAG ("I do not know") states no figure
    assert (rows["rag"]["answers_with_figures"], rows["rag"]["unsupported_figures"]) == (2, 0)
    assert (rows["non-rag"]["answers_with_figures"], rows["non-rag"]["unsupported_figures"]) == (0, 0)
    corpus = rows["dp-synrag"]["leakage"]["content"]["corpus"]
    assert corpus["texts"] == rows["dp-synrag"]["corpus"]["texts"] and corpus["identifier_texts"] == 0
    md = (out / "results.md").read_text()
    assert "## Leakage beyond names" in md and "| RAG (no DP) | 2 / 2 / 2 of 2 |" in md
    assert "leaking answers 2 of 2 (identifier 2" in result.output
    assert "GB11" not in md and "Annb" not in md  # counts and ids only


def test_eval_passes_build_fields_through(tmp_path, owndata, echo_models):
    """`--synrag FIELD=VALUE` reaches DP-SynRAG's build config (here the phrase synthesis of issue 41);
    Non-RAG and RAG come from the cache of the same --out on a second run."""
    records, questions = owndata
    out = tmp_path / "run"
    base = ["eval", "--task", "own", "--database", str(records), "--queries", str(questions), "--text-field", "message",
            "--identifier-field", "iban", "--out", str(out), "--no-plots", "--answer-tokens", "4", "--top-k", "1",
            "--synrag", "R=3", "--synrag", "k=8", "--synrag", "max_document_tokens=48"]
    first = runner.invoke(app, [*base, "--methods", "non-rag,rag"])
    assert first.exit_code == 0, first.output
    second = runner.invoke(app, [*base, "--methods", "non-rag,rag,dp-synrag", "--synrag", "synthesis=phrases",
                                 "--synrag", "phrase_max=4"])
    assert second.exit_code == 0, second.output
    saved = json.loads((out / "results.json").read_text())
    rows = {r["method"]: r for r in saved["methods"]}
    assert rows["non-rag"]["answered_now"] == 0 and rows["rag"]["answered_now"] == 0
    build = rows["dp-synrag"]["config"]["build"]
    assert build["synthesis"] == "phrases" and build["phrase_max"] == 4 and build["redact_identifiers"] is True
    bad = runner.invoke(app, [*base, "--synrag", "synthesis"])
    assert bad.exit_code == 2 and "--synrag takes FIELD=VALUE (e.g. synthesis=phrases), found 'synthesis'" in bad.output
