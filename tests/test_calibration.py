"""Calibration of the DP-SynRAG budget (Theorem 1; METHOD.md §3)."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpsynrag.errors import ConfigError, InfeasibleBudgetError
from dpsynrag.privacy.calibration import BudgetSplit, calibrate
from dpsynrag.privacy.conversions import epsilon_from_rho
from dpsynrag.privacy.discrete import discrete_gaussian_tail


def test_paper_parameters():
    cal = calibrate(epsilon=10.0, delta=1e-3, K=10, L=5, T=70, temperature=1.0)
    assert cal.rho_total == pytest.approx(2.2012, abs=1e-4)
    assert cal.sigma_hist == pytest.approx(7.071, abs=5e-4)
    assert cal.sigma_embed == pytest.approx(7.454, abs=5e-4)
    assert cal.epsilon_theta == pytest.approx(0.4, rel=1e-9)
    assert cal.clip == pytest.approx(0.1057, abs=5e-4)
    # Theorem 1 closed form reproduces rho_total.
    rho = cal.K / (2 * cal.sigma_hist**2) + cal.L * (
        cal.epsilon_theta**2 / 8 + 1 / (2 * cal.sigma_embed**2) + cal.T / 2 * (cal.clip / cal.temperature) ** 2
    )
    assert rho == pytest.approx(cal.rho_total, rel=1e-8)
    assert rho <= cal.rho_total
    assert cal.plan(num_clusters=500).rho == pytest.approx(rho, rel=1e-12)


def test_tight_calibration_gives_more_budget():
    cal = calibrate(epsilon=10.0, delta=1e-3, conversion="cks")
    assert cal.rho_total == pytest.approx(2.607, abs=1e-3)
    assert cal.clip > calibrate(epsilon=10.0, delta=1e-3).clip


def test_clip_scales_with_temperature():
    # Only c/tau matters: doubling tau doubles c.
    a = calibrate(epsilon=10.0, delta=1e-3, temperature=1.0)
    b = calibrate(epsilon=10.0, delta=1e-3, temperature=2.0)
    assert b.clip == pytest.approx(2 * a.clip, rel=1e-12)


def test_fraction_split_at_epsilon_10_equals_paper_and_scales():
    frac = calibrate(epsilon=10.0, delta=1e-3, split=BudgetSplit.paper_fractions())
    assert frac.clip == pytest.approx(calibrate(epsilon=10.0, delta=1e-3).clip, rel=1e-6)
    low = calibrate(epsilon=3.0, delta=1e-3, split=BudgetSplit.paper_fractions())
    assert low.clip == pytest.approx(0.0370, abs=1e-4)  # algorithm_brief.md §1.3 table


def test_open_vocabulary_delta_is_charged():
    cal = calibrate(epsilon=10.0, delta=1e-3, open_vocabulary_delta=1e-4)
    plan = cal.plan(num_clusters=100)
    # threshold: the smallest integer t with 10 * P[Z >= t] <= 1e-4, Z ~ N_Z(0, s^2) (discrete Gaussian)
    t = cal.hist_threshold
    assert t == int(t) == 31  # the continuous Gaussian's 1 + s * 4.2649 = 31.16 would release from 32
    assert 10 * discrete_gaussian_tail(cal.sigma_hist, 31) <= 1e-4 < 10 * discrete_gaussian_tail(cal.sigma_hist, 30)
    assert plan.delta == pytest.approx(10 * discrete_gaussian_tail(cal.sigma_hist, 31), rel=1e-12) and plan.delta <= 1e-4
    assert epsilon_from_rho(plan.rho, 1e-3 - plan.delta) <= 10.0


def test_no_outlier_removal_gives_generation_everything():
    cal = calibrate(epsilon=10.0, delta=1e-3, split=BudgetSplit("absolute", 0.1, 0.0, 0.0))
    assert cal.sigma_embed is None and cal.epsilon_theta is None
    assert cal.clip == pytest.approx(math.sqrt(2 * (2.2012 - 0.1) / 5 / 70), abs=1e-4)


def test_infeasible_histogram_named():
    with pytest.raises(InfeasibleBudgetError, match="keyword histogram"):
        calibrate(epsilon=1.0, delta=1e-3)


def test_infeasible_outlier_removal_named():
    with pytest.raises(InfeasibleBudgetError, match="outlier removal"):
        calibrate(epsilon=2.0, delta=1e-3)


@settings(max_examples=150, deadline=None)
@given(
    epsilon=st.floats(min_value=4.0, max_value=50.0),
    delta=st.floats(min_value=1e-10, max_value=1e-2),
    K=st.integers(1, 30),
    L=st.integers(1, 10),
    T=st.integers(1, 200),
    conversion=st.sampled_from(["bun-steinke", "cks"]),
)
def test_calibration_never_overshoots(epsilon, delta, K, L, T, conversion):
    cal = calibrate(epsilon=epsilon, delta=delta, K=K, L=L, T=T, split=BudgetSplit.paper_fractions(L=L), conversion=conversion)
    plan = cal.plan(num_clusters=1000)
    assert epsilon_from_rho(plan.rho, delta - plan.delta, conversion=conversion) <= epsilon


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(epsilon=0.0, delta=1e-3),
        dict(epsilon=-1.0, delta=1e-3),
        dict(epsilon=float("nan"), delta=1e-3),
        dict(epsilon=float("inf"), delta=1e-3),
        dict(epsilon=10.0, delta=0.0),
        dict(epsilon=10.0, delta=1.0),
        dict(epsilon=10.0, delta=float("nan")),
        dict(epsilon=10.0, delta=1e-3, K=0),
        dict(epsilon=10.0, delta=1e-3, L=0),
        dict(epsilon=10.0, delta=1e-3, T=0),
        dict(epsilon=10.0, delta=1e-3, temperature=0.0),
        dict(epsilon=10.0, delta=1e-3, temperature=float("nan")),
        dict(epsilon=10.0, delta=1e-3, conversion="rdp"),
        dict(epsilon=10.0, delta=1e-3, open_vocabulary_delta=1e-3),
    ],
)
def test_bad_input(kwargs):
    with pytest.raises(ConfigError) as info:
        calibrate(**kwargs)
    assert isinstance(info.value, ValueError)
    assert "Found" in str(info.value)


def test_build_config_calibrates_over_min_L_R():
    # with fewer clusters than L, a document is in at most R of them: the budget is spread over R branches
    from dpsynrag.pipeline.config import BuildConfig

    cfg = BuildConfig(epsilon=10.0, delta=1e-3, K=5, R=3, L=5, T=8, task="medical")
    assert cfg.L_effective == 3
    cal = cfg.calibrate()
    direct = calibrate(epsilon=10.0, delta=1e-3, K=5, L=3, T=8)
    assert cal.clip == pytest.approx(direct.clip, rel=1e-12) and cal.L == 3
    assert epsilon_from_rho(cal.plan(num_clusters=3).rho, 1e-3) == pytest.approx(10.0, rel=1e-6)  # all spent
    assert BuildConfig(epsilon=10.0, delta=1e-3, R=500, L=5, task="medical").calibrate().L == 5


def test_build_config_calibrates_over_min_L_K_when_clustering_on_keywords():
    # a document holds at most K keywords, so it joins at most K clusters; text matching has no such bound
    from dpsynrag.pipeline.config import BuildConfig

    cfg = BuildConfig(epsilon=10.0, delta=1e-3, K=1, R=40, L=3, T=8, task="medical")
    assert cfg.L_effective == 1
    cal = cfg.calibrate()
    direct = calibrate(epsilon=10.0, delta=1e-3, K=1, L=1, T=8)
    assert cal.clip == pytest.approx(direct.clip, rel=1e-12) and cal.L == 1
    assert epsilon_from_rho(cal.plan(num_clusters=40).rho, 1e-3) == pytest.approx(10.0, rel=1e-6)
    assert BuildConfig(epsilon=10.0, delta=1e-3, K=1, R=40, L=3, T=8, task="medical", match_text=True).L_effective == 3
    # the report says why L was read as a smaller number
    assert cfg.plan_notes == ["L = 3 acts as L = 1: a document holds at most K = 1 keywords, so a document joins at "
                              "most 1 clusters and the budget is calibrated over 1"]
    assert BuildConfig(epsilon=10.0, delta=1e-3, K=3, R=40, L=3, T=8, task="medical").plan_notes == []


# ---------------------------------------------------------------------------------------------
# sparse-vector decoding (svt_max_paid = C, svt_fraction = f)
# ---------------------------------------------------------------------------------------------


def test_svt_closed_form_of_rho_and_the_clip():
    """The paper's calibration with C = 20 paid tokens of T = 70 and f = 0.25: the token budget
    T·(c0/τ)²/2 of the paper's c0 = 0.1057 is split into C runs of (ε1 + ε2)²/2 and C tokens of (c/τ)²/2."""
    base = calibrate(epsilon=10.0, delta=1e-3, K=10, L=5, T=70)
    cal = calibrate(epsilon=10.0, delta=1e-3, K=10, L=5, T=70, svt_max_paid=20, svt_fraction=0.25)
    rho_text = 70 * base.rho_token  # what funded T tokens
    eps = cal.svt_epsilon1 + cal.svt_epsilon2
    assert cal.svt_epsilon2 / cal.svt_epsilon1 == pytest.approx(2 ** (2 / 3), rel=1e-12)  # Lyu et al. §4.2
    assert eps**2 / 2 == pytest.approx(0.25 * rho_text / 20, rel=1e-9)
    assert cal.clip == pytest.approx(math.sqrt(2 * 0.75 * rho_text / 20), rel=1e-9)
    assert cal.clip == pytest.approx(0.1057 * math.sqrt(0.75 * 70 / 20), abs=5e-4)  # 0.1713
    # Theorem 1 with the sparse-vector tokens: C (eps^2/2 + (c/tau)^2/2) per cluster
    rho = cal.K / (2 * cal.sigma_hist**2) + cal.L * (
        cal.epsilon_theta**2 / 8 + 1 / (2 * cal.sigma_embed**2) + 20 * (eps**2 / 2 + cal.clip**2 / 2))
    assert rho == pytest.approx(cal.rho_total, rel=1e-8) and rho <= cal.rho_total
    plan = cal.plan(num_clusters=500)
    assert plan.rho == pytest.approx(rho, rel=1e-12) and cal.rho_branch == pytest.approx(base.rho_branch, rel=1e-9)
    tokens = cal.token_plan()
    assert tokens.count == 20 and tokens.rho == pytest.approx(rho_text, rel=1e-9)
    assert epsilon_from_rho(plan.rho, 1e-3) <= 10.0


def test_svt_plan_converts_like_the_paper_plan_in_dp_accounting():
    """Cross-check of the zCDP -> (epsilon, delta) conversion of an SVT plan with Google's dp-accounting
    (RDP accountant on a ZCDpEvent): tight <= Bun-Steinke <= target, RDP within 1% of the tight one."""
    import dp_accounting

    cal = calibrate(epsilon=10.0, delta=1e-3, svt_max_paid=20)
    rho = cal.plan(num_clusters=500).rho
    accountant = dp_accounting.rdp.RdpAccountant()
    accountant.compose(dp_accounting.ZCDpEvent(rho))
    rdp_eps = accountant.get_epsilon(1e-3)
    tight = epsilon_from_rho(rho, 1e-3, conversion="cks")
    assert rdp_eps == pytest.approx(tight, rel=0.01) and rdp_eps <= epsilon_from_rho(rho, 1e-3) <= 10.0


@settings(max_examples=150, deadline=None)
@given(
    epsilon=st.floats(min_value=4.0, max_value=50.0),
    delta=st.floats(min_value=1e-10, max_value=1e-2),
    L=st.integers(1, 10),
    T=st.integers(1, 200),
    c_frac=st.floats(min_value=0.0, max_value=1.0),
    f=st.floats(min_value=1e-3, max_value=0.999),
    conversion=st.sampled_from(["bun-steinke", "cks"]),
)
def test_svt_calibration_never_overshoots(epsilon, delta, L, T, c_frac, f, conversion):
    C = max(1, round(c_frac * T))
    cal = calibrate(epsilon=epsilon, delta=delta, L=L, T=T, split=BudgetSplit.paper_fractions(L=L),
                    conversion=conversion, svt_max_paid=C, svt_fraction=f)
    plan = cal.plan(num_clusters=1000, groups=3)
    assert epsilon_from_rho(plan.rho, delta - plan.delta, conversion=conversion) <= epsilon
    assert cal.token_plan().rho <= (cal.rho_branch - cal.epsilon_theta**2 / 8 - cal.rho_embed) * (1 + 1e-12)


@pytest.mark.parametrize("kwargs, match", [
    (dict(svt_max_paid=0), "svt_max_paid"),
    (dict(svt_max_paid=71), "must be <= T"),
    (dict(svt_max_paid=5, svt_fraction=0.0), "svt_fraction"),
    (dict(svt_max_paid=5, svt_fraction=1.0), "svt_fraction"),
    (dict(svt_max_paid=5, svt_beta=0.0), "beta"),
    (dict(svt_max_paid=5, svt_beta=0.3333), "multiple"),
    (dict(svt_max_paid=5, svt_gap=-1.0), "gap"),
])
def test_svt_bad_input(kwargs, match):
    with pytest.raises(ConfigError, match=match) as info:
        calibrate(epsilon=10.0, delta=1e-3, **kwargs)
    assert "Found" in str(info.value)


def test_svt_off_lists_nothing_new():
    d = calibrate(epsilon=10.0, delta=1e-3).to_dict()
    assert not [k for k in d if k.startswith("svt_")]
    assert calibrate(epsilon=10.0, delta=1e-3).token_plan().name == "70 private prediction tokens"
    with pytest.raises(ConfigError, match="svt_max_paid"):
        calibrate(epsilon=10.0, delta=1e-3).svt_event()
