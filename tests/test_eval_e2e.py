"""End to end: `run_eval` on a tiny slice of Medical Synth with the offline models — every method, the
files it writes, resuming (a second run does no new work; an interrupted run only finishes what is
missing; a changed parameter reruns only its method) and the multi-query experiment.

Small on purpose (80 documents, 3 questions, 2 attack prompts, a few tokens): it checks the harness,
not the quality of the answers.
"""

import json

import pytest

from dpsynrag.eval import EvalConfig, run_eval

pytestmark = pytest.mark.slow

METHODS = "non-rag,rag,dp-rag,dp-synth,aug-pe,dp-synrag,dp-synrag-no-self-filter"
TINY = dict(
    documents=80, questions=3, attacks=1, answer_tokens=6, top_k=2, mq_m=(1, 2), mq_epsilon_totals=(10.0,),
    mq_questions=2,
    synrag=dict(K=5, R=3, L=2, k=10, T=5, extractor="rarity", open_vocabulary=False, max_document_tokens=64),
    dp_rag=dict(max_new_tokens=4, max_document_tokens=64, utility="top-k", top_k=3),
    dp_synth=dict(num_batches=2, T=4, max_document_tokens=64),
    aug_pe=dict(population_size=6, iterations=2, L=2, T=4, max_document_tokens=64),
)


def _config(out, **changes):
    params = {**TINY, **changes}
    experiment = params.pop("experiment", "main")
    methods = params.pop("methods", METHODS)
    return EvalConfig.create(task="medical", out=out, methods=methods, preset="cpu", experiment=experiment, **params)


@pytest.fixture(scope="module")
def first_run(tmp_path_factory, offline_lm, offline_embedder):
    out = tmp_path_factory.mktemp("eval")
    results = run_eval(_config(out), lm=offline_lm, embedder=offline_embedder, progress=False, log=lambda s: None)
    return out, results


def test_files_and_keys(first_run):
    out, results = first_run
    for name in ("results.json", "results.md", "accuracy_by_method.png", "accuracy_by_bucket.png", "leakage.png"):
        assert (out / name).is_file(), name
    saved = json.loads((out / "results.json").read_text())
    assert saved["wall_seconds"] > 0 and saved["compute_seconds"] > 0
    assert saved["models"]["lm"].startswith("SmolLM2-135M-Instruct")
    assert saved["models"]["embedder"].startswith("all-MiniLM-L6-v2")
    data = saved["data"]
    assert data["documents"] == 80 and data["subset"] == "random" and data["subset_seed"] == 0
    assert data["questions"] == 3 and data["attack_kinds"] == {"targeted": 1, "repeat_context": 1}
    assert data["private_names"] == 80 and data["database"].endswith("medical_synth")
    assert saved["config"]["preset"]["delta"] == 1e-3 and saved["config"]["preset"]["seed"] == 0
    rows = {r["method"]: r for r in saved["methods"]}
    assert list(rows) == METHODS.split(",")
    for method, row in rows.items():
        assert "error" not in row, row.get("error")
        assert row["n"] == 3 and 0.0 <= row["accuracy_case_sensitive"] <= row["accuracy"] <= 1.0
        assert set(row["by_bucket"]) == {"[0,1)", "[1,10)", "[10,30)", "[30,100)", "[100,inf)"}
        assert sum(b["n"] for b in row["by_bucket"].values()) == 3
        assert row["leakage"]["benign"]["texts"] == 3
        assert row["leakage"]["attacks"]["all"]["texts"] == 2
        assert row["config"]["model"] == saved["models"]["lm"] and row["config"]["seed"] == 0
        assert row["timings"]["answer_questions_s"] >= 0
        if method in ("non-rag", "dp-rag"):  # no top-k retrieved texts to score
            assert row["context_recall"] is None and row["context_hits"] is None
        else:
            assert row["context_recall"] == row["context_hits"] / 3 and 0 <= row["context_hits"] <= 3
    for method in ("dp-synth", "aug-pe", "dp-synrag", "dp-synrag-no-self-filter"):
        row = rows[method]
        assert row["privacy"]["epsilon"] <= 10.0 + 1e-9 and row["privacy"]["delta"] == 1e-3
        assert row["leakage"]["corpus"]["texts"] == row["corpus"]["texts"] > 0
        assert row["config"]["build"]["seed"] == 0
    assert rows["dp-synrag"]["config"]["build"]["K"] == 5 and rows["dp-synrag"]["config"]["build"]["R"] == 3
    assert rows["dp-synrag-no-self-filter"]["config"]["build"]["self_filter"] is False
    # the no-self-filter ablation keeps every released text of the same DP-SynRAG release
    assert rows["dp-synrag-no-self-filter"]["corpus"]["texts"] == rows["dp-synrag"]["corpus"]["texts"]
    assert rows["dp-synrag-no-self-filter"]["corpus"]["kept"] >= rows["dp-synrag"]["corpus"]["kept"]
    sessions = rows["dp-rag"]["privacy"]["sessions"]
    assert sum(s["queries"] for s in sessions) == 5 and rows["dp-rag"]["privacy"]["epsilon_per_query"] == 10.0
    assert rows["rag"]["privacy"]["epsilon"] is None and rows["non-rag"]["privacy"]["epsilon"] == 0.0
    md = (out / "results.md").read_text()
    assert "## Leakage" in md and "DP-SynRAG, no self-filter, private prediction (ε=10)" in md and "80 of 8000 documents" in md
    assert "| context recall |" in md


def test_second_run_resumes_without_new_work(first_run, offline_lm, offline_embedder, monkeypatch):
    out, first = first_run

    def forbidden(*args, **kwargs):
        raise AssertionError("the resumed run generated text")

    monkeypatch.setattr(offline_lm, "generate_greedy", forbidden)
    again = run_eval(_config(out), lm=offline_lm, embedder=offline_embedder, progress=False, log=lambda s: None)
    assert again["new_work"] == []
    assert [r["accuracy"] for r in again["methods"]] == [r["accuracy"] for r in first["methods"]]
    assert again["compute_seconds"] == pytest.approx(first["compute_seconds"])


def test_interrupted_and_changed_runs_redo_only_what_is_missing(first_run, offline_lm, offline_embedder):
    out, _ = first_run
    # an interrupted run: the last answers of RAG never reached the cache, the last line is torn
    rag_file = next((out / "cache" / "answers").glob("rag-*.jsonl"))
    lines = rag_file.read_text().splitlines()
    assert [json.loads(line)["id"][:2] for line in lines[1:]] == ["q:", "q:", "q:", "a:", "a:"]
    rag_file.write_text("\n".join(lines[:-3]) + '\n{"id": "q:', encoding="utf-8")
    # and a changed parameter of one method
    results = run_eval(_config(out, dp_rag={**TINY["dp_rag"], "max_new_tokens": 3}), lm=offline_lm,
                       embedder=offline_embedder, progress=False, log=lambda s: None)
    assert sorted(results["new_work"]) == ["answer dp-rag a x2", "answer dp-rag q x3", "answer rag a x2",
                                           "answer rag q x1"]
    assert {r["method"]: r["config"]["params"].get("max_new_tokens") for r in results["methods"]}["dp-rag"] == 3


def test_multi_query_experiment(first_run, offline_lm, offline_embedder):
    out, _ = first_run
    results = run_eval(_config(out, experiment="multi-query", methods="rag,dp-rag,dp-synrag"), lm=offline_lm,
                       embedder=offline_embedder, progress=False, log=lambda s: None)
    mq = results["multi_query"]
    assert mq["m"] == [1, 2] and mq["questions"] == 2
    points = {(p["method"], p["m"]): p for p in mq["points"]}
    assert set(points) == {("dp-synrag", 1), ("dp-synrag", 2), ("dp-rag", 1), ("dp-rag", 2), ("dp-rag-zcdp", 1),
                           ("dp-rag-zcdp", 2)}
    assert points[("dp-rag", 2)]["epsilon_per_query"] == 5.0
    assert points[("dp-rag", 2)]["epsilon_total_zcdp"] < 10.0
    assert points[("dp-rag-zcdp", 2)]["epsilon_per_query"] > 5.0
    assert points[("dp-synrag", 1)]["accuracy"] == points[("dp-synrag", 2)]["accuracy"]
    assert points[("dp-synrag", 1)]["privacy"]["epsilon"] <= 10.0 + 1e-9
    assert [r["method"] for r in mq["references"]] == ["rag"]
    # the DP-SynRAG corpus of the main experiment is reused (same configuration): no new build
    assert not any(w.startswith("build") for w in results["new_work"])
    assert (out / "multi_query.png").is_file() and "## Multi-query curve" in (out / "results-multi-query.md").read_text()
    assert json.loads((out / "results-multi-query.json").read_text())["multi_query"]["m"] == [1, 2]
    assert "## Leakage" in (out / "results.md").read_text()  # the main experiment's report is kept
