"""Configuration of a DP-SynRAG build (validated with pydantic; serialised into the manifest)."""

from __future__ import annotations

import re

from typing import Literal, Optional

from pydantic import Field, field_validator, model_validator

from dpsynrag.pipeline.corpus_config import GenerationConfig
from dpsynrag.pipeline.checkpoint import CHECKPOINTS_PER_STAGE
from dpsynrag.privacy.budget_split import make_split
from dpsynrag.privacy.calibration import DEFAULT_SVT_GRID, CalibratedBudget, calibrate
from dpsynrag.privacy.events import ComposedEvent


DEFAULT_MAX_GROUPS = 8
"""Default cap on the member groups of one cluster (``max_groups``)."""

DEFAULT_MAX_INDEX_COPIES = 8
"""Default cap on the index entries of one text (``max_index_copies``)."""

DEFAULT_SVT_FRACTION, DEFAULT_SVT_BETA, DEFAULT_SVT_GAP = 0.25, 0.5, 2.0
"""Defaults of sparse-vector decoding: the runs' share f of a text's token budget, the offset β and the
public gap g (nats)."""

DEFAULT_PHRASE_MAX, DEFAULT_PHRASE_N = 8, 4
"""Defaults of the phrase release: the most phrases m a member contributes, and their length n in words."""


class BuildConfig(GenerationConfig):
    """Every parameter of a build. Privacy parameters are keyword-only and validated on creation.

    Privacy (METHOD.md §3): ``epsilon`` > 0 and ``delta`` in (0, 1) are the target; ``split`` and the
    three overrides share the budget; ``conversion`` chooses the ρ → ε conversion used to calibrate.

    Stage 1 (§1): ``K`` keywords per document; ``R`` keywords released (clusters); ``L`` clusters per
    document; ``k`` >= 1 the target cluster size after outlier removal (the exponential mechanism's
    target: 0 would keep no document); ``open_vocabulary`` switches from
    the public word list (``vocabulary_size`` words) to the thresholded sparse histogram, whose δ term
    is ``open_vocabulary_delta`` (default δ/10); ``match_text`` matches keywords against the text;
    ``clustering`` is the membership rule (:func:`dpsynrag.pipeline.clustering.soft_cluster`):
    ``"paper"`` walks the released keywords least frequent first, ``"primary"`` puts a document in the
    clusters of its own first L released keywords (in the extractor's order of importance).
    ``language`` (a wordfreq code, default "en") is the documents' language: it sets the keyword
    tokenisation, stop words, public word frequencies and public vocabulary
    (:mod:`dpsynrag.pipeline.keywords`, :mod:`dpsynrag.data.vocabulary`).

    Stage 2 (§2): ``T`` tokens per text, ``temperature`` τ; ``decoding`` the private-prediction variant
    (:mod:`dpsynrag.models.decoding`): ``"paper"`` (Σ clipped member logits, + ω · public
    log-probabilities when ``public_weight`` ω > 0, default 0), ``"public-prior"`` (+ ω · public
    log-probabilities, ω default 1) or ``"invisibleink"`` (λ = ``invisibleink_lambda`` · public
    log-probabilities + Σ member differences to them clipped to [−c, c]). Any variant that runs a public
    prompt may sample from a top-k⁺ candidate set only: the ``public_top_k`` tokens of largest public
    log-probability plus those within ``public_top_k_margin`` nats of the k-th (public: a function of the
    public logits). All cost (c/τ)²/2 zCDP per token. ``public_prompt`` is plain text rendered with the
    model's chat template (no private data); when the variant needs one and none is given, it is the
    rephrase instruction with an empty document.
    ``rephrase_prompt`` (None: the paper's, :data:`~dpsynrag.pipeline.prompts.REPHRASE_PROMPT`) is the
    instruction every member's text is put into (``{document}``, exactly once); ``{keyword}`` in it is
    replaced by the cluster's released keyword (public), so a member in two clusters gets two prompts. It is
    public text written by the user (e.g. "Rewrite this customer's message in the customer's words"): each
    member's prompt still depends on that member's text alone, so every sensitivity is unchanged. The
    default public prompt is then this instruction with an empty document (its ``{keyword}`` kept).
    Self-filtering uses ``filter_prompt`` (a template with ``{document}``) when ``self_filter``.
    ``fluency_threshold`` (nats per token, None: off) also drops every text whose mean token
    log-probability under the public model, as the reply to an empty user turn
    (:meth:`~dpsynrag.models.lm.LanguageModel.reply_logprobs`), is below it: the texts of clusters whose
    members were too few to outvote the noise of sampling are near-uniform token soup (about −12 with
    SmolLM2-135M, fluent texts −3 to −6). Both filters read only released texts: post-processing, free.
    ``trim_partial_ending`` cuts each generated text that stops mid-clause (at T tokens, or C paid ones)
    after its last complete clause (:func:`~dpsynrag.pipeline.prompts.trim_partial_ending`), before the
    filters: a small answering model completes a cut-off fragment ("The Shaw") into a wrong answer.
    Post-processing of released texts by a public rule, free.
    ``keyword_title`` prefixes each released text with its cluster's released keyword, ``"{keyword}: {text}"``
    (after the filters, which read the text alone): the topic is then in the indexed and retrieved text even
    where the generated text garbled it. Post-processing of released values, free.

    ``response_prefix`` (None: none) is public text that opens every synthetic text: it is appended to each
    member's prompt and to the public prompt after the opened assistant turn, so the members continue it
    together, and it is written before the sampled tokens. It steers what the text says first (e.g.
    ``"Symptoms:"`` makes a small model list a record's symptoms and diagnosis before the patient's name,
    the one place where the members' documents disagree). Not sampled: it costs nothing.

    ``response_template`` (None: off) is slot-template decoding
    (:mod:`dpsynrag.models.template_selector`): public text with ``{}`` slots (``{N}``: at most N tokens),
    e.g. ``"Given the symptoms ({16}) of [REDACTED]. The diagnosis is {8}, the treatment should be {8}."``.
    Its literal text is written, not sampled (free); only the slots' tokens are drawn by the decoding
    variant and charged, so T counts the slots' tokens only and the clip c of each grows. A slot ends
    when a drawn token ends with the first character of the text after it, or after N tokens; the text
    ends with the template, at EOS in a last slot, or when T tokens are drawn. Not with
    ``response_prefix`` or ``svt_max_paid``.

    ``prediction_checkpoints`` (default 20): private prediction is cut into about this many batches of
    clusters, each checkpointed when done (``--resume`` continues after the last one). Each batch is decoded
    on its own, and every decode forward holds a fixed, public number of rows (the batch-invariant engine),
    so a batch with few rows — few clusters, or clusters of near-duplicates, whose identical members are one
    row — is mostly dummy rows: fewer batches are faster, more batches lose less work to a kill. Speed and
    resumability only (a resume may change it); the texts are the same.

    ``threshold_excess_weight`` α ∈ [0, 1] weighs the members kept beyond ``k`` in the outlier-removal
    threshold's utility (:func:`~dpsynrag.privacy.mechanisms.exponential_threshold`; 1, the default, is
    the paper's −|count − k|): with many tied scores (near-duplicate documents, e.g. records that differ
    only in a redacted identifier) the paper's utility prefers keeping no member of a cluster of more
    than 2k; α < 1 keeps them all up to (1 + 1/α)·k. Same sensitivity (1) and cost (ε_θ²/8).

    ``index_copy_size`` G (None: off, one index entry per kept text) indexes each kept text
    m_r = min(``max_index_copies``, max(1, round(noisy count of w_r / G))) times: retrieval then sees a
    topic about as often as the private collection holds it (a frequent topic fills several of the
    top-k, as its many documents would), which the answerer needs to prefer it. m_r reads only the
    released noisy count: post-processing, free. Records carry ``copies``.

    Member groups (our extension; None: the paper's one text per cluster): with ``group_size`` g, cluster r
    is split into m_r = min(``max_groups``, max(1, ⌊min(noisy count of w_r, k) / g⌋)) disjoint groups of its
    kept members (k only when outlier removal runs), each member in the group given by a hash of its own
    text (:func:`~dpsynrag.pipeline.clustering.split_into_groups`), and every group writes its own text
    of T tokens. A document is in one group of a cluster, so the groups compose in parallel: the cost is
    that of one text per cluster, and a frequent topic gets several texts (retrieval then finds it in
    several of its top-k), each written by about g members.

    ``no_repeat_ngram`` N (0: off): a token that would complete an n-gram of length N already in the text
    gets z = −inf in every private selector (and in the sparse-vector public prediction): a function of
    released tokens, free.

    Sparse-vector decoding (``svt_max_paid`` C, None: off; Amin et al. 2024, arXiv 2407.12108): needs a
    public prompt row. A token that the public prompt predicts (v_pub, its argmax) and the members do not
    contest is free; an AboveThreshold run (Lyu, Su & Li 2017, Alg. 1) on Q_t = Σ_d (a_d − ``svt_beta``),
    a_d = clamp((max l_d − l_d[v_pub]) / ``svt_gap``, 0, 1), decides when to pay for a token drawn by the
    decoding variant; a text ends after C paid tokens. ``svt_fraction`` f of each text's token budget goes
    to the C runs, the rest to the C paid tokens (:func:`~dpsynrag.privacy.calibration.calibrate`).

    Privacy units (``privacy_unit_field``, ``--privacy-unit-field FIELD``; None: the paper's per-document
    guarantee): the input's field holding each document's person key (:attr:`~dpsynrag.data.io.Document.unit`;
    every document must have one). Neighbouring collections then differ by all documents of one person, and
    every contribution is bounded per person (:mod:`dpsynrag.pipeline.units`): at most K keywords per person
    from the union of that person's documents, at most L clusters per person, one member (one prompt, one
    embedding, one threshold vote) per person in a cluster. Every mechanism keeps its per-document
    sensitivity per person, so the calibration, ρ and ε are unchanged; the report says "per person (FIELD)".

    Devices (``device``, ``dtype``, ``memory_budget_gb``; ``--device``, ``--dtype``, ``--memory-budget-gb``;
    docs/gpu.md): the models' device (None: CUDA when available, else CPU) and the language model's dtype
    (None: float32 on CPU, bfloat16 on CUDA); on CUDA the deterministic settings of
    :func:`~dpsynrag.models.loading.enforce_deterministic` are applied. ``memory_budget_gb`` bounds one batch
    of private prediction's (and of LLM keyword extraction's) keys/values and logits (None: :func:`~dpsynrag.models.loading.memory_budget` of
    the device: 2 GB on CPU, half the GPU's free memory, at most 64 GB). None of them changes a privacy
    parameter; the memory budget does not change a seeded build's texts (the batch-invariant engine).

    Synthesis (``synthesis``, ``--synthesis``): ``"prediction"`` (the paper's private prediction of T tokens,
    default) or ``"phrases"`` (issue 41): each cluster's text is a DP phrase release
    (:mod:`dpsynrag.privacy.phrase_release`, :mod:`dpsynrag.pipeline.phrases`): every kept member contributes
    at most ``phrase_max`` m distinct word ``phrase_n``-grams of its own text, the phrases whose noisy count
    passes the threshold are released and chained into the text; the generation budget pays σ_p
    (ρ_p = m/(2σ_p²) per cluster) and ``phrase_delta`` (default δ/4) is the δ share of all the releases. No
    token is drawn, so the decoding options do not apply; not with member groups or sparse-vector decoding.
    ``phrase_scope`` "collection" pools the counts: one release over the whole collection (each document, or
    person, contributes at most m phrases once, stated figures first, no keyword preferred), paid with all the
    histogram leaves: it reads no cluster, so no cluster is formed and no outlier removal runs or is charged
    (:attr:`runs_outlier_removal`); the released spans go to the keyword they hold (the least counted one), and
    a span holding none is a text of its own (post-processing). A type of record whose members the keyword
    walk would split over several clusters passes the threshold with all its members.
    ``phrase_min_phrases`` (``--phrase-min-phrases``, collection scope only, default 1: every text): a text
    of the collection release that states no figure is kept only when its spans hold at least that many
    released phrases; a lone n-gram without a figure is a fragment ("Appreciate a quick answer.").
    """

    K: int = Field(10, ge=1)
    R: int = Field(500, ge=1)
    L: int = Field(5, ge=1)
    k: int = Field(80, ge=1)
    split: Literal["paper", "fractions"] = "paper"
    rho_hist: Optional[float] = Field(None, gt=0)
    epsilon_theta: Optional[float] = Field(None, gt=0)
    rho_embed: Optional[float] = Field(None, gt=0)
    outlier_removal: bool = True
    open_vocabulary: bool = False
    open_vocabulary_delta: Optional[float] = Field(None, gt=0, lt=1)
    vocabulary_size: int = Field(50_000, ge=100)
    match_text: bool = False
    clustering: Literal["paper", "primary"] = "paper"
    extractor: Literal["llm", "rarity"] = "llm"
    language: str = "en"
    fluency_threshold: Optional[float] = Field(None, lt=0)
    keyword_title: bool = False
    trim_partial_ending: bool = False
    response_prefix: Optional[str] = Field(None, min_length=1)
    response_template: Optional[str] = Field(None, min_length=1)
    threshold_excess_weight: float = Field(1.0, ge=0, le=1)
    index_copy_size: Optional[int] = Field(None, ge=1)
    max_index_copies: int = Field(DEFAULT_MAX_INDEX_COPIES, ge=1)
    group_size: Optional[int] = Field(None, ge=1)
    max_groups: int = Field(DEFAULT_MAX_GROUPS, ge=1)
    rephrase_prompt: Optional[str] = Field(None, min_length=1)
    public_prompt: Optional[str] = None
    public_weight: Optional[float] = Field(None, ge=0)
    decoding: Literal["paper", "public-prior", "invisibleink"] = "paper"
    invisibleink_lambda: float = Field(1.0, ge=0)
    public_top_k: Optional[int] = Field(None, ge=1)
    public_top_k_margin: float = Field(0.0, ge=0)
    no_repeat_ngram: int = Field(0, ge=0)
    svt_max_paid: Optional[int] = Field(None, ge=1)
    svt_fraction: float = Field(DEFAULT_SVT_FRACTION, gt=0, lt=1)
    svt_beta: float = Field(DEFAULT_SVT_BETA, gt=0, lt=1)
    svt_gap: float = Field(DEFAULT_SVT_GAP, gt=0)
    batch_size: Optional[int] = Field(None, ge=1)
    memory_budget_gb: Optional[float] = Field(None, gt=0)
    device: Optional[str] = Field(None, min_length=1)
    dtype: Optional[Literal["float32", "bfloat16", "float16"]] = None
    prediction_checkpoints: int = Field(CHECKPOINTS_PER_STAGE, ge=1)
    privacy_unit_field: Optional[str] = Field(None, min_length=1)
    synthesis: Literal["prediction", "phrases"] = "prediction"
    phrase_max: int = Field(DEFAULT_PHRASE_MAX, ge=1)
    phrase_n: int = Field(DEFAULT_PHRASE_N, ge=1)
    phrase_delta: Optional[float] = Field(None, gt=0, lt=1)
    phrase_scope: Literal["cluster", "collection"] = "cluster"
    phrase_min_phrases: int = Field(1, ge=1)

    @field_validator("language")
    @classmethod
    def _known_language(cls, value: str) -> str:
        from dpsynrag.data.words import check_language

        return check_language(value)

    @model_validator(mode="before")
    @classmethod
    def _delta_implies_open_vocabulary(cls, data):
        """An ``open_vocabulary_delta`` without ``open_vocabulary`` asks for the open-vocabulary histogram."""
        if isinstance(data, dict) and data.get("open_vocabulary_delta") is not None and "open_vocabulary" not in data:
            data = {**data, "open_vocabulary": True}
        return data

    @model_validator(mode="after")
    def _consistent(self) -> "BuildConfig":
        if self.open_vocabulary_delta is not None and not self.open_vocabulary:
            raise ValueError("`open_vocabulary_delta` is set but `open_vocabulary` is False.")
        if self.open_vocabulary_delta is not None and self.open_vocabulary_delta >= self.delta:
            raise ValueError(
                f"`open_vocabulary_delta` must be below `delta` ({self.delta}). Found {self.open_vocabulary_delta}."
            )
        if self.public_prompt is not None and not self.uses_public_prompt:
            raise ValueError(
                "`public_prompt` is set but the 'paper' decoding with `public_weight` 0 runs no public prompt: "
                "use `decoding` public-prior or invisibleink, or a `public_weight` > 0."
            )
        if self.rephrase_prompt is not None and self.rephrase_prompt.count("{document}") != 1:
            raise ValueError(
                "`rephrase_prompt` must hold the placeholder {document} (where each member's text goes) exactly "
                f"once. Found it {self.rephrase_prompt.count('{document}')} times."
            )
        unknown = sorted({m for m in re.findall(r"\{(\w+)\}", self.rephrase_prompt or "")} - {"document", "keyword"})
        if unknown:
            raise ValueError(
                f"`rephrase_prompt` holds {{{unknown[0]}}}: only {{document}} (the member's text) and {{keyword}} "
                "(the cluster's released keyword) are filled in; any other {name} would reach the model as written."
            )
        if self.public_prompt is not None and "{document}" in self.public_prompt:
            raise ValueError(
                "`public_prompt` holds {document}, but a public prompt never sees a document (it would stay "
                "literal); the only placeholder is {keyword}, the cluster's released keyword."
            )
        if self.clustering == "primary" and self.match_text:
            raise ValueError(
                "`clustering` 'primary' ranks a document's extracted keywords; it cannot be combined with "
                "`match_text` (--match-text)."
            )
        if self.decoding != "invisibleink" and self.invisibleink_lambda != 1.0:
            raise ValueError(
                "`invisibleink_lambda` applies only to `decoding` 'invisibleink' (--decoding invisibleink). "
                f"Found decoding {self.decoding!r}."
            )
        if self.public_top_k is not None and not self.uses_public_prompt:
            raise ValueError(
                "`public_top_k` takes the candidate set from the public prompt, but the 'paper' decoding with "
                "`public_weight` 0 runs none: use `decoding` public-prior or invisibleink, or a `public_weight` > 0."
            )
        if self.public_top_k_margin != 0.0 and self.public_top_k is None:
            raise ValueError("`public_top_k_margin` widens the top-k+ set: it needs `public_top_k`.")
        if self.decoding == "invisibleink" and self.public_weight:
            raise ValueError("`public_weight` does not apply to `decoding` 'invisibleink'; its weight is `invisibleink_lambda`.")
        if self.response_template is not None:
            from dpsynrag.errors import ConfigError
            from dpsynrag.models.template_selector import TemplateParts  # models (layer 3): torch, only when used

            try:
                TemplateParts.parse(self.response_template)
            except ConfigError as e:
                raise ValueError(str(e)) from None
            if self.response_prefix is not None:
                raise ValueError("`response_template` opens every text with its own text: drop `response_prefix` "
                                 "(or move it into the template).")
            if self.svt_max_paid is not None:
                raise ValueError("`response_template` and `svt_max_paid` (sparse-vector decoding) both decide which "
                                 "tokens are free: use one of them.")
        if self.response_prefix is not None and "{document}" in self.response_prefix:
            raise ValueError("`response_prefix` is public text written before every synthetic text; it cannot hold "
                             "{document} (a private document would be released verbatim).")
        # compared with the default, not with "was it given": a dumped config (model_dump) lists every field
        if self.max_index_copies != DEFAULT_MAX_INDEX_COPIES and self.index_copy_size is None:
            raise ValueError("`max_index_copies` caps the index entries of `index_copy_size` (--index-copy-size): "
                             "set that too.")
        if self.max_groups != DEFAULT_MAX_GROUPS and self.group_size is None:
            raise ValueError("`max_groups` caps the member groups of `group_size` (--group-size): set that too.")
        if self.svt_max_paid is not None and not self.uses_public_prompt:
            raise ValueError(
                "`svt_max_paid` (sparse-vector decoding) compares the members with the public prompt's prediction, "
                "but the 'paper' decoding with `public_weight` 0 runs no public prompt: use `decoding` public-prior "
                "or invisibleink, or a `public_weight` > 0."
            )
        if self.svt_max_paid is not None and self.svt_max_paid > self.T:
            raise ValueError(f"`svt_max_paid` (paid tokens per text) must be <= `T` ({self.T}): a text has at most "
                             f"T tokens. Found {self.svt_max_paid}.")
        for name, default in (("svt_fraction", DEFAULT_SVT_FRACTION), ("svt_beta", DEFAULT_SVT_BETA),
                              ("svt_gap", DEFAULT_SVT_GAP)):
            if getattr(self, name) != default and self.svt_max_paid is None:
                raise ValueError(f"`{name}` is a parameter of sparse-vector decoding: set `svt_max_paid` too.")
        steps = self.svt_beta * DEFAULT_SVT_GRID
        if abs(steps - round(steps)) > 1e-9 * DEFAULT_SVT_GRID:
            raise ValueError(f"`svt_beta` must be a multiple of 1/{DEFAULT_SVT_GRID} (the public grid of the "
                             f"sparse-vector queries). Found {self.svt_beta}.")
        if self.synthesis == "phrases":
            if self.svt_max_paid is not None or self.group_size is not None:
                raise ValueError("`synthesis` 'phrases' draws no token and writes one text per cluster: drop "
                                 "`svt_max_paid` and `group_size`.")
            if self.phrase_delta is not None and self.phrase_delta + (self.hist_delta or 0.0) >= self.delta:
                raise ValueError(f"`phrase_delta` plus the open-vocabulary δ must be below `delta` ({self.delta}).")
            if self.phrase_min_phrases != 1 and self.phrase_scope != "collection":
                raise ValueError("`phrase_min_phrases` filters the texts of the collection release: set "
                                 "`phrase_scope` 'collection' too.")
        elif ((self.phrase_max, self.phrase_n, self.phrase_delta, self.phrase_scope, self.phrase_min_phrases)
              != (DEFAULT_PHRASE_MAX, DEFAULT_PHRASE_N, None, "cluster", 1)):
            raise ValueError("`phrase_max`, `phrase_n`, `phrase_delta`, `phrase_scope` and `phrase_min_phrases` "
                             "are parameters of "
                             "`synthesis` 'phrases': set that too.")
        if self.decoding == "public-prior" and self.public_weight == 0:
            raise ValueError("`public_weight` of `decoding` 'public-prior' must be > 0 (use 'paper' for none).")
        return self

    @property
    def uses_public_prompt(self) -> bool:
        """Whether the decoding variant runs a public prompt (the invisibleink and public-prior ones, or
        the paper's with ``public_weight`` > 0)."""
        return self.decoding != "paper" or bool(self.public_weight)

    @property
    def hist_delta(self) -> float | None:
        """The δ term of the open-vocabulary histogram (None with the public vocabulary)."""
        if not self.open_vocabulary:
            return None
        return self.open_vocabulary_delta if self.open_vocabulary_delta is not None else self.delta / 10

    @property
    def L_effective(self) -> int:
        """The most clusters one document can join: min(L, R), and min(L, R, K) when membership comes
        from the document's extracted keywords (not ``match_text``): a document holds at most K
        keywords after the cap, so it can join at most K clusters whatever L is.

        The overlapping parallel composition charges at most this many branches per document, and the
        calibration spends the budget over that many (spending it over L would under-use it).
        """
        bound = min(self.L, self.R)
        return bound if self.match_text else min(bound, self.K)

    @property
    def T_effective(self) -> int:
        """The most tokens a text draws: T, or the sum of the slot caps N of a ``response_template`` whose every
        slot has one, when that is smaller (the template then cannot draw more: each slot ends after its N
        tokens). A function of public parameters; the calibration spends the token budget over this many
        tokens (a larger clip c = τ·sqrt(2ρ_tokens/T) at the same ε), as it spends the cluster budget over
        :attr:`L_effective` clusters."""
        if self.response_template is None:
            return self.T
        from dpsynrag.models.template_selector import TemplateParts  # models (layer 3): torch, only when used

        caps = TemplateParts.parse(self.response_template).caps
        return self.T if None in caps else min(self.T, sum(caps))

    def calibrate(self) -> CalibratedBudget:
        """The calibrated noise scales and clip for this configuration (with L = :attr:`L_effective`, T =
        :attr:`T_effective`).

        Raises:
            InfeasibleBudgetError: when the target cannot pay for the split (nothing is run).
        """
        split = make_split(self.split, L=self.L_effective, hist=self.rho_hist, theta=self.epsilon_theta,
                           embed=self.rho_embed, outlier_removal=self.runs_outlier_removal)
        svt = {} if self.svt_max_paid is None else dict(
            svt_max_paid=self.svt_max_paid, svt_fraction=self.svt_fraction, svt_beta=self.svt_beta,
            svt_gap=self.svt_gap)
        phrases = {} if self.synthesis != "phrases" else dict(phrase_max=self.phrase_max, phrase_delta=self.phrase_share,
                                                                   phrase_scope=self.phrase_scope)
        return calibrate(epsilon=self.epsilon, delta=self.delta, K=self.K, L=self.L_effective, T=self.T_effective,
                         temperature=self.temperature, split=split, conversion=self.conversion,
                         open_vocabulary_delta=self.hist_delta, **svt, **phrases)

    @property
    def runs_outlier_removal(self) -> bool:
        """``outlier_removal``, but never with ``phrase_scope`` "collection" (its release reads every document)."""
        return self.outlier_removal and self.phrase_scope != "collection"

    @property
    def phrase_share(self) -> float | None:
        """The δ share of the phrase releases: ``phrase_delta``, default δ/4 (None without phrases)."""
        if self.synthesis != "phrases":
            return None
        return self.phrase_delta if self.phrase_delta is not None else self.delta / 4

    def index_copies(self, noisy_count: float) -> int:
        """Index entries of a kept text whose cluster's released noisy count is ``noisy_count``: 1 without
        ``index_copy_size``, else min(``max_index_copies``, max(1, round(noisy_count / index_copy_size)))
        (Python's round: halves to even)."""
        if self.index_copy_size is None:
            return 1
        return int(min(self.max_index_copies, max(1, round(float(noisy_count) / self.index_copy_size))))

    @property
    def groups(self) -> int | None:
        """The most member groups per cluster in the plan (``max_groups``), None without ``group_size``."""
        return None if self.group_size is None else self.max_groups

    @property
    def plan_notes(self) -> list[str]:
        """Notes for the privacy report about how the plan reads the parameters (public)."""
        notes = []
        if self.privacy_unit_field is not None:
            f = self.privacy_unit_field
            notes.append(f"privacy unit: per person ({f}), not per document: neighbouring collections differ by all "
                         f"documents sharing one value of {f!r}. Each person contributes at most K = {self.K} keywords "
                         f"(from the union of their documents), joins at most L = {self.L} clusters and is one member "
                         "(one prompt, one embedding, one threshold vote) of a cluster: every sensitivity is the "
                         "per-document one, per person")
        if self.L_effective != self.L:
            why = (f"only R = {self.R} clusters exist" if self.L_effective == self.R
                   else f"a document holds at most K = {self.K} keywords")
            notes.append(f"L = {self.L} acts as L = {self.L_effective}: {why}, so a document joins at most "
                         f"{self.L_effective} clusters and the budget is calibrated over {self.L_effective}")
        if self.redact_identifiers:
            notes.append(f"each document's own direct identifiers were replaced by {self.identifier_placeholder!r} "
                         "before any model read it (a function of that document alone: no privacy cost)")
        if self.redact_pii:
            from dpsynrag.data.pii import pii_note

            notes.append(pii_note(self.identifier_placeholder, self.pii_entities))
        if self.threshold_excess_weight != 1.0 and self.runs_outlier_removal:
            notes.append(f"the outlier-removal threshold's utility weighs members kept beyond k by "
                         f"{self.threshold_excess_weight:g} (the paper: 1); its sensitivity is still 1 and its "
                         "cost epsilon_theta^2/8")
        if self.index_copy_size is not None:
            notes.append(f"each kept text is indexed once per {self.index_copy_size} documents of its cluster's "
                         f"released noisy count (at least once, at most {self.max_index_copies} times): "
                         "post-processing of released values, no privacy cost")
        if self.response_template is not None:
            lowered = (f" (T = {self.T} lowered to the sum of the template's slot caps)"
                       if self.T_effective < self.T else "")
            notes.append(f"slot-template decoding: the public template {self.response_template!r} is written for "
                         f"free (post-processing); only its slots' tokens are drawn and charged, at most "
                         f"{self.T_effective} per text{lowered}")
        if self.svt_max_paid is not None:
            notes.append(f"sparse-vector decoding: a text pays for at most {self.svt_max_paid} of its {self.T} tokens, "
                         "each after one AboveThreshold run (pure DP, charged as epsilon^2/2 zCDP); tokens that the "
                         "public prompt predicts and the members do not contest are free (post-processing)")
        if self.synthesis == "phrases" and self.phrase_scope == "collection":
            notes.append(f"phrase synthesis over the collection: each document (person) contributes at most "
                         f"{self.phrase_max} distinct word {self.phrase_n}-grams of its own text once (a public "
                         "per-document rule: stated figures first, then rare words); one release of the phrases "
                         "whose discrete Gaussian noisy count passes the threshold (L2 sensitivity "
                         f"sqrt({self.phrase_max})), paid with all the histogram leaves: no cluster is formed and no "
                         "outlier removal runs (the release reads every document); the released spans are given to "
                         "the keywords they hold (post-processing"
                         + (f"; a text stating no figure needs {self.phrase_min_phrases} released phrases"
                            if self.phrase_min_phrases > 1 else "") + "); no token is drawn")
        elif self.synthesis == "phrases":
            notes.append(f"phrase synthesis: each kept member contributes at most {self.phrase_max} distinct word "
                         f"{self.phrase_n}-grams of its own text (a public per-document rule); each cluster releases "
                         "the phrases whose discrete Gaussian noisy count passes the threshold (L2 sensitivity "
                         f"sqrt({self.phrase_max}), one member row per unit), chained into its text (post-processing); "
                         "no token is drawn, so the decoding options do not apply")
        if self.group_size is not None:
            notes.append(f"each cluster's kept members are split into at most {self.max_groups} disjoint groups "
                         f"(about {self.group_size} members each, by a hash of each member's own text; the number "
                         "from the cluster's released noisy count), each writing one text: a document is in one "
                         "group of a cluster, so the groups compose in parallel and cost one text's tokens")
        return notes

    def plan(self, calibrated: CalibratedBudget | None = None) -> ComposedEvent:
        """The build's privacy plan, fixed before any data is read: the keyword histogram, then ``R``
        clusters paid by overlapping parallel composition (min(:attr:`L_effective`, R) × one cluster's
        plan). Its ε at ``delta`` is the build's guarantee whatever the histogram releases (fewer than R
        keywords spend less, but that spend depends on the data); ``dpsynrag budget`` prints this plan.

        Args:
            calibrated: ``self.calibrate()`` when already computed.

        Raises:
            InfeasibleBudgetError: as :meth:`calibrate`.
        """
        cal = calibrated if calibrated is not None else self.calibrate()
        return cal.plan(num_clusters=self.R, vocabulary_size=None if self.open_vocabulary else self.vocabulary_size,
                        groups=self.groups)
