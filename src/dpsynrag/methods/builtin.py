"""The built-in methods: Non-RAG, RAG (no DP), DP-RAG and its query-time rivals (:mod:`dpsynrag.methods.rivals`), DP-Synth, Aug-PE, DP-SynRAG and its ablations.

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
from dpsynrag.methods.base import CorpusMethod, OnlineMethod, read_options

OPTIONS = read_options(Path(__file__).with_name("options.toml"))
"""The command-line options of each built-in method, from ``options.toml`` beside this module (data: the
flag, the field it sets, its type, ``--help`` panel and help)."""


# ------------------------------------------------------------------------------------------- corpus


SYNTHESIS_LABELS = {"prediction": "private prediction", "phrases": "phrase release"}
"""How a DP-SynRAG row names its synthesis (``BuildConfig.synthesis``)."""


class DPSynRAG(CorpusMethod):
    """DP-SynRAG (METHOD.md): DP keyword histogram, soft clustering, re-ranking, private prediction."""

    name: ClassVar[str] = "dp-synrag"
    label: ClassVar[str] = "DP-SynRAG"
    help: ClassVar[str] = "DP-SynRAG (default): keyword clusters, one private-prediction text per cluster"
    options = OPTIONS["dp-synrag"]
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

    def eval_label(self, epsilon, params=None):
        """The label names the synthesis that wrote the texts (issue 53): ``DP-SynRAG, phrase release (ε=10)``
        or ``DP-SynRAG, private prediction (ε=10)`` (the paper's generation, METHOD.md step 4)."""
        synthesis = (params or {}).get("synthesis", "prediction")
        name = SYNTHESIS_LABELS.get(synthesis, synthesis)
        return f"{self.label}, {name}" + ("" if epsilon is None else f" (ε={epsilon:g})")

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
    options = OPTIONS["dp-synth"]
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
    options = OPTIONS["aug-pe"]
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
    options = OPTIONS["dp-rag"]
    config_class: ClassVar[str] = "dpsynrag.baselines:DPRAGConfig"

    def eval_label(self, epsilon, params=None):
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
    from dpsynrag.methods.rivals import RIVALS

    for method in (NonRAG(), RAG(), DPRAG(), *(rival() for rival in RIVALS), DPSynth(), AugPE(), DPSynRAG(), DPSynRAGL1(),
                   DPSynRAGNoOutlierRemoval(), DPSynRAGNoSelfFilter()):
        register(method)
