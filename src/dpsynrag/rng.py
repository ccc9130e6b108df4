"""Sources of randomness for DP mechanisms.

Every function in dpsynrag that adds noise or samples takes a :class:`RandomSource`; nothing calls
``np.random.*`` or a seedless ``torch.multinomial``.

* :class:`SecureRandom` (the default) draws its bits from the operating system's cryptographically
  secure generator (``os.urandom``); Gaussian variates come from the Box–Muller transform of 53-bit
  uniforms. It cannot be seeded.
* :class:`SeededRandom` (tests and experiments only) is NumPy's PCG64 from an explicit seed. Output
  made with it is reproducible and therefore **not for release**; runs record ``secure_randomness:
  false`` in their manifest.

Known limitation (documented, as in every floating-point DP library without discrete samplers):
floating-point Gaussian sampling is not exactly the real-valued Gaussian (Mironov 2012, "On
significance of the least significant bits for differential privacy").
"""

from __future__ import annotations

import hashlib
import math
import os
from abc import ABC, abstractmethod

import numpy as np

_TWO_POW_MINUS_53 = 2.0**-53


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
    def standard_normal(self, size: int | tuple[int, ...] | None = None) -> np.ndarray:
        """N(0, 1) draws, float64, of the given shape."""

    @abstractmethod
    def child(self, name: str) -> "RandomSource":
        """An independent stream named ``name`` (e.g. "privacy-noise", "sampling").

        Seeded sources derive it deterministically from the seed and the name; the secure source
        returns a new secure source.
        """

    def normal(self, scale: float, size: int | tuple[int, ...] | None = None) -> np.ndarray:
        """N(0, scale²) draws, float64. ``scale`` is the standard deviation."""
        return scale * self.standard_normal(size)

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

    def standard_normal(self, size=None):
        shape = _shape(size)
        n = int(np.prod(shape, dtype=np.int64)) if shape else 1
        pairs = (n + 1) // 2
        words = np.frombuffer(os.urandom(16 * pairs), dtype=np.uint64).reshape(pairs, 2)
        # u1 in (0, 1] so that log(u1) is finite; u2 in [0, 1).
        u1 = ((words[:, 0] >> np.uint64(11)).astype(np.float64) + 1.0) * _TWO_POW_MINUS_53
        u2 = (words[:, 1] >> np.uint64(11)).astype(np.float64) * _TWO_POW_MINUS_53
        radius = np.sqrt(-2.0 * np.log(u1))
        angle = 2.0 * math.pi * u2
        out = np.concatenate([radius * np.cos(angle), radius * np.sin(angle)])[:n]
        return out.reshape(shape)

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

    def standard_normal(self, size=None):
        return np.asarray(self._gen.standard_normal(_shape(size) or None), dtype=np.float64)

    def child(self, name):
        key = int.from_bytes(hashlib.sha256(name.encode("utf-8")).digest()[:4], "little")
        return SeededRandom(self.seed, _path=self._path + (key,))

    def __repr__(self) -> str:
        return f"SeededRandom(seed={self.seed}, path={self._path})"


def make_random(seed: int | None = None) -> RandomSource:
    """The randomness for a run: secure when ``seed`` is None, else reproducible from ``seed``."""
    return SecureRandom() if seed is None else SeededRandom(seed)
