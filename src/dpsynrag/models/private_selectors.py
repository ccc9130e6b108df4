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

:class:`~dpsynrag.models.svt_selector.SparseVectorSelector` wraps any of them that runs a public prompt:
a token the public prompt predicts and the members do not contest is free (the sparse vector technique;
Amin et al. 2024, arXiv 2407.12108), and only the others are drawn and charged, at most C per text, each
after one AboveThreshold run (SparseVectorEvent, (ε1 + ε2)²/2 zCDP). Every selector can also ban the
tokens that would repeat an n-gram of the released text (``no_repeat_ngram``; public, free).
:class:`~dpsynrag.models.template_selector.TemplateSelector` wraps any of them to write a public response
template's literal tokens for free and draw (and charge) only its slots' tokens, at most T per text.

Floating point: each member's term lies in [−c, c] exactly (c rounded down to float32), but z is
accumulated in float32, so a coordinate may move by c plus the rounding of the sums (at most
γ_n · Σ|terms|, γ_n ≈ n · 2⁻²⁴ for n terms; tests/test_decoding.py checks exactly that bound). Like
every floating-point implementation of the exponential mechanism, the accounting does not cover
that rounding. The sums are taken in a fixed order (each group's rows one at a time, in row order:
:func:`~dpsynrag.models.reduction.ordered_group_sum_`, no atomics), so z is bitwise the same on CPU and
CUDA whatever other clusters share the batch.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import numpy as np
import torch

from dpsynrag.checks import check_int, check_real
from dpsynrag.errors import ConfigError
from dpsynrag.models.decoding import RowLayout, Selector, no_repeat_ngram_mask
from dpsynrag.models.reduction import ordered_group_sum_
from dpsynrag.privacy.accountant import ZCDPAccountant
from dpsynrag.privacy.prediction import clip_logit_differences, clip_logits, sample_private_tokens
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

    The draw goes through :func:`~dpsynrag.privacy.prediction.sample_private_tokens`, which charges
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
                      texts: Sequence[Sequence[int]] | None = None,
                      extra_banned: torch.Tensor | None = None) -> torch.Tensor:
        """:meth:`scores` (zeros when ``logits`` is None) with the no-repeat n-gram mask of ``texts`` and
        ``extra_banned`` (a public BoolTensor ``[n_groups, vocab_size]``, e.g. a template slot's tokens)
        applied: z = −inf on banned tokens, and the top-k⁺ set taken among the allowed ones. **Not
        private**, as :meth:`scores`."""
        banned = self.banned(texts, layout.n_groups)
        if extra_banned is not None:
            banned = extra_banned if banned is None else banned | extra_banned
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
    :func:`~dpsynrag.privacy.prediction.clip_logits` (Grislain's centred exp-logits, every coordinate
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
            ordered_group_sum_(z, group[idx], _weighted(clip_logits(real.index_select(0, idx), self.clip), layout, idx))
        if self.uses_public:
            groups, rows = layout.public_rows()
            if rows.numel():
                groups = groups.to(dev)
                pub = torch.log_softmax(real.index_select(0, rows.to(dev)).float(), dim=-1)
                ordered_group_sum_(z, groups, pub * self.public_weight)
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
    clip(p_d − p_pub, −c, c) ∈ [−c, c]^V (:func:`~dpsynrag.privacy.prediction.clip_logit_differences`,
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
            ordered_group_sum_(z, group[idx], _weighted(diff, layout, idx))
        if groups.numel():
            ordered_group_sum_(z, groups, pub * self.public_scale)
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
