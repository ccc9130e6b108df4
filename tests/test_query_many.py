"""Issue 43 (1): questions at conversation speed. `dpsynrag query --questions FILE` and `--interactive`
load the models once and answer every question (JSON lines: question, answer, covered, contexts with ids
and scores), the same answers as one `query` each; `query --server URL` asks a running `dpsynrag serve`
and loads nothing."""

from __future__ import annotations

import json

import pytest
from fakes import HashEmbedder
from servers import LoopbackServer, write_corpus
from typer.testing import CliRunner

from dpsynrag.cli import app
from dpsynrag.rag import NOT_COVERED
from dpsynrag.serve import CorpusService, create_app

runner = CliRunner()
QUESTIONS = ["the patient has fever", "a rash on the skin", "blood test of the heart"]


@pytest.fixture()
def corpus(tmp_path):
    write_corpus(tmp_path / "notes", HashEmbedder())
    return tmp_path / "notes"


@pytest.fixture()
def loads(monkeypatch, tiny_lm):
    """The models a query loads: each load recorded in ``loads``."""
    from dpsynrag.models import Embedder, LanguageModel

    calls = []
    monkeypatch.setattr(LanguageModel, "load", classmethod(lambda cls, *a, **k: calls.append("lm") or tiny_lm))
    monkeypatch.setattr(Embedder, "load", classmethod(lambda cls, *a, **k: calls.append("embedder") or HashEmbedder()))
    return calls


def _records(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _one(corpus, question: str, *flags) -> dict:
    result = runner.invoke(app, ["query", str(corpus), question, "--json", *flags])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_a_questions_file_loads_the_models_once_and_answers_each_as_a_single_query(tmp_path, corpus, loads):
    singles = [_one(corpus, q, "--top-k", "2") for q in QUESTIONS]
    assert loads == ["embedder", "lm"] * 3  # one query: both models, each time
    loads.clear()
    path = tmp_path / "questions.txt"
    path.write_text("\n".join([QUESTIONS[0], "", f"  {QUESTIONS[1]}  ", QUESTIONS[2]]) + "\n")  # blank lines skipped
    result = runner.invoke(app, ["query", str(corpus), "--questions", str(path), "--top-k", "2"])
    assert result.exit_code == 0, result.output
    assert loads == ["embedder", "lm"]  # once for the three
    records = _records(result.stdout)
    assert records == singles  # the same answers, contexts, ids and scores as one query each
    assert [r["question"] for r in records] == QUESTIONS
    for r in records:
        assert r["covered"] and r["answer"] and r["min_similarity"] is None and len(r["contexts"]) == 2
        assert all(c["given"] and {"id", "score", "text", "copies"} <= set(c) for c in r["contexts"])
        assert r["contexts"][0]["score"] >= r["contexts"][1]["score"]
    assert records[0]["contexts"][0]["text"] == "the patient has fever and cough"
    assert "answered 3 of 3 questions (" in result.stderr and "s per question)" in result.stderr


def test_json_lines_questions_to_an_out_file_with_a_floor(tmp_path, corpus, loads):
    path = tmp_path / "questions.jsonl"
    path.write_text("".join(json.dumps({"id": i, "question": q}) + "\n" for i, q in enumerate(
        ["the patient has fever and cough", "quantum chromodynamics lattice"])))
    out = tmp_path / "answers.jsonl"
    result = runner.invoke(app, ["query", str(corpus), "--questions", str(path), "--out", str(out),
                                 "--min-similarity", "0.9"])
    assert result.exit_code == 0, result.output
    assert result.stdout == "" and f"written to {out}" in " ".join(result.stderr.split())
    covered, missed = _records(out.read_text())
    assert covered["covered"] and covered["contexts"][0]["score"] == pytest.approx(1.0, abs=1e-6)
    assert [c["given"] for c in covered["contexts"]] == [c["score"] >= 0.9 for c in covered["contexts"]]
    assert covered == _one(corpus, "the patient has fever and cough", "--min-similarity", "0.9") | {"corpus": str(corpus)}
    assert not missed["covered"] and missed["answer"] == NOT_COVERED
    assert missed["contexts"] and not any(c["given"] for c in missed["contexts"])


@pytest.mark.parametrize("name, content, message", [
    ("q.jsonl", b"", "holds no question"),
    ("q.jsonl", b'{"question": "fever?"}\nnot json\n', "line 2: not a JSON object with a non-empty string `question`"),
    ("q.jsonl", b'{"question": "  "}\n', "line 1: not a JSON object"),
    ("q.txt", b"fever?\nr\xe9sum\xe9\n", "line 2 is not UTF-8 (byte 0xe9); re-encode the file as UTF-8"),
    ("q.csv", b"query,answers\nfever?,x\n", "a CSV file needs a header with a `question` column (found query, answers)"),
    ("q.csv", b"question,answers\nfever?,x\n,y\n", "line 3: an empty `question`"),
])
def test_a_bad_questions_file_is_refused_before_any_model_loads(tmp_path, corpus, loads, name, content, message):
    path = tmp_path / name
    path.write_bytes(content)
    result = runner.invoke(app, ["query", str(corpus), "--questions", str(path)])
    assert result.exit_code == 2 and message in " ".join(result.output.split()), result.output
    assert loads == []


def test_a_csv_questions_file_is_read_by_its_question_column(tmp_path):
    from dpsynrag.commands.questions import read_questions

    path = tmp_path / "q.csv"
    path.write_bytes('\ufeffquestion,answers\n"What is the API limit, per minute?",600 requests\nfever?,x\n'.encode())
    assert read_questions(str(path)) == ["What is the API limit, per minute?", "fever?"]  # header, BOM, answers: not questions


@pytest.mark.parametrize("args, message", [
    (["Q?", "--questions", "q.txt"], "give a QUESTION or --questions, not both"),
    (["--questions", "q.txt", "--interactive"], "--questions and --interactive both say where the questions come from"),
    (["Q?", "--out", "a.jsonl"], "--out applies to --questions and --interactive"),
    (["--questions", "q.txt", "--out", "q.txt"], "--out is the --questions file"),
    (["Q?", "--server", "http://127.0.0.1:9", "--model", "m"], "--model does not apply to --server"),
])
def test_conflicting_options_are_refused(tmp_path, corpus, loads, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "q.txt").write_text("fever?\n")
    result = runner.invoke(app, ["query", str(corpus), *args])
    assert result.exit_code == 2 and message in " ".join(result.output.split()), result.output
    assert loads == []


def test_dp_rag_refuses_many_questions_and_a_server():
    result = runner.invoke(app, ["query", "--method", "dp-rag", "Q?", "--questions", "q.txt", "--server", "http://x"])
    assert result.exit_code == 2
    assert "--questions, --server do not apply to --method dp-rag" in " ".join(result.output.split())


def test_interactive_answers_each_line_until_an_empty_one(tmp_path, corpus, loads):
    out = tmp_path / "session.jsonl"
    result = runner.invoke(app, ["query", str(corpus), "--interactive", "--show-context", "--top-k", "1", "--out",
                                 str(out)], input=f"{QUESTIONS[0]}\n{QUESTIONS[1]}\n\nnever asked\n")
    assert result.exit_code == 0, result.output
    assert loads == ["embedder", "lm"]
    assert result.stdout.count("answer: ") == 2 and result.stdout.count("context [1] (similarity ") == 2
    assert "context [1] (similarity 0." in result.stdout and "the patient has fever and cough" in result.stdout
    assert "ready in " in result.stderr and result.stderr.count("question> ") == 3
    assert [r["question"] for r in _records(out.read_text())] == QUESTIONS[:2]
    result = runner.invoke(app, ["query", str(corpus), "-i", "--json"], input=f"{QUESTIONS[2]}\n")  # ends at EOF
    assert result.exit_code == 0, result.output
    (record,) = _records(result.stdout)
    assert record == _one(corpus, QUESTIONS[2])


def test_server_answers_as_the_local_query_and_loads_nothing(tmp_path, corpus, tiny_lm, monkeypatch):
    local = {}
    from dpsynrag.models import Embedder, LanguageModel

    monkeypatch.setattr(LanguageModel, "load", classmethod(lambda cls, *a, **k: tiny_lm))
    monkeypatch.setattr(Embedder, "load", classmethod(lambda cls, *a, **k: HashEmbedder()))
    for q in QUESTIONS:
        local[q] = _one(corpus, q, "--top-k", "2", "--max-tokens", "5")
    service = CorpusService.load([corpus], lm=tiny_lm, embedder=HashEmbedder())
    monkeypatch.setattr(LanguageModel, "load", classmethod(lambda cls, *a, **k: pytest.fail("a model was loaded")))
    monkeypatch.setattr(Embedder, "load", classmethod(lambda cls, *a, **k: pytest.fail("a model was loaded")))
    path = tmp_path / "q.txt"
    path.write_text("\n".join(QUESTIONS) + "\n")
    with LoopbackServer(create_app(service)) as url:
        result = runner.invoke(app, ["query", "--server", url, "--questions", str(path), "--top-k", "2",
                                     "--max-tokens", "5"])
        assert result.exit_code == 0, result.output
        for record in _records(result.stdout):
            mine = local[record["question"]]
            assert record["answer"] == mine["answer"] and record["covered"] and record["corpus"] == url
            assert [c["id"] for c in record["contexts"]] == [c["id"] for c in mine["contexts"]]
            assert [c["score"] for c in record["contexts"]] == pytest.approx([c["score"] for c in mine["contexts"]],
                                                                             abs=1e-5)
        # one question (the only positional argument), the corpus named by its folder, and a floor
        result = runner.invoke(app, ["query", "--server", url, QUESTIONS[0], "--top-k", "2", "--max-tokens", "5"])
        assert result.exit_code == 0 and result.stdout.strip() == local[QUESTIONS[0]]["answer"]
        result = runner.invoke(app, ["query", str(corpus), "quantum chromodynamics lattice", "--server", url,
                                     "--min-similarity", "0.9", "--json"])
        assert result.exit_code == 0, result.output
        record = json.loads(result.stdout)
        assert record["answer"] == NOT_COVERED and not record["covered"] and record["corpus"] == "notes"
        assert record["contexts"] and not any(c["given"] for c in record["contexts"])
        result = runner.invoke(app, ["query", "--server", url, "the patient has fever and cough", "--min-similarity",
                                     "0.9", "--json", "--top-k", "3"])
        record = json.loads(result.stdout)
        given = [c for c in record["contexts"] if c["given"]]
        assert record["covered"] and given and all(c["score"] >= 0.9 for c in given)
        assert len(record["contexts"]) == 3 and all(c["score"] < 0.9 for c in record["contexts"][len(given):])


def test_server_that_only_retrieves_or_is_down_is_said(tmp_path, corpus):
    service = CorpusService.load([corpus], embedder=HashEmbedder(), retrieval_only=True)
    with LoopbackServer(create_app(service)) as url:
        result = runner.invoke(app, ["query", "--server", url, "fever?"])
    assert result.exit_code == 2
    out = " ".join(result.output.split())
    assert f"the dpsynrag service {url} answered HTTP 501" in out and "retrieval-only" in out
    result = runner.invoke(app, ["query", "--server", url, "fever?"])  # stopped now
    assert result.exit_code == 2 and f"cannot reach the dpsynrag service {url}" in " ".join(result.output.split())
