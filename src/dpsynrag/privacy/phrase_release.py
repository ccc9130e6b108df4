"""The DP phrase release of one cluster (issue 41): its members' shared phrases, released by a thresholded
discrete Gaussian sparse histogram, and its calibration.

Each member d of a cluster contributes a set P(d) of at most m distinct phrases (word n-grams of its own
text, chosen by a public per-document rule: :mod:`dpsynrag.pipeline.phrases`). The count of a phrase p is
h(p) = #{d : p ∈ P(d)}; noise Z ~ N_Z(0, σ_p²) (exact discrete Gaussian) is added to the count of every
observed phrase and the phrases whose noisy count exceeds τ_p are released with it. This is the "Gaussian
policy" of Gopi et al., "Differentially Private Set Union" (ICML 2020), with uniform weight 1 per phrase,
and the n-gram release of Kim, Gopi, Kulkarni & Yekhanin, "Differentially Private n-gram Extraction"
(NeurIPS 2021), at one length n.

Sensitivity (add/remove one member; per person with ``--privacy-unit-field``, where a person is one member
row of a cluster): at most m counts move by 1, so the L2 sensitivity is √m; a phrase only that member holds
has count 1 and passes with probability P[1 + Z > τ_p]. Cost per cluster: ρ_p = m/(2σ_p²) and
δ_p = m · P[Z >= ⌊τ_p⌋] (:class:`~dpsynrag.privacy.events.SparseDiscreteGaussianHistogramEvent`, METHOD.md
§1a). Over the clusters (each member in at most L, membership a function of the member and public W):
L·ρ_p and L·δ_p (overlapping parallel composition, DP-SynRAG Lemma 6).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from dpsynrag.checks import check_int
from dpsynrag.errors import ConfigError
from dpsynrag.privacy.accountant import ZCDPAccountant
from dpsynrag.privacy.mechanisms import gaussian_sparse_histogram, sparse_histogram_threshold
from dpsynrag.rng import RandomSource


def check_phrase_budget(phrase_max: int | None, phrase_delta: float | None, *, delta: float, delta_hist: float,
                        sparse_vector: bool) -> float:
    """The δ share of the phrase releases (0.0 without them), checked.

    Args:
        phrase_max: m, or None (private prediction).
        phrase_delta: the δ share of all phrase releases; required with ``phrase_max``, refused without.
        delta: the build's target δ. delta_hist: the open-vocabulary histogram's δ share (0 without it).
        sparse_vector: whether sparse-vector decoding is asked (it draws tokens: not with phrases).

    Raises:
        ConfigError: m < 1, a missing or stray ``phrase_delta``, a share not in (0, δ − δ_hist), or both
            phrases and sparse-vector decoding.
    """
    if phrase_max is None:
        if phrase_delta is not None:
            raise ConfigError("`phrase_delta` is the δ share of a phrase release: set `phrase_max` too.")
        return 0.0
    check_int("phrase_max", phrase_max)
    if sparse_vector:
        raise ConfigError("`svt_max_paid` (sparse-vector decoding) draws tokens; a phrase release draws none: "
                          "use one of them.")
    if isinstance(phrase_delta, bool) or not isinstance(phrase_delta, (int, float)) or not (phrase_delta > 0):
        raise ConfigError(f"a phrase release (`phrase_max`) needs a δ share `phrase_delta` > 0. Found {phrase_delta!r}.")
    if phrase_delta + delta_hist >= delta:
        raise ConfigError(f"`phrase_delta` ({phrase_delta!r}) plus the open-vocabulary δ ({delta_hist!r}) must be "
                          f"smaller than `delta` ({delta!r}).")
    return float(phrase_delta)


def phrase_noise(phrase_max: int, rho: float, delta: float) -> tuple[float, float]:
    """(σ_p, τ_p) of one cluster's phrase release: σ_p = sqrt(m/(2ρ)) spends ``rho`` (zCDP nats) exactly,
    τ_p is the smallest integer >= 1 with m · P[Z >= τ_p] <= ``delta`` (the cluster's δ_p;
    :func:`~dpsynrag.privacy.mechanisms.sparse_histogram_threshold`).

    Raises:
        ConfigError: m < 1, ρ <= 0, or δ outside (0, 1).
    """
    check_int("phrase_max", phrase_max)
    if isinstance(rho, bool) or not isinstance(rho, (int, float)) or not (rho > 0) or math.isinf(rho):
        raise ConfigError(f"`rho` of the phrase release must be a finite number > 0. Found {rho!r}.")
    sigma = math.sqrt(phrase_max / (2.0 * rho))
    return sigma, sparse_histogram_threshold(max_keywords=phrase_max, sigma=sigma, delta=delta)


def release_phrases(
    phrase_sets: Sequence[Iterable[str]],
    *,
    max_phrases: int,
    sigma: float,
    threshold: float,
    accountant: ZCDPAccountant,
    random: RandomSource,
) -> dict[str, int]:
    """One cluster's phrase release: {phrase: noisy count} for the phrases whose noisy count exceeds
    ``threshold`` (module docstring).

    Args:
        phrase_sets: one iterable of phrases (strings, in the member's order of preference) per member row;
            each is cut to its first ``max_phrases`` distinct phrases here, whatever the caller passes.
        max_phrases: m >= 1 (L2 sensitivity √m).
        sigma: σ_p (counts). threshold: τ_p (counts).
        accountant: the cluster's branch accountant, charged ``phrase release`` = SparseDiscreteGaussian-
            HistogramEvent(m, σ_p, τ_p) before any noise is drawn.
        random: the noise source.

    Returns:
        {phrase: noisy count (int)}, possibly empty.

    Raises:
        ConfigError: bad m, σ or τ. PrivacyBudgetExceededError: the branch cannot pay (nothing released).
    """
    return gaussian_sparse_histogram(phrase_sets, max_keywords=max_phrases, sigma=sigma, threshold=threshold,
                                     accountant=accountant, random=random, name="phrase release")
