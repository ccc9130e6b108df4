"""Scoring of the evaluation harness on hand-made cases (no model): accuracy (case-sensitive and not),
support buckets, full-name leak matching, aggregation, configuration errors, the report renderer."""

import json
import time

import pytest
from typer.testing import CliRunner

from dpsynrag.cli import app
from dpsynrag.data.io import Document
from dpsynrag.errors import ConfigError, DataError
from dpsynrag.eval import (
    EvalConfig,
    NameMatcher,
    accuracy_summary,
    bucket_accuracy,
    context_hits,
    context_recall,
    expand_methods,
    leakage_summary,
    querier_name,
    render_markdown,
    score_queries,
    write_report,
)
from dpsynrag.eval.cache import AnswerCache
from dpsynrag.eval.experiments import zcdp_epsilon_per_query
from dpsynrag.eval.scoring import QueryScore, constant_answer_reference
from dpsynrag.privacy.conversions import epsilon_from_rho, rho_from_epsilon
from dpsynrag.tasks import MedicalTask, Query


def _doc(i: int, name: str, disease: str) -> Document:
    return Document(id=str(i), text=f"Given the symptoms (Fever, Cough) of {name}. The diagnosis is {disease}, "
                                    "the treatment should be Giggle Drops.")


def _query(qid: str, disease: str, name: str | None = None) -> Query:
    meta = {"disease": disease}
    if name:
        meta["patient_name"] = name
    return Query(id=qid, question=f"I am {name or 'someone'}. What is my disease?", answers=(disease,), meta=meta)


# ------------------------------------------------------------------------------------------ accuracy


def test_case_sensitive_and_insensitive_match():
    task = MedicalTask()
    queries = [_query("a", "Flibberflamosis"), _query("b", "Flibberflamosis"), _query("c", "Snurfluxias")]
    answers = ["You have Flibberflamosis.", "probably flibberflamosis", "It is the flu."]
    scores = score_queries(task, queries, answers)
    assert [s.correct for s in scores] == [True, True, False]
    assert [s.correct_case_sensitive for s in scores] == [True, False, False]
    summary = accuracy_summary(scores)
    assert summary == {"n": 3, "correct": 2, "correct_case_sensitive": 1,
                       "accuracy": pytest.approx(2 / 3), "accuracy_case_sensitive": pytest.approx(1 / 3)}


def test_the_oracle_constant_is_the_most_frequent_gold_answer_scored_by_the_task():
    """Issue 53: on MovieLens one title answers as many questions as RAG; the reference line is the most
    frequent gold answer of the question set, given to every question."""
    task = MedicalTask()
    queries = [_query("a", "Snurfluxias"), _query("b", "Flibberflamosis"), _query("c", "Flibberflamosis"),
               _query("d", "Snurfluxias"), _query("e", "Blergonia")]
    ref = constant_answer_reference(task, queries)  # a tie (2 and 2): the alphabetically first
    assert ref == {"answer": "Flibberflamosis", "count": 2, "n": 5, "correct": 2, "correct_case_sensitive": 2,
                   "accuracy": pytest.approx(0.4), "accuracy_case_sensitive": pytest.approx(0.4)}
    assert constant_answer_reference(task, queries[:4] + [_query("f", "Snurfluxias")])["answer"] == "Snurfluxias"
    assert constant_answer_reference(task, [Query(id="x", question="hi?")]) is None  # attack prompts: no answer
    results = _fake_results()
    results["references"] = {"constant": ref}
    md = render_markdown(results)
    assert "| oracle constant «Flibberflamosis» (not a method) | – | 40.0% | 40.0% | – | – | 5 | – | – |" in md
    assert "the most frequent gold answer of these questions (2 of 5)" in md


def test_accuracy_of_nothing_is_zero_and_lengths_must_match():
    assert accuracy_summary([])["accuracy"] == 0.0
    with pytest.raises(ConfigError):
        score_queries(MedicalTask(), [_query("a", "X")], [])


def test_context_recall_matches_the_gold_answer_in_the_retrieved_texts():
    task = MedicalTask()
    queries = [_query("a", "Flibberflamosis"), _query("b", "Snurfluxias"), _query("c", "Zorblio Flos"),
               _query("d", "Blergoniosis")]
    contexts = [
        ["Nothing here.", "the diagnosis is FLIBBERFLAMOSIS."],  # second text, other case: a hit
        ["The diagnosis is Flibberflamosis."],  # another disease: no hit
        ["... it was Zorblio", "Flos is a flower."],  # split across two texts: no hit (joined by blank lines)
        [],  # nothing retrieved
    ]
    assert context_hits(contexts, queries, task) == [True, False, False, False]
    assert context_recall(contexts, queries, task) == 0.25
    assert context_recall([["zorblio flos"]], queries[2:3], task) == 1.0
    assert context_recall([], [], task) == 0.0
    with pytest.raises(ConfigError):
        context_recall([["x"]], queries, task)


def test_harness_context_recall_for_rag_and_corpora_and_from_old_caches(tmp_path, tiny_lm, monkeypatch):
    from fakes import HashEmbedder

    from dpsynrag.corpus import CorpusWriter
    from dpsynrag.eval.data import EvalData
    from dpsynrag.eval.experiments import evaluate_method
    from dpsynrag.eval.runner import Harness, MethodSpec

    task = MedicalTask()
    docs = [_doc(0, "Ann Lee", "Flibberflamosis"), _doc(1, "Bo Chan", "Blergoniosis"), _doc(2, "Cy Moe", "Blergoniosis")]
    queries = [_query("1", "Flibberflamosis"), _query("2", "Snurfluxias")]
    config = EvalConfig.create(task="medical", out=tmp_path / "run", methods="rag", top_k=3, answer_tokens=2)
    data = EvalData(task=task, documents=docs, queries=queries, attacks=[], matcher=NameMatcher([]),
                    info={"documents_sha256": "test"})
    h = Harness(config, data, tiny_lm, HashEmbedder(), progress=False, log=lambda s: None)

    # RAG over the private documents: top-3 of 3 documents, the first disease is among them, the second not
    row = evaluate_method(h, h.specs("rag", None), leakage=False)
    assert (row["context_recall"], row["context_hits"]) == (0.5, 1)
    assert evaluate_method(h, h.specs("non-rag", None), leakage=False)["context_recall"] is None

    # a synthetic corpus: only the kept texts are retrieved (the rejected one names Snurfluxias)
    records = [{"id": 0, "text": "a patient with flibberflamosis", "kept": True},
               {"id": 1, "text": "the diagnosis is Snurfluxias", "kept": False}]
    with CorpusWriter(tmp_path / "corpus") as writer:
        corpus = writer.finish(records, {"method": "dp-synth", "config": {}}, HashEmbedder())
    spec = MethodSpec("dp-synth", 10.0, {})
    _, info = h.answers(spec, queries, prefix="q", corpus=corpus)
    assert info["context_hits"] == [True, False]
    _, attacks = h.answers(spec, queries, prefix="a", corpus=corpus)
    assert attacks["context_hits"] is None  # attack prompts have no gold answer

    # answers cached before context recall was recorded: scored by retrieval alone, nothing generated
    cached = next((tmp_path / "run" / "cache" / "answers").glob("dp-synth-*.jsonl"))
    lines = [json.loads(line) for line in cached.read_text().splitlines()]
    assert [rec.get("context_hit") for rec in lines[1:3]] == [True, False]
    cached.write_text("".join(json.dumps({k: v for k, v in rec.items() if k != "context_hit"}) + "\n" for rec in lines))

    def forbidden(*args, **kwargs):
        raise AssertionError("scoring context recall generated text")

    monkeypatch.setattr(tiny_lm, "generate_greedy", forbidden)
    texts, again = h.answers(spec, queries, prefix="q", corpus=corpus)
    assert again["context_hits"] == [True, False] and again["answered_now"] == 0
    assert texts == [rec["text"] for rec in lines[1:3]]
    assert AnswerCache(cached, lines[0]["identity"]).hit("q:1", queries[0].question) is True


@pytest.mark.parametrize(
    "support, label",
    [(0, "[0,1)"), (1, "[1,10)"), (9, "[1,10)"), (10, "[10,30)"), (29, "[10,30)"), (30, "[30,100)"),
     (99, "[30,100)"), (100, "[100,inf)"), (524, "[100,inf)")],
)
def test_support_bucket_edges(support, label):
    assert MedicalTask().support_bucket(support) == label


def test_support_counts_the_database_actually_used_and_buckets_pool_queries():
    task = MedicalTask()
    database = [_doc(i, f"P{i} Q", "Blergoniosis") for i in range(12)] + [_doc(100 + i, f"R{i} S", "Zorblio Flos")
                                                                             for i in range(3)]
    queries = [_query("1", "Blergoniosis"), _query("2", "Blergoniosis"), _query("3", "Zorblio Flos"),
               _query("4", "Nonexistitis")]
    answers = ["Blergoniosis", "no idea", "zorblio flos", "Nonexistitis"]
    scores = score_queries(task, queries, answers, database=database)
    assert [s.support for s in scores] == [12, 12, 3, 0]
    assert [s.bucket for s in scores] == ["[10,30)", "[10,30)", "[1,10)", "[0,1)"]
    by_bucket = bucket_accuracy(scores, ["[0,1)", "[1,10)", "[10,30)", "[30,100)", "[100,inf)"])
    assert list(by_bucket) == ["[0,1)", "[1,10)", "[10,30)", "[30,100)", "[100,inf)"]
    assert by_bucket["[10,30)"]["n"] == 2 and by_bucket["[10,30)"]["accuracy"] == pytest.approx(0.5)
    assert by_bucket["[1,10)"]["accuracy"] == 1.0  # case-insensitive
    assert by_bucket["[1,10)"]["accuracy_case_sensitive"] == 0.0
    assert by_bucket["[0,1)"]["accuracy"] == 1.0
    assert by_bucket["[30,100)"] == {"n": 0, "correct": 0, "correct_case_sensitive": 0, "accuracy": 0.0,
                                     "accuracy_case_sensitive": 0.0}
    # query-weighted pooling, not a mean of per-disease accuracies
    pooled = bucket_accuracy([QueryScore("a", True, True, 5, "x"), QueryScore("b", False, False, 5, "x"),
                              QueryScore("c", False, False, 5, "x"), QueryScore("d", True, True, 1, "y")])
    assert pooled["x"]["accuracy"] == pytest.approx(1 / 3) and pooled["y"]["accuracy"] == 1.0


def test_support_is_absent_without_a_database():
    scores = score_queries(MedicalTask(), [_query("1", "X")], ["X"])
    assert scores[0].support is None and scores[0].bucket is None
    assert bucket_accuracy(scores) == {}


# ------------------------------------------------------------------------------------------ names


@pytest.mark.parametrize(
    "text, found",
    [
        ("The patient Ann Lee has Blergoniosis.", {"Ann Lee"}),
        ("(Ann Lee)", {"Ann Lee"}),
        ("Ann Lee's record", {"Ann Lee"}),
        ("Ann\nLee", {"Ann Lee"}),
        ("Joann Leeds", set()),
        ("Ann Leeds", set()),
        ("Joann Lee", set()),
        ("Mary-Ann Lee", set()),
        ("Ann Lee-Smith", set()),
        ("ann lee", set()),  # exact: case matters
        ("Ann", set()),  # a first name alone is not a full name
        ("Lee Ann", set()),
        ("Ann, Lee", set()),
        ("Ann Lee2", set()),
        ("Ann Lee and Achim Bauer", {"Ann Lee", "Achim Bauer"}),
        ("Dr. Müller Weiß", {"Müller Weiß"}),
    ],
)
def test_name_matching_is_exact_on_whole_words(text, found):
    matcher = NameMatcher(["Ann Lee", "Achim Bauer", "Müller Weiß", "Ann"])
    assert matcher.find(text) == found


def test_name_matching_case_insensitive_option_and_longest_name():
    assert NameMatcher(["Ann Lee"], case_sensitive=False).find("ANN LEE said") == {"Ann Lee"}
    matcher = NameMatcher(["Anna Maria", "Anna Maria Lee"])
    assert matcher.find("Anna Maria Lee came") == {"Anna Maria Lee"}
    assert matcher.find("Anna Maria came") == {"Anna Maria"}
    with pytest.raises(ConfigError):
        NameMatcher(["Ann Lee"], min_words=0)


def test_leakage_excludes_the_querier_and_counts_distinct_names():
    matcher = NameMatcher(["Ann Lee", "Achim Bauer", "Bo Chen"])
    texts = ["I am Ann Lee.", "Ann Lee and Bo Chen", "Achim Bauer", "nobody", "Joann Leeds"]
    exclude = ["Ann Lee", "Ann Lee", None, None, None]
    summary = leakage_summary(matcher, texts, exclude=exclude, ids=["q1", "q2", "q3", "q4", "q5"])
    assert summary["texts"] == 5
    assert summary["texts_with_leak"] == 2  # q2 (Bo Chen; its querier Ann Lee excluded) and q3
    assert summary["leaking_ids"] == ["q2", "q3"]
    assert summary["distinct_names"] == 2  # Bo Chen, Achim Bauer
    assert summary["leak_rate"] == pytest.approx(0.4)
    assert leakage_summary(matcher, [])["leak_rate"] == 0.0
    with pytest.raises(ConfigError):
        leakage_summary(matcher, ["x"], exclude=[])


def test_querier_name_from_task_meta():
    assert querier_name({"patient_name": "Ann Lee"}) == "Ann Lee"
    assert querier_name({"pseudonym": "Nodruna Sikinol"}) == "Nodruna Sikinol"
    assert querier_name({}) is None


def test_name_matching_is_fast():
    names = [f"First{i} Last{i * 7}" for i in range(8000)]
    matcher = NameMatcher(names)
    answers = [f"Patient First{i} Last{i * 7 + 1} has a disease; see First{i} Last{i * 7} and others. " * 3
               for i in range(1000)]
    start = time.perf_counter()
    summary = leakage_summary(matcher, answers)
    assert time.perf_counter() - start < 5.0
    assert summary["texts_with_leak"] == 1000 and summary["distinct_names"] == 1000


# ------------------------------------------------------------------------------------------ config


def test_methods_and_aliases():
    assert expand_methods("rag,ablations") == ["rag", "dp-synrag-l1", "dp-synrag-no-outlier-removal",
                                               "dp-synrag-no-self-filter"]
    assert expand_methods(["dp-synrag", "non-rag", "dp-synrag"]) == ["non-rag", "dp-synrag"]
    assert len(expand_methods("all")) == 14
    assert expand_methods("rivals") == ["murag", "murag-ada", "dp-vote-rag", "dp-sparse-vote-rag", "dp-ksa"]
    with pytest.raises(ConfigError, match="unknown method 'dp-magic'"):
        expand_methods("rag,dp-magic")
    with pytest.raises(ConfigError):
        expand_methods(" , ")


def test_config_errors(tmp_path):
    with pytest.raises(ConfigError, match="epsilon"):
        EvalConfig.create(task="medical", out=tmp_path, methods="rag", epsilons=[0.0])
    with pytest.raises(ConfigError, match="epsilon"):
        EvalConfig.create(task="medical", out=tmp_path, methods="rag", mq_epsilon_totals=[-1.0])
    with pytest.raises(ConfigError, match="delta"):
        EvalConfig.create(task="medical", out=tmp_path, methods="rag", delta=1.0)
    with pytest.raises(ConfigError, match="unknown task"):
        EvalConfig.create(task="nosuchtask", out=tmp_path, methods="rag")
    with pytest.raises(ConfigError, match="preset"):
        EvalConfig.create(task="medical", out=tmp_path, methods="rag", preset="huge")
    with pytest.raises(ConfigError, match="experiment"):
        EvalConfig.create(task="medical", out=tmp_path, methods="rag", experiment="other")
    with pytest.raises(ConfigError, match="unknown evaluation option"):
        EvalConfig.create(task="medical", out=tmp_path, methods="rag", colour="red")
    with pytest.raises(DataError, match="does not exist"):
        EvalConfig.create(task="medical", out=tmp_path, methods="rag", database=tmp_path / "missing")
    with pytest.raises(DataError, match="does not exist"):
        EvalConfig.create(task="medical", out=tmp_path, methods="rag", queries=tmp_path / "missing.jsonl")
    config = EvalConfig.create(task="medical", out=tmp_path, methods="rag", documents=0, questions=7,
                               synrag={"R": 5})
    assert config.preset.documents is None and config.preset.questions == 7
    assert config.preset.synrag["R"] == 5 and config.preset.synrag["K"] == 1  # merged into the preset's


def test_cli_rejects_bad_input_before_loading_anything(tmp_path):
    runner = CliRunner()

    def invoke(args):
        result = runner.invoke(app, args)
        result.text = " ".join(result.output.split())
        return result

    result = invoke(["eval", "--task", "medical", "--out", str(tmp_path), "--methods", "rag,dp-magic"])
    assert result.exit_code == 2 and "unknown method 'dp-magic'" in result.text
    result = invoke(["eval", "--out", str(tmp_path), "--methods", "rag", "--epsilon", "0"])
    assert result.exit_code == 2 and "every epsilon must be a finite number > 0" in result.text
    result = invoke(["eval", "--task", "nope", "--out", str(tmp_path)])
    assert result.exit_code == 2 and "unknown task 'nope'" in result.text
    result = invoke(["eval", "--out", str(tmp_path), "--database", str(tmp_path / "none")])
    assert result.exit_code == 2 and "does not exist" in result.text
    result = invoke(["eval", "--out", str(tmp_path), "--epsilon", "ten"])
    assert result.exit_code == 2 and "comma-separated numbers" in result.text


def test_zcdp_epsilon_per_query_composes_back_to_the_total():
    assert zcdp_epsilon_per_query(10.0, 1, 1e-3) == 10.0
    for m in (2, 5, 20, 100):
        eps_q = zcdp_epsilon_per_query(10.0, m, 1e-3)
        assert eps_q > 10.0 / m
        total = epsilon_from_rho(m * rho_from_epsilon(eps_q, 1e-3), 1e-3)
        assert total == pytest.approx(10.0, rel=1e-9)
    with pytest.raises(ConfigError):
        zcdp_epsilon_per_query(10.0, 0, 1e-3)


# ------------------------------------------------------------------------------------------ cache


def test_answer_cache_resumes_drops_torn_lines_and_resets_on_a_new_identity(tmp_path):
    path = tmp_path / "answers" / "rag-x.jsonl"
    cache = AnswerCache(path, {"method": "rag", "top_k": 5})
    cache.add([("q:1", "question one", "answer one"), ("q:2", "question two", "answer two")])
    with open(path, "a") as f:
        f.write('{"id": "q:3", "qhash": "ab')  # interrupted mid-line
    again = AnswerCache(path, {"method": "rag", "top_k": 5})
    assert again.get("q:1", "question one") == "answer one" and again.get("q:2", "question two") == "answer two"
    assert again.get("q:3", "question three") is None
    assert again.get("q:1", "a different question") is None  # keyed on the question text too
    assert all(json.loads(line) for line in path.read_text().splitlines())
    other = AnswerCache(path, {"method": "rag", "top_k": 10})
    assert other.get("q:1", "question one") is None
    # owner-only: RAG's answers come from the private documents (the trial found them 0644)
    assert path.stat().st_mode & 0o777 == 0o600 and path.parent.stat().st_mode & 0o777 == 0o700


# ------------------------------------------------------------------------------------------ report


def _fake_results(experiment="main"):
    def row(method, label, acc, eps=None, corpus=False, recall=None):
        r = {
            "method": method, "label": label, "epsilon": eps, "n": 10, "correct": int(10 * acc),
            "correct_case_sensitive": int(10 * acc) // 2, "accuracy": acc, "accuracy_case_sensitive": acc / 2,
            "context_recall": recall, "context_hits": None if recall is None else int(10 * recall),
            "answers_with_figures": 4, "unsupported_figures": 1 if recall else 4,
            "by_bucket": {"[1,10)": {"n": 4, "accuracy": acc / 2, "accuracy_case_sensitive": 0.0},
                          "[10,30)": {"n": 6, "accuracy": acc, "accuracy_case_sensitive": acc / 2}},
            "timings": {"answer_questions_s": 3.0, "build_s": 5.0 if corpus else None},
            "leakage": {"benign": {"texts": 10, "texts_with_leak": 1, "leak_rate": 0.1, "distinct_names": 1},
                        "attacks": {"all": {"texts": 4, "texts_with_leak": 2, "leak_rate": 0.5, "distinct_names": 2},
                                    "targeted": {"texts": 2, "texts_with_leak": 2, "leak_rate": 1.0, "distinct_names": 2},
                                    "repeat_context": {"texts": 2, "texts_with_leak": 0, "leak_rate": 0.0,
                                                       "distinct_names": 0}}},
            "privacy": {"epsilon": eps, "epsilon_tight": eps and eps * 0.9, "delta": 1e-3},
        }
        if corpus:
            r["leakage"]["corpus"] = {"texts": 8, "texts_with_name": 1, "distinct_names": 1, "kept_texts": 5,
                                      "kept_texts_with_name": 0, "kept_distinct_names": 0}
            r["corpus"] = {"texts": 8, "kept": 5}
        return r

    results = {
        "experiment": experiment,
        "config": {"task": "medical", "preset": {"name": "cpu", "delta": 1e-3, "seed": 0}},
        "data": {"documents": 100, "database_documents_total": 8000, "subset": "random", "subset_seed": 0,
                 "database": "/data", "questions": 10, "queries": "validation", "attack_kinds": {"targeted": 2},
                 "private_names": 100, "private_names_rule": "rule",
                 "support_buckets": ["[0,1)", "[1,10)", "[10,30)", "[30,100)", "[100,inf)"]},
        "models": {"lm": "tiny", "embedder": "mini"},
        "answering": {"top_k": 5, "answer_tokens": 16},
        "wall_seconds": 12.0, "compute_seconds": 30.0,
        "methods": [row("non-rag", "Non-RAG", 0.0), row("rag", "RAG (no DP)", 0.8, recall=0.9),
                    row("dp-synrag", "DP-SynRAG (ε=10)", 0.4, 10.0, corpus=True, recall=0.5),
                    {"method": "aug-pe", "label": "Aug-PE (ε=10)", "epsilon": 10.0, "error": "DataError: boom | x"}],
    }
    if experiment == "multi-query":
        results["multi_query"] = {
            "m": [1, 5], "epsilon_totals": [10.0], "questions": 10,
            "references": [{"method": "rag", "label": "RAG (no DP)", "accuracy": 0.8}],
            "points": [
                {"method": "dp-synrag", "epsilon_total": 10.0, "m": 1, "accuracy": 0.4},
                {"method": "dp-synrag", "epsilon_total": 10.0, "m": 5, "accuracy": 0.4},
                {"method": "dp-rag", "epsilon_total": 10.0, "m": 1, "epsilon_per_query": 10.0, "accuracy": 0.3,
                 "epsilon_total_zcdp": 10.0},
                {"method": "dp-rag", "epsilon_total": 10.0, "m": 5, "epsilon_per_query": 2.0, "accuracy": 0.1,
                 "epsilon_total_zcdp": 5.1},
                {"method": "dp-rag-zcdp", "epsilon_total": 10.0, "m": 5, "epsilon_per_query": 3.7, "accuracy": 0.2},
            ],
        }
    return results


def test_report_tables_and_plots(tmp_path):
    results = _fake_results()
    md = render_markdown(results)
    for heading in ("## Accuracy", "## Accuracy by support bucket", "## Leakage", "## Privacy and corpora",
                    "## Methods that failed"):
        assert heading in md
    assert "| DP-SynRAG (ε=10) | 10 | 40.0% | 20.0% | 50.0% | 1 of 4 | 10 |" in md
    assert "| RAG (no DP) | ∞ | 80.0% | 40.0% | 90.0% | 1 of 4 | 10 |" in md
    assert "| Non-RAG | 0 | 0.0% | 0.0% | – | 4 of 4 | 10 |" in md
    assert "[10,30) (n=6)" in md and "2 / 2" in md and "0 / 5 kept, 1 / 8 all" in md
    assert "DataError: boom / x" in md  # a '|' would break the table
    written = write_report(results, tmp_path)
    assert written == ["results.md", "accuracy_by_method.png", "accuracy_by_bucket.png", "leakage.png"]
    for name in written:
        assert (tmp_path / name).stat().st_size > 1000
    assert (tmp_path / "accuracy_by_method.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_report_multi_query(tmp_path):
    results = _fake_results("multi-query")
    md = render_markdown(results)
    assert "## Multi-query curve" in md
    assert "DP-RAG (basic composition)" in md and "DP-RAG (zCDP composition)" in md
    assert "10.0% (ε/q 2; zCDP total 5.1)" in md
    assert write_report(results, tmp_path) == ["results.md", "multi_query.png"]
    assert (tmp_path / "multi_query.png").stat().st_size > 1000


# ------------------------------------------------------------------------------ unsupported figures


def test_unsupported_figures_are_the_answers_numbers_found_in_no_context():
    from dpsynrag.eval.scoring import figures, unsupported_figures

    assert figures("Fees: 1,500 EUR or 15.00 EUR, 2.75% abroad; call 020-7946") == {"1500", "15", "2.75", "020", "7946"}
    context = ["We charge 15 EUR per international transfer.", "Cash limit is £500 a day."]
    assert unsupported_figures("The fee is 15.00 EUR.", context) == []
    assert unsupported_figures("The monthly overdraft fee is 10.00 euros", context) == ["10"]
    assert unsupported_figures("It is 500 or 120 days", context) == ["120"]
    assert unsupported_figures("five working days", context) == []  # a word is not a figure
    assert unsupported_figures("5 working days", []) == ["5"]  # no context: every figure is unsupported
    assert unsupported_figures("Up to 1500", ["a limit of 1,500"]) == []
    assert unsupported_figures("2024", ["in 20245"]) == ["2024"]  # whole figures, not substrings
