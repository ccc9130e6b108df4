"""The DP mechanisms of DP-SynRAG (METHOD.md §1–§2; private prediction, §2d: :mod:`dpsynrag.privacy.prediction`).

Each mechanism that releases data-dependent output takes an ``accountant`` and composes its event
*before* drawing any noise, so nothing is released unaccounted and a budget overrun releases nothing.
Each enforces its own sensitivity bound (keyword cap, unit-norm rows, clipping) instead of trusting
its caller. Randomness comes from the given :class:`~dpsynrag.rng.RandomSource`.

Noise: integer statistics (the keyword histograms, vote histograms) get **exact discrete Gaussian**
noise (:meth:`~dpsynrag.rng.RandomSource.discrete_gaussian`; CKS 2020) and are released as integers.
The real-valued Gaussian of :func:`noisy_unit_vector_sum` (a sum of unit embeddings is not an integer
statistic) is OpenDP's float Gaussian mechanism: the exact discrete Gaussian on the float64 grid 2^-1074
(:meth:`~dpsynrag.rng.RandomSource.add_gaussian`). What remains floating-point: the exponential-mechanism
draws of :func:`exponential_threshold` and :func:`~dpsynrag.privacy.prediction.sample_private_tokens` (see :mod:`dpsynrag.rng`,
"Known limitation", for what that leaves uncovered).

Neighbouring relation: add/remove one document.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Container, Iterable, Sequence

import numpy as np
from scipy.stats import norm

from dpsynrag.errors import ConfigError
from dpsynrag.privacy.accountant import ZCDPAccountant
from dpsynrag.privacy.events import (
    DiscreteGaussianEvent,
    ExponentialMechanismEvent,
    GaussianEvent,
    SparseDiscreteGaussianHistogramEvent,
)
from dpsynrag.rng import RandomSource


def _check_sigma(sigma: float) -> None:
    if isinstance(sigma, bool) or not isinstance(sigma, (int, float)) or not (sigma > 0) or math.isinf(sigma):
        raise ConfigError(f"`sigma` must be a finite number > 0. Found {sigma!r}.")


def _check_max_keywords(max_keywords: int) -> None:
    if isinstance(max_keywords, bool) or not isinstance(max_keywords, int) or max_keywords < 1:
        raise ConfigError(f"`max_keywords` (K) must be an integer >= 1. Found {max_keywords!r}.")


# ----------------------------------------------------------------------------------------------
# (a) keyword histograms
# ----------------------------------------------------------------------------------------------


def cap_keywords(
    keywords: Iterable[str], *, max_keywords: int, vocabulary: Container[str] | None = None
) -> tuple[str, ...]:
    """The keyword set one document contributes: lower-cased, stripped, in-vocabulary, distinct, at
    most ``max_keywords`` (the first ones in the given order).

    The histogram's L2 sensitivity √K rests on this cap, whatever an extractor returns.

    Args:
        keywords: candidate keywords in the extractor's order.
        max_keywords: K >= 1.
        vocabulary: keep only words in it; None keeps every non-empty word (open vocabulary).

    Returns:
        A tuple of at most K distinct strings.
    """
    _check_max_keywords(max_keywords)
    out: list[str] = []
    seen: set[str] = set()
    for word in keywords:
        w = str(word).strip().lower()
        if not w or w in seen or (vocabulary is not None and w not in vocabulary):
            continue
        seen.add(w)
        out.append(w)
        if len(out) == max_keywords:
            break
    return tuple(out)


def gaussian_histogram(
    keyword_sets: Sequence[Iterable[str]],
    vocabulary: Sequence[str],
    *,
    max_keywords: int,
    sigma: float,
    accountant: ZCDPAccountant,
    random: RandomSource,
    name: str = "keyword histogram",
) -> np.ndarray:
    """Noisy keyword counts over a public vocabulary: h + Z on **every** entry of V, Z_j ~ N_Z(0, σ²)
    (the exact discrete Gaussian), released as integers.

    DP guarantee: each document adds a 0/1 vector with at most K ones (enforced here with
    :func:`cap_keywords`), so the L2 sensitivity is √K and the release is K/(2σ²)-zCDP (discrete
    Gaussian mechanism, CKS 2020 Thm. 14; METHOD.md §1a). Zero counts get noise too, so the support is
    not revealed.

    Args:
        keyword_sets: one iterable of keywords per document.
        vocabulary: the public vocabulary V (distinct strings, lower case).
        max_keywords: K.
        sigma: noise standard deviation σ_h (counts).
        accountant: charged DiscreteGaussianEvent(√K, σ) before noise is drawn.
        random: noise source.

    Returns:
        int64 array of shape [|V|]: noisy counts in the order of ``vocabulary``.

    Raises:
        ConfigError: on σ <= 0, K < 1, an empty or duplicated vocabulary.
        PrivacyBudgetExceededError: if the accountant cannot pay (nothing released).
    """
    _check_sigma(sigma)
    _check_max_keywords(max_keywords)
    index = {w: i for i, w in enumerate(vocabulary)}
    if not index or len(index) != len(vocabulary):
        raise ConfigError(f"`vocabulary` must be non-empty with distinct entries. Found {len(vocabulary)} entries.")
    counts = np.zeros(len(vocabulary), dtype=np.int64)
    for keywords in keyword_sets:
        for w in cap_keywords(keywords, max_keywords=max_keywords, vocabulary=index):
            counts[index[w]] += 1
    accountant.compose(
        DiscreteGaussianEvent(
            name=name, sensitivity=math.sqrt(max_keywords), sigma=float(sigma), dimension=len(vocabulary)
        )
    )
    return counts + random.discrete_gaussian(float(sigma), counts.shape)


def sparse_histogram_threshold(*, max_keywords: int, sigma: float, delta: float) -> float:
    """The release threshold τ of the discrete Gaussian sparse histogram for a δ term ``delta``.

    The smallest integer τ >= 1 with K · P[Z >= τ] <= δ, Z ~ N_Z(0, σ²) (P[Z >= τ] bounded above by
    :func:`~dpsynrag.privacy.discrete.discrete_gaussian_tail`). Keys are released when their noisy
    count exceeds τ, so a count-1 key is released with probability P[1 + Z > τ] = P[Z >= τ]; the δ
    term of :class:`~dpsynrag.privacy.events.SparseDiscreteGaussianHistogramEvent` at this τ is <= δ.

    Returns:
        τ as a float (an integer value).

    Raises:
        ConfigError: on δ outside (0, 1), σ <= 0 or K < 1.
    """
    _check_sigma(sigma)
    _check_max_keywords(max_keywords)
    if isinstance(delta, bool) or not isinstance(delta, (int, float)) or not (0.0 < delta < 1.0):
        raise ConfigError(f"`delta` of the sparse histogram must lie in (0, 1). Found {delta!r}.")

    def fits(m: int) -> bool:
        return SparseDiscreteGaussianHistogramEvent("threshold", max_keywords, float(sigma), float(m)).delta <= delta

    # Start near the continuous Gaussian's answer (the tails differ by less than one count), then step.
    m = max(1, math.floor(sigma * float(norm.isf(min(0.5, delta / max_keywords)))) - 1)
    while not fits(m):
        m += 1
    while m > 1 and fits(m - 1):
        m -= 1
    return float(m)


def gaussian_sparse_histogram(
    keyword_sets: Sequence[Iterable[str]],
    *,
    max_keywords: int,
    sigma: float,
    threshold: float,
    accountant: ZCDPAccountant,
    random: RandomSource,
    name: str = "keyword histogram (open vocabulary)",
) -> dict[str, float]:
    """Thresholded discrete Gaussian sparse histogram over an unknown domain (METHOD.md §1a, open
    vocabulary).

    Noise Z ~ N_Z(0, σ²) (exact discrete Gaussian) is added to the count of every observed key; keys
    whose noisy count exceeds ``threshold`` are released with their noisy count (an integer).

    DP guarantee: approximate zCDP with rho = K/(2σ²) and delta = K · P[1 + Z > threshold] (a removed
    document's keys that nobody else has are released with at most that probability; computed by
    :class:`~dpsynrag.privacy.events.SparseDiscreteGaussianHistogramEvent`).

    Returns:
        {keyword: noisy count (int)} for the released keys.

    Raises:
        ConfigError: on bad σ, K or threshold.
        PrivacyBudgetExceededError: if the accountant cannot pay (nothing released).
    """
    _check_sigma(sigma)
    _check_max_keywords(max_keywords)
    counts: Counter[str] = Counter()
    for keywords in keyword_sets:
        counts.update(cap_keywords(keywords, max_keywords=max_keywords, vocabulary=None))
    accountant.compose(
        SparseDiscreteGaussianHistogramEvent(
            name=name, max_contributions=max_keywords, sigma=float(sigma), threshold=float(threshold)
        )
    )
    keys = sorted(counts)  # fixed order so the noise does not depend on insertion order
    noisy = np.array([counts[k] for k in keys], dtype=np.int64) + random.discrete_gaussian(float(sigma), len(keys))
    return {k: int(v) for k, v in zip(keys, noisy) if v > threshold}


def discrete_gaussian_vote_histogram(
    votes: np.ndarray,
    *,
    max_votes: int,
    sigma: float,
    accountant: ZCDPAccountant,
    random: RandomSource,
    name: str = "vote histogram",
) -> np.ndarray:
    """Σ_d votes(d) + Z, Z_j ~ N_Z(0, σ²): a histogram of 0/1 votes with exact discrete Gaussian noise
    (Aug-PE's nearest-neighbour histogram), released as integers.

    DP guarantee: every row is checked to be a 0/1 vector with at most ``max_votes`` ones, so one
    document moves the sum by at most √max_votes in L2: rho = max_votes/(2σ²) (discrete Gaussian
    mechanism, CKS 2020 Thm. 14), charged before the noise is drawn.

    Args:
        votes: integer (or 0.0/1.0) array [n, N], one row per document; n may be 0.
        max_votes: the most ones in a row (>= 1).
        sigma: σ of the noise, in votes.

    Returns:
        int64 array [N].

    Raises:
        ConfigError: on a non-2-d input, an entry other than 0 or 1, a row with more than
            ``max_votes`` ones, or bad σ.
        PrivacyBudgetExceededError: if the accountant cannot pay (nothing released).
    """
    _check_sigma(sigma)
    if isinstance(max_votes, bool) or not isinstance(max_votes, int) or max_votes < 1:
        raise ConfigError(f"`max_votes` must be an integer >= 1. Found {max_votes!r}.")
    v = np.asarray(votes)
    if v.ndim != 2 or v.shape[1] < 1:
        raise ConfigError(f"`votes` must have shape [n, N] with N >= 1. Found {v.shape}.")
    if not np.isin(v, (0, 1)).all():
        raise ConfigError("`votes` must hold only 0 and 1.")
    v = v.astype(np.int64)
    if v.shape[0] and int(v.sum(axis=1).max()) > max_votes:
        raise ConfigError(f"a row of `votes` has more than max_votes={max_votes} ones.")
    accountant.compose(
        DiscreteGaussianEvent(name=name, sensitivity=math.sqrt(max_votes), sigma=float(sigma), dimension=v.shape[1])
    )
    return v.sum(axis=0) + random.discrete_gaussian(float(sigma), v.shape[1])


# ----------------------------------------------------------------------------------------------
# (c) outlier removal
# ----------------------------------------------------------------------------------------------


def noisy_unit_vector_sum(
    embeddings: np.ndarray,
    *,
    sigma: float,
    accountant: ZCDPAccountant,
    random: RandomSource,
    name: str = "cluster embedding sum",
) -> np.ndarray:
    """Σ_d E(d) + N(0, σ² I) over unit-norm rows (METHOD.md §1c; no division, so an empty set works).

    DP guarantee: rows are re-normalised here to L2 norm ≤ 1, so one document moves the sum by at
    most 1 in L2: a Gaussian mechanism with sensitivity 1, rho = 1/(2σ²), charged as
    GaussianEvent(1, σ) before the noise is drawn. The noise is OpenDP's float Gaussian mechanism
    (:meth:`~dpsynrag.rng.RandomSource.add_gaussian`: the exact discrete Gaussian on the float64 grid
    2^-1074, where every float64 sum lies, so the grid adds nothing to the sensitivity; OpenDP's own
    privacy map gives the same 1/(2σ²)).

    Args:
        embeddings: float array [n, dim]; n may be 0.

    Returns:
        float64 array [dim].

    Raises:
        ConfigError: on a non-2-d input, non-finite values or σ <= 0.
    """
    _check_sigma(sigma)
    e = np.asarray(embeddings, dtype=np.float64)
    if e.ndim != 2 or e.shape[1] < 1:
        raise ConfigError(f"`embeddings` must have shape [n, dim] with dim >= 1. Found {e.shape}.")
    if not np.isfinite(e).all():
        raise ConfigError("`embeddings` must be finite.")
    norms = np.linalg.norm(e, axis=1, keepdims=True)
    unit = np.divide(e, norms, out=np.zeros_like(e), where=norms > 0)
    accountant.compose(GaussianEvent(name=name, sensitivity=1.0, sigma=float(sigma), dimension=e.shape[1]))
    return random.add_gaussian(unit.sum(axis=0), float(sigma))


def exponential_threshold(
    scores: np.ndarray,
    *,
    target: int,
    epsilon: float,
    accountant: ZCDPAccountant,
    random: RandomSource,
    name: str = "similarity threshold",
    excess_weight: float = 1.0,
) -> float:
    """A threshold θ ∈ [0, 1] from the continuous exponential mechanism (METHOD.md §1c).

    Utility u(θ) = −|#{i : s_i ≥ θ} − k| with Lebesgue base measure on [0, 1]. The clipped, sorted
    scores split [0, 1] into intervals; interval j (length ℓ_j, constant count c_j) has weight
    ℓ_j · exp(ε · u_j / 2). An interval is drawn, then θ uniformly inside it. The utility peaks exactly
    at a kept count of k (DP-RAG's reference code peaks at k − 2). Keep documents with s_i > θ.

    ``excess_weight`` α ∈ [0, 1] weighs the documents kept beyond k (our extension; α = 1 is the
    paper's utility): u = −(k − c) for a count c ≤ k, −α·(c − k) above. Why: when many members share
    one score (near-duplicate documents, e.g. records that differ only in an identifier that was
    redacted), no θ keeps about k of them — θ keeps all n or none — and with α = 1 "none" wins as soon
    as n > 2k, which empties the largest clusters. With α < 1 keeping all wins while n < (1 + 1/α)·k.

    DP guarantee: adding or removing one score changes every count(θ) by at most 1, hence u(θ) by at
    most max(1, α) = 1 (sensitivity 1); the base measure is data-independent; the mechanism is ε-DP and
    ε-bounded-range (the log-ratio ε/2·(u' − u) − log(Z'/Z) lies in an interval of width ε), rho = ε²/8.

    Args:
        scores: float array [n] of similarities (any real values; clipped to [0, 1]); n may be 0.
        target: k >= 0, the targeted number of kept documents (a target, not a cap).
        epsilon: ε_θ > 0.
        excess_weight: α ∈ [0, 1] (default 1: the paper's −|c − k|).

    Returns:
        θ in [0, 1].

    Raises:
        ConfigError: on bad ε, k, or non-finite scores.
    """
    if isinstance(epsilon, bool) or not isinstance(epsilon, (int, float)) or not (epsilon > 0) or math.isinf(epsilon):
        raise ConfigError(f"`epsilon` must be a finite number > 0. Found {epsilon!r}.")
    if isinstance(target, bool) or not isinstance(target, (int, np.integer)) or target < 0:
        raise ConfigError(f"`target` (k) must be an integer >= 0. Found {target!r}.")
    if isinstance(excess_weight, bool) or not isinstance(excess_weight, (int, float)) or not (0.0 <= excess_weight <= 1.0):
        raise ConfigError(f"`excess_weight` must be a number in [0, 1]. Found {excess_weight!r}.")
    s = np.asarray(scores, dtype=np.float64).reshape(-1)
    if not np.isfinite(s).all():
        raise ConfigError("`scores` must be finite.")
    s = np.sort(np.clip(s, 0.0, 1.0))
    breaks = np.concatenate([[0.0], s, [1.0]])
    lengths = np.diff(breaks)
    # On the open interval (b_j, b_{j+1}) the kept count #{s_i > θ} equals n − j (scores sorted).
    counts = len(s) - np.arange(len(lengths))
    log_w = np.full(len(lengths), -np.inf)
    positive = lengths > 0
    gap = counts[positive] - int(target)
    utility = np.where(gap > 0, -float(excess_weight) * gap, gap)
    log_w[positive] = np.log(lengths[positive]) + 0.5 * epsilon * utility
    accountant.compose(ExponentialMechanismEvent(name=name, epsilon=float(epsilon)))
    j = int(random.categorical(log_w))
    return float(breaks[j] + random.uniform() * lengths[j])
