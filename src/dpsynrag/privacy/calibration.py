"""Budget calibration: from a target (ε, δ) and a budget split to the noise scales and the clip.

Theorem 1 of DP-SynRAG (METHOD.md §3):

    ρ = K/(2σ_h²) + L · (ε_θ²/8 + 1/(2σ_μ²) + T/2 · (c/τ)²)

Given ρ from (ε, δ) (Bun–Steinke by default, as the paper; or the tight CKS conversion), the split
fixes the histogram share ρ_hist = K/(2σ_h²), the threshold's ε_θ and the embedding share
ρ_embed = 1/(2σ_μ²); the rest of the per-cluster budget goes to generation:

    ρ_token_total = (ρ − ρ_hist)/L − ε_θ²/8 − ρ_embed,    c = τ · sqrt(2 ρ_token_total / T).

Example (paper defaults): ε = 10, δ = 1e-3, K = 10, L = 5, T = 70, τ = 1 → ρ = 2.2012,
σ_h = 7.071, σ_μ = 7.454, c = 0.1057.

Sparse-vector decoding (``svt_max_paid`` = C; Amin et al. 2024, arXiv 2407.12108): a text pays for at
most C tokens, each preceded by one AboveThreshold run; a public fraction f of ρ_token_total goes to
the C runs and the rest to the C paid tokens:

    ε_svt = ε1 + ε2 = sqrt(2 f ρ_token_total / C),   ε1 : ε2 = 1 : 2^(2/3)   (Lyu, Su & Li 2017, §4.2),
    c = τ · sqrt(2 (1 − f) ρ_token_total / C),

so that one text costs C · (ε_svt²/2 + (c/τ)²/2) = ρ_token_total (Bun & Steinke 2016, Prop. 1.4 for the
runs).

Phrase release (``phrase_max`` = m; :mod:`dpsynrag.pipeline.phrases`): the cluster's text is the set of
m-capped member phrases whose noisy count passes a threshold (a discrete Gaussian sparse histogram, L2
sensitivity √m) instead of T private tokens; the same per-cluster budget gives σ_p, and a public δ share
``phrase_delta`` (over L clusters) gives the threshold τ_p:

    σ_p = sqrt(m / (2 ρ_token_total)),   τ_p = min integer with m · P[Z >= τ_p] <= phrase_delta / L,

so that ρ = K/(2σ_h²) + L · (ε_θ²/8 + 1/(2σ_μ²) + m/(2σ_p²)), δ terms = δ_ps + L · δ_p.
With ``phrase_scope="collection"`` one release over the whole collection replaces the per-cluster ones (each
unit contributes at most m phrases once, whatever its clusters). It reads every document and the released
keywords, never a cluster: no outlier removal runs or is charged (the split's ε_θ and ρ_embed shares are
zeroed), no cluster mechanism is left, and the release takes everything the histogram leaves,

    σ_p = sqrt(m / (2 (ρ − K/(2σ_h²)))),   τ_p = min integer with m · P[Z >= τ_p] <= phrase_delta,

so that ρ = K/(2σ_h²) + m/(2σ_p²), δ terms = δ_ps + δ_p: the plan is the histogram, then the release.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from dpsynrag.checks import check_int
from dpsynrag.errors import ConfigError, InfeasibleBudgetError
from dpsynrag.privacy.budget_split import BudgetSplit, _num
from dpsynrag.privacy.conversions import CONVERSIONS, Conversion, epsilon_from_rho, rho_from_epsilon
from dpsynrag.privacy.events import (
    ComposedEvent,
    DiscreteGaussianEvent,
    ExponentialMechanismEvent,
    GaussianEvent,
    OverlappingParallelEvent,
    PrivacyEvent,
    PrivatePredictionTokenEvent,
    SelfComposedEvent,
    SparseDiscreteGaussianHistogramEvent,
    SparseVectorEvent,
)
from dpsynrag.privacy.mechanisms import sparse_histogram_threshold
from dpsynrag.privacy.phrase_release import check_phrase_budget, phrase_noise

# Calibrated values are shrunk by this relative margin so that floating-point rounding can never
# push the composed ε above the target (the margin changes c by 1e-10 of its value).
_SAFETY = 1e-10

DEFAULT_SVT_GRID = 1000
"""The public grid q of sparse-vector queries: disagreements a_d are rounded down to multiples of 1/q."""

SVT_EPSILON_RATIO = 2.0 ** (2.0 / 3.0)
"""ε2/ε1 of each AboveThreshold run: Lyu, Su & Li 2017, §4.2, the allocation 1 : (2c)^(2/3) with c = 1."""


@dataclass(frozen=True)
class CalibratedBudget:
    """The calibrated parameters of a DP-SynRAG build. All rho in zCDP nats.

    Attributes:
        epsilon, delta: the target.
        conversion: the ρ → ε conversion used to calibrate.
        rho_total: the zCDP budget ρ the target allows (after the open-vocabulary δ term).
        delta_hist: the δ term of the open-vocabulary histogram (0 with a public vocabulary).
        hist_threshold: release threshold of the open-vocabulary histogram (None: public vocabulary).
        sigma_hist, sigma_embed: noise scales σ_h (counts) and σ_μ (embedding units); sigma_embed is
            None when outlier removal is off.
        epsilon_theta: ε_θ of the threshold mechanism (None when off).
        clip, temperature: c and τ of private prediction; ``rho_token`` = (c/τ)²/2.
        K, L, T: keyword cap, clusters per document, tokens per text.
        svt_max_paid: C, the most paid tokens of a text with sparse-vector decoding (None: off; every
            other ``svt_*`` field is then None).
        svt_fraction: f, the share of a text's token budget spent on its C AboveThreshold runs.
        svt_beta, svt_gap, svt_grid: β, g (nats) and q of the queries (:class:`SparseVectorEvent`).
        svt_epsilon1, svt_epsilon2: ε1 and ε2 of each run (ε1 : ε2 = 1 : 2^(2/3)).
        phrase_max: m, the most phrases a member contributes to its cluster's phrase release (None: private
            prediction; ``clip`` and ``rho_token`` are then None, every other ``phrase_*`` field is set).
        phrase_sigma, phrase_threshold: σ_p (counts) and τ_p of the phrase release.
        phrase_delta: the δ share of all phrase releases (δ_p = its 1/L per cluster).
        phrase_scope: "cluster" (one release per cluster, in the clusters' parallel composition) or
            "collection" (one release over the whole collection after the histogram: no cluster mechanism,
            no outlier removal); None without phrases.
    """

    epsilon: float
    delta: float
    conversion: str
    K: int
    L: int
    T: int
    temperature: float
    rho_total: float
    rho_hist: float
    sigma_hist: float
    delta_hist: float
    hist_threshold: float | None
    epsilon_theta: float | None
    rho_embed: float
    sigma_embed: float | None
    clip: float | None
    rho_token: float | None
    svt_max_paid: int | None = None
    svt_fraction: float | None = None
    svt_beta: float | None = None
    svt_gap: float | None = None
    svt_grid: int | None = None
    svt_epsilon1: float | None = None
    svt_epsilon2: float | None = None
    phrase_max: int | None = None
    phrase_sigma: float | None = None
    phrase_threshold: float | None = None
    phrase_delta: float | None = None
    phrase_scope: str | None = None

    @property
    def sparse_vector(self) -> bool:
        """Whether sparse-vector decoding is on."""
        return self.svt_max_paid is not None

    def svt_event(self) -> SparseVectorEvent:
        """One AboveThreshold run of sparse-vector decoding (:class:`SparseVectorEvent`).

        Raises:
            ConfigError: sparse-vector decoding is off.
        """
        if not self.sparse_vector:
            raise ConfigError("sparse-vector decoding is off (no `svt_max_paid`): there is no run to describe.")
        return SparseVectorEvent(name="sparse-vector run", epsilon1=self.svt_epsilon1, epsilon2=self.svt_epsilon2,
                                 beta=self.svt_beta, gap=self.svt_gap, grid=self.svt_grid)

    @property
    def phrases(self) -> bool:
        """Whether each cluster's text is a phrase release (not private prediction)."""
        return self.phrase_max is not None

    @property
    def collection_phrases(self) -> bool:
        """Whether one phrase release over the whole collection replaces the per-cluster releases."""
        return self.phrase_scope == "collection"

    def phrase_event(self) -> SparseDiscreteGaussianHistogramEvent:
        """One cluster's phrase release: a discrete Gaussian sparse histogram of its members' phrase sets,
        L2 sensitivity √m, ρ_p = m/(2σ_p²), δ_p = m · P[1 + Z > τ_p].

        Raises:
            ConfigError: the build writes texts by private prediction (no ``phrase_max``).
        """
        if not self.phrases:
            raise ConfigError("the synthesis is private prediction (no `phrase_max`): there is no phrase release.")
        return SparseDiscreteGaussianHistogramEvent(name="phrase release", max_contributions=self.phrase_max,
                                                    sigma=self.phrase_sigma, threshold=self.phrase_threshold)

    @property
    def delta_terms(self) -> float:
        """The δ terms the plan may spend: the open-vocabulary histogram's δ_ps plus L · δ_p of the phrase
        releases (an upper bound: the events' own δ at the chosen thresholds)."""
        if not self.phrases:
            return self.delta_hist
        return self.delta_hist + (1 if self.collection_phrases else self.L) * self.phrase_event().delta

    @property
    def rho_text(self) -> float:
        """The most one text may spend: T·ρ_token, C·(ε_svt²/2 + ρ_token) with sparse-vector decoding, or
        m/(2σ_p²) with a phrase release per cluster; 0 with one over the collection (not a cluster's)."""
        if self.phrases:
            return 0.0 if self.collection_phrases else self.phrase_event().rho
        if self.sparse_vector:
            return self.svt_max_paid * (self.svt_event().rho + self.rho_token)
        return self.T * self.rho_token

    @property
    def rho_branch(self) -> float:
        """The most one cluster may spend: ε_θ²/8 + ρ_embed + :attr:`rho_text` (0 with one phrase release over
        the collection: no cluster runs a mechanism)."""
        em = (self.epsilon_theta or 0.0) ** 2 / 8.0
        return em + self.rho_embed + self.rho_text

    def histogram_event(self, vocabulary_size: int | None = None) -> PrivacyEvent:
        """The keyword-histogram event (discrete Gaussian on a public vocabulary, or the sparse histogram)."""
        if self.hist_threshold is not None:
            return SparseDiscreteGaussianHistogramEvent(
                name="keyword histogram (open vocabulary)",
                max_contributions=self.K,
                sigma=self.sigma_hist,
                threshold=self.hist_threshold,
            )
        return DiscreteGaussianEvent(
            name="keyword histogram", sensitivity=math.sqrt(self.K), sigma=self.sigma_hist, dimension=vocabulary_size
        )

    def token_plan(self) -> PrivacyEvent:
        """The tokens of one text: T private-prediction tokens, T × (c/τ)²/2 zCDP; with sparse-vector
        decoding, C × (one AboveThreshold run + one paid token), C × (ε_svt²/2 + (c/τ)²/2) zCDP (a text
        that ends early spends less); with a phrase release, the cluster's :meth:`phrase_event` instead."""
        if self.phrases:
            return self.phrase_event()
        token = PrivatePredictionTokenEvent(name="private prediction token", clip=self.clip, temperature=self.temperature)
        if self.sparse_vector:
            C = self.svt_max_paid
            return SelfComposedEvent(
                ComposedEvent(name="sparse-vector paid token", events=(self.svt_event(), token)),
                C,
                name=f"{C} sparse-vector runs and paid tokens",
            )
        return SelfComposedEvent(token, self.T, name=f"{self.T} private prediction tokens")

    def branch_plan(self, *, groups: int | None = None) -> ComposedEvent:
        """One cluster's mechanisms: embedding sum, threshold (when on), T private tokens.

        Args:
            groups: None (the paper: one text per cluster), or the most disjoint member groups a
                cluster is split into, each writing its own text of T tokens
                (:func:`~dpsynrag.pipeline.clustering.split_into_groups`). A member is in exactly one
                group of a cluster, so the groups compose in parallel (max one branch per unit): the
                tokens cost T × (c/τ)²/2 once, whatever the number of groups.
        """
        events: list[PrivacyEvent] = []  # empty with the collection's release: no outlier removal (:func:`calibrate`)
        if self.sigma_embed is not None and self.epsilon_theta is not None:
            events.append(GaussianEvent(name="cluster embedding sum", sensitivity=1.0, sigma=self.sigma_embed))
            events.append(ExponentialMechanismEvent(name="similarity threshold", epsilon=self.epsilon_theta))
        if self.collection_phrases:  # the collection's phrase release is not a cluster's (:meth:`plan`)
            return ComposedEvent(name="one cluster", events=tuple(events))
        tokens = self.token_plan()
        if groups is not None:
            tokens = OverlappingParallelEvent(name="member groups", branch=tokens, num_branches=groups,
                                              max_branches_per_unit=1)
        events.append(tokens)
        return ComposedEvent(name="one cluster", events=tuple(events))

    def plan(self, *, num_clusters: int, vocabulary_size: int | None = None,
             groups: int | None = None) -> ComposedEvent:
        """The whole build as one event: histogram, then overlapping-parallel clusters (``groups`` as in
        :meth:`branch_plan`); with ``phrase_scope`` "collection", histogram then the collection's phrase release
        (no cluster runs a mechanism: the release reads every document, and no outlier removal runs)."""
        if self.collection_phrases:
            return ComposedEvent(name="DP-SynRAG build",
                                 events=(self.histogram_event(vocabulary_size), self.phrase_event()))
        events: tuple[PrivacyEvent, ...] = (
            self.histogram_event(vocabulary_size),
            OverlappingParallelEvent(
                name="clusters",
                branch=self.branch_plan(groups=groups),
                num_branches=num_clusters,
                max_branches_per_unit=self.L,
            ),
        )
        return ComposedEvent(name="DP-SynRAG build", events=events)

    def to_dict(self) -> dict:
        d = asdict(self)
        if not self.sparse_vector:  # the fields of an unused option are not listed
            d = {k: v for k, v in d.items() if not k.startswith("svt_")}
        if self.phrases:  # no token is drawn: the decoding's fields do not apply
            d = {k: v for k, v in d.items() if k not in ("clip", "rho_token", "T", "temperature")}
            per = "phrase_delta_per_release" if self.collection_phrases else "phrase_delta_per_cluster"
            d["phrase_rho"], d[per] = self.phrase_event().rho, self.phrase_event().delta
        else:
            d = {k: v for k, v in d.items() if not k.startswith("phrase_")}
        if not self.collection_phrases:  # no cluster spends anything with the collection's release
            d["rho_branch"] = self.rho_branch
        return d


def calibrate(
    *,
    epsilon: float,
    delta: float,
    K: int = 10,
    L: int = 5,
    T: int = 70,
    temperature: float = 1.0,
    split: BudgetSplit | None = None,
    conversion: Conversion = "bun-steinke",
    open_vocabulary_delta: float | None = None,
    svt_max_paid: int | None = None,
    svt_fraction: float = 0.25,
    svt_beta: float = 0.5,
    svt_gap: float = 2.0,
    svt_grid: int = DEFAULT_SVT_GRID,
    phrase_max: int | None = None,
    phrase_delta: float | None = None,
    phrase_scope: str = "cluster",
) -> CalibratedBudget:
    """Solve σ_h, σ_μ, ε_θ and c so the build is (ε, δ)-DP (DP-SynRAG Theorem 1, METHOD.md §3).

    Args:
        epsilon: target ε > 0.
        delta: target total δ in (0, 1).
        K: keywords per document (>= 1). L: clusters per document (>= 1). T: tokens per text (>= 1).
        temperature: τ > 0.
        split: the budget split (default: the paper's absolute constants).
        conversion: "bun-steinke" (paper) or "cks" (tight).
        open_vocabulary_delta: δ_ps of the thresholded open-vocabulary histogram (None: public
            vocabulary). It is taken out of ``delta`` before converting.
        svt_max_paid: C in 1..T, the most paid tokens per text: sparse-vector decoding (None: off, the
            paper's T tokens).
        svt_fraction: f in (0, 1), the share of each text's token budget spent on its C AboveThreshold
            runs (default 0.25).
        svt_beta, svt_gap, svt_grid: β in (0, 1), g > 0 (nats) and q >= 1 of the queries (β·q an
            integer; :class:`~dpsynrag.privacy.events.SparseVectorEvent`).
        phrase_max: m >= 1, the most phrases a member contributes: each cluster's text is a phrase release
            whose σ_p takes the generation budget (None: private prediction of T tokens).
        phrase_delta: the δ share of all phrase releases, in (0, δ − open_vocabulary_delta); needed with
            ``phrase_max``. It is taken out of ``delta`` before converting.
        phrase_scope: "cluster" (a release per cluster) or "collection" (one release over the whole
            collection with everything the histogram leaves: the split's outlier-removal shares are zeroed,
            since its kept members would be unused; module docstring).

    Returns:
        A :class:`CalibratedBudget`.

    Raises:
        ConfigError: on ε <= 0, δ outside (0, 1), K/L/T < 1, τ <= 0, NaN, an unknown conversion,
            open_vocabulary_delta outside (0, δ), a bad ``svt_*`` value (C outside 1..T, f outside (0, 1)), a
            phrase_max < 1, phrase_delta outside (0, δ − open_vocabulary_delta), both phrases and svt, or an
            unknown phrase_scope.
        InfeasibleBudgetError: when a fixed part of the split does not fit; the message names it.
    """
    epsilon = _num("epsilon", epsilon)
    delta = _num("delta", delta)
    if delta >= 1:
        raise ConfigError(f"`delta` must lie strictly between 0 and 1. Found {delta!r}.")
    K, L, T = check_int("K", K), check_int("L", L), check_int("T", T)
    temperature = _num("temperature", temperature)
    if conversion not in CONVERSIONS:
        raise ConfigError(f"`conversion` must be one of {CONVERSIONS}. Found {conversion!r}.")
    split = split or BudgetSplit.paper()
    if phrase_max is not None and phrase_scope not in ("cluster", "collection"):
        raise ConfigError(f"`phrase_scope` must be 'cluster' or 'collection'. Found {phrase_scope!r}.")
    collection = phrase_max is not None and phrase_scope == "collection"
    if collection and split.outlier_removal:  # the release reads every document: no outlier removal, no charge
        split = BudgetSplit(split.kind, split.hist, 0.0, 0.0)
    delta_hist = 0.0
    if open_vocabulary_delta is not None:
        delta_hist = _num("open_vocabulary_delta", open_vocabulary_delta)
        if delta_hist >= delta:
            raise ConfigError(
                f"`open_vocabulary_delta` must be smaller than `delta` ({delta!r}). Found {delta_hist!r}; "
                "a tenth of delta is a reasonable choice."
            )
    delta_phrases = check_phrase_budget(phrase_max, phrase_delta, delta=delta, delta_hist=delta_hist,
                                        sparse_vector=svt_max_paid is not None)
    rho_total = rho_from_epsilon(epsilon, delta - delta_hist - delta_phrases, conversion=conversion)
    target = f"epsilon={epsilon:g}, delta={delta:g} ({conversion}: rho={rho_total:.4g})"

    if split.kind == "absolute":
        rho_hist, epsilon_theta, rho_embed = split.hist, split.theta, split.embed
    else:
        rho_hist = split.hist * rho_total
        epsilon_theta = math.sqrt(8.0 * split.theta * rho_total / L)
        rho_embed = split.embed * rho_total / L
    if rho_hist >= rho_total:
        raise InfeasibleBudgetError(
            f"the keyword histogram alone (rho_hist={rho_hist:.4g}) needs more than the whole budget at {target}. "
            "Raise epsilon, or give the histogram a share of the budget instead (`--split fractions` on the CLI, "
            "split='fractions' in the API)."
        )
    per_cluster = (rho_total - rho_hist) / L
    fixed = epsilon_theta**2 / 8.0 + rho_embed
    rho_generation = per_cluster - fixed
    if rho_generation <= 0:
        raise InfeasibleBudgetError(
            f"outlier removal costs {fixed:.4g} per cluster (threshold epsilon_theta={epsilon_theta:g}: "
            f"{epsilon_theta**2 / 8:.4g}; embedding sum: {rho_embed:.4g}) but only {per_cluster:.4g} per cluster "
            f"is left after the histogram with L={L} at {target}; nothing is left for generation. "
            "Raise epsilon, lower L, or use smaller threshold/embedding shares (`--split fractions` on the CLI, "
            "split='fractions' in the API)."
        )
    shrink = 1.0 - _SAFETY
    svt: dict = {}
    if svt_max_paid is not None:
        C = check_int("svt_max_paid", svt_max_paid)
        if C > T:
            raise ConfigError(f"`svt_max_paid` (C, paid tokens per text) must be <= T ({T}): a text has at most T "
                              f"tokens. Found {C}.")
        f = _num("svt_fraction", svt_fraction)
        if f >= 1:
            raise ConfigError(f"`svt_fraction` must lie strictly between 0 and 1. Found {svt_fraction!r}.")
        epsilon_svt = math.sqrt(2.0 * f * rho_generation / C * shrink)
        epsilon1 = epsilon_svt / (1.0 + SVT_EPSILON_RATIO)
        svt = dict(svt_max_paid=C, svt_fraction=f, svt_beta=svt_beta, svt_gap=svt_gap, svt_grid=svt_grid,
                   svt_epsilon1=epsilon1, svt_epsilon2=epsilon1 * SVT_EPSILON_RATIO)
        SparseVectorEvent("sparse-vector run", epsilon1, svt["svt_epsilon2"], svt_beta, svt_gap, svt_grid)  # checks β, g, q
        rho_token = (1.0 - f) * rho_generation / C * shrink
    elif phrase_max is not None:  # one release over the collection: all the histogram leaves, the whole δ share
        rho_release = rho_total - rho_hist if collection else rho_generation
        sigma_p, threshold_p = phrase_noise(phrase_max, rho_release * shrink, delta_phrases / (1 if collection else L))
        svt = dict(phrase_max=phrase_max, phrase_sigma=sigma_p, phrase_threshold=threshold_p, phrase_delta=delta_phrases,
                   phrase_scope=phrase_scope)
    else:
        rho_token = rho_generation / T * shrink
    clip = None if phrase_max is not None else temperature * math.sqrt(2.0 * rho_token)
    sigma_hist = math.sqrt(K / (2.0 * rho_hist * shrink))
    hist_threshold = (
        sparse_histogram_threshold(max_keywords=K, sigma=sigma_hist, delta=delta_hist) if delta_hist > 0 else None
    )
    on = split.outlier_removal
    result = CalibratedBudget(
        epsilon=epsilon,
        delta=delta,
        conversion=conversion,
        K=K,
        L=L,
        T=T,
        temperature=temperature,
        rho_total=rho_total,
        rho_hist=K / (2.0 * sigma_hist**2),
        sigma_hist=sigma_hist,
        delta_hist=delta_hist,
        hist_threshold=hist_threshold,
        epsilon_theta=epsilon_theta * shrink if on else None,
        rho_embed=rho_embed * shrink if on else 0.0,
        sigma_embed=math.sqrt(1.0 / (2.0 * rho_embed * shrink)) if on else None,
        clip=clip,
        rho_token=None if clip is None else 0.5 * (clip / temperature) ** 2,
        **svt,
    )
    plan = result.plan(num_clusters=L)
    achieved = epsilon_from_rho(plan.rho, delta - plan.delta, conversion=conversion)
    if achieved > epsilon:  # cannot happen with the margins above; a guard, never a silent overshoot
        raise ConfigError(f"internal calibration error: achieved epsilon {achieved!r} > target {epsilon!r}.")
    return result
