"""DP-KSA: an ensemble of answers from retrieved contexts, their most frequent keywords released by
propose-test-release, then given to the final prompt (Tang, Flemings, Wang & Annavaram, "Differentially
Private Retrieval-Augmented Generation", arXiv 2602.14374).

**What is implemented (from first principles: the paper's exact algorithm was not reachable here).**
Privacy unit: one document, add/remove. As DPVoteRAG (:mod:`dpsynrag.baselines.dp_vote`), the
collection is split into M = ``voters`` disjoint shards by a salted hash of each document; voter r
answers q greedily from the top ``documents_per_voter`` documents of its own shard, and its answer gives
a *set* of at most ``keywords_per_voter`` candidate keywords (:func:`~dpsynrag.data.words.candidate_words`,
first ones first). The histogram n_w = #voters whose set holds w moves by at most 1 per keyword when one
document is added or removed (one voter's set changes). The top ``keywords`` k set is released by
propose-test-release (:func:`~dpsynrag.privacy.voting.ptr_top_k`: stable when the gap n_(k) − n_(k+1)
is at least 3; test ε_ptr-DP, passes on an unstable histogram with probability <= δ_ptr): δ_ptr-approximate
ε_ptr²/2-zCDP per question. The keywords enter the prompt in alphabetical order: only the set is stable
on neighbours, not the order of the counts. The final answer is the model's greedy answer to the question and the
released keywords (or to the question alone when the test fails): post-processing.

**Accounting.** ``queries`` m answers are planned: δ_ptr = ``ptr_delta_fraction`` · δ / m, and
ρ = m ε_ptr²/2 = ρ(``epsilon``, δ − m δ_ptr), so the session is (``epsilon``, ``delta``)-DP (the
accountant converts ρ at δ minus the δ terms); an answer past m is refused.
"""

from __future__ import annotations

import math
import warnings
from collections import Counter
from dataclasses import asdict, dataclass
from typing import Any, ClassVar, Optional

from pydantic import Field, model_validator

from dpsynrag.baselines.common import rho_target
from dpsynrag.baselines.dp_vote import DPVoteSession
from dpsynrag.baselines.query_time import QueryTimeConfig
from dpsynrag.data.words import candidate_words
from dpsynrag.privacy.accountant import ZCDPAccountant
from dpsynrag.privacy.events import SelfComposedEvent
from dpsynrag.privacy.query_events import ProposeTestReleaseEvent
from dpsynrag.privacy.voting import ptr_pass_threshold, ptr_top_k


class DPKSAConfig(QueryTimeConfig):
    """DP-KSA: ``voters`` M shards (``shard_salt``), ``documents_per_voter`` each, ``keywords_per_voter``
    candidate keywords per voter answer (of ``voter_tokens`` tokens), ``keywords`` k released,
    ``queries`` m planned, ``ptr_delta_fraction`` of δ spent on the tests' δ terms.

    The test passes (with probability >= ½) only when the gap n_(k) − n_(k+1) reaches its threshold t
    (:func:`~dpsynrag.privacy.voting.ptr_pass_threshold` at ε_ptr, δ_ptr), and the gap is at most M, reached
    when every voter's set is the same k keywords. Hence the defaults:

    * ``keywords_per_voter`` None = ``keywords``: with more words per voter than are released, voters that
      agree hold the (k+1)-th word too and the gap of a unanimous ensemble is 0;
    * ``voters`` None = max(16, t): the fewest voters with which the test can pass at this m (t = 10 at
      m = 1, 32 at m = 10, 116 at m = 100, 433 at m = 1,000 for ε = 10, δ = 1e-3). A given M below t is
      kept, and :attr:`KSACalibration.can_pass` says the answers then come from the model alone.
    """

    voters: Optional[int] = Field(None, ge=1)
    documents_per_voter: int = Field(1, ge=1)
    voter_tokens: int = Field(24, ge=1)
    keywords_per_voter: Optional[int] = Field(None, ge=1)
    keywords: int = Field(3, ge=1)
    queries: int = Field(100, ge=1)
    ptr_delta_fraction: float = Field(0.5, gt=0, lt=1)
    shard_salt: str = "dpsynrag-voters"

    @model_validator(mode="after")
    def _resolve_defaults(self) -> "DPKSAConfig":
        # Public: functions of the other (public) fields only; frozen, so set once here.
        if self.keywords_per_voter is None:
            object.__setattr__(self, "keywords_per_voter", self.keywords)
        if self.voters is None:
            object.__setattr__(self, "voters", max(16, self.calibrate().pass_gap))
        return self

    def calibrate(self) -> "KSACalibration":
        """δ_ptr = f δ / m; ε_ptr = √(2 ρ(ε, (1 − f) δ) / m); t = the test's pass threshold at (ε_ptr, δ_ptr)."""
        delta_ptr = self.ptr_delta_fraction * self.delta / self.queries
        rho = rho_target(self.epsilon, self.delta - self.queries * delta_ptr, self.conversion, what="DPKSAConfig")
        epsilon_ptr = math.sqrt(2.0 * rho / self.queries)
        return KSACalibration(rho_query=rho / self.queries, epsilon_ptr=epsilon_ptr, delta_ptr=delta_ptr,
                              pass_gap=ptr_pass_threshold(epsilon_ptr, delta_ptr), voters=self.voters)


@dataclass(frozen=True)
class KSACalibration:
    """One answer's propose-test-release: ε_ptr, δ_ptr; ρ_q = ε_ptr²/2; ``pass_gap`` t, the gap at which
    the test passes with probability ½; ``voters`` M (None before the config resolves it)."""

    rho_query: float
    epsilon_ptr: float
    delta_ptr: float
    pass_gap: int
    voters: int | None = None

    @property
    def can_pass(self) -> bool:
        """Whether M voters can reach the gap t (a unanimous ensemble has gap M); False: the test passes
        with probability at most δ_ptr and every answer comes from the model alone."""
        return self.voters is None or self.voters >= self.pass_gap

    def query_plan(self, T: int = 0) -> ProposeTestReleaseEvent:
        """One answer's test (``T`` unused: the keywords' release does not depend on the answer length)."""
        return ProposeTestReleaseEvent(name="top-k keywords (propose-test-release)", epsilon=self.epsilon_ptr,
                                       delta_value=self.delta_ptr)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class DPKSASession(DPVoteSession):
    """DP-KSA over a private collection (see the module docstring); the voters' shards are DPVoteRAG's."""

    method: ClassVar[str] = "dp-ksa"
    label: ClassVar[str] = "DP-KSA"
    config_type: ClassVar[type] = DPKSAConfig

    def __init__(self, documents, config, **kwargs):
        super().__init__(documents, config, **kwargs)
        cal = self.calibration
        if not cal.can_pass:  # public: a function of the config alone
            warnings.warn(f"DP-KSA: at {config.queries} planned question(s) the keyword test needs a gap of "
                          f"{cal.pass_gap} votes and {config.voters} voters cannot reach it: the keywords are "
                          f"released with probability <= {cal.delta_ptr:.1e} and the answers come from the model "
                          f"alone. Use at least {cal.pass_gap} voters (the default) or fewer questions.",
                          stacklevel=2)

    @classmethod
    def plan_of(cls, config):
        """m = ``queries`` propose-test-release answers."""
        return SelfComposedEvent(config.calibrate().query_plan(), config.queries, name=f"{config.queries} DP-KSA answers")

    def _composition(self) -> str:
        return ("Per answer: propose-test-release of the top-k keywords of disjoint voters' answers (delta_ptr-approximate "
                f"eps_ptr^2/2 zCDP); across answers: zCDP composition of the {self.config.queries} planned answers, "
                "delta terms added to delta.")

    def keyword_sets(self, answers: list[str]) -> list[set[str]]:
        """Each voter's keyword set: its first ``keywords_per_voter`` distinct candidate words."""
        sets = []
        for text in answers:
            words = list(dict.fromkeys(candidate_words(text)))
            sets.append(set(words[: self.config.keywords_per_voter]))
        return sets

    def _answer(self, question: str, index: int) -> str:
        self._accountant.compose(self.query_plan)  # paid before anything is drawn for this question
        branch = ZCDPAccountant(rho_budget=self.query_plan.rho, delta_budget=self.query_plan.delta,
                                name=f"DP-KSA question {index}")
        prompts = self._voter_prompts(question, self._scores(question))
        answers = self.lm.generate_greedy(prompts, max_new_tokens=self.config.voter_tokens)
        counts = Counter(w for s in self.keyword_sets(answers) for w in s)
        released = ptr_top_k(counts, k=self.config.keywords, epsilon=self.calibration.epsilon_ptr,
                             delta=self.calibration.delta_ptr, accountant=branch, random=self._votes_random)
        final = self._prompt(question, [] if released is None else [f"Keywords: {', '.join(released)}"])
        return self.lm.generate_greedy([final], max_new_tokens=self.config.max_new_tokens)[0]
