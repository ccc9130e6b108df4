"""Aug-PE (private evolution): cost against its closed form, exactly one histogram per iteration that
reads the private data, unit-norm votes, selection, bad input, and a small end-to-end run on Medical
Synth with the offline models."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from fakes import HashEmbedder
from pydantic import ValidationError
from scipy.stats import chisquare

from dpsynrag.baselines import AugPEConfig, build_aug_pe
from dpsynrag.baselines.aug_pe import (
    nearest_neighbor_votes,
    sample_texts,
    select_parents,
)
from dpsynrag.errors import ConfigError
from dpsynrag.privacy.conversions import epsilon_from_rho, rho_from_epsilon
from dpsynrag.rng import SeededRandom

DOCS = [
    "the patient has fever and cough",
    "the patient has rash on skin",
    "the doctor has a test of blood",
    "the patient has pain in the head",
    "a patient with flu has fever",
    "the heart and lung test was good",
]


@pytest.mark.parametrize("eps,delta,iterations,conversion", [(10.0, 1e-3, 10, "bun-steinke"), (1.0, 1e-5, 3, "cks"),
                                                              (4.0, 1e-3, 1, "bun-steinke")])
def test_cost_closed_form(eps, delta, iterations, conversion):
    cal = AugPEConfig(epsilon=eps, delta=delta, iterations=iterations, conversion=conversion).calibrate()
    assert iterations * cal.rho_iteration == pytest.approx(iterations / (2 * cal.sigma**2), rel=1e-12)
    assert cal.sigma == pytest.approx(math.sqrt(iterations / (2 * rho_from_epsilon(eps, delta, conversion=conversion))), rel=1e-8)
    assert epsilon_from_rho(iterations / (2 * cal.sigma**2), delta, conversion=conversion) <= eps


def test_votes_are_k_ones_on_the_nearest_samples():
    gen = np.random.default_rng(0)
    x = gen.normal(size=(50, 8))
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    p = gen.normal(size=(7, 8))
    p /= np.linalg.norm(p, axis=1, keepdims=True)
    for k in (1, 3, 7):
        v = nearest_neighbor_votes(x, p, k=k)
        assert v.shape == (50, 7) and v.dtype == np.int64
        assert np.isin(v, (0, 1)).all() and (v.sum(axis=1) == k).all()  # the histogram's L2 sensitivity is sqrt(k)
        dist = ((x[:, None, :] - p[None, :, :]) ** 2).sum(-1)
        nearest = np.argsort(dist, axis=1)[:, :k]
        assert all(set(np.flatnonzero(v[i])) == set(nearest[i]) for i in range(50))
    assert nearest_neighbor_votes(np.zeros((0, 8)), p, k=1).shape == (0, 7)
    with pytest.raises(ConfigError):
        nearest_neighbor_votes(x, p, k=8)
    with pytest.raises(ConfigError):
        nearest_neighbor_votes(x, p[:, :4], k=1)


def test_select_parents():
    counts = np.array([0.0, 5.0, 1.0, 7.0, 0.0])
    assert list(select_parents(counts, 2, mode="rank", random=SeededRandom(0))) == [3, 1]
    draws = select_parents(counts, 13_000, mode="prob", random=SeededRandom(1))
    observed = np.bincount(draws, minlength=5)
    assert observed[0] == observed[4] == 0
    # Fixed seed: a chi-square p-value below 1e-4 would mean parents are not drawn ∝ counts.
    assert chisquare(observed[[1, 2, 3]], 13_000 * np.array([5, 1, 7]) / 13).pvalue > 1e-4
    uniform = np.bincount(select_parents(np.zeros(4), 8000, mode="prob", random=SeededRandom(2)), minlength=4)
    assert chisquare(uniform).pvalue > 1e-4
    with pytest.raises(ConfigError):
        select_parents(counts, 2, mode="best", random=SeededRandom(0))


def test_sample_texts_follows_the_model(tiny_lm):
    prompt = tiny_lm.chat_prompt("the patient has fever")
    a = sample_texts(tiny_lm, [prompt] * 3, max_new_tokens=4, temperature=1.0, random=SeededRandom(0))
    b = sample_texts(tiny_lm, [prompt] * 3, max_new_tokens=4, temperature=1.0, random=SeededRandom(0))
    assert a == b and len(a) == 3
    # At a very low temperature, sampling is greedy decoding.
    cold = sample_texts(tiny_lm, [prompt], max_new_tokens=4, temperature=1e-4, random=SeededRandom(5))
    assert cold == [tiny_lm.generate_greedy([prompt], max_new_tokens=4)[0].strip()]
    with pytest.raises(ConfigError):
        sample_texts(tiny_lm, [prompt], max_new_tokens=0, temperature=1.0, random=SeededRandom(0))


def test_bad_input_is_rejected(tmp_path, tiny_lm):
    with pytest.raises(ValidationError):
        AugPEConfig(epsilon=-1.0, delta=1e-3)
    with pytest.raises(ValidationError):
        AugPEConfig(epsilon=1.0, delta=1e-3, iterations=0)
    with pytest.raises(ValidationError):
        AugPEConfig(epsilon=1.0, delta=1e-3, population_size=4, L=5)
    with pytest.raises(ValidationError):
        AugPEConfig(epsilon=1.0, delta=1e-3, population_size=5, L=2, num_nearest_neighbor=5)
    with pytest.raises(ValidationError):
        AugPEConfig(epsilon=1.0, delta=1e-3, variation_prompt="no placeholder")
    with pytest.raises(ValidationError):
        AugPEConfig(epsilon=1.0, delta=1e-3, selection="best")
    with pytest.raises(ConfigError, match="description"):
        build_aug_pe(DOCS, tmp_path / "a", AugPEConfig(epsilon=1.0, delta=1e-3, self_filter=False), lm=tiny_lm,
                     embedder=HashEmbedder())
    assert list(tmp_path.iterdir()) == []


def test_build_charges_one_histogram_per_iteration(tmp_path, tiny_lm):
    cfg = AugPEConfig(epsilon=5.0, delta=1e-3, population_size=4, iterations=3, L=2, T=4, self_filter=False,
                      description="notes of a doctor about a patient", max_document_tokens=16, seed=0)
    corpus = build_aug_pe(DOCS, tmp_path / "c", cfg, lm=tiny_lm, embedder=HashEmbedder())
    cal = cfg.calibrate()
    m = json.loads((tmp_path / "c" / "manifest.json").read_text())
    assert m["method"] == "aug-pe" and m["description"] == "notes of a doctor about a patient"
    p = m["privacy"]
    gaussians = p["mechanisms"]
    assert len(gaussians) == cfg.iterations  # exactly the iterations that read the private data
    assert all(g["mechanism"] == "discrete_gaussian" and g["l2_sensitivity"] == 1.0 for g in gaussians)
    assert all(g["sigma"] == pytest.approx(cal.sigma) for g in gaussians)
    assert p["realised_spend"] is None  # the ledger is the plan
    assert p["rho_total"] == pytest.approx(cfg.iterations / (2 * cal.sigma**2), rel=1e-12)
    assert p["epsilon"] <= 5.0 and p["epsilon_tight"] < p["epsilon"]
    assert 1 <= len(corpus.records) <= cfg.selected_size
    assert all({"id", "text", "noisy_count", "kept"} <= set(r) for r in corpus.records)
    assert all(isinstance(r["noisy_count"], int) for r in corpus.records)  # exact discrete noise: integer votes
    stages = m["truncation"]  # the cuts are public parameters; how many documents were cut is owner-only
    assert [t["max_tokens"] for t in stages] == [16, None] and all("owner-only" in t["documents_cut"] for t in stages)
    owner = json.loads((tmp_path / "c.owner.json").read_text())
    assert owner["truncation"][0]["documents_cut"] == sum(len(d.split()) > 16 for d in DOCS) == 0
    assert m["not_for_release"] is True
    blob = "\n".join(f.read_text() for f in (tmp_path / "c").iterdir() if f.suffix in (".jsonl", ".json"))
    assert not any(d in blob for d in DOCS)


@pytest.mark.slow
def test_aug_pe_end_to_end_on_medical_slice(tmp_path, offline_lm, offline_embedder, medical_slice):
    cfg = AugPEConfig(epsilon=10.0, delta=1e-3, population_size=4, iterations=2, L=2, T=8, task="medical",
                      max_document_tokens=64, seed=0)
    corpus = build_aug_pe(medical_slice[:20], tmp_path / "c", cfg, lm=offline_lm, embedder=offline_embedder)
    print("Aug-PE texts:", [(r["text"], round(r["noisy_count"], 2), r["kept"]) for r in corpus.records])
    assert corpus.manifest["method"] == "aug-pe" and 1 <= len(corpus.records) <= 2
    assert len(corpus.privacy_report.mechanisms) == 2 and corpus.privacy_report.epsilon <= 10.0
    assert corpus.manifest["description"].startswith("Medical Synth")
    blob = "\n".join(p.read_bytes().decode("utf-8", errors="replace") for p in (tmp_path / "c").iterdir() if p.is_file())
    for doc in medical_slice[:20]:
        assert doc.text not in blob
