"""DP-Synth: private prediction over random disjoint batches (Amin et al., "Private prediction for
large-scale synthetic text generation", EMNLP Findings 2024, arXiv 2407.12108; as used in DP-SynRAG
§6.1 and App. C.3: batches of 100 documents, the same clipping; METHOD.md §5; algorithm_brief §2.2).

1. Each private document is put in one of ``num_batches`` batches, chosen uniformly at random,
   independently of its content and of the other documents (randomness from the run's RandomSource).
2. Each batch gets one synthetic text by private prediction (:class:`~dpsynrag.models.PrivatePredictionDecoder`):
   every member's rephrase prompt (DP-SynRAG's App. A.2 prompt, :data:`~dpsynrag.pipeline.build.REPHRASE_PROMPT`),
   clipped logits summed, T tokens from softmax(z/τ). No clustering, no retrieval step.
3. Self-filtering (optional, the task's prompt as DP-SynRAG) and a RAG index over the kept texts
   (post-processing), written with :class:`~dpsynrag.corpus.CorpusWriter` (manifest ``method``: "dp-synth").

Privacy: the batches are disjoint and a document's batch depends only on its own random draw, so the
batches compose in parallel: the whole build costs what one batch may spend,

    ρ = T/2 · (c/τ)²,    c = τ · sqrt(2ρ(ε, δ)/T),

whatever the number of batches or of documents. ``num_batches`` is a public parameter (default 80 =
the paper's 8,000 documents / 100); it is never derived from the private document count, which the
number of outputs would otherwise release. Every batch emits exactly one text (an empty batch samples
from z = 0, i.e. uniformly; its text is then usually dropped by the self-filter).
"""

from __future__ import annotations

import json
import logging
import math
import os
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Literal, Optional

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

from dpsynrag import __version__
from dpsynrag.baselines._common import (
    as_documents,
    check_achieved,
    load_models,
    make_report,
    rho_target,
)
from dpsynrag.corpus import (
    CorpusWriter,
    SyntheticCorpus,
)
from dpsynrag.data.io import Document
from dpsynrag.errors import ConfigError
from dpsynrag.pipeline.build import REPHRASE_PROMPT, _resolve_filter_prompt, self_filter, truncation_stages
from dpsynrag.privacy.accountant import ZCDPAccountant
from dpsynrag.privacy.events import (
    ComposedEvent,
    OverlappingParallelEvent,
    PrivatePredictionTokenEvent,
    SelfComposedEvent,
)
from dpsynrag.privacy.ledger import prepare_charge
from dpsynrag.rng import RandomSource, make_random

log = logging.getLogger("dpsynrag.build")


@dataclass(frozen=True)
class DPSynthCalibration:
    """Calibrated private prediction of DP-Synth (rho in zCDP nats).

    Attributes:
        epsilon, delta, conversion: the target. rho_total: ρ(ε, δ), shrunk by 1e-10.
        clip, temperature, T: c, τ and tokens per text; rho_token = (c/τ)²/2.
        rho_batch: T · rho_token, what one batch may spend = what the build costs.
        num_batches: the public number of batches (does not change the cost).
    """

    epsilon: float
    delta: float
    conversion: str
    T: int
    temperature: float
    num_batches: int
    rho_total: float
    clip: float
    rho_token: float
    rho_batch: float

    def batch_plan(self) -> ComposedEvent:
        """One batch: T private prediction tokens."""
        token = PrivatePredictionTokenEvent(name="private prediction token", clip=self.clip, temperature=self.temperature)
        return ComposedEvent(name="one batch", events=(SelfComposedEvent(token, self.T, name=f"{self.T} private prediction tokens"),))

    def plan(self) -> OverlappingParallelEvent:
        """The whole build: ``num_batches`` disjoint batches (each document in one), parallel composition."""
        return OverlappingParallelEvent(
            name="disjoint batches", branch=self.batch_plan(), num_branches=self.num_batches, max_branches_per_unit=1
        )

    def to_dict(self) -> dict:
        return asdict(self)


class DPSynthConfig(BaseModel):
    """Parameters of a DP-Synth build (privacy arguments keyword-only, validated on creation).

    ``epsilon`` > 0, ``delta`` in (0, 1): the target of the whole build; ``conversion``: ρ → ε conversion
    used to calibrate. ``num_batches``: public number of batches = number of synthetic texts (default
    80). ``T`` tokens per text, ``temperature`` τ. Self-filtering as DP-SynRAG (``self_filter``,
    ``filter_prompt`` or the ``task``'s prompt). ``max_document_tokens``: documents are truncated to this
    many tokens in the prompts. ``seed``: reproducible, NOT for release.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    epsilon: float = Field(gt=0)
    delta: float = Field(gt=0, lt=1)
    num_batches: int = Field(80, ge=1)
    T: int = Field(70, ge=1)
    temperature: float = Field(1.0, gt=0)
    conversion: Literal["bun-steinke", "cks"] = "bun-steinke"
    self_filter: bool = True
    filter_prompt: Optional[str] = None
    task: Optional[str] = None
    model: Optional[str] = None
    embedder: Optional[str] = None
    max_document_tokens: int = Field(256, ge=8)
    seed: Optional[int] = Field(None, ge=0)
    memory_budget_gb: float = Field(2.0, gt=0)

    @model_validator(mode="after")
    def _consistent(self) -> "DPSynthConfig":
        if self.filter_prompt is not None and "{document}" not in self.filter_prompt:
            raise ValueError("`filter_prompt` must contain the placeholder {document}.")
        return self

    def calibrate(self) -> DPSynthCalibration:
        """c from (ε, δ): ρ = T/2 · (c/τ)² (parallel composition over the batches)."""
        rho = rho_target(self.epsilon, self.delta, self.conversion, what="DP-Synth")
        clip = self.temperature * math.sqrt(2.0 * rho / self.T)
        rho_token = 0.5 * (clip / self.temperature) ** 2
        cal = DPSynthCalibration(
            epsilon=self.epsilon, delta=self.delta, conversion=self.conversion, T=self.T, temperature=self.temperature,
            num_batches=self.num_batches, rho_total=rho, clip=clip, rho_token=rho_token, rho_batch=self.T * rho_token,
        )
        check_achieved(cal.plan().rho, epsilon=self.epsilon, delta=self.delta, conversion=self.conversion, what="DP-Synth")
        return cal


def assign_batches(num_documents: int, num_batches: int, random: RandomSource) -> np.ndarray:
    """Each document's batch, uniform on {0, …, num_batches − 1}, independent across documents.

    A document's batch depends only on its own draw (never on its content or on the other documents),
    which is what parallel composition needs.

    Returns:
        int64 array [num_documents].

    Raises:
        ConfigError: ``num_batches`` < 1 or ``num_documents`` < 0.
    """
    if isinstance(num_batches, bool) or not isinstance(num_batches, int) or num_batches < 1:
        raise ConfigError(f"`num_batches` must be an integer >= 1. Found {num_batches!r}.")
    if isinstance(num_documents, bool) or not isinstance(num_documents, int) or num_documents < 0:
        raise ConfigError(f"`num_documents` must be an integer >= 0. Found {num_documents!r}.")
    u = random.uniform(num_documents)
    return np.minimum((u * num_batches).astype(np.int64), num_batches - 1)


def build_dp_synth(
    documents: Sequence[Document] | Sequence[str] | str | os.PathLike,
    out_dir: str | os.PathLike,
    config: DPSynthConfig,
    *,
    lm=None,
    embedder=None,
    text_field: str = "text",
    id_field: str | None = None,
    overwrite: bool = False,
    progress: bool = False,
    ledger=None,
) -> SyntheticCorpus:
    """Build a DP-Synth synthetic corpus (one text per random disjoint batch) and its RAG index.

    Args:
        documents: the private collection (Documents, strings, or a JSONL/CSV/Parquet path).
        out_dir: the corpus folder to create (must not exist unless ``overwrite``).
        config: the :class:`DPSynthConfig`.
        lm, embedder: loaded models (else loaded from ``config.model`` / ``config.embedder``).
        text_field, id_field: fields of a file input.
        overwrite: replace an existing folder (only once the new build has succeeded).
        progress: show progress bars.
        ledger: a :class:`~dpsynrag.privacy.ledger.PrivacyLedger` (``--ledger``): checked before any
            model loads, recorded just before the first draw (see :func:`~dpsynrag.pipeline.build.build_corpus`).

    Returns:
        The :class:`~dpsynrag.corpus.SyntheticCorpus`: ``num_batches`` records (``id``, ``batch``,
        ``text``, ``kept``), manifest ``method`` "dp-synth" with the privacy report.

    Raises:
        ConfigError: bad parameters (e.g. self-filter without a task). DataError: unusable input.
        FileExistsError: ``out_dir`` exists and ``overwrite`` is False.
    """
    t_start = time.time()
    if not isinstance(config, DPSynthConfig):
        raise ConfigError(f"`config` must be a DPSynthConfig. Found {type(config).__name__}.")
    writer = CorpusWriter(out_dir, overwrite=overwrite)
    cal = config.calibrate()
    filter_prompt = _resolve_filter_prompt(config)  # type: ignore[arg-type]  # same fields as BuildConfig
    documents = as_documents(documents, text_field=text_field, id_field=id_field)
    charge = prepare_charge(ledger, documents, cal.plan(), delta=config.delta, kind="build", method="dp-synth",
                            label=str(writer.out.resolve()))
    random = make_random(config.seed)
    assignment_random = random.child("batch-assignment")
    sampling = random.child("private-prediction")

    with writer:
        log.info("dpsynrag %s DP-Synth build: %s", __version__, config.model_dump_json())
        log.info("calibrated: %s", json.dumps(cal.to_dict()))
        lm, embedder = load_models(lm, embedder, model=config.model, embedder_spec=config.embedder)
        timings: dict[str, float] = {}

        texts = [lm.truncate(d.text, config.max_document_tokens) for d in documents]
        # how many documents were cut (never which): owner-only, never logged
        truncation = truncation_stages(config.max_document_tokens, sum(t != d.text for t, d in zip(texts, documents)))
        charge.commit()  # the ledger records the build before anything is drawn
        batch_of = assign_batches(len(texts), config.num_batches, assignment_random)
        members: list[list[int]] = [[] for _ in range(config.num_batches)]
        for i, b in enumerate(batch_of):
            members[int(b)].append(i)

        accountant = ZCDPAccountant(rho_budget=cal.rho_total, delta_budget=0.0, name="build")
        parallel = accountant.open_parallel(
            cal.batch_plan(), num_branches=config.num_batches, max_branches_per_unit=1, name="disjoint batches"
        )
        branches = [parallel.branch(b) for b in range(config.num_batches)]

        t = time.time()
        from dpsynrag.models import PrivatePredictionDecoder

        prompt_of = {i: lm.chat_prompt(REPHRASE_PROMPT.format(document=texts[i])) for i in range(len(texts))}
        decoder = PrivatePredictionDecoder(
            lm, clip=cal.clip, temperature=cal.temperature, max_new_tokens=cal.T, random=sampling,
            memory_budget_gb=config.memory_budget_gb, prompt_prefix=lm.public_prefix(REPHRASE_PROMPT),
        )
        synthetic = decoder.generate([[prompt_of[i] for i in m] for m in members], branches, progress=progress)
        timings["private_prediction_s"] = time.time() - t
        log.info("DP-Synth: %d synthetic texts generated", len(synthetic))
        del members, batch_of, prompt_of, texts  # private intermediates: never written

        t = time.time()
        kept = self_filter(lm, synthetic, filter_prompt, progress=progress) if filter_prompt else [bool(s.strip()) for s in synthetic]
        timings["self_filter_s"] = time.time() - t
        log.info("self-filter kept %d of %d texts", sum(kept), len(kept))

        records = [{"id": b, "batch": b, "text": y, "kept": k} for b, (y, k) in enumerate(zip(synthetic, kept))]
        report = make_report(
            accountant,
            delta=config.delta,
            plan=cal.plan(),
            composition=(
                "zCDP: each document is in exactly one batch, drawn uniformly at random independently of its "
                "content and of the other documents (disjoint batches): parallel composition, the build costs what "
                "one batch may spend, T private prediction tokens of (c/tau)^2/2 each, whatever the number of batches."
            ),
            parameters=cal.to_dict(),
            random=random,
        )
        return writer.finish_build(
            records, method="dp-synth", config=config, report=report, lm=lm, embedder=embedder,
            documents=documents, secure=random.is_secure, timings=timings, t_start=t_start,
            prompt=REPHRASE_PROMPT, filter_prompt=filter_prompt, truncation=truncation,
        )
