"""The law of the discrete Gaussian N_Z(0, σ²), for accounting and for tests of the sampler.

P[Z = z] = exp(−z²/(2σ²)) / N(σ),  N(σ) = Σ_{y ∈ ℤ} exp(−y²/(2σ²))  (Canonne, Kamath & Steinke 2020,
"The Discrete Gaussian for Differential Privacy", Def. 1). The sampler is
:meth:`dpsynrag.rng.RandomSource.discrete_gaussian`.

Computed in decimal arithmetic with 60 significant digits (``decimal``'s exp is correctly rounded), and
rounded in the safe direction where a result is a privacy cost: :func:`discrete_gaussian_tail` is an
upper bound (its numerator is rounded up and bounded above beyond the summed terms, the normaliser
bounded below), never an estimate that could fall short.
"""

from __future__ import annotations

import math
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal, localcontext
from functools import lru_cache

from dpsynrag.errors import ConfigError

_PREC = 60
# Terms beyond |z| = 40σ are below exp(−800) of the largest one; the rest of the series is bounded above.
_SPAN = 40
# At most this many terms are summed one by one; beyond them the tail is bounded by an integral.
_MAX_TERMS = 200_000


def _check_sigma(sigma: float) -> float:
    if isinstance(sigma, bool) or not isinstance(sigma, (int, float)) or not (0 < sigma < math.inf):
        raise ConfigError(f"`sigma` must be a finite number > 0. Found {sigma!r}.")
    return float(sigma)


def _term(z: int, two_var: Decimal) -> Decimal:
    return (-Decimal(z * z) / two_var).exp()


def _integral_tail(start: int, sigma: Decimal, two_var: Decimal) -> Decimal:
    """Σ_{z > start} exp(−z²/(2σ²)) ≤ ∫_start^∞ exp(−x²/(2σ²)) dx ≤ (σ²/start) · exp(−start²/(2σ²)),
    for start >= 1 (the summand decreases on [start, ∞); Mills' ratio bound)."""
    return sigma * sigma / Decimal(start) * _term(start, two_var)


def _normaliser_lower(sigma: float) -> Decimal:
    """A lower bound on N(σ) = Σ_z exp(−z²/(2σ²)) (the summed terms only; every term is positive).

    For σ >= 2 it is σ·sqrt(2π) (Poisson summation: N(σ) = σ·sqrt(2π)·Σ_k exp(−2π²σ²k²) >= σ·sqrt(2π),
    an equality up to a relative 2·exp(−79)).
    """
    with localcontext() as ctx:
        ctx.prec = _PREC
        ctx.rounding = ROUND_FLOOR  # every operation rounds down
        s = Decimal(sigma)
        if sigma >= 2.0:
            pi = Decimal("3.14159265358979323846264338327950288419716939937510582097494459")  # below π
            return s * (2 * pi).sqrt()
        two_var = 2 * s * s
        m = math.ceil(_SPAN * sigma) + 1
        total = Decimal(1) + 2 * sum((_term(z, two_var) for z in range(1, m + 1)), Decimal(0))
        # exp is correctly rounded to nearest (not down): a relative 1e-55 margin covers its half ulp
        return total * (1 - Decimal(10) ** -(_PREC - 5))


def discrete_gaussian_pmf(sigma: float, z: int) -> float:
    """P[Z = z] for Z ~ N_Z(0, σ²), to double precision (for tests and reports; not a privacy bound).

    Raises:
        ConfigError: on a bad σ.
    """
    sigma = _check_sigma(sigma)
    with localcontext() as ctx:
        ctx.prec = _PREC
        s = Decimal(sigma)
        two_var = 2 * s * s
        m = math.ceil(_SPAN * sigma) + 1
        if m > _MAX_TERMS:
            norm = _normaliser_lower(sigma)
        else:
            norm = Decimal(1) + 2 * sum((_term(y, two_var) for y in range(1, m + 1)), Decimal(0))
        return float(_term(int(z), two_var) / norm)


@lru_cache(maxsize=4096)
def discrete_gaussian_tail(sigma: float, m: int) -> float:
    """An upper bound on P[Z >= m] for Z ~ N_Z(0, σ²), tight to a relative 1e-50 for moderate σ.

    Numerator: the terms exp(−z²/(2σ²)) for z = m … m + ⌈40σ⌉ (at most 200,000 of them), summed, plus
    the integral bound on the rest; denominator: a lower bound on N(σ). The quotient is rounded up to
    the next double. For m <= 0 it returns 1 (a bound; thresholds that low are never calibrated).

    Args:
        sigma: σ > 0 (the float whose exact square is the variance parameter).
        m: an integer.

    Returns:
        A float p with P[Z >= m] <= p <= 1.

    Raises:
        ConfigError: on a bad σ or a non-integer m.
    """
    sigma = _check_sigma(sigma)
    if isinstance(m, bool) or not isinstance(m, int):
        raise ConfigError(f"`m` must be an integer. Found {m!r}.")
    if m <= 0:
        return 1.0
    with localcontext() as ctx:
        ctx.prec = _PREC
        ctx.rounding = ROUND_CEILING  # sums and quotients round up (exp itself is correctly rounded)
        s = Decimal(sigma)
        two_var = 2 * s * s
        last = m + min(math.ceil(_SPAN * sigma) + 1, _MAX_TERMS)
        numerator = sum((_term(z, two_var) for z in range(m, last + 1)), Decimal(0))
        numerator += _integral_tail(last, s, two_var)
        # exp's correct rounding may fall below the true term by half an ulp: a relative 1e-55 margin
        numerator *= 1 + Decimal(10) ** -(_PREC - 5)
        tail = numerator / _normaliser_lower(sigma)
    return min(1.0, _round_up(tail))


def _round_up(x: Decimal) -> float:
    f = float(x)
    return f if Decimal(f) >= x else math.nextafter(f, math.inf)
