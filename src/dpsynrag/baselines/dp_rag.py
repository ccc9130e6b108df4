"""DP-RAG: query-time differentially private RAG (Grislain, "RAG with Differential Privacy", arXiv
2412.19291, §"DP-RAG"; METHOD.md §5; algorithm_brief §2.1). The per-query baseline of DP-SynRAG §6.

For each query q, over the private collection D (privacy unit = one document, add/remove neighbours):

1. **Pay** the query's budget to the session (before anything is computed for it).
2. **Privacy-unit-preserving retrieval.** s_i = cos(E(q), E(d_i)) for every document. A threshold
   θ ∈ [0, 1] is drawn by the continuous exponential mechanism (Lebesgue base measure) with the top-k
   utility U(θ) = −|#{i : s_i > θ} − k| (:func:`~dpsynrag.privacy.mechanisms.exponential_threshold`,
   which peaks exactly at k — the reference code peaks at k − 2) or the top-p utility of
   :func:`~dpsynrag.baselines.dp_rag_threshold.top_p_utility`; the retrieved set is S_q = {d_i : s_i > θ}. **No random sub-sampling cap**
   on S_q (the reference's ``random.sample(..., 128)`` can double the sensitivity under add/remove).
3. **Private prediction** over S_q (:class:`~dpsynrag.models.PrivatePredictionDecoder`): one prompt per
   retrieved document (default: the task's RAG answer prompt with that one document; ``prompts=
   "reference"``: Grislain's system prompt holding the document, user = the question), the same
   clipping as DP-SynRAG (:func:`~dpsynrag.privacy.prediction.clip_logits`), T tokens from
   softmax((Σ clip_c(l_d) + ω · log_softmax(l_pub)) / τ), where l_pub comes from the public prompt (the
   question without any document) with weight ω (default 0.2; Grislain: 0.01 — see
   :class:`~dpsynrag.baselines.dp_rag_config.DPRAGConfig` for each deviation and what it was measured on).

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
from typing import Any, Literal

import numpy as np

from dpsynrag.baselines.common import (
    BUDGET_RTOL,
    load_models,
    make_report,
    resolve_task,
)
from dpsynrag.baselines.dp_rag_config import DPRAGConfig
from dpsynrag.baselines.dp_rag_threshold import top_p_threshold
from dpsynrag.data.io import Document, as_documents
from dpsynrag.errors import (
    ConfigError,
    InfeasibleBudgetError,
    PrivacyBudgetExceededError,
)
from dpsynrag.privacy.accountant import ZCDPAccountant
from dpsynrag.privacy.conversions import epsilon_from_rho, rho_from_epsilon
from dpsynrag.privacy.events import SelfComposedEvent
from dpsynrag.privacy.charge import prepare_charge
from dpsynrag.privacy.mechanisms import exponential_threshold
from dpsynrag.privacy.report import PrivacyReport
from dpsynrag.rag.answer import DEFAULT_SYSTEM_PROMPT, Answer, answer_user_prompt, check_questions
from dpsynrag.rng import make_random


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

    def _prompts(self):
        """(member prompt of (question, document), public prompt of a question, the prompts' public prefix
        ids of a question) under ``config.prompts``."""
        lm, cfg = self.lm, self.config
        if cfg.prompts == "reference":
            return (
                lambda q, text: lm.chat_prompt(q, system=cfg.document_system_prompt.replace("{document}", text)),
                lambda q: lm.chat_prompt(q, system=cfg.public_system_prompt),
                lambda q: lm.public_prefix(q, system=cfg.document_system_prompt),
            )
        system = self.task.answer_system_prompt if self.task is not None else DEFAULT_SYSTEM_PROMPT
        return (
            lambda q, text: lm.chat_prompt(answer_user_prompt(q, [text]), system=system),
            lambda q: lm.chat_prompt(answer_user_prompt(q, []), system=system),
            lambda q: lm.public_prefix(answer_user_prompt(q, ["{document}"]), system=system),
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
        member_prompt, public_prompt, prefix_template = self._prompts()
        clusters: list[list[str]] = []
        branches: list[ZCDPAccountant] = []
        for q in questions:
            branch = self._pay(self._queries)  # paid before anything is computed for this query
            q_emb = np.asarray(self.embedder.encode([q]), dtype=np.float64)[0]
            scores = self._embeddings @ q_emb
            theta = self._threshold(scores, branch)
            retrieved = np.flatnonzero(scores > theta)
            clusters.append([member_prompt(q, self._texts[j]) for j in retrieved])
            branches.append(branch)
        from dpsynrag.models import PrivatePredictionDecoder

        cal = self.calibration
        common = dict(
            clip=cal.clip, temperature=cal.temperature, max_new_tokens=cal.T, random=self._sampling_random,
            memory_budget_gb=cfg.memory_budget_gb,
            # the public part of the document prompts (template + instructions before the document),
            # which comes before the question; the same for every question
            prompt_prefix=prefix_template(questions[0]),
        )
        if cfg.public_weight > 0:  # one public prompt per question: one decoder per question
            texts = []
            for q, members, branch in zip(questions, clusters, branches):
                decoder = PrivatePredictionDecoder(
                    lm, public_prompt=public_prompt(q),
                    public_weight=cfg.public_weight, **common,
                )
                texts.extend(decoder.generate([members], [branch], progress=progress))
        else:
            texts = PrivatePredictionDecoder(lm, **common).generate(clusters, branches, progress=progress)
        del clusters
        return [Answer(q, t.strip(), ()) for q, t in zip(questions, texts)]
