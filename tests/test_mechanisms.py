"""DP mechanisms: sensitivity bounds, exact sampling laws (statistical tests), accounting, bad input.

Statistical tests compare draws with the exact distribution (for integer noise: the discrete Gaussian's
pmf, chi-square on bins with expected counts >= 5) and fail when p < 1e-6: with a fixed seed they are
deterministic; under the null hypothesis the false-failure rate is 1e-6 per test (the SecureRandom tests
are not seeded and keep that rate on every run).
"""

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from dpsynrag.errors import ConfigError, PrivacyBudgetExceededError
from dpsynrag.privacy.accountant import ZCDPAccountant
from dpsynrag.privacy.mechanisms import (
    cap_keywords,
    discrete_gaussian_vote_histogram,
    exponential_threshold,
    gaussian_histogram,
    gaussian_sparse_histogram,
    noisy_unit_vector_sum,
    sparse_histogram_threshold,
)
from dpsynrag.privacy.prediction import clip_logits, sample_private_tokens
from dpsynrag.rng import SecureRandom, SeededRandom, make_random

P_MIN = 1e-6
N_DRAWS = 100_000


# ---------------------------------------------------------------------------------------------
# randomness
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("source", [SecureRandom(), SeededRandom(1)])
def test_uniform_law(source):
    assert stats.kstest(source.uniform(N_DRAWS), "uniform").pvalue > P_MIN


def _gaussian_noise_p_values(noise: np.ndarray, sigma: float) -> tuple[float, float]:
    """(KS p-value against N(0, sigma^2), two-sided p-value of the variance): sum(z^2)/sigma^2 ~ chi2(n)
    for n i.i.d. N(0, sigma^2) draws (the mean is known to be 0)."""
    noise = np.asarray(noise, dtype=np.float64).ravel()
    n = noise.size
    chi2 = float(np.sum(noise**2)) / sigma**2
    variance_p = 2 * min(stats.chi2.cdf(chi2, n), stats.chi2.sf(chi2, n))
    return stats.kstest(noise / sigma, "norm").pvalue, variance_p


def test_secure_real_gaussian_noise_is_opendps_float_gaussian_mechanism(monkeypatch):
    """Issue 29, item 1: the secure noise of the embedding sums comes from OpenDP's float Gaussian
    (``make_gaussian`` on float64 vectors, k = -1074), not from a float transform of uniforms; its law is
    N(0, sigma^2) (KS and variance tests, false-failure rate 1e-6 each) and OpenDP's own privacy map equals
    the rho the accountant is charged."""
    import opendp.measurements

    made = []
    make_gaussian = opendp.measurements.make_gaussian

    def spy(*args, **kwargs):
        made.append(make_gaussian(*args, **kwargs))
        return made[-1]

    monkeypatch.setattr(opendp.measurements, "make_gaussian", spy)
    acc = ZCDPAccountant()
    sigma, dim = 2.5, 20_000
    out = noisy_unit_vector_sum(np.zeros((0, dim)), sigma=sigma, accountant=acc, random=SecureRandom())
    assert len(made) == 1 and str(made[0].input_domain) == f"VectorDomain(AtomDomain(T=f64), size={dim})"
    assert made[0].map(1.0) == pytest.approx(acc.rho, rel=1e-12) == 1 / (2 * sigma**2)
    ks_p, variance_p = _gaussian_noise_p_values(out, sigma)
    assert ks_p > P_MIN and variance_p > P_MIN
    shifted = SecureRandom().add_gaussian(np.full((40, 50), 1e3), sigma)  # values + noise, shape kept
    assert shifted.shape == (40, 50) and min(_gaussian_noise_p_values(shifted - 1e3, sigma)) > P_MIN


def test_seeded_real_gaussian_noise_has_the_secure_law():
    """The seeded path samples the same law (the discrete Gaussian on the float64 grid 2^-1074, by the
    integer CKS sampler): N(0, sigma^2) (KS, variance) and the same distribution as OpenDP's draws
    (two-sample KS); reproducible from the seed. Each test fails with probability 1e-6 under the null."""
    sigma, n = 0.75, 4000
    seeded = SeededRandom(11).add_gaussian(np.zeros(n), sigma)
    assert np.array_equal(seeded, SeededRandom(11).add_gaussian(np.zeros(n), sigma))
    ks_p, variance_p = _gaussian_noise_p_values(seeded, sigma)
    assert ks_p > P_MIN and variance_p > P_MIN
    secure = SecureRandom().add_gaussian(np.zeros(n), sigma)
    assert stats.ks_2samp(seeded, secure).pvalue > P_MIN
    x = np.array([0.1, -3.0, 5e-324])  # values kept exactly on the grid: the output is x + noise
    assert min(_gaussian_noise_p_values(
        np.concatenate([SeededRandom(i).add_gaussian(x, sigma) - x for i in range(300)]), sigma)) > P_MIN
    with pytest.raises(ValueError, match="finite"):
        SeededRandom(0).add_gaussian(np.array([np.nan]), 1.0)
    with pytest.raises(ValueError, match="sigma"):
        SecureRandom().add_gaussian(np.zeros(2), 0.0)


@pytest.mark.parametrize("source", [SecureRandom(), SeededRandom(2)])
def test_categorical_law_and_masked_entries(source):
    log_w = np.array([0.0, -np.inf, math.log(3.0), math.log(0.5), -np.inf])
    probs = np.exp(log_w) / np.exp(log_w).sum()
    draws = source.categorical(np.tile(log_w, (N_DRAWS, 1)))
    counts = np.bincount(draws, minlength=5)
    assert counts[1] == 0 and counts[4] == 0
    keep = probs > 0
    assert stats.chisquare(counts[keep], N_DRAWS * probs[keep]).pvalue > P_MIN


def test_make_random_secure_by_default():
    assert make_random().is_secure
    assert not make_random(3).is_secure
    a, b = SeededRandom(5).child("noise"), SeededRandom(5).child("noise")
    assert np.array_equal(a.uniform(4), b.uniform(4))
    assert not np.array_equal(SeededRandom(5).child("noise").uniform(4), SeededRandom(5).child("sampling").uniform(4))
    with pytest.raises(ValueError):
        SeededRandom(-1)


# ---------------------------------------------------------------------------------------------
# keyword histograms
# ---------------------------------------------------------------------------------------------


def test_cap_keywords_enforces_K_whatever_the_extractor_says():
    raw = ["Fever", "fever", " rash ", "zzz", "Cough", "pain", "rash", "nausea"]
    assert cap_keywords(raw, max_keywords=3, vocabulary={"fever", "rash", "cough", "pain", "nausea"}) == (
        "fever",
        "rash",
        "cough",
    )
    assert cap_keywords(["a"] * 100 + ["b"], max_keywords=2) == ("a", "b")


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(min_size=0, max_size=6), max_size=60), st.integers(1, 12))
def test_cap_keywords_never_exceeds_K(words, K):
    out = cap_keywords(words, max_keywords=K)
    assert len(out) <= K and len(set(out)) == len(out)


def _discrete_gaussian_chisquare(noise: np.ndarray, sigma: float) -> float:
    """p-value of a chi-square test of integer noise against N_Z(0, sigma^2) (bins with expected >= 5)."""
    z = np.arange(-60 * int(sigma) - 60, 60 * int(sigma) + 61)
    pmf = np.exp(-(z.astype(np.float64) ** 2) / (2 * sigma**2))
    pmf /= pmf.sum()
    keep = len(noise) * pmf >= 5
    lo, hi = z[keep].min(), z[keep].max()
    observed = [(noise <= lo).sum(), *[(noise == v).sum() for v in range(lo + 1, hi)], (noise >= hi).sum()]
    expected = len(noise) * np.array([pmf[z <= lo].sum(), *pmf[(z > lo) & (z < hi)], pmf[z >= hi].sum()])
    return stats.chisquare(observed, expected).pvalue


def test_gaussian_histogram_noise_and_cost():
    vocab = [f"w{i}" for i in range(20_000)]
    docs = [["w0", "w1", "w1", "W2", "unknown"]] * 30 + [[f"w{i}" for i in range(50)]]  # last doc capped to K=5
    acc = ZCDPAccountant()
    noisy = gaussian_histogram(docs, vocab, max_keywords=5, sigma=4.0, accountant=acc, random=SeededRandom(0))
    assert noisy.dtype == np.int64  # released as integers
    exact = np.zeros(len(vocab), dtype=np.int64)
    exact[[0, 1, 2]] += 30
    exact[[0, 1, 2, 3, 4]] += 1
    # exact discrete Gaussian noise on every entry, zero counts included
    assert _discrete_gaussian_chisquare(noisy - exact, 4.0) > P_MIN
    assert acc.rho == pytest.approx(5 / (2 * 16))
    assert acc.ledger[0].event.describe()["mechanism"] == "discrete_gaussian"


def test_histogram_refuses_before_noise_when_over_budget():
    acc = ZCDPAccountant(rho_budget=0.01)
    with pytest.raises(PrivacyBudgetExceededError):
        gaussian_histogram([["a"]], ["a", "b"], max_keywords=10, sigma=1.0, accountant=acc, random=SeededRandom(0))
    assert acc.rho == 0


def _tail(sigma: float, m: int) -> float:
    """P[Z >= m], Z ~ N_Z(0, sigma^2), by direct summation (float64)."""
    z = np.arange(-60 * int(sigma) - 60, 60 * int(sigma) + 61)
    w = np.exp(-(z.astype(np.float64) ** 2) / (2 * sigma**2))
    return float(w[z >= m].sum() / w.sum())


def test_sparse_histogram_threshold_and_delta():
    sigma, K, delta = 3.0, 4, 1e-3
    t = sparse_histogram_threshold(max_keywords=K, sigma=sigma, delta=delta)
    # the smallest integer threshold whose delta term K * P[1 + Z > t] = K * P[Z >= t] fits in delta
    assert t == int(t) == 11
    assert K * _tail(sigma, 11) <= delta < K * _tail(sigma, 10)
    # A key held by one document is released with probability P[1 + Z > t]; with a low threshold that
    # probability is large enough to measure: P[1 + Z > 2.5] = P[Z >= 2] for Z ~ N_Z(0, 9).
    acc = ZCDPAccountant()
    trials = 20_000
    docs = [[f"k{i}"] for i in range(trials)]
    out = gaussian_sparse_histogram(
        docs, max_keywords=1, sigma=sigma, threshold=2.5, accountant=acc, random=SeededRandom(11)
    )
    p = _tail(sigma, 2)
    assert stats.binomtest(len(out), trials, p).pvalue > P_MIN
    assert all(isinstance(v, int) and v >= 3 for v in out.values())  # integer counts above the threshold
    assert acc.delta == pytest.approx(p, rel=1e-9)  # K = 1: delta = P[Z >= 2]
    assert acc.rho == pytest.approx(1 / (2 * sigma**2))


def test_sparse_histogram_releases_frequent_keys():
    docs = [["fever", "rash"]] * 200 + [["rare"]]
    out = gaussian_sparse_histogram(
        docs, max_keywords=2, sigma=2.0, threshold=30.0, accountant=ZCDPAccountant(), random=SeededRandom(4)
    )
    assert set(out) == {"fever", "rash"}
    assert isinstance(out["fever"], int) and abs(out["fever"] - 200) <= 12  # 6 sigma


def test_vote_histogram_enforces_its_sensitivity_and_releases_integers():
    votes = np.zeros((500, 6), dtype=np.int64)
    votes[np.arange(500), np.arange(500) % 6] = 1
    votes[np.arange(500), (np.arange(500) + 1) % 6] = 1  # two votes per document
    acc = ZCDPAccountant()
    draws = np.array([
        discrete_gaussian_vote_histogram(votes, max_votes=2, sigma=2.0, accountant=acc, random=SeededRandom(i))
        for i in range(400)
    ])
    assert draws.dtype == np.int64 and draws.shape == (400, 6)
    assert acc.rho == pytest.approx(400 * 2 / (2 * 4.0))  # L2 sensitivity sqrt(2)
    exact = votes.sum(axis=0)
    assert _discrete_gaussian_chisquare((draws - exact).ravel(), 2.0) > P_MIN
    for bad, message in ((votes * 2, "only 0 and 1"), (np.ones((2, 6)), "more than max_votes=2"), (np.ones(6), "shape")):
        with pytest.raises(ConfigError, match=message):
            discrete_gaussian_vote_histogram(bad, max_votes=2, sigma=1.0, accountant=ZCDPAccountant(), random=SeededRandom(0))
    assert discrete_gaussian_vote_histogram(
        np.zeros((0, 3)), max_votes=1, sigma=1.0, accountant=ZCDPAccountant(), random=SeededRandom(0)
    ).shape == (3,)


# ---------------------------------------------------------------------------------------------
# outlier removal
# ---------------------------------------------------------------------------------------------


def test_noisy_unit_vector_sum_normalises_rows_and_costs_one_gaussian():
    acc = ZCDPAccountant()
    e = np.array([[3.0, 4.0], [0.0, 10.0], [0.0, 0.0]])
    draws = np.array(
        [noisy_unit_vector_sum(e, sigma=0.5, accountant=acc, random=SeededRandom(i)) for i in range(2000)]
    )
    assert acc.rho == pytest.approx(2000 * 1 / (2 * 0.25))
    mean = draws.mean(axis=0)
    assert mean == pytest.approx([0.6, 1.8], abs=6 * 0.5 / math.sqrt(2000))
    empty = noisy_unit_vector_sum(np.zeros((0, 7)), sigma=1.0, accountant=ZCDPAccountant(), random=SeededRandom(0))
    assert empty.shape == (7,)


def _exact_threshold_interval_probs(scores, k, eps, alpha=1.0):
    s = np.sort(np.clip(scores, 0, 1))
    b = np.concatenate([[0.0], s, [1.0]])
    lengths = np.diff(b)
    u = [(k - c) * -1.0 if c <= k else -alpha * (c - k) for c in (len(s) - j for j in range(len(lengths)))]
    w = np.array([lengths[j] * math.exp(eps / 2 * u[j]) for j in range(len(lengths))])
    return b, w / w.sum()


def test_exponential_threshold_law():
    scores = np.array([0.9, 0.2, -0.3, 0.5, 0.55, 1.4, 0.7])
    k, eps = 3, 1.5
    b, probs = _exact_threshold_interval_probs(scores, k, eps)
    rng = SeededRandom(7)
    acc = ZCDPAccountant()
    thetas = np.array([exponential_threshold(scores, target=k, epsilon=eps, accountant=acc, random=rng) for _ in range(20_000)])
    assert acc.rho == pytest.approx(20_000 * eps**2 / 8)
    assert ((thetas >= 0) & (thetas <= 1)).all()
    interval = np.searchsorted(b, thetas, side="right") - 1
    counts = np.bincount(interval, minlength=len(probs))[: len(probs)]
    keep = probs > 0
    assert counts[~keep].sum() == 0
    assert stats.chisquare(counts[keep], 20_000 * probs[keep]).pvalue > P_MIN
    # within the most likely interval theta is uniform
    j = int(np.argmax(probs))
    inside = (thetas[interval == j] - b[j]) / (b[j + 1] - b[j])
    assert stats.kstest(inside, "uniform").pvalue > P_MIN


@pytest.mark.parametrize("alpha", [0.0, 0.25])
def test_exponential_threshold_excess_weight_law(alpha):
    # u = -(k - c) below k, -alpha (c - k) above: chi-square against the exact interval law
    # (false-failure rate P_MIN per test).
    scores = np.array([0.9, 0.2, -0.3, 0.5, 0.55, 1.4, 0.7, 0.6, 0.65])
    k, eps, n = 3, 1.5, 20_000
    b, probs = _exact_threshold_interval_probs(scores, k, eps, alpha)
    rng = SeededRandom(11)
    acc = ZCDPAccountant()
    thetas = np.array([exponential_threshold(scores, target=k, epsilon=eps, accountant=acc, random=rng,
                                             excess_weight=alpha) for _ in range(n)])
    assert acc.rho == pytest.approx(n * eps**2 / 8)  # the cost does not depend on alpha
    interval = np.searchsorted(b, thetas, side="right") - 1
    counts = np.bincount(interval, minlength=len(probs))[: len(probs)]
    keep = probs > 0
    assert counts[~keep].sum() == 0
    assert stats.chisquare(counts[keep], n * probs[keep]).pvalue > P_MIN


def test_exponential_threshold_tied_scores_keep_all_with_excess_weight():
    # 100 members with one score (near-duplicates), target 40: with the paper's utility theta keeps
    # all (u = -60) or none (u = -40), and none wins; with alpha = 0.25 keeping all (u = -15) wins.
    scores = np.full(100, 0.8)
    eps = 0.4
    for alpha, expect_all in ((1.0, False), (0.25, True)):
        b, probs = _exact_threshold_interval_probs(scores, 40, eps, alpha)
        assert (probs[0] > 0.5) == expect_all  # interval [0, 0.8): everything kept
        rng = SeededRandom(5)
        kept = [int((scores > exponential_threshold(scores, target=40, epsilon=eps, accountant=ZCDPAccountant(),
                                                    random=rng, excess_weight=alpha)).sum()) for _ in range(400)]
        share_all = kept.count(100) / len(kept)
        assert set(kept) <= {0, 100}
        assert abs(share_all - probs[0]) < 0.1  # 400 draws: sd <= 0.025, so 4 sd


def test_exponential_threshold_sensitivity_with_excess_weight():
    # Adding one score moves every interval's utility by at most 1 for any alpha in [0, 1]: the
    # log-probability ratio of every theta between the neighbours stays within an interval of width eps.
    rng = np.random.default_rng(0)
    for alpha in (0.0, 0.3, 1.0):
        for _ in range(50):
            scores = rng.uniform(0, 1, size=int(rng.integers(1, 30)))
            k = int(rng.integers(0, 35))
            extra = np.append(scores, rng.uniform(0, 1))
            grid = np.linspace(0.0005, 0.9995, 1000)

            def utility(s):
                c = (s[None, :] > grid[:, None]).sum(axis=1)
                return np.where(c > k, -alpha * (c - k), c - k)

            diff = utility(extra) - utility(scores)
            assert np.abs(diff).max() <= 1.0 + 1e-12


def test_exponential_threshold_peaks_at_k_exactly():
    # Many well-separated scores and a large epsilon: the kept count #{s > theta} concentrates on k.
    scores = np.linspace(0.01, 0.99, 99)
    rng = SeededRandom(3)
    kept = [
        int((scores > exponential_threshold(scores, target=40, epsilon=20.0, accountant=ZCDPAccountant(), random=rng)).sum())
        for _ in range(2000)
    ]
    values, counts = np.unique(kept, return_counts=True)
    assert values[np.argmax(counts)] == 40  # DP-RAG's reference code would peak at 38


def test_exponential_threshold_empty_and_bad_input():
    theta = exponential_threshold(np.array([]), target=5, epsilon=1.0, accountant=ZCDPAccountant(), random=SeededRandom(0))
    assert 0.0 <= theta <= 1.0
    for kwargs in (dict(target=-1, epsilon=1.0), dict(target=2, epsilon=0.0), dict(target=2, epsilon=float("nan")),
                   dict(target=2, epsilon=1.0, excess_weight=1.5), dict(target=2, epsilon=1.0, excess_weight=-0.1)):
        with pytest.raises(ConfigError):
            exponential_threshold(np.array([0.5]), accountant=ZCDPAccountant(), random=SeededRandom(0), **kwargs)
    with pytest.raises(ConfigError):
        exponential_threshold(np.array([np.nan]), target=1, epsilon=1.0, accountant=ZCDPAccountant(), random=SeededRandom(0))


# ---------------------------------------------------------------------------------------------
# private prediction
# ---------------------------------------------------------------------------------------------


def test_clip_logits_hand_computed():
    logits = torch.tensor([[0.0, math.log(0.5), -1e9]])
    # l_exp = [1, 0.5, 0]; mid = 0.5; l_cent = [0.5, 0, -0.5]; inf-norm 0.5; c = 0.1 -> scale 0.2
    out = clip_logits(logits, 0.1)
    assert out.dtype == torch.float32
    assert torch.allclose(out, torch.tensor([[0.1, 0.0, -0.1]]), atol=1e-7)
    # large c: no rescaling
    assert torch.allclose(clip_logits(logits, 5.0), torch.tensor([[0.5, 0.0, -0.5]]), atol=1e-7)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.floats(min_value=-1e4, max_value=1e4, allow_nan=False), min_size=2, max_size=40),
    st.floats(min_value=1e-4, max_value=10.0),
)
def test_clipped_vector_in_bounds_and_one_member_moves_sum_by_at_most_c(values, c):
    x = torch.tensor([values], dtype=torch.float32)
    clipped = clip_logits(x, c)
    assert clipped.abs().max().item() <= c
    others = clip_logits(torch.randn(5, x.shape[1], generator=torch.Generator().manual_seed(len(values))) * 10, c)
    with_member = others.sum(0) + clipped[0]
    assert (with_member - others.sum(0)).abs().max().item() <= c * (1 + 1e-6)


def test_clip_logits_does_not_modify_input_and_rejects_bad_input():
    x = torch.tensor([[1.0, 2.0, 3.0]])
    before = x.clone()
    clip_logits(x, 0.1)
    assert torch.equal(x, before)
    with pytest.raises(ConfigError):
        clip_logits(x, 0.0)
    with pytest.raises(ConfigError):
        clip_logits(torch.tensor([1.0, 2.0]), 0.1)
    # a degenerate member row never aborts the build (that would depend on one document): it adds 0
    odd = torch.tensor([[float("nan"), 1.0, 2.0], [float("-inf")] * 3, [float("inf"), 0.0, 1.0], [0.0, 1.0, 2.0]])
    out = clip_logits(odd, 0.1)
    assert torch.equal(out[:3], torch.zeros(3, 3))
    assert torch.equal(out[3], clip_logits(odd[3:], 0.1)[0]) and float(out[3].abs().max()) == pytest.approx(0.1)


def test_sample_private_tokens_law_and_cost():
    z = np.array([[0.3, -0.2, 0.0, 0.5], [0.0, 0.0, 0.0, 0.0]])
    tau = 0.7
    rng = SeededRandom(9)
    accs = [ZCDPAccountant(), ZCDPAccountant()]
    draws = np.array([sample_private_tokens(z, clip=0.1, temperature=tau, accountants=accs, random=rng) for _ in range(25_000)])
    assert accs[0].rho == pytest.approx(25_000 * 0.5 * (0.1 / 0.7) ** 2)
    for row in range(2):
        p = np.exp(z[row] / tau) / np.exp(z[row] / tau).sum()
        counts = np.bincount(draws[:, row], minlength=4)
        assert stats.chisquare(counts, 25_000 * p).pvalue > P_MIN  # row 1 (empty cluster): uniform


def test_sample_private_tokens_checks_all_rows_before_spending():
    full = ZCDPAccountant(rho_budget=0.0)
    ok = ZCDPAccountant()
    with pytest.raises(PrivacyBudgetExceededError):
        sample_private_tokens(np.zeros((2, 3)), clip=0.1, temperature=1.0, accountants=[ok, full], random=SeededRandom(0))
    assert ok.rho == 0.0
    with pytest.raises(ConfigError):
        sample_private_tokens(np.zeros((2, 3)), clip=0.1, temperature=1.0, accountants=[ok], random=SeededRandom(0))
