"""The exact discrete Gaussian N_Z(0, σ²): the CKS sampler (seeded and with secure bits), OpenDP's sampler
(the secure path), their agreement, uniform integers, and the tail bound used for the sparse
histogram's δ.

Statistical tests: a chi-square goodness-of-fit (or homogeneity) test on bins with expected counts
>= 5 (the tails pooled), failing when p < 1e-6. Seeded tests are deterministic; under the null
hypothesis the false-failure rate is 1e-6 per test, and the unseeded ones (SecureRandom, OpenDP) keep
that rate on every run.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from scipy import stats

from dpsynrag.errors import ConfigError
from dpsynrag.privacy.discrete import discrete_gaussian_pmf, discrete_gaussian_tail
from dpsynrag.rng import RandomSource, SecureRandom, SeededRandom

P_MIN = 1e-6
N_DRAWS = 20_000
SIGMAS = [0.6, 3.0, math.sqrt(10 / (2 * 0.1))]  # the last one: the paper's sigma_h = 7.07 (K = 10, rho_hist = 0.1)


def exact_pmf(sigma: float, support: np.ndarray) -> np.ndarray:
    """P[Z = z] computed directly (float64; the terms beyond |z| = 60 sigma are below 1e-700)."""
    z = np.arange(-math.ceil(60 * sigma) - 1, math.ceil(60 * sigma) + 2)
    weights = np.exp(-(z.astype(np.float64) ** 2) / (2 * sigma**2))
    norm = weights.sum()
    return np.exp(-(support.astype(np.float64) ** 2) / (2 * sigma**2)) / norm


def binned(draws: np.ndarray, sigma: float) -> tuple[np.ndarray, np.ndarray]:
    """Observed and expected counts on the bins {<= -B}, -B+1, ..., B-1, {>= B}, with B the largest
    value whose expected count is >= 5."""
    n = len(draws)
    B = 1
    while n * exact_pmf(sigma, np.array([B + 1]))[0] >= 5:
        B += 1
    inner = np.arange(-B + 1, B)
    p_inner = exact_pmf(sigma, inner)
    p_tail = (1.0 - p_inner.sum()) / 2
    observed = np.array([(draws <= -B).sum(), *[(draws == z).sum() for z in inner], (draws >= B).sum()])
    expected = n * np.array([p_tail, *p_inner, p_tail])
    return observed, expected


@pytest.mark.parametrize("sigma", SIGMAS)
def test_cks_sampler_seeded_matches_the_exact_pmf(sigma):
    draws = SeededRandom(21).discrete_gaussian(sigma, N_DRAWS)
    assert draws.dtype == np.int64 and draws.shape == (N_DRAWS,)
    observed, expected = binned(draws, sigma)
    assert stats.chisquare(observed, expected).pvalue > P_MIN


@pytest.mark.parametrize("sigma", SIGMAS)
def test_cks_sampler_with_secure_bits_matches_the_exact_pmf(sigma):
    # The base-class method is the CKS algorithm driven by the source's randbelow (here os.urandom).
    draws = RandomSource.discrete_gaussian(SecureRandom(), sigma, N_DRAWS)
    observed, expected = binned(draws, sigma)
    assert stats.chisquare(observed, expected).pvalue > P_MIN


@pytest.mark.parametrize("sigma", SIGMAS)
def test_opendp_sampler_matches_the_exact_pmf_and_the_cks_sampler(sigma):
    secure = SecureRandom().discrete_gaussian(sigma, N_DRAWS)  # OpenDP's exact sampler
    assert secure.dtype == np.int64 and secure.shape == (N_DRAWS,)
    observed, expected = binned(secure, sigma)
    assert stats.chisquare(observed, expected).pvalue > P_MIN
    # the two samplers draw from one law: homogeneity test of their binned counts
    seeded, _ = binned(SeededRandom(3).discrete_gaussian(sigma, N_DRAWS), sigma)
    assert stats.chi2_contingency(np.stack([observed, seeded])).pvalue > P_MIN


def test_seeded_draws_are_reproducible_and_shaped():
    a = SeededRandom(5).child("noise").discrete_gaussian(2.5, (3, 4))
    b = SeededRandom(5).child("noise").discrete_gaussian(2.5, (3, 4))
    assert a.shape == (3, 4) and a.dtype == np.int64 and np.array_equal(a, b)
    assert SeededRandom(5).discrete_gaussian(2.5).shape == ()
    assert SecureRandom().discrete_gaussian(2.5, 0).shape == (0,)
    for bad in (0.0, -1.0, math.inf, math.nan, "1"):
        with pytest.raises(ValueError):
            SeededRandom(0).discrete_gaussian(bad, 3)
        with pytest.raises(ValueError):
            SecureRandom().discrete_gaussian(bad, 3)


@pytest.mark.parametrize("source", [SecureRandom(), SeededRandom(9)])
def test_randbelow_is_uniform_for_small_and_huge_n(source):
    small = np.array([source.randbelow(7) for _ in range(21_000)])
    assert small.min() == 0 and small.max() == 6
    assert stats.chisquare(np.bincount(small, minlength=7)).pvalue > P_MIN
    n = 3 * 2**100 + 1  # needs two 64-bit words and rejection
    huge = [source.randbelow(n) for _ in range(10_000)]
    assert all(0 <= r < n for r in huge)
    assert stats.chisquare(np.bincount([10 * r // n for r in huge], minlength=10)).pvalue > P_MIN
    assert source.randbelow(1) == 0
    with pytest.raises(ValueError):
        source.randbelow(0)


@pytest.mark.parametrize("sigma, m", [(0.5, 1), (1.0, 3), (3.0, 11), (7.0710678118654755, 31), (20.0, 80)])
def test_tail_is_a_tight_upper_bound(sigma, m):
    with mpmath.workdps(60):
        s2 = mpmath.mpf(sigma) ** 2
        weight = lambda z: mpmath.exp(-mpmath.mpf(z) ** 2 / (2 * s2))  # noqa: E731
        exact = mpmath.nsum(weight, [m, mpmath.inf]) / (1 + 2 * mpmath.nsum(weight, [1, mpmath.inf]))
    bound = discrete_gaussian_tail(sigma, m)
    assert mpmath.mpf(bound) >= exact  # never below the true tail: a sound delta
    assert bound <= float(exact) * (1 + 1e-12)
    assert discrete_gaussian_tail(sigma, 0) == 1.0
    assert discrete_gaussian_pmf(sigma, m) == pytest.approx(exact_pmf(sigma, np.array([m]))[0], rel=1e-12)
    with pytest.raises(ConfigError):
        discrete_gaussian_tail(-1.0, 3)
