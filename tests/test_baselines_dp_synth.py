"""DP-Synth (private prediction over random disjoint batches): cost against its closed form (independent
of the number of batches), uniform batch assignment, the corpus folder, bad input, and a small
end-to-end run on Medical Synth with the offline models."""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest
from fakes import HashEmbedder
from pydantic import ValidationError
from scipy.stats import chisquare

from dpsynrag.baselines import DPSynthConfig, build_dp_synth
from dpsynrag.baselines.dp_synth import assign_batches
from dpsynrag.corpus import SyntheticCorpus
from dpsynrag.errors import ConfigError, DataError
from dpsynrag.privacy.conversions import epsilon_from_rho, rho_from_epsilon
from dpsynrag.rng import SeededRandom

DOCS = [
    "the patient has fever and cough",
    "the patient has rash on skin",
    "the doctor has a test of blood",
    "the patient has pain in the head",
    "a patient with flu has fever",
    "the heart and lung test was good",
    "the eye and ear of the patient",
]


@pytest.mark.parametrize("eps,delta,T,tau,conversion", [(10.0, 1e-3, 70, 1.0, "bun-steinke"), (3.0, 1e-5, 20, 0.5, "cks"),
                                                       (0.5, 1e-3, 5, 2.0, "bun-steinke")])
def test_cost_closed_form_independent_of_num_batches(eps, delta, T, tau, conversion):
    clips = set()
    for B in (1, 7, 80, 1000):
        cal = DPSynthConfig(epsilon=eps, delta=delta, T=T, temperature=tau, conversion=conversion, num_batches=B).calibrate()
        closed = T / 2 * (cal.clip / tau) ** 2
        assert cal.rho_batch == pytest.approx(closed, rel=1e-12)
        assert cal.plan().rho == pytest.approx(closed, rel=1e-12)  # parallel: one batch's cost
        assert cal.plan().multiplier == 1
        assert epsilon_from_rho(cal.plan().rho, delta, conversion=conversion) <= eps
        assert cal.clip == pytest.approx(tau * math.sqrt(2 * rho_from_epsilon(eps, delta, conversion=conversion) / T), rel=1e-8)
        clips.add(cal.clip)
    assert len(clips) == 1


def test_paper_value():
    cal = DPSynthConfig(epsilon=10.0, delta=1e-3).calibrate()
    assert cal.rho_total == pytest.approx(2.2012, abs=1e-4)
    assert cal.clip == pytest.approx(math.sqrt(2 * 2.2012 / 70), abs=1e-4)


def test_batch_assignment_is_uniform_and_one_batch_per_document():
    n, B = 40_000, 10
    batches = assign_batches(n, B, SeededRandom(3))
    assert batches.shape == (n,) and batches.min() >= 0 and batches.max() < B
    counts = np.bincount(batches, minlength=B)
    # Fixed seed: a chi-square p-value below 1e-4 would mean the assignment is not uniform.
    assert chisquare(counts).pvalue > 1e-4
    # A document's batch is its own draw: the first documents' batches do not depend on how many follow.
    assert (assign_batches(100, B, SeededRandom(3)) == batches[:100]).all()
    assert len(assign_batches(0, B, SeededRandom(3))) == 0
    with pytest.raises(ConfigError):
        assign_batches(5, 0, SeededRandom(0))
    with pytest.raises(ConfigError):
        assign_batches(-1, 3, SeededRandom(0))


def test_bad_input_is_rejected(tmp_path, tiny_lm):
    with pytest.raises(ValidationError):
        DPSynthConfig(epsilon=0.0, delta=1e-3)
    with pytest.raises(ValidationError):
        DPSynthConfig(epsilon=1.0, delta=0.0)
    with pytest.raises(ValidationError):
        DPSynthConfig(epsilon=1.0, delta=1e-3, num_batches=0)
    with pytest.raises(ValidationError):
        DPSynthConfig(epsilon=1.0, delta=1e-3, filter_prompt="no placeholder")
    with pytest.raises(ValidationError):
        DPSynthConfig(epsilon=1.0, delta=1e-3, unknown_option=3)
    with pytest.raises(ConfigError, match="task"):  # self-filter on, no task: refused before anything runs
        build_dp_synth(DOCS, tmp_path / "a", DPSynthConfig(epsilon=1.0, delta=1e-3), lm=tiny_lm, embedder=HashEmbedder())
    cfg = DPSynthConfig(epsilon=1.0, delta=1e-3, self_filter=False)
    with pytest.raises(DataError):
        build_dp_synth([], tmp_path / "b", cfg, lm=tiny_lm, embedder=HashEmbedder())
    with pytest.raises(ConfigError):
        build_dp_synth(DOCS, tmp_path / "c", {"epsilon": 1.0}, lm=tiny_lm, embedder=HashEmbedder())
    assert list(tmp_path.iterdir()) == []


def test_build_writes_one_text_per_batch_and_its_privacy_report(tmp_path, tiny_lm, monkeypatch):
    from dpsynrag.models import PrivatePredictionDecoder

    spent = {}
    original = PrivatePredictionDecoder.generate

    def spy(self, clusters, accountants, progress=False):
        out = original(self, clusters, accountants, progress=progress)
        spent["sizes"] = sorted(len(c) for c in clusters)
        spent["rho"] = [a.rho for a in accountants]
        return out

    monkeypatch.setattr(PrivatePredictionDecoder, "generate", spy)
    cfg = DPSynthConfig(epsilon=4.0, delta=1e-3, num_batches=3, T=4, self_filter=False, max_document_tokens=16, seed=1)
    corpus = build_dp_synth(DOCS, tmp_path / "c", cfg, lm=tiny_lm, embedder=HashEmbedder())
    cal = cfg.calibrate()
    m = json.loads((tmp_path / "c" / "manifest.json").read_text())
    assert m["method"] == "dp-synth" and m["num_texts"] == 3 == len(corpus.records)
    assert [r["batch"] for r in corpus.records] == [0, 1, 2]
    assert sum(spent["sizes"]) == len(DOCS)  # every document in exactly one batch
    assert spent["rho"] == pytest.approx([cal.rho_batch] * 3, rel=1e-12)  # each batch pays its T tokens
    p = m["privacy"]
    assert [x["mechanism"] for x in p["mechanisms"]] == ["overlapping_parallel_composition"]
    assert p["mechanisms"][0]["multiplier"] == 1 and p["mechanisms"][0]["num_branches"] == 3
    assert p["rho_total"] == pytest.approx(cfg.T / 2 * cal.clip**2, rel=1e-12)
    assert p["epsilon"] <= 4.0 and p["epsilon_tight"] < p["epsilon"] and p["delta"] == 1e-3
    assert "parallel composition" in p["composition"]
    assert m["not_for_release"] is True and p["secure_randomness"] is False
    # owner-only facts (exact document count, input hash, wall times) stay out of the publishable folder
    assert "input_fingerprint" not in m and "timings" not in m
    owner = json.loads((tmp_path / "c.owner.json").read_text())
    assert owner["input_fingerprint"]["documents"] == len(DOCS) and "NOT covered" in owner["note"]
    assert owner["timings"]["total_s"] >= owner["timings"]["private_prediction_s"] >= 0
    assert not re.search(r"\d\d:\d\d:\d\d", (tmp_path / "c" / "build.log").read_text())  # no timestamps
    assert SyntheticCorpus.load(tmp_path / "c").privacy_report.rho_total == pytest.approx(p["rho_total"])
    blob = "\n".join(f.read_text() for f in (tmp_path / "c").iterdir() if f.suffix in (".jsonl", ".json"))
    assert not any(d in blob for d in DOCS)


def test_build_calibrated_with_the_tight_conversion_meets_its_target(tmp_path, tiny_lm):
    # CKS calibration spends more rho than Bun-Steinke allows at the same epsilon: the final guard must
    # check the epsilon of the conversion the build was calibrated with.
    cfg = DPSynthConfig(epsilon=4.0, delta=1e-3, num_batches=2, T=3, self_filter=False, max_document_tokens=16,
                        seed=3, conversion="cks")
    build_dp_synth(DOCS, tmp_path / "c", cfg, lm=tiny_lm, embedder=HashEmbedder())
    p = json.loads((tmp_path / "c" / "manifest.json").read_text())["privacy"]
    assert p["epsilon_tight"] == pytest.approx(4.0, rel=1e-6) and p["epsilon_tight"] <= 4.0
    assert p["epsilon"] > 4.0  # the same rho under Bun-Steinke: why the guard must follow the conversion


def test_more_batches_than_documents_still_gives_num_batches_texts(tmp_path, tiny_lm):
    cfg = DPSynthConfig(epsilon=4.0, delta=1e-3, num_batches=5, T=3, self_filter=False, max_document_tokens=16, seed=2)
    corpus = build_dp_synth(DOCS[:2], tmp_path / "c", cfg, lm=tiny_lm, embedder=HashEmbedder())
    assert len(corpus.records) == 5  # the number of outputs never reveals the number of documents


@pytest.mark.slow
def test_dp_synth_end_to_end_on_medical_slice(tmp_path, offline_lm, offline_embedder, medical_slice):
    cfg = DPSynthConfig(epsilon=10.0, delta=1e-3, num_batches=2, T=6, task="medical", max_document_tokens=64, seed=0)
    corpus = build_dp_synth(medical_slice[:16], tmp_path / "c", cfg, lm=offline_lm, embedder=offline_embedder)
    print("DP-Synth texts:", [(r["text"], r["kept"]) for r in corpus.records])
    assert len(corpus.records) == 2 and corpus.manifest["method"] == "dp-synth"
    assert corpus.privacy_report.epsilon <= 10.0
    blob = "\n".join(p.read_bytes().decode("utf-8", errors="replace") for p in (tmp_path / "c").iterdir() if p.is_file())
    for doc in medical_slice[:16]:
        assert doc.text not in blob
        assert doc.text.split(") of ")[1].split(". The diagnosis")[0] not in blob  # no patient name
    answerer = corpus.answerer(lm=offline_lm, embedder=offline_embedder, top_k=2, max_new_tokens=6)
    answer = answerer.answer(["I have a rash on my palms and dizziness. What is my disease?"])[0]
    assert isinstance(answer.text, str) and len(answer.context) == len(corpus.texts[:2])
