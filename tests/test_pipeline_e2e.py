"""End to end: a DP-SynRAG build on a slice of the real Medical Synth data with the offline models.

Small on purpose (150 documents, 4 clusters, 6 tokens): it checks the guarantees of the folder, not the
quality of the text.
"""

import json

import pytest

import dpsynrag.pipeline.build as build_module
from dpsynrag.corpus import SyntheticCorpus
from dpsynrag.errors import CorpusError, DataError, InfeasibleBudgetError
from dpsynrag.pipeline.build import build_corpus
from dpsynrag.pipeline.config import BuildConfig

pytestmark = pytest.mark.slow

CONFIG = dict(epsilon=10.0, delta=1e-3, task="medical", K=5, R=4, L=2, k=10, T=6, extractor="rarity", max_document_tokens=64, seed=3)


@pytest.fixture(scope="module")
def built(tmp_path_factory, offline_lm, offline_embedder, medical_slice):
    captured = {}
    original = build_module.soft_cluster

    def spy(*args, **kwargs):
        clusters = original(*args, **kwargs)
        captured["clusters"] = clusters
        return clusters

    build_module.soft_cluster = spy
    try:
        out = tmp_path_factory.mktemp("corpus") / "c"
        corpus = build_corpus(medical_slice, out, BuildConfig(**CONFIG), lm=offline_lm, embedder=offline_embedder)
    finally:
        build_module.soft_cluster = original
    return corpus, captured["clusters"], out


def test_manifest_epsilon_within_target(built):
    corpus, _, out = built
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["privacy"]["epsilon"] <= 10.0
    assert manifest["privacy"]["epsilon_tight"] < manifest["privacy"]["epsilon"]
    assert manifest["privacy"]["delta"] == 1e-3
    assert manifest["not_for_release"] is True  # seeded
    assert manifest["num_texts"] == 4 == len(corpus.records)
    kinds = [m["mechanism"] for m in manifest["privacy"]["mechanisms"]]
    assert kinds == ["discrete_gaussian", "overlapping_parallel_composition"]
    assert all(type(r["noisy_count"]) is int for r in corpus.records)


def test_no_document_in_more_than_L_clusters(built):
    _, clusters, _ = built
    counts = {}
    for members in clusters:
        for i in members:
            counts[i] = counts.get(i, 0) + 1
    assert clusters and max(counts.values()) <= CONFIG["L"]


def test_no_input_document_verbatim_in_the_folder(built, medical_slice):
    _, _, out = built
    blob = "\n".join(p.read_bytes().decode("utf-8", errors="replace") for p in out.iterdir() if p.is_file())
    for doc in medical_slice:
        assert doc.text not in blob
        # and no patient's full name appears in any file
        name = doc.text.split(") of ")[1].split(". The diagnosis")[0]
        assert name not in blob


def test_query_and_reload(built, offline_lm, offline_embedder):
    _, _, out = built
    corpus = SyntheticCorpus.load(out)
    answerer = corpus.answerer(lm=offline_lm, embedder=offline_embedder, top_k=2, max_new_tokens=8)
    answers = answerer.answer(["I have a rash on my palms and dizziness. What is my disease?"])
    assert isinstance(answers[0].text, str)
    assert len(answers[0].context) == min(2, len(corpus.texts))
    assert corpus.privacy_report.epsilon <= 10.0


def test_infeasible_budget_refuses_before_loading_models(tmp_path, monkeypatch, medical_slice):
    import dpsynrag.models as models

    def boom(*a, **k):  # pragma: no cover - must not be reached
        raise AssertionError("a model was loaded although the budget is infeasible")

    monkeypatch.setattr(models.LanguageModel, "load", boom)
    with pytest.raises(InfeasibleBudgetError):
        build_corpus(medical_slice, tmp_path / "x", BuildConfig(**{**CONFIG, "epsilon": 1.0}))
    assert not (tmp_path / "x").exists()


def test_bad_inputs_leave_nothing(tmp_path, offline_lm, offline_embedder):
    with pytest.raises(DataError):
        build_corpus([], tmp_path / "a", BuildConfig(**CONFIG), lm=offline_lm, embedder=offline_embedder)
    with pytest.raises(DataError):
        build_corpus(tmp_path / "missing.jsonl", tmp_path / "b", BuildConfig(**CONFIG), lm=offline_lm, embedder=offline_embedder)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"text": "ok"}\n{"txt": "no text field"}\n')
    with pytest.raises(DataError, match="text"):
        build_corpus(bad, tmp_path / "c", BuildConfig(**CONFIG), lm=offline_lm, embedder=offline_embedder)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.jsonl"]  # no partial or complete folder left
    (tmp_path / "exists").mkdir()
    with pytest.raises(FileExistsError):
        build_corpus(bad, tmp_path / "exists", BuildConfig(**CONFIG), lm=offline_lm, embedder=offline_embedder)
    with pytest.raises(CorpusError, match="missing"):
        SyntheticCorpus.load(tmp_path / "exists")


def test_failure_midway_removes_partial_folder(tmp_path, monkeypatch, offline_lm, offline_embedder, medical_slice):
    def fail(*a, **k):
        raise RuntimeError("simulated crash during private prediction")

    monkeypatch.setattr(build_module, "soft_cluster", fail)
    with pytest.raises(RuntimeError):
        build_corpus(medical_slice[:30], tmp_path / "d", BuildConfig(**CONFIG), lm=offline_lm, embedder=offline_embedder)
    # no partial or corpus folder; only the owner-only checkpoints of the keywords and histogram, for --resume
    assert [p.name for p in tmp_path.iterdir()] == [".d.work"]
    assert sorted(p.name for p in (tmp_path / ".d.work").iterdir()) == ["histogram.json", "keywords.json", "state.json"]
