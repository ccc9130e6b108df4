"""Privacy events of the query-time voting mechanisms (:mod:`dpsynrag.privacy.voting`), kept beside
:mod:`dpsynrag.privacy.events` (which is at its size limit) with the same contract: a frozen record that
knows its zCDP cost ``rho`` and its approximate-zCDP ``delta`` term, checked when built.

Sources:
    AboveThreshold (sparse vector technique): Dwork & Roth 2014, Alg. 1 / Thm. 3.23; Lyu, Su & Li 2017
        (PVLDB 10(6)), Alg. 1 with c = 1: a run up to and including its first positive answer, with
        threshold noise Lap(Δ/ε1) and query noise Lap(2Δ/ε2), is (ε1 + ε2)-DP, hence (ε1 + ε2)²/2-zCDP
        (Bun & Steinke 2016, Prop. 1.4).
    Propose-test-release: Dwork & Lei 2009; Vadhan 2017, §3.3 ("Propose-test-release"): a test of a
        sensitivity-Δ stability score with Lap(Δ/ε) noise that passes with probability at most δ on an
        unstable collection is (ε, δ)-DP; here as δ-approximate ε²/2-zCDP (proof in
        :class:`ProposeTestReleaseEvent`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from dpsynrag.errors import ConfigError
from dpsynrag.privacy.events import PrivacyEvent


def _positive(name: str, value: float) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (0 < value < math.inf):
        raise ConfigError(f"`{name}` must be a finite number > 0. Found {value!r}.")


@dataclass(frozen=True)
class AboveThresholdEvent(PrivacyEvent):
    """One AboveThreshold run over integer queries of sensitivity 1, up to and including its first
    positive answer (:class:`~dpsynrag.privacy.voting.AboveThreshold`).

    Noise: T̂ = θ + Lap_Z(1/ε1) once, then "above" at the first query with q_t + Lap_Z(2/ε2) >= T̂.
    Cost: (ε1 + ε2)-DP, rho = (ε1 + ε2)²/2, whatever the number of negative answers.
    """

    name: str
    epsilon1: float
    epsilon2: float

    def __post_init__(self) -> None:
        _positive("epsilon1", self.epsilon1)
        _positive("epsilon2", self.epsilon2)

    @property
    def epsilon(self) -> float:
        """ε1 + ε2, the pure-DP ε of one run."""
        return self.epsilon1 + self.epsilon2

    @property
    def rho(self) -> float:
        return 0.5 * self.epsilon**2

    def describe(self):
        return {"mechanism": "above_threshold", "name": self.name, "sensitivity": 1, "epsilon1": self.epsilon1,
                "epsilon2": self.epsilon2, "epsilon": self.epsilon, "rho": self.rho, "delta": 0.0}


@dataclass(frozen=True)
class ProposeTestReleaseEvent(PrivacyEvent):
    """Propose-test-release of a value that is stable on most collections
    (:func:`~dpsynrag.privacy.voting.ptr_top_k`): release f(D) iff a stability score h (sensitivity 1;
    h(D) > 1 ⇒ f(D') = f(D) for every neighbour D') passes a noisy test h + Lap(1/ε) > t, with t set so
    that P[pass] <= δ whenever h <= 1.

    Cost: δ-approximate (ε²/2)-zCDP (Bun & Steinke 2016, Def. 1.9). Proof: for neighbours D, D', if
    h(D) > 1 or h(D') > 1 then f(D) = f(D'), the outputs (⊥, or the common f) differ only through the
    ε-DP Laplace test: ε-DP, hence ε²/2-zCDP. Otherwise both pass with probability <= δ: write each
    output law as (1 − δ)·⊥ + δ·(rest); the (1 − δ) parts are equal (divergence 0). So every pair is
    covered by ρ = ε²/2 with failure δ.

    Args:
        name: what is released. epsilon: ε of the test. delta_value: δ, the most a test passes on an
            unstable collection.
    """

    name: str
    epsilon: float
    delta_value: float

    def __post_init__(self) -> None:
        _positive("epsilon", self.epsilon)
        if isinstance(self.delta_value, bool) or not isinstance(self.delta_value, (int, float)) or not (
            0 < self.delta_value < 1
        ):
            raise ConfigError(f"`delta_value` must lie strictly between 0 and 1. Found {self.delta_value!r}.")

    @property
    def rho(self) -> float:
        return 0.5 * self.epsilon**2

    @property
    def delta(self) -> float:
        return float(self.delta_value)

    def describe(self):
        return {"mechanism": "propose_test_release", "name": self.name, "epsilon": self.epsilon, "rho": self.rho,
                "delta": self.delta}
