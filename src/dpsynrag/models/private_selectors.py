"""The private-prediction selectors of :func:`~dpsynrag.models.decoding.decode` (METHOD.md §2d):

* :class:`PaperSelector` — ``"paper"``: DP-SynRAG's private prediction, Σ Grislain-clipped member
  logits (+ ω · public log-probabilities when a public prompt is given);
* :class:`PublicPriorSelector` — ``"public-prior"``: the paper's sum plus ω · log_softmax of a public
  prompt's logits (ω = 1 by default);
* :class:`InvisibleInkSelector` — ``"invisibleink"``: λ · public log-probabilities plus Σ of each
  member's difference to them clipped to [−c, c] (InvisibleInk, Vinod, Pillutla & Thakurta,
  NeurIPS 2025, arXiv 2507.02974).

Every selector that runs a public prompt can be restricted to a top-k⁺ candidate set computed from the
public logits only (InvisibleInk's top-k⁺ sampling, :meth:`PrivateSelector.candidates`): the draw is then
over the tokens the public prompt finds plausible instead of the whole vocabulary — fewer agreeing
members outvote the sampling noise, but the text leans towards what the public prompt would write
(benchmarks/results/bench_utility_topk.md).

The private selectors are exponential mechanisms over the real vocabulary; each charges its group's
accountant PrivatePredictionTokenEvent(c, τ) — (c/τ)²/2 zCDP — per token *before* drawing, at every
one of the T steps, whether the group is empty, still running or already ended (the draw is then
discarded). Nothing they compute depends on a cluster's size except through the sum over members.

:class:`SparseVectorSelector` wraps any of them that runs a public prompt: a token the public prompt
predicts and the members do not contest is free (the sparse vector technique; Amin et al. 2024, arXiv
2407.12108), and only the others are drawn and charged, at most C per text, each after one
AboveThreshold run (SparseVectorEvent, (ε1 + ε2)²/2 zCDP). Every selector can also ban the tokens that
would repeat an n-gram of the released text (``no_repeat_ngram``; public, free).

Floating point: each member's term lies in [−c, c] exactly (c rounded down to float32), but z is
accumulated in float32, so a coordinate may move by c plus the rounding of the sums (at most
γ_n · Σ|terms|, γ_n ≈ n · 2⁻²⁴ for n terms; tests/test_decoding.py checks exactly that bound). Like
every floating-point implementation of the exponential mechanism, the accounting does not cover
that rounding.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import ClassVar

import numpy as np
import torch

from dpsynrag.checks import check_int, check_real
from dpsynrag.errors import ConfigError
from dpsynrag.models.decoding import RowLayout, Selector, no_repeat_ngram_mask
from dpsynrag.privacy.accountant import ZCDPAccountant
from dpsynrag.privacy.events import SparseVectorEvent
from dpsynrag.privacy.mechanisms import clip_logit_differences, clip_logits, sample_private_tokens
from dpsynrag.rng import RandomSource

DECODINGS = ("paper", "public-prior", "invisibleink")
"""Names of the private decoding variants (``BuildConfig.decoding``, ``dpsynrag build --decoding``)."""

# Rows clipped together: bounds the float32 temporaries of clipping to ~CLIP_ROWS x vocab x 4 B each.
_CLIP_ROWS = 64


def _weighted(terms: torch.Tensor, layout: RowLayout, idx: torch.Tensor) -> torch.Tensor:
    """Each row's clipped term ``[len(idx), vocab]`` times the number of members it stands for
    (:attr:`RowLayout.weight`; in place; unchanged without weights): identical member prompts are one row."""
    if layout.weight is None:
        return terms
    return terms.mul_(layout.weight.to(terms.device).index_select(0, idx.to(terms.device))[:, None])


class PrivateSelector(Selector):
    """Base of the private-prediction selectors: z = :meth:`scores`, y ~ softmax(z / τ).

    The draw goes through :func:`~dpsynrag.privacy.mechanisms.sample_private_tokens`, which charges
    every group's accountant PrivatePredictionTokenEvent(c, τ) — (c/τ)²/2 zCDP — before drawing. An
    ended group's z is set to 0 (its draw is discarded, its token still charged). A group without any
    row (an empty cluster with no public prompt) has z = 0: uniform over the real vocabulary.

    Args:
        vocab_size: the tokenizer's vocabulary size; logit columns at or beyond it are padding of the
            output layer and are dropped before anything else (a data-independent mask).
        clip: c > 0. temperature: τ > 0.
        random: randomness of the draws (a :class:`~dpsynrag.rng.SecureRandom` for release): one
            source for every group, or one per group (each cluster's own named stream: its tokens
            then do not depend on the other groups of the batch).
        accountants: one accountant per group (the clusters' branch accountants); may be empty for
            :meth:`scores` alone.
        top_k: size k >= 1 of the top-k⁺ candidate set (:meth:`candidates`); None (default) samples over
            the whole vocabulary. Needs a public prompt.
        top_k_margin: the top-k⁺ margin >= 0 in log-probability (nats; default 0: the top k and ties).
        no_repeat_ngram: N >= 0; tokens that would complete an n-gram of length N already in the
            group's released text get z = −inf (and leave the top-k⁺ set):
            :func:`~dpsynrag.models.decoding.no_repeat_ngram_mask`, a function of released tokens
            only, so sensitivity and cost are unchanged. 0 (default): off.
    """

    private: ClassVar[bool] = True
    charges_every_step: ClassVar[bool] = True
    name: ClassVar[str] = ""

    def __init__(
        self,
        vocab_size: int,
        *,
        clip: float,
        temperature: float,
        random: RandomSource | Sequence[RandomSource],
        accountants: Sequence[ZCDPAccountant] = (),
        top_k: int | None = None,
        top_k_margin: float = 0.0,
        no_repeat_ngram: int = 0,
    ):
        self.vocab_size = check_int("vocab_size", vocab_size)
        self.clip = check_real("clip", clip, above=0.0)
        self.temperature = check_real("temperature", temperature, above=0.0)
        if not isinstance(random, RandomSource) and (
            isinstance(random, (str, bytes)) or not isinstance(random, Sequence)
            or not all(isinstance(r, RandomSource) for r in random)
        ):
            raise ConfigError(
                f"`random` must be a dpsynrag.rng.RandomSource or one per group. Found {type(random).__name__}."
            )
        self.random = random if isinstance(random, RandomSource) else list(random)
        self.accountants = list(accountants)
        if top_k is not None and (isinstance(top_k, bool) or not isinstance(top_k, (int, np.integer)) or top_k < 1):
            raise ConfigError(f"`top_k` (top-k+ candidate set) must be an integer >= 1 or None. Found {top_k!r}.")
        self.top_k = None if top_k is None else int(top_k)
        self.top_k_margin = check_real("top_k_margin", top_k_margin, at_least=0.0)
        if self.top_k_margin != 0.0 and self.top_k is None:
            raise ConfigError("`top_k_margin` widens the top-k+ candidate set: it needs `top_k`.")
        no_repeat_ngram_mask((), no_repeat_ngram, self.vocab_size)  # checks N
        self.no_repeat_ngram = int(no_repeat_ngram)

    def banned(self, texts: Sequence[Sequence[int]] | None, n_groups: int) -> torch.Tensor | None:
        """The no-repeat n-gram mask ``[n_groups, vocab_size]`` of the released ``texts`` (None: off,
        nothing banned, or no texts given)."""
        if not self.no_repeat_ngram or texts is None:
            return None
        if len(texts) != n_groups:
            raise ConfigError(f"internal: {len(texts)} texts for {n_groups} groups.")
        return no_repeat_ngram_mask(texts, self.no_repeat_ngram, self.vocab_size)

    def candidates(self, public_logprobs: torch.Tensor) -> torch.Tensor:
        """The top-k⁺ candidate set: BoolTensor like ``public_logprobs`` ``[n, vocab]`` (all True when
        ``top_k`` is None).

        The k tokens of largest public log-probability plus every token within ``top_k_margin`` of the
        k-th (ties included). A function of the public prompt's logits alone — the public prompt and the
        released suffix — hence the same for neighbouring clusters: restricting the exponential
        mechanism to it changes neither its sensitivity nor its cost. (InvisibleInk's margin 2C covers
        the private top-k of a *mean* of members clipped at C; for a sum over n members the analogous
        margin would be 2nc, and n is private, so the margin here is a public parameter.)
        """
        if self.top_k is None:
            return torch.ones_like(public_logprobs, dtype=torch.bool)
        k = min(self.top_k, public_logprobs.shape[-1])
        kth = torch.topk(public_logprobs, k, dim=-1).values[:, -1:]
        return public_logprobs >= kth - self.top_k_margin

    def _restrict(self, z: torch.Tensor, groups: torch.Tensor, public_logprobs: torch.Tensor,
                  banned: torch.Tensor | None = None) -> None:
        """Set z to −inf outside each group's candidate set (in place; rows ``groups`` of z, whose public
        log-probabilities are the rows of ``public_logprobs``). Nothing without ``top_k``. The set is
        taken among the tokens that ``banned`` (the no-repeat n-gram mask ``[n_groups, vocab]``)
        allows."""
        if self.top_k is not None and groups.numel():
            if banned is not None:
                public_logprobs = public_logprobs.masked_fill(banned.to(z.device).index_select(0, groups), float("-inf"))
            z.index_copy_(0, groups, z.index_select(0, groups).masked_fill(~self.candidates(public_logprobs),
                                                                            float("-inf")))

    def scores(self, logits: torch.Tensor, layout: RowLayout, banned: torch.Tensor | None = None) -> torch.Tensor:
        """z ``[n_groups, vocab_size]`` (float32, CPU) from the rows' logits ``[rows, model_vocab]``;
        ``banned`` (BoolTensor ``[n_groups, vocab_size]`` or None) only narrows the top-k⁺ set to the
        allowed tokens (:meth:`select` sets the banned tokens' z to −inf).

        **Not private**: z is raw private data; only :meth:`select` may release anything from it.
        """
        raise NotImplementedError

    def masked_scores(self, logits: torch.Tensor | None, layout: RowLayout,
                      texts: Sequence[Sequence[int]] | None = None) -> torch.Tensor:
        """:meth:`scores` (zeros when ``logits`` is None) with the no-repeat n-gram mask of ``texts``
        applied: z = −inf on banned tokens. **Not private**, as :meth:`scores`."""
        banned = self.banned(texts, layout.n_groups)
        if logits is None:
            z = torch.zeros((layout.n_groups, self.vocab_size), dtype=torch.float32)
        else:
            z = self.scores(logits, layout, banned)
        if banned is not None:
            z.masked_fill_(banned, float("-inf"))
        return z

    def select(self, logits, layout, finished, texts=None):
        z = self.masked_scores(logits, layout, texts)
        done = np.flatnonzero(finished)
        if done.size:
            z[torch.as_tensor(done)] = 0.0  # an ended text: charged, draw discarded
        return sample_private_tokens(
            z, clip=self.clip, temperature=self.temperature, accountants=self.accountants, random=self.random
        )

    def describe(self) -> dict:
        """The variant and its public parameters, for manifests and privacy reports (``top_k`` and
        ``top_k_margin`` when a candidate set is used)."""
        out = {"decoding": self.name, "clip": self.clip, "temperature": self.temperature}
        if self.top_k is not None:
            out.update(top_k=self.top_k, top_k_margin=self.top_k_margin)
        if self.no_repeat_ngram:
            out["no_repeat_ngram"] = self.no_repeat_ngram
        return out


class PaperSelector(PrivateSelector):
    """``"paper"``: DP-SynRAG's private prediction (METHOD.md §2d; DP-SynRAG §3.3, App. B; clipping from
    Grislain, arXiv 2412.19291).

        z = Σ_{d ∈ S} clip_c(l_d)  (+ ω · log_softmax(l_pub) when ω > 0),   y ~ softmax(z / τ),

    with l_d a member's next-token logits on the real vocabulary, clip_c
    :func:`~dpsynrag.privacy.mechanisms.clip_logits` (Grislain's centred exp-logits, every coordinate
    in [−c, c] after float32 rounding), l_pub the logits of the public prompt (no private document)
    with the same generated suffix. In float32: the clipped rows are summed first, then the public
    term is added — today's decoder, bit for bit.

    With ``top_k`` (needs ω > 0: the public prompt), z_v = −inf outside the top-k⁺ candidate set of the
    public log-probabilities (:meth:`PrivateSelector.candidates`).

    Sensitivity: adding or removing one member d changes z by clip_c(l_d) ∈ [−c, c]^V (the public
    term and the candidate set are the same on both sides: they read only the public prompt and the
    released suffix).

    Cost: for any tokens a, b the log-probability ratio of the two neighbours differs by
    ((z'_a − z_a) − (z'_b − z_b))/τ ∈ [−2c/τ, 2c/τ]: a 2c/τ-bounded-range exponential mechanism
    (Durfee & Rogers 2019), hence (2c/τ)²/8 = (c/τ)²/2 zCDP per token (Cesar & Rogers 2021, Lemma 3.2):
    PrivatePredictionTokenEvent(c, τ). The T tokens of a cluster compose adaptively: T (c/τ)²/2.

    Args:
        public_weight: ω >= 0 (0: no public term and no public row; the default).
        top_k, top_k_margin: the top-k⁺ candidate set (default: none); ``top_k`` needs ω > 0.
        Others: as :class:`PrivateSelector`.

    Raises:
        ConfigError: a bad value, or ``top_k`` with ω = 0 (no public prompt to take the set from).
    """

    name: ClassVar[str] = "paper"

    def __init__(self, vocab_size: int, *, clip: float, temperature: float, random: RandomSource | Sequence[RandomSource],
                 accountants: Sequence[ZCDPAccountant] = (), public_weight: float = 0.0,
                 top_k: int | None = None, top_k_margin: float = 0.0, no_repeat_ngram: int = 0):
        super().__init__(vocab_size, clip=clip, temperature=temperature, random=random, accountants=accountants,
                         top_k=top_k, top_k_margin=top_k_margin, no_repeat_ngram=no_repeat_ngram)
        self.public_weight = check_real("public_weight", public_weight, at_least=0.0)
        self.uses_public = self.public_weight > 0
        if self.top_k is not None and not self.uses_public:
            raise ConfigError("the top-k+ candidate set is computed from the public prompt: it needs `public_weight` > 0.")

    def scores(self, logits, layout, banned=None):
        vocab = self.vocab_size
        dev = logits.device
        z = torch.zeros((layout.n_groups, vocab), dtype=torch.float32, device=dev)
        real = logits[:, :vocab]  # data-independent mask: padding columns of the output layer
        group = layout.group.to(dev)
        private = torch.nonzero(~layout.public).flatten().to(dev)
        for i in range(0, private.numel(), _CLIP_ROWS):
            idx = private[i : i + _CLIP_ROWS]
            z.index_add_(0, group[idx], _weighted(clip_logits(real.index_select(0, idx), self.clip), layout, idx))
        if self.uses_public:
            groups, rows = layout.public_rows()
            if rows.numel():
                groups = groups.to(dev)
                pub = torch.log_softmax(real.index_select(0, rows.to(dev)).float(), dim=-1)
                z.index_add_(0, groups, pub * self.public_weight)
                self._restrict(z, groups, pub, banned)
        return z.cpu()

    def describe(self):
        return {**super().describe(), "public_weight": self.public_weight}


class PublicPriorSelector(PaperSelector):
    """``"public-prior"``: the paper's sum plus a public prior,

        z = Σ_{d ∈ S} clip_c(l_d) + ω · log_softmax(l_pub),   y ~ softmax(z / τ),

    where l_pub are the next-token logits of a public prompt — by default the task's rephrase
    instruction rendered with no document — continued by the same released suffix. The prior keeps
    the text fluent where the members disagree (their clipped sum is then nearly flat).

    With ``top_k``, z_v = −inf outside the top-k⁺ candidate set of the public log-probabilities
    (:meth:`PrivateSelector.candidates`): where the members' clipped sum is nearly flat, the draw stays
    among the tokens the public prompt finds plausible instead of the whole vocabulary (with
    ``"{keyword}"`` in the public prompt, these include the tokens of the cluster's released keyword).

    Sensitivity and cost: as :class:`PaperSelector` — the prior and the candidate set are computed from
    public values only, so they are identical for neighbouring clusters and add nothing to the change
    of z, which is one clipped vector in [−c, c]^V: 2c/τ-bounded range on the common support,
    (c/τ)²/2 zCDP per token.

    Args:
        public_weight: ω > 0 (default 1).
        top_k, top_k_margin: the top-k⁺ candidate set (default: none).
        Others: as :class:`PrivateSelector`.
    """

    name: ClassVar[str] = "public-prior"

    def __init__(self, vocab_size: int, *, clip: float, temperature: float, random: RandomSource | Sequence[RandomSource],
                 accountants: Sequence[ZCDPAccountant] = (), public_weight: float = 1.0,
                 top_k: int | None = None, top_k_margin: float = 0.0, no_repeat_ngram: int = 0):
        if isinstance(public_weight, (int, float)) and not isinstance(public_weight, bool) and public_weight == 0:
            raise ConfigError("`public_weight` (omega) of the public-prior decoding must be > 0 (use 'paper' for 0).")
        super().__init__(vocab_size, clip=clip, temperature=temperature, random=random, accountants=accountants,
                         public_weight=public_weight, top_k=top_k, top_k_margin=top_k_margin,
                         no_repeat_ngram=no_repeat_ngram)


class InvisibleInkSelector(PrivateSelector):
    """``"invisibleink"``: clip only what the private document adds to the public prediction
    (InvisibleInk's DClip and top-k⁺ sampling; Vinod, Pillutla & Thakurta, NeurIPS 2025,
    arXiv 2507.02974, §3).

        p_d = log_softmax(l_d),  p_pub = log_softmax(l_pub)            (real vocabulary, float32)
        z = Σ_{d ∈ S} clip(p_d − p_pub, −c, c) + λ · p_pub              (members summed first)
        z_v = −inf for v outside the top-k⁺ set (when ``top_k`` is set)
        y ~ softmax(z / τ)

    l_pub are the logits of the public prompt (by default the rephrase instruction with no document)
    continued by the released suffix. The logits are normalised to log-probabilities before the
    difference: a per-row shift that the softmax ignores, but which takes each context's arbitrary
    logit offset out of the clipped difference. The members are *summed*, never averaged: the
    cluster's size is private (InvisibleInk divides by its public batch size; here a cluster's size
    only enters through the sum). A member that agrees with the public prompt adds 0.

    Top-k⁺ candidate set (optional): :meth:`PrivateSelector.candidates` of p_pub, a function of the
    public logits only, hence the same for neighbouring clusters.

    With the small c that a sum over members affords (c ≈ 0.25–0.4 at ε = 10), a member's clipped
    difference saturates at ±c on every token it finds more (less) likely than the public prompt does,
    however slightly: z is nearly flat over all the tokens the members prefer, and the texts follow the
    public prompt rather than the members (benchmarks/results/bench_utility.md: no disease named).

    Sensitivity: adding or removing one member d changes z on the candidate set by
    clip(p_d − p_pub, −c, c) ∈ [−c, c]^V (:func:`~dpsynrag.privacy.mechanisms.clip_logit_differences`,
    exact after float32 rounding); the public term and the candidate set do not change.

    Cost: on the common support, log-probability ratios of the two neighbours lie in an interval of
    width 2c/τ: a 2c/τ-bounded-range exponential mechanism, (c/τ)²/2 zCDP per token
    (Cesar & Rogers 2021, Lemma 3.2) — the same PrivatePredictionTokenEvent(c, τ) as the paper's.

    Args:
        public_scale: λ >= 0, the weight of the public log-probabilities (default 1).
        top_k: size k >= 1 of the top-k⁺ candidate set; None (default) samples over the whole vocabulary.
        top_k_margin: the top-k⁺ margin >= 0 in log-probability (nats; default 0: the top k and ties).
        Others: as :class:`PrivateSelector`.
    """

    name: ClassVar[str] = "invisibleink"
    uses_public = True

    def __init__(self, vocab_size: int, *, clip: float, temperature: float, random: RandomSource | Sequence[RandomSource],
                 accountants: Sequence[ZCDPAccountant] = (), public_scale: float = 1.0,
                 top_k: int | None = None, top_k_margin: float = 0.0, no_repeat_ngram: int = 0):
        super().__init__(vocab_size, clip=clip, temperature=temperature, random=random, accountants=accountants,
                         top_k=top_k, top_k_margin=top_k_margin, no_repeat_ngram=no_repeat_ngram)
        self.public_scale = check_real("public_scale", public_scale, at_least=0.0)

    def scores(self, logits, layout, banned=None):
        vocab = self.vocab_size
        dev = logits.device
        n = layout.n_groups
        z = torch.zeros((n, vocab), dtype=torch.float32, device=dev)
        real = logits[:, :vocab]  # data-independent mask: padding columns of the output layer
        groups, rows = layout.public_rows()
        groups, rows = groups.to(dev), rows.to(dev)
        pub = torch.log_softmax(real.index_select(0, rows).float(), dim=-1)  # [groups with a public row, vocab]
        pub_of = torch.full((n,), -1, dtype=torch.long, device=dev)
        pub_of[groups] = torch.arange(groups.numel(), device=dev)
        group = layout.group.to(dev)
        private = torch.nonzero(~layout.public).flatten().to(dev)
        if private.numel() and bool((pub_of[group[private]] < 0).any()):
            raise ConfigError("internal: the invisibleink decoding needs a public row in every group with members.")
        for i in range(0, private.numel(), _CLIP_ROWS):
            idx = private[i : i + _CLIP_ROWS]
            own = torch.log_softmax(real.index_select(0, idx).float(), dim=-1)
            diff = clip_logit_differences(own, pub.index_select(0, pub_of[group[idx]]), self.clip)
            z.index_add_(0, group[idx], _weighted(diff, layout, idx))
        if groups.numel():
            z.index_add_(0, groups, pub * self.public_scale)
            self._restrict(z, groups, pub, banned)
        return z.cpu()

    def describe(self):
        out = {"decoding": self.name, "clip": self.clip, "temperature": self.temperature,
               "public_scale": self.public_scale, "top_k": self.top_k, "top_k_margin": self.top_k_margin}
        if self.no_repeat_ngram:
            out["no_repeat_ngram"] = self.no_repeat_ngram
        return out


def make_private_selector(
    decoding: str,
    vocab_size: int,
    *,
    clip: float,
    temperature: float,
    random: RandomSource | Sequence[RandomSource],
    accountants: Sequence[ZCDPAccountant] = (),
    public_weight: float | None = None,
    public_scale: float = 1.0,
    top_k: int | None = None,
    top_k_margin: float = 0.0,
    no_repeat_ngram: int = 0,
) -> PrivateSelector:
    """The private selector of a decoding variant.

    Args:
        decoding: ``"paper"``, ``"public-prior"`` or ``"invisibleink"``.
        public_weight: ω of "paper" (default 0) or "public-prior" (default 1); not used by "invisibleink".
        public_scale: λ of "invisibleink" only.
        top_k, top_k_margin: the top-k⁺ candidate set of any variant that runs a public prompt.
        no_repeat_ngram: N of the no-repeat n-gram constraint (0: off), any variant.
        Others: as :class:`PrivateSelector`.

    Raises:
        ConfigError: an unknown variant, a parameter of another variant, or a bad value.
    """
    common = dict(clip=clip, temperature=temperature, random=random, accountants=accountants, top_k=top_k,
                  top_k_margin=top_k_margin, no_repeat_ngram=no_repeat_ngram)
    if decoding in ("paper", "public-prior"):
        if public_scale != 1.0:
            raise ConfigError(f"lambda (invisibleink) does not apply to the {decoding!r} decoding.")
        cls = PaperSelector if decoding == "paper" else PublicPriorSelector
        return cls(vocab_size, **common, **({} if public_weight is None else {"public_weight": public_weight}))
    if decoding == "invisibleink":
        if public_weight is not None and public_weight != 0:
            raise ConfigError("`public_weight` (omega) does not apply to the invisibleink decoding; its public weight is lambda.")
        return InvisibleInkSelector(vocab_size, **common, public_scale=public_scale)
    raise ConfigError(f"`decoding` must be one of {', '.join(DECODINGS)}. Found {decoding!r}.")


# ----------------------------------------------------------------------------------------------
# Sparse-vector decoding
# ----------------------------------------------------------------------------------------------


class SparseVectorSelector(Selector):
    """Sparse-vector decoding: tokens that the public prompt predicts are free; only the others are
    drawn (and paid) by a private selector (Amin et al. 2024, "Private prediction for large-scale
    synthetic text generation", arXiv 2407.12108, §3.3; the sparse vector technique of Dwork & Roth
    2014, Alg. 1, in the form of Lyu, Su & Li 2017, Alg. 1 with c = 1).

    Each step t of a live group (one text), with l_pub its public row's logits and l_d its members':

    1. v_pub = argmax of l_pub over the real vocabulary minus the no-repeat n-gram mask (public).
    2. Each member row d of weight w_d (identical members) gives a_d = clamp((max_v l_d[v] − l_d[v_pub]) / g,
       0, 1) over the same allowed tokens, rounded down to a multiple of 1/q; the query is
       Q_t = Σ_d w_d (a_d − β), computed in grid steps, an integer (q·Q_t).
    3. AboveThreshold: at the start of each run (the first step, and the step after each paid token)
       the group's accountant is charged the run's :class:`~dpsynrag.privacy.events.SparseVectorEvent`
       and a noisy threshold T̂ = Lap_Z(qΔ/ε1) is drawn; each step draws ν_t = Lap_Z(2qΔ/ε2) (exact
       discrete Laplace, :meth:`~dpsynrag.rng.RandomSource.discrete_laplace`). If q·Q_t + ν_t >= T̂ the
       step is PAID: the token is the base selector's exponential-mechanism draw over z (charged
       PrivatePredictionTokenEvent(c, τ) before drawing,
       :func:`~dpsynrag.privacy.mechanisms.sample_private_tokens`), and the run ends.
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
            gap = top.double().cpu() - at_pub.double().cpu()  # >= 0 (v_pub is an allowed token)
            a = torch.clamp(gap / self.run.gap, 0.0, 1.0)
            steps = torch.floor(a * self.run.grid).long().cpu()  # a_d rounded down to the grid: 0..q
            weight = (torch.ones(private.numel(), dtype=torch.long) if layout.weight is None
                      else torch.round(layout.weight[private]).long())
            query.index_add_(0, g, weight * (steps - self.run.beta_steps))
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
