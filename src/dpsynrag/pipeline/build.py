"""The DP-SynRAG build (METHOD.md §1–§3): private documents in, a synthetic corpus folder out.

Order of operations, and what each one releases:

1. Calibrate from (ε, δ) and refuse to start if the plan does not fit (nothing loaded, nothing run).
2. Keyword extraction per document (private, unreleased), capped to K distinct words.
3. DP keyword histogram (Gaussian on every public-vocabulary entry, or the thresholded sparse
   histogram) → top-R keywords W (released).
4. Soft clustering (each document in ≤ L clusters; membership from its own keywords and W).
5. Pay for the R clusters up front (overlapping parallel composition: min(L, R) × one cluster's plan);
   per cluster, with its own branch accountant capped at the plan: noisy embedding sum, exponential-
   mechanism threshold, then private prediction of T tokens (released text).
6. Self-filtering, indexing (post-processing of the released texts).

The output folder holds only released values (keywords with their noisy counts, integers, and texts)
and public parameters. Data-dependent numbers that are not DP — the input fingerprint, the stage wall
times, and how many documents were cut to ``max_document_tokens`` or by the embedder — go only to the
owner-only ``DIR.owner.json`` beside it (:func:`dpsynrag.corpus.owner_audit_path`).

The privacy report is the plan fixed before any data is read (:meth:`BuildConfig.plan`): R clusters,
whatever number of keywords the histogram releases.

The folder is written to a temporary folder and renamed into place at the end, so a failed build
leaves no folder that looks complete.
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Sequence

import numpy as np

from dpsynrag import __version__
from dpsynrag.corpus import CorpusWriter, SyntheticCorpus, content_warning
from dpsynrag.data.io import Document, as_documents
from dpsynrag.data.vocabulary import public_vocabulary, vocabulary_fingerprint, vocabulary_source
from dpsynrag.errors import ConfigError, DataError
from dpsynrag.pipeline.clustering import soft_cluster, top_keywords
from dpsynrag.pipeline.config import BuildConfig
from dpsynrag.pipeline.keywords import make_extractor
from dpsynrag.privacy.accountant import ZCDPAccountant
from dpsynrag.privacy.mechanisms import (
    cap_keywords,
    exponential_threshold,
    gaussian_histogram,
    gaussian_sparse_histogram,
    noisy_unit_vector_sum,
)
from dpsynrag.privacy.report import PrivacyReport
from dpsynrag.rng import make_random

log = logging.getLogger("dpsynrag.build")

REPHRASE_PROMPT = (
    "Rephrase the following document without altering the important information contained within it.\n"
    "Document: {document}"
)


def self_filter(lm, texts: Sequence[str], filter_prompt: str, *, progress: bool = False) -> list[bool]:
    """Keep a text when the model's next-token score for YES beats NO (METHOD.md §2e; post-processing).

    Args:
        filter_prompt: a template with ``{document}``.

    Returns:
        One bool per text; empty texts are never kept.
    """
    if not texts:
        return []
    prompts = [lm.chat_prompt(filter_prompt.replace("{document}", t)) for t in texts]
    lp = np.asarray(lm.choice_logprobs(prompts, ["YES", "Yes", "NO", "No"]), dtype=np.float64)
    yes = np.logaddexp(lp[:, 0], lp[:, 1])
    no = np.logaddexp(lp[:, 2], lp[:, 3])
    return [bool(y > n) and bool(t.strip()) for y, n, t in zip(yes, no, texts)]


def resolve_public_prompt(config: BuildConfig) -> str | None:
    """The public prompt of the decoding (plain text, no private document; rendered later with the
    model's chat template), or None when the variant runs none.

    ``config.public_prompt`` when given; else, when the variant needs one (``"public-prior"``,
    ``"invisibleink"``, or ``"paper"`` with ``public_weight`` > 0), the rephrase instruction with an
    empty document — public, so it costs nothing.
    """
    if not config.uses_public_prompt:
        return None
    return config.public_prompt or REPHRASE_PROMPT.format(document="")


def truncation_stages(
    max_document_tokens: int, documents_cut: int, embedder=None, embedded_texts: Sequence[str] = ()
) -> list[dict]:
    """Where the private documents were cut, and how many were (never which), for
    :meth:`~dpsynrag.corpus.CorpusWriter.finish_build`: the limits go to the manifest, the counts
    (data-dependent, not DP) only to the owner-only ``DIR.owner.json``.

    Args:
        max_document_tokens: the language-model cut (``lm.truncate``); ``documents_cut`` documents were
            longer.
        embedder: when private texts were embedded: its cut (``max_tokens``) and count
            (``count_truncated(embedded_texts)``); ``None`` in both for an embedder that reports neither.
        embedded_texts: the private texts given to the embedder.
    """
    stages = [{"stage": "language model (max_document_tokens)", "max_tokens": max_document_tokens,
               "documents_cut": int(documents_cut)}]
    if embedder is not None:
        count = getattr(embedder, "count_truncated", None)
        stages.append({"stage": "embedder (max_seq_length)", "max_tokens": getattr(embedder, "max_tokens", None),
                       "documents_cut": None if count is None else int(count(list(embedded_texts)))})
    return stages


def _resolve_filter_prompt(config: BuildConfig) -> str | None:
    """The self-filter prompt of a build (None when self-filtering is off).

    The task, when one is named, is resolved first whatever the self-filter setting: the corpus's query
    side needs it, so an unknown task name must stop the build before any budget is spent.

    Raises:
        ConfigError: an unknown task, or self-filtering without a task prompt or ``filter_prompt``.
    """
    task = None
    if config.task:
        from dpsynrag.tasks import get_task

        task = get_task(config.task)
    if not config.self_filter:
        return None
    if config.filter_prompt:
        return config.filter_prompt
    if task is not None and task.filter_prompt:
        return task.filter_prompt
    raise ConfigError(
        "self-filtering needs a public task description: pass a task (--task medical; task='medical' in the API) "
        "or a filter prompt containing {document} (--filter-prompt; filter_prompt=), or turn self-filtering off "
        "(--no-self-filter; self_filter=False)."
    )


def build_corpus(
    documents: Sequence[Document] | Sequence[str] | str | os.PathLike,
    out_dir: str | os.PathLike,
    config: BuildConfig,
    *,
    lm=None,
    embedder=None,
    text_field: str = "text",
    id_field: str | None = None,
    overwrite: bool = False,
    progress: bool = False,
) -> SyntheticCorpus:
    """Build a differentially private synthetic corpus.

    Args:
        documents: the private collection (Documents, or a JSONL/CSV/Parquet path).
        out_dir: the corpus folder to create (must not exist unless ``overwrite``).
        config: the build configuration (ε, δ, K, R, L, k, T, ...).
        lm, embedder: loaded models (else loaded from ``config.model`` / ``config.embedder``).
        text_field, id_field: fields of a file input.
        overwrite: replace an existing folder (only once the new build has succeeded).
        progress: show progress bars.

    Returns:
        The :class:`~dpsynrag.corpus.SyntheticCorpus`. When it keeps no or few texts its
        :attr:`~dpsynrag.corpus.SyntheticCorpus.content_warning` says so (also logged to build.log).

    Raises:
        InfeasibleBudgetError: the target (ε, δ) cannot pay for the parameters (nothing run).
        DataError: unusable input. ConfigError: bad parameters. ModelLoadError: a model fails to load.
        FileExistsError: ``out_dir`` exists and ``overwrite`` is False.
    """
    t_start = time.time()
    writer = CorpusWriter(out_dir, overwrite=overwrite)
    cal = config.calibrate()  # raises before anything is loaded if the budget cannot pay
    filter_prompt = _resolve_filter_prompt(config)
    # public; before any model is loaded, so an unusable vocabulary_size / language stops the build early
    vocabulary = None if config.open_vocabulary else public_vocabulary(config.vocabulary_size, config.language)
    documents = as_documents(documents, text_field=text_field, id_field=id_field)

    random = make_random(config.seed)
    noise = random.child("privacy-noise")
    sampling = random.child("private-prediction")

    with writer:
        # Nothing logged below may depend on the private data except through a mechanism.
        log.info("dpsynrag %s build: %s", __version__, config.model_dump_json())
        log.info("calibrated: %s", json.dumps(cal.to_dict()))
        if lm is None:
            from dpsynrag.models import LanguageModel

            lm = LanguageModel.load(config.model)
        if embedder is None:
            from dpsynrag.models import Embedder

            embedder = Embedder.load(config.embedder)
        timings: dict[str, float] = {}

        t = time.time()
        texts = [lm.truncate(d.text, config.max_document_tokens) for d in documents]
        cut = sum(t != d.text for t, d in zip(texts, documents))  # owner-only count (never which, never logged)
        extractor = make_extractor(
            config.extractor, lm=lm, K=config.K, batch_size=config.batch_size, language=config.language
        )
        raw = extractor.extract(texts, progress=progress)
        vocab_set = None if vocabulary is None else frozenset(vocabulary)
        doc_keywords = [cap_keywords(r, max_keywords=config.K, vocabulary=vocab_set) for r in raw]
        timings["keywords_s"] = time.time() - t
        log.info("stage 1a: keywords extracted (%s extractor)", extractor.name)

        accountant = ZCDPAccountant(rho_budget=cal.rho_total, delta_budget=cal.delta_hist, name="build")
        if vocabulary is None:
            released = gaussian_sparse_histogram(
                doc_keywords,
                max_keywords=config.K,
                sigma=cal.sigma_hist,
                threshold=cal.hist_threshold,
                accountant=accountant,
                random=noise,
            )
            keywords = top_keywords(released, config.R)
        else:
            noisy = gaussian_histogram(
                doc_keywords, vocabulary, max_keywords=config.K, sigma=cal.sigma_hist, accountant=accountant, random=noise
            )
            keywords = top_keywords((vocabulary, noisy), config.R)
        if not keywords:
            raise DataError(
                "the DP histogram released no keyword above its threshold (open vocabulary); "
                "use more documents, a larger epsilon, or the public vocabulary."
            )
        W = [w for w, _ in keywords]
        log.info("stage 1a: histogram released %d keywords", len(W))

        clusters = soft_cluster(
            doc_keywords, W, L=config.L, texts=texts if config.match_text else None, rule=config.clustering,
            language=config.language,
        )
        parallel = accountant.open_parallel(
            cal.branch_plan(), num_branches=len(W), max_branches_per_unit=config.L_effective
        )
        branches = [parallel.branch(r) for r in range(len(W))]

        t = time.time()
        if config.outlier_removal:
            in_any = sorted({i for c in clusters for i in c})
            position = {i: n for n, i in enumerate(in_any)}
            embedded = [texts[i] for i in in_any]
            emb = embedder.encode(embedded, progress=progress) if in_any else None
            truncation = truncation_stages(config.max_document_tokens, cut, embedder, embedded)
            kept_members: list[list[int]] = []
            for r, members in enumerate(clusters):
                e = emb[[position[i] for i in members]] if members else np.zeros((0, embedder.dim), np.float32)
                mu = noisy_unit_vector_sum(e, sigma=cal.sigma_embed, accountant=branches[r], random=noise)
                norm = np.linalg.norm(mu)
                scores = e.astype(np.float64) @ (mu / norm) if norm > 0 else np.zeros(len(members))
                theta = exponential_threshold(
                    scores, target=config.k, epsilon=cal.epsilon_theta, accountant=branches[r], random=noise
                )
                kept_members.append([i for i, s in zip(members, scores) if s > theta])
        else:
            kept_members = clusters
            truncation = truncation_stages(config.max_document_tokens, cut)
        timings["outlier_removal_s"] = time.time() - t
        log.info("stage 1c: outlier removal done")

        t = time.time()
        from dpsynrag.models import PrivatePredictionDecoder

        prompt_of = {}
        for members in kept_members:
            for i in members:
                if i not in prompt_of:
                    prompt_of[i] = lm.chat_prompt(REPHRASE_PROMPT.format(document=texts[i]))
        public_prompt = resolve_public_prompt(config)
        decoder = PrivatePredictionDecoder(
            lm,
            clip=cal.clip,
            temperature=cal.temperature,
            max_new_tokens=cal.T,
            random=sampling,
            public_prompt=lm.chat_prompt(public_prompt) if public_prompt else None,
            public_weight=config.public_weight,
            decoding=config.decoding,
            public_scale=config.invisibleink_lambda,
            top_k=config.invisibleink_top_k,
            top_k_margin=config.invisibleink_margin,
            memory_budget_gb=config.memory_budget_gb,
            prompt_prefix=lm.public_prefix(REPHRASE_PROMPT),  # the public part only: template + instruction
        )
        decoding = {**decoder.selector.describe(), "public_prompt": public_prompt if decoder.public_prompt else None}
        synthetic = decoder.generate(
            [[prompt_of[i] for i in members] for members in kept_members], branches, progress=progress
        )
        timings["private_prediction_s"] = time.time() - t
        log.info("stage 2d: %d synthetic texts generated", len(synthetic))
        del kept_members, clusters, doc_keywords, raw  # private intermediates: never written

        t = time.time()
        kept = self_filter(lm, synthetic, filter_prompt, progress=progress) if filter_prompt else [bool(s.strip()) for s in synthetic]
        timings["self_filter_s"] = time.time() - t
        log.info("stage 2e: self-filter kept %d of %d texts", sum(kept), len(kept))
        empty = content_warning(sum(kept), len(kept))  # post-processing of the released texts
        if empty:
            log.warning(empty)

        records = [
            {"id": r, "keyword": w, "noisy_count": c, "text": y, "kept": k}
            for r, ((w, c), y, k) in enumerate(zip(keywords, synthetic, kept))
        ]
        report = PrivacyReport.from_accountant(
            accountant,
            delta=config.delta,
            plan=config.plan(cal),  # the guarantee: fixed before any data was read (R clusters, not len(W))
            parameters={**cal.to_dict(), "decoding": decoding},
            secure_randomness=random.is_secure,
            notes=config.plan_notes
            + ([] if random.is_secure else ["seeded randomness: reproducible output, NOT FOR RELEASE"]),
        )
        return writer.finish_build(
            records, method="dp-synrag", config=config, report=report, lm=lm, embedder=embedder,
            documents=documents, secure=random.is_secure, timings=timings, t_start=t_start,
            vocabulary=None
            if vocabulary is None
            else {"source": vocabulary_source(config.language), "size": len(vocabulary),
                  "sha256": vocabulary_fingerprint(vocabulary)},
            filter_prompt=filter_prompt,
            decoding=decoding,
            truncation=truncation,
        )
