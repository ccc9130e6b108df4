"""The private-prediction decoder of DP-SynRAG (METHOD.md §2d; DP-SynRAG §3.3 and App. B; clipping
from Grislain, "RAG with Differential Privacy", arXiv 2412.19291).

For a cluster S_r of member prompts and a shared suffix y (empty at first), each step n = 1..T

    z = Σ_{d ∈ S_r} clip_c(l_d(y))  (+ ω · log_softmax(l_pub(y)))     # float32, [vocab]
    y_n ~ softmax(z / τ)                                              # charged (c/τ)²/2 zCDP

where l_d(y) are the next-token logits of the model on d's prompt followed by y, restricted to the
tokenizer's vocabulary (padding columns of the output layer are sliced off before clipping — a
data-independent mask), and clip_c is :func:`~dpsynrag.privacy.prediction.clip_logits`. Sampling and
charging go through :func:`~dpsynrag.privacy.prediction.sample_private_tokens`. That is the
``"paper"`` decoding; ``"public-prior"`` and ``"invisibleink"`` change how z is formed, at the same
per-token cost (:mod:`dpsynrag.models.decoding`, whose loop this decoder runs).

Each cluster pays exactly T tokens: a cluster whose text ended at EOS is still charged (and its
draws discarded) until step T, and an empty cluster samples from z = 0 (uniform over the real
vocabulary, or the public term) without any model call. Neither a cluster's size nor its finishing
time changes what is charged.

Slot-template decoding (``response_template``, :class:`~dpsynrag.models.template_selector.TemplateSelector`):
a public skeleton with slots; its literal tokens are written for free and only the slots' tokens are
drawn and charged, at most T per text ((c/τ)²/2 each; a text that ends early pays less).

Sparse-vector decoding (``svt_max_paid`` = C, :class:`~dpsynrag.models.svt_selector.SparseVectorSelector`):
a token that the public prompt predicts and the members do not contest is free; the others are drawn
as above, at most C per text (then the text ends). A text pays at most C AboveThreshold runs and C
tokens, C · ((ε1 + ε2)²/2 + (c/τ)²/2) zCDP; one that ends early pays less.

Speed (the build's bottleneck): clusters are batched together up to a memory budget; the public
prompt prefix (chat template + instruction, ``prompt_prefix``) is computed once; a document that sits
in several clusters of a batch is prefilled once and its keys/values shared by its rows; a decode
step runs forwards of a fixed number of rows (:mod:`dpsynrag.models.engine`). Batching never changes
a member's logits: the engine is batch-invariant.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import torch

from dpsynrag.checks import check_real
from dpsynrag.errors import ConfigError, DataError
from dpsynrag.models.decoding import RowLayout, decode
from dpsynrag.models.engine import GROUP_ROWS, RowBatch
from dpsynrag.models.lm import LanguageModel
from dpsynrag.models.private_selectors import PrivateSelector, make_private_selector
from dpsynrag.models.svt_selector import SparseVectorSelector
from dpsynrag.models.template_selector import ResponseTemplate, TemplateSelector
from dpsynrag.privacy.accountant import ZCDPAccountant
from dpsynrag.privacy.events import SparseVectorEvent
from dpsynrag.rng import RandomSource

def _progress_bar(total: int, enabled: bool, desc: str):
    if not enabled:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:  # pragma: no cover
        return None
    return tqdm(total=total, desc=desc)


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
            (:func:`~dpsynrag.models.private_selectors.make_private_selector`).
        public_scale: λ >= 0 of "invisibleink" (default 1).
        top_k, top_k_margin: the top-k⁺ candidate set, from the public prompt's logits (default: none;
            any variant that runs a public prompt).
        no_repeat_ngram: N >= 0 of the no-repeat n-gram constraint (0, the default: off): a token that
            would complete an n-gram of length N already in the text is never drawn (free: a function
            of released tokens; :func:`~dpsynrag.models.decoding.no_repeat_ngram_mask`).
        svt_max_paid: C >= 1, sparse-vector decoding with at most C paid tokens per text (None, the
            default: off). Needs a variant that runs a public prompt, and ``svt_run``.
        svt_run: the :class:`~dpsynrag.privacy.events.SparseVectorEvent` (ε1, ε2, β, g, q) of each
            AboveThreshold run (with ``svt_max_paid`` only).
        response_template: slot-template decoding (None, the default: off): public text with ``{}`` /
            ``{N}`` slots (:mod:`dpsynrag.models.template_selector`). Its literal text is written for free;
            only the slots' tokens are drawn and charged, at most T per text, so a text holds at most
            T + the template's literal tokens (``steps``). Not with ``svt_max_paid``.
        memory_budget_gb: about how much memory (GB) the keys/values and logits of one batch of
            clusters may take. A cluster bigger than the budget runs alone, whole.
        prompt_prefix: token ids of the *public* part the member prompts start with (template and
            instruction, :meth:`~dpsynrag.models.lm.LanguageModel.public_prefix`), computed once and
            reused; None: none. Each member's logits are a function of its own prompt and the suffix
            alone, whatever shares its batch (:mod:`dpsynrag.models.engine`).
        rows_per_group: query slots per stored prompt of the shared engine, a *public* constant (never
            derived from the clusters): e.g. ``min(L, GROUP_ROWS)`` in a build, L being the most
            clusters a document can be in. A prompt continued by more rows is stored once per group
            of that many; with L = 1 one slot avoids computing attention for three empty ones.
            Speed and memory only: the same law for every value (the last bits of a logit may
            differ between values; for a given value they never depend on batch-mates). None:
            ``GROUP_ROWS`` (4).
        step_rows: rows of every decode forward, a *public* constant (e.g.
            ``default_step_rows(device, expected_rows=R * k)`` in a build); None: the engine's default
            (:func:`~dpsynrag.models.engine.default_step_rows`). Speed only, as ``rows_per_group``.

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
        no_repeat_ngram: int = 0,
        svt_max_paid: int | None = None,
        svt_run: SparseVectorEvent | None = None,
        response_template: str | None = None,
        memory_budget_gb: float = 2.0,
        prompt_prefix: Sequence[int] | None = None,
        rows_per_group: int | None = None,
        step_rows: int | None = None,
    ):
        if not isinstance(lm, LanguageModel):
            raise ConfigError(f"`lm` must be a dpsynrag LanguageModel. Found {type(lm).__name__}.")
        self.lm = lm
        self.clip = check_real("clip", clip, above=0.0)
        self.temperature = check_real("temperature", temperature, above=0.0)
        if isinstance(max_new_tokens, bool) or not isinstance(max_new_tokens, (int, np.integer)) or max_new_tokens < 1:
            raise ConfigError(f"`max_new_tokens` (T) must be an integer >= 1. Found {max_new_tokens!r}.")
        self.max_new_tokens = int(max_new_tokens)
        if not isinstance(random, RandomSource):
            raise ConfigError(f"`random` must be a dpsynrag.rng.RandomSource. Found {type(random).__name__}.")
        self.random = random
        self._selector_args = dict(
            decoding=decoding, public_weight=public_weight, public_scale=public_scale, top_k=top_k,
            top_k_margin=top_k_margin, no_repeat_ngram=no_repeat_ngram,
        )
        if (svt_max_paid is None) != (svt_run is None):
            raise ConfigError("sparse-vector decoding needs both `svt_max_paid` (C) and `svt_run` (its "
                              "SparseVectorEvent), or neither.")
        if svt_max_paid is not None and (isinstance(svt_max_paid, bool) or not isinstance(svt_max_paid, (int, np.integer))
                                         or not 1 <= svt_max_paid <= self.max_new_tokens):
            raise ConfigError(f"`svt_max_paid` (C, paid tokens per text) must be an integer in 1..T "
                              f"({self.max_new_tokens}). Found {svt_max_paid!r}.")
        self.svt_max_paid = None if svt_max_paid is None else int(svt_max_paid)
        self.svt_run = svt_run
        self.template = None
        if response_template is not None:
            if self.svt_max_paid is not None:
                raise ConfigError("`response_template` and sparse-vector decoding (`svt_max_paid`) both decide which "
                                  "tokens are free: use one of them.")
            self.template = ResponseTemplate.build(response_template, lm.tokenizer, vocab_size=lm.vocab_size,
                                                   eos=lm.eos_token_ids)
        # the most tokens a text can hold: T drawn, plus the template's literal tokens (public)
        self.steps = self.max_new_tokens + (0 if self.template is None else self.template.free_tokens)
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
        self.memory_budget_gb = check_real("memory_budget_gb", memory_budget_gb, above=0.0)
        self.prompt_prefix = [int(t) for t in prompt_prefix] if prompt_prefix else None
        for name, value in (("rows_per_group", rows_per_group), ("step_rows", step_rows)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1):
                raise ConfigError(f"`{name}` must be an integer >= 1 or None. Found {value!r}.")
        self.rows_per_group = GROUP_ROWS if rows_per_group is None else int(rows_per_group)
        self.step_rows = None if step_rows is None else int(step_rows)

    # -- public API --------------------------------------------------------------------------------

    def generate(self, clusters: Sequence[Sequence[str]], accountants: Sequence[ZCDPAccountant],
                 **options: Any) -> list[str]:
        """One synthetic text per cluster (METHOD.md §2d): :meth:`generate_ids` (the arguments, the
        keyword ``options`` ``progress``, ``streams``, ``public_prompts``, and the errors), decoded.

        Returns:
            ``len(clusters)`` texts (the sampled tokens up to the first EOS, special tokens removed).
        """
        ids = self.generate_ids(clusters, accountants, **options)
        return [self.lm.tokenizer.decode(t, skip_special_tokens=True) for t in ids]

    def generate_ids(
        self,
        clusters: Sequence[Sequence[str]],
        accountants: Sequence[ZCDPAccountant],
        *,
        progress: bool = False,
        streams: Sequence[RandomSource] | None = None,
        public_prompts: Sequence[str] | None = None,
        on_step: Callable[[int], object] | None = None,
        on_prefill: Callable[[int, int], object] | None = None,
    ) -> list[list[int]]:
        """One synthetic text per cluster (METHOD.md §2d), as token ids (:meth:`generate` decodes them).

        Args:
            clusters: ``clusters[r]`` = the rendered member prompts of cluster r (may be empty; one
                entry per member — the same prompt may appear in several clusters).
            accountants: ``accountants[r]`` = cluster r's branch accountant; charged T
                PrivatePredictionTokenEvent(c, τ) — (c/τ)²/2 zCDP each — whatever the cluster's
                size or when its text ends; with sparse-vector decoding, one SparseVectorEvent per
                AboveThreshold run and one PrivatePredictionTokenEvent per paid token, at most C each;
                with a response template, one PrivatePredictionTokenEvent per token drawn in a slot, at most T.
            progress: show a progress bar over batches of clusters.
            streams: ``streams[r]`` = cluster r's own sampling randomness (e.g.
                ``random.child(f"cluster-{r}")``): one uniform per drawn token, so a cluster's text does not
                depend on how clusters are batched or spread over processes. None: every draw from
                ``random``, in batch order.
            public_prompts: ``public_prompts[r]`` = cluster r's own rendered public prompt, replacing
                the decoder's ``public_prompt`` for that cluster (e.g. the instruction with the
                cluster's *released* keyword). Public values only: it must not be derived from any
                document, only from public constants and released outputs. Needs a variant that
                uses a public prompt. None: the decoder's ``public_prompt`` for every cluster.
            on_step: called after every decoding step of a batch of clusters with the number of texts
                in that batch (each advanced by one of its at most :attr:`steps` tokens): a progress
                display counting tokens, ``len(clusters) · steps`` in all when no text ends early (a
                batch whose texts all ended stops calling it).
            on_prefill: called as ``on_prefill(done, total)`` after each prompt forward of a batch's
                prefill (:class:`~dpsynrag.models.engine.RowBatch`), before its first step.

        Returns:
            ``len(clusters)`` lists of sampled token ids, up to the first EOS (excluded).

        Raises:
            DataError: no clusters, a member that is not a non-empty string, a prompt too long.
            ConfigError: ``accountants`` (or ``streams``) not one per cluster.
            PrivacyBudgetExceededError: an accountant cannot pay a step (raised before that draw).
        """
        prompts, members, public_of = self._encode(clusters, public_prompts)
        if len(accountants) != len(clusters):
            raise ConfigError(
                f"need one accountant per cluster: {len(clusters)} clusters, {len(accountants)} accountants."
            )
        for i, acc in enumerate(accountants):
            if not isinstance(acc, ZCDPAccountant):
                raise ConfigError(f"accountants[{i}] must be a ZCDPAccountant. Found {type(acc).__name__}.")
        if streams is not None and (len(streams) != len(clusters)
                                    or not all(isinstance(s, RandomSource) for s in streams)):
            raise ConfigError(f"`streams` must hold one RandomSource per cluster ({len(clusters)} clusters).")
        out: list[list[int]] = [[] for _ in clusters]
        plan = self._plan(prompts, members, public_of)
        bar = _progress_bar(len(plan) * self.steps, progress, "private prediction (batch x token)")
        try:
            for batch in plan:
                def step(n=len(batch)):
                    if bar is not None:
                        bar.update(1)
                    if on_step is not None:
                        on_step(n)

                toks = self._decode_batch(prompts, [members[r] for r in batch], [public_of[r] for r in batch],
                                          [accountants[r] for r in batch], step,
                                          None if streams is None else [streams[r] for r in batch], on_prefill)
                for r, t in zip(batch, toks):
                    out[r] = t
        finally:
            if bar is not None:
                bar.close()
        return out

    def aggregated_logits(
        self, clusters: Sequence[Sequence[str]], suffix: Sequence[int] = (), public_prompts: Sequence[str] | None = None
    ) -> torch.Tensor:
        """The aggregated scores z of each cluster after a given shared suffix — **not private**.

        z_r of the decoding variant (:meth:`~dpsynrag.models.private_selectors.PrivateSelector.scores`; for
        "paper": Σ_{d ∈ cluster r} clip_c(l_d(suffix)) + ω · log_softmax(l_pub(suffix))); the next
        token of :meth:`generate` is drawn from softmax(z / τ). For tests and diagnostics only: z is raw
        private data, nothing is charged and nothing may be released from it.

        Args:
            clusters: as in :meth:`generate`, all in one batch.
            suffix: token ids appended to every prompt (the text generated so far).
            public_prompts: as in :meth:`generate`.

        Returns:
            FloatTensor ``[len(clusters), lm.vocab_size]``, float32, on CPU.
        """
        prompts, members, public_of = self._encode(clusters, public_prompts)
        suffix = [int(t) for t in suffix]
        rows = self._rows(members, public_of)
        z = torch.zeros((len(clusters), self.lm.vocab_size), dtype=torch.float32)
        if not rows[0]:
            return z
        row_prompt, row_cluster, row_public, row_weight = rows
        batch = RowBatch(self.lm.runner, *self._distinct(prompts, row_prompt), max_new_tokens=len(suffix),
                         public_prefix=self.prompt_prefix, rows_per_group=self.rows_per_group,
                         step_rows=self.step_rows)
        logits = batch.first_logits
        for tok in suffix:
            logits = batch.step(torch.full((len(row_prompt),), tok, dtype=torch.long))
        return self.selector.scores(logits, RowLayout.build(row_cluster, row_public, len(clusters), row_weight))

    # -- internals ---------------------------------------------------------------------------------

    def _encode(self, clusters, public_prompts=None) -> tuple[list[list[int]], list[list[int]], list[int | None]]:
        """Distinct prompts as token ids, each cluster's members as indices into them, and each
        cluster's public prompt index (None when the variant runs no public prompt)."""
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
        public_of: list[int | None] = [None] * len(clusters)
        if public_prompts is not None:
            if self.public_prompt is None:
                raise ConfigError(f"`public_prompts` need a decoding that uses a public prompt; {self.decoding!r} runs none.")
            if isinstance(public_prompts, (str, bytes)) or not isinstance(public_prompts, Sequence) or len(
                public_prompts
            ) != len(clusters) or not all(isinstance(p, str) and p for p in public_prompts):
                raise ConfigError(f"`public_prompts` must hold one non-empty rendered prompt per cluster ({len(clusters)}).")
        if self.public_prompt is not None:
            public_index: dict[str, int] = {}
            for r in range(len(clusters)):
                p = self.public_prompt if public_prompts is None else public_prompts[r]
                if p not in public_index:
                    public_index[p] = len(texts)
                    texts.append(p)
                public_of[r] = public_index[p]
        prompts = self.lm.encode_prompts(texts, self.steps)
        return prompts, members, public_of

    def _rows(self, members: list[list[int]], public_of: list[int | None]):
        """Rows of a batch: (prompt index, cluster position, is_public, weight) per row.

        The members of a cluster whose prompts are identical are one row whose weight is their number:
        the engine computes a prompt's logits from the prompt alone, so their clipped logits are equal
        and z = Σ_members clip(l_d) = Σ_rows weight · clip(l_row) (:class:`RowLayout`)."""
        row_prompt: list[int] = []
        row_cluster: list[int] = []
        row_public: list[bool] = []
        row_weight: list[int] = []
        for c, m in enumerate(members):
            count: dict[int, int] = {}
            for p in m:
                count[p] = count.get(p, 0) + 1
            for p, n in count.items():
                row_prompt.append(p)
                row_cluster.append(c)
                row_public.append(False)
                row_weight.append(n)
            if public_of[c] is not None:
                row_prompt.append(public_of[c])
                row_cluster.append(c)
                row_public.append(True)
                row_weight.append(1)
        return row_prompt, row_cluster, row_public, row_weight

    @staticmethod
    def _distinct(prompts: list[list[int]], row_prompt: list[int]):
        """The prompts a batch uses (each once) and each row's index into them."""
        local: dict[int, int] = {}
        used: list[list[int]] = []
        src = []
        for p in row_prompt:
            if p not in local:
                local[p] = len(used)
                used.append(prompts[p])
            src.append(local[p])
        return used, src

    def _plan(self, prompts: list[list[int]], members: list[list[int]], public_of: list[int | None]) -> list[list[int]]:
        """Contiguous batches of cluster indices whose estimated memory fits the budget.

        Estimate: keys/values of the batch's stored prompts (with the shared engine, once per
        ``rows_per_group`` rows of a prompt; once per row otherwise) and of every row's T generated
        tokens, plus the float32 logits and aggregation temporaries of every row. The plan depends
        only on the clusters' sizes and prompt lengths, and never drops or splits a cluster.
        """
        budget = self.memory_budget_gb * 2**30
        kvb = self.lm.kv_bytes_per_token()
        width = max((len(p) for p in prompts), default=0)
        shared = self.lm.runner.mode == "shared"
        per_row = (self.steps + (0 if shared else width)) * kvb + 3 * 4 * self.lm.model_vocab_size
        per_prompt = width * kvb if shared else 0
        g = self.rows_per_group
        batches: list[list[int]] = []
        cur: list[int] = []
        rows_of: dict[int, int] = {}  # rows of each prompt in the current batch
        cost = 0.0

        def stores(rows: list[int], have: dict[int, int]) -> int:  # prompt copies the rows add
            seen = dict.fromkeys(rows, 0)
            for p in rows:
                seen[p] += 1
            return sum(-(-(have.get(p, 0) + k) // g) - -(-have.get(p, 0) // g) for p, k in seen.items())

        for r, m in enumerate(members):
            rows = list(dict.fromkeys(m)) + ([] if public_of[r] is None else [public_of[r]])  # identical prompts: one row
            add = stores(rows, rows_of) * per_prompt + len(rows) * per_row
            if cur and cost + add > budget:
                batches.append(cur)
                cur, rows_of, cost = [], {}, 0.0
                add = stores(rows, rows_of) * per_prompt + len(rows) * per_row
            cur.append(r)
            for p in rows:
                rows_of[p] = rows_of.get(p, 0) + 1
            cost += add
        if cur:
            batches.append(cur)
        return batches

    def _selector(self, accountants: Sequence[ZCDPAccountant], streams=None) -> PrivateSelector | SparseVectorSelector:
        base = make_private_selector(
            vocab_size=self.lm.vocab_size, clip=self.clip, temperature=self.temperature,
            random=self.random if streams is None else streams, accountants=accountants, **self._selector_args,
        )
        if self.template is not None:
            return TemplateSelector(base, self.template, max_paid=self.max_new_tokens)
        if self.svt_max_paid is None:
            return base
        return SparseVectorSelector(base, max_paid=self.svt_max_paid, run=self.svt_run)

    def _decode_batch(self, prompts, members, public_of, accountants, on_step=None, streams=None,
                      on_prefill=None) -> list[list[int]]:
        T = self.steps
        row_prompt, row_cluster, row_public, row_weight = self._rows(members, public_of)
        batch = None
        if row_prompt:
            used, src = self._distinct(prompts, row_prompt)
            batch = RowBatch(self.lm.runner, used, src, max_new_tokens=T - 1, public_prefix=self.prompt_prefix,
                             rows_per_group=self.rows_per_group, step_rows=self.step_rows, on_prefill=on_prefill)
        return decode(
            batch, RowLayout.build(row_cluster, row_public, len(members), row_weight), self._selector(accountants, streams),
            steps=T, eos=self.lm.eos_token_ids, on_step=on_step,
        )
