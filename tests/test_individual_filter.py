"""The individual Rényi filter (Feldman & Zrnic 2021) in zCDP form: a unit's loss grows only when it is
charged, a mechanism that would pass a unit's budget must drop it (all-or-nothing charges), and the
session's guarantee is the budget B per unit, converted at δ as any zCDP budget."""

from __future__ import annotations

import numpy as np
import pytest

from dpsynrag.errors import ConfigError, PrivacyBudgetExceededError
from dpsynrag.privacy.conversions import epsilon_from_rho
from dpsynrag.privacy.individual import IndividualRenyiFilter


def test_loss_accumulates_only_for_the_units_used():
    f = IndividualRenyiFilter(5, 1.0)
    for _ in range(3):
        f.charge([1, 3], 0.1)
    f.charge([3], 0.05)
    assert [f.loss(i) for i in range(5)] == pytest.approx([0.0, 0.3, 0.0, 0.35, 0.0], abs=1e-15)
    f.charge([], 0.5)  # a mechanism that noticed no unit charges nobody
    f.charge([0, 2], [0.0, 0.2])  # per-unit costs; a zero cost leaves the unit unchanged
    assert f.loss(0) == 0.0 and f.loss(2) == pytest.approx(0.2)


def test_a_unit_is_dropped_once_the_next_use_would_pass_its_budget():
    """B = 1, each use 0.3: three uses fit (0.9), the fourth would reach 1.2 > B and is refused."""
    f = IndividualRenyiFilter(3, 1.0)
    uses = 0
    while f.admits([0], 0.3)[0]:
        f.charge([0], 0.3)
        uses += 1
    assert uses == 3 and f.loss(0) == pytest.approx(0.9)
    assert list(f.active(0.3)) == [1, 2]  # the exhausted unit is out of the next mechanism's input
    assert list(f.active(0.1)) == [0, 1, 2]  # ... but a cheaper one still fits it (0.9 + 0.1 <= 1)
    with pytest.raises(PrivacyBudgetExceededError):
        f.charge([1, 0], 0.3)  # all or nothing: unit 1 is not charged either
    assert f.loss(1) == 0.0 and f.loss(0) == pytest.approx(0.9)
    f.charge([0], 0.1)  # exactly the budget fits
    assert f.loss(0) == pytest.approx(1.0) and not f.admits([0], 1e-6)[0]


def test_the_number_of_uses_is_floor_of_budget_over_cost():
    rng = np.random.default_rng(0)
    for _ in range(20):
        budget, cost = rng.uniform(0.5, 5.0), rng.uniform(0.01, 0.5)
        f = IndividualRenyiFilter(1, float(budget))
        n = 0
        while f.admits([0], float(cost))[0]:
            f.charge([0], float(cost))
            n += 1
        assert n == int(np.floor(budget / cost * (1 + 1e-9)))


def test_guarantee_is_the_budget_per_unit():
    f = IndividualRenyiFilter(10, 1.9, name="docs")
    g = f.guarantee()
    assert g.rho == 1.9 and g.delta == 0.0
    # B-zCDP converts at delta as any zCDP budget: Bun-Steinke eps = B + 2 sqrt(B ln(1/delta))
    assert epsilon_from_rho(g.rho, 1e-3) == pytest.approx(1.9 + 2 * np.sqrt(1.9 * np.log(1e3)), rel=1e-12)


@pytest.mark.parametrize("args", [(0, 1.0), (3, 0.0), (3, float("inf")), (True, 1.0)])
def test_bad_parameters_refused(args):
    with pytest.raises(ConfigError):
        IndividualRenyiFilter(*args)


def test_bad_indices_and_costs_refused():
    f = IndividualRenyiFilter(3, 1.0)
    for units, rho in (([3], 0.1), ([-1], 0.1), ([1, 1], 0.1), ([0], -0.1), ([0], float("nan"))):
        with pytest.raises(ConfigError):
            f.charge(units, rho)
    assert all(f.loss(i) == 0.0 for i in range(3))
