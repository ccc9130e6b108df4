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

import logging
import math
import os
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np
from pydantic import Field

from dpsynrag.baselines.common import build_baseline, check_achieved, rho_target
from dpsynrag.corpus import SyntheticCorpus
from dpsynrag.data.io import Document
from dpsynrag.pipeline.corpus_config import GenerationConfig
from dpsynrag.errors import ConfigError
from dpsynrag.pipeline.build import REPHRASE_PROMPT
from dpsynrag.pipeline.context import check_context
from dpsynrag.pipeline.run import BuildRun, truncation_stages
from dpsynrag.privacy.events import (
    ComposedEvent,
    OverlappingParallelEvent,
    PrivatePredictionTokenEvent,
    SelfComposedEvent,
)
from dpsynrag.rng import RandomSource

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


class DPSynthConfig(GenerationConfig):
    """Parameters of a DP-Synth build (privacy arguments keyword-only, validated on creation).

    ``epsilon`` > 0, ``delta`` in (0, 1): the target of the whole build; ``conversion``: ρ → ε conversion
    used to calibrate. ``num_batches``: public number of batches = number of synthetic texts (default
    80). ``T`` tokens per text, ``temperature`` τ. Self-filtering as DP-SynRAG (``self_filter``,
    ``filter_prompt`` or the ``task``'s prompt). ``max_document_tokens``: documents are truncated to this
    many tokens in the prompts. ``seed``: reproducible, NOT for release.
    """

    num_batches: int = Field(80, ge=1)
    memory_budget_gb: float = Field(2.0, gt=0)

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


def build_dp_synth(documents: Sequence[Document] | Sequence[str] | str | os.PathLike, out_dir: str | os.PathLike,
                   config: DPSynthConfig, **options) -> SyntheticCorpus:
    """Build a DP-Synth synthetic corpus (one text per random disjoint batch) and its RAG index:
    the registered method's ``build`` (:meth:`dpsynrag.methods.CorpusMethod.build` gives the arguments and
    the keyword ``options``: ``lm``, ``embedder``, ``text_field``, ``id_field``, ``identifier_fields``,
    ``overwrite``, ``progress``, ``ledger``).

    Returns:
        The :class:`~dpsynrag.corpus.SyntheticCorpus`: ``num_batches`` records (``id``, ``batch``,
        ``text``, ``kept``), manifest ``method`` "dp-synth" with the privacy report.

    Raises:
        ConfigError: bad parameters (e.g. self-filter without a task). DataError: unusable input.
        FileExistsError: ``out_dir`` exists and ``overwrite`` is False. TypeError: an unknown option.
    """
    return build_baseline("dp-synth", generate, DPSynthConfig, documents, out_dir, config, **options)


def generate(run: BuildRun) -> SyntheticCorpus:
    """DP-Synth inside a :class:`~dpsynrag.pipeline.run.BuildRun`: assign the documents to disjoint
    batches, one private-prediction text per batch, filter, write."""
    config, cal = run.config, run.cal
    run.start()
    lm = run.lm
    # before any document goes through the model: its longest prompts fit (public numbers only)
    check_context(lm, config, public_prompt=None, filter_prompt=run.filter_prompt, vocabulary=None)
    texts = [lm.truncate(d.text, config.max_document_tokens) for d in run.documents]
    # how many documents were cut (never which): owner-only, never logged
    truncation = truncation_stages(config.max_document_tokens, sum(t != d.text for t, d in zip(texts, run.documents)))
    run.charge.commit()  # the ledger records the build before anything is drawn
    batch_of = assign_batches(len(texts), config.num_batches, run.stream("batch-assignment"))
    members: list[list[int]] = [[] for _ in range(config.num_batches)]
    for i, b in enumerate(batch_of):
        members[int(b)].append(i)

    accountant = run.accountant()
    parallel = accountant.open_parallel(
        cal.batch_plan(), num_branches=config.num_batches, max_branches_per_unit=1, name="disjoint batches"
    )
    branches = [parallel.branch(b) for b in range(config.num_batches)]

    with run.timed("private_prediction_s"):
        from dpsynrag.models import PrivatePredictionDecoder

        prompt_of = {i: lm.chat_prompt(REPHRASE_PROMPT.format(document=texts[i])) for i in range(len(texts))}
        decoder = PrivatePredictionDecoder(
            lm, clip=cal.clip, temperature=cal.temperature, max_new_tokens=cal.T, random=run.stream("private-prediction"),
            memory_budget_gb=config.memory_budget_gb, prompt_prefix=lm.public_prefix(REPHRASE_PROMPT),
        )
        synthetic = decoder.generate([[prompt_of[i] for i in m] for m in members], branches, progress=run.progress)
    log.info("DP-Synth: %d synthetic texts generated", len(synthetic))
    del members, batch_of, prompt_of, texts  # private intermediates: never written

    kept = run.filter(synthetic)
    records = [{"id": b, "batch": b, "text": y, "kept": k} for b, (y, k) in enumerate(zip(synthetic, kept))]
    report = run.report(
        accountant,
        plan=cal.plan(),
        composition=(
            "zCDP: each document is in exactly one batch, drawn uniformly at random independently of its "
            "content and of the other documents (disjoint batches): parallel composition, the build costs what "
            "one batch may spend, T private prediction tokens of (c/tau)^2/2 each, whatever the number of batches."
        ),
        parameters=cal.to_dict(),
    )
    return run.finish(records, report, prompt=REPHRASE_PROMPT, filter_prompt=run.filter_prompt, truncation=truncation)
