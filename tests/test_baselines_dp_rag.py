"""DP-RAG (query-time baseline): per-query cost against its closed form, the sensitivity of the
retrieval utilities, the law of the top-p threshold, the session ledger and its budget refusal, and a
small end-to-end run on Medical Synth with the offline models."""

from __future__ import annotations

import math

import numpy as np
import pytest
from fakes import HashEmbedder
from pydantic import ValidationError
from scipy.stats import chisquare

from dpsynrag.baselines import (
    DPRAGConfig,
    DPRAGSession,
    top_k_utility,
    top_p_threshold,
    top_p_utility,
)
from dpsynrag.baselines.dp_rag_config import DOCUMENT_SYSTEM_PROMPT
from dpsynrag.baselines.dp_rag_threshold import top_p_interval_log_weights
from dpsynrag.errors import (
    ConfigError,
    DataError,
    InfeasibleBudgetError,
    PrivacyBudgetExceededError,
)
from dpsynrag.privacy.accountant import ZCDPAccountant
from dpsynrag.privacy.conversions import epsilon_from_rho, rho_from_epsilon
from dpsynrag.privacy.events import ExponentialMechanismEvent
from dpsynrag.rng import SeededRandom

TINY_DOCS = [
    "the patient has fever and cough",
    "the patient has rash on skin",
    "the doctor has a test of blood",
    "the patient has pain in the head",
    "a patient with flu has fever",
    "the heart and lung test was good",
]

# --------------------------------------------------------------------------------------------------
# Calibration: closed form
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "eps,delta,T,tau,kwargs,conversion",
    [
        (10.0, 1e-3, 70, 1.0, {}, "bun-steinke"),
        (10.0, 1e-3, 70, 1.0, {"retrieval_epsilon": 0.5}, "bun-steinke"),
        (5.3, 1e-3, 70, 1.0, {"retrieval_fraction": 0.2}, "cks"),
        (1.0, 1e-5, 30, 0.7, {}, "bun-steinke"),
        (0.5, 1e-3, 5, 2.0, {"retrieval_epsilon": 0.05}, "cks"),
    ],
)
def test_per_query_cost_closed_form_and_epsilon_within_target(eps, delta, T, tau, kwargs, conversion):
    cfg = DPRAGConfig(epsilon_per_query=eps, delta=delta, max_new_tokens=T, temperature=tau, conversion=conversion, **kwargs)
    cal = cfg.calibrate()
    eps_r = kwargs.get("retrieval_epsilon", kwargs.get("retrieval_fraction", 1 / 11) * eps)
    assert cal.retrieval_epsilon == pytest.approx(eps_r, rel=1e-12)
    closed = eps_r**2 / 8 + T * (cal.clip / tau) ** 2 / 2
    assert cal.rho_query == pytest.approx(closed, rel=1e-12)
    assert cal.query_plan().rho == pytest.approx(closed, rel=1e-12)
    achieved = epsilon_from_rho(cal.rho_query, delta, conversion=conversion)
    assert achieved <= eps
    assert achieved == pytest.approx(eps, rel=1e-6)  # the whole per-query budget is used
    # c solves rho(eps, delta) = eps_r^2/8 + T/2 (c/tau)^2
    rho_q = rho_from_epsilon(eps, delta, conversion=conversion)
    assert cal.clip == pytest.approx(tau * math.sqrt(2 * (rho_q - eps_r**2 / 8) / T), rel=1e-8)


def test_grislain_default_split_and_paper_values():
    cal = DPRAGConfig(epsilon_per_query=10.0, delta=1e-3).calibrate()
    assert cal.retrieval_epsilon == pytest.approx(10 / 11)  # retrieval 0.5 : generation 5.0
    assert cal.rho_query == pytest.approx(2.2012, abs=1e-4)
    cfg = DPRAGConfig(epsilon_per_query=10.0, delta=1e-3, retrieval_epsilon=0.5)
    assert cfg.calibrate().clip == pytest.approx(math.sqrt(2 * (2.201197 - 0.5**2 / 8) / 70), rel=1e-5)


def test_cross_check_with_dp_accounting():
    dp_accounting = pytest.importorskip("dp_accounting")
    cal = DPRAGConfig(epsilon_per_query=10.0, delta=1e-3).calibrate()
    acc = dp_accounting.rdp.RdpAccountant()
    acc.compose(dp_accounting.ZCDpEvent(cal.retrieval_epsilon**2 / 8))
    acc.compose(dp_accounting.ZCDpEvent(cal.rho_token), cal.T)
    assert acc.get_epsilon(1e-3) <= 10.0


def test_bad_config_is_rejected():
    with pytest.raises(ValidationError):
        DPRAGConfig(epsilon_per_query=0, delta=1e-3)
    with pytest.raises(ValidationError):
        DPRAGConfig(epsilon_per_query=1, delta=1.5)
    with pytest.raises(ValidationError):
        DPRAGConfig(epsilon_per_query=1, delta=1e-3, top_p=1.0)
    with pytest.raises(ValidationError, match="document"):
        DPRAGConfig(epsilon_per_query=1, delta=1e-3, document_system_prompt="no placeholder")
    with pytest.raises(InfeasibleBudgetError, match="retrieval"):
        DPRAGConfig(epsilon_per_query=0.1, delta=1e-3, retrieval_epsilon=5.0).calibrate()


# --------------------------------------------------------------------------------------------------
# Retrieval utilities: sensitivity on neighbouring score lists
# --------------------------------------------------------------------------------------------------


def _theta_grid(*score_lists):
    pts = np.concatenate([np.clip(np.asarray(s, float), 0, 1) for s in score_lists] + [np.linspace(0, 1, 101)])
    return np.unique(np.concatenate([pts, np.clip(pts - 1e-9, 0, 1), np.clip(pts + 1e-9, 0, 1)]))


def _report_top_p_utility(scores, theta, p, alpha):
    """Grislain's report, read with s_max/s_min = the data's max/min score (NOT implemented)."""
    s = np.asarray(scores, float)
    smax, smin = s.max(), s.min()
    w = np.exp(alpha * (s - smax) / (smax - smin))
    return -abs(w[s > theta].sum() - p * w.sum())


@pytest.mark.parametrize("seed", range(20))
def test_utilities_have_sensitivity_at_most_one_on_neighbours(seed):
    gen = np.random.default_rng(seed)
    n = int(gen.integers(0, 40))
    scores = gen.uniform(-0.3, 1.1, n)
    extra = float(gen.uniform(-0.5, 1.5))
    neighbours = [(scores, np.append(scores, extra))]  # add one document
    if n:
        neighbours.append((scores, np.delete(scores, int(gen.integers(n)))))  # remove one document
    p, alpha, k = float(gen.uniform(0.01, 0.99)), float(gen.uniform(0, 10)), int(gen.integers(0, 20))
    for a, b in neighbours:
        for theta in _theta_grid(a, b):
            assert abs(top_k_utility(a, theta, k=k) - top_k_utility(b, theta, k=k)) <= 1.0
            diff = abs(top_p_utility(a, theta, p=p, alpha=alpha) - top_p_utility(b, theta, p=p, alpha=alpha))
            assert diff <= max(p, 1 - p) + 1e-12


def test_report_top_p_utility_with_data_bounds_is_not_sensitivity_one():
    # n documents at 0.5 and one at 0.9; the neighbour adds one at 0.1 (a new minimum score).
    for n, expected in ((2000, 1.593), (5000, 6.922)):
        a = [0.5] * n + [0.9]
        b = a + [0.1]
        diff = abs(_report_top_p_utility(a, 0.7, 0.02, 5.0) - _report_top_p_utility(b, 0.7, 0.02, 5.0))
        assert diff == pytest.approx(expected, abs=1e-3)  # > 1 and growing with n
        # our variant on the same pair stays within max(p, 1 - p)
        assert abs(top_p_utility(a, 0.7, p=0.02, alpha=5.0) - top_p_utility(b, 0.7, p=0.02, alpha=5.0)) <= 0.98


def test_top_p_interval_weights_are_the_utility():
    scores = np.array([0.9, -0.2, 0.4, 0.4, 1.3, 0.75])
    eps, p, alpha = 0.8, 0.3, 4.0
    breaks, lengths, log_w = top_p_interval_log_weights(scores, p=p, alpha=alpha, epsilon=eps)
    assert breaks[0] == 0 and breaks[-1] == 1 and len(log_w) == len(scores) + 1
    for j in range(len(lengths)):
        if lengths[j] == 0:
            assert log_w[j] == -np.inf
            continue
        mid = breaks[j] + lengths[j] / 2
        expected = math.log(lengths[j]) + eps * top_p_utility(scores, mid, p=p, alpha=alpha) / 2
        assert log_w[j] == pytest.approx(expected, rel=1e-12)


def test_top_p_threshold_law_and_cost():
    scores = np.array([0.2, 0.5, 0.55, 0.9])
    eps, p, alpha = 3.0, 0.4, 2.0
    breaks, lengths, log_w = top_p_interval_log_weights(scores, p=p, alpha=alpha, epsilon=eps)
    prob = np.exp(log_w - log_w.max())
    prob /= prob.sum()
    acc = ZCDPAccountant()
    rng = SeededRandom(7)
    n = 4000
    draws = np.array([top_p_threshold(scores, p=p, alpha=alpha, epsilon=eps, accountant=acc, random=rng) for _ in range(n)])
    assert ((draws >= 0) & (draws <= 1)).all()
    observed = np.histogram(draws, bins=breaks)[0]
    # Fixed seed: a chi-square p-value below 1e-4 would mean the sampler does not follow the mechanism.
    assert chisquare(observed, prob * n).pvalue > 1e-4
    assert len(acc.ledger) == n and all(isinstance(e.event, ExponentialMechanismEvent) for e in acc.ledger)
    assert acc.rho == pytest.approx(n * eps**2 / 8)
    with pytest.raises(ConfigError):
        top_p_threshold(scores, p=0.0, alpha=1.0, epsilon=1.0, accountant=acc, random=rng)
    with pytest.raises(ConfigError):
        top_p_threshold([np.nan], p=0.5, alpha=1.0, epsilon=1.0, accountant=acc, random=rng)
    with pytest.raises(PrivacyBudgetExceededError):
        top_p_threshold(scores, p=0.5, alpha=1.0, epsilon=1.0, accountant=ZCDPAccountant(rho_budget=0.01), random=rng)


def test_top_p_retrieves_about_share_p_of_the_weight_at_large_epsilon():
    gen = np.random.default_rng(0)
    scores = gen.uniform(0, 1, 300)
    acc, rng = ZCDPAccountant(), SeededRandom(1)
    theta = top_p_threshold(scores, p=0.1, alpha=3.0, epsilon=200.0, accountant=acc, random=rng)
    w = np.exp(3.0 * (scores - 1))
    # within one document's weight (each w <= 1) of the target share
    assert w[scores > theta].sum() == pytest.approx(0.1 * w.sum(), abs=1.0)
    assert 0 < (scores > theta).sum() < 300


# --------------------------------------------------------------------------------------------------
# The session (tiny model, hash embedder: fast)
# --------------------------------------------------------------------------------------------------


def _config(**kw):
    base = dict(epsilon_per_query=2.0, delta=1e-3, utility="top-k", top_k=2, max_new_tokens=3, max_document_tokens=12,
                public_weight=0.0)
    return DPRAGConfig(**{**base, **kw})


def _session(tiny_lm, **kw):
    cfg = kw.pop("config", None) or _config()
    return DPRAGSession(TINY_DOCS, cfg, lm=tiny_lm, embedder=HashEmbedder(dim=32), seed=kw.pop("seed", 0), **kw)


def test_session_ledger_is_m_times_the_query_cost_basic(tiny_lm):
    s = _session(tiny_lm)
    rho_q, eps_q = s.calibration.rho_query, s.config.epsilon_per_query
    assert s.spent()["queries"] == 0 and s.spent()["epsilon_basic"] == 0 and s.spent()["rho"] == 0
    answers = s.answer(["the patient has fever", "pain in the head"])
    answers += s.answer(["what test was good"])
    assert len(answers) == 3 and all(isinstance(a.text, str) and a.context == () for a in answers)
    spent = s.spent()
    assert spent["queries"] == 3
    assert spent["epsilon_basic"] == 3 * eps_q
    assert spent["delta_basic"] == pytest.approx(3 * 1e-3)
    assert spent["rho"] == pytest.approx(3 * rho_q, rel=1e-12)
    assert spent["epsilon_zcdp"] == pytest.approx(epsilon_from_rho(3 * rho_q, 1e-3), rel=1e-12)
    assert spent["epsilon_zcdp_tight"] < spent["epsilon_zcdp"] < spent["epsilon_basic"]
    # without budgets only m x delta < 1 bounds the session: m <= 999 at delta = 1e-3
    assert spent["epsilon"] == spent["epsilon_basic"] and spent["remaining_queries"] == 999 - 3
    assert spent["delta_session"] == pytest.approx(3e-3) and spent["total_delta"] is None
    report = s.report()
    assert report.rho_total == pytest.approx(3 * rho_q, rel=1e-12)
    assert report.epsilon == pytest.approx(spent["epsilon_zcdp"], rel=1e-12)
    assert report.parameters["session_epsilon_basic"] == 3 * eps_q
    assert report.mechanisms[0]["count"] == 3 and report.mechanisms[0]["event"]["rho"] == pytest.approx(rho_q)
    assert report.secure_randomness is False and any("NOT FOR RELEASE" in n for n in report.notes)


def test_each_query_spends_exactly_its_plan(tiny_lm, monkeypatch):
    s = _session(tiny_lm, config=_config(public_weight=0.01, utility="top-p", top_p=0.3))
    branches = []
    original = DPRAGSession._pay

    def spy(self, index):
        b = original(self, index)
        branches.append(b)
        return b

    monkeypatch.setattr(DPRAGSession, "_pay", spy)
    s.answer(["the patient has fever", "a rash on skin"])
    assert len(branches) == 2
    for b in branches:  # retrieval threshold + T tokens charged, no more
        assert b.rho == pytest.approx(s.calibration.rho_query, rel=1e-12)
        kinds = [e.event.describe()["mechanism"] for e in b.ledger]
        assert kinds == ["exponential"] + ["private_prediction_token"] * s.config.max_new_tokens


def test_total_budget_refuses_before_charging_or_generating(tiny_lm, monkeypatch):
    from dpsynrag.models import PrivatePredictionDecoder

    s = _session(tiny_lm, total_epsilon=2.5 * 2.0, composition="basic")
    assert s.remaining_queries() == 2
    calls = {"decode": 0}
    original = PrivatePredictionDecoder.generate

    def counting(self, *a, **k):
        calls["decode"] += 1
        return original(self, *a, **k)

    monkeypatch.setattr(PrivatePredictionDecoder, "generate", counting)
    with pytest.raises(PrivacyBudgetExceededError, match="2 more"):  # a call of 3 does not fit: nothing done
        s.answer(["q one", "q two", "q three"])
    assert s.queries == 0 and s.spent()["rho"] == 0 and calls["decode"] == 0
    s.answer(["the patient has fever"])
    s.answer(["the doctor has a test"])
    before = (s.spent(), s.embedder.calls, calls["decode"])
    with pytest.raises(PrivacyBudgetExceededError, match="total_epsilon"):
        s.answer(["the third question"])
    assert (s.spent(), s.embedder.calls, calls["decode"]) == before  # nothing charged, embedded or generated
    assert s.spent()["epsilon_basic"] == 2 * 2.0 and s.remaining_queries() == 0


def test_zcdp_composition_budget(tiny_lm):
    cfg = _config()
    rho_q = cfg.calibrate().rho_query
    total = epsilon_from_rho(3 * rho_q, 1e-3) * (1 + 1e-12)
    s = _session(tiny_lm, total_epsilon=total, composition="zcdp")
    assert s.remaining_queries() == 3
    s.answer(["a", "b", "c"])
    assert s.spent()["rho"] == pytest.approx(3 * rho_q, rel=1e-12)
    assert s.spent()["epsilon"] == s.spent()["epsilon_zcdp"] <= total
    with pytest.raises(PrivacyBudgetExceededError):
        s.answer(["d"])
    assert s.queries == 3
    # the same total under basic composition pays for fewer queries
    basic = _session(tiny_lm, total_epsilon=total, composition="basic")
    assert basic.remaining_queries() == int(total // cfg.epsilon_per_query) < 3


def test_delta_budget_refuses_before_charging(tiny_lm, monkeypatch):
    """Issue 12 (3): a session refuses a call whose delta would exceed total_delta (basic composition:
    m x delta), charging and computing nothing."""
    s = _session(tiny_lm, total_delta=2.5e-3)  # delta = 1e-3 per query: two queries fit
    assert s.remaining_queries() == 2
    s.answer(["the patient has fever", "the doctor has a test"])
    before = (s.spent(), s.embedder.calls)
    with pytest.raises(PrivacyBudgetExceededError, match=r"delta=0\.003 \(basic composition\), above total_delta=0\.0025"):
        s.answer(["a third question"])
    assert (s.spent(), s.embedder.calls) == before and s.queries == 2 and s.remaining_queries() == 0
    # under zCDP composition the session's delta is delta whatever m: the same budget pays for more
    z = _session(tiny_lm, total_delta=2.5e-3, composition="zcdp")
    z.answer(["a", "b", "c"])
    assert z.spent()["delta_session"] == 1e-3 and z.queries == 3
    with pytest.raises(InfeasibleBudgetError, match="one query"):
        _session(tiny_lm, total_delta=5e-4)  # delta = 1e-3 per query
    with pytest.raises(ConfigError, match="total_delta"):
        _session(tiny_lm, total_delta=1.5)


def test_m_times_delta_stays_below_one_whatever_the_budget(tiny_lm):
    """m x delta >= 1 makes basic composition vacuous: refused even without any budget, and under zCDP."""
    for composition in ("basic", "zcdp"):
        s = _session(tiny_lm, config=_config(delta=0.3), composition=composition)
        assert s.remaining_queries() == 3  # 3 x 0.3 < 1 <= 4 x 0.3
        with pytest.raises(PrivacyBudgetExceededError, match=r"m x delta = 4 x 0\.3 = 1\.2 >= 1"):
            s.answer(["a", "b", "c", "d"])
        assert s.queries == 0
        s.answer(["a", "b", "c"])
        with pytest.raises(PrivacyBudgetExceededError, match="basic composition guarantees nothing"):
            s.answer(["d"])
        assert s.queries == 3 and s.spent()["delta_basic"] == pytest.approx(0.9)


def test_session_bad_input(tiny_lm):
    with pytest.raises(InfeasibleBudgetError, match="one query"):
        _session(tiny_lm, total_epsilon=1.0)  # epsilon_per_query = 2
    with pytest.raises(InfeasibleBudgetError, match="one query"):
        _session(tiny_lm, total_epsilon=2.0, composition="zcdp", config=_config(epsilon_per_query=2.5))
    with pytest.raises(ConfigError):
        _session(tiny_lm, composition="advanced")
    with pytest.raises(ConfigError):
        _session(tiny_lm, total_epsilon=-1.0)
    with pytest.raises(ConfigError):
        DPRAGSession(TINY_DOCS, {"epsilon_per_query": 1}, lm=tiny_lm, embedder=HashEmbedder(dim=32))
    with pytest.raises(DataError):
        DPRAGSession([], _config(), lm=tiny_lm, embedder=HashEmbedder(dim=32))
    s = _session(tiny_lm)
    with pytest.raises(DataError):
        s.answer("one string, not a list")
    with pytest.raises(DataError):
        s.answer(["ok", "  "])
    assert s.answer([]) == [] and s.queries == 0


def test_seeded_sessions_are_reproducible_and_secure_by_default(tiny_lm):
    a = _session(tiny_lm, seed=5).answer(["the patient has fever", "rash"])
    b = _session(tiny_lm, seed=5).answer(["the patient has fever", "rash"])
    assert [x.text for x in a] == [x.text for x in b]
    s = DPRAGSession(TINY_DOCS, _config(), lm=tiny_lm, embedder=HashEmbedder(dim=32))
    assert s.random.is_secure and s.report().secure_randomness is True


def test_retrieval_has_no_subsampling_cap(tiny_lm, monkeypatch):
    """All documents above the threshold are prompted (no random cap on the retrieved set)."""
    from dpsynrag.models import PrivatePredictionDecoder

    docs = [f"the patient has fever day {i}" for i in range(200)]
    s = DPRAGSession(docs, _config(top_k=200, epsilon_per_query=50.0, retrieval_epsilon=10.0), lm=tiny_lm,
                     embedder=HashEmbedder(dim=32), seed=0)
    seen = {}

    def fake_generate(self, clusters, accountants, progress=False):
        seen["sizes"] = [len(c) for c in clusters]
        return ["x"] * len(clusters)

    monkeypatch.setattr(PrivatePredictionDecoder, "generate", fake_generate)
    s.answer(["the patient has fever"])
    assert seen["sizes"][0] > 128  # the reference code would cap at 128


def test_document_prompt_is_grislains():
    assert DOCUMENT_SYSTEM_PROMPT.startswith("You give a short responses based on this document")
    assert DOCUMENT_SYSTEM_PROMPT.endswith('Document:\n"{document}"')


@pytest.mark.parametrize("prompts", ["task", "reference"])
def test_member_and_public_prompts(tiny_lm, monkeypatch, prompts):
    """Default: every retrieved document gets RAG's prompt with that one document, the public prompt is
    Non-RAG's; "reference": Grislain's system prompts."""
    from dpsynrag.models import PrivatePredictionDecoder
    from dpsynrag.rag.answer import answer_user_prompt
    from dpsynrag.tasks import get_task

    task = get_task("medical")
    seen = {}
    real_init = PrivatePredictionDecoder.__init__

    def spy_init(self, lm, **kw):
        seen["public"], seen["prefix"] = kw.get("public_prompt"), kw.get("prompt_prefix")
        real_init(self, lm, **kw)

    def fake_generate(self, clusters, accountants, progress=False):
        seen["members"] = clusters[0]
        return ["x"] * len(clusters)

    monkeypatch.setattr(PrivatePredictionDecoder, "__init__", spy_init)
    monkeypatch.setattr(PrivatePredictionDecoder, "generate", fake_generate)
    s = DPRAGSession(TINY_DOCS, _config(public_weight=0.2, prompts=prompts, top_k=len(TINY_DOCS)), lm=tiny_lm,
                     embedder=HashEmbedder(dim=32), task=task, seed=0)
    q = "the patient has fever"
    s.answer([q])
    assert seen["members"]
    if prompts == "task":
        docs = [tiny_lm.truncate(d, 12) for d in TINY_DOCS]
        allowed = {tiny_lm.chat_prompt(answer_user_prompt(q, [d]), system=task.answer_system_prompt) for d in docs}
        assert set(seen["members"]) <= allowed
        assert seen["public"] == tiny_lm.chat_prompt(answer_user_prompt(q, []), system=task.answer_system_prompt)
    else:
        assert all("You give a short responses based on this document" in m for m in seen["members"])
        assert seen["public"] == tiny_lm.chat_prompt(q, system="You give a short response based on a predefined set documents.")
    # the shared prefix is a prefix of every member prompt's ids (the engine reuses its keys/values)
    assert seen["prefix"] and all(tiny_lm.encode(m)[: len(seen["prefix"])] == seen["prefix"] for m in seen["members"])


def _empty_set_probability(scores, log_weights_and_breaks):
    breaks, log_w = log_weights_and_breaks
    p = np.exp(log_w - np.logaddexp.reduce(log_w))
    return float(p[breaks[:-1] >= scores.max()].sum())


def test_default_threshold_retrieves_where_the_sound_top_p_retrieves_nothing():
    """Medical Synth's score profile (2,000 notes, cosine about 0.40 ± 0.06, a tail to 0.65): at ε = 10 per
    query (ε_r = 10/11) the top-p threshold with data-independent weights (p = 0.02, α = 5) lands above
    every score with probability > 0.5 — nothing retrieved, every token drawn from the public prior —
    while the top-k utility (k = 20, the default) does so with probability 0.5% (< 1%). Exact interval laws,
    no sampling."""
    gen = np.random.default_rng(0)
    scores = np.clip(np.concatenate([gen.normal(0.40, 0.06, 1980), gen.uniform(0.52, 0.65, 20)]), 0, 1)
    eps_r = DPRAGConfig(epsilon_per_query=10.0, delta=1e-3).effective_retrieval_epsilon
    breaks, _, log_w = top_p_interval_log_weights(scores, p=0.02, alpha=5.0, epsilon=eps_r)
    assert _empty_set_probability(scores, (breaks, log_w)) > 0.5
    cfg = DPRAGConfig(epsilon_per_query=10.0, delta=1e-3)
    assert (cfg.utility, cfg.top_k) == ("top-k", 20)
    s = np.sort(scores)
    breaks = np.concatenate([[0.0], s, [1.0]])
    counts = len(s) - np.arange(len(s) + 1)  # documents above each interval
    with np.errstate(divide="ignore"):
        log_w = np.log(np.diff(breaks)) - eps_r * np.abs(counts - cfg.top_k) / 2
    assert _empty_set_probability(scores, (breaks, log_w)) < 0.01


# --------------------------------------------------------------------------------------------------
# End to end on Medical Synth with the offline models
# --------------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_dp_rag_end_to_end_on_medical_slice(offline_lm, offline_embedder, medical_slice):
    from dpsynrag.tasks import get_task

    task = get_task("medical")
    queries = task.load_queries(limit=2)
    # Small on purpose (a few retrieved documents, 6 tokens, both queries in one decoder call).
    cfg = DPRAGConfig(epsilon_per_query=10.0, delta=1e-3, utility="top-k", top_k=4, max_new_tokens=6,
                      max_document_tokens=64, public_weight=0.0)
    session = DPRAGSession(medical_slice[:80], cfg, lm=offline_lm, embedder=offline_embedder, task="medical",
                           total_epsilon=20.0, seed=0)
    answers = session.answer([q.meta["question_symptoms"] for q in queries])
    print("DP-RAG answers:", [a.text for a in answers])
    assert len(answers) == 2 and all(isinstance(a.text, str) and a.context == () for a in answers)
    spent = session.spent()
    assert spent["epsilon_basic"] == 20.0 and spent["remaining_queries"] == 0
    assert session.report().epsilon <= 20.0
    with pytest.raises(PrivacyBudgetExceededError):
        session.answer([queries[0].question])
    names = {d.text.split(") of ")[1].split(". The diagnosis")[0] for d in medical_slice}
    assert not any(n in a.text for a in answers for n in names)
