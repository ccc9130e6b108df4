"""DP-RAG: query-time differentially private RAG (Grislain, "RAG with Differential Privacy", arXiv
2412.19291, §"DP-RAG"; METHOD.md §5; algorithm_brief §2.1). The per-query baseline of DP-SynRAG §6.

For each query q, over the private collection D (privacy unit = one document, add/remove neighbours):

1. **Pay** the query's budget to the session (before anything is computed for it).
2. **Privacy-unit-preserving retrieval.** s_i = cos(E(q), E(d_i)) for every document. A threshold
   θ ∈ [0, 1] is drawn by the continuous exponential mechanism (Lebesgue base measure) with the top-k
   utility U(θ) = −|#{i : s_i > θ} − k| (:func:`~dpsynrag.privacy.mechanisms.exponential_threshold`,
   which peaks exactly at k — the reference code peaks at k − 2) or the top-p utility of
   :func:`top_p_utility`; the retrieved set is S_q = {d_i : s_i > θ}. **No random sub-sampling cap**
   on S_q (the reference's ``random.sample(..., 128)`` can double the sensitivity under add/remove).
3. **Private prediction** over S_q (:class:`~dpsynrag.models.PrivatePredictionDecoder`): one prompt per
   retrieved document (Grislain's: system ``You give a short responses based on this document or a
   predefined set of similar documents.\\nDocument:\\n"{document}"``, user = the question), the same
   clipping as DP-SynRAG (:func:`~dpsynrag.privacy.mechanisms.clip_logits`), T tokens from
   softmax((Σ clip_c(l_d) + ω · log_softmax(l_pub)) / τ), where l_pub comes from the public prompt (the
   question without any document) with weight ω (Grislain: 0.01).

Privacy cost of one query (zCDP, nats):

    ρ_q = ε_r²/8 + T · (c/τ)²/2

— the threshold is an ε_r-DP, ε_r-bounded-range exponential mechanism (Cesar & Rogers 2021, Lemma 3.2:
ε²/8), each token a 2c/τ-bounded-range one (DP-SynRAG App. B). c is calibrated so that ρ_q converts to
at most ``epsilon_per_query`` at ``delta`` (Bun–Steinke by default, as the paper; or CKS).

A :class:`DPRAGSession` accumulates queries and reports both compositions of m queries:

* **basic** (the paper's comparison, §6.1: ε_total = m · ε_query): ε = m · ``epsilon_per_query`` and
  δ = m · ``delta`` — each query is (``epsilon_per_query``, ``delta``)-DP (its mechanisms' ρ_q converted
  at ``delta``; the converted value is at most the requested one), and basic composition sums both;
* **zCDP**: ρ = m · ρ_q, converted once at the session δ = ``delta`` (much smaller than m · ε_q for
  large m; both are valid guarantees).

With ``total_epsilon``, the session refuses (``PrivacyBudgetExceededError``) any call whose queries would
take the chosen composition's ε above it; with ``total_delta``, any call that would take its δ above it
(basic composition: m · δ; zCDP composition: δ whatever m). Whatever the budgets, it refuses a call that
would make m · δ >= 1, where basic composition (always reported) guarantees nothing. Nothing is charged
or computed for a refused call.

Released per query: the answer text only. The retrieved documents, their number and the scores are
private and never leave the session (:class:`~dpsynrag.rag.Answer` ``context`` is empty).
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal, Optional

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

from dpsynrag.baselines._common import (
    BUDGET_RTOL,
    SAFETY,
    as_documents,
    check_achieved,
    load_models,
    make_report,
    resolve_task,
)
from dpsynrag.data.io import Document
from dpsynrag.errors import (
    ConfigError,
    InfeasibleBudgetError,
    PrivacyBudgetExceededError,
)
from dpsynrag.privacy.accountant import ZCDPAccountant
from dpsynrag.privacy.conversions import epsilon_from_rho, rho_from_epsilon
from dpsynrag.privacy.events import (
    ComposedEvent,
    ExponentialMechanismEvent,
    PrivatePredictionTokenEvent,
    SelfComposedEvent,
)
from dpsynrag.privacy.ledger import prepare_charge
from dpsynrag.privacy.mechanisms import exponential_threshold
from dpsynrag.privacy.report import PrivacyReport
from dpsynrag.rag import Answer, check_questions
from dpsynrag.rng import RandomSource, make_random

DOCUMENT_SYSTEM_PROMPT = (
    'You give a short responses based on this document or a predefined set of similar documents.\nDocument:\n"{document}"'
)
"""Grislain's per-document system prompt (dp_model.py), ``{document}`` replaced by the document text."""

PUBLIC_SYSTEM_PROMPT = "You give a short response based on a predefined set documents."
"""Grislain's public system prompt: the public prompt is this system message and the question, no document."""


# ----------------------------------------------------------------------------------------------
# Retrieval threshold utilities and the top-p mechanism
# ----------------------------------------------------------------------------------------------


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


# ----------------------------------------------------------------------------------------------
# Configuration and calibration
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DPRAGCalibration:
    """The calibrated per-query mechanisms of DP-RAG. All rho in zCDP nats.

    Attributes:
        epsilon_per_query, delta, conversion: the per-query target and the ρ → ε conversion.
        rho_query: ρ_q = ε_r²/8 + T · (c/τ)²/2, what one query costs.
        retrieval_epsilon: ε_r of the threshold mechanism; rho_retrieval = ε_r²/8.
        clip, temperature, T: c, τ and the tokens per answer; rho_token = (c/τ)²/2.
        epsilon_achieved: ρ_q converted at δ (≤ epsilon_per_query).
    """

    epsilon_per_query: float
    delta: float
    conversion: str
    retrieval_epsilon: float
    rho_retrieval: float
    clip: float
    temperature: float
    T: int
    rho_token: float
    rho_query: float
    epsilon_achieved: float

    def query_plan(self, name: str = "one DP-RAG query") -> ComposedEvent:
        """One query's mechanisms: the retrieval threshold then T private prediction tokens."""
        return ComposedEvent(
            name=name,
            events=(
                ExponentialMechanismEvent(name="retrieval threshold", epsilon=self.retrieval_epsilon),
                SelfComposedEvent(
                    PrivatePredictionTokenEvent(name="private prediction token", clip=self.clip, temperature=self.temperature),
                    self.T,
                    name=f"{self.T} private prediction tokens",
                ),
            ),
        )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class DPRAGConfig(BaseModel):
    """Parameters of DP-RAG (Grislain 2024; defaults from its test_dp_rag.py and DP-SynRAG App. C.3).

    Privacy: ``epsilon_per_query`` > 0 and ``delta`` in (0, 1) are each query's (ε, δ) target;
    ``conversion`` the ρ → ε conversion used to calibrate. The retrieval threshold gets
    ε_r = ``retrieval_epsilon`` if set, else ``retrieval_fraction`` × ``epsilon_per_query`` (default
    1/11: Grislain's split, retrieval 0.5 : generation 5.0); the rest of ρ_q goes to generation.

    Retrieval: ``utility`` "top-p" (``top_p``, ``top_p_alpha``) or "top-k" (``top_k``), threshold on
    cosine scores over [0, 1]. Generation: ``max_new_tokens`` T, ``temperature`` τ, ``public_weight`` ω
    (0 turns the public prompt off), the per-document and public system prompts, documents truncated
    to ``max_document_tokens`` tokens in the prompts. ``model`` / ``embedder`` are loaded when the
    session is not given models.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    epsilon_per_query: float = Field(gt=0)
    delta: float = Field(gt=0, lt=1)
    conversion: Literal["bun-steinke", "cks"] = "bun-steinke"
    retrieval_epsilon: Optional[float] = Field(None, gt=0)
    retrieval_fraction: float = Field(1.0 / 11.0, gt=0, lt=1)
    utility: Literal["top-p", "top-k"] = "top-p"
    top_p: float = Field(0.02, gt=0, lt=1)
    top_p_alpha: float = Field(5.0, ge=0)
    top_k: int = Field(80, ge=0)
    max_new_tokens: int = Field(70, ge=1)
    temperature: float = Field(1.0, gt=0)
    public_weight: float = Field(0.01, ge=0)
    document_system_prompt: str = DOCUMENT_SYSTEM_PROMPT
    public_system_prompt: str = PUBLIC_SYSTEM_PROMPT
    max_document_tokens: int = Field(256, ge=8)
    memory_budget_gb: float = Field(2.0, gt=0)
    model: Optional[str] = None
    embedder: Optional[str] = None

    @model_validator(mode="after")
    def _consistent(self) -> "DPRAGConfig":
        if "{document}" not in self.document_system_prompt:
            raise ValueError("`document_system_prompt` must contain the placeholder {document}.")
        return self

    @property
    def effective_retrieval_epsilon(self) -> float:
        """ε_r of the retrieval threshold."""
        if self.retrieval_epsilon is not None:
            return float(self.retrieval_epsilon)
        return self.retrieval_fraction * self.epsilon_per_query

    def calibrate(self) -> DPRAGCalibration:
        """Solve the clip c so that one query is (``epsilon_per_query``, ``delta``)-DP.

        ρ_q = ρ(ε_q, δ) (conversion inverted); c = τ · sqrt(2 (ρ_q − ε_r²/8) / T), shrunk by 1e-10.

        Raises:
            InfeasibleBudgetError: the retrieval threshold alone costs the whole per-query budget.
        """
        rho_q = rho_from_epsilon(self.epsilon_per_query, self.delta, conversion=self.conversion)
        eps_r = self.effective_retrieval_epsilon
        rho_r = eps_r**2 / 8.0
        rho_gen = (rho_q - rho_r) * (1.0 - SAFETY)
        if rho_gen <= 0:
            raise InfeasibleBudgetError(
                f"the retrieval threshold (epsilon_r={eps_r:g}: rho={rho_r:.4g}) needs the whole per-query budget "
                f"(epsilon_per_query={self.epsilon_per_query:g}, delta={self.delta:g}: rho={rho_q:.4g}). "
                "Lower retrieval_epsilon / retrieval_fraction, or raise epsilon_per_query."
            )
        clip = self.temperature * math.sqrt(2.0 * rho_gen / self.max_new_tokens)
        rho_token = 0.5 * (clip / self.temperature) ** 2
        rho_query = rho_r + self.max_new_tokens * rho_token
        achieved = check_achieved(
            rho_query, epsilon=self.epsilon_per_query, delta=self.delta, conversion=self.conversion, what="DP-RAG"
        )
        return DPRAGCalibration(
            epsilon_per_query=self.epsilon_per_query,
            delta=self.delta,
            conversion=self.conversion,
            retrieval_epsilon=eps_r,
            rho_retrieval=rho_r,
            clip=clip,
            temperature=self.temperature,
            T=self.max_new_tokens,
            rho_token=rho_token,
            rho_query=rho_query,
            epsilon_achieved=achieved,
        )


# ----------------------------------------------------------------------------------------------
# The session
# ----------------------------------------------------------------------------------------------

Composition = Literal["basic", "zcdp"]


class DPRAGSession:
    """Answers questions with DP-RAG over a private collection and accounts for every query.

    Args:
        documents: the private collection (Documents, strings, or a JSONL/CSV/Parquet path). Embedded
            once here (private; never released).
        config: the :class:`DPRAGConfig`.
        lm, embedder: the models (None: loaded from ``config.model`` / ``config.embedder``).
        task: a :class:`~dpsynrag.tasks.Task` or name (public; recorded in the report).
        total_epsilon: the most ε the session may spend under ``composition``; None for no limit.
        total_delta: the most δ the session may spend under ``composition`` (basic: m · ``delta``; zCDP:
            ``delta``); None for no limit other than m · ``delta`` < 1, which is always enforced.
        composition: "basic" (ε = m · ε_q, the paper's) or "zcdp" (ρ = m · ρ_q converted once at δ)
            — the composition ``total_epsilon`` is checked against. Both are always reported.
        seed: reproducible randomness (tests and experiments; the report says NOT FOR RELEASE);
            None (default) uses the operating system's secure generator.
        ledger: a :class:`~dpsynrag.privacy.ledger.PrivacyLedger` (the CLI's ``--ledger``): each
            :meth:`answer` call is recorded there (its questions × one query's ρ and δ) before anything is
            drawn, and refused when it would exceed the collection's lifetime budget; one query is
            checked here, before the models load. None: not recorded.

    Raises:
        InfeasibleBudgetError: the per-query budget cannot pay for the retrieval threshold, or
            ``total_epsilon`` / ``total_delta`` cannot pay for one query.
        ConfigError: a bad ``composition``, ``total_epsilon``, ``total_delta`` or ``task``. DataError: an
            empty collection.
    """

    def __init__(
        self,
        documents: Sequence[Document] | Sequence[str] | str | os.PathLike,
        config: DPRAGConfig,
        *,
        lm=None,
        embedder=None,
        task=None,
        total_epsilon: float | None = None,
        total_delta: float | None = None,
        composition: Composition = "basic",
        seed: int | None = None,
        ledger=None,
    ):
        if not isinstance(config, DPRAGConfig):
            raise ConfigError(f"`config` must be a DPRAGConfig. Found {type(config).__name__}.")
        if composition not in ("basic", "zcdp"):
            raise ConfigError(f"`composition` must be 'basic' or 'zcdp'. Found {composition!r}.")
        if total_epsilon is not None and (
            isinstance(total_epsilon, bool)
            or not isinstance(total_epsilon, (int, float))
            or not (0 < total_epsilon < math.inf)
        ):
            raise ConfigError(f"`total_epsilon` must be a finite number > 0 or None. Found {total_epsilon!r}.")
        if total_delta is not None and (
            isinstance(total_delta, bool) or not isinstance(total_delta, (int, float)) or not (0 < total_delta < 1)
        ):
            raise ConfigError(f"`total_delta` must be a number in (0, 1) or None. Found {total_delta!r}.")
        self.config = config
        self.composition: Composition = composition
        self.total_epsilon = None if total_epsilon is None else float(total_epsilon)
        self.total_delta = None if total_delta is None else float(total_delta)
        self.calibration = config.calibrate()
        self._plan = self.calibration.query_plan()
        if not self._fits(1):
            raise InfeasibleBudgetError(
                f"the session budget (total_epsilon={self.total_epsilon}, total_delta={self.total_delta}) cannot pay "
                f"for one query (epsilon_per_query={config.epsilon_per_query:g}, delta={config.delta:g}, {composition} "
                f"composition: one query costs epsilon={self._epsilon_after(1):.6g}, delta={self._delta_after(1):.3g})."
            )
        self.task = resolve_task(task)
        docs = as_documents(documents)
        self._ledger = ledger
        # one query must fit the collection's lifetime budget; its fingerprint (None without a ledger)
        self.ledger_dataset = prepare_charge(ledger, docs, self._plan, delta=config.delta, kind="dp-rag query",
                                             method="dp-rag", label="DP-RAG session").dataset
        self.random = make_random(seed)
        self._threshold_random = self.random.child("retrieval-threshold")
        self._sampling_random = self.random.child("private-prediction")
        self.lm, self.embedder = load_models(lm, embedder, model=config.model, embedder_spec=config.embedder)
        # Private state: never logged, never released.
        self._texts = [self.lm.truncate(d.text, config.max_document_tokens) for d in docs]
        self._embeddings = np.asarray(self.embedder.encode(self._texts), dtype=np.float64)
        self._accountant = ZCDPAccountant(name="DP-RAG session")
        self._queries = 0

    # -- accounting ---------------------------------------------------------------------------------

    @property
    def queries(self) -> int:
        """Queries paid so far."""
        return self._queries

    def _epsilon_after(self, m: int) -> float:
        """ε of m queries under the session's composition."""
        if m == 0:
            return 0.0
        if self.composition == "basic":
            return m * self.config.epsilon_per_query
        return epsilon_from_rho(m * self.calibration.rho_query, self.config.delta, conversion=self.config.conversion)

    def _delta_after(self, m: int) -> float:
        """δ of m queries under the session's composition (basic: m · δ; zCDP: δ, converted once)."""
        if m == 0:
            return 0.0
        return m * self.config.delta if self.composition == "basic" else self.config.delta

    def _fits(self, m: int) -> bool:
        if m * self.config.delta >= 1.0:  # basic composition (always reported) would guarantee nothing
            return False
        if self.total_delta is not None and self._delta_after(m) > self.total_delta * (1 + BUDGET_RTOL):
            return False
        return self.total_epsilon is None or self._epsilon_after(m) <= self.total_epsilon * (1 + BUDGET_RTOL)

    def remaining_queries(self) -> int:
        """How many more queries the session budgets pay for (``total_epsilon``, ``total_delta`` and
        m · δ < 1, which bounds m even without budgets)."""
        n = math.ceil(1.0 / self.config.delta)  # m · δ < 1
        if self.total_delta is not None and self.composition == "basic":
            n = min(n, int(math.floor(self.total_delta / self.config.delta * (1 + BUDGET_RTOL))))
        if self.total_epsilon is not None and self.composition == "basic":
            n = min(n, int(math.floor(self.total_epsilon / self.config.epsilon_per_query * (1 + BUDGET_RTOL))))
        elif self.total_epsilon is not None:
            rho_max = rho_from_epsilon(self.total_epsilon, self.config.delta, conversion=self.config.conversion)
            n = min(n, int(math.floor(rho_max / self.calibration.rho_query * (1 + BUDGET_RTOL))))
        while n > 0 and not self._fits(n):
            n -= 1
        while self._fits(n + 1):
            n += 1
        return max(0, n - self._queries)

    def spent(self) -> dict[str, Any]:
        """What the session has spent after m queries (both compositions).

        Returns:
            ``queries`` m; per query ``epsilon_per_query``, ``delta_per_query``, ``rho_per_query``;
            basic composition ``epsilon_basic`` = m · ε_q and ``delta_basic`` = m · δ; zCDP composition
            ``rho`` = m · ρ_q, ``epsilon_zcdp`` (the config's conversion) and ``epsilon_zcdp_tight`` (CKS)
            at ``delta`` = the session δ; the session's ``composition``, ``total_epsilon``, ``total_delta``,
            ``epsilon`` and ``delta_session`` (the session's composition) and ``remaining_queries``.
        """
        m, cal, cfg = self._queries, self.calibration, self.config
        rho = self._accountant.rho
        eps_zcdp = epsilon_from_rho(rho, cfg.delta, conversion=cfg.conversion)
        return {
            "queries": m,
            "epsilon_per_query": cfg.epsilon_per_query,
            "delta_per_query": cfg.delta,
            "rho_per_query": cal.rho_query,
            "epsilon_basic": m * cfg.epsilon_per_query,
            "delta_basic": m * cfg.delta,  # < 1: enforced
            "rho": rho,
            "epsilon_zcdp": eps_zcdp,
            "epsilon_zcdp_tight": epsilon_from_rho(rho, cfg.delta, conversion="cks"),
            "delta": cfg.delta,
            "composition": self.composition,
            "epsilon": m * cfg.epsilon_per_query if self.composition == "basic" else eps_zcdp,
            "total_epsilon": self.total_epsilon,
            "delta_session": self._delta_after(m),
            "total_delta": self.total_delta,
            "remaining_queries": self.remaining_queries(),
        }

    def report(self) -> PrivacyReport:
        """The session's privacy report: the m queries as m × (retrieval threshold + T tokens).

        ``epsilon`` / ``epsilon_tight`` / ``rho_total`` are the zCDP composition at δ = ``delta``;
        ``parameters`` holds the calibration and :meth:`spent` (basic composition: ``epsilon_basic``,
        ``delta_basic``).
        """
        summary = ZCDPAccountant(name="DP-RAG session")
        if self._queries:
            summary.compose(SelfComposedEvent(self._plan, self._queries, name=f"{self._queries} DP-RAG queries"))
        spent = self.spent()
        return make_report(
            summary,
            delta=self.config.delta,
            composition=(
                "Per query: the retrieval threshold (exponential mechanism, eps_r^2/8 zCDP) and T private "
                "prediction tokens ((c/tau)^2/2 each), sequentially. Across queries: zCDP composition, rho = m x rho_q "
                f"converted once at delta (epsilon here); basic composition, epsilon = m x epsilon_per_query = "
                f"{spent['epsilon_basic']:.6g} and delta = m x delta = {spent['delta_basic']:.3g} (the paper's "
                f"comparison). The session's budget is checked under {self.composition} composition."
            ),
            parameters={
                **self.calibration.to_dict(),
                "utility": self.config.utility,
                "top_p": self.config.top_p if self.config.utility == "top-p" else None,
                "top_p_alpha": self.config.top_p_alpha if self.config.utility == "top-p" else None,
                "top_k": self.config.top_k if self.config.utility == "top-k" else None,
                "public_weight": self.config.public_weight,
                "task": None if self.task is None else self.task.name,
                **{f"session_{k}": v for k, v in spent.items()},
            },
            random=self.random,
        )

    def _pay(self, index: int) -> ZCDPAccountant:
        """Charge one query to the session; returns its branch accountant (budget = the query plan)."""
        self._accountant.compose(self._plan)
        self._queries += 1
        return ZCDPAccountant(rho_budget=self._plan.rho, delta_budget=self._plan.delta, name=f"DP-RAG query {index}")

    # -- answering ----------------------------------------------------------------------------------

    def _threshold(self, scores: np.ndarray, accountant: ZCDPAccountant) -> float:
        cfg, eps_r = self.config, self.calibration.retrieval_epsilon
        if cfg.utility == "top-k":
            return exponential_threshold(
                scores, target=cfg.top_k, epsilon=eps_r, accountant=accountant, random=self._threshold_random,
                name="retrieval threshold (top-k)",
            )
        return top_p_threshold(
            scores, p=cfg.top_p, alpha=cfg.top_p_alpha, epsilon=eps_r, accountant=accountant,
            random=self._threshold_random,
        )

    def answer(self, questions: Sequence[str], *, progress: bool = False) -> list[Answer]:
        """Answer each question with DP-RAG, paying ``epsilon_per_query`` per question.

        The call is checked against ``total_epsilon`` first: if its questions do not all fit, it raises
        and nothing is charged, retrieved or generated. Otherwise each question is paid *before*
        anything is computed for it, then retrieved; the answers of the call are decoded together
        (one branch accountant per question, each charged T tokens).

        Args:
            questions: the questions (public), any number.
            progress: show a progress bar while decoding.

        Returns:
            One :class:`~dpsynrag.rag.Answer` per question, ``context`` empty (the retrieved private
            documents are not released).

        Raises:
            PrivacyBudgetExceededError: the questions would take the session above ``total_epsilon`` or
                ``total_delta``, or make m · δ >= 1 (the message says which, and how many still fit);
                nothing was charged.
            DataError: ``questions`` is one string or holds an empty or non-string question.
        """
        questions = check_questions(questions)
        if not questions:
            return []
        m = self._queries + len(questions)
        if not self._fits(m):
            delta = self.config.delta
            if m * delta >= 1.0:
                why = (f"m x delta = {m} x {delta:g} = {m * delta:.3g} >= 1, where basic composition guarantees nothing "
                       "(lower delta: DPRAGConfig delta=, --delta)")
            elif self.total_delta is not None and self._delta_after(m) > self.total_delta * (1 + BUDGET_RTOL):
                why = (f"delta={self._delta_after(m):.3g} ({self.composition} composition), above "
                       f"total_delta={self.total_delta:g}")
            else:
                why = (f"epsilon={self._epsilon_after(m):.6g} ({self.composition} composition), above "
                       f"total_epsilon={self.total_epsilon:g}")
            raise PrivacyBudgetExceededError(
                f"answering {len(questions)} more question(s) would take the DP-RAG session to {why}; "
                f"{self.remaining_queries()} more question(s) fit. Nothing was charged or generated."
            )
        if self._ledger is not None:  # recorded (or refused) before anything is drawn for these questions
            m_new = len(questions)
            self._ledger.record(
                self.ledger_dataset, kind="dp-rag query", method="dp-rag", label="DP-RAG session",
                count=m_new, rho=m_new * self._plan.rho, delta_terms=min(1.0, m_new * self._plan.delta),
                delta=m_new * self.config.delta,
            )
        lm, cfg = self.lm, self.config
        clusters: list[list[str]] = []
        branches: list[ZCDPAccountant] = []
        for q in questions:
            branch = self._pay(self._queries)  # paid before anything is computed for this query
            q_emb = np.asarray(self.embedder.encode([q]), dtype=np.float64)[0]
            scores = self._embeddings @ q_emb
            theta = self._threshold(scores, branch)
            retrieved = np.flatnonzero(scores > theta)
            clusters.append(
                [lm.chat_prompt(q, system=cfg.document_system_prompt.replace("{document}", self._texts[j])) for j in retrieved]
            )
            branches.append(branch)
        from dpsynrag.models import PrivatePredictionDecoder

        cal = self.calibration
        common = dict(
            clip=cal.clip, temperature=cal.temperature, max_new_tokens=cal.T, random=self._sampling_random,
            memory_budget_gb=cfg.memory_budget_gb,
            # the public part of the document prompts (template + system text before the document),
            # which comes before the question; the same for every question
            prompt_prefix=lm.public_prefix(questions[0], system=cfg.document_system_prompt),
        )
        if cfg.public_weight > 0:  # one public prompt per question: one decoder per question
            texts = []
            for q, members, branch in zip(questions, clusters, branches):
                decoder = PrivatePredictionDecoder(
                    lm, public_prompt=lm.chat_prompt(q, system=cfg.public_system_prompt),
                    public_weight=cfg.public_weight, **common,
                )
                texts.extend(decoder.generate([members], [branch], progress=progress))
        else:
            texts = PrivatePredictionDecoder(lm, **common).generate(clusters, branches, progress=progress)
        del clusters
        return [Answer(q, t.strip(), ()) for q, t in zip(questions, texts)]
