"""Sources of randomness for DP mechanisms.

Every function in dpsynrag that adds noise or samples takes a :class:`RandomSource`; nothing calls
``np.random.*`` or a seedless ``torch.multinomial``.

* :class:`SecureRandom` (the default) draws its bits from the operating system's cryptographically
  secure generator (``os.urandom``); discrete Gaussian variates, and the real-valued Gaussian noise of
  :meth:`RandomSource.add_gaussian`, from OpenDP's exact samplers (their own OS-seeded secure bits). It
  cannot be seeded.
* :class:`SeededRandom` (tests and experiments only) is NumPy's PCG64 from an explicit seed. Output
  made with it is reproducible and therefore **not for release**; runs record ``secure_randomness:
  false`` in their manifest.

Integer-valued releases (keyword histograms, Aug-PE vote histograms) use the **discrete Gaussian**
N_Z(0, σ²), P[Z = z] ∝ exp(−z²/(2σ²)) on the integers, sampled exactly: :meth:`RandomSource.discrete_gaussian`
runs the Canonne–Kamath–Steinke algorithm (CKS 2020, "The Discrete Gaussian for Differential Privacy",
Algorithms 1–3) in integer arithmetic on σ² = (the float σ)² taken as an exact rational, driven by the
source's uniform integers (:meth:`RandomSource.randbelow`); :class:`SecureRandom` uses OpenDP's
implementation of the same exact sampler instead (``opendp.measurements.make_gaussian`` on integer
vectors). No floating-point rounding enters these draws. The sparse-vector noise of private prediction
uses the exact discrete Laplace of the same paper (:meth:`RandomSource.discrete_laplace`, Algorithm 2).

Real-valued Gaussian noise (the noisy cluster embedding sums of outlier removal) is OpenDP's float
Gaussian mechanism (:meth:`RandomSource.add_gaussian`): each float64 input is exactly a multiple of the
grid step 2^-1074, the noise is the exact discrete Gaussian on that grid (CKS 2020, Algorithm 3, with
σ/2^-1074 as an exact rational), and the sum is rounded to the nearest float64 (post-processing). Because
every float64 lies on the grid, discretisation adds nothing to the sensitivity: OpenDP's privacy map is
exactly Δ²/(2σ²) (its proof document for ``make_gaussian``; Canonne, Kamath & Steinke 2020, Thm. 14).
Seeded sources draw the same law with the integer sampler below.

Known limitation (documented, as in every floating-point DP library): the exponential-mechanism draws
are floating-point approximations of their laws, which the proofs (and the reported δ) do not cover
(Mironov 2012, "On significance of the least significant bits for differential privacy"; Jin et al.
2022, "Are we there yet? Timing and floating-point attacks on differential privacy systems"):
:meth:`RandomSource.categorical` (inverse CDF with one 53-bit uniform per draw) and
:meth:`RandomSource.uniform` — the similarity thresholds, private prediction tokens and DP-RAG retrieval
thresholds. An index's probability differs from the exact one by the rounding of the cumulative weights
and of the uniform, of order (number of outcomes) × 2⁻⁵³ per draw in absolute terms (about 6e-12 for a
50,000-token vocabulary).
"""

from __future__ import annotations

import hashlib
import math
import os
import secrets
from abc import ABC, abstractmethod
from fractions import Fraction

import numpy as np

_TWO_POW_MINUS_53 = 2.0**-53
_GRID_BITS = 1074
"""Real-valued Gaussian noise lives on the grid 2^-1074 (the smallest float64 step, OpenDP's k = −1074)."""
_GRID_DENOMINATOR = 1 << _GRID_BITS


class RandomSource(ABC):
    """Uniform, Gaussian and categorical draws for mechanisms.

    Attributes:
        is_secure: True when the bits come from a cryptographically secure generator.
    """

    is_secure: bool = False

    @abstractmethod
    def uniform(self, size: int | tuple[int, ...] | None = None) -> np.ndarray:
        """Uniform draws on [0, 1), float64, of the given shape (a 0-d array when ``size`` is None)."""

    @abstractmethod
    def child(self, name: str) -> "RandomSource":
        """An independent stream named ``name`` (e.g. "privacy-noise", "sampling").

        Seeded sources derive it deterministically from the seed and the name; the secure source
        returns a new secure source.
        """

    @abstractmethod
    def randbelow(self, n: int) -> int:
        """A uniform integer in {0, …, n − 1}, exactly (rejection sampling on whole bits; any size of n).

        Raises:
            ValueError: if ``n`` is not an integer >= 1.
        """

    def add_gaussian(self, values: np.ndarray, sigma: float) -> np.ndarray:
        """``values`` + N(0, σ² I) as OpenDP's float Gaussian mechanism releases it (``make_gaussian`` on
        float64 vectors with grid exponent k = −1074; its proof document, "make_gaussian", OpenDP 0.16).

        Law: each value x_i is exactly n_i · 2^-1074 (every float64 is); the output is the float64 nearest
        to (n_i + Z_i) · 2^-1074 with Z_i ~ N_Z(0, (σ · 2^1074)²) i.i.d., the exact discrete Gaussian (CKS
        2020, Algorithms 1–3, on the exact rational σ² · 2^2148). No rounding enters before the noise, so
        the mechanism's zCDP cost is exactly Δ²/(2σ²) for an L2 sensitivity Δ (the caller charges it);
        the final rounding to float64 is post-processing. This base version draws with :meth:`randbelow`
        (reproducible for a seeded source); :class:`SecureRandom` calls OpenDP itself.

        Args:
            values: finite float array of any shape (float64 after conversion).
            sigma: σ > 0, finite: the standard deviation of the noise, in the units of ``values``.

        Returns:
            float64 array of the shape of ``values``.

        Raises:
            ValueError: on a bad ``sigma`` or a non-finite value.
        """
        x = _finite_values(values)
        p, q = _sigma_squared(sigma)
        p <<= 2 * _GRID_BITS  # σ² / (2^-1074)²: the noise in grid steps
        out = np.empty(x.size, dtype=np.float64)
        for i, v in enumerate(x.ravel().tolist()):
            num, den = float(v).as_integer_ratio()  # den is a power of 2, at most 2^1074
            steps = num * (_GRID_DENOMINATOR // den) + _cks_discrete_gaussian(p, q, self.randbelow)
            out[i] = steps / _GRID_DENOMINATOR  # int / int: correctly rounded to the nearest float64
        return out.reshape(x.shape)

    def discrete_gaussian(self, sigma: float, size: int | tuple[int, ...] | None = None) -> np.ndarray:
        """Exact discrete Gaussian draws N_Z(0, σ²): P[Z = z] = exp(−z²/(2σ²)) / Σ_y exp(−y²/(2σ²)), z ∈ ℤ.

        σ² is the exact square of the float ``sigma`` (a rational); the Canonne–Kamath–Steinke sampler
        (CKS 2020, Algorithms 1–3) runs on integers only, driven by :meth:`randbelow`, so seeded draws
        are reproducible and no floating-point rounding enters them. σ is the ``sigma`` of the
        mechanism's zCDP cost Δ²/(2σ²) (CKS 2020, Thm. 14); the variance is slightly below σ².

        Args:
            sigma: σ > 0, finite.
            size: output shape (a 0-d array when None).

        Returns:
            int64 array of the given shape.

        Raises:
            ValueError: on a bad ``sigma``.
        """
        p, q = _sigma_squared(sigma)
        shape = _shape(size)
        n = int(np.prod(shape, dtype=np.int64)) if shape else 1
        out = np.fromiter((_cks_discrete_gaussian(p, q, self.randbelow) for _ in range(n)), dtype=np.int64, count=n)
        return out.reshape(shape)

    def discrete_laplace(self, scale: float | Fraction) -> int:
        """One exact draw of the discrete Laplace Lap_Z(b): P[Y = y] = (1 − r)/(1 + r) · r^|y|, r = exp(−1/b).

        CKS 2020, Algorithm 2, for the rational scale b = t/s (a Fraction, or a number taken exactly as a
        rational), in integer arithmetic driven by :meth:`randbelow`: no floating-point rounding enters the
        draw (the sparse-vector noise of :class:`~dpsynrag.models.svt_selector.SparseVectorSelector`).

        Raises:
            ValueError: on a bad ``scale`` (not a finite number > 0).
        """
        if isinstance(scale, bool) or not isinstance(scale, (int, float, Fraction)) or not (0 < scale < math.inf):
            raise ValueError(f"`scale` of the discrete Laplace must be a finite number > 0. Found {scale!r}.")
        b = Fraction(scale)
        return _discrete_laplace(b.numerator, self.randbelow, b.denominator)

    def categorical(self, log_weights: np.ndarray) -> np.ndarray:
        """Sample indices proportionally to ``exp(log_weights)`` by inverse-CDF with one uniform per row.

        Args:
            log_weights: float array of shape ``[n]`` or ``[batch, n]``; ``-inf`` entries have
                probability 0 and are never returned. Each row needs at least one finite entry.

        Returns:
            An int64 index (0-d array) for a 1-d input, else an int64 array of shape ``[batch]``.

        Raises:
            ValueError: if a row has no finite entry or holds NaN or +inf.
        """
        lw = np.asarray(log_weights, dtype=np.float64)
        squeeze = lw.ndim == 1
        if squeeze:
            lw = lw[None, :]
        if lw.ndim != 2 or lw.shape[1] == 0:
            raise ValueError(f"`log_weights` must have shape [n] or [batch, n] with n >= 1. Found {lw.shape}.")
        if np.isnan(lw).any() or np.isposinf(lw).any():
            raise ValueError("`log_weights` must not contain NaN or +inf.")
        row_max = lw.max(axis=1, keepdims=True)
        if np.isneginf(row_max).any():
            raise ValueError("every row of `log_weights` needs at least one finite entry.")
        weights = np.exp(lw - row_max)
        cdf = np.cumsum(weights, axis=1)
        u = self.uniform(lw.shape[0]) * cdf[:, -1]
        # Number of CDF entries <= u, i.e. searchsorted(side="right") row by row.
        idx = np.minimum((cdf <= u[:, None]).sum(axis=1), lw.shape[1] - 1).astype(np.int64)
        return idx[0] if squeeze else idx


# ----------------------------------------------------------------------------------------------
# The exact discrete Gaussian sampler of Canonne, Kamath & Steinke (2020), integers only.
# ``randbelow(n)`` is a uniform integer in {0, ..., n-1}; a probability num/den is drawn as
# randbelow(den) < num, so every Bernoulli below is exact.
# ----------------------------------------------------------------------------------------------


def _check_n(n: int) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"`n` must be an integer >= 1. Found {n!r}.")
    return int(n)


def _sigma_squared(sigma: float) -> tuple[int, int]:
    """σ² = p/q exactly (the square of the float ``sigma`` as a rational), p, q >= 1."""
    if isinstance(sigma, bool) or not isinstance(sigma, (int, float, np.floating)) or not (0 < sigma < math.inf):
        raise ValueError(f"`sigma` must be a finite number > 0. Found {sigma!r}.")
    num, den = float(sigma).as_integer_ratio()
    return num * num, den * den


def _bernoulli_exp_minus(num: int, den: int, randbelow) -> bool:
    """True with probability exp(−γ), γ = num/den >= 0 (CKS 2020, Algorithm 1)."""
    while num > den:  # γ > 1: exp(−γ) = exp(−1)^⌊γ⌋ · exp(−(γ − ⌊γ⌋)), each factor an independent coin
        if not _bernoulli_exp_minus(1, 1, randbelow):
            return False
        num -= den
    # γ in [0, 1]: draw A_k ~ Bernoulli(γ/k) for k = 1, 2, ... until one is 0; P[that k is odd] = exp(−γ).
    k = 1
    while randbelow(den * k) < num:
        k += 1
    return k % 2 == 1


def _discrete_laplace(t: int, randbelow, s: int = 1) -> int:
    """Discrete Laplace with scale t/s (integers >= 1): P[Y = y] ∝ exp(−|y|·s/t) (CKS 2020, Algorithm 2):
    X = U + tV ~ Geometric(1 − e^{−1/t}) on {0, 1, ...}, and ⌊X/s⌋ ~ Geometric(1 − e^{−s/t})."""
    while True:
        u = randbelow(t)
        if not _bernoulli_exp_minus(u, t, randbelow):
            continue
        v = 0
        while _bernoulli_exp_minus(1, 1, randbelow):
            v += 1
        x = (u + t * v) // s
        negative = randbelow(2) == 1
        if negative and x == 0:
            continue
        return -x if negative else x


def _cks_discrete_gaussian(p: int, q: int, randbelow) -> int:
    """One draw of N_Z(0, σ²) with σ² = p/q (CKS 2020, Algorithm 3).

    t = ⌊σ⌋ + 1; draw Y from the discrete Laplace with scale t and accept it with probability
    exp(−(|Y| − σ²/t)² / (2σ²)) = exp(−(|Y|·q·t − p)² / (2·p·q·t²)).
    """
    t = math.isqrt(p // q) + 1  # ⌊sqrt(p/q)⌋ + 1 (⌊sqrt(⌊x⌋)⌋ = ⌊sqrt(x)⌋)
    while True:
        y = _discrete_laplace(t, randbelow)
        num = (abs(y) * q * t - p) ** 2
        den = 2 * p * q * t * t
        g = math.gcd(num, den)
        if _bernoulli_exp_minus(num // g, den // g, randbelow):
            return y


def _finite_values(values) -> np.ndarray:
    x = np.asarray(values, dtype=np.float64)
    if not np.isfinite(x).all():
        raise ValueError("`values` must be finite.")
    return x


def _shape(size: int | tuple[int, ...] | None) -> tuple[int, ...]:
    if size is None:
        return ()
    if isinstance(size, (int, np.integer)):
        return (int(size),)
    return tuple(int(s) for s in size)


class SecureRandom(RandomSource):
    """Randomness from ``os.urandom`` (cryptographically secure, not reproducible)."""

    is_secure = True

    def uniform(self, size=None):
        shape = _shape(size)
        n = int(np.prod(shape, dtype=np.int64)) if shape else 1
        words = np.frombuffer(os.urandom(8 * n), dtype=np.uint64)
        out = (words >> np.uint64(11)).astype(np.float64) * _TWO_POW_MINUS_53
        return out.reshape(shape)

    def add_gaussian(self, values, sigma):
        """As :meth:`RandomSource.add_gaussian`, by OpenDP's ``make_gaussian`` (float64 vector, L2
        distance, k = −1074), which samples the discrete Gaussian exactly from its own secure bits."""
        x = _finite_values(values)
        _sigma_squared(sigma)
        if x.size == 0:
            return x.copy()
        import opendp.prelude as dp

        dp.enable_features("contrib")  # make_gaussian is in OpenDP's "contrib" set
        measurement = dp.m.make_gaussian(
            dp.vector_domain(dp.atom_domain(T="f64", nan=False), size=x.size), dp.l2_distance(T="f64"),
            scale=float(sigma), k=-_GRID_BITS,
        )
        return np.asarray(measurement(x.ravel().tolist()), dtype=np.float64).reshape(x.shape)

    def randbelow(self, n):
        return secrets.randbelow(_check_n(n))

    def discrete_gaussian(self, sigma, size=None):
        """As :meth:`RandomSource.discrete_gaussian`, from OpenDP's exact sampler (its own secure bits):
        ``make_gaussian`` on integer vectors draws N_Z(0, scale²) with the float ``scale`` taken exactly."""
        _sigma_squared(sigma)
        shape = _shape(size)
        n = int(np.prod(shape, dtype=np.int64)) if shape else 1
        if n == 0:
            return np.zeros(shape, dtype=np.int64)
        import opendp.prelude as dp

        dp.enable_features("contrib")  # make_gaussian is in OpenDP's "contrib" set
        measurement = dp.m.make_gaussian(
            dp.vector_domain(dp.atom_domain(T="i64")), dp.l2_distance(T="i64"), scale=float(sigma)
        )
        return np.asarray(measurement([0] * n), dtype=np.int64).reshape(shape)

    def child(self, name):
        return SecureRandom()

    def __repr__(self) -> str:
        return "SecureRandom()"


class SeededRandom(RandomSource):
    """NumPy PCG64 from an explicit seed. Reproducible; for tests and experiments, not for release."""

    is_secure = False

    def __init__(self, seed: int, *, _path: tuple[int, ...] = ()):
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
            raise ValueError(f"`seed` must be a non-negative integer. Found {seed!r}.")
        self.seed = int(seed)
        self._path = _path
        self._gen = np.random.Generator(np.random.PCG64(np.random.SeedSequence(self.seed, spawn_key=_path)))

    def uniform(self, size=None):
        return np.asarray(self._gen.random(_shape(size) or None), dtype=np.float64)

    def randbelow(self, n):
        n = _check_n(n)
        if n == 1:
            return 0
        bits = (n - 1).bit_length()
        words = (bits + 63) // 64
        while True:
            r = 0
            for w in self._gen.bit_generator.random_raw(words).tolist():
                r = (r << 64) | w
            r >>= 64 * words - bits
            if r < n:
                return r

    def child(self, name):
        key = int.from_bytes(hashlib.sha256(name.encode("utf-8")).digest()[:4], "little")
        return SeededRandom(self.seed, _path=self._path + (key,))

    def get_state(self) -> dict:
        """The generator's position (NumPy's PCG64 state: a JSON-ready dict of integers), so that a
        resumed build (:mod:`dpsynrag.pipeline.checkpoint`) continues with the same draws."""
        return self._gen.bit_generator.state

    def set_state(self, state: dict) -> None:
        """Move the generator to a position from :meth:`get_state`."""
        self._gen.bit_generator.state = state

    def __repr__(self) -> str:
        return f"SeededRandom(seed={self.seed}, path={self._path})"


def make_random(seed: int | None = None) -> RandomSource:
    """The randomness for a run: secure when ``seed`` is None, else reproducible from ``seed``."""
    return SecureRandom() if seed is None else SeededRandom(seed)
