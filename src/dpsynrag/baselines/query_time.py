"""What the query-time rivals of DP-RAG share (issue 45): their common configuration
(:class:`QueryTimeConfig`: the session's total (ε, δ), the models, the answer length) and the session
(:class:`QueryTimeSession`): the private collection embedded once, one privacy plan fixed before any
document is read, the ledger charge, the session accountant and the report.

The rivals (:mod:`dpsynrag.baselines.murag`, :mod:`~dpsynrag.baselines.dp_vote`,
:mod:`~dpsynrag.baselines.dp_ksa`) differ only in how one question is answered (:meth:`_answer`) and in
their plan (:meth:`QueryTimeSession.plan_of`). A session's guarantee is its plan — (``epsilon``, ``delta``)-DP for
the whole session, whatever its questions — and it is charged to the ledger once, just before the first
draw. Released per question: the answer text only (:class:`~dpsynrag.rag.Answer` ``context`` is empty).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from typing import Any, ClassVar, Literal, Optional

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from dpsynrag.baselines.common import load_models, make_report, resolve_task
from dpsynrag.data.io import Document, as_documents
from dpsynrag.errors import ConfigError
from dpsynrag.privacy.accountant import ZCDPAccountant
from dpsynrag.privacy.charge import prepare_charge
from dpsynrag.privacy.events import PrivacyEvent
from dpsynrag.privacy.report import PrivacyReport
from dpsynrag.rag.answer import Answer, answer_user_prompt, check_questions
from dpsynrag.rng import make_random
from dpsynrag.textkeys import text_key

ANSWER_SYSTEM_PROMPT = "Answer the question in a few words, using the documents when they help."
"""The system prompt of the voters and of the final (public) answer of the rivals."""


class QueryTimeConfig(BaseModel):
    """Parameters every query-time rival shares.

    Privacy: the whole session is (``epsilon``, ``delta``)-DP, ``conversion`` the ρ → ε conversion.
    Models: ``model`` / ``embedder`` (None: the offline defaults), documents truncated to
    ``max_document_tokens`` tokens in the prompts, answers of at most ``max_new_tokens`` tokens T.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    epsilon: float = Field(gt=0)
    delta: float = Field(gt=0, lt=1)
    conversion: Literal["bun-steinke", "cks"] = "bun-steinke"
    max_new_tokens: int = Field(16, ge=1)
    max_document_tokens: int = Field(256, ge=8)
    memory_budget_gb: float = Field(2.0, gt=0)
    model: Optional[str] = None
    embedder: Optional[str] = None


def shard_of(text: str, shards: int, salt: str) -> int:
    """The voter (0 .. ``shards`` − 1) that holds a document: SHA-256 of a public salt and the document's
    normal-form key (:func:`~dpsynrag.textkeys.text_key`), mod ``shards``. A function of that document
    alone, so adding or removing it changes one voter's input only."""
    digest = hashlib.sha256(salt.encode("utf-8") + b"\0" + text_key(text)).digest()
    return int.from_bytes(digest[:8], "big") % shards


class QueryTimeSession:
    """A session of a query-time rival over a private collection (subclasses set :attr:`method`,
    :attr:`label`, :attr:`config_type` and implement :meth:`plan_of` and :meth:`_answer`).

    Args:
        documents: the private collection (Documents, strings, or a JSONL/CSV/Parquet path); embedded
            once here (private; never released).
        config: the method's config.
        lm, embedder: the models (None: loaded from ``config.model`` / ``config.embedder``).
        task: a :class:`~dpsynrag.tasks.Task` or name (public; recorded in the report).
        seed: reproducible randomness (tests and experiments; the report says NOT FOR RELEASE); None
            uses the operating system's secure generator.
        ledger: a :class:`~dpsynrag.privacy.ledger.PrivacyLedger`: the session's plan is checked here,
            before the models load, and recorded before the first draw. None: not recorded.

    Raises:
        ConfigError: a config of another type, a bad task. InfeasibleBudgetError: the budget cannot pay
            the method's mechanisms. DataError: an empty collection. PrivacyBudgetExceededError: the
            ledger's lifetime budget cannot pay the session.
    """

    method: ClassVar[str]
    label: ClassVar[str]
    config_type: ClassVar[type]

    def __init__(self, documents: Sequence[Document] | Sequence[str] | str | os.PathLike, config, *, lm=None,
                 embedder=None, task=None, seed: int | None = None, ledger=None):
        if not isinstance(config, self.config_type):
            raise ConfigError(f"`config` must be a {self.config_type.__name__}. Found {type(config).__name__}.")
        self.config = config
        self.calibration = config.calibrate()
        self.plan = self.plan_of(config)  # the guarantee, fixed before any document is read
        self.task = resolve_task(task)
        docs = as_documents(documents)
        self._charge = prepare_charge(ledger, docs, self.plan, delta=config.delta, kind="query-time session",
                                      method=self.method, label=f"{self.label} session")
        self.ledger_dataset = self._charge.dataset  # the collection's fingerprint (None without a ledger)
        self.random = make_random(seed)
        self.lm, self.embedder = load_models(lm, embedder, model=config.model, embedder_spec=config.embedder)
        # Private state: never logged, never released.
        self._texts = [self.lm.truncate(d.text, config.max_document_tokens) for d in docs]
        self._embeddings = np.asarray(self.embedder.encode(self._texts), dtype=np.float64)
        self._accountant = ZCDPAccountant(rho_budget=self.plan.rho, delta_budget=self.plan.delta,
                                          name=f"{self.label} session")
        self._queries = 0

    # -- to implement ---------------------------------------------------------------------------------

    @classmethod
    def plan_of(cls, config) -> PrivacyEvent:
        """The whole session's mechanisms (its guarantee), from the config alone (``budget`` shows it)."""
        raise NotImplementedError

    def _answer(self, question: str, index: int) -> str:
        """Answer one question (its mechanisms charged to the session accountant or filter first)."""
        raise NotImplementedError

    def _parameters(self) -> dict[str, Any]:
        """The calibrated public parameters shown in the report."""
        return {}

    # -- shared ---------------------------------------------------------------------------------------

    @property
    def queries(self) -> int:
        """Questions answered so far (public)."""
        return self._queries

    def _scores(self, question: str) -> np.ndarray:
        """Cosine similarity of the question with every document (private), float64 [n]."""
        q = np.asarray(self.embedder.encode([question]), dtype=np.float64)[0]
        return self._embeddings @ q

    def _prompt(self, question: str, context: Sequence[str]) -> str:
        return self.lm.chat_prompt(answer_user_prompt(question, list(context)), system=ANSWER_SYSTEM_PROMPT)

    def answer(self, questions: Sequence[str]) -> list[Answer]:
        """Answer each question; the session's plan is recorded on the ledger before the first draw.

        Returns:
            One :class:`~dpsynrag.rag.Answer` per question, ``context`` empty (private).

        Raises:
            PrivacyBudgetExceededError: the session cannot pay another question (per-query methods), or
                the ledger refuses the session; nothing is drawn for the refused question.
            DataError: ``questions`` is one string or holds an empty or non-string question.
        """
        questions = check_questions(questions)
        out = []
        for q in questions:
            self._check_fits()
            self._charge.commit()
            text = self._answer(q, self._queries)
            self._queries += 1
            out.append(Answer(q, text.strip(), ()))
        return out

    def _check_fits(self) -> None:
        """Raise PrivacyBudgetExceededError when the session cannot pay one more question (default: it
        always can: a filter method drops documents instead)."""

    def spent(self) -> dict[str, Any]:
        """Public facts of the session: ``method``, ``queries`` answered, the guarantee ``rho`` /
        ``delta_terms`` / ``epsilon`` at ``delta`` (the plan, fixed in advance), ``rho_spent`` and
        ``delta_terms_spent`` of the session accountant (per-query methods: a function of the number of
        questions only; filter methods: the filter's budget, charged when the session opens)."""
        return {
            "method": self.method,
            "queries": self._queries,
            "rho": self.plan.rho,
            "delta_terms": self.plan.delta,
            "delta": self.config.delta,
            "epsilon": self.config.epsilon,
            "rho_spent": self._accountant.rho,
            "delta_terms_spent": self._accountant.delta,
        }

    def report(self) -> PrivacyReport:
        """The session's privacy report: its plan (the guarantee), checked against what it spent."""
        return make_report(
            self._accountant, delta=self.config.delta, composition=self._composition(), plan=self.plan,
            parameters={**self._parameters(), "task": None if self.task is None else self.task.name,
                        **{f"session_{k}": v for k, v in self.spent().items()}},
            random=self.random,
        )

    def _composition(self) -> str:
        return "zCDP: sequential composition of the session's mechanisms; approximate-zCDP delta terms add to delta."
