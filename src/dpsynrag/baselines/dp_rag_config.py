"""DP-RAG's parameters (:class:`DPRAGConfig`), their per-query calibration (:class:`DPRAGCalibration`)
and Grislain's system prompts; the session is :class:`~dpsynrag.baselines.dp_rag.DPRAGSession`.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any, Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, model_validator

from dpsynrag.baselines.common import SAFETY, check_achieved
from dpsynrag.errors import InfeasibleBudgetError
from dpsynrag.privacy.conversions import rho_from_epsilon
from dpsynrag.privacy.events import (
    ComposedEvent,
    ExponentialMechanismEvent,
    PrivatePredictionTokenEvent,
    SelfComposedEvent,
)

DOCUMENT_SYSTEM_PROMPT = (
    'You give a short responses based on this document or a predefined set of similar documents.\nDocument:\n"{document}"'
)
"""Grislain's per-document system prompt (dp_model.py), ``{document}`` replaced by the document text."""

PUBLIC_SYSTEM_PROMPT = "You give a short response based on a predefined set documents."
"""Grislain's public system prompt: the public prompt is this system message and the question, no document."""


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
    """Parameters of DP-RAG (Grislain 2024; defaults from its test_dp_rag.py and DP-SynRAG App. C.3, except
    the threshold utility, the prompts and ω: see the deviations below).

    Privacy: ``epsilon_per_query`` > 0 and ``delta`` in (0, 1) are each query's (ε, δ) target;
    ``conversion`` the ρ → ε conversion used to calibrate. The retrieval threshold gets
    ε_r = ``retrieval_epsilon`` if set, else ``retrieval_fraction`` × ``epsilon_per_query`` (default
    1/11: Grislain's split, retrieval 0.5 : generation 5.0); the rest of ρ_q goes to generation.

    Retrieval: ``utility`` "top-k" (``top_k``, default 20) or "top-p" (``top_p``, ``top_p_alpha``),
    threshold on cosine scores over [0, 1]. Generation: ``max_new_tokens`` T, ``temperature`` τ,
    ``public_weight`` ω (0 turns the public prompt off), documents truncated to ``max_document_tokens``
    tokens in the prompts. ``model`` / ``embedder`` are loaded when the session is not given models.

    ``prompts``: "task" (default) gives every retrieved document the prompt RAG gives its documents in
    the same evaluation — the task's answer system prompt, the document as ``[1]`` and the question
    (:func:`~dpsynrag.rag.answer.answer_user_prompt`) — and the public prompt is Non-RAG's (the question
    alone); "reference" uses Grislain's system prompts ``document_system_prompt`` /
    ``public_system_prompt`` (written for Phi-3.5: with SmolLM2-135M one document under them names the
    diagnosis in 0 of 60 greedy answers on Medical Synth, against 15 of 60 under the task's prompt).

    Deviations from the reference defaults (top-p 0.02, Grislain's prompts, ω = 0.01), measured on
    Medical Synth (2,000 notes, ε = 10 per question, T = 16; issue 53): the top-p utility with
    data-independent weights (the sound one, :func:`~dpsynrag.baselines.dp_rag_threshold.top_p_utility`)
    spans about p · Σ w ≈ 2 over [0, 1], so at ε_r ≈ 0.9 its threshold lands above every score in 7 of 10
    questions and nothing is retrieved: every token is then drawn from ω · log_softmax(l_pub)/τ, close to
    uniform over the vocabulary at ω = 0.01 (the "token soup" answers). The top-k utility peaks sharply
    (|count − k| per unit of utility) and retrieved 11–23 notes for k = 20 in the same 10 questions.
    A document adds at most 2c/τ ≈ 1 nat to its token's score at ε = 10, so a token needs about
    ln(vocabulary) ≈ 11 agreeing documents to outweigh the vocabulary's tail: the public model's
    log-probabilities (free) remove that tail, but at ω = 1 they also outvote the collection's rare
    names. On questions 0–9 (chosen there, so the multi-query curve reports other questions): ω = 1
    0/10 correct (fluent, generic), ω = 0.2 1/10, ω = 0.01 1/10 with some answers still token soup;
    hence ω = 0.2.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    epsilon_per_query: float = Field(gt=0)
    delta: float = Field(gt=0, lt=1)
    conversion: Literal["bun-steinke", "cks"] = "bun-steinke"
    retrieval_epsilon: Optional[float] = Field(None, gt=0)
    retrieval_fraction: float = Field(1.0 / 11.0, gt=0, lt=1)
    utility: Literal["top-p", "top-k"] = "top-k"
    top_p: float = Field(0.02, gt=0, lt=1)
    top_p_alpha: float = Field(5.0, ge=0)
    top_k: int = Field(20, ge=0)
    max_new_tokens: int = Field(70, ge=1)
    temperature: float = Field(1.0, gt=0)
    public_weight: float = Field(0.2, ge=0)
    prompts: Literal["task", "reference"] = "task"
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
