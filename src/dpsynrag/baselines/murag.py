"""MuRAG and MuRAG-Ada: multi-query private RAG with an individual privacy filter per document (Wu, Wang,
Zhang & Wang, "Private-RAG: Answering Multiple Queries with LLMs while Keeping Your Data Private", arXiv
2511.07637). Their loss grows with how often a document is *retrieved*, not with the number of queries.

**What is implemented (from first principles: the paper's exact pseudo-code was not reachable here).**
Privacy unit: one document, add/remove. Every document i has the zCDP budget B = ρ(``epsilon``,
``delta``), enforced by :class:`~dpsynrag.privacy.individual.IndividualRenyiFilter` (Feldman & Zrnic 2021).
Each use of a document costs at most ρ_use = B / ``max_retrievals``.

* **MuRAG** (fixed threshold): for a question q, the candidates are the documents with
  cos(E(q), E(d_i)) >= τ (``relevance_threshold``, public). Whether i is a candidate depends on q and
  d_i only. The candidates that can still pay ρ_gen = ρ_use are retrieved and charged; the others are
  dropped (the filter). The answer is private prediction over the retrieved set S_q
  (:class:`~dpsynrag.models.PrivatePredictionDecoder`: one prompt per document, logits clipped to
  [−c, c], T tokens from softmax((Σ clip_c(l_d) + ω · log_softmax(l_pub)) / τ_s)), each token a
  2c/τ_s-bounded-range mechanism, so one answer costs ρ_gen = T (c/τ_s)²/2 — to the retrieved
  documents only: a document that is not a candidate does not change the output (individual loss 0).
* **MuRAG-Ada** (query-specific threshold): the documents above a public floor τ_0 that can pay
  ρ_hist are binned on the public grid τ_0, τ_0 + w, … (each document in one bin: L2 sensitivity 1) and
  the bin counts released with Gaussian noise N(0, σ²), ρ_hist = 1/(2σ²) (Bun & Steinke 2016, Prop.
  1.6), charged to those documents only. The threshold θ_q is the highest grid edge whose noisy count
  from the top reaches ``top_k`` (post-processing); then retrieval and generation as MuRAG with
  candidates s_i >= θ_q, ρ_gen = ρ_use − ρ_hist.

**Proof sketch.** Each mechanism's individual cost for document i is known before it runs, from the
question (public), the earlier outputs and d_i alone (0 when i is below τ or τ_0): the conditions of
Feldman & Zrnic's Thm. 4.5, so the session is B-zCDP for every document whatever the number of
questions (:mod:`dpsynrag.privacy.individual`), i.e. (``epsilon``, ``delta``)-DP. No cap on |S_q|: a
top-k cap would make i's retrieval depend on the other documents.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any, ClassVar

import numpy as np
from pydantic import Field

from dpsynrag.baselines.common import SAFETY, rho_target
from dpsynrag.baselines.query_time import QueryTimeConfig, QueryTimeSession
from dpsynrag.errors import ConfigError, InfeasibleBudgetError
from dpsynrag.privacy.accountant import ZCDPAccountant
from dpsynrag.privacy.events import GaussianEvent
from dpsynrag.privacy.individual import IndividualRenyiFilter
from dpsynrag.rag.answer import check_questions


class MuRAGConfig(QueryTimeConfig):
    """MuRAG: ``relevance_threshold`` τ (cosine, public), ``max_retrievals`` R (each use of a document
    costs B/R), private prediction with ``temperature`` τ_s and public weight ``public_weight`` ω."""

    relevance_threshold: float = Field(0.5, ge=-1, le=1)
    max_retrievals: int = Field(10, ge=1)
    temperature: float = Field(1.0, gt=0)
    public_weight: float = Field(1.0, gt=0)

    def calibrate(self) -> "MuRAGCalibration":
        """B = ρ(ε, δ); ρ_use = B/R; ρ_gen = ρ_use (ρ_use − ρ_hist for MuRAG-Ada); c = τ_s √(2 ρ_gen / T)."""
        budget = rho_target(self.epsilon, self.delta, self.conversion, what=type(self).__name__)
        use = budget / self.max_retrievals
        hist = self._histogram_rho(use)
        gen = (use - hist) * (1.0 - SAFETY)
        if gen <= 0:
            raise InfeasibleBudgetError(f"{type(self).__name__}: the threshold histogram takes the whole cost of a use.")
        clip = self.temperature * math.sqrt(2.0 * gen / self.max_new_tokens)
        return MuRAGCalibration(rho_budget=budget, rho_use=use, rho_histogram=hist,
                                sigma_histogram=None if hist == 0 else math.sqrt(1.0 / (2.0 * hist)),
                                rho_generation=self.max_new_tokens * 0.5 * (clip / self.temperature) ** 2,
                                clip=clip, temperature=self.temperature, T=self.max_new_tokens)

    def _histogram_rho(self, use: float) -> float:
        return 0.0


class MuRAGAdaConfig(MuRAGConfig):
    """MuRAG-Ada: besides MuRAG's, ``top_k`` documents targeted per question, the histogram's public
    ``floor`` τ_0 and ``bin_width`` w, and ``histogram_fraction`` of a use's cost spent on it."""

    top_k: int = Field(5, ge=1)
    floor: float = Field(0.5, ge=-1, lt=1)
    bin_width: float = Field(0.02, gt=0, le=1)
    histogram_fraction: float = Field(0.2, gt=0, lt=1)

    def _histogram_rho(self, use: float) -> float:
        return self.histogram_fraction * use


@dataclass(frozen=True)
class MuRAGCalibration:
    """Per-document costs (zCDP nats): the budget B, a use ρ_use = B/R, its histogram part ρ_hist =
    1/(2σ²) (MuRAG-Ada; 0 for MuRAG) and generation part ρ_gen = T (c/τ)²/2."""

    rho_budget: float
    rho_use: float
    rho_histogram: float
    sigma_histogram: float | None
    rho_generation: float
    clip: float
    temperature: float
    T: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class MuRAGSession(QueryTimeSession):
    """MuRAG over a private collection (see the module docstring); arguments of
    :class:`~dpsynrag.baselines.query_time.QueryTimeSession`."""

    method: ClassVar[str] = "murag"
    label: ClassVar[str] = "MuRAG"
    config_type: ClassVar[type] = MuRAGConfig

    def __init__(self, documents, config, **kwargs):
        super().__init__(documents, config, **kwargs)
        self._accountant.compose(self.plan)  # the filter's budget is the session's whole guarantee
        self._filter = IndividualRenyiFilter(len(self._texts), self.calibration.rho_budget, name=f"{self.label} filter")
        self._noise = self.random.child("threshold-histogram")
        self._sampling = self.random.child("private-prediction")

    @classmethod
    def plan_of(cls, config):
        """The filter's budget B per document: the whole session's guarantee."""
        return IndividualRenyiFilter(1, config.calibrate().rho_budget, name=f"{cls.label} filter").guarantee()

    def _parameters(self):
        return self.calibration.to_dict()

    def _composition(self) -> str:
        return ("Individual Renyi filter (Feldman & Zrnic 2021): each document pays only when it is used (retrieved, "
                "or counted in a threshold histogram) and is dropped before it would pass its budget rho_budget; the "
                "session is rho_budget-zCDP per document whatever the number of questions.")

    def _threshold(self, scores: np.ndarray) -> float:
        """MuRAG's public relevance threshold (MuRAG-Ada overrides it with a released one)."""
        return self.config.relevance_threshold

    def _retrieve(self, question: str) -> np.ndarray:
        """The retrieved documents' indices (private), charged to the filter before anything is drawn."""
        scores = self._scores(question)
        theta = self._threshold(scores)
        candidates = np.flatnonzero(scores >= theta)
        retrieved = candidates[self._filter.admits(candidates, self.calibration.rho_generation)]
        self._filter.charge(retrieved, self.calibration.rho_generation)  # before the first token is drawn
        return retrieved

    def spend(self, questions) -> None:
        """Run questions through retrieval and the filter's charges without answering them.

        What the session would charge for them (MuRAG-Ada's threshold histograms drawn and charged too),
        with no answer generated or released: the filter then stands where it would after answering them.
        The multi-query curve (``benchmarks/bench_multiquery.py``) measures the last questions of a long
        session this way. Counts as questions of the session (``queries``).

        Raises:
            DataError: ``questions`` is one string or holds an empty or non-string question.
        """
        for q in check_questions(questions):
            self._charge.commit()
            self._retrieve(q)
            self._queries += 1

    def _answer(self, question: str, index: int) -> str:
        retrieved = self._retrieve(question)
        cal = self.calibration
        from dpsynrag.models import PrivatePredictionDecoder

        decoder = PrivatePredictionDecoder(
            self.lm, clip=cal.clip, temperature=cal.temperature, max_new_tokens=cal.T, random=self._sampling,
            public_prompt=self._prompt(question, []), public_weight=self.config.public_weight,
            memory_budget_gb=self.config.memory_budget_gb,
        )
        members = [self._prompt(question, [self._texts[j]]) for j in retrieved]
        branch = ZCDPAccountant(rho_budget=cal.rho_generation, name=f"{self.label} question {index}")
        return decoder.generate([members], [branch])[0]


class MuRAGAdaSession(MuRAGSession):
    """MuRAG-Ada: MuRAG with a released, question-specific threshold (see the module docstring)."""

    method: ClassVar[str] = "murag-ada"
    label: ClassVar[str] = "MuRAG-Ada"
    config_type: ClassVar[type] = MuRAGAdaConfig

    def edges(self) -> np.ndarray:
        """The public grid τ_0, τ_0 + w, … (< 1) of the threshold histogram, float64 [n_bins]."""
        cfg = self.config
        n = max(1, math.ceil((1.0 - cfg.floor) / cfg.bin_width - 1e-9))
        return cfg.floor + cfg.bin_width * np.arange(n)

    def _threshold(self, scores: np.ndarray) -> float:
        cal, edges = self.calibration, self.edges()
        above = np.flatnonzero(scores >= edges[0])
        counted = above[self._filter.admits(above, cal.rho_histogram)]
        bins = np.clip(np.searchsorted(edges, scores[counted], side="right") - 1, 0, len(edges) - 1)
        counts = np.bincount(bins, minlength=len(edges)).astype(np.float64)
        self._filter.charge(counted, cal.rho_histogram)  # before the noise is drawn
        event = GaussianEvent(name="threshold histogram", sensitivity=1.0, sigma=cal.sigma_histogram,
                              dimension=len(edges))
        if abs(event.rho - cal.rho_histogram) > 1e-9 * cal.rho_histogram:  # pragma: no cover - internal guard
            raise ConfigError("internal calibration error: the histogram's sigma does not match its cost.")
        noisy = self._noise.add_gaussian(counts, cal.sigma_histogram)
        from_top = np.cumsum(noisy[::-1])[::-1]  # noisy number of documents at or above each edge
        reach = np.flatnonzero(from_top >= self.config.top_k)
        return float(edges[reach[-1]]) if reach.size else float(edges[0])
