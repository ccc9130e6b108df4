"""zCDP <-> (epsilon, delta) conversions: closed forms, the paper's numbers, dp-accounting, properties."""

import math

import dp_accounting
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize_scalar

from dpsynrag.errors import ConfigError
from dpsynrag.privacy.conversions import cks_log_delta, delta_from_rho, epsilon_from_rho, rho_from_epsilon

rhos = st.floats(min_value=1e-4, max_value=50.0)
deltas = st.floats(min_value=1e-12, max_value=0.5)
epsilons = st.floats(min_value=1e-3, max_value=60.0)


def test_paper_rho_at_epsilon_10():
    # (sqrt(10 + ln 1000) - sqrt(ln 1000))^2 = 2.2012 (DP-SynRAG App. B).
    assert rho_from_epsilon(10.0, 1e-3) == pytest.approx(2.2012, abs=1e-4)
    assert epsilon_from_rho(2.2012, 1e-3) == pytest.approx(2.2012 + 2 * math.sqrt(2.2012 * math.log(1e3)), rel=1e-12)


def test_tight_conversion_matches_paper_values():
    assert epsilon_from_rho(2.2012, 1e-3, conversion="cks") == pytest.approx(8.955, abs=0.01)
    assert rho_from_epsilon(10.0, 1e-3, conversion="cks") == pytest.approx(2.607, abs=1e-3)


def test_cks_delta_matches_direct_minimisation():
    # Slow reference: minimise the CKS expression over alpha numerically in log space.
    for rho, eps in [(0.1, 1.0), (2.2012, 8.955), (5.0, 20.0), (0.01, 0.5)]:
        def f(log_a_minus_1):
            a = 1.0 + math.exp(log_a_minus_1)
            return (a - 1) * (a * rho - eps) - math.log(a - 1) + a * math.log1p(-1 / a)

        ref = minimize_scalar(f, bounds=(-30, 10), method="bounded", options={"xatol": 1e-12}).fun
        assert cks_log_delta(rho, eps) == pytest.approx(min(0.0, ref), rel=1e-6, abs=1e-9)


def test_dp_accounting_rdp_agrees_with_tight_and_is_below_bun_steinke():
    accountant = dp_accounting.rdp.RdpAccountant()
    accountant.compose(dp_accounting.ZCDpEvent(2.2012))
    rdp_eps = accountant.get_epsilon(1e-3)
    tight = epsilon_from_rho(2.2012, 1e-3, conversion="cks")
    assert rdp_eps == pytest.approx(tight, rel=0.01)
    assert rdp_eps <= epsilon_from_rho(2.2012, 1e-3)


@settings(max_examples=200, deadline=None)
@given(rho=rhos, delta=deltas)
def test_conversions_invert_each_other(rho, delta):
    for conversion in ("bun-steinke", "cks"):
        eps = epsilon_from_rho(rho, delta, conversion=conversion)
        if eps > 0:
            back = rho_from_epsilon(eps, delta, conversion=conversion)
            assert back == pytest.approx(rho, rel=1e-6)


@settings(max_examples=200, deadline=None)
@given(rho=rhos, factor=st.floats(min_value=1.001, max_value=3.0), delta=deltas)
def test_epsilon_grows_with_rho_and_tight_is_tighter(rho, factor, delta):
    assert epsilon_from_rho(rho * factor, delta) > epsilon_from_rho(rho, delta)
    # The tight conversion gives epsilon = 0 while delta(0) <= target (large delta); strictly above that.
    small, large = (epsilon_from_rho(r, delta, conversion="cks") for r in (rho, rho * factor))
    assert large > small or large == small == 0.0
    assert epsilon_from_rho(rho, delta, conversion="cks") <= epsilon_from_rho(rho, delta) + 1e-9


@settings(max_examples=200, deadline=None)
@given(eps=epsilons, delta=deltas)
def test_calibrated_rho_never_overshoots(eps, delta):
    for conversion in ("bun-steinke", "cks"):
        rho = rho_from_epsilon(eps, delta, conversion=conversion)
        assert delta_from_rho(rho, eps, conversion=conversion) <= delta * (1 + 1e-9)


def test_zero_rho_is_free():
    assert epsilon_from_rho(0.0, 1e-5) == 0.0
    assert epsilon_from_rho(0.0, 1e-5, conversion="cks") == 0.0
    assert delta_from_rho(0.0, 1.0) == 0.0


@pytest.mark.parametrize(
    "call",
    [
        lambda: epsilon_from_rho(-1.0, 1e-3),
        lambda: epsilon_from_rho(float("nan"), 1e-3),
        lambda: epsilon_from_rho(1.0, 0.0),
        lambda: epsilon_from_rho(1.0, 1.0),
        lambda: rho_from_epsilon(0.0, 1e-3),
        lambda: rho_from_epsilon(float("nan"), 1e-3),
        lambda: rho_from_epsilon(1.0, 1.5),
        lambda: rho_from_epsilon(1.0, 1e-3, conversion="rdp"),
    ],
)
def test_bad_input_raises_value_error(call):
    with pytest.raises(ValueError):
        call()
    with pytest.raises(ConfigError):
        call()
