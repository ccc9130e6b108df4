"""Privacy events: one frozen record per mechanism, holding exactly what accounting needs.

Events describe mechanisms; the accountant (:mod:`dpsynrag.privacy.accountant`) consumes them. Every
event knows its zCDP cost ``rho`` (nats) and its approximate-zCDP ``delta`` term (0 for pure zCDP
mechanisms). All values are checked when the event is built, so a bad parameter fails where it is
written, not deep inside a composition.

Neighbouring relation: add/remove one privacy unit (one document), METHOD.md §0.

Sources:
    Gaussian mechanism in zCDP: Bun & Steinke 2016 (arXiv 1605.02065), Prop. 1.6: rho = Δ²/(2σ²).
    Discrete Gaussian mechanism (integer-valued f, noise N_Z(0, σ²) per coordinate): Canonne, Kamath &
        Steinke 2020 (arXiv 2004.00010), Thm. 14: the same rho = Δ²/(2σ²) with Δ the L2 sensitivity.
    Bounded-range exponential mechanism: Cesar & Rogers 2021 (arXiv 2004.07223), Lemma 3.2:
        an ε-BR mechanism is (ε²/8)-zCDP.
    Private prediction token (DP-SynRAG App. B; Grislain 2024): clipped logits in [-c, c] move by at
        most c per coordinate, so softmax(z/τ) is a 2c/τ-BR exponential mechanism: rho = (c/τ)²/2.
    Sparse vector technique (AboveThreshold): Dwork & Roth 2014, Alg. 1 / Thm. 3.23; Lyu, Su & Li 2017
        ("Understanding the Sparse Vector Technique for Differential Privacy", PVLDB 10(6)), Alg. 1 with
        c = 1: one run up to and including its first positive answer is (ε1 + ε2)-DP, hence
        (ε1 + ε2)²/2-zCDP (Bun & Steinke 2016, Prop. 1.4).
    Thresholded discrete Gaussian sparse histogram: approximate zCDP with rho = K/(2σ²) and
        delta = K·P[1 + Z > threshold], Z ~ N_Z(0, σ²) (METHOD.md §1a; Wilkins et al. 2024, arXiv
        2401.14311, with the discrete Gaussian's own tail: :mod:`dpsynrag.privacy.discrete`).
    Overlapping parallel composition: DP-SynRAG Lemma 6 (after Smith et al. 2022): when each unit is
        in at most L branches and membership depends only on that unit and public data, the parallel
        run costs min(L, n_branches) times the most expensive branch.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, ClassVar

from dpsynrag.errors import ConfigError
from dpsynrag.privacy.discrete import discrete_gaussian_tail


def _check_positive(name: str, value: float, *, allow_inf: bool = False) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError(f"`{name}` must be a number. Found {value!r}.")
    if math.isnan(value) or value <= 0 or (math.isinf(value) and not allow_inf):
        raise ConfigError(f"`{name}` must be a finite number > 0. Found {value!r}.")


def _check_count(name: str, value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(f"`{name}` must be an integer >= 1. Found {value!r}.")


class PrivacyEvent:
    """Base class of events. Subclasses are frozen dataclasses with a ``name`` field."""

    name: str

    @property
    def rho(self) -> float:
        """zCDP cost in nats."""
        raise NotImplementedError

    @property
    def delta(self) -> float:
        """Approximate-zCDP failure probability charged to the final delta (0 for pure zCDP)."""
        return 0.0

    def describe(self) -> dict[str, Any]:
        """A JSON-ready description for the privacy report."""
        raise NotImplementedError


@dataclass(frozen=True)
class GaussianEvent(PrivacyEvent):
    """Gaussian mechanism: release f(D) + N(0, σ² I).

    Args:
        name: what is released, e.g. "keyword histogram".
        sensitivity: L2 sensitivity Δ of f under add/remove of one unit.
        sigma: noise standard deviation σ (same units as f).
        dimension: length of the released vector (informational).

    Cost: rho = Δ² / (2σ²).
    """

    name: str
    sensitivity: float
    sigma: float
    dimension: int | None = None

    def __post_init__(self) -> None:
        _check_positive("sensitivity", self.sensitivity)
        _check_positive("sigma", self.sigma)
        if self.dimension is not None:
            _check_count("dimension", self.dimension)

    @property
    def rho(self) -> float:
        return self.sensitivity**2 / (2.0 * self.sigma**2)

    _mechanism: ClassVar[str] = "gaussian"

    def describe(self):
        return {
            "mechanism": self._mechanism,
            "name": self.name,
            "l2_sensitivity": self.sensitivity,
            "sigma": self.sigma,
            "noise_multiplier": self.sigma / self.sensitivity,
            "dimension": self.dimension,
            "rho": self.rho,
            "delta": 0.0,
        }


@dataclass(frozen=True)
class DiscreteGaussianEvent(GaussianEvent):
    """Discrete Gaussian mechanism: release f(D) + Z, f integer-valued, Z_j ~ N_Z(0, σ²) independent.

    Args:
        name: what is released, e.g. "keyword histogram".
        sensitivity: L2 sensitivity Δ of f under add/remove of one unit.
        sigma: the σ of the discrete Gaussian (counts).
        dimension: length of the released vector (informational).

    Cost: rho = Δ² / (2σ²) (Canonne, Kamath & Steinke 2020, Thm. 14) — the continuous Gaussian's, so
    only the name of the mechanism in :meth:`describe` differs.
    """

    _mechanism: ClassVar[str] = "discrete_gaussian"


@dataclass(frozen=True)
class SparseDiscreteGaussianHistogramEvent(PrivacyEvent):
    """Discrete Gaussian sparse histogram with thresholding (open vocabulary).

    Each unit contributes at most ``max_contributions`` distinct keys with weight 1. Noise Z ~ N_Z(0, σ²)
    is added to the (integer) counts of observed keys only; keys whose noisy count exceeds ``threshold``
    are released.

    Cost: rho = K/(2σ²) and delta = K · P[1 + Z > threshold] = K · P[Z >= ⌊threshold⌋] (an upper bound
    from :func:`~dpsynrag.privacy.discrete.discrete_gaussian_tail`): a key that only the added or removed
    unit holds has count 1 and is released with that probability.
    """

    name: str
    max_contributions: int
    sigma: float
    threshold: float

    def __post_init__(self) -> None:
        _check_count("max_contributions", self.max_contributions)
        _check_positive("sigma", self.sigma)
        if isinstance(self.threshold, bool) or not isinstance(self.threshold, (int, float)) or not math.isfinite(self.threshold):
            raise ConfigError(f"`threshold` must be a finite number. Found {self.threshold!r}.")

    @property
    def rho(self) -> float:
        return self.max_contributions / (2.0 * self.sigma**2)

    @property
    def delta(self) -> float:
        # 1 + Z > τ  <=>  Z > τ − 1  <=>  Z >= ⌊τ⌋ for integer Z
        tail = discrete_gaussian_tail(float(self.sigma), math.floor(self.threshold))
        return min(1.0, math.nextafter(self.max_contributions * tail, math.inf))

    def describe(self):
        return {
            "mechanism": "discrete_gaussian_sparse_histogram",
            "name": self.name,
            "l2_sensitivity": math.sqrt(self.max_contributions),
            "max_contributions": self.max_contributions,
            "sigma": self.sigma,
            "threshold": self.threshold,
            "rho": self.rho,
            "delta": self.delta,
        }


@dataclass(frozen=True)
class ExponentialMechanismEvent(PrivacyEvent):
    """Exponential mechanism with utility sensitivity 1 and weights exp(ε·u/2).

    It is ε-DP and ε-bounded-range, hence (ε²/8)-zCDP (Cesar & Rogers 2021, Lemma 3.2).
    """

    name: str
    epsilon: float

    def __post_init__(self) -> None:
        _check_positive("epsilon", self.epsilon)

    @property
    def rho(self) -> float:
        return self.epsilon**2 / 8.0

    def describe(self):
        return {
            "mechanism": "exponential",
            "name": self.name,
            "utility_sensitivity": 1.0,
            "epsilon": self.epsilon,
            "rho": self.rho,
            "delta": 0.0,
        }


@dataclass(frozen=True)
class PrivatePredictionTokenEvent(PrivacyEvent):
    """One token sampled from softmax(Σ clip_c(logits) / τ) (DP-SynRAG §3.3, App. B).

    Each unit's clipped logits lie in [-c, c], so the log-probability ratio lies in an interval of
    width 2c/τ: a 2c/τ-bounded-range exponential mechanism, rho = (c/τ)²/2.
    """

    name: str
    clip: float
    temperature: float

    def __post_init__(self) -> None:
        _check_positive("clip", self.clip)
        _check_positive("temperature", self.temperature)

    @property
    def rho(self) -> float:
        return 0.5 * (self.clip / self.temperature) ** 2

    def describe(self):
        return {
            "mechanism": "private_prediction_token",
            "name": self.name,
            "clip": self.clip,
            "temperature": self.temperature,
            "bounded_range_epsilon": 2.0 * self.clip / self.temperature,
            "rho": self.rho,
            "delta": 0.0,
        }


@dataclass(frozen=True)
class SparseVectorEvent(PrivacyEvent):
    """One AboveThreshold run of sparse-vector decoding, up to and including its first positive answer.

    Each step t of a text asks Q_t = Σ_d w_d (a_d − β), a_d ∈ [0, 1] the disagreement of member d with
    the public prediction (:class:`~dpsynrag.models.svt_selector.SparseVectorSelector`). Adding or
    removing one member moves Q_t by a_d − β ∈ [−β, 1 − β]: sensitivity Δ = max(β, 1 − β). The run
    draws a noisy threshold T̂ = 0 + Lap(Δ/ε1) once, and answers "paid" at the first t with
    Q_t + Lap(2Δ/ε2) >= T̂ (Lyu, Su & Li 2017, Alg. 1 with c = 1; Dwork & Roth 2014, Alg. 1). The queries
    are computed on the public grid 1/``grid`` (a_d rounded down to a multiple of 1/grid, β·grid an
    integer) with discrete Laplace noise, so the shifts of the proof are whole grid steps.

    Cost: the run is (ε1 + ε2)-DP (Lyu, Su & Li 2017, Thm. 2; Dwork & Roth 2014, Thm. 3.23), hence
    (ε1 + ε2)²/2-zCDP (Bun & Steinke 2016, Prop. 1.4), whatever the number of negative answers.

    Args:
        name: what the run decides, e.g. "sparse-vector run".
        epsilon1: ε1 > 0, spent on the threshold noise.
        epsilon2: ε2 > 0, spent on the per-step query noise.
        beta: β in (0, 1), the public offset of each member's disagreement.
        gap: g > 0 (nats): a member's disagreement is a_d = clamp((max_v l_d[v] − l_d[v_pub]) / g, 0, 1).
        grid: q >= 1, the public grid of the queries (a_d in steps of 1/q); β·q must be an integer.
    """

    name: str
    epsilon1: float
    epsilon2: float
    beta: float
    gap: float
    grid: int

    def __post_init__(self) -> None:
        _check_positive("epsilon1", self.epsilon1)
        _check_positive("epsilon2", self.epsilon2)
        _check_positive("gap", self.gap)
        _check_count("grid", self.grid)
        if isinstance(self.beta, bool) or not isinstance(self.beta, (int, float)) or not (0.0 < self.beta < 1.0):
            raise ConfigError(f"`beta` (sparse-vector offset) must lie strictly between 0 and 1. Found {self.beta!r}.")
        if abs(self.beta * self.grid - round(self.beta * self.grid)) > 1e-9 * self.grid:
            raise ConfigError(f"`beta` (sparse-vector offset) must be a multiple of 1/{self.grid}. Found {self.beta!r}.")

    @property
    def epsilon(self) -> float:
        """ε1 + ε2: the pure-DP ε of one run."""
        return self.epsilon1 + self.epsilon2

    @property
    def beta_steps(self) -> int:
        """β·q: the offset in grid steps (an integer)."""
        return round(self.beta * self.grid)

    @property
    def sensitivity_steps(self) -> int:
        """Δ in grid steps: max(β·q, q − β·q), the integer sensitivity of the quantised queries."""
        return max(self.beta_steps, self.grid - self.beta_steps)

    @property
    def sensitivity(self) -> float:
        """Δ = max(β, 1 − β): the most one member moves a query Q_t (query units, a_d ∈ [0, 1])."""
        return self.sensitivity_steps / self.grid

    @property
    def rho(self) -> float:
        return 0.5 * self.epsilon**2

    def describe(self):
        return {
            "mechanism": "sparse_vector",
            "name": self.name,
            "epsilon1": self.epsilon1,
            "epsilon2": self.epsilon2,
            "epsilon": self.epsilon,
            "sensitivity": self.sensitivity,
            "threshold_noise_scale": self.sensitivity / self.epsilon1,
            "query_noise_scale": 2.0 * self.sensitivity / self.epsilon2,
            "beta": self.beta,
            "gap": self.gap,
            "grid": self.grid,
            "rho": self.rho,
            "delta": 0.0,
        }


@dataclass(frozen=True)
class ZCDPEvent(PrivacyEvent):
    """A mechanism known only by its (approximate) zCDP cost, e.g. an external component."""

    name: str
    rho_value: float
    delta_value: float = 0.0

    def __post_init__(self) -> None:
        _check_positive("rho_value", self.rho_value)
        if not (0.0 <= self.delta_value < 1.0):
            raise ConfigError(f"`delta_value` must lie in [0, 1). Found {self.delta_value!r}.")

    @property
    def rho(self) -> float:
        return self.rho_value

    @property
    def delta(self) -> float:
        return self.delta_value

    def describe(self):
        return {"mechanism": "zcdp", "name": self.name, "rho": self.rho, "delta": self.delta}


@dataclass(frozen=True)
class SelfComposedEvent(PrivacyEvent):
    """``count`` sequential runs of ``event``: rho and delta multiply by ``count``."""

    event: PrivacyEvent
    count: int
    name: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.event, PrivacyEvent):
            raise ConfigError(f"`event` must be a PrivacyEvent. Found {type(self.event).__name__}.")
        _check_count("count", self.count)
        if not self.name:
            object.__setattr__(self, "name", f"{self.count} x {self.event.name}")

    @property
    def rho(self) -> float:
        return self.count * self.event.rho

    @property
    def delta(self) -> float:
        return min(1.0, self.count * self.event.delta)

    def describe(self):
        return {
            "mechanism": "self_composition",
            "name": self.name,
            "count": self.count,
            "event": self.event.describe(),
            "rho": self.rho,
            "delta": self.delta,
        }


@dataclass(frozen=True)
class ComposedEvent(PrivacyEvent):
    """Sequential composition: rho and delta add (Bun & Steinke 2016, Lemma 2.3)."""

    name: str
    events: tuple[PrivacyEvent, ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        object.__setattr__(self, "events", tuple(self.events))
        for e in self.events:
            if not isinstance(e, PrivacyEvent):
                raise ConfigError(f"`events` must hold PrivacyEvent objects. Found {type(e).__name__}.")

    @property
    def rho(self) -> float:
        return sum(e.rho for e in self.events)

    @property
    def delta(self) -> float:
        return min(1.0, sum(e.delta for e in self.events))

    def describe(self):
        return {
            "mechanism": "composition",
            "name": self.name,
            "events": [e.describe() for e in self.events],
            "rho": self.rho,
            "delta": self.delta,
        }


@dataclass(frozen=True)
class OverlappingParallelEvent(PrivacyEvent):
    """``num_branches`` runs of ``branch`` on subsets where each unit is in at most
    ``max_branches_per_unit`` subsets, membership depending only on that unit and public data.

    Cost: min(L, n_branches) × branch cost (DP-SynRAG Lemma 6). ``branch`` must bound the cost of
    every branch (the accountant enforces it per branch).
    """

    name: str
    branch: PrivacyEvent
    num_branches: int
    max_branches_per_unit: int

    def __post_init__(self) -> None:
        if not isinstance(self.branch, PrivacyEvent):
            raise ConfigError(f"`branch` must be a PrivacyEvent. Found {type(self.branch).__name__}.")
        _check_count("num_branches", self.num_branches)
        _check_count("max_branches_per_unit", self.max_branches_per_unit)

    @property
    def multiplier(self) -> int:
        return min(self.max_branches_per_unit, self.num_branches)

    @property
    def rho(self) -> float:
        return self.multiplier * self.branch.rho

    @property
    def delta(self) -> float:
        return min(1.0, self.multiplier * self.branch.delta)

    def describe(self):
        return {
            "mechanism": "overlapping_parallel_composition",
            "name": self.name,
            "num_branches": self.num_branches,
            "max_branches_per_unit": self.max_branches_per_unit,
            "multiplier": self.multiplier,
            "branch": self.branch.describe(),
            "rho": self.rho,
            "delta": self.delta,
        }
