"""The private-prediction decoder of DP-SynRAG (METHOD.md §2d; DP-SynRAG §3.3 and App. B; clipping
from Grislain, "RAG with Differential Privacy", arXiv 2412.19291).

For a cluster S_r of member prompts and a shared suffix y (empty at first), each step n = 1..T

    z = Σ_{d ∈ S_r} clip_c(l_d(y))  (+ ω · log_softmax(l_pub(y)))     # float32, [vocab]
    y_n ~ softmax(z / τ)                                              # charged (c/τ)²/2 zCDP

where l_d(y) are the next-token logits of the model on d's prompt followed by y, restricted to the
tokenizer's vocabulary (padding columns of the output layer are sliced off before clipping — a
data-independent mask), and clip_c is :func:`~dpsynrag.privacy.mechanisms.clip_logits`. Sampling and
charging go through :func:`~dpsynrag.privacy.mechanisms.sample_private_tokens`. That is the
``"paper"`` decoding; ``"public-prior"`` and ``"invisibleink"`` change how z is formed, at the same
per-token cost (:mod:`dpsynrag.models.decoding`, whose loop this decoder runs).

Each cluster pays exactly T tokens: a cluster whose text ended at EOS is still charged (and its
draws discarded) until step T, and an empty cluster samples from z = 0 (uniform over the real
vocabulary, or the public term) without any model call. Neither a cluster's size nor its finishing
time changes what is charged.

Speed (the build's bottleneck): clusters are batched together up to a memory budget; the public
prompt prefix (chat template + instruction, ``prompt_prefix``) is computed once; a document that sits
in several clusters of a batch is prefilled once and its keys/values shared by its rows; a decode
step runs forwards of a fixed number of rows (:mod:`dpsynrag.models._engine`). Batching never changes
a member's logits: the engine is batch-invariant.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import torch

from dpsynrag.errors import ConfigError, DataError
from dpsynrag.models._engine import RowBatch
from dpsynrag.models.decoding import PrivateSelector, RowLayout, decode, make_private_selector
from dpsynrag.models.lm import LanguageModel
from dpsynrag.privacy.accountant import ZCDPAccountant
from dpsynrag.rng import RandomSource

def _progress_bar(total: int, enabled: bool, desc: str):
    if not enabled:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:  # pragma: no cover
        return None
    return tqdm(total=total, desc=desc)


def _check_finite_positive(name: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating)) or not (value > 0) or math.isinf(value):
        raise ConfigError(f"`{name}` must be a finite number > 0. Found {value!r}.")
    return float(value)


class PrivatePredictionDecoder:
    """Synthetic texts by private prediction over clusters of member prompts (METHOD.md §2d).

    Args:
        lm: the language model.
        clip: c > 0, the clipping bound of each member's centred logits (sensitivity of z per coordinate).
        temperature: τ > 0; tokens are drawn from softmax(z / τ).
        max_new_tokens: T >= 1, the tokens charged (and at most generated) per cluster.
        random: randomness of the token draws (a :class:`~dpsynrag.rng.SecureRandom` for release).
        public_prompt: rendered prompt with no private document, continued by the same suffix as the
            members (data-independent: costs nothing). "paper" adds ω times its log-softmax scores
            to z when ω > 0; "public-prior" and "invisibleink" need it.
        public_weight: ω >= 0 of "paper" (default 0: no public term; the public prompt is then not
            run) or ω > 0 of "public-prior" (default 1).
        decoding: the variant, "paper" (default), "public-prior" or "invisibleink"
            (:func:`~dpsynrag.models.decoding.make_private_selector`).
        public_scale: λ >= 0 of "invisibleink" (default 1).
        top_k, top_k_margin: the top-k⁺ candidate set of "invisibleink" (default: none).
        memory_budget_gb: about how much memory (GB) the keys/values and logits of one batch of
            clusters may take. A cluster bigger than the budget runs alone, whole.
        prompt_prefix: token ids of the *public* part the member prompts start with (template and
            instruction, :meth:`~dpsynrag.models.lm.LanguageModel.public_prefix`), computed once and
            reused; None: none. Each member's logits are a function of its own prompt and the suffix
            alone, whatever shares its batch (:mod:`dpsynrag.models._engine`).

    Raises:
        ConfigError: on a bad parameter (name, rule and value in the message).
    """

    def __init__(
        self,
        lm: LanguageModel,
        *,
        clip: float,
        temperature: float,
        max_new_tokens: int,
        random: RandomSource,
        public_prompt: str | None = None,
        public_weight: float | None = None,
        decoding: str = "paper",
        public_scale: float = 1.0,
        top_k: int | None = None,
        top_k_margin: float = 0.0,
        memory_budget_gb: float = 2.0,
        prompt_prefix: Sequence[int] | None = None,
    ):
        if not isinstance(lm, LanguageModel):
            raise ConfigError(f"`lm` must be a dpsynrag LanguageModel. Found {type(lm).__name__}.")
        self.lm = lm
        self.clip = _check_finite_positive("clip", clip)
        self.temperature = _check_finite_positive("temperature", temperature)
        if isinstance(max_new_tokens, bool) or not isinstance(max_new_tokens, (int, np.integer)) or max_new_tokens < 1:
            raise ConfigError(f"`max_new_tokens` (T) must be an integer >= 1. Found {max_new_tokens!r}.")
        self.max_new_tokens = int(max_new_tokens)
        if not isinstance(random, RandomSource):
            raise ConfigError(f"`random` must be a dpsynrag.rng.RandomSource. Found {type(random).__name__}.")
        self.random = random
        self._selector_args = dict(
            decoding=decoding, public_weight=public_weight, public_scale=public_scale, top_k=top_k,
            top_k_margin=top_k_margin,
        )
        self.selector = self._selector(())  # validates the variant's parameters
        self.decoding = self.selector.name
        if public_prompt is not None and (not isinstance(public_prompt, str) or not public_prompt):
            raise ConfigError(f"`public_prompt` must be a non-empty rendered prompt or None. Found {public_prompt!r}.")
        if self.selector.uses_public and public_prompt is None:
            raise ConfigError(
                f"the {self.decoding!r} decoding (`public_weight` {public_weight}) needs a public prompt, but no "
                "`public_prompt` was given."
            )
        self.public_prompt = public_prompt if self.selector.uses_public else None
        self.memory_budget_gb = _check_finite_positive("memory_budget_gb", memory_budget_gb)
        self.prompt_prefix = [int(t) for t in prompt_prefix] if prompt_prefix else None

    # -- public API --------------------------------------------------------------------------------

    def generate(
        self,
        clusters: Sequence[Sequence[str]],
        accountants: Sequence[ZCDPAccountant],
        *,
        progress: bool = False,
    ) -> list[str]:
        """One synthetic text per cluster (METHOD.md §2d).

        Args:
            clusters: ``clusters[r]`` = the rendered member prompts of cluster r (may be empty; one
                entry per member — the same prompt may appear in several clusters).
            accountants: ``accountants[r]`` = cluster r's branch accountant; charged T
                PrivatePredictionTokenEvent(c, τ) — (c/τ)²/2 zCDP each — whatever the cluster's
                size or when its text ends.
            progress: show a progress bar over batches of clusters.

        Returns:
            ``len(clusters)`` texts (the sampled tokens up to the first EOS, special tokens removed).

        Raises:
            DataError: no clusters, a member that is not a non-empty string, a prompt too long.
            ConfigError: ``accountants`` not one per cluster.
            PrivacyBudgetExceededError: an accountant cannot pay a step (raised before that draw).
        """
        ids = self.generate_ids(clusters, accountants, progress=progress)
        return [self.lm.tokenizer.decode(t, skip_special_tokens=True) for t in ids]

    def generate_ids(
        self,
        clusters: Sequence[Sequence[str]],
        accountants: Sequence[ZCDPAccountant],
        *,
        progress: bool = False,
    ) -> list[list[int]]:
        """As :meth:`generate`, returning token ids (EOS excluded) instead of text."""
        prompts, members = self._encode(clusters)
        if len(accountants) != len(clusters):
            raise ConfigError(
                f"need one accountant per cluster: {len(clusters)} clusters, {len(accountants)} accountants."
            )
        for i, acc in enumerate(accountants):
            if not isinstance(acc, ZCDPAccountant):
                raise ConfigError(f"accountants[{i}] must be a ZCDPAccountant. Found {type(acc).__name__}.")
        out: list[list[int]] = [[] for _ in clusters]
        plan = self._plan(prompts, members)
        bar = _progress_bar(len(plan) * self.max_new_tokens, progress, "private prediction (batch x token)")
        try:
            for batch in plan:
                toks = self._decode_batch(prompts, [members[r] for r in batch], [accountants[r] for r in batch], bar)
                for r, t in zip(batch, toks):
                    out[r] = t
        finally:
            if bar is not None:
                bar.close()
        return out

    def aggregated_logits(
        self, clusters: Sequence[Sequence[str]], suffix: Sequence[int] = ()
    ) -> torch.Tensor:
        """The aggregated scores z of each cluster after a given shared suffix — **not private**.

        z_r of the decoding variant (:meth:`~dpsynrag.models.decoding.PrivateSelector.scores`; for
        "paper": Σ_{d ∈ cluster r} clip_c(l_d(suffix)) + ω · log_softmax(l_pub(suffix))); the next
        token of :meth:`generate` is drawn from softmax(z / τ). For tests and diagnostics only: z is raw
        private data, nothing is charged and nothing may be released from it.

        Args:
            clusters: as in :meth:`generate`, all in one batch.
            suffix: token ids appended to every prompt (the text generated so far).

        Returns:
            FloatTensor ``[len(clusters), lm.vocab_size]``, float32, on CPU.
        """
        prompts, members = self._encode(clusters)
        suffix = [int(t) for t in suffix]
        rows = self._rows(members)
        z = torch.zeros((len(clusters), self.lm.vocab_size), dtype=torch.float32)
        if not rows[0]:
            return z
        row_prompt, row_cluster, row_public = rows
        batch = RowBatch(self.lm.runner, *self._distinct(prompts, row_prompt), max_new_tokens=len(suffix),
                         public_prefix=self.prompt_prefix)
        logits = batch.first_logits
        for tok in suffix:
            logits = batch.step(torch.full((len(row_prompt),), tok, dtype=torch.long))
        return self.selector.scores(logits, RowLayout.build(row_cluster, row_public, len(clusters)))

    # -- internals ---------------------------------------------------------------------------------

    def _encode(self, clusters) -> tuple[list[list[int]], list[list[int]]]:
        """Distinct prompts as token ids (the public prompt, if any, last) and each cluster's members
        as indices into them."""
        if isinstance(clusters, (str, bytes)) or not isinstance(clusters, Sequence):
            raise DataError(f"`clusters` must be a sequence of clusters (sequences of prompts). Found {type(clusters).__name__}.")
        if len(clusters) == 0:
            raise DataError("`clusters` is empty: the decoder needs at least one cluster (an empty cluster is fine).")
        index: dict[str, int] = {}
        texts: list[str] = []
        members: list[list[int]] = []
        for r, cluster in enumerate(clusters):
            if isinstance(cluster, (str, bytes)) or not isinstance(cluster, Sequence):
                raise DataError(f"clusters[{r}] must be a sequence of prompt strings. Found {type(cluster).__name__}.")
            m = []
            for j, p in enumerate(cluster):
                if not isinstance(p, str) or not p:
                    found = "an empty string" if isinstance(p, str) else type(p).__name__  # never the prompt's text
                    raise DataError(f"clusters[{r}][{j}] must be a non-empty rendered prompt. Found {found}.")
                if p not in index:
                    index[p] = len(texts)
                    texts.append(p)
                m.append(index[p])
            members.append(m)
        if self.public_prompt is not None:
            texts.append(self.public_prompt)
        prompts = self.lm._encode_prompts(texts, self.max_new_tokens)
        return prompts, members

    def _rows(self, members: list[list[int]]):
        """Rows of a batch: (prompt index, cluster position, is_public) per row."""
        row_prompt: list[int] = []
        row_cluster: list[int] = []
        row_public: list[bool] = []
        for c, m in enumerate(members):
            for p in m:
                row_prompt.append(p)
                row_cluster.append(c)
                row_public.append(False)
            if self.public_prompt is not None:
                row_prompt.append(-1)  # resolved to the last prompt by _distinct
                row_cluster.append(c)
                row_public.append(True)
        return row_prompt, row_cluster, row_public

    @staticmethod
    def _distinct(prompts: list[list[int]], row_prompt: list[int]):
        """The prompts a batch uses (each once) and each row's index into them."""
        local: dict[int, int] = {}
        used: list[list[int]] = []
        src = []
        for p in row_prompt:
            p = p if p >= 0 else len(prompts) - 1
            if p not in local:
                local[p] = len(used)
                used.append(prompts[p])
            src.append(local[p])
        return used, src

    def _plan(self, prompts: list[list[int]], members: list[list[int]]) -> list[list[int]]:
        """Contiguous batches of cluster indices whose estimated memory fits the budget.

        Estimate: keys/values of the batch's distinct prompts (once each with the shared engine,
        once per row otherwise) and of every row's T generated tokens, plus the float32 logits
        and aggregation temporaries of every row. The plan depends only on the clusters' sizes and
        prompt lengths, and never drops or splits a cluster.
        """
        budget = self.memory_budget_gb * 2**30
        kvb = self.lm.kv_bytes_per_token()
        width = max((len(p) for p in prompts), default=0)
        shared = self.lm.runner.mode == "shared"
        per_row = (self.max_new_tokens + (0 if shared else width)) * kvb + 3 * 4 * self.lm.model_vocab_size
        per_prompt = width * kvb if shared else 0
        public = [len(prompts) - 1] if self.public_prompt is not None else []
        batches: list[list[int]] = []
        cur: list[int] = []
        used: set[int] = set()
        cost = 0.0
        for r, m in enumerate(members):
            new = set(m) | set(public)
            add = len(new - used) * per_prompt + (len(m) + len(public)) * per_row
            if cur and cost + add > budget:
                batches.append(cur)
                cur, used, cost = [], set(), 0.0
                add = len(new) * per_prompt + (len(m) + len(public)) * per_row
            cur.append(r)
            used |= new
            cost += add
        if cur:
            batches.append(cur)
        return batches

    def _selector(self, accountants: Sequence[ZCDPAccountant]) -> PrivateSelector:
        return make_private_selector(
            vocab_size=self.lm.vocab_size, clip=self.clip, temperature=self.temperature, random=self.random,
            accountants=accountants, **self._selector_args,
        )

    def _decode_batch(self, prompts, members, accountants, bar=None) -> list[list[int]]:
        T = self.max_new_tokens
        row_prompt, row_cluster, row_public = self._rows(members)
        batch = None
        if row_prompt:
            used, src = self._distinct(prompts, row_prompt)
            batch = RowBatch(self.lm.runner, used, src, max_new_tokens=T - 1, public_prefix=self.prompt_prefix)
        return decode(
            batch, RowLayout.build(row_cluster, row_public, len(members)), self._selector(accountants),
            steps=T, eos=self.lm.eos_token_ids, on_step=None if bar is None else (lambda: bar.update(1)),
        )
