"""The empirical privacy audit (dpsynrag.audit): the one-run ε lower bound against exact binomial tails
and closed forms, the canary design, the score, and end-to-end builds with the tiny model — an honest one
that passes and a deliberately broken one (injected here, never in the shipped code) that must fail."""

from __future__ import annotations

import json
import math
from collections import Counter

import numpy as np
import pytest
from fakes import HashEmbedder
from scipy.stats import binom
from typer.testing import CliRunner

import dpsynrag.pipeline.build as build_module
from dpsynrag.audit import (
    AUDIT_FILE,
    guess_membership,
    make_canaries,
    membership_scores,
    run_audit,
)
from dpsynrag.audit_bound import epsilon_lower_bound, max_epsilon_lower_bound, one_run_p_value
from dpsynrag.cli import app
from dpsynrag.corpus import CorpusWriter
from dpsynrag.errors import ConfigError, DataError
from dpsynrag.pipeline.config import BuildConfig
from dpsynrag.pipeline.keywords import RarityKeywordExtractor
from dpsynrag.privacy.mechanisms import cap_keywords
from dpsynrag.tasks.medical_source import medical_document_text


def _q(eps):
    return math.exp(eps) / (1 + math.exp(eps))


def _tail(r, v, q):
    """P[Binomial(r, q) >= v] by direct summation (independent of scipy)."""
    return sum(math.comb(r, j) * q**j * (1 - q) ** (r - j) for j in range(max(v, 0), r + 1))


# ------------------------------------------------------------------------------------------ the bound


@pytest.mark.parametrize("r, v, eps", [(10, 9, 0.5), (20, 15, 1.0), (50, 40, 2.0), (7, 7, 0.0), (30, 0, 3.0)])
def test_pure_p_value_is_the_binomial_tail(r, v, eps):
    expected = _tail(r, v, _q(eps))
    assert one_run_p_value(100, r, v, eps) == pytest.approx(expected, rel=1e-10)
    assert one_run_p_value(100, r, v, eps) == pytest.approx(binom.sf(v - 1, r, _q(eps)), rel=1e-10)


def test_approximate_p_value_by_hand():
    # r = v = 2, m = 3: f(2) = q^2; alpha = max(P[B=1]/1, P[B in {0,1}]/2) = max(2q(1-q), (1-q^2)/2)
    eps, delta, m = 1.0, 0.01, 3
    q = _q(eps)
    alpha = max(2 * q * (1 - q), (1 - q**2) / 2)
    assert one_run_p_value(m, 2, 2, eps, delta) == pytest.approx(q**2 + 2 * m * delta * alpha, rel=1e-12)


@pytest.mark.parametrize("m, r, v, eps, delta", [(40, 20, 17, 1.0, 1e-3), (100, 50, 41, 2.0, 1e-2), (64, 32, 32, 0.7, 0.05)])
def test_approximate_p_value_matches_the_theorem(m, r, v, eps, delta):
    q = _q(eps)
    f = lambda u: _tail(r, u, q)  # noqa: E731
    expected = f(v) + 2 * m * delta * max((f(v - i) - f(v)) / i for i in range(1, m + 1))
    assert one_run_p_value(m, r, v, eps, delta) == pytest.approx(min(expected, 1.0), rel=1e-9)


@pytest.mark.parametrize("r", [10, 20, 32, 50, 100])
def test_largest_bound_closed_form(r):
    # all r guesses correct, delta = 0: q^r = 0.05  <=>  eps = -log(0.05^(-1/r) - 1)
    expected = -math.log(0.05 ** (-1 / r) - 1)
    assert max_epsilon_lower_bound(2 * r, r) == pytest.approx(expected, abs=1e-9)
    assert epsilon_lower_bound(2 * r, r, r) == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize("m, r, v", [(40, 20, 17), (100, 50, 40), (64, 64, 50)])
def test_pure_bound_is_where_the_exact_tail_reaches_five_percent(m, r, v):
    eps = epsilon_lower_bound(m, r, v)
    assert eps > 0
    assert binom.sf(v - 1, r, _q(eps)) == pytest.approx(0.05, abs=1e-9)
    assert binom.sf(v - 1, r, _q(eps - 1e-3)) < 0.05 < binom.sf(v - 1, r, _q(eps + 1e-3))


def test_bound_properties():
    assert epsilon_lower_bound(40, 20, 10) == 0.0  # chance level
    assert epsilon_lower_bound(40, 20, 14) == 0.0  # P[Bin(20, 1/2) >= 14] = 0.058 > 0.05
    assert epsilon_lower_bound(40, 20, 15) > 0.0  # 0.021 < 0.05
    bounds = [epsilon_lower_bound(40, 20, v) for v in range(15, 21)]
    assert bounds == sorted(bounds)
    for v in range(15, 21):
        with_delta = epsilon_lower_bound(40, 20, v, delta=1e-3)
        assert with_delta < epsilon_lower_bound(40, 20, v)
        # its p-value is below the level (1 - 0.95 in floating point) at it and reaches it one grid step above
        level = 1 - 0.95
        assert one_run_p_value(40, 20, v, with_delta, 1e-3) < level <= one_run_p_value(40, 20, v, with_delta + 0.01, 1e-3)
    assert epsilon_lower_bound(40, 20, 20, confidence=0.99) < epsilon_lower_bound(40, 20, 20, confidence=0.95)
    assert max_epsilon_lower_bound(40, 20, delta=1e-3) == pytest.approx(1.6947, abs=1e-3)


def test_bound_is_valid_for_randomized_response():
    """An eps0-DP mechanism with exactly the theorem's worst case (each guess right with probability
    e^eps0/(1+e^eps0), independently): the bound may exceed eps0 in at most 5% of runs. 4,000 seeded runs;
    a true rate of 5% exceeds the 6.3% limit with probability < 1e-4 (4 standard deviations)."""
    eps0, r, runs = 1.0, 40, 4000
    bound_of = [epsilon_lower_bound(r, r, v) for v in range(r + 1)]
    correct = np.random.default_rng(7).binomial(r, _q(eps0), size=runs)
    rate = float(np.mean([bound_of[v] > eps0 for v in correct]))
    assert rate <= 0.063
    assert rate > 0.01  # the bound is not vacuous: near-tight mechanisms do get caught sometimes


def test_bound_rejects_bad_counts():
    with pytest.raises(ConfigError):
        epsilon_lower_bound(10, 11, 5)
    with pytest.raises(ConfigError):
        epsilon_lower_bound(10, 5, 6)
    with pytest.raises(ConfigError):
        epsilon_lower_bound(10, 5, 3, confidence=1.0)
    with pytest.raises(ConfigError):
        one_run_p_value(10, 5, 3, -1.0)


# ------------------------------------------------------------------------------------------ design


def test_canaries_are_unique_invented_and_seeded():
    from wordfreq import zipf_frequency

    a = make_canaries(64, seed=5, task="medical")
    assert a == make_canaries(64, seed=5, task="medical")
    assert a != make_canaries(64, seed=6, task="medical")
    secrets = [c.secret.lower() for c in a]
    assert len(set(secrets)) == 64
    assert all(zipf_frequency(s, "en") == 0 for s in secrets)
    assert not any(s != t and s in t for s in secrets for t in secrets)
    assert all(c.secret in c.text and c.text.startswith("Given the symptoms (") for c in a)
    assert 20 <= sum(c.included for c in a) <= 44  # Binomial(64, 1/2): outside with probability < 0.5%
    # the secret is each canary's first keyword under the rarity extractor (so it enters the histogram)
    first = [kw[0] for kw in RarityKeywordExtractor().extract([c.text for c in a])]
    assert first == secrets


def test_canary_template():
    c = make_canaries(4, seed=1, template="Ticket: customer {secret} reports a broken router.")
    assert all(x.text == f"Ticket: customer {x.secret} reports a broken router." for x in c)
    with pytest.raises(ConfigError, match="--canary-template"):
        make_canaries(4, seed=1, task="movielens")
    with pytest.raises(ConfigError, match="secret"):
        make_canaries(4, seed=1, template="no placeholder")
    with pytest.raises(ConfigError, match="--canaries"):
        make_canaries(1, seed=1, task="medical")


def test_guesses_top_in_bottom_out_ties_random():
    scores = [5.0, 0.0, 3.0, 0.0, 0.0, 0.0, 1.0, 0.0]
    g = guess_membership(scores, k_in=2, k_out=3, seed=0)
    assert list(np.flatnonzero(g == 1)) == [0, 2]
    assert (g == -1).sum() == 3 and all(scores[i] == 0.0 for i in np.flatnonzero(g == -1))
    assert list(g) == list(guess_membership(scores, k_in=2, k_out=3, seed=0))
    # the OUT guesses among the five tied zeros depend on the seed (a public coin), not on their position
    picks = {tuple(np.flatnonzero(guess_membership(scores, k_in=2, k_out=3, seed=s) == -1)) for s in range(20)}
    assert len(picks) > 1
    with pytest.raises(ConfigError):
        guess_membership(scores, k_in=5, k_out=4, seed=0)


def test_scores_read_keywords_and_texts(tmp_path):
    records = [
        {"id": 0, "keyword": "zlubomitis", "noisy_count": 3, "text": "nothing here", "kept": True},
        {"id": 1, "keyword": "fever", "noisy_count": 9, "text": "The patient has Brodrebemia and Brodrebemia.", "kept": False},
        {"id": 2, "keyword": "cough", "noisy_count": 5, "text": "a tesum... mention", "kept": True},
    ]
    with CorpusWriter(tmp_path / "c") as w:
        w.finish(records, {"method": "test"}, HashEmbedder())
    s = membership_scores(tmp_path / "c", ["Zlubomitis", "Brodrebemia", "Tesumitis", "Kubinitis"])
    assert s[0] == pytest.approx(2 + 1)  # one exact keyword, every 4-gram present
    assert s[1] == pytest.approx(4 + 1)  # two whole-word occurrences in a (not kept) text
    # "tesumitis" has 4-grams tesu esum sumi umit miti itis; "tesu", "esum" (text) and "miti", "itis"
    # (the keyword zlubomitis) are released: a partial score, below any exact occurrence
    assert s[2] == pytest.approx(4 / 6)
    assert s[3] == pytest.approx(1 / 6)  # "kubinitis": only "itis"


# ------------------------------------------------------------------------------------------ end to end

NAMES = [f"{a} {b}" for a in ("Anna", "Peter", "Maria", "Lucas", "Emma", "Noah", "Julia", "Felix")
         for b in ("Miller", "Rossi", "Keller", "Weber", "Costa", "Novak", "Larsen", "Dubois", "Jansen", "Moreau")]


def _documents(n=80):
    """Medical Synth-like records of distinct patients: two invented diseases (40 documents each)."""
    symptoms = [["Fatigue", "Dizziness", "Fever"], ["Cough", "Headache", "Nausea"]]
    diseases, treatments = ["Flibberflux", "Snurfleosis"], ["Giggle Drops", "Tummy Tickle Therapy"]
    return [medical_document_text(NAMES[i % len(NAMES)], diseases[i % 2], symptoms[i % 2], treatments[i % 2])
            for i in range(n)]


AUDIT = dict(K=3, R=400, L=1, k=5, T=2, open_vocabulary=True, extractor="rarity", self_filter=False, task="medical",
             seed=0, max_document_tokens=64)


def test_honest_build_passes(tmp_path, tiny_lm):
    """A correct build at epsilon = 10 releases no canary's secret: about half the guesses are right and the
    bound stays far below the claim (seeded: the check is deterministic; for a correct build a bound above the
    claim happens with probability at most 5% over the audit's coins)."""
    config = BuildConfig(epsilon=10.0, delta=1e-3, **AUDIT)
    result = run_audit(_documents(), tmp_path / "a", config, canaries=40, seed=1, lm=tiny_lm, embedder=HashEmbedder())
    assert result.guesses == 20 and result.k_in == result.k_out == 10
    assert all(d["score"] < 2 for d in result.details)  # no exact occurrence of any secret
    assert not result.refuted and result.epsilon_lower_bound < 10.0
    assert result.epsilon_lower_bound <= result.max_epsilon_lower_bound
    assert result.max_epsilon_lower_bound == pytest.approx(max_epsilon_lower_bound(40, 20, delta=1e-3))
    saved = json.loads((tmp_path / "a" / AUDIT_FILE).read_text())
    assert saved["correct"] == result.correct and saved["claimed_epsilon"] == 10.0
    assert sum(d["included"] for d in saved["details"]) == result.included
    # no private document text in the audit record
    blob = (tmp_path / "a" / AUDIT_FILE).read_text()
    assert "Flibberflux" not in blob and "Snurfleosis" not in blob


def test_broken_histogram_is_caught(tmp_path, tiny_lm, monkeypatch):
    """The control: the open-vocabulary histogram releases exact counts with no threshold (the bug), while the
    accountant is charged as usual and the report still claims epsilon = 1. Every included canary's secret
    becomes a released keyword, so all 20 guesses are right and the bound (1.69 at delta = 1e-3) exceeds 1."""
    real = build_module.gaussian_sparse_histogram
    calls = []

    def broken(keyword_sets, **kwargs):
        real(keyword_sets, **kwargs)  # the honest mechanism's accounting, output discarded
        calls.append(1)
        counts = Counter(w for ks in keyword_sets for w in cap_keywords(ks, max_keywords=kwargs["max_keywords"]))
        return {w: float(c) for w, c in counts.items()}

    monkeypatch.setattr(build_module, "gaussian_sparse_histogram", broken)
    config = BuildConfig(epsilon=1.0, delta=1e-3, split="fractions", **AUDIT)
    result = run_audit(_documents(), tmp_path / "a", config, canaries=40, seed=1, lm=tiny_lm, embedder=HashEmbedder())
    assert calls == [1]
    manifest = json.loads((tmp_path / "a" / "corpus" / "manifest.json").read_text())
    assert manifest["privacy"]["epsilon"] <= 1.0  # the report still claims epsilon = 1
    assert result.correct == result.guesses == 20
    assert result.epsilon_lower_bound == pytest.approx(result.max_epsilon_lower_bound)
    assert result.epsilon_lower_bound > 1.0 and result.refuted
    # the tested claim is the smaller one the report makes (tight conversion); no pure-DP bound is reported
    assert result.claimed_epsilon_tight <= result.claimed_epsilon and not hasattr(result, "epsilon_lower_bound_pure")


def test_audit_refuses_bad_input(tmp_path, tiny_lm):
    config = BuildConfig(epsilon=10.0, delta=1e-3, **AUDIT)
    with pytest.raises(ConfigError, match="guesses"):
        run_audit(_documents(), tmp_path / "a", config, canaries=8, k_in=5, k_out=5, lm=tiny_lm, embedder=HashEmbedder())
    assert not (tmp_path / "a").exists()
    (tmp_path / "b").mkdir()
    with pytest.raises(FileExistsError):
        run_audit(_documents(), tmp_path / "b", config, canaries=8, seed=0, lm=tiny_lm, embedder=HashEmbedder())


def test_cli_errors_name_the_flag(tmp_path):
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps({"text": t}) + "\n" for t in _documents(10)))
    base = ["audit", str(data), "--out", str(tmp_path / "o"), "--epsilon", "10", "--delta", "1e-3"]
    result = CliRunner().invoke(app, base)
    assert result.exit_code == 2 and "--canary-template" in result.output
    result = CliRunner().invoke(app, [*base, "--task", "medical", "--canaries", "8", "--guesses-in", "9"])
    assert result.exit_code == 2 and "guesses" in result.output
    assert not (tmp_path / "o").exists()


def test_failed_build_leaves_no_folder(tmp_path, tiny_lm):
    # at epsilon = 1 the honest open-vocabulary histogram releases nothing from 80 documents: the build fails
    config = BuildConfig(epsilon=1.0, delta=1e-3, split="fractions", **AUDIT)
    with pytest.raises(DataError, match="released no keyword"):
        run_audit(_documents(), tmp_path / "a", config, canaries=8, seed=0, lm=tiny_lm, embedder=HashEmbedder())
    assert list(tmp_path.iterdir()) == []


def test_eval_audit_experiment(tmp_path, tiny_lm):
    from dpsynrag.eval import EvalConfig, run_eval

    db, queries = tmp_path / "db.jsonl", tmp_path / "q.jsonl"
    db.write_text("".join(json.dumps({"id": i, "text": t, "patient_name": NAMES[i]}) + "\n"
                          for i, t in enumerate(_documents())))
    queries.write_text(json.dumps({"question": "I feel dizzy. What is my disease?", "answer": "Flibberflux"}) + "\n")
    synrag = {k: v for k, v in AUDIT.items() if k not in ("task", "seed")}
    config = EvalConfig.create(task="medical", out=tmp_path / "out", methods="dp-synrag", experiment="audit",
                               database=db, queries=queries, epsilons=(10.0, 1.0), documents=80, questions=1,
                               synrag=synrag)
    results = run_eval(config, lm=tiny_lm, embedder=HashEmbedder(), progress=False, log=lambda s: None)
    rows = {row["claimed_epsilon"]: row for row in results["audit"]["rows"]}
    assert results["audit"]["canaries"] == 64 and set(rows) == {10.0, 1.0}
    assert rows[10.0]["guesses"] == 32 and not rows[10.0]["refuted"]
    assert rows[10.0]["max_epsilon_lower_bound"] == pytest.approx(max_epsilon_lower_bound(64, 32, delta=1e-3))
    assert rows[10.0]["claimed_epsilon_tight"] < 10.0
    assert "released no keyword" in rows[1.0]["error"]  # epsilon = 1: the honest histogram releases nothing
    saved = json.loads((tmp_path / "out" / "results-audit.json").read_text())
    assert saved["audit"]["rows"][0]["correct"] == rows[10.0]["correct"]
    md = (tmp_path / "out" / "results-audit.md").read_text()
    assert "Privacy audit" in md and "| 10 (" in md and "pass" in md
    assert (tmp_path / "out" / "audit" / "eps-10" / AUDIT_FILE).is_file()


def test_cli_audit_prints_the_bound_next_to_the_claim(tmp_path, tiny_lm, monkeypatch):
    from dpsynrag.models import Embedder, LanguageModel

    monkeypatch.setattr(LanguageModel, "load", staticmethod(lambda spec=None, **kw: tiny_lm))
    monkeypatch.setattr(Embedder, "load", staticmethod(lambda spec=None, **kw: HashEmbedder()))
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps({"text": t}) + "\n" for t in _documents()))
    args = ["audit", str(data), "--out", str(tmp_path / "o"), "--epsilon", "10", "--delta", "1e-3", "--task", "medical",
            "--canaries", "40", "--K", "3", "--R", "400", "--L", "1", "--k", "5", "--T", "2", "--extractor", "rarity",
            "--open-vocabulary", "--no-self-filter", "--max-document-tokens", "64", "--seed", "1"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "epsilon lower bound (claimed delta)" in result.output and "largest reachable bound" in result.output
    assert "1.695" in result.output and "consistent with the claim" in result.output
    saved = json.loads((tmp_path / "o" / AUDIT_FILE).read_text())
    assert saved["claimed_epsilon"] == 10.0 and saved["guesses"] == 20 and saved["seed"] == 1
    result = CliRunner().invoke(app, [*args, "--overwrite", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["correct"] == saved["correct"]  # progress goes to stderr
