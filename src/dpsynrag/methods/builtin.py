"""The built-in methods: Non-RAG, RAG (no DP), DP-RAG, DP-Synth, Aug-PE, DP-SynRAG and its ablations.

Each class only connects a method's own module (its config, calibration and mechanisms, in
:mod:`dpsynrag.pipeline` and :mod:`dpsynrag.baselines`) to the registry; nothing here draws noise.
Heavy modules are imported inside the methods, so that listing methods (``--help``) stays fast.
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from typing import Any, ClassVar

from dpsynrag.errors import InfeasibleBudgetError
from dpsynrag.methods.base import CorpusMethod, OnlineMethod, Option

# ------------------------------------------------------------------------------------------- options

_T = Option("--T", "T", int, "Tokens per synthetic text (default 70).")
_TAU = Option("--tau", "temperature", float, "Sampling temperature of private prediction (default 1).")

SYNRAG_OPTIONS = (
    Option("--K", "K", int, "Keywords per document: histogram L2 sensitivity sqrt(K) (default 10)."),
    Option("--R", "R", int, "Keywords released = clusters (default 500)."),
    Option("--L", "L", int, "Most clusters a document joins (default 5)."),
    Option("--k", "k", int, "Target documents per cluster after outlier removal (default 80)."),
    _T, _TAU,
    Option("--open-vocabulary", "open_vocabulary", bool, "Thresholded open-vocabulary histogram (keeps domain words)."),
    Option("--open-vocabulary-delta", "open_vocabulary_delta", float,
           "Delta term of the open-vocabulary histogram, taken out of --delta (default delta/10; implies --open-vocabulary)."),
    Option("--extractor", "extractor", str, "Keyword extractor: llm (paper, default) | rarity (fast, per-document statistics)."),
    Option("--language", "language", str, "Language of the documents (wordfreq code: en (default), de, ru, ar, ja, zh, ...)."),
    Option("--split", "split", str, "Budget split: paper (default; absolute constants) | fractions (scale with epsilon)."),
    Option("--rho-hist", "rho_hist", float, "Override the histogram share (rho, or a fraction with --split fractions)."),
    Option("--epsilon-theta", "epsilon_theta", float, "Override the threshold share (epsilon_theta, or a fraction)."),
    Option("--rho-embed", "rho_embed", float, "Override the embedding-sum share (rho per cluster, or a fraction)."),
    Option("--no-outlier-removal", "outlier_removal", bool, "Skip the embedding threshold (ablation).", value=False),
    Option("--match-text", "match_text", bool, "Cluster on keyword occurrence in the text instead of extracted keywords."),
    Option("--clustering", "clustering", str,
           "Membership rule: paper (default; least frequent keyword first) | primary (a document's own first L released keywords)."),
    Option("--decoding", "decoding", str,
           "Private decoding: paper (default; clipped sum) | public-prior (+ omega x public log-probabilities) | "
           "invisibleink (clip each document's difference to the public log-probabilities)."),
    Option("--rephrase-prompt", "rephrase_prompt", str,
           "Instruction each member's text is put into, with {document} once; {keyword} = the cluster's released "
           "keyword (public text, e.g. \"Rewrite this customer's message about {keyword} in the customer's words: "
           "{document}\"; default: the paper's rephrase prompt)."),
    Option("--public-prompt", "public_prompt", str,
           "Public prompt of the decoding, no private data; {keyword} = the cluster's released keyword "
           "(default: the rephrase instruction with an empty document)."),
    Option("--public-weight", "public_weight", float, "Omega of the public term: paper (default 0) | public-prior (default 1)."),
    Option("--invisibleink-lambda", "invisibleink_lambda", float, "invisibleink: weight lambda of the public log-probabilities (default 1)."),
    Option("--public-top-k", "public_top_k", int,
           "Sample only among the public prompt's top-k+ tokens (any decoding with a public prompt; default: whole vocabulary)."),
    Option("--public-top-k-margin", "public_top_k_margin", float,
           "top-k+ also keeps tokens within this many nats of the k-th public log-probability (default 0)."),
    Option("--no-repeat-ngram", "no_repeat_ngram", int,
           "Never draw a token that repeats an n-gram of this length already in the text (default 0: off; free)."),
    Option("--svt-max-paid", "svt_max_paid", int,
           "Sparse-vector decoding: tokens the public prompt predicts are free, at most this many paid tokens "
           "per text (C <= T; needs a public prompt row; default: off, T paid tokens)."),
    Option("--svt-fraction", "svt_fraction", float,
           "With --svt-max-paid: share in (0, 1) of each text's token budget for its C AboveThreshold runs (default 0.25)."),
    Option("--svt-beta", "svt_beta", float,
           "With --svt-max-paid: offset beta in (0, 1) of each member's disagreement a_d - beta (default 0.5)."),
    Option("--svt-gap", "svt_gap", float,
           "With --svt-max-paid: logit gap g (nats) at which a member fully disagrees with the public token (default 2)."),
    Option("--fluency-threshold", "fluency_threshold", float,
           "Also drop texts whose mean token log-probability under the model is below this (nats, < 0; post-processing)."),
    Option("--trim-partial-ending", "trim_partial_ending", bool,
           "Cut each text that stops mid-clause after its last complete clause ('..., The Godfather (1972), The Shaw' "
           "-> '..., The Godfather (1972)'; post-processing, free; on in the cpu and demo presets)."),
    Option("--keep-partial-ending", "trim_partial_ending", bool,
           "Keep each text as generated, even when it stops mid-clause (turns off a preset's --trim-partial-ending).",
           value=False),
    Option("--keyword-title", "keyword_title", bool,
           "Prefix each text with its cluster's released keyword, 'keyword: text' (post-processing, free)."),
    Option("--response-prefix", "response_prefix", str,
           "Public text that opens every synthetic text; the members continue it (e.g. 'Symptoms:'; free)."),
    Option("--response-template", "response_template", str,
           "Public skeleton of every text with {} slots ({N}: at most N tokens), e.g. 'The diagnosis is {8}.': "
           "its text is written for free, only the slots' tokens are drawn, at most --T per text."),
    Option("--threshold-excess-weight", "threshold_excess_weight", float,
           "Weight in [0, 1] of members kept beyond --k in the outlier threshold's utility (default 1: the paper's; "
           "below 1 a cluster of near-duplicates is kept whole instead of emptied)."),
    Option("--index-copy-size", "index_copy_size", int,
           "Index each kept text once per this many documents of its cluster's released noisy count "
           "(at least once; default: once): frequent topics fill more of the top-k. Free (post-processing)."),
    Option("--max-index-copies", "max_index_copies", int, "With --index-copy-size: the most index entries per text (default 8)."),
    Option("--group-size", "group_size", int,
           "Split each cluster into disjoint member groups of about this many documents (by a hash of each "
           "document), one text per group, at the cost of one text (default: one text per cluster)."),
    Option("--max-groups", "max_groups", int, "With --group-size: the most groups (texts) per cluster (default 8)."),
    Option("--privacy-unit-field", "privacy_unit_field", str,
           "Field holding each document's person key: the guarantee is per person (all of one person's documents), "
           "not per document; each person gives at most K keywords, joins at most L clusters and is one member "
           "of a cluster (same epsilon, same noise)."),
    Option("--batch-size", "batch_size", int, "Prompts per generation batch (default: chosen from memory)."),
    Option("--prediction-checkpoints", "prediction_checkpoints", int,
           "Private prediction in about this many checkpointed batches of clusters (default 20): fewer is faster "
           "(fewer padded decode forwards), more loses less work to a kill (--resume). Same texts."),
    Option("--resume", "resume", bool, "Continue a killed build of --out from its checkpoints in .NAME.work beside "
           "--out (same input and options; released values are reused, never redrawn).", build_only=True),
    Option("--ray", "ray", bool, "Private prediction on a local Ray cluster, one model per worker "
           "(pip install 'dpsynrag[ray]').", build_only=True),
    Option("--ray-address", "ray_address", str, "Private prediction on the running Ray cluster at this address "
           "(host:6379, ray://host:10001, auto).", build_only=True),
    Option("--ray-workers", "ray_workers", int, "With --ray/--ray-address: model actors (default: one per GPU, "
           "else one per --threads CPUs).", build_only=True),
)


# ------------------------------------------------------------------------------------------- corpus


class DPSynRAG(CorpusMethod):
    """DP-SynRAG (METHOD.md): DP keyword histogram, soft clustering, re-ranking, private prediction."""

    name: ClassVar[str] = "dp-synrag"
    label: ClassVar[str] = "DP-SynRAG"
    help: ClassVar[str] = "DP-SynRAG (default): keyword clusters, one private-prediction text per cluster"
    options = SYNRAG_OPTIONS
    config_class: ClassVar[str] = "dpsynrag.pipeline.config:BuildConfig"
    generator: ClassVar[str] = "dpsynrag.pipeline.build:generate"  # (run, checkpoint=, ledger=, ray=)

    def plan(self, config):
        from dpsynrag.privacy.report import PrivacyReport

        cal = config.calibrate()
        return PrivacyReport.from_plan(config.plan(cal), delta=config.delta, parameters=cal.to_dict(),
                                       notes=config.plan_notes, unit_field=config.privacy_unit_field)

    def build(self, documents, out_dir, config, *, lm=None, embedder=None, text_field="text", id_field=None,
              identifier_fields=(), overwrite=False, progress=False, ledger=None, resume=False, ray=None,
              ray_address=None, ray_workers=None, threads=None):
        """:func:`~dpsynrag.pipeline.build.build_corpus`; ``ray`` may be a RayOptions, or True with
        ``ray_address``/``ray_workers``/``threads`` (the CLI's flags)."""
        from dpsynrag.errors import ConfigError
        from dpsynrag.pipeline.build import build_corpus

        if ray is True or ray_address is not None or ray_workers is not None:
            if not (ray or ray_address is not None):
                raise ConfigError("--ray-workers needs --ray (a local Ray cluster) or --ray-address.")
            from dpsynrag.pipeline.distributed import RayOptions

            ray = RayOptions(address=ray_address, workers=ray_workers, threads=threads)
        extra = {**({"resume": True} if resume else {}), **({"ray": ray} if ray else {})}
        return build_corpus(documents, out_dir, config, lm=lm, embedder=embedder, text_field=text_field,
                            id_field=id_field, identifier_fields=identifier_fields, overwrite=overwrite,
                            progress=progress, ledger=ledger, **extra)

    def eval_params(self, preset, epsilon):
        return dict(preset.synrag)

    def eval_config(self, harness, spec):
        """As the base, but a ``split="paper"`` that cannot pay at this ε falls back to ``"fractions"``
        (said in the report's note)."""
        config, _ = super().eval_config(harness, spec)
        try:
            config.calibrate()
            return config, None
        except InfeasibleBudgetError as exc:
            if config.split != "paper":
                raise
            fallback = config.model_copy(update={"split": "fractions"})
            fallback.calibrate()
            return fallback, f"split 'paper' infeasible at epsilon={spec.epsilon:g} ({exc}); used split='fractions'"


class DPSynRAGAblation(DPSynRAG):
    """An evaluation-only variant of DP-SynRAG: the preset's DP-SynRAG parameters with ``overrides``."""

    ablation: ClassVar[bool] = True
    overrides: ClassVar[dict[str, Any]] = {}

    def eval_params(self, preset, epsilon):
        return {**preset.synrag, **self.overrides}


class DPSynRAGL1(DPSynRAGAblation):
    """Ablation: L = 1 (hard clustering)."""

    name: ClassVar[str] = "dp-synrag-l1"
    label: ClassVar[str] = "DP-SynRAG, L=1"
    help: ClassVar[str] = "ablation of DP-SynRAG: L = 1"
    overrides: ClassVar[dict[str, Any]] = {"L": 1}


class DPSynRAGNoOutlierRemoval(DPSynRAGAblation):
    """Ablation: no embedding threshold (every cluster member predicts)."""

    name: ClassVar[str] = "dp-synrag-no-outlier-removal"
    label: ClassVar[str] = "DP-SynRAG, no outlier removal"
    help: ClassVar[str] = "ablation of DP-SynRAG: no outlier removal"
    overrides: ClassVar[dict[str, Any]] = {"outlier_removal": False}


class DPSynRAGNoSelfFilter(DPSynRAGAblation):
    """Ablation: the DP-SynRAG corpus's released texts, all kept (post-processing of that release)."""

    name: ClassVar[str] = "dp-synrag-no-self-filter"
    label: ClassVar[str] = "DP-SynRAG, no self-filter"
    help: ClassVar[str] = "ablation of DP-SynRAG: the same release, self-filter skipped"
    overrides: ClassVar[dict[str, Any]] = {"self_filter": False}

    def self_filters(self, preset) -> bool:
        return True  # the unfiltered copy of a self-filtered DP-SynRAG build

    def eval_corpus(self, harness, spec, folder):
        base_spec = dataclasses.replace(spec, method="dp-synrag",
                                        params={k: v for k, v in spec.params.items() if k != "self_filter"})
        base, _ = harness.corpus(base_spec)
        note = f"post-processing of the DP-SynRAG corpus {base.path.name}: the same released texts, all kept"
        return unfiltered_copy(base, Path(folder), harness.embedder), note


def unfiltered_copy(base, folder: Path, embedder):
    """The no-self-filter ablation: the base corpus's released texts, every non-empty one kept."""
    from dpsynrag.corpus import CorpusWriter

    records = [{**r, "kept": bool(str(r.get("text", "")).strip())} for r in base.records]
    manifest = {k: v for k, v in base.manifest.items()
                if k not in ("format_version", "dpsynrag_version", "created", "num_texts", "num_kept", "platform")}
    manifest["config"] = {**manifest.get("config", {}), "self_filter": False}
    manifest["filter_prompt"] = None
    manifest["method"] = "dp-synrag"
    manifest["derived_from"] = {"corpus": base.path.name, "operation": "self-filter skipped (post-processing)"}
    with CorpusWriter(folder, overwrite=True) as writer:
        return writer.finish(records, manifest, embedder)


class DPSynth(CorpusMethod):
    """DP-Synth (Amin et al. 2024): private prediction over random disjoint batches."""

    name: ClassVar[str] = "dp-synth"
    label: ClassVar[str] = "DP-Synth"
    help: ClassVar[str] = "DP-Synth (Amin et al. 2024): private prediction on random disjoint batches"
    options = (
        Option("--num-batches", "num_batches", int, "Public number of disjoint batches = texts (default 80)."),
        _T, _TAU,
    )
    config_class: ClassVar[str] = "dpsynrag.baselines.dp_synth:DPSynthConfig"
    generator: ClassVar[str] = "dpsynrag.baselines.dp_synth:generate"

    def eval_params(self, preset, epsilon):
        params = dict(preset.dp_synth)
        batch = params.pop("batch_size", None)
        if batch is not None and "num_batches" not in params and preset.documents is not None:
            # public: from the configured subset size, never from the private document count
            params["num_batches"] = max(1, math.ceil(preset.documents / int(batch)))
        return params


class AugPE(CorpusMethod):
    """Aug-PE (Xie et al. 2024): private evolution of public samples by DP nearest-neighbour votes."""

    name: ClassVar[str] = "aug-pe"
    label: ClassVar[str] = "Aug-PE"
    help: ClassVar[str] = "Aug-PE (Xie et al. 2024): private evolution by DP nearest-neighbour votes"
    options = (
        Option("--population-size", "population_size", int, "Synthetic population size (default 200)."),
        Option("--iterations", "iterations", int, "Private vote histograms (default 10)."),
        Option("--pe-L", "L", int, "population/L parents kept, each with L-1 variations (default 2)."),
        Option("--selection", "selection", str, "rank (default) | prob."),
        Option("--num-nearest-neighbor", "num_nearest_neighbor", int, "Samples each document votes for (default 1)."),
        Option("--count-threshold", "threshold", float, "Noisy counts below it are zeroed (default 0)."),
        Option("--description", "description", str, "Public description of the collection (default: the task's)."),
        Option("--batch-size", "batch_size", int, "Prompts per generation batch (default 32)."),
        _T, _TAU,
    )
    config_class: ClassVar[str] = "dpsynrag.baselines.aug_pe:AugPEConfig"
    generator: ClassVar[str] = "dpsynrag.baselines.aug_pe:generate"

    def prepare(self, config):
        return config.resolved_description()  # public; a missing description stops the build here

    def eval_params(self, preset, epsilon):
        return dict(preset.aug_pe)


# ------------------------------------------------------------------------------------------- online


class NonRAG(OnlineMethod):
    """The model alone, no retrieval (reads no private data)."""

    name: ClassVar[str] = "non-rag"
    label: ClassVar[str] = "Non-RAG"
    dp: ClassVar[bool] = False
    reads_private: ClassVar[bool] = False
    help: ClassVar[str] = "the model alone (no private data)"

    def answerer(self, harness, spec):
        from dpsynrag.rag.answer import RAGAnswerer

        task, p = harness.data.task, harness.config.preset
        answerer = RAGAnswerer(harness.answer_lm, harness.embedder, [], system_prompt=task.answer_system_prompt,
                               max_new_tokens=p.answer_tokens)
        return (lambda qs: [a.text for a in answerer.answer([q.question for q in qs])]), (lambda: None)


class RAG(OnlineMethod):
    """RAG over the private documents, without DP (the utility reference)."""

    name: ClassVar[str] = "rag"
    label: ClassVar[str] = "RAG (no DP)"
    dp: ClassVar[bool] = False
    retrieves: ClassVar[bool] = True
    private_prompts: ClassVar[bool] = True
    help: ClassVar[str] = "RAG over the private documents, no DP (reference)"

    def answerer(self, harness, spec):
        answerer = harness.retriever(spec, None)
        return (lambda qs: answerer.answer([q.question for q in qs])), (lambda: None)

    def eval_privacy(self, harness, spec, answer_info, corpus):
        return {"epsilon": None, "note": "no DP (epsilon infinite): the private documents are retrieved as they are"}


class DPRAG(OnlineMethod):
    """DP-RAG (Grislain 2025): query-time private prediction, ε per query."""

    name: ClassVar[str] = "dp-rag"
    label: ClassVar[str] = "DP-RAG"
    private_prompts: ClassVar[bool] = True
    epsilon_field: ClassVar[str] = "epsilon_per_query"
    help: ClassVar[str] = "DP-RAG (Grislain 2025): query-time DP, epsilon per query"
    options = (
        Option("--T", "max_new_tokens", int, "Answer tokens (default 70)."),
        _TAU,
        Option("--retrieval-epsilon", "retrieval_epsilon", float, "Epsilon of the retrieval threshold (default epsilon/11)."),
    )
    config_class: ClassVar[str] = "dpsynrag.baselines:DPRAGConfig"

    def eval_label(self, epsilon):
        return self.label if epsilon is None else f"{self.label} (ε/query={epsilon:g})"

    def plan(self, config):
        """The plan of one query (each query costs it)."""
        from dpsynrag.privacy.report import PrivacyReport

        cal = config.calibrate()
        return PrivacyReport.from_plan(cal.query_plan(), delta=config.delta, parameters=cal.to_dict())

    def eval_params(self, preset, epsilon):
        return {**dict(preset.dp_rag), "epsilon_per_query": epsilon}

    def answerer(self, harness, spec):
        from dpsynrag.baselines import DPRAGSession
        from dpsynrag.errors import ConfigError

        fields = {"delta": harness.config.preset.delta, **spec.params}
        unknown = sorted(set(fields) - set(self.config_type.model_fields))
        if unknown:
            raise ConfigError(f"DPRAGConfig has no field(s) {', '.join(unknown)}; "
                              f"fields: {', '.join(sorted(self.config_type.model_fields))}.")
        session = DPRAGSession(harness.data.documents, self.make_config(**fields), lm=harness.lm,
                               embedder=harness.embedder, task=harness.data.task, seed=harness.config.preset.seed)

        def answer(qs):
            return [getattr(a, "text", a) for a in session.answer([q.question for q in qs], progress=False)]

        def finish():
            spent = session.spent()
            return dict(spent) if spent else None

        return answer, finish

    def eval_privacy(self, harness, spec, answer_info, corpus):
        sessions = answer_info.get("sessions", [])
        out: dict[str, Any] = {"epsilon_per_query": spec.epsilon, "delta": harness.config.preset.delta,
                               "composition": "per query"}
        queries = sum(int(s.get("queries", 0) or 0) for s in sessions)
        rho = sum(float(s.get("rho", 0.0) or 0.0) for s in sessions)
        if queries:
            out["rho_per_query"] = rho / queries if rho else None
        out["sessions"] = sessions
        return out


def register_all(register) -> None:
    """Register the built-in methods in report order."""
    for method in (NonRAG(), RAG(), DPRAG(), DPSynth(), AugPE(), DPSynRAG(), DPSynRAGL1(),
                   DPSynRAGNoOutlierRemoval(), DPSynRAGNoSelfFilter()):
        register(method)
