"""The lower bound of the one-run privacy audit (:mod:`dpsynrag.audit`; Steinke, Nasr, Jagielski 2023,
arXiv 2305.08846): the p-value of v correct guesses of r under an (ε, δ)-DP hypothesis, and the ε below
which every value is refuted at a given confidence; the audit's design (canaries, guesses) by a public
rule and the largest bound it can reach, known before the build (:func:`design_audit`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import expit
from scipy.stats import binom

from dpsynrag.errors import ConfigError

__all__ = [
    "AuditDesign",
    "CANARY_SIZES",
    "check_confidence",
    "design_audit",
    "epsilon_lower_bound",
    "max_epsilon_lower_bound",
    "one_run_p_value",
]


def _check_counts(m: int, r: int, v: int) -> None:
    for name, value in (("m", m), ("r", r), ("v", v)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise ConfigError(f"`{name}` must be an integer. Found {value!r}.")
    if not (0 <= v <= r <= m) or m < 1:
        raise ConfigError(f"need 0 <= v <= r <= m and m >= 1 (correct, guesses, canaries). Found v={v}, r={r}, m={m}.")


def _check_delta(delta: float) -> None:
    if isinstance(delta, bool) or not isinstance(delta, (int, float)) or not (0.0 <= delta <= 1.0):
        raise ConfigError(f"`delta` must lie in [0, 1]. Found {delta!r}.")


def check_confidence(confidence: float) -> None:
    """Raise :class:`~dpsynrag.errors.ConfigError` unless ``confidence`` lies in (0, 1)."""
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or not (0.0 < confidence < 1.0):
        raise ConfigError(f"`confidence` must lie in (0, 1) (e.g. 0.95). Found {confidence!r}.")


def one_run_p_value(m: int, r: int, v: int, epsilon: float, delta: float = 0.0) -> float:
    """P-value of "v or more correct guesses" under the hypothesis that the build is (ε, δ)-DP.

    The bound of Steinke, Nasr, Jagielski 2023 (main theorem, §3; computed as in their appendix code):
    with q = e^ε/(1 + e^ε) and f(u) = P[Binomial(r, q) ≥ u],
    p = f(v) + 2mδ · max_{1≤i≤v} (f(v − i) − f(v))/i, capped at 1. For δ = 0 it is the binomial tail f(v).

    Args:
        m: canaries (each included with probability ½). r: guesses (abstentions excluded).
        v: correct guesses. epsilon: ε >= 0 of the hypothesis. delta: its δ in [0, 1].

    Returns:
        The p-value in [0, 1].

    Raises:
        ConfigError: counts outside 0 <= v <= r <= m, ε < 0 or δ outside [0, 1].
    """
    _check_counts(m, r, v)
    _check_delta(delta)
    if isinstance(epsilon, bool) or not isinstance(epsilon, (int, float)) or not (epsilon >= 0) or math.isinf(epsilon):
        raise ConfigError(f"`epsilon` must be a finite number >= 0. Found {epsilon!r}.")
    q = float(expit(epsilon))
    tail = float(binom.sf(v - 1, r, q))  # P[Binomial(r, q) >= v]
    if delta == 0.0 or v == 0:
        return min(tail, 1.0)
    # f(v - i) - f(v) = P[v - i <= B < v] = sum_{j=1..i} P[B = v - j]
    below = np.cumsum(binom.pmf(np.arange(v - 1, -1, -1), r, q))
    alpha = float(np.max(below / np.arange(1, v + 1)))
    return min(tail + 2.0 * m * delta * alpha, 1.0)


def epsilon_lower_bound(m: int, r: int, v: int, *, delta: float = 0.0, confidence: float = 0.95,
                        step: float = 0.01) -> float:
    """The ε lower bound of one-run auditing: the smallest ε >= 0 whose p-value reaches 1 − confidence.

    Every ε below the returned value is rejected at level 1 − confidence, so if the build were
    (ε*, δ)-DP the returned value exceeds ε* with probability at most 1 − confidence (δ = 0: pure DP).
    The p-value is scanned upward from 0 on a grid of ``step`` and its first crossing refined by
    bisection. For δ = 0 the p-value is increasing in ε and the result is its unique root; for δ > 0 its
    second term may decrease in ε, and the first crossing (not the last) is what keeps the bound valid
    (up to the grid: a crossing and return narrower than ``step`` would go unseen).

    Args:
        m: canaries. r: guesses. v: correct guesses.
        delta: δ of the hypothesis (the build's claimed δ; 0 for pure DP).
        confidence: e.g. 0.95.
        step: the scan's grid step in ε (> 0).

    Returns:
        The lower bound (>= 0; 0 when v is not significantly above r/2).

    Raises:
        ConfigError: bad counts, δ or confidence.
    """
    _check_counts(m, r, v)
    _check_delta(delta)
    check_confidence(confidence)
    alpha = 1.0 - confidence
    if one_run_p_value(m, r, v, 0.0, delta) >= alpha:
        return 0.0
    lo = 0.0
    hi = step
    while one_run_p_value(m, r, v, hi, delta) < alpha:
        lo, hi = hi, hi + step
        if hi > 700:  # expit saturates in float64 long before; unreachable for v <= r
            raise ConfigError("internal error: the p-value never reached the significance level.")
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if one_run_p_value(m, r, v, mid, delta) < alpha:
            lo = mid
        else:
            hi = mid
    return lo


def max_epsilon_lower_bound(m: int, r: int, *, delta: float = 0.0, confidence: float = 0.95) -> float:
    """The largest lower bound the design can report: all r guesses correct (v = r).

    A claimed ε above this value can never be refuted with m canaries and r guesses; for δ = 0 it is
    −log((1 − confidence)^(−1/r) − 1).
    """
    return epsilon_lower_bound(m, r, r, delta=delta, confidence=confidence)


# The public sizing rule's candidate canary counts (m); guesses r = m / 2 (m / 4 IN, m / 4 OUT).
CANARY_SIZES = (1000, 2000, 4000, 8000, 16000)


@dataclass(frozen=True)
class AuditDesign:
    """An audit's size, fixed before the build from public values only.

    Attributes:
        canaries: m. k_in, k_out: guesses IN and OUT (r = k_in + k_out; the other m − r abstain).
        reachable: the largest ε lower bound this design can report (:func:`max_epsilon_lower_bound`
            at the claimed δ): a claim above it can never be refuted.
        target: the ε the rule tried to exceed (the claimed ε), or None when m was given.
    """

    canaries: int
    k_in: int
    k_out: int
    reachable: float
    target: float | None

    @property
    def guesses(self) -> int:
        """r = k_in + k_out."""
        return self.k_in + self.k_out


def design_audit(epsilon: float, delta: float, *, canaries: int | None = None, k_in: int | None = None,
                 k_out: int | None = None, confidence: float = 0.95,
                 sizes: tuple[int, ...] = CANARY_SIZES) -> AuditDesign:
    """The audit's design and its largest reachable bound, before any data is read.

    Public rule (when ``canaries`` is None): m is the smallest of ``sizes`` whose design (m / 4
    guesses IN, m / 4 OUT, the rest abstaining, as in Steinke, Nasr, Jagielski 2023, §6) can reach a
    lower bound above the claimed ``epsilon`` at the claimed ``delta``; when none can, the size with the
    largest reachable bound (below the claim: this audit can then only say "not refuted"; with δ > 0
    the bound's 2mδ term makes larger m worse beyond a point).
    Only ε, δ and the confidence enter: nothing about the data.

    Args:
        epsilon: the claimed ε (> 0). delta: the claimed δ in [0, 1).
        canaries: m >= 2 to override the rule. k_in, k_out: guesses (default m // 4 each).
        confidence: of the lower bound. sizes: increasing candidate m's.

    Returns:
        The :class:`AuditDesign`.

    Raises:
        ConfigError: bad ε, δ, confidence or counts (1 <= k_in + k_out <= m).
    """
    if isinstance(epsilon, bool) or not isinstance(epsilon, (int, float)) or not (0 < epsilon < math.inf):
        raise ConfigError(f"the claimed `epsilon` must be a finite number > 0. Found {epsilon!r}.")
    _check_delta(delta)
    check_confidence(confidence)
    if canaries is None:
        candidates, target = list(sizes), float(epsilon)
    else:
        if isinstance(canaries, bool) or not isinstance(canaries, int) or canaries < 2:
            raise ConfigError(f"the number of canaries (--canaries; canaries=) must be an integer >= 2. Found {canaries!r}.")
        candidates, target = [canaries], None
    best: AuditDesign | None = None
    for m in candidates:
        ki = m // 4 if k_in is None else k_in
        ko = m // 4 if k_out is None else k_out
        for name, value in (("k_in", ki), ("k_out", ko)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ConfigError(f"`{name}` (guesses, --guesses-in/--guesses-out) must be an integer >= 0. Found {value!r}.")
        if not (1 <= ki + ko <= m):
            raise ConfigError(f"need 1 <= guesses IN + OUT <= canaries. Found {ki} + {ko} for {m} canaries.")
        design = AuditDesign(canaries=m, k_in=ki, k_out=ko, target=target,
                             reachable=max_epsilon_lower_bound(m, ki + ko, delta=delta, confidence=confidence))
        if target is None or design.reachable > target:
            return design
        if best is None or design.reachable > best.reachable:
            best = design
    return best
