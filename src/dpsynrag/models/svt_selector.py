"""Sparse-vector decoding (:class:`SparseVectorSelector`): a token the public prompt predicts and the
members do not contest is free; only the others are drawn and paid by a private selector of
:mod:`dpsynrag.models.private_selectors`, at most C per text, each after one AboveThreshold run
(SparseVectorEvent, (ε1 + ε2)²/2 zCDP).
"""

from __future__ import annotations

from fractions import Fraction
from typing import ClassVar

import numpy as np
import torch

from dpsynrag.checks import check_int
from dpsynrag.errors import ConfigError
from dpsynrag.models.decoding import RowLayout, Selector
from dpsynrag.models.private_selectors import PrivateSelector
from dpsynrag.models.reduction import ordered_group_sum_
from dpsynrag.privacy.events import SparseVectorEvent
from dpsynrag.privacy.prediction import sample_private_tokens
from dpsynrag.rng import RandomSource


def disagreement_steps(top: torch.Tensor, at_pub: torch.Tensor, *, gap: float, grid: int) -> torch.Tensor:
    """Each member's disagreement with the public prediction in grid steps, q·a_d with
    a_d = clamp((max_v l_d[v] − l_d[v_pub]) / g, 0, 1) rounded down to a multiple of 1/q: an integer in
    [0, q] **whatever the logits**, so one member moves q·Q_t by at most q·Δ (the sensitivity the
    AboveThreshold noise is calibrated to).

    A degenerate row (its maximum over the allowed tokens is not finite: a NaN anywhere, +inf, or every
    allowed token −inf) disagrees by 0, as :func:`~dpsynrag.privacy.prediction.clip_logits` maps such a
    row to the zero vector. A finite maximum with l_d[v_pub] = −inf is full disagreement (q). Without this
    rule NaN passed the clamp and became INT64_MIN after the cast (issue 42).

    Args:
        top: FloatTensor ``[members]``, each member row's maximum over the allowed tokens.
        at_pub: FloatTensor ``[members]``, each row's logit at the public prediction v_pub.
        gap: g > 0, the logit gap of full disagreement.
        grid: q >= 1.

    Returns:
        LongTensor ``[members]`` (CPU), values in [0, q].
    """
    top, at_pub = top.double().cpu(), at_pub.double().cpu()
    a = torch.clamp((top - at_pub) / gap, 0.0, 1.0)  # >= 0 where finite (v_pub is an allowed token)
    a = torch.where(torch.isfinite(top) & ~torch.isnan(a), a, torch.zeros_like(a))
    return torch.floor(a * grid).long()


class SparseVectorSelector(Selector):
    """Sparse-vector decoding: tokens that the public prompt predicts are free; only the others are
    drawn (and paid) by a private selector (Amin et al. 2024, "Private prediction for large-scale
    synthetic text generation", arXiv 2407.12108, §3.3; the sparse vector technique of Dwork & Roth
    2014, Alg. 1, in the form of Lyu, Su & Li 2017, Alg. 1 with c = 1).

    Each step t of a live group (one text), with l_pub its public row's logits and l_d its members':

    1. v_pub = argmax of l_pub over the real vocabulary minus the no-repeat n-gram mask (public).
    2. Each member row d of weight w_d (identical members) gives a_d = clamp((max_v l_d[v] − l_d[v_pub]) / g,
       0, 1) over the same allowed tokens, rounded down to a multiple of 1/q (0 for a degenerate row: a NaN,
       +inf, or no finite logit; :func:`disagreement_steps`); the query is
       Q_t = Σ_d w_d (a_d − β), computed in grid steps, an integer (q·Q_t).
    3. AboveThreshold: at the start of each run (the first step, and the step after each paid token)
       the group's accountant is charged the run's :class:`~dpsynrag.privacy.events.SparseVectorEvent`
       and a noisy threshold T̂ = Lap_Z(qΔ/ε1) is drawn; each step draws ν_t = Lap_Z(2qΔ/ε2) (exact
       discrete Laplace, :meth:`~dpsynrag.rng.RandomSource.discrete_laplace`). If q·Q_t + ν_t >= T̂ the
       step is PAID: the token is the base selector's exponential-mechanism draw over z (charged
       PrivatePredictionTokenEvent(c, τ) before drawing,
       :func:`~dpsynrag.privacy.prediction.sample_private_tokens`), and the run ends.
       Else the step is FREE: the token is v_pub, post-processing of public values, no cost.
    4. After the C-th paid token the text ends (:meth:`ends`); it also ends at EOS or after T steps.

    Sensitivity: adding or removing one member changes Q_t by a_d − β ∈ [−β, 1 − β] (a weight-m row
    becomes weight m ± 1; q·Q_t by an integer in [−qβ, q − qβ]): Δ = max(β, 1 − β). The members'
    logits, v_pub and the mask are computed as without sparse-vector decoding (v_pub and the mask from
    public values only: the same for neighbours).

    Cost per text: at most C runs, each (ε1 + ε2)-DP up to and including its first positive answer
    (Lyu, Su & Li 2017, Thm. 2, whose proof shifts the threshold by Δ and the query noise by 2Δ — whole
    grid steps here, so it holds for the discrete Laplace as written), hence (ε1 + ε2)²/2-zCDP (Bun &
    Steinke 2016, Prop. 1.4), and at most C paid tokens of (c/τ)²/2 each; adaptive composition gives at
    most C · ((ε1 + ε2)²/2 + (c/τ)²/2). A text that ends early spends less. The sequence of free/paid
    decisions is the mechanism's output: it may be released.

    Randomness: the paid draws use the base selector's ``random`` (one source, or one per group); the
    threshold and query noise a child stream ``"sparse-vector"`` of it (per group when per group), so
    that a group's text does not depend on the groups that share its batch.

    Args:
        base: the private selector that draws paid tokens (any variant); it must run a public prompt
            (``uses_public``), whose row gives v_pub. Its accountants (one per group) are charged.
        max_paid: C >= 1, the most paid tokens per text.
        run: the :class:`~dpsynrag.privacy.events.SparseVectorEvent` (ε1, ε2, β, g, q) of each run.

    Raises:
        ConfigError: a base selector without a public prompt, a bad C or ``run``.
    """

    private: ClassVar[bool] = True
    charges_every_step: ClassVar[bool] = False
    uses_public = True

    def __init__(self, base: PrivateSelector, *, max_paid: int, run: SparseVectorEvent):
        if not isinstance(base, PrivateSelector):
            raise ConfigError(f"`base` must be a PrivateSelector. Found {type(base).__name__}.")
        if not base.uses_public:
            raise ConfigError(
                "sparse-vector decoding (`svt_max_paid`) compares the members with a public prediction: it needs a "
                "public prompt row (decoding public-prior or invisibleink, or paper with `public_weight` > 0)."
            )
        if not isinstance(run, SparseVectorEvent):
            raise ConfigError(f"`run` must be a SparseVectorEvent. Found {type(run).__name__}.")
        self.base = base
        self.max_paid = check_int("max_paid", max_paid)
        self.run = run
        self.name = base.name
        self.vocab_size = base.vocab_size
        # exact noise scales qΔ/ε1 and 2qΔ/ε2 (ε as the exact rational value of the float)
        self._threshold_scale = Fraction(run.sensitivity_steps) / Fraction(run.epsilon1)
        self._query_scale = 2 * Fraction(run.sensitivity_steps) / Fraction(run.epsilon2)
        if isinstance(base.random, RandomSource):
            self._noise: RandomSource | list[RandomSource] = base.random.child("sparse-vector")
        else:
            self._noise = [r.child("sparse-vector") for r in base.random]
        self.paid: np.ndarray | None = None  # paid tokens per group so far
        self.decisions: list[list[bool]] | None = None  # per group: True for each paid step, False for each free one
        self._threshold: list[int | None] = []

    # a Selector's scores for diagnostics (aggregated_logits): the base selector's z
    def scores(self, logits: torch.Tensor, layout: RowLayout, banned: torch.Tensor | None = None) -> torch.Tensor:
        """The base selector's z (:meth:`PrivateSelector.scores`); **not private**."""
        return self.base.scores(logits, layout, banned)

    def ends(self, group: int) -> bool:
        return self.paid is not None and int(self.paid[group]) >= self.max_paid

    def queries(self, logits: torch.Tensor, layout: RowLayout, banned: torch.Tensor | None = None
                ) -> tuple[torch.Tensor, torch.Tensor]:
        """Each group's public prediction and query: ``(v_pub, q·Q)``, LongTensors ``[n_groups]`` (CPU;
        v_pub is −1 and q·Q is 0 for a group without a public row). **Not private**: q·Q is raw private
        data, read only by the AboveThreshold comparison of :meth:`select`.

        Args:
            logits: FloatTensor ``[rows, model_vocab]``.
            layout: the rows' groups.
            banned: the no-repeat n-gram mask ``[n_groups, vocab_size]`` or None.
        """
        vocab, dev = self.vocab_size, logits.device
        n = layout.n_groups
        real = logits[:, :vocab]  # data-independent mask: padding columns of the output layer
        if banned is not None:
            real = real.masked_fill(banned.to(dev).index_select(0, layout.group.to(dev)), float("-inf"))
        groups, rows = layout.public_rows()
        v_pub = torch.full((n,), -1, dtype=torch.long)
        v_pub[groups] = real.index_select(0, rows.to(dev)).argmax(dim=-1).cpu()
        query = torch.zeros(n, dtype=torch.long)
        private = torch.nonzero(~layout.public).flatten()
        if private.numel():
            g = layout.group[private]
            if bool((v_pub[g] < 0).any()):
                raise ConfigError("internal: sparse-vector decoding needs a public row in every group with members.")
            idx = private.to(dev)
            top = real.max(dim=-1).values.index_select(0, idx)  # each row alone: exact, batch-invariant
            at_pub = real[idx, v_pub[g].to(dev)]
            steps = disagreement_steps(top, at_pub, gap=self.run.gap, grid=self.run.grid)
            weight = (torch.ones(private.numel(), dtype=torch.long) if layout.weight is None
                      else torch.round(layout.weight[private]).long())
            ordered_group_sum_(query, g, weight * (steps - self.run.beta_steps))  # exact (integers), fixed order
        return v_pub, query

    def select(self, logits, layout, finished, texts=None):
        n = layout.n_groups
        base = self.base
        if self.paid is None or len(self.paid) != n:
            self.paid = np.zeros(n, dtype=np.int64)
            self.decisions = [[] for _ in range(n)]
            self._threshold = [None] * n
        out = np.full(n, -1, dtype=np.int64)
        live = np.flatnonzero(~np.asarray(finished, dtype=bool))
        if logits is None or live.size == 0:
            return out
        if len(base.accountants) != n:
            raise ConfigError(f"need one accountant per group: {n} groups, {len(base.accountants)} accountants.")
        banned = base.banned(texts, n)
        v_pub, query = self.queries(logits, layout, banned)
        if bool((v_pub[torch.as_tensor(live)] < 0).any()):
            raise ConfigError("internal: sparse-vector decoding needs a public row in every live group.")
        paid = []
        for g in live.tolist():
            noise = self._noise if isinstance(self._noise, RandomSource) else self._noise[g]
            if self._threshold[g] is None:  # a new AboveThreshold run: pay for it, then draw its threshold
                base.accountants[g].compose(self.run)
                self._threshold[g] = noise.discrete_laplace(self._threshold_scale)
            above = int(query[g]) + noise.discrete_laplace(self._query_scale) >= self._threshold[g]
            self.decisions[g].append(above)
            if above:
                paid.append(g)
            else:
                out[g] = int(v_pub[g])
        if paid:
            z = base.masked_scores(logits, layout, texts)[torch.as_tensor(paid)]
            random = base.random if isinstance(base.random, RandomSource) else [base.random[g] for g in paid]
            out[paid] = sample_private_tokens(z, clip=base.clip, temperature=base.temperature,
                                              accountants=[base.accountants[g] for g in paid], random=random)
            for g in paid:
                self.paid[g] += 1
                self._threshold[g] = None  # the run ended at its first positive answer
        return out

    def describe(self) -> dict:
        """The base variant's description plus the sparse-vector parameters."""
        return {**self.base.describe(), "svt_max_paid": self.max_paid, "svt_epsilon1": self.run.epsilon1,
                "svt_epsilon2": self.run.epsilon2, "svt_beta": self.run.beta, "svt_gap": self.run.gap,
                "svt_grid": self.run.grid}
