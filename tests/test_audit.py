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
    TABLE_JSON,
    TABLE_MD,
    TABLE_PLOT,
    audit_row,
    guess_membership,
    make_canaries,
    membership_scores,
    run_audit,
    run_audit_sweep,
    score_parts,
)
from dpsynrag.audit.bound import (
    CANARY_SIZES,
    design_audit,
    epsilon_lower_bound,
    max_epsilon_lower_bound,
    one_run_p_value,
)
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


def _p_value_by_hand(m, r, v, eps, delta):
    """The theorem's p-value from exact binomial probabilities (math.comb; independent of scipy)."""
    q = _q(eps)
    pmf = [math.comb(r, j) * q**j * (1 - q) ** (r - j) for j in range(r + 1)]
    f = lambda u: sum(pmf[max(u, 0):])  # noqa: E731
    if delta == 0 or v == 0:
        return min(f(v), 1.0)
    return min(f(v) + 2 * m * delta * max((f(v - i) - f(v)) / i for i in range(1, v + 1)), 1.0)


@pytest.mark.parametrize("m, r, delta", [(40, 20, 1e-3), (100, 50, 1e-3), (64, 32, 1e-5), (30, 30, 0.0)])
def test_reachable_bound_by_brute_force(m, r, delta):
    """The largest reachable bound (v = r) is the first ε on a 0.002 grid whose hand-computed p-value
    reaches 5%: every grid point below it is rejected."""
    reach = max_epsilon_lower_bound(m, r, delta=delta)
    grid = np.arange(0.0, reach + 0.5, 0.002)
    first = next(e for e in grid if _p_value_by_hand(m, r, r, e, delta) >= 0.05)
    assert reach == pytest.approx(first, abs=0.002)
    assert _p_value_by_hand(m, r, r, reach - 1e-4, delta) < 0.05 <= _p_value_by_hand(m, r, r, reach + 1e-4, delta)


def test_design_follows_the_public_rule():
    # delta = 0: the reachable bound of m canaries and r = m/2 guesses is -log(0.05^(-1/r) - 1)
    closed = {m: -math.log(0.05 ** (-2 / m) - 1) for m in CANARY_SIZES}
    assert closed[1000] == pytest.approx(5.1144, abs=1e-4) and closed[16000] == pytest.approx(7.8898, abs=1e-4)
    for eps in (0.5, 4.0, 5.5, 6.0, 7.5):
        d = design_audit(eps, 0.0)
        assert d.canaries == min(m for m in CANARY_SIZES if closed[m] > eps)  # the smallest size that reaches
        assert d.k_in == d.k_out == d.canaries // 4 and d.guesses == d.canaries // 2
        assert d.reachable == pytest.approx(closed[d.canaries], abs=1e-8) and d.reachable > eps
    # no size reaches: the largest reachable bound, below the claim (delta = 1e-3: 2m*delta grows with m)
    for eps, delta in ((8.0, 0.0), (8.0, 1e-3), (4.0, 1e-3)):
        d = design_audit(eps, delta)
        every = {m: max_epsilon_lower_bound(m, m // 2, delta=delta) for m in CANARY_SIZES}
        assert d.canaries == max(every, key=every.get) and d.reachable == pytest.approx(max(every.values()))
        assert d.reachable < eps
    assert design_audit(8.0, 1e-3).canaries == 1000  # the delta term: more canaries lower the reachable bound
    # given counts: no rule
    d = design_audit(2.0, 1e-5, canaries=200, k_in=30, k_out=10)
    assert (d.canaries, d.guesses, d.target) == (200, 40, None)
    assert d.reachable == pytest.approx(max_epsilon_lower_bound(200, 40, delta=1e-5))
    with pytest.raises(ConfigError, match="guesses"):
        design_audit(2.0, 1e-5, canaries=10, k_in=6, k_out=6)
    with pytest.raises(ConfigError, match="epsilon"):
        design_audit(0.0, 1e-5)


def test_abstention_raises_the_bound_of_a_partial_leak():
    """One simulated run, m = 1000: the released corpus shows the secrets of a quarter of the included
    canaries (exact match, score 2 + noise) and nothing about the rest (noise). Guessing only the top 100 IN
    and abstaining on 900 proves far more than guessing all 1,000; abstentions are never counted."""
    rng = np.random.default_rng(3)
    m = 1000
    included = rng.integers(0, 2, size=m).astype(bool)
    leaked = included & (rng.random(m) < 0.25)
    scores = 2.0 * leaked + rng.random(m)
    truth = np.where(included, 1, -1)

    def bound(k_in, k_out):
        g = guess_membership(scores, k_in=k_in, k_out=k_out, seed=0)
        assert (g == 0).sum() == m - k_in - k_out
        v = int(np.sum(g == truth))
        return v, epsilon_lower_bound(m, k_in + k_out, v, delta=1e-5)

    v_top, top = bound(100, 0)
    v_all, everything = bound(500, 500)
    assert v_top == 100  # every abstaining design choice made before the scores were seen
    assert top == pytest.approx(max_epsilon_lower_bound(m, 100, delta=1e-5))
    assert 500 < v_all < 700 and everything < 0.7 < top


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


def test_char_ngram_closed_forms():
    from dpsynrag.audit.scoring import _CharNgram

    # order 1: P(c) = (N(c) + 1/27) / (N + 1) over the text " aab " (N = 5; ' ': 2, a: 2, b: 1)
    uni = _CharNgram(" aab ", order=1)
    p = {c: (n + 1 / 27) / 6 for c, n in {" ": 2, "a": 2, "b": 1, "z": 0}.items()}
    assert uni.log_likelihood("ab") == pytest.approx(math.log(p["a"] * p["b"] * p[" "]), rel=1e-12)
    assert uni.log_likelihood("z") == pytest.approx(math.log(p["z"] * p[" "]), rel=1e-12)
    # order 2: P(c | h) = (N(hc) + P1(c)) / (N(h.) + 1); bigrams of " aab ": " a", "aa", "ab", "b "
    bi = _CharNgram(" aab ", order=2)
    big = {" a": 1, "aa": 1, "ab": 1, "b ": 1}
    ctx = {" ": 1, "a": 2, "b": 1}

    def p2(h, c):
        return (big.get(h + c, 0) + p[c]) / (ctx.get(h, 0) + 1)

    expected = math.log(p2(" ", "a")) + math.log(p2("a", "b")) + math.log(p2("b", " "))
    assert bi.log_likelihood("ab") == pytest.approx(expected, rel=1e-12)
    assert bi.log_likelihood("ab") > uni.log_likelihood("ab")  # the seen bigrams are likelier in context


def _corpus(path, records):
    with CorpusWriter(path) as w:
        w.finish(records, {"method": "test"}, HashEmbedder())
    return path


SECRETS = ["Zlubomitis", "Brodrebemia", "Tesumitis", "Kubinitis"]


def test_scores_read_keywords_and_texts(tmp_path):
    from dpsynrag.audit.scoring import _CharNgram, _letters

    records = [
        {"id": 0, "keyword": "zlubomitis", "noisy_count": 3, "text": "nothing here", "kept": True},
        {"id": 1, "keyword": "fever", "noisy_count": 9, "text": "The patient has Brodrebemia and Brodrebemia.", "kept": False},
        {"id": 2, "keyword": "cough", "noisy_count": 5, "text": "a tesum... mention", "kept": True},
    ]
    exact, echo = score_parts(_corpus(tmp_path / "c", records), SECRETS)
    assert list(exact) == [1, 2, 0, 0]  # one released keyword; two whole words in a (not kept) text
    # echo: per-character log-likelihood ratio, released texts and keywords vs. the secrets themselves
    released = _CharNgram(_letters("nothing here\nThe patient has Brodrebemia and Brodrebemia.\na tesum... mention\n"
                                   "zlubomitis\nfever\ncough"))
    reference = _CharNgram(_letters("zlubomitis brodrebemia tesumitis kubinitis"))
    for s, e in zip(SECRETS, echo):
        w = s.lower()
        assert e == pytest.approx((released.log_likelihood(w) - reference.log_likelihood(w)) / (len(w) + 1), rel=1e-12)
    scores = membership_scores(tmp_path / "c", SECRETS)
    assert scores == pytest.approx(2 * exact + 1 / (1 + np.exp(-echo)), rel=1e-12)
    assert min(scores[:2]) > 2 > max(scores[2:])  # any exact occurrence outranks every echo


def test_echo_rises_with_a_partial_copy(tmp_path):
    """The n-gram echo sees a secret that is never released whole: "tesumi" in a text raises the echo of
    Tesumitis (and of no other secret as much), while its exact count stays 0."""
    base = [{"id": i, "keyword": k, "noisy_count": 5, "text": t, "kept": True}
            for i, (k, t) in enumerate([("fever", "the patient has a fever and a cough"),
                                        ("cough", "rest and drink tea for the cough")])]
    echoed = [*base, {"id": 2, "keyword": "rash", "noisy_count": 5, "text": "a rash, maybe tesumi or so", "kept": True}]
    plain = [*base, {"id": 2, "keyword": "rash", "noisy_count": 5, "text": "a rash, maybe eczema or so", "kept": True}]
    exact_e, echo_e = score_parts(_corpus(tmp_path / "e", echoed), SECRETS)
    exact_p, echo_p = score_parts(_corpus(tmp_path / "p", plain), SECRETS)
    assert list(exact_e) == list(exact_p) == [0, 0, 0, 0]
    rise = echo_e - echo_p
    assert rise[2] > 0.3 and rise[2] > 3 * max(abs(rise[[0, 1, 3]]))
    assert int(np.argmax(echo_e)) == 2  # the echoed secret is guessed IN first


# ------------------------------------------------------------------------------------------ end to end

NAMES = [f"{a} {b}" for a in ("Anna", "Peter", "Maria", "Lucas", "Emma", "Noah", "Julia", "Felix")
         for b in ("Miller", "Rossi", "Keller", "Weber", "Costa", "Novak", "Larsen", "Dubois", "Jansen", "Moreau")]


def _documents(n=80):
    """Medical Synth-like records of distinct patients: two invented diseases (40 documents each)."""
    symptoms = [["Fatigue", "Dizziness", "Fever"], ["Cough", "Headache", "Nausea"]]
    diseases, treatments = ["Flibberflux", "Snurfleosis"], ["Giggle Drops", "Tummy Tickle Therapy"]
    names = [NAMES[i % len(NAMES)] + (f" {i // len(NAMES)}" if i >= len(NAMES) else "") for i in range(n)]
    return [medical_document_text(names[i], diseases[i % 2], symptoms[i % 2], treatments[i % 2]) for i in range(n)]


AUDIT = dict(K=3, R=400, L=1, k=5, T=2, open_vocabulary=True, extractor="rarity", self_filter=False, task="medical",
             seed=0, max_document_tokens=64)


def test_honest_build_passes(tmp_path, tiny_lm):
    """A correct build at epsilon = 10 releases no canary's secret: about half the guesses are right and the
    bound stays far below the claim (seeded: the check is deterministic; for a correct build a bound above the
    claim happens with probability at most 5% over the audit's coins)."""
    config = BuildConfig(epsilon=10.0, delta=1e-3, **AUDIT)
    result = run_audit(_documents(), tmp_path / "a", config, canaries=40, seed=1, lm=tiny_lm, embedder=HashEmbedder())
    assert result.guesses == 20 and result.k_in == result.k_out == 10
    assert all(d["exact"] == 0 and d["score"] < 2 for d in result.details)  # no exact occurrence of any secret
    assert not result.refuted and result.epsilon_lower_bound < 10.0
    assert result.epsilon_lower_bound <= result.max_epsilon_lower_bound
    assert result.max_epsilon_lower_bound == pytest.approx(max_epsilon_lower_bound(40, 20, delta=1e-3))
    assert result.verdict == "not refutable"  # 1.69 reachable: no outcome of 40 canaries could refute epsilon = 10
    saved = json.loads((tmp_path / "a" / AUDIT_FILE).read_text())
    assert saved["correct"] == result.correct and saved["claimed_epsilon"] == 10.0
    assert sum(d["included"] for d in saved["details"]) == result.included
    # no private document text in the audit record
    blob = (tmp_path / "a" / AUDIT_FILE).read_text()
    assert "Flibberflux" not in blob and "Snurfleosis" not in blob
    # issue 29, item 5: the audit corpus and its record say NOT FOR RELEASE
    assert saved["not_for_release"] is True and "NOT FOR RELEASE" in saved["note"]
    manifest = json.loads((tmp_path / "a" / "corpus" / "manifest.json").read_text())
    assert manifest["not_for_release"] is True and manifest["privacy"]["secure_randomness"] is False
    assert any("NOT FOR RELEASE" in note for note in manifest["privacy"]["notes"])


def test_audit_refuses_to_build_without_a_seed(tmp_path, tiny_lm, monkeypatch):
    """Issue 29, item 5: an audit without a seed used to build with secure randomness, charge nothing and
    leave a corpus of invented canaries unmarked. It now refuses before anything is built or written."""
    calls = []
    monkeypatch.setattr(build_module, "build_corpus", lambda *a, **k: calls.append(1))
    config = BuildConfig(epsilon=10.0, delta=1e-3, **{**AUDIT, "seed": None})
    with pytest.raises(ConfigError, match="seed"):
        run_audit(_documents(), tmp_path / "a", config, canaries=40, seed=1, lm=tiny_lm, embedder=HashEmbedder())
    assert calls == [] and not (tmp_path / "a").exists()
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps({"text": t}) + "\n" for t in _documents(10)))
    result = CliRunner().invoke(app, ["audit", str(data), "--out", str(tmp_path / "o"), "--epsilon", "10",
                                      "--delta", "1e-3", "--task", "medical", "--canaries", "8"])
    assert result.exit_code == 2 and "--seed" in result.output
    result = CliRunner().invoke(app, ["audit", str(data), "--out", str(tmp_path / "o"), "--epsilons", "1,10",
                                      "--delta", "1e-3", "--task", "medical", "--canaries", "8"])
    assert result.exit_code == 2 and "--seed" in result.output
    with pytest.raises(ConfigError, match="seed"):
        run_audit_sweep(_documents(), tmp_path / "s", config, [1.0, 10.0], canaries=8, lm=tiny_lm)
    assert calls == [] and not (tmp_path / "o").exists() and not (tmp_path / "s").exists()


@pytest.fixture()
def broken_histogram(monkeypatch):
    """The control: the open-vocabulary histogram releases exact counts with no threshold (the bug), while the
    accountant is charged as usual and the report still claims the configured epsilon. Injected here, never a
    switch of the shipped code. Returns the list of its calls."""
    real = build_module.gaussian_sparse_histogram
    calls = []

    def broken(keyword_sets, **kwargs):
        real(keyword_sets, **kwargs)  # the honest mechanism's accounting, output discarded
        calls.append(1)
        counts = Counter(w for ks in keyword_sets for w in cap_keywords(ks, max_keywords=kwargs["max_keywords"]))
        return {w: float(c) for w, c in counts.items()}

    monkeypatch.setattr(build_module, "gaussian_sparse_histogram", broken)
    return calls


def test_broken_histogram_is_caught(tmp_path, tiny_lm, broken_histogram):
    """Every included canary's secret becomes a released keyword, so all 20 guesses are right and the bound
    (1.69 at delta = 1e-3) exceeds the claim epsilon = 1."""
    config = BuildConfig(epsilon=1.0, delta=1e-3, split="fractions", **AUDIT)
    result = run_audit(_documents(), tmp_path / "a", config, canaries=40, seed=1, lm=tiny_lm, embedder=HashEmbedder())
    assert broken_histogram == [1]
    manifest = json.loads((tmp_path / "a" / "corpus" / "manifest.json").read_text())
    assert manifest["privacy"]["epsilon"] <= 1.0  # the report still claims epsilon = 1
    assert result.correct == result.guesses == 20
    assert result.epsilon_lower_bound == pytest.approx(result.max_epsilon_lower_bound)
    assert result.epsilon_lower_bound > 1.0 and result.refuted and result.verdict == "refuted"
    # the tested claim is the smaller one the report makes (tight conversion); no pure-DP bound is reported
    assert result.claimed_epsilon_tight <= result.claimed_epsilon and not hasattr(result, "epsilon_lower_bound_pure")


# 400 documents: each invented disease 200 times, above the open-vocabulary threshold at epsilon = 2
# (102 with the fractions split at delta = 1e-5); 200 canaries reach a bound of 3.49 at delta = 1e-5.
POWER = dict(AUDIT, split="fractions")


def test_broken_control_refuted_where_the_design_reaches(tmp_path, tiny_lm, broken_histogram):
    """Audit power (issue 29, item 6): at epsilon = 2 (tight 1.6), where 200 canaries can reach 3.49, the
    broken histogram is refuted with every guess right; the reachable bound was known before the build."""
    said = []
    config = BuildConfig(epsilon=2.0, delta=1e-5, **POWER)
    result = run_audit(_documents(400), tmp_path / "a", config, canaries=200, seed=2, lm=tiny_lm,
                       embedder=HashEmbedder(), log=said.append)
    assert len(said) == 1 and "3.487" in said[0] and "it can refute the claim" in said[0]  # said before the build
    assert result.max_epsilon_lower_bound == pytest.approx(max_epsilon_lower_bound(200, 100, delta=1e-5))
    assert result.max_epsilon_lower_bound > result.claimed_epsilon
    assert all(d["exact"] >= 1 for d in result.details if d["included"])  # every included secret released
    assert result.correct == result.guesses == 100 and result.refuted and result.verdict == "refuted"
    assert result.epsilon_lower_bound == pytest.approx(result.max_epsilon_lower_bound)


def test_honest_build_consistent_where_the_design_reaches(tmp_path, tiny_lm):
    """The same design on the honest build: no secret is released, the guesses are at chance, and the claim
    that this design could have refuted is not (seeded; at most 5% of coin draws would refute a correct build)."""
    config = BuildConfig(epsilon=2.0, delta=1e-5, **POWER)
    result = run_audit(_documents(400), tmp_path / "a", config, canaries=200, seed=2, lm=tiny_lm,
                       embedder=HashEmbedder())
    assert all(d["exact"] == 0 for d in result.details)
    assert 30 <= result.correct <= 70  # Binomial(100, 1/2): outside with probability < 1e-4
    assert result.verdict == "consistent" and result.epsilon_lower_bound < result.claimed_epsilon_tight


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
    base = ["audit", str(data), "--out", str(tmp_path / "o"), "--epsilon", "10", "--delta", "1e-3", "--seed", "0"]
    result = CliRunner().invoke(app, base)
    assert result.exit_code == 2 and "--canary-template" in result.output
    result = CliRunner().invoke(app, [*base, "--task", "medical", "--canaries", "8", "--guesses-in", "9"])
    assert result.exit_code == 2 and "guesses" in result.output
    result = CliRunner().invoke(app, [*base, "--task", "medical", "--epsilons", "1,2"])
    assert result.exit_code == 2 and "--epsilons" in result.output and "not both" in result.output
    result = CliRunner().invoke(app, [*base[:4], *base[6:], "--task", "medical", "--epsilons", "1,two"])
    assert result.exit_code == 2 and "--epsilons" in result.output
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
    said = " ".join(result.output.split())  # the console wraps long lines
    assert "1.695" in said and "claim is above the largest bound this design can reach" in said
    # the design and its reachable bound are said before the build starts
    plan = said.index("audit design (given): 40 canaries, 20 guesses (10 IN, 10 OUT, 20 abstain)")
    assert plan < said.index("stage 1") and "1.695" in said[plan:said.index("stage 1")]
    saved = json.loads((tmp_path / "o" / AUDIT_FILE).read_text())
    assert saved["claimed_epsilon"] == 10.0 and saved["guesses"] == 20 and saved["seed"] == 1
    result = CliRunner().invoke(app, [*args, "--overwrite", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["correct"] == saved["correct"]  # progress goes to stderr
    sweep = [a for a in args if a not in ("--epsilon", "10")]
    sweep[3] = str(tmp_path / "s")
    result = CliRunner().invoke(app, [*sweep, "--epsilons", "1,10", "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert [r["claimed_epsilon"] for r in rows] == [1.0, 10.0]
    # epsilon = 1: the paper split's histogram alone needs more than the budget; the row says so, the sweep goes on
    assert rows[0]["verdict"] == "build failed" and rows[0]["error"].startswith("InfeasibleBudgetError")
    assert rows[1]["verdict"] == "not refutable" and rows[1]["correct"] == saved["correct"]
    assert {p.name for p in (tmp_path / "s").iterdir()} == {TABLE_MD, TABLE_JSON, TABLE_PLOT, "eps-10"}


def test_epsilon_sweep_table_and_plot(tmp_path, tiny_lm, broken_histogram):
    """`run_audit_sweep` (the engine of `dpsynrag audit --epsilons`): one audit per claimed epsilon, the broken
    control refuted wherever its design's reachable bound exceeds the tested claim; a table (markdown, JSON)
    and a plot."""
    config = BuildConfig(epsilon=1.0, delta=1e-5, **POWER)
    rows = run_audit_sweep(_documents(400), tmp_path / "s", config, [1.0, 4.0], build="broken control",
                           canaries=200, lm=tiny_lm, embedder=HashEmbedder())
    assert [r["claimed_epsilon"] for r in rows] == [1.0, 4.0] and len(broken_histogram) == 2
    reach = max_epsilon_lower_bound(200, 100, delta=1e-5)
    for row in rows:
        assert row["max_epsilon_lower_bound"] == pytest.approx(reach)
        expected = "refuted" if reach > row["claimed_epsilon_tight"] else "not refutable"
        assert row["verdict"] == expected and row["correct"] == row["guesses"] == 100
    assert rows[0]["verdict"] == "refuted" and rows[1]["verdict"] == "not refutable"  # 3.49 below the tested 4-claim
    saved = json.loads((tmp_path / "s" / TABLE_JSON).read_text())
    assert saved["rows"] == json.loads(json.dumps(rows))
    md = (tmp_path / "s" / TABLE_MD).read_text()
    assert "| broken control | dp-synrag | 1 |" in md and "| refuted |" in md and "NOT FOR RELEASE" in md
    assert (tmp_path / "s" / TABLE_PLOT).read_bytes()[:4] == b"\x89PNG"
    assert (tmp_path / "s" / "eps-1" / AUDIT_FILE).is_file()
    with pytest.raises(FileExistsError):
        run_audit_sweep(_documents(400), tmp_path / "s", config, [1.0], canaries=200, lm=tiny_lm,
                        embedder=HashEmbedder())


def test_audit_of_other_corpus_methods(tmp_path, tiny_lm):
    """The same audit for Aug-PE (any corpus method of the registry): its corpus is built by the method, its
    texts are model-written (no canary's secret among them) and the row names the method; an online method or
    a config of another method is refused before anything is built."""
    from dpsynrag.baselines.aug_pe import AugPEConfig

    config = AugPEConfig(epsilon=4.0, delta=1e-5, seed=0, task="medical", self_filter=False, T=4, population_size=20,
                         iterations=2, L=2, max_document_tokens=64)
    result = run_audit(_documents(), tmp_path / "a", config, canaries=40, lm=tiny_lm, embedder=HashEmbedder(),
                       method="aug-pe")
    assert result.corpus_method == "aug-pe" and result.seed == 0  # the build's seed, by default
    manifest = json.loads((tmp_path / "a" / "corpus" / "manifest.json").read_text())
    assert manifest["method"] == "aug-pe" and manifest["not_for_release"] is True
    assert all(d["exact"] == 0 for d in result.details) and not result.refuted
    assert audit_row(result, claimed_epsilon=4.0)["method"] == "aug-pe"
    with pytest.raises(ConfigError, match="AugPEConfig"):
        run_audit(_documents(), tmp_path / "b", BuildConfig(epsilon=4.0, delta=1e-5, **POWER), canaries=40,
                  lm=tiny_lm, embedder=HashEmbedder(), method="aug-pe")
    with pytest.raises(ConfigError, match="corpus"):
        run_audit(_documents(), tmp_path / "c", config, canaries=40, lm=tiny_lm, method="dp-rag")
    assert not (tmp_path / "b").exists() and not (tmp_path / "c").exists()


def test_a_sweep_table_with_no_audited_row_plots_without_a_legend_warning(tmp_path):
    """Every build failed: the table says so and the plot is written with no (empty) legend, so matplotlib
    warns of nothing."""
    import warnings

    from dpsynrag.audit import write_audit_table

    rows = [audit_row(None, claimed_epsilon=e, error="InfeasibleBudgetError: x") for e in (1.0, 2.0)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the old plot: "No artists with labels found to put in legend"
        paths = write_audit_table(rows, tmp_path, title="sweep")
    assert paths["plot"].read_bytes()[:4] == b"\x89PNG"
    assert (tmp_path / TABLE_MD).read_text().count("build failed: InfeasibleBudgetError: x") == 2


def test_a_sweep_whose_every_build_failed_exits_non_zero(tmp_path, monkeypatch):
    """`dpsynrag audit --epsilons` with no claim audited (every build failed) exits 1, not 0."""
    import dpsynrag.commands.audit as audit_command

    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps({"text": t}) + "\n" for t in _documents(10)))
    failed = [{"claimed_epsilon": e, "verdict": "build failed", "error": "InfeasibleBudgetError: x"} for e in (1.0, 2.0)]
    monkeypatch.setattr(audit_command, "run_audit_sweep", lambda *a, **k: failed)
    args = ["audit", str(data), "--out", str(tmp_path / "o"), "--epsilons", "1,2", "--delta", "1e-3", "--task",
            "medical", "--canaries", "8", "--seed", "0"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 1 and "no claim was audited" in result.output
    audited = {"claimed_epsilon": 2.0, "claimed_epsilon_tight": 1.7, "canaries": 8, "guesses": 4, "correct": 2,
               "epsilon_lower_bound": 0.0, "max_epsilon_lower_bound": 1.0, "verdict": "consistent"}
    monkeypatch.setattr(audit_command, "run_audit_sweep", lambda *a, **k: [failed[0], audited])
    result = CliRunner().invoke(app, [*args, "--overwrite"])
    assert result.exit_code == 0, result.output
