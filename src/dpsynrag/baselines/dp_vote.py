"""DPVoteRAG and DPSparseVoteRAG: subsample-and-aggregate voting over disjoint voters (Koga, Wu &
Chaudhuri, "Privacy-Preserving Retrieval-Augmented Generation with Differential Privacy", arXiv
2412.04697).

**What is implemented (from first principles where the paper's details were not reachable here).**
Privacy unit: one document, add/remove. The collection is split into M = ``voters`` disjoint shards by
:func:`~dpsynrag.baselines.query_time.shard_of` (a salted hash of each document alone). For a question
q, voter r answers from the top ``documents_per_voter`` documents *of its own shard*, so one document
changes the input of one voter only. Tokens are produced one by one, every voter seeing the released
prefix:

* **DPVoteRAG**: each voter votes its greedy next token; the token is drawn by the exponential
  mechanism on the vote histogram over the (public) vocabulary, P[y] ∝ exp(ε_tok n_y / 2)
  (:func:`~dpsynrag.privacy.voting.vote_exponential`: ε_tok-bounded range, ρ = ε_tok²/8). One answer
  costs ρ_q = T ε_tok²/8 (T = ``max_new_tokens``; an answer that stops early is charged the same plan).
  The paper uses its LimitedDomain mechanism for the vote; the exponential mechanism is our substitute.
* **DPSparseVoteRAG**: the model without documents proposes the public token y_pub (free). The query
  n_dis = #voters whose vote differs from y_pub (integer, sensitivity 1) goes to AboveThreshold
  (:class:`~dpsynrag.privacy.voting.AboveThreshold`, threshold θ = ``disagreement_threshold``); below, the
  public token is released for free; above, the token is voted as in DPVoteRAG and a new run opens. At
  most C = ``max_paid`` tokens are paid per answer (then public tokens only), so one answer costs
  ρ_q = C ((ε1 + ε2)²/2 + ε_tok²/8).

**Accounting.** Each answer's plan ρ_q is fixed by the config; the session plans ``queries`` answers
(m), ρ = m ρ_q = ρ(``epsilon``, ``delta``) (sequential zCDP composition), and refuses an answer past m.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any, ClassVar

import numpy as np
from pydantic import Field

from dpsynrag.baselines.common import rho_target
from dpsynrag.baselines.query_time import QueryTimeConfig, QueryTimeSession, shard_of
from dpsynrag.errors import PrivacyBudgetExceededError
from dpsynrag.privacy.accountant import ZCDPAccountant
from dpsynrag.privacy.events import ComposedEvent, ExponentialMechanismEvent, PrivacyEvent, SelfComposedEvent
from dpsynrag.privacy.query_events import AboveThresholdEvent
from dpsynrag.privacy.voting import AboveThreshold, vote_exponential


class DPVoteConfig(QueryTimeConfig):
    """DPVoteRAG: ``voters`` M disjoint shards (split by ``shard_salt``, public), ``documents_per_voter``
    retrieved from each, ``queries`` m answers planned in the session's budget."""

    voters: int = Field(8, ge=1)
    documents_per_voter: int = Field(1, ge=1)
    queries: int = Field(100, ge=1)
    shard_salt: str = "dpsynrag-voters"

    def calibrate(self) -> "VoteCalibration":
        """ρ_q = ρ(ε, δ)/m; ε_tok = √(8 ρ_q / T)."""
        rho_q = rho_target(self.epsilon, self.delta, self.conversion, what=type(self).__name__) / self.queries
        return VoteCalibration(rho_query=rho_q, epsilon_token=math.sqrt(8.0 * rho_q / self.max_new_tokens),
                               epsilon1=None, epsilon2=None, max_paid=None)


class DPSparseVoteConfig(DPVoteConfig):
    """DPSparseVoteRAG: besides DPVoteRAG's, ``max_paid`` C tokens paid per answer at most,
    ``disagreement_threshold`` θ (voters), ``svt_fraction`` of each paid token's cost spent on its
    AboveThreshold run (split evenly between ε1 and ε2)."""

    max_paid: int = Field(4, ge=1)
    disagreement_threshold: int = Field(4, ge=0)
    svt_fraction: float = Field(0.5, gt=0, lt=1)

    def calibrate(self) -> "VoteCalibration":
        """ρ_q = ρ(ε, δ)/m, ρ_pair = ρ_q/C; (ε1 + ε2)²/2 = f ρ_pair with ε1 = ε2; ε_tok²/8 = (1 − f) ρ_pair."""
        rho_q = rho_target(self.epsilon, self.delta, self.conversion, what=type(self).__name__) / self.queries
        pair = rho_q / self.max_paid
        eps_svt = math.sqrt(2.0 * self.svt_fraction * pair)
        return VoteCalibration(rho_query=rho_q, epsilon_token=math.sqrt(8.0 * (1.0 - self.svt_fraction) * pair),
                               epsilon1=eps_svt / 2.0, epsilon2=eps_svt / 2.0, max_paid=self.max_paid)


@dataclass(frozen=True)
class VoteCalibration:
    """One answer's mechanisms: T (or C) votes at ε_tok, and C AboveThreshold runs (ε1, ε2) (sparse)."""

    rho_query: float
    epsilon_token: float
    epsilon1: float | None
    epsilon2: float | None
    max_paid: int | None

    def query_plan(self, T: int) -> PrivacyEvent:
        """The plan of one answer: T votes (dense) or C × (AboveThreshold run + vote) (sparse)."""
        vote = ExponentialMechanismEvent(name="token vote", epsilon=self.epsilon_token)
        if self.max_paid is None:
            return SelfComposedEvent(vote, T, name=f"one answer: {T} token votes")
        run = AboveThresholdEvent(name="above-threshold run", epsilon1=self.epsilon1, epsilon2=self.epsilon2)
        return SelfComposedEvent(ComposedEvent(name="paid token", events=(run, vote)), self.max_paid,
                                 name=f"one answer: at most {self.max_paid} paid tokens")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class DPVoteSession(QueryTimeSession):
    """DPVoteRAG over a private collection (see the module docstring)."""

    method: ClassVar[str] = "dp-vote-rag"
    label: ClassVar[str] = "DPVoteRAG"
    config_type: ClassVar[type] = DPVoteConfig

    def __init__(self, documents, config, **kwargs):
        super().__init__(documents, config, **kwargs)
        self.query_plan = self.calibration.query_plan(config.max_new_tokens)
        m = config.voters
        self._shard = np.array([shard_of(t, m, config.shard_salt) for t in self._texts], dtype=np.int64)  # private
        self._votes_random = self.random.child("token-votes")
        self._svt_random = self.random.child("sparse-vector")

    @classmethod
    def plan_of(cls, config):
        """m = ``queries`` answers, each its :meth:`VoteCalibration.query_plan`."""
        one = config.calibrate().query_plan(config.max_new_tokens)
        return SelfComposedEvent(one, config.queries, name=f"{config.queries} {cls.label} answers")

    def _parameters(self):
        return {**self.calibration.to_dict(), "voters": self.config.voters, "queries": self.config.queries}

    def _composition(self) -> str:
        return (f"Per answer: {self.query_plan.name}, each token vote an exponential mechanism over disjoint voters "
                f"(eps^2/8 zCDP); across answers: zCDP composition of the {self.config.queries} planned answers.")

    def _check_fits(self) -> None:
        if not self._accountant.can_compose(self.query_plan):
            raise PrivacyBudgetExceededError(
                f"the {self.label} session has answered its {self.config.queries} planned questions (queries=): its "
                f"budget epsilon={self.config.epsilon:g} is spent. Nothing was drawn for this question.")

    def _voter_prompts(self, question: str, scores: np.ndarray) -> list[str]:
        """Voter r's prompt: the question with the top documents of shard r only."""
        prompts = []
        for r in range(self.config.voters):
            mine = np.flatnonzero(self._shard == r)
            top = mine[np.argsort(-scores[mine], kind="stable")[: self.config.documents_per_voter]]
            prompts.append(self._prompt(question, [self._texts[j] for j in top]))
        return prompts

    def _answer(self, question: str, index: int) -> str:
        self._accountant.compose(self.query_plan)  # paid before anything is drawn for this question
        branch = ZCDPAccountant(rho_budget=self.query_plan.rho, name=f"{self.label} question {index}")
        prompts = self._voter_prompts(question, self._scores(question))
        public = self._prompt(question, [])
        lm, eos, tokens = self.lm, set(self.lm.eos_token_ids), []
        state = {"paid": 0, "run": None}
        for _ in range(self.config.max_new_tokens):
            suffix = lm.tokenizer.decode(tokens, skip_special_tokens=True)
            votes = (lm.next_token_logits([p + suffix for p in prompts]).argmax(dim=-1).numpy()
                     if self._needs_votes(state) else None)
            token = self._next_token(votes, public + suffix, branch, state)
            if token is None or token in eos:
                break
            tokens.append(token)
        return lm.tokenizer.decode(tokens, skip_special_tokens=True)

    def _needs_votes(self, state: dict) -> bool:
        """Whether the next token may use the voters (DPVoteRAG: always)."""
        return True

    def _next_token(self, votes: np.ndarray | None, public_prompt: str, branch: ZCDPAccountant,
                    state: dict) -> int | None:
        """The next token from the voters' greedy ``votes`` [M] (charged to ``branch``)."""
        counts = np.bincount(votes, minlength=self.lm.vocab_size)
        return vote_exponential(counts, epsilon=self.calibration.epsilon_token, accountant=branch,
                                random=self._votes_random, name="token vote")


class DPSparseVoteSession(DPVoteSession):
    """DPSparseVoteRAG: votes are paid only where the voters disagree with the public model."""

    method: ClassVar[str] = "dp-sparse-vote-rag"
    label: ClassVar[str] = "DPSparseVoteRAG"
    config_type: ClassVar[type] = DPSparseVoteConfig

    def _needs_votes(self, state):
        return state["paid"] < self.calibration.max_paid  # past C paid tokens the voters are not asked

    def _next_token(self, votes, public_prompt, branch, state):
        public_token = int(self.lm.next_token_logits([public_prompt]).argmax(dim=-1)[0])
        cal = self.calibration
        if state["paid"] >= cal.max_paid:
            return public_token  # C tokens paid: public tokens only (free)
        if state["run"] is None:  # charged when it opens, before its threshold noise
            state["run"] = AboveThreshold(self.config.disagreement_threshold, epsilon1=cal.epsilon1,
                                          epsilon2=cal.epsilon2, accountant=branch, random=self._svt_random)
        if not state["run"].above(int(np.sum(votes != public_token))):
            return public_token
        state["paid"] += 1
        state["run"] = None
        return super()._next_token(votes, public_prompt, branch, state)
