"""Query-time voting mechanisms over disjoint voters (subsample-and-aggregate): the exponential
mechanism on a vote histogram, AboveThreshold (sparse vector technique) and propose-test-release of a
top-k set. Used by DPVoteRAG / DPSparseVoteRAG (:mod:`dpsynrag.baselines.dp_vote`) and DP-KSA
(:mod:`dpsynrag.baselines.dp_ksa`).

Privacy model (METHOD.md §0: add/remove one document). The callers give each document to exactly one
voter, by a function of that document alone and public constants (a salted hash of its text), so
adding or removing a document changes the input — hence the vote, answer or keyword set — of **one**
voter only. Every count below holds each voter at most once per candidate, so one document moves each
count by at most 1 (L∞ sensitivity 1). All noise comes from :mod:`dpsynrag.rng`; every mechanism
charges its accountant before it draws.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction

import numpy as np

from dpsynrag.errors import ConfigError
from dpsynrag.privacy.accountant import ZCDPAccountant
from dpsynrag.privacy.events import ExponentialMechanismEvent
from dpsynrag.privacy.query_events import AboveThresholdEvent, ProposeTestReleaseEvent
from dpsynrag.rng import RandomSource


def _positive(name: str, value: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (0 < value < math.inf):
        raise ConfigError(f"`{name}` must be a finite number > 0. Found {value!r}.")
    return float(value)


def vote_exponential(counts, *, epsilon: float, accountant: ZCDPAccountant, random: RandomSource,
                     name: str = "vote") -> int:
    """Draw a candidate by the exponential mechanism on vote counts: P[y] ∝ exp(ε · n_y / 2).

    Sensitivity: one voter changes its vote, so each n_y moves by at most 1 (utility sensitivity 1) and
    the log-probability ratio of any y lies in an interval of width ε: ε-bounded range, ρ = ε²/8
    (Cesar & Rogers 2021, Lemma 3.2; :class:`~dpsynrag.privacy.events.ExponentialMechanismEvent`).
    The candidate set (e.g. the whole vocabulary) must be public.

    Args:
        counts: int array [n_candidates], the votes of each candidate (n >= 1).
        epsilon: ε > 0.

    Returns:
        The drawn index. Raises ConfigError (bad input), PrivacyBudgetExceededError (nothing drawn).
    """
    eps = _positive("epsilon", epsilon)
    n = np.asarray(counts, dtype=np.float64).reshape(-1)
    if n.size == 0 or not np.isfinite(n).all():
        raise ConfigError("`counts` must be a non-empty finite array.")
    accountant.compose(ExponentialMechanismEvent(name=name, epsilon=eps))
    return int(random.categorical(0.5 * eps * n))


class AboveThreshold:
    """One AboveThreshold run (sparse vector technique) over integer queries of sensitivity 1.

    The run is charged (:class:`~dpsynrag.privacy.query_events.AboveThresholdEvent`, (ε1 + ε2)²/2) when
    it is opened, before its threshold noise is drawn: T̂ = θ + Lap_Z(1/ε1). :meth:`above` answers each
    query q with q + Lap_Z(2/ε2) >= T̂ (Lyu, Su & Li 2017, Alg. 1, c = 1); after the first True the run is
    spent and refuses more queries (open a new run). Discrete Laplace on integer queries: the shifts of
    the proof are whole steps, so the (ε1 + ε2)-DP proof holds unchanged.

    Args:
        threshold: θ, the public threshold (an integer).
        epsilon1, epsilon2: ε1, ε2 > 0.

    Raises:
        ConfigError: bad parameters. PrivacyBudgetExceededError: the accountant cannot pay (nothing drawn).
    """

    def __init__(self, threshold: int, *, epsilon1: float, epsilon2: float, accountant: ZCDPAccountant,
                 random: RandomSource, name: str = "above-threshold run"):
        if isinstance(threshold, bool) or not isinstance(threshold, (int, np.integer)):
            raise ConfigError(f"`threshold` must be an integer. Found {threshold!r}.")
        self.event = AboveThresholdEvent(name=name, epsilon1=_positive("epsilon1", epsilon1),
                                         epsilon2=_positive("epsilon2", epsilon2))
        accountant.compose(self.event)
        self._random = random
        self._noisy_threshold = int(threshold) + random.discrete_laplace(Fraction(1.0 / epsilon1))
        self._query_scale = Fraction(2.0 / epsilon2)
        self.spent = False

    def above(self, query: int) -> bool:
        """Whether ``query`` (an integer) + noise reaches the noisy threshold; the first True ends the run.

        Raises:
            ConfigError: the run already answered True, or ``query`` is not an integer.
        """
        if self.spent:
            raise ConfigError("this AboveThreshold run already answered True: open (and pay) a new run.")
        if isinstance(query, bool) or not isinstance(query, (int, np.integer)):
            raise ConfigError(f"`query` must be an integer. Found {query!r}.")
        self.spent = int(query) + self._random.discrete_laplace(self._query_scale) >= self._noisy_threshold
        return self.spent


def ptr_pass_threshold(epsilon: float, delta: float) -> int:
    """The integer t of :func:`ptr_top_k`: the test g + Z >= t, Z ~ Lap_Z(2/ε), passes with probability
    <= δ whenever g <= 2. With r = exp(−ε/2), P[Z >= z] = r^z / (1 + r) for z >= 0, so t = 2 + z0 with
    z0 the least integer >= 0 such that r^z0 / (1 + r) <= δ."""
    eps = _positive("epsilon", epsilon)
    if isinstance(delta, bool) or not isinstance(delta, (int, float)) or not (0 < delta < 1):
        raise ConfigError(f"`delta` must lie strictly between 0 and 1. Found {delta!r}.")
    r = math.exp(-eps / 2.0)
    z0 = max(0, math.ceil(math.log(delta * (1.0 + r)) / math.log(r) - 1e-12))
    while r**z0 / (1.0 + r) > delta:  # guard the rounding of the logarithms
        z0 += 1
    return 2 + z0


def top_k_gap(counts: Mapping[str, int], k: int) -> tuple[tuple[str, ...], int]:
    """The top-k keys (count descending, then key ascending: public tie-break) and the gap
    g = n_(k) − n_(k+1) between the k-th and (k+1)-th largest counts, unseen keys counting 0.

    Sensitivity: one voter moves every count by at most 1, so every order statistic n_(j) moves by at
    most 1 and g by at most 2; if g >= 3 the top-k set of every neighbour is the same (an inside count
    stays >= n_(k) − 1 > n_(k+1) + 1 >= any outside count)."""
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ConfigError(f"`k` must be an integer >= 1. Found {k!r}.")
    ranked = sorted(((int(c), key) for key, c in counts.items() if int(c) > 0), key=lambda t: (-t[0], t[1]))
    values = [c for c, _ in ranked] + [0] * (k + 1)
    return tuple(key for _, key in ranked[:k]), values[k - 1] - values[k]


def ptr_top_k(counts: Mapping[str, int], *, k: int, epsilon: float, delta: float, accountant: ZCDPAccountant,
              random: RandomSource, name: str = "top-k keywords (propose-test-release)") -> tuple[str, ...] | None:
    """Release the top-k keys of a vote histogram by propose-test-release, or None (⊥).

    Propose "the top-k set is stable"; test g + Lap_Z(2/ε) >= :func:`ptr_pass_threshold` (g from
    :func:`top_k_gap`, sensitivity 2, so the test is ε-DP); release the exact top-k set when it passes.
    Charged before the draw as :class:`~dpsynrag.privacy.query_events.ProposeTestReleaseEvent`:
    δ-approximate ε²/2-zCDP (proof there).

    Only the *set* is stable: when g >= 3 every neighbour has the same top-k keys, but their order by
    count is not (fever 40 / rash 40 / cough 39 against fever 39 / rash 40 / cough 39 ranks them
    differently). The keys are therefore returned in ascending key order, a public order that depends on
    the set alone; ranked by count they would be disjoint outputs on neighbours, not DP for any δ < 1.

    Args:
        counts: {key: number of voters holding it}; each voter holds a key at most once.
        k: the number of keys released. epsilon: ε > 0 of the test. delta: δ in (0, 1).

    Returns:
        The k keys in ascending key order (never their count order), or None when the test fails.
    """
    t = ptr_pass_threshold(epsilon, delta)
    top, gap = top_k_gap(counts, k)
    accountant.compose(ProposeTestReleaseEvent(name=name, epsilon=float(epsilon), delta_value=float(delta)))
    noisy = gap + random.discrete_laplace(Fraction(2.0 / float(epsilon)))
    return tuple(sorted(top)) if noisy >= t else None
