"""Presets of ``dpsynrag eval``: the sizes and method parameters of a run (all public).

* ``cpu``: sized so that the main experiment on Medical Synth (Non-RAG, RAG, DP-RAG, DP-Synth, Aug-PE,
  DP-SynRAG and its three ablations) finishes within an hour on 2 CPU cores with the offline
  SmolLM2-135M-Instruct model and all-MiniLM-L6-v2 embedder: a seeded random subset of 1,000 database
  documents (the first rows of ``database.jsonl`` are sorted by patient name, so their first names repeat
  and would become keywords; at 1,000 documents about 50 keywords clear the open-vocabulary threshold,
  mostly disease names), the first 100 validation questions, 10 + 10 attack prompts, top-5 retrieval,
  24-token answers; DP-SynRAG with the rarity keyword extractor, K = 1 (each document votes for its most
  specific word only: distinct topics, and a document joins one cluster, so every cluster gets the whole
  per-cluster budget; the L = 1 ablation is then the same build), open vocabulary, R = 48, L = 1,
  k = 30, T = 48, public-prior decoding with ω = 0.25 (benchmarks/results/bench_utility.md), each document's
  identifiers redacted (the task's ``identifier_fields``), threshold excess weight 0.25 and one index copy
  per 10 documents of a cluster's released count (benchmarks/results/bench_utility_redact_copies.md); no
  self-filter in any corpus method (the offline model's YES/NO judgements are worse than chance: on
  MovieLens, seeds 0–2, it kept 1 of 7 texts each time, rejecting the fluent ones; the fluency filter drops
  token soup instead), so no no-self-filter ablation;
  DP-RAG with 24 answer tokens (top-p 0.02); DP-Synth with 10 batches of 100 and T = 32;
  Aug-PE with a population of 48, 3 iterations, T = 32. Multi-query: m in {1, 2, 5} at
  ε_total = 10 on 50 questions, about 20 minutes (smaller per-query budgets make DP-RAG's private
  threshold retrieve hundreds of documents per query: at m = 10, ε = 1 per query, 25 questions did not
  finish in 20 minutes on 2 cores). Measured times: results.json of each run.
* ``demo``: the main job (``dpsynrag demo``, :mod:`dpsynrag.commands.demo`): Non-RAG, RAG and DP-SynRAG on a seeded
  random subset of 2,000 documents, 100 questions, 2 + 2 attack prompts, secure randomness (no seed),
  DP-SynRAG with ``cpu``'s choices but k = 40 and the fluency filter without the self-filter, each text
  written in the task's public record format with T = 32 drawn tokens for its slots
  (``task_response_template``, :func:`for_task`; :mod:`dpsynrag.models.template_selector`).
* ``paper``: the paper's sizes and parameters (8,000 documents, 1,000 questions, all attacks, K = 10,
  R = 500, L = 5, k = 80, T = 70, LLM keyword extraction over the public vocabulary, top-10 retrieval, each
  document's identifiers redacted as in every preset (the paper itself does not redact);
  DP-RAG with 70 output tokens and top-p 0.02; DP-Synth with batches of 100 documents) for a GPU and a
  stronger ``--model``.
* ``searchqa-cpu`` and ``searchqa-paper`` (the default and the paper's for ``--task searchqa``): ``cpu``
  and ``paper`` with the SearchQA protocol of DP-SynRAG App. C.2–C.3: no self-filter, so no
  no-self-filter ablation; all validation questions; DP-RAG top-p 0.05; ``searchqa-paper`` with R = 1000,
  k = 100 and 30 DP-RAG output tokens.

Every field can be overridden from the command line or by :func:`dataclasses.replace`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Mapping

from dpsynrag.errors import ConfigError
from dpsynrag.rag.answer import DEFAULT_ANSWER_TOKENS, OWN_DATA_ANSWER_MODE

__all__ = ["EvalPreset", "PRESETS", "SEARCHQA_METHODS", "default_preset", "for_task", "get_preset"]


PAPER_ANSWER_TOKENS = 64
"""The answer length of the ``paper`` presets (the paper's protocol); the others answer with
:data:`~dpsynrag.rag.answer.DEFAULT_ANSWER_TOKENS`, as ``dpsynrag query`` does."""


def _frozen(d: dict[str, Any]) -> Mapping[str, Any]:
    return MappingProxyType(dict(d))


@dataclass(frozen=True)
class EvalPreset:
    """Sizes and method parameters of an evaluation run.

    Attributes:
        name: preset name.
        documents: database documents used (None: all); ``subset`` says which.
        subset: ``"random"`` (seeded sample of ``documents`` rows, kept in file order) or ``"first"``.
        subset_seed: seed of the random subset (public; the subset is an evaluation choice, not a mechanism).
        questions: evaluation questions (the first ones of the query file; None: all).
        attacks: attack prompts per kind (targeted, repeat-the-context), a seeded random sample of the
            task's attack diseases (None: all).
        epsilons: ε of the DP methods in the main experiment (DP-RAG: per query).
        delta: δ of every DP method.
        seed: seed of the mechanisms' randomness (reproducible experiments: outputs NOT for release); None:
            cryptographically secure randomness (the ``demo`` preset).
        top_k: retrieval depth of RAG and of RAG over synthetic corpora (None: the task's ``rag_top_k``).
        answer_tokens: greedy answer length (tokens): :data:`~dpsynrag.rag.answer.DEFAULT_ANSWER_TOKENS` (24, the
            default of ``dpsynrag query`` too) except in the ``paper`` presets (64, the paper's).
        answer_mode: how the retrieving methods (RAG over the documents, the synthetic corpora) answer:
            ``"generate"`` (the model, greedy) or ``"extractive"`` (the sentence of the top-k texts most similar to
            the question; no generation: :func:`~dpsynrag.rag.answer.extract_answers`). Non-RAG and DP-RAG always
            generate.
        corpus_answer_mode: how the synthetic corpora answer, where it differs from ``answer_mode`` (None: as
            ``answer_mode``); ``--answer-mode`` sets both.
        synrag: :class:`~dpsynrag.pipeline.config.BuildConfig` fields of DP-SynRAG (ε, δ, task, seed,
            model and embedder come from the run).
        dp_rag: ``DPRAGConfig`` fields (``epsilon_per_query``, ``delta`` come from the run).
        dp_synth: ``DPSynthConfig`` fields; ``batch_size`` (documents per batch) is turned into
            ``num_batches`` = ceil(documents / batch_size) from the configured ``documents`` (a public
            parameter; with ``documents=None`` the config's default, 80 = 8,000 / 100, applies).
        aug_pe: ``AugPEConfig`` fields.
        params: parameters of other registered methods, by method name (:mod:`dpsynrag.methods`).
        mq_m: numbers of queries m of the multi-query curve.
        mq_epsilon_totals: total budgets ε_total of the multi-query curve.
        mq_questions: questions answered per point of the multi-query curve (None: ``questions``).
        mq_zcdp: also run DP-RAG with the per-query ε whose m queries compose to ε_total under zCDP.
        methods: methods run when ``--methods`` is not given.
    """

    name: str
    documents: int | None
    subset: str
    subset_seed: int
    questions: int | None
    attacks: int | None
    epsilons: tuple[float, ...]
    delta: float
    seed: int | None
    top_k: int | None
    answer_tokens: int
    answer_mode: str = "generate"
    corpus_answer_mode: str | None = None
    synrag: Mapping[str, Any] = field(default_factory=dict)
    dp_rag: Mapping[str, Any] = field(default_factory=dict)
    dp_synth: Mapping[str, Any] = field(default_factory=dict)
    aug_pe: Mapping[str, Any] = field(default_factory=dict)
    params: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    mq_m: tuple[int, ...] = (1, 5, 10, 20, 50, 100)
    mq_epsilon_totals: tuple[float, ...] = (3.0, 5.0, 10.0, 20.0)
    mq_questions: int | None = None
    mq_zcdp: bool = True
    methods: tuple[str, ...] = ("non-rag", "rag", "dp-rag", "dp-synth", "aug-pe", "dp-synrag", "ablations")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready copy."""
        out = {}
        for key in self.__dataclass_fields__:
            value = getattr(self, key)
            out[key] = dict(value) if isinstance(value, Mapping) else (list(value) if isinstance(value, tuple) else value)
        return out


PRESETS: dict[str, EvalPreset] = {
    "cpu": EvalPreset(
        name="cpu",
        documents=1000,
        subset="random",
        subset_seed=0,
        questions=100,
        attacks=10,
        epsilons=(10.0,),
        delta=1e-3,
        seed=0,
        top_k=5,
        answer_tokens=DEFAULT_ANSWER_TOKENS,
        synrag=_frozen(dict(
            K=1, R=48, L=1, k=30, T=48, extractor="rarity", open_vocabulary=True, max_document_tokens=96,
            decoding="public-prior", public_weight=0.25, fluency_threshold=-8.0, self_filter=False,
            redact_identifiers=True, threshold_excess_weight=0.25, index_copy_size=10, prediction_checkpoints=2,
            trim_partial_ending=True,
        )),
        dp_rag=_frozen(dict(max_new_tokens=24, max_document_tokens=96)),
        dp_synth=_frozen(dict(batch_size=100, T=32, max_document_tokens=96, self_filter=False)),
        aug_pe=_frozen(dict(population_size=48, iterations=3, L=2, T=32, max_document_tokens=96, self_filter=False)),
        mq_m=(1, 2, 5),
        mq_epsilon_totals=(10.0,),
        mq_questions=50,
        methods=("non-rag", "rag", "dp-rag", "dp-synth", "aug-pe", "dp-synrag", "dp-synrag-l1",
                 "dp-synrag-no-outlier-removal"),
    ),
    "paper": EvalPreset(
        name="paper",
        documents=None,
        subset="first",
        subset_seed=0,
        questions=1000,
        attacks=None,
        epsilons=(10.0,),
        delta=1e-3,
        seed=0,
        top_k=None,
        answer_tokens=PAPER_ANSWER_TOKENS,
        synrag=_frozen(dict(
            K=10, R=500, L=5, k=80, T=70, extractor="llm", open_vocabulary=False, max_document_tokens=256,
            redact_identifiers=True,
        )),
        # the reference's DP-RAG (Grislain's prompts, top-p 0.02, omega 0.01), as the paper ran it; the
        # library's defaults differ (DPRAGConfig: measured deviations)
        dp_rag=_frozen(dict(max_new_tokens=70, utility="top-p", prompts="reference", public_weight=0.01)),
        dp_synth=_frozen(dict(batch_size=100, T=70, max_document_tokens=256)),
        aug_pe=_frozen(dict(population_size=200, iterations=10, L=2, T=70, max_document_tokens=256)),
        mq_m=(1, 5, 10, 20, 50, 100),
        mq_epsilon_totals=(3.0, 5.0, 10.0, 20.0),
        mq_questions=None,
    ),
}


# demo: the main job (`make demo`, `dpsynrag demo`): Non-RAG, RAG and DP-SynRAG on 2,000 documents with
# secure randomness; DP-SynRAG as tuned in benchmarks/results/bench_utility_3seeds.md (K = 1, R = 48, L = 1,
# k = 40, T = 64 (now 32: below), public-prior decoding at omega = 0.25, fluency filter at -8 nats/token, no self-filter:
# SmolLM2-135M's YES/NO judgements on these texts are worse than chance), with the patient names redacted,
# threshold excess weight 0.25 and one index copy per 10 documents of a cluster's released count
# (benchmarks/results/bench_utility_redact_copies.md), private prediction in 2 checkpointed batches (with 20,
# the redacted clusters' few rows made most decode rows padding: 410 s of a 484 s build); 2 + 2 attack
# prompts for the leakage columns. Both presets cut each text's partial last clause (trim_partial_ending):
# MovieLens seeds 0/1/2 went from 4.4/35.6/53.3% to 46.7/53.3/53.3% on the same corpora (issue 27). The demo
# writes each text in the task's public record format (task_response_template: slot-template decoding, the
# skeleton free, T = 32 drawn tokens for the slots, symptoms capped at 16): on questions 0-99 seeds 0/1/2 answered
# 26/21/24% against 19/21/17% at T = 64 without, and on held-out questions 100-199 18/15/17% against 19/19/16%
# (RAG 35% and 28%; benchmarks/results/bench_utility_heldout.md). A cap of 22 looked better on 0-99 (21/24/22%)
# and answered 10/12/13% on 100-199. Since issue 41 the demo's texts come from the DP phrase release
# (synthesis "phrases", m = 8 phrases of 4 words per member; benchmarks/results/bench_phrases.md): seeds 0/1/2
# answered 31/26/26% on questions 0-99 (m chosen there) and 29/32/31% on held-out questions 100-199, against
# 23.7% and 16.7% with the slot-template prediction above; its build takes 110-154 s instead of about 480 s.
# The decoding fields below are those of --synthesis prediction (kept: `--synrag synthesis=prediction` runs it).
PRESETS["demo"] = dataclasses.replace(
    PRESETS["cpu"], name="demo", documents=2000, attacks=2, seed=None,
    synrag=_frozen(dict(
        K=1, R=48, L=1, k=40, T=32, extractor="rarity", open_vocabulary=True, max_document_tokens=96,
        decoding="public-prior", public_weight=0.25, fluency_threshold=-8.0, self_filter=False,
        redact_identifiers=True, threshold_excess_weight=0.25, index_copy_size=10, prediction_checkpoints=2,
        trim_partial_ending=True, task_response_template=True, synthesis="phrases",
    )),
    methods=("non-rag", "rag", "dp-synrag"),
)


# own-cpu (the default of `eval --task own`; `build --preset own-cpu`): a user's own records, where a request
# type's records share a topic and a fact but not their wording (issue 41; benchmarks/results/owndata_topics.md).
# The cpu preset's sizes with four changes, chosen on the own-data validation collections (seeds 0-1):
# max_document_tokens = 256, not 96 (a customer message and its reply run 110-200 tokens: at 96 the reply, where the
# fact is, was cut from 99.5% of records); K = 5, not 1 (with one keyword a record votes for the word it repeats
# most, "message", "ticket", "desk"; with five, the paper's walk puts it in its least frequent released keyword's
# cluster, a request-type word such as "cash" or "reset"); no outlier removal (clusters of 2-25 members: the
# noisy sum of their embeddings, noise norm about 146 at σ = 7.45 in 384 dimensions, points nowhere, and the
# threshold kept 0 members of a 22-member cluster of one type; without it the facts of 4, 4 and 7 of the 7 large
# types reached the phrase release of bank, helpdesk and saas seed 0, against 3, 3 and 4 with it); and the phrase
# synthesis, whose release keeps facts many members state alike. Medical Synth's presets are not changed.
# Then (benchmarks/results/owndata_collection.md) the phrase release over the whole collection
# (phrase_scope = "collection"): the keyword walk split a type's records over several clusters, each under the
# threshold; pooled, each record's m = 4 phrases (stated figures first), chosen on the validation seeds: the facts
# of 61.5% of the validation questions reached the released phrases at m = 4 against 55.4% at m = 8.
# Each such text holds one fact's phrasings, and the 135M answerer picks figures from other texts: top_k = 1
# (the corpus's own default too) for every method (validation: RAG over the raw file 65.7% at top-1,
# about as at top-5; DP-SynRAG 45.5% at top-1 against 30.7% at top-5).
# A text stating no figure needs 3 released phrases (phrase_min_phrases; benchmarks/results/owndata_collection.md):
# on the validation corpora 29 of the 60 kept texts stating no fact were lone 4-grams without a figure ("Appreciate
# a quick answer.", "Moved house and need."); at 3, the kept texts stating a fact went from 47.8% to 74.3% (2:
# 64.0%) and no type's fact left a corpus (83.6% once a bare number ending a span counts as no figure).
# The corpora's answer (issue 51): the best-matching sentence of the top text (corpus_answer_mode =
# OWN_DATA_ANSWER_MODE, also the default of `dpsynrag query` on a corpus of the collection release), against the
# 135M generator on the tuning domains of benchmarks/blind (benchmarks/results/answer_mode.md); RAG over the raw
# file keeps generating: the best-matching sentence of a raw record is most often the customer's own question.
PRESETS["own-cpu"] = dataclasses.replace(
    PRESETS["cpu"], name="own-cpu", top_k=1, corpus_answer_mode=OWN_DATA_ANSWER_MODE,
    synrag=_frozen({**PRESETS["cpu"].synrag, "K": 5, "max_document_tokens": 256, "outlier_removal": False,
                    "synthesis": "phrases", "phrase_scope": "collection", "phrase_max": 4,
                    "phrase_min_phrases": 3}),
    methods=("non-rag", "rag", "dp-synrag"),
)


SEARCHQA_METHODS = ("non-rag", "rag", "dp-rag", "dp-synth", "aug-pe", "dp-synrag", "dp-synrag-l1",
                    "dp-synrag-no-outlier-removal")
"""Methods of the SearchQA presets: all but the no-self-filter ablation (the task has no self-filter)."""


def _searchqa(base: EvalPreset, name: str, *, synrag: Mapping[str, Any] | None = None,
              dp_rag: Mapping[str, Any] | None = None, dp_synth: Mapping[str, Any] | None = None) -> EvalPreset:
    """``base`` with the SearchQA protocol (DP-SynRAG App. C.2–C.3): no self-filter in any corpus method,
    every validation question (102 with the paper's selection), no attack prompts;
    ``synrag``, ``dp_rag``, ``dp_synth`` override fields of those methods."""
    return dataclasses.replace(
        base, name=name, questions=None, attacks=None, methods=SEARCHQA_METHODS,
        synrag=_frozen({**base.synrag, "self_filter": False, **(synrag or {})}),
        dp_rag=_frozen({**base.dp_rag, **(dp_rag or {})}),
        dp_synth=_frozen({**base.dp_synth, "self_filter": False, **(dp_synth or {})}),
        aug_pe=_frozen({**base.aug_pe, "self_filter": False}),
    )


# searchqa-cpu: the cpu preset's sizes (1,000 of the snippets, R = 48; not tuned on SearchQA, which is not
# available here). searchqa-paper: the paper's Table 6 row (R = 1000, k = 100; K, L, T as Medical Synth),
# all snippets of the 204 selected questions, DP-RAG with top-p 0.05 and 30 output tokens (App. C.3), DP-Synth with
# batches of about 100 of the paper's 7,054 snippets (71 batches; a public size, not read from the data).
PRESETS["searchqa-cpu"] = _searchqa(PRESETS["cpu"], "searchqa-cpu")
PRESETS["searchqa-paper"] = _searchqa(PRESETS["paper"], "searchqa-paper", synrag={"R": 1000, "k": 100},
                                      dp_rag={"max_new_tokens": 30, "top_p": 0.05}, dp_synth={"num_batches": 71})


def for_task(params: Mapping[str, Any], task=None) -> dict[str, Any]:
    """A method's preset parameters for ``task`` (a :class:`~dpsynrag.tasks.Task`, or None for a build on
    the user's own data): ``task_response_template=True`` becomes ``response_template=`` the task's public
    record format (:attr:`~dpsynrag.tasks.Task.response_template`), unless ``response_template`` is given
    too (a variant of the preset with its own template: that one); it is dropped for a task without one and
    for no task. The other parameters are returned as they are."""
    params = dict(params)
    if params.pop("task_response_template", False):
        template = getattr(task, "response_template", None)
        if template is not None and params.get("response_template") is None:
            params["response_template"] = template
    return params


def default_preset(task: str) -> str:
    """The preset used when none is given: ``"{task}-cpu"`` when it exists (``searchqa-cpu``), else ``"cpu"``."""
    return f"{task}-cpu" if f"{task}-cpu" in PRESETS else "cpu"


def get_preset(name: str) -> EvalPreset:
    """The preset called ``name``.

    Raises:
        ConfigError: unknown name (the message lists the presets).
    """
    try:
        return PRESETS[name]
    except KeyError:
        raise ConfigError(f"`preset`: unknown preset {name!r}; available: {', '.join(PRESETS)}.") from None
