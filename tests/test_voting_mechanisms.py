"""The query-time voting mechanisms (privacy/voting.py): the vote's law and cost, AboveThreshold's cost
and run discipline, and propose-test-release of a top-k set — its pass threshold against the discrete
Laplace tail, the stability behind it (exhaustive over random neighbours), and its release rate on an
unstable histogram. Statistical tests fail falsely with probability below 1e-3 each."""

from __future__ import annotations

import math
import random as pyrandom

import numpy as np
import pytest
from scipy.stats import binomtest, chisquare

from dpsynrag.errors import ConfigError, PrivacyBudgetExceededError
from dpsynrag.privacy.accountant import ZCDPAccountant
from dpsynrag.privacy.query_events import AboveThresholdEvent, ProposeTestReleaseEvent
from dpsynrag.privacy.voting import AboveThreshold, ptr_pass_threshold, ptr_top_k, top_k_gap, vote_exponential
from dpsynrag.rng import SeededRandom


def test_vote_follows_the_exponential_mechanism_and_costs_eps2_over_8():
    counts = np.array([5, 3, 0, 1])
    eps = 0.8
    acc = ZCDPAccountant()
    rnd = SeededRandom(3)
    n = 4000
    draws = np.bincount([vote_exponential(counts, epsilon=eps, accountant=acc, random=rnd) for _ in range(n)],
                        minlength=4)
    p = np.exp(eps * counts / 2)
    p /= p.sum()
    assert chisquare(draws, n * p).pvalue > 1e-3
    assert acc.rho == pytest.approx(n * eps**2 / 8, rel=1e-12)


def test_vote_charges_before_drawing():
    acc = ZCDPAccountant(rho_budget=0.01)
    with pytest.raises(PrivacyBudgetExceededError):
        vote_exponential([1, 2], epsilon=1.0, accountant=acc, random=SeededRandom(0))
    assert acc.rho == 0.0


def test_above_threshold_cost_and_run_discipline():
    acc = ZCDPAccountant()
    run = AboveThreshold(3, epsilon1=0.5, epsilon2=0.7, accountant=acc, random=SeededRandom(1))
    assert acc.rho == pytest.approx((0.5 + 0.7) ** 2 / 2) == AboveThresholdEvent("r", 0.5, 0.7).rho
    big = AboveThreshold(3, epsilon1=1e6, epsilon2=1e6, accountant=ZCDPAccountant(), random=SeededRandom(2))
    assert [big.above(q) for q in (0, 1, 2)] == [False, False, False]  # negatives are free
    assert big.above(3) is True
    with pytest.raises(ConfigError):
        big.above(5)  # the run is spent: a new one must be opened (and paid)
    assert run.event.epsilon == pytest.approx(1.2)


def test_above_threshold_false_positive_rate_matches_the_laplace_law():
    """q far below θ: P[q + Z2 >= θ + Z1] computed exactly from the two discrete Laplace laws."""
    eps1 = eps2 = 1.0
    theta, q = 4, 0
    r1, r2 = math.exp(-eps1), math.exp(-eps2 / 2)
    pmf = lambda r, z: (1 - r) / (1 + r) * r ** abs(z)
    exact = sum(pmf(r1, a) * pmf(r2, b) for a in range(-60, 61) for b in range(-120, 121) if q + b >= theta + a)
    n = 3000
    hits = sum(AboveThreshold(theta, epsilon1=eps1, epsilon2=eps2, accountant=ZCDPAccountant(),
                              random=SeededRandom(i)).above(q) for i in range(n))
    assert binomtest(hits, n, exact).pvalue > 1e-3


@pytest.mark.parametrize("eps, delta", [(1.0, 1e-3), (0.3, 1e-6), (5.0, 0.05), (2.0, 1e-9)])
def test_ptr_threshold_is_the_least_one_with_tail_below_delta(eps, delta):
    t = ptr_pass_threshold(eps, delta)
    r = math.exp(-eps / 2)
    tail = lambda z: r ** max(z, 0) / (1 + r) if z >= 0 else 1 - r ** (-z) / (1 + r)  # P[Z >= z]
    assert tail(t - 2) <= delta
    assert t == 2 or tail(t - 3) > delta


def test_top_k_gap_ranks_and_ties():
    assert top_k_gap({"b": 5, "a": 5, "c": 2}, 2) == (("a", "b"), 3)
    assert top_k_gap({"b": 5, "a": 5, "c": 2}, 1) == (("a",), 0)  # a tie at the boundary: gap 0
    assert top_k_gap({"x": 4}, 1) == (("x",), 4)  # unseen keys count 0
    assert top_k_gap({"x": 4}, 2) == (("x",), 0)  # fewer than k seen keys: the k-th is an unseen 0, unstable
    assert top_k_gap({}, 1) == ((), 0)


def test_gap_of_three_means_every_neighbour_has_the_same_top_k():
    """Exhaustive over random histograms: replace one voter's keyword set arbitrarily (add/remove of one
    document changes one voter); whenever g >= 3 the top-k set is unchanged, and g moves by <= 2."""
    rnd = pyrandom.Random(0)
    words = [f"w{i}" for i in range(7)]
    share = [0.9, 0.7, 0.5, 0.3, 0.2, 0.1, 0.05]  # skewed, so that stable top sets are common
    checked = 0
    for _ in range(3000):
        voters = [{w for w, p in zip(words, share) if rnd.random() < p} for _ in range(rnd.randint(1, 20))]
        k = rnd.randint(1, 3)
        counts = lambda vs: {w: sum(w in s for s in vs) for w in words}
        top, gap = top_k_gap(counts(voters), k)
        other = list(voters)
        other[rnd.randrange(len(other))] = set(rnd.sample(words, rnd.randint(0, 4)))
        top2, gap2 = top_k_gap(counts(other), k)
        assert abs(gap2 - gap) <= 2
        if gap >= 3:
            assert set(top2) == set(top)
            checked += 1
    assert checked > 100


def test_ptr_releases_an_unstable_set_with_probability_below_delta_and_a_stable_one_usually():
    eps, delta = 1.0, 0.05
    unstable = {"a": 6, "b": 4, "c": 1}  # k = 1, gap 2: a neighbour may flip it
    acc = ZCDPAccountant()
    n = 4000
    passed = sum(ptr_top_k(unstable, k=1, epsilon=eps, delta=delta, accountant=acc, random=SeededRandom(i)) is not None
                 for i in range(n))
    r = math.exp(-eps / 2)
    exact = r ** (ptr_pass_threshold(eps, delta) - 2) / (1 + r)  # P[Z >= t - g], g = 2
    assert exact <= delta
    assert binomtest(passed, n, exact).pvalue > 1e-3
    assert acc.rho == pytest.approx(n * eps**2 / 2) and acc.delta == pytest.approx(n * delta)
    stable = {"a": 40, "b": 2}
    out = [ptr_top_k(stable, k=1, epsilon=eps, delta=delta, accountant=ZCDPAccountant(), random=SeededRandom(i))
           for i in range(200)]
    assert out.count(("a",)) >= 195 and set(out) <= {("a",), None}


def test_ptr_release_is_the_same_on_neighbours_whose_count_order_differs():
    """Issue 53's pair: one voter drops "fever" (fever 40 / rash 40 / cough 39 -> fever 39 / rash 40 /
    cough 39). The top-3 set is stable (gap 19), so a DP release must have the same law on both: ordered by
    count, the two outputs were disjoint in every draw. Here t = 9 and the gap is 34, so a draw fails
    the test with probability P[Z <= -25] < 1e-11 (Z ~ Lap_Z(2)): all 4,000 draws pass and must release
    one and the same tuple."""
    eps, delta = 2.0, 1e-3
    first = {"fever": 40, "rash": 40, "cough": 39, "itch": 5}
    second = {"fever": 39, "rash": 40, "cough": 39, "itch": 5}
    assert top_k_gap(first, 3)[1] == top_k_gap(second, 3)[1] == 34 and ptr_pass_threshold(eps, delta) == 9
    n = 2000
    out = [{ptr_top_k(c, k=3, epsilon=eps, delta=delta, accountant=ZCDPAccountant(), random=SeededRandom(i))
            for i in range(n)} for c in (first, second)]
    assert out[0] == out[1] == {("cough", "fever", "rash")}


def test_ptr_event_cost():
    e = ProposeTestReleaseEvent("ptr", epsilon=0.4, delta_value=1e-5)
    assert (e.rho, e.delta) == (pytest.approx(0.08), 1e-5)
    with pytest.raises(ConfigError):
        ProposeTestReleaseEvent("ptr", epsilon=0.4, delta_value=0.0)
