"""Aug-PE: private evolution of synthetic text (Xie et al., "Differentially Private Synthetic Data via
Foundation Model APIs 2: Text", ICML 2024, arXiv 2403.01749, Alg. 1; Private Evolution, Lin et al.,
ICLR 2024; METHOD.md §5; algorithm_brief §2.3–2.4).

The private documents are touched only through a DP nearest-neighbour vote histogram:

1. **RANDOM_API** (public, free): an initial population P_0 of ``population_size`` texts sampled from
   the language model with a prompt built from the task's public description.
2. For t = 1 … ``iterations``:
   a. every private document votes for its k = ``num_nearest_neighbor`` nearest samples of P_{t−1} in
      the embedding space (L2 on unit embeddings), one vote each, so a document's vote vector is 0/1
      with k ones: L2 norm √k;
   b. **discrete Gaussian mechanism**: h_t = Σ_d vote(d) + Z, Z_j ~ N_Z(0, σ²) exact (L2 sensitivity √k
      per document per iteration; :func:`~dpsynrag.privacy.mechanisms.discrete_gaussian_vote_histogram`,
      charged before the noise): integer counts;
   c. post-processing: counts max(h_t − H, 0) with the count threshold H (in votes); select
      ⌊population_size / L⌋ parents, the top counts ("rank") or drawn ∝ counts ("prob", uniform when
      every count is 0);
   d. if t < iterations: **VARIATION_API** rewrites each parent (public): P_t = the parents plus L − 1
      variations of each (one variation each, no parent kept, when L = 1).
3. The synthetic corpus is the parents selected by the last histogram (distinct texts), self-filtered
   (optional, as DP-SynRAG) and indexed for the same RAG (manifest ``method``: "aug-pe").

Privacy: ``iterations`` discrete Gaussian mechanisms of L2 sensitivity √k — exactly the iterations that
touch the private data (the initial population and the final selection do not; the PE step-count
off-by-one, algorithm_brief §2.3, is avoided by charging each histogram when it is computed):

    ρ = iterations · k / (2σ²),    σ = sqrt(k · iterations / (2ρ(ε, δ)))

(the discrete Gaussian costs what the continuous one does: Canonne, Kamath & Steinke 2020, Thm. 14).
Aug-PE's own accounting composes continuous Gaussians in Gaussian DP (μ = sqrt(iterations)·√k/σ), which
gives a slightly smaller ε for the same σ; here every method uses the same zCDP accountant.
"""

from __future__ import annotations

import logging
import math
import os
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Literal, Optional

import numpy as np
from pydantic import Field, model_validator

from dpsynrag.checks import check_int, check_real
from dpsynrag.baselines.common import (
    build_baseline,
    check_achieved,
    resolve_task,
    rho_target,
)
from dpsynrag.corpus import (
    SyntheticCorpus,
)
from dpsynrag.data.io import Document
from dpsynrag.pipeline.corpus_config import GenerationConfig
from dpsynrag.errors import ConfigError
from dpsynrag.pipeline.run import BuildRun, truncation_stages
from dpsynrag.privacy.events import ComposedEvent, DiscreteGaussianEvent
from dpsynrag.privacy.mechanisms import discrete_gaussian_vote_histogram
from dpsynrag.rng import RandomSource

log = logging.getLogger("dpsynrag.build")

RANDOM_PROMPT = (
    "Here is the description of a collection of documents: {description}\n"
    "Write one new document that could belong to this collection. Reply with the document only."
)
"""RANDOM_API prompt (public): ``{description}`` is the task's public description."""

VARIATION_PROMPT = (
    "Rephrase the following document. Keep its kind of content and its style, and change some details.\n"
    "Document: {document}"
)
"""VARIATION_API prompt (public): ``{document}`` is a synthetic sample (never a private document)."""


# ----------------------------------------------------------------------------------------------
# Non-private sampling from the language model (RANDOM_API / VARIATION_API)
# ----------------------------------------------------------------------------------------------


def sample_texts(
    lm,
    prompts: Sequence[str],
    *,
    max_new_tokens: int,
    temperature: float,
    random: RandomSource,
    batch_size: int = 32,
) -> list[str]:
    """Sample one continuation per rendered prompt from the model itself, softmax(logits/τ) — no
    clipping, no privacy: only for public prompts (RANDOM_API, VARIATION_API).

    Args:
        lm: a :class:`~dpsynrag.models.LanguageModel`.
        prompts: rendered prompts (identical prompts are prefilled once per batch).
        max_new_tokens: most tokens per text (>= 1); a text ends at an EOS token.
        temperature: τ > 0.
        random: sampling randomness.
        batch_size: rows decoded together (>= 1).

    Returns:
        One text per prompt (special tokens removed, stripped), in order.

    Raises:
        ConfigError: bad sizes or temperature. DataError: an empty or too long prompt.
    """
    from dpsynrag.models.engine import RowBatch
    from dpsynrag.models.decoding import RowLayout, SamplingSelector, decode

    check_int("max_new_tokens", max_new_tokens)
    check_int("batch_size", batch_size)
    temperature = check_real("temperature", temperature, above=0.0)
    encoded = lm.encode_prompts(list(prompts), max_new_tokens)
    selector = SamplingSelector(lm.vocab_size, temperature=temperature, random=random)
    out: list[str] = []
    for start in range(0, len(encoded), batch_size):
        part = encoded[start : start + batch_size]
        distinct: dict[tuple[int, ...], int] = {}
        src = [distinct.setdefault(tuple(p), len(distinct)) for p in part]
        rows = RowBatch(lm.runner, [list(p) for p in distinct], src, max_new_tokens=max_new_tokens)
        generated = decode(rows, RowLayout.one_row_per_group(len(part)), selector, steps=max_new_tokens, eos=lm.eos_token_ids)
        out.extend(lm.tokenizer.decode(g, skip_special_tokens=True).strip() for g in generated)
    return out


# ----------------------------------------------------------------------------------------------
# The DP nearest-neighbour histogram and selection
# ----------------------------------------------------------------------------------------------


def nearest_neighbor_votes(private_embeddings: np.ndarray, population_embeddings: np.ndarray, *, k: int = 1) -> np.ndarray:
    """Each private document's vote vector over the population (Aug-PE ``dp_nn_histogram``, L2 mode).

    Document i gives one vote to each of its k nearest population samples in L2 distance (ties: the
    lower index), so every row is 0/1 with exactly k ones: L2 norm √k, the sensitivity of the histogram.

    Args:
        private_embeddings: float [n, dim], unit rows (n may be 0).
        population_embeddings: float [N, dim], unit rows, N >= 1.
        k: neighbours per document, 1 <= k <= N.

    Returns:
        int64 [n, N].

    Raises:
        ConfigError: bad shapes or k.
    """
    x = np.asarray(private_embeddings, dtype=np.float64)
    p = np.asarray(population_embeddings, dtype=np.float64)
    if x.ndim != 2 or p.ndim != 2 or x.shape[1] != p.shape[1] or p.shape[0] < 1:
        raise ConfigError(f"embeddings must be [n, dim] and [N >= 1, dim]. Found {x.shape} and {p.shape}.")
    check_int("k", k)
    if k > p.shape[0]:
        raise ConfigError(f"`k` (num_nearest_neighbor) must be at most the population size {p.shape[0]}. Found {k}.")
    # ||x - p||² = |x|² + |p|² - 2 x·p: per row, rank by |p|² - 2 x·p.
    dist = (p**2).sum(axis=1)[None, :] - 2.0 * (x @ p.T)
    nearest = np.argsort(dist, axis=1, kind="stable")[:, :k]
    votes = np.zeros((x.shape[0], p.shape[0]), dtype=np.int64)
    np.put_along_axis(votes, nearest, 1, axis=1)
    return votes


def select_parents(counts: np.ndarray, size: int, *, mode: str, random: RandomSource) -> np.ndarray:
    """Parents for the next population from post-processed counts (Aug-PE ``select_syn_mode``).

    Args:
        counts: float [N], >= 0 (noisy counts after the threshold).
        size: parents to select, 1 <= size <= N.
        mode: "rank" (the ``size`` largest counts, ties by index) or "prob" (``size`` draws with
            replacement ∝ counts; uniform when every count is 0).

    Returns:
        int64 [size] indices into the population.
    """
    c = np.asarray(counts, dtype=np.float64)
    if mode == "rank":
        return np.argsort(-c, kind="stable")[:size].astype(np.int64)
    if mode == "prob":
        logw = np.where(c > 0, np.log(np.where(c > 0, c, 1.0)), -np.inf) if c.sum() > 0 else np.zeros_like(c)
        return np.asarray(random.categorical(np.broadcast_to(logw, (size, len(c)))), dtype=np.int64).reshape(-1)
    raise ConfigError(f"`selection` must be 'rank' or 'prob'. Found {mode!r}.")


# ----------------------------------------------------------------------------------------------
# Configuration, calibration and the build
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AugPECalibration:
    """Calibrated noise of Aug-PE (rho in zCDP nats).

    Attributes:
        epsilon, delta, conversion: the target. rho_total: ρ(ε, δ), shrunk by 1e-10.
        iterations: histograms computed on the private data. num_nearest_neighbor: k, votes per document.
        sigma: σ of each histogram's discrete Gaussian noise, in votes (L2 sensitivity √k).
        rho_iteration = k/(2σ²); iterations · rho_iteration = rho_total.
    """

    epsilon: float
    delta: float
    conversion: str
    iterations: int
    num_nearest_neighbor: int
    rho_total: float
    sigma: float
    rho_iteration: float

    def histogram_event(self, iteration: int, population_size: int | None = None) -> DiscreteGaussianEvent:
        """The vote histogram of one iteration: discrete Gaussian, L2 sensitivity √k."""
        return DiscreteGaussianEvent(
            name=f"Aug-PE vote histogram (iteration {iteration})", sensitivity=math.sqrt(self.num_nearest_neighbor),
            sigma=self.sigma, dimension=population_size,
        )

    def plan(self, population_size: int | None = None) -> ComposedEvent:
        """The build's privacy plan, fixed before any data is read: one vote histogram per iteration."""
        return ComposedEvent(
            name="Aug-PE build",
            events=tuple(self.histogram_event(it, population_size) for it in range(1, self.iterations + 1)),
        )

    def to_dict(self) -> dict:
        return asdict(self)


class AugPEConfig(GenerationConfig):
    """Parameters of an Aug-PE build (validated on creation).

    Privacy: ``epsilon`` > 0, ``delta`` in (0, 1), ``conversion``. Evolution: ``population_size`` N,
    ``iterations`` (private histograms), ``L`` (Aug-PE's ``combine_divide_L``: N/L parents are selected,
    each kept with L − 1 variations), ``num_nearest_neighbor``, ``threshold`` H (counts below H are
    zeroed), ``selection`` "rank" | "prob". Generation: ``T`` tokens per sample, ``temperature``,
    ``random_prompt`` (with ``{description}``: ``description``, else the task's), ``variation_prompt``
    (with ``{document}``). Self-filter as DP-SynRAG. ``seed``: reproducible, NOT for release.
    """

    population_size: int = Field(200, ge=1)
    iterations: int = Field(10, ge=1)
    L: int = Field(2, ge=1)
    num_nearest_neighbor: int = Field(1, ge=1)
    threshold: float = Field(0.0, ge=0)
    selection: Literal["rank", "prob"] = "rank"
    description: Optional[str] = None
    random_prompt: str = RANDOM_PROMPT
    variation_prompt: str = VARIATION_PROMPT
    batch_size: int = Field(32, ge=1)

    @model_validator(mode="after")
    def _consistent(self) -> "AugPEConfig":
        if self.L > self.population_size:
            raise ValueError(f"`L` must be at most `population_size` ({self.population_size}). Found {self.L}.")
        smallest = self.population_size if self.iterations == 1 else (self.population_size // self.L) * self.L
        if self.num_nearest_neighbor > smallest:
            raise ValueError(
                f"`num_nearest_neighbor` must be at most the smallest population ({smallest} = population_size, "
                f"or (population_size // L) * L after a variation step). Found {self.num_nearest_neighbor}."
            )
        if "{description}" not in self.random_prompt:
            raise ValueError("`random_prompt` must contain the placeholder {description}.")
        if "{document}" not in self.variation_prompt:
            raise ValueError("`variation_prompt` must contain the placeholder {document}.")
        return self

    @property
    def selected_size(self) -> int:
        """Parents selected per iteration: ⌊N / L⌋."""
        return self.population_size // self.L

    def calibrate(self) -> AugPECalibration:
        """σ from (ε, δ): ρ = iterations · k / (2σ²), k = ``num_nearest_neighbor``."""
        rho = rho_target(self.epsilon, self.delta, self.conversion, what="Aug-PE")
        k = self.num_nearest_neighbor
        sigma = math.sqrt(k * self.iterations / (2.0 * rho))
        cal = AugPECalibration(
            epsilon=self.epsilon, delta=self.delta, conversion=self.conversion, iterations=self.iterations,
            num_nearest_neighbor=k, rho_total=rho, sigma=sigma, rho_iteration=k / (2.0 * sigma**2),
        )
        check_achieved(self.iterations * cal.rho_iteration, epsilon=self.epsilon, delta=self.delta,
                       conversion=self.conversion, what="Aug-PE")
        return cal

    def resolved_description(self) -> str:
        """The public description of the collection: ``description``, else the task's.

        Raises:
            ConfigError: neither is given.
        """
        if self.description:
            return self.description
        if self.task:
            return resolve_task(self.task).description
        raise ConfigError(
            "Aug-PE's RANDOM_API needs a public description of the collection: pass a task (--task medical; "
            "task='medical' in the API) or a description (description=)."
        )


def build_aug_pe(documents: Sequence[Document] | Sequence[str] | str | os.PathLike, out_dir: str | os.PathLike,
                 config: AugPEConfig, **options) -> SyntheticCorpus:
    """Build an Aug-PE synthetic corpus (see the module docstring) and its RAG index:
    the registered method's ``build`` (:meth:`dpsynrag.methods.CorpusMethod.build` gives the arguments and the
    keyword ``options``: ``lm``, ``embedder`` (it computes the votes and the index), ``text_field``,
    ``id_field``, ``identifier_fields``, ``overwrite``, ``progress``, ``ledger``).

    Returns:
        The :class:`~dpsynrag.corpus.SyntheticCorpus`: one record per distinct selected text (``id``,
        ``text``, ``noisy_count`` from the last histogram, ``kept``), manifest ``method`` "aug-pe".

    Raises:
        ConfigError: bad parameters (no description, self-filter without a task). DataError: unusable
            input. FileExistsError: ``out_dir`` exists and ``overwrite`` is False. TypeError: an unknown option.
    """
    return build_baseline("aug-pe", generate, AugPEConfig, documents, out_dir, config, prepare=AugPEConfig.resolved_description, **options)


def generate(run: BuildRun) -> SyntheticCorpus:
    """Aug-PE inside a :class:`~dpsynrag.pipeline.run.BuildRun`: a public initial population, ``iterations``
    private vote histograms with public variations between them, filter, write."""
    config, cal, description = run.config, run.cal, run.prepared
    noise = run.stream("privacy-noise")
    public = run.stream("public-generation")
    selection_random = run.stream("selection")
    run.start()
    lm, embedder = run.lm, run.embedder
    run.timings.update({"generation_s": 0.0, "histogram_s": 0.0})

    with run.timed("private_embedding_s"):
        texts = [lm.truncate(d.text, config.max_document_tokens) for d in run.documents]
        private_emb = embedder.encode(texts, progress=run.progress)
        # how many documents were cut (never which): owner-only, never logged
        truncation = truncation_stages(
            config.max_document_tokens, sum(t != d.text for t, d in zip(texts, run.documents)), embedder, texts
        )
        del texts

    def generate_texts(prompts: list[str]) -> list[str]:
        with run.timed("generation_s"):
            return sample_texts(
                lm, prompts, max_new_tokens=config.T, temperature=config.temperature, random=public,
                batch_size=config.batch_size,
            )

    random_prompt = lm.chat_prompt(config.random_prompt.replace("{description}", description))
    population = generate_texts([random_prompt] * config.population_size)  # RANDOM_API: public, free
    log.info("Aug-PE: initial population of %d samples", len(population))

    run.charge.commit()  # the ledger records the build before anything is drawn
    accountant = run.accountant()
    size = config.selected_size
    for it in range(1, config.iterations + 1):
        with run.timed("histogram_s"):
            pop_emb = embedder.encode(population)
            votes = nearest_neighbor_votes(private_emb, pop_emb, k=config.num_nearest_neighbor)
            noisy = discrete_gaussian_vote_histogram(
                votes, max_votes=config.num_nearest_neighbor, sigma=cal.sigma, accountant=accountant, random=noise,
                name=f"Aug-PE vote histogram (iteration {it})",
            )
            del votes
            counts = np.maximum(noisy - config.threshold, 0.0)  # post-processing of the released h_t
            parents = select_parents(counts, size, mode=config.selection, random=selection_random)
        log.info("Aug-PE iteration %d: histogram released, %d parents selected", it, len(parents))
        if it == config.iterations:
            break
        parent_texts = [population[int(j)] for j in parents]
        variation_prompts = [
            lm.chat_prompt(config.variation_prompt.replace("{document}", s)) for s in parent_texts
        ]
        if config.L == 1:
            population = generate_texts(variation_prompts)
        else:
            variations = generate_texts([p for p in variation_prompts for _ in range(config.L - 1)])
            population = parent_texts + variations
    del private_emb  # private intermediate: never written

    final: list[tuple[str, int]] = []
    seen: set[str] = set()
    for j in parents:
        text = population[int(j)]
        if text not in seen:
            seen.add(text)
            final.append((text, int(noisy[int(j)])))
    synthetic = [s for s, _ in final]

    kept = run.filter(synthetic)
    records = [
        {"id": i, "text": s, "noisy_count": c, "kept": k} for i, ((s, c), k) in enumerate(zip(final, kept))
    ]
    report = run.report(
        accountant,
        plan=cal.plan(),
        composition=(
            "zCDP: sequential composition of the discrete Gaussian vote histograms, one per iteration that reads "
            "the private documents (each document's vote vector is 0/1 with k = num_nearest_neighbor ones: L2 "
            "sensitivity sqrt(k), rho = k/(2 sigma^2) each); the initial population, the selections and the "
            "variations are public or post-processing."
        ),
        parameters={**cal.to_dict(), "population_size": config.population_size, "L": config.L,
                    "num_nearest_neighbor": config.num_nearest_neighbor, "threshold": config.threshold,
                    "selection": config.selection},
    )
    return run.finish(records, report, description=description, filter_prompt=run.filter_prompt,
                      truncation=truncation)
