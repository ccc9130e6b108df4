"""DP-RAG's retrieval threshold (:mod:`dpsynrag.baselines.dp_rag`): Grislain's top-k utility and the
top-p utility with data-independent weights, and the continuous exponential mechanism that draws a
top-p threshold over [0, 1].
"""

from __future__ import annotations

import math

import numpy as np

from dpsynrag.errors import ConfigError
from dpsynrag.privacy.accountant import ZCDPAccountant
from dpsynrag.privacy.events import ExponentialMechanismEvent
from dpsynrag.rng import RandomSource


def _scores(scores) -> np.ndarray:
    s = np.asarray(scores, dtype=np.float64).reshape(-1)
    if not np.isfinite(s).all():
        raise ConfigError("`scores` must be finite.")
    return np.clip(s, 0.0, 1.0)


def _check_p_alpha(p: float, alpha: float) -> None:
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not (0.0 < p < 1.0):
        raise ConfigError(f"`p` (top-p share) must lie strictly between 0 and 1. Found {p!r}.")
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not (0.0 <= alpha < math.inf):
        raise ConfigError(f"`alpha` must be a finite number >= 0. Found {alpha!r}.")


def top_k_utility(scores, theta: float, *, k: int) -> float:
    """Grislain's top-k utility U(θ) = −|#{i : s_i > θ} − k| (scores clipped to [0, 1]).

    Sensitivity 1 under add/remove: one document changes the count by at most 1 for every θ.
    This is the utility of :func:`~dpsynrag.privacy.mechanisms.exponential_threshold`.
    """
    s = _scores(scores)
    return -abs(float(np.sum(s > theta)) - k)


def top_p_utility(scores, theta: float, *, p: float, alpha: float) -> float:
    """The top-p threshold utility, with data-independent weights (a sound variant of Grislain's).

    U(θ) = −| Σ_i 1[s_i > θ] · w(s_i) − p · Σ_i w(s_i) |,  w(s) = exp(α (s − 1)),  s clipped to [0, 1].

    It selects the smallest set of top documents holding a share p of the total weight; α > 0 puts
    the weight on the best scores.

    **Sensitivity ≤ max(p, 1 − p) ≤ 1 (proof).** Let D' = D ∪ {d*} with clipped score s* and weight
    w* = w(s*). The weights of the other documents do not change (w depends only on a document's own
    score and the public constants α, 0, 1), so for every θ, with g(θ) = Σ 1[s_i > θ] w_i − p Σ w_i,
    g_{D'}(θ) − g_D(θ) = w* (1[s* > θ] − p) ∈ [−p w*, (1 − p) w*]. As | |a| − |b| | ≤ |a − b| and
    0 < w* ≤ 1, |U_{D'}(θ) − U_D(θ)| ≤ max(p, 1 − p) ≤ 1. The base measure (Lebesgue on [0, 1]) does not
    depend on D, so the exponential mechanism with density ∝ exp(ε U(θ)/2) is ε-DP and ε-bounded-range:
    ε²/8-zCDP.

    **Why not the report's version.** In Grislain's report (arXiv 2412.19291, "top-p" utility) s_max and
    s_min are not said to be public; read as the data's max and min scores, one added document with a
    new extreme score rescales *every* weight, and U changes by Θ(n): e.g. n documents at 0.5 and one at
    0.9 (s_min = 0.5) versus the same plus one at 0.1 (s_min = 0.1), α = 5, p = 0.02, θ = 0.7: the
    weight of each 0.5-document goes from e^−5 to e^−2.5, and |ΔU| = 1.59 at n = 2000, 6.92 at
    n = 5000, growing linearly in n. No finite sensitivity holds, so that version is not implemented. (The reference code's DP branch uses
    fixed bounds, −0.5 and 0.8; we use the mechanism's own domain [0, 1], so no score saturates below 1.)
    """
    _check_p_alpha(p, alpha)
    s = _scores(scores)
    w = np.exp(alpha * (s - 1.0))
    return -abs(float(np.sum(w[s > theta])) - p * float(np.sum(w)))


def top_p_interval_log_weights(scores, *, p: float, alpha: float, epsilon: float):
    """The continuous exponential mechanism of :func:`top_p_threshold` as intervals of [0, 1].

    The sorted clipped scores split [0, 1] into intervals on which the retrieved set {i : s_i > θ} is
    constant; interval j has log-weight log(length_j) + ε · U_j / 2 (−inf for an empty interval).

    Returns:
        (breaks float64 [n + 2], lengths float64 [n + 1], log_weights float64 [n + 1]).
    """
    _check_p_alpha(p, alpha)
    s = np.sort(_scores(scores))
    w = np.exp(alpha * (s - 1.0))
    breaks = np.concatenate([[0.0], s, [1.0]])
    lengths = np.diff(breaks)
    # On the open interval (b_j, b_{j+1}) the retrieved documents are the sorted ones j, j+1, ..., n-1.
    kept_weight = np.concatenate([np.cumsum(w[::-1])[::-1], [0.0]])
    utility = -np.abs(kept_weight - p * float(np.sum(w)))
    log_w = np.full(len(lengths), -np.inf)
    positive = lengths > 0
    log_w[positive] = np.log(lengths[positive]) + 0.5 * epsilon * utility[positive]
    return breaks, lengths, log_w


def top_p_threshold(
    scores,
    *,
    p: float,
    alpha: float,
    epsilon: float,
    accountant: ZCDPAccountant,
    random: RandomSource,
    name: str = "retrieval threshold (top-p)",
) -> float:
    """A retrieval threshold θ ∈ [0, 1] from the exponential mechanism with the top-p utility.

    Density ∝ exp(ε · U(θ)/2) on [0, 1] (Lebesgue base measure), U = :func:`top_p_utility`: an interval
    of :func:`top_p_interval_log_weights` is drawn, then θ uniformly inside it. Retrieve s_i > θ.

    DP guarantee: U has sensitivity ≤ 1 (proof in :func:`top_p_utility`), so the draw is ε-DP and
    ε-bounded-range, ρ = ε²/8; the accountant is charged an
    :class:`~dpsynrag.privacy.events.ExponentialMechanismEvent` before the draw.

    Args:
        scores: float array [n] of similarities (clipped to [0, 1]); n may be 0.
        p: the share of the total weight to retrieve, in (0, 1) (DP-SynRAG App. C.3: 0.02 for Medical
            Synth, 0.05 for MovieLens and SearchQA).
        alpha: α >= 0, the contrast of the weights (Grislain's default 5).
        epsilon: ε_r > 0.

    Returns:
        θ in [0, 1].

    Raises:
        ConfigError: on bad p, α, ε or non-finite scores.
        PrivacyBudgetExceededError: if the accountant cannot pay (nothing drawn).
    """
    if isinstance(epsilon, bool) or not isinstance(epsilon, (int, float)) or not (0 < epsilon < math.inf):
        raise ConfigError(f"`epsilon` must be a finite number > 0. Found {epsilon!r}.")
    breaks, lengths, log_w = top_p_interval_log_weights(scores, p=p, alpha=alpha, epsilon=float(epsilon))
    accountant.compose(ExponentialMechanismEvent(name=name, epsilon=float(epsilon)))
    j = int(random.categorical(log_w))
    return float(breaks[j] + random.uniform() * lengths[j])
