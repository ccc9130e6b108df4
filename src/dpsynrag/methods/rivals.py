"""The query-time rivals of DP-RAG in the registry (issue 45): MuRAG, MuRAG-Ada, DPVoteRAG,
DPSparseVoteRAG and DP-KSA. Each connects its session (:mod:`dpsynrag.baselines.murag`,
:mod:`~dpsynrag.baselines.dp_vote`, :mod:`~dpsynrag.baselines.dp_ksa`) to ``query --method NAME``,
``eval --methods`` and ``budget``; nothing here draws noise.

``--epsilon`` (``eval``: the run's ε) is the whole session's ε at the preset's δ. The per-query methods
plan ``queries`` answers: in an evaluation, the number of questions the session answers (public).
"""

from __future__ import annotations

from typing import Any, ClassVar

from dpsynrag.errors import ConfigError
from dpsynrag.methods.base import OnlineMethod, _resolve


class QueryTimeMethod(OnlineMethod):
    """A query-time rival: its session class (``session_class``, ``"module:attribute"``) answers the
    questions of one session, on the session's (ε, δ) budget."""

    private_prompts: ClassVar[bool] = True
    session_class: ClassVar[str]
    plans_queries: ClassVar[bool] = True  # the budget is split over `queries` planned answers

    @property
    def session_type(self) -> type:
        return _resolve(self.session_class)

    def plan(self, config):
        """The whole session's guarantee (the filter budget, or m planned answers)."""
        from dpsynrag.privacy.report import PrivacyReport

        return PrivacyReport.from_plan(self.session_type.plan_of(config), delta=config.delta,
                                       parameters=config.calibrate().to_dict())

    def session(self, documents, fields: dict[str, Any], **kwargs):
        """A session over ``documents`` with the config of ``fields`` (refusing unknown ones)."""
        unknown = sorted(set(fields) - set(self.config_type.model_fields))
        if unknown:
            raise ConfigError(f"{self.config_type.__name__} has no field(s) {', '.join(unknown)}; "
                              f"fields: {', '.join(sorted(self.config_type.model_fields))}.")
        return self.session_type(documents, self.make_config(**fields), **kwargs)

    def answerer(self, harness, spec):
        data = harness.data
        fields: dict[str, Any] = {"epsilon": spec.epsilon, "delta": harness.config.preset.delta}
        if harness.config.model is not None:
            fields["model"] = harness.config.model
        if self.plans_queries:  # one session answers the questions, another the attacks: plan the larger
            fields["queries"] = max(len(data.queries), len(getattr(data, "attacks", ()) or ()), 1)
        fields.update(spec.params)
        session = self.session(data.documents, fields, lm=harness.lm, embedder=harness.embedder, task=data.task,
                               seed=harness.config.preset.seed)

        def answer(qs):
            return [a.text for a in session.answer([q.question for q in qs])]

        return answer, (lambda: dict(session.spent()))

    def eval_privacy(self, harness, spec, answer_info, corpus):
        sessions = answer_info.get("sessions", [])
        return {"epsilon": spec.epsilon, "delta": harness.config.preset.delta, "composition": "per session",
                "sessions": sessions}


class MuRAG(QueryTimeMethod):
    """MuRAG: a per-document individual Renyi filter, fixed public relevance threshold."""

    name: ClassVar[str] = "murag"
    label: ClassVar[str] = "MuRAG"
    help: ClassVar[str] = "MuRAG (Wu et al. 2025): fixed-threshold query-time DP with a per-document Renyi filter"
    config_class: ClassVar[str] = "dpsynrag.baselines.murag:MuRAGConfig"
    session_class: ClassVar[str] = "dpsynrag.baselines.murag:MuRAGSession"
    plans_queries: ClassVar[bool] = False


class MuRAGAda(MuRAG):
    """MuRAG-Ada: MuRAG with a released, question-specific threshold."""

    name: ClassVar[str] = "murag-ada"
    label: ClassVar[str] = "MuRAG-Ada"
    help: ClassVar[str] = "MuRAG-Ada (Wu et al. 2025): MuRAG with a released per-question threshold"
    config_class: ClassVar[str] = "dpsynrag.baselines.murag:MuRAGAdaConfig"
    session_class: ClassVar[str] = "dpsynrag.baselines.murag:MuRAGAdaSession"


class DPVoteRAG(QueryTimeMethod):
    """DPVoteRAG: exponential-mechanism token votes of disjoint voters."""

    name: ClassVar[str] = "dp-vote-rag"
    label: ClassVar[str] = "DPVoteRAG"
    help: ClassVar[str] = "DPVoteRAG (Koga et al. 2024): token votes of disjoint voters, epsilon split over the queries"
    config_class: ClassVar[str] = "dpsynrag.baselines.dp_vote:DPVoteConfig"
    session_class: ClassVar[str] = "dpsynrag.baselines.dp_vote:DPVoteSession"


class DPSparseVoteRAG(DPVoteRAG):
    """DPSparseVoteRAG: votes paid (sparse vector) only where the voters disagree with the model."""

    name: ClassVar[str] = "dp-sparse-vote-rag"
    label: ClassVar[str] = "DPSparseVoteRAG"
    help: ClassVar[str] = "DPSparseVoteRAG (Koga et al. 2024): votes paid only where voters disagree with the model"
    config_class: ClassVar[str] = "dpsynrag.baselines.dp_vote:DPSparseVoteConfig"
    session_class: ClassVar[str] = "dpsynrag.baselines.dp_vote:DPSparseVoteSession"


class DPKSA(QueryTimeMethod):
    """DP-KSA: the voters' top keywords by propose-test-release, then one public answer."""

    name: ClassVar[str] = "dp-ksa"
    label: ClassVar[str] = "DP-KSA"
    help: ClassVar[str] = "DP-KSA (Tang et al. 2026): voters' top keywords by propose-test-release, then one answer"
    config_class: ClassVar[str] = "dpsynrag.baselines.dp_ksa:DPKSAConfig"
    session_class: ClassVar[str] = "dpsynrag.baselines.dp_ksa:DPKSASession"


RIVALS = (MuRAG, MuRAGAda, DPVoteRAG, DPSparseVoteRAG, DPKSA)
"""The query-time rivals, in report order (after DP-RAG)."""
