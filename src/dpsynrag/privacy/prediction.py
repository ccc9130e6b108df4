"""The private-prediction mechanism of DP-SynRAG (METHOD.md §2d): clipped member logits (Grislain
clipping, or InvisibleInk's clipped differences to public log-probabilities) and the exponential-mechanism
token draw, each composing its event before drawing (see :mod:`dpsynrag.privacy.mechanisms` for the
conventions every mechanism follows).

Neighbouring relation: add/remove one document.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import torch

from dpsynrag.errors import ConfigError
from dpsynrag.privacy.accountant import ZCDPAccountant
from dpsynrag.privacy.events import PrivatePredictionTokenEvent
from dpsynrag.rng import RandomSource


def clip_logits(logits: torch.Tensor, clip: float) -> torch.Tensor:
    """Grislain's logit clipping (METHOD.md §2d), in float32.

    l_exp = exp(l − max l); l_cent = l_exp − (max l_exp + min l_exp)/2;
    clip(l) = l_cent · min(1, c / ‖l_cent‖_∞).

    Every output coordinate lies in [−c, c], so adding one member to a sum of clipped vectors moves
    each coordinate by at most c. ``-inf`` logits (masked tokens) map to the row's minimum. A
    degenerate row (any NaN, or no finite maximum) maps to the zero vector — also in [−c, c]^V —
    instead of raising: whether a build finishes must not depend on one document's logits (an
    abort would be an unaccounted release).

    Args:
        logits: FloatTensor [n, vocab] (any float dtype; computed in float32). n may be 0.
        clip: c > 0.

    Returns:
        FloatTensor [n, vocab], float32, a new tensor.

    Raises:
        ConfigError: on c <= 0 or a non-2-d tensor.
    """
    if isinstance(clip, bool) or not isinstance(clip, (int, float)) or not (clip > 0) or math.isinf(clip):
        raise ConfigError(f"`clip` must be a finite number > 0. Found {clip!r}.")
    if logits.ndim != 2:
        raise ConfigError(f"`logits` must have shape [n, vocab]. Found {tuple(logits.shape)}.")
    x = logits.to(torch.float32)
    if x.shape[0] == 0:
        return x.clone()
    # Seven passes over [n, vocab] and one temporary (the private-prediction decoder clips every
    # member row at every step). max propagates NaN, so a row is degenerate iff its max is not finite.
    row_max = x.max(dim=1, keepdim=True).values
    bad = ~torch.isfinite(row_max)
    if bool(bad.any()):
        x = x.masked_fill(bad, 0.0)  # a constant row clips to exactly 0
        row_max = row_max.masked_fill(bad, 0.0)
    l_exp = torch.sub(x, row_max).exp_()
    lo, hi = torch.aminmax(l_exp, dim=1, keepdim=True)
    mid = (hi + lo) / 2
    l_cent = l_exp.sub_(mid)
    # max |l_cent| without a pass: rounding is monotone, so the extremes of l_exp - mid are hi - mid
    # and lo - mid (the same subtraction as the elementwise one, bit for bit).
    norm_inf = torch.maximum((hi - mid).abs(), (lo - mid).abs())
    bound = _float32_bound(clip)
    scale = torch.clamp(bound / torch.clamp(norm_inf, min=torch.finfo(torch.float32).tiny), max=1.0)
    # The product can exceed the bound by one rounding step; the clamp makes the bound exact.
    return l_cent.mul_(scale).clamp_(min=-bound, max=bound)


def _float32_bound(clip: float) -> float:
    """The largest float32 not above c: rounding c to float32 must not loosen a bound."""
    c32 = np.float32(clip)
    if float(c32) > clip:
        c32 = np.nextafter(c32, np.float32(0))
    return float(c32)


def clip_logit_differences(private: torch.Tensor, public: torch.Tensor, clip: float) -> torch.Tensor:
    """InvisibleInk's difference clipping (DClip; Vinod, Pillutla & Thakurta, arXiv 2507.02974, §3):
    clip(p − q, −c, c) per coordinate, in float32.

    Every output coordinate lies in [−c, c] exactly (c rounded down to float32), so adding one member
    to a sum of such vectors moves each coordinate by at most c. Non-finite scores never raise
    (whether a build finishes must not depend on one document): an infinite difference clips to
    ±c, and an undefined one (NaN, e.g. −inf − (−inf) for a token both sides mask) is 0.

    Args:
        private: FloatTensor [n, vocab], a member's scores (e.g. log-probabilities).
        public: FloatTensor [n, vocab], the public scores each row is compared with.
        clip: c > 0.

    Returns:
        FloatTensor [n, vocab], float32, a new tensor.

    Raises:
        ConfigError: on c <= 0, or shapes that differ or are not 2-d.
    """
    if isinstance(clip, bool) or not isinstance(clip, (int, float)) or not (clip > 0) or math.isinf(clip):
        raise ConfigError(f"`clip` must be a finite number > 0. Found {clip!r}.")
    if private.ndim != 2 or private.shape != public.shape:
        raise ConfigError(
            f"`private` and `public` must both have shape [n, vocab]. Found {tuple(private.shape)} and {tuple(public.shape)}."
        )
    p, q = private.to(torch.float32), public.to(torch.float32)
    bound = _float32_bound(clip)
    return torch.nan_to_num(torch.clamp(p - q, min=-bound, max=bound), nan=0.0)


def sample_private_tokens(
    aggregated: torch.Tensor | np.ndarray,
    *,
    clip: float,
    temperature: float,
    accountants: Sequence[ZCDPAccountant],
    random: RandomSource | Sequence[RandomSource],
    name: str = "private prediction token",
) -> np.ndarray:
    """Sample one token per row from softmax(z / τ) — the exponential mechanism of private prediction.

    ``z`` must be a sum of :func:`clip_logits` or :func:`clip_logit_differences` outputs with the same
    ``clip`` (plus any data-independent public term, and ``-inf`` outside a data-independent candidate
    set). Each row is charged PrivatePredictionTokenEvent(c, τ): rho = (c/τ)²/2, before sampling.
    A zero row (an empty cluster) samples uniformly.

    Args:
        aggregated: [batch, vocab] aggregated clipped logits (float32 or float64).
        clip: c used for clipping.
        temperature: τ > 0.
        accountants: one accountant per row (the cluster's branch accountant).
        random: sampling randomness: one source for every row (one uniform per row, in row order),
            or one source per row (``random[i]`` draws row i's token: a cluster's own named stream,
            so its tokens do not depend on which clusters share the batch or the process).

    Returns:
        int64 array [batch] of token ids.

    Raises:
        ConfigError: on τ <= 0, a row count that differs from ``accountants`` (or from ``random``
            when it is a sequence), non-finite input.
        PrivacyBudgetExceededError: if a row's accountant cannot pay (nothing sampled).
    """
    z = aggregated.detach().to(torch.float64).cpu().numpy() if isinstance(aggregated, torch.Tensor) else aggregated
    z = np.asarray(z, dtype=np.float64)
    if z.ndim != 2:
        raise ConfigError(f"`aggregated` must have shape [batch, vocab]. Found {z.shape}.")
    if len(accountants) != z.shape[0]:
        raise ConfigError(f"need one accountant per row: {z.shape[0]} rows, {len(accountants)} accountants.")
    per_row = not isinstance(random, RandomSource)
    if per_row and (isinstance(random, (str, bytes)) or not isinstance(random, Sequence) or len(random) != z.shape[0]
                    or not all(isinstance(r, RandomSource) for r in random)):
        raise ConfigError(f"`random` must be a RandomSource or one RandomSource per row ({z.shape[0]} rows).")
    event = PrivatePredictionTokenEvent(name=name, clip=float(clip), temperature=float(temperature))
    for acc in accountants:  # validate every row first, then commit: nothing is sampled on failure
        acc.check(event)
    for acc in accountants:
        acc.compose(event)
    if per_row:
        return np.asarray([int(r.categorical(row)) for r, row in zip(random, z / temperature)], dtype=np.int64)
    return np.asarray(random.categorical(z / temperature), dtype=np.int64).reshape(-1)
