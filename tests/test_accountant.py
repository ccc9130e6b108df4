"""The zCDP accountant: composition, budget enforcement (check then commit), parallel branches."""

import math

import dp_accounting
import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import norm

from dpsynrag.errors import ConfigError, PrivacyBudgetExceededError, UnsupportedEventError
from dpsynrag.privacy.accountant import ZCDPAccountant
from dpsynrag.privacy.calibration import calibrate
from dpsynrag.privacy.conversions import epsilon_from_rho
from dpsynrag.privacy.events import (
    ComposedEvent,
    DiscreteGaussianEvent,
    ExponentialMechanismEvent,
    GaussianEvent,
    OverlappingParallelEvent,
    PrivatePredictionTokenEvent,
    SparseDiscreteGaussianHistogramEvent,
    ZCDPEvent,
)


def test_event_costs_match_closed_forms():
    assert GaussianEvent("g", sensitivity=math.sqrt(10), sigma=math.sqrt(50)).rho == pytest.approx(0.1)
    assert ExponentialMechanismEvent("em", epsilon=0.4).rho == pytest.approx(0.02)
    assert PrivatePredictionTokenEvent("t", clip=0.2, temperature=2.0).rho == pytest.approx(0.005)
    assert DiscreteGaussianEvent("d", sensitivity=math.sqrt(10), sigma=math.sqrt(50)).rho == pytest.approx(0.1)
    sparse = SparseDiscreteGaussianHistogramEvent("s", max_contributions=10, sigma=7.0, threshold=22.5)
    assert sparse.rho == pytest.approx(10 / 98)
    # delta = 10 * P[1 + Z > 22.5] = 10 * P[Z >= 22] for Z ~ N_Z(0, 49), in 50-digit arithmetic (mpmath):
    with mpmath.workdps(50):
        weight = lambda z: mpmath.exp(-mpmath.mpf(z * z) / 98)  # noqa: E731
        exact = 10 * mpmath.nsum(weight, [22, mpmath.inf]) / (1 + 2 * mpmath.nsum(weight, [1, mpmath.inf]))
    assert float(exact) <= sparse.delta <= float(exact) * (1 + 1e-12)  # an upper bound, tight
    assert sparse.delta == pytest.approx(0.0105590, rel=1e-5)
    assert sparse.delta < 10 * norm.sf(21.5 / 7)  # the continuous Gaussian's delta at this threshold: 0.010652
    assert SparseDiscreteGaussianHistogramEvent("s", 10, 7.0, threshold=22.0).delta == sparse.delta  # integer Z


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(min_value=1e-4, max_value=3.0), min_size=1, max_size=20))
def test_composition_adds(rhos):
    acc = ZCDPAccountant()
    for r in rhos:
        acc.compose(ZCDPEvent("x", r))
    assert acc.rho == pytest.approx(sum(rhos), rel=1e-12)
    assert ComposedEvent("all", tuple(ZCDPEvent("x", r) for r in rhos)).rho == pytest.approx(sum(rhos), rel=1e-12)


def test_self_composition_count():
    acc = ZCDPAccountant().compose(PrivatePredictionTokenEvent("t", clip=0.1, temperature=1.0), count=70)
    assert acc.rho == pytest.approx(70 * 0.005)
    assert len(acc.ledger) == 1


def test_budget_exceeded_raises_before_any_change():
    acc = ZCDPAccountant(rho_budget=1.0)
    acc.compose(ZCDPEvent("a", 0.6))
    with pytest.raises(PrivacyBudgetExceededError, match="above its budget"):
        acc.compose(ZCDPEvent("b", 0.5))
    assert acc.rho == pytest.approx(0.6)
    assert len(acc.ledger) == 1
    assert not acc.can_compose(ZCDPEvent("b", 0.5))
    assert acc.can_compose(ZCDPEvent("b", 0.4))


def test_delta_budget_enforced():
    acc = ZCDPAccountant(delta_budget=1e-6)
    with pytest.raises(PrivacyBudgetExceededError):
        acc.compose(ZCDPEvent("a", 0.1, delta_value=1e-5))
    assert acc.delta == 0.0


def test_unsupported_event():
    with pytest.raises(UnsupportedEventError):
        ZCDPAccountant().compose("gaussian")  # type: ignore[arg-type]


def test_overlapping_parallel_costs_min_L_R_times_branch():
    branch = ComposedEvent("one", (ExponentialMechanismEvent("em", 0.4), ZCDPEvent("gen", 0.3)))
    assert OverlappingParallelEvent("p", branch, num_branches=500, max_branches_per_unit=5).rho == pytest.approx(1.6)
    assert OverlappingParallelEvent("p", branch, num_branches=3, max_branches_per_unit=5).rho == pytest.approx(0.96)


def test_parallel_branches_cannot_exceed_their_plan():
    acc = ZCDPAccountant()
    plan = ComposedEvent("one", (ZCDPEvent("a", 0.1), ZCDPEvent("b", 0.2)))
    par = acc.open_parallel(plan, num_branches=4, max_branches_per_unit=2)
    assert acc.rho == pytest.approx(0.6)
    b0 = par.branch(0)
    b0.compose(ZCDPEvent("a", 0.1)).compose(ZCDPEvent("b", 0.2))
    with pytest.raises(PrivacyBudgetExceededError):
        b0.compose(ZCDPEvent("c", 0.01))
    par.branch(3).compose(ZCDPEvent("a", 0.05))
    assert par.max_branch_rho() == pytest.approx(0.3)
    with pytest.raises(ConfigError):
        par.branch(4)
    assert acc.rho == pytest.approx(0.6)  # branches spend what was paid, nothing more


def test_open_parallel_refused_when_over_budget():
    acc = ZCDPAccountant(rho_budget=0.5)
    with pytest.raises(PrivacyBudgetExceededError):
        acc.open_parallel(ZCDPEvent("a", 0.2), num_branches=10, max_branches_per_unit=3)
    assert acc.rho == 0.0 and acc.ledger == ()


def test_epsilon_subtracts_delta_terms():
    acc = ZCDPAccountant().compose(ZCDPEvent("a", 1.0, delta_value=1e-4))
    assert acc.epsilon(1e-3) == pytest.approx(epsilon_from_rho(1.0, 9e-4))
    with pytest.raises(ConfigError, match="must exceed"):
        acc.epsilon(1e-4)


def test_paper_build_matches_dp_accounting():
    """The DP-SynRAG composition in Google's dp-accounting (RDP accountant): within 1 % of the tight
    conversion and never above the Bun-Steinke value."""
    cal = calibrate(epsilon=10.0, delta=1e-3, K=10, L=5, T=70, temperature=1.0)
    ours = ZCDPAccountant()
    ours.compose(cal.histogram_event())
    ours.open_parallel(cal.branch_plan(), num_branches=500, max_branches_per_unit=5)

    rdp = dp_accounting.rdp.RdpAccountant()
    rdp.compose(dp_accounting.GaussianDpEvent(cal.sigma_hist / math.sqrt(cal.K)))
    per_cluster = dp_accounting.ComposedDpEvent(
        [
            dp_accounting.GaussianDpEvent(cal.sigma_embed),
            dp_accounting.ZCDpEvent(cal.epsilon_theta**2 / 8),
            dp_accounting.SelfComposedDpEvent(dp_accounting.ZCDpEvent(0.5 * (cal.clip / cal.temperature) ** 2), cal.T),
        ]
    )
    rdp.compose(dp_accounting.SelfComposedDpEvent(per_cluster, cal.L))
    reference = rdp.get_epsilon(1e-3)
    assert reference == pytest.approx(ours.epsilon(1e-3, conversion="cks"), rel=0.01)
    assert reference <= ours.epsilon(1e-3, conversion="bun-steinke")
    assert ours.epsilon(1e-3) <= 10.0


@pytest.mark.parametrize(
    "make",
    [
        lambda: GaussianEvent("g", sensitivity=1.0, sigma=0.0),
        lambda: GaussianEvent("g", sensitivity=-1.0, sigma=1.0),
        lambda: GaussianEvent("g", sensitivity=1.0, sigma=float("nan")),
        lambda: ExponentialMechanismEvent("em", epsilon=0.0),
        lambda: PrivatePredictionTokenEvent("t", clip=0.1, temperature=0.0),
        lambda: OverlappingParallelEvent("p", ZCDPEvent("a", 0.1), num_branches=0, max_branches_per_unit=1),
        lambda: ZCDPAccountant(rho_budget=-1.0),
    ],
)
def test_bad_event_parameters_raise_at_construction(make):
    with pytest.raises(ValueError):
        make()
