"""Conversions between zCDP (rho, nats) and approximate DP (epsilon, delta).

Two conversions, both valid upper bounds on epsilon:

* ``"bun-steinke"`` — the paper's: ε = ρ + 2·sqrt(ρ·log(1/δ)) (Bun & Steinke 2016, arXiv 1605.02065,
  Prop. 1.3), inverse ρ = (sqrt(ε + log(1/δ)) − sqrt(log(1/δ)))² (DP-SynRAG App. B).
* ``"cks"`` — the tight conversion of Canonne, Kamath & Steinke 2020 (arXiv 2004.00010, Cor. 13):
  δ(ε) = inf_{α>1} exp((α−1)(αρ−ε)) / (α−1) · (1 − 1/α)^α. It gives a smaller ε for the same ρ.

Numerical searches always return the conservative end: ``epsilon_from_rho`` never under-reports ε
and ``rho_from_epsilon`` never over-reports ρ.
"""

from __future__ import annotations

import math
from typing import Literal

from scipy.optimize import brentq

from dpsynrag.errors import ConfigError

Conversion = Literal["bun-steinke", "cks"]
CONVERSIONS: tuple[str, ...] = ("bun-steinke", "cks")


def _check_rho(rho: float) -> None:
    if isinstance(rho, bool) or not isinstance(rho, (int, float)) or math.isnan(rho) or rho < 0 or math.isinf(rho):
        raise ConfigError(f"`rho` must be a finite number >= 0 (zCDP, nats). Found {rho!r}.")


def _check_delta(delta: float) -> None:
    if isinstance(delta, bool) or not isinstance(delta, (int, float)) or not (0.0 < delta < 1.0):
        raise ConfigError(f"`delta` must lie strictly between 0 and 1. Found {delta!r}.")


def _check_epsilon(epsilon: float) -> None:
    if (
        isinstance(epsilon, bool)
        or not isinstance(epsilon, (int, float))
        or math.isnan(epsilon)
        or epsilon <= 0
        or math.isinf(epsilon)
    ):
        raise ConfigError(f"`epsilon` must be a finite number > 0. Found {epsilon!r}.")


def _check_conversion(conversion: str) -> None:
    if conversion not in CONVERSIONS:
        raise ConfigError(f"`conversion` must be one of {CONVERSIONS}. Found {conversion!r}.")


def cks_log_delta(rho: float, epsilon: float) -> float:
    """log δ of the tight zCDP → (ε, δ) conversion (Canonne, Kamath & Steinke 2020, Cor. 13).

    Args:
        rho: zCDP parameter, >= 0.
        epsilon: >= 0.

    Returns:
        log δ, at most 0. ``-inf`` when ``rho == 0``.
    """
    _check_rho(rho)
    if isinstance(epsilon, bool) or not isinstance(epsilon, (int, float)) or not (epsilon >= 0) or math.isinf(epsilon):
        raise ConfigError(f"`epsilon` must be a finite number >= 0. Found {epsilon!r}.")
    if rho == 0:
        return -math.inf

    def derivative(alpha: float) -> float:
        # d/dα of log δ(α); strictly increasing on (1, ∞), so its root is the minimiser.
        return (2.0 * alpha - 1.0) * rho - epsilon + math.log1p(-1.0 / alpha)

    lo = 1.0 + 1e-12
    hi = max(2.0, (epsilon / rho + 1.0) / 2.0 + 1.0)
    while derivative(hi) < 0:
        hi *= 2.0
    alpha = brentq(derivative, lo, hi, xtol=1e-14, rtol=1e-15, maxiter=500) if derivative(lo) < 0 else lo
    log_delta = (alpha - 1.0) * (alpha * rho - epsilon) - math.log(alpha - 1.0) + alpha * math.log1p(-1.0 / alpha)
    return min(0.0, log_delta)


def delta_from_rho(rho: float, epsilon: float, *, conversion: Conversion = "cks") -> float:
    """δ such that a ρ-zCDP mechanism is (ε, δ)-DP.

    Raises:
        ConfigError: on ρ < 0, ε < 0, NaN, or an unknown conversion.
    """
    _check_conversion(conversion)
    _check_rho(rho)
    if conversion == "cks":
        return math.exp(cks_log_delta(rho, epsilon))
    if rho == 0:
        return 0.0
    # Bun–Steinke inverted: ε = ρ + 2 sqrt(ρ log(1/δ)) → log(1/δ) = ((ε − ρ) / 2)² / ρ for ε > ρ.
    if epsilon <= rho:
        return 1.0
    return math.exp(-(((epsilon - rho) / 2.0) ** 2) / rho)


def epsilon_from_rho(rho: float, delta: float, *, conversion: Conversion = "bun-steinke") -> float:
    """ε such that a ρ-zCDP mechanism is (ε, δ)-DP.

    Args:
        rho: zCDP parameter (nats), >= 0.
        delta: target δ in (0, 1).
        conversion: "bun-steinke" (the paper's closed form) or "cks" (tight).

    Returns:
        ε >= 0; never below the exact value of the chosen conversion.

    Raises:
        ConfigError: on ρ < 0, δ outside (0, 1), NaN, or an unknown conversion.
    """
    _check_conversion(conversion)
    _check_rho(rho)
    _check_delta(delta)
    if rho == 0:
        return 0.0
    bun_steinke = rho + 2.0 * math.sqrt(rho * math.log(1.0 / delta))
    if conversion == "bun-steinke":
        return bun_steinke
    target = math.log(delta)
    if cks_log_delta(rho, 0.0) <= target:
        return 0.0
    # δ(ε) is decreasing; Bun–Steinke's ε is a valid (looser) bound, so the root lies below it.
    eps = brentq(lambda e: cks_log_delta(rho, e) - target, 0.0, bun_steinke, xtol=1e-12, rtol=1e-14, maxiter=500)
    while cks_log_delta(rho, eps) > target:  # conservative: step up until δ(ε) <= target
        eps = math.nextafter(eps, math.inf) + 1e-12
    return min(eps, bun_steinke)


def rho_from_epsilon(epsilon: float, delta: float, *, conversion: Conversion = "bun-steinke") -> float:
    """The largest ρ such that ρ-zCDP implies (ε, δ)-DP under the chosen conversion.

    Example: ε = 10, δ = 1e-3 → ρ = 2.2012 (Bun–Steinke), ρ ≈ 2.607 (CKS).

    Raises:
        ConfigError: on ε <= 0, δ outside (0, 1), NaN, or an unknown conversion.
    """
    _check_conversion(conversion)
    _check_epsilon(epsilon)
    _check_delta(delta)
    log_inv = math.log(1.0 / delta)
    bun_steinke = (math.sqrt(epsilon + log_inv) - math.sqrt(log_inv)) ** 2
    if conversion == "bun-steinke":
        return bun_steinke
    target = math.log(delta)
    lo, hi = bun_steinke, 2.0 * bun_steinke
    while cks_log_delta(hi, epsilon) <= target:
        lo, hi = hi, 2.0 * hi
    rho = brentq(lambda r: cks_log_delta(r, epsilon) - target, lo, hi, xtol=1e-13, rtol=1e-14, maxiter=500)
    while cks_log_delta(rho, epsilon) > target:  # conservative: step down until δ(ε) <= target
        rho = math.nextafter(rho, 0.0) - 1e-13
    return max(rho, bun_steinke)
