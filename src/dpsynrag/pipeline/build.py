"""The DP-SynRAG build (METHOD.md §1–§3): private documents in, a synthetic corpus folder out.

Order of operations, and what each one releases:

1. Calibrate from (ε, δ) and refuse to start if the plan does not fit (nothing loaded, nothing run).
2. Keyword extraction per document (private, unreleased), capped to K distinct words.
3. DP keyword histogram (Gaussian on every public-vocabulary entry, or the thresholded sparse
   histogram) → top-R keywords W (released).
4. Soft clustering (each document in ≤ L clusters; membership from its own keywords and W).
5. Pay for the R clusters up front (overlapping parallel composition: min(L, R) × one cluster's plan);
   per cluster, with its own branch accountant capped at the plan: noisy embedding sum, exponential-
   mechanism threshold, then private prediction of T tokens (released text), or with ``synthesis="phrases"``
   the DP phrase release of the members' shared word n-grams (:func:`phrase_synthesis`; issue 41). With
   ``phrase_scope="collection"`` 4–5 do not run: one release over every document, nothing per cluster.
6. Self-filtering, indexing (post-processing of the released texts).

Per person (``config.privacy_unit_field``; :mod:`dpsynrag.pipeline.units`): stage 2 caps each person's
keywords to K from the union of their documents, stage 3 counts persons, stage 4 clusters persons (each in
at most L clusters) with one member per person in a cluster (its most relevant document), and stages 5–6
read those members as without units: every sensitivity is per person, the plan is unchanged.

The output folder holds only released values (keywords with their noisy counts, integers, and texts)
and public parameters. Data-dependent numbers that are not DP — the input fingerprint, the stage wall
times, and how many documents were cut to ``max_document_tokens`` or by the embedder — go only to the
owner-only ``DIR.owner.json`` beside it (:func:`dpsynrag.corpus.format.owner_audit_path`).

The privacy report is the plan fixed before any data is read (:meth:`BuildConfig.plan`): R clusters,
whatever number of keywords the histogram releases.

The folder is written to a temporary folder and renamed into place at the end, so a failed build
leaves no folder that looks complete.

The input is read, redacted, cut to ``max_document_tokens`` and keyed in one pass once the models are loaded
(:mod:`dpsynrag.pipeline.reading`; with ``ray``, on the Ray workers), and every later stage reads that result
(:class:`~dpsynrag.data.spool.DocumentSpool`: in memory, or an owner-only checksummed temporary file beside the
folder when large), the owner record's fingerprints included; its owner-only time is ``read_and_redact_s``.

Stages 2, 3, the outlier removal of 5 and each batch of clusters of private prediction are
checkpointed in the owner-only ``.NAME.work`` beside the folder (:mod:`dpsynrag.pipeline.checkpoint`):
``resume=True`` (``--resume``) continues a killed build without drawing any released value again.
"""

from __future__ import annotations

import logging
import os
import time
import warnings
from collections.abc import Sequence
from contextlib import nullcontext

import numpy as np

from dpsynrag.corpus import SyntheticCorpus
from dpsynrag.data.io import Document
from dpsynrag.data.spool import SpoolTexts
from dpsynrag.data.vocabulary import public_vocabulary, vocabulary_fingerprint, vocabulary_source
from dpsynrag.errors import DataError
from dpsynrag.pipeline.checkpoint import BuildCheckpoint
from dpsynrag.pipeline.clustering import group_count, release_warnings, soft_cluster, split_into_groups, top_keywords
from dpsynrag.pipeline.config import BuildConfig
from dpsynrag.pipeline.context import check_context
from dpsynrag.data.words import excluded_words
from dpsynrag.pipeline.distributed import ray_session
from dpsynrag.pipeline.keywords import unit_keyword_sets
from dpsynrag.pipeline.ray_stages import KeywordSpec, RayDocumentPool, shard_keyword_sets
from dpsynrag.pipeline.reading import read_once
from dpsynrag.pipeline.prompts import (
    KEYWORD_SLOT,
    REPHRASE_PROMPT,
    render_rephrase,
    rephrase_prefix_template,
    rephrase_public_prompt,
    strip_echoed_label,
    trim_partial_ending,
)
from dpsynrag.pipeline.phrase_synthesis import collection_phrase_synthesis, phrase_synthesis
from dpsynrag.pipeline.run import BuildRun, truncation_stages
from dpsynrag.pipeline.units import PrivacyUnits
from dpsynrag.privacy.mechanisms import (exponential_threshold, gaussian_histogram, gaussian_sparse_histogram,
                                         noisy_unit_vector_sum)

log = logging.getLogger("dpsynrag.build")



def resolve_public_prompt(config: BuildConfig) -> str | None:
    """The public prompt of the decoding (plain text, no private document; rendered later with the
    model's chat template), or None when the variant runs none.

    ``config.public_prompt`` when given; else, when the variant needs one (``"public-prior"``,
    ``"invisibleink"``, or ``"paper"`` with ``public_weight`` > 0), the rephrase instruction
    (``config.rephrase_prompt`` or the paper's) with an empty document — public, so it costs nothing.
    """
    if not config.uses_public_prompt:
        return None
    return config.public_prompt or rephrase_public_prompt(config.rephrase_prompt or REPHRASE_PROMPT)


def build_corpus(
    documents: Sequence[Document] | Sequence[str] | str | os.PathLike,
    out_dir: str | os.PathLike,
    config: BuildConfig,
    *,
    lm=None,
    embedder=None,
    text_field: str = "text",
    id_field: str | None = None,
    identifier_fields: Sequence[str] = (),
    overwrite: bool = False,
    progress: bool = False,
    ray=None,
    ledger=None,
    resume: bool = False,
) -> SyntheticCorpus:
    """Build a differentially private synthetic corpus.

    Args:
        config: the build configuration (ε, δ, K, R, L, k, T, ...).
        documents, out_dir, lm, embedder, text_field, id_field, identifier_fields, overwrite, progress: as
            in :class:`~dpsynrag.pipeline.run.BuildRun` (the private collection, the folder to create, the
            loaded models or None, the fields of a file input, replace an existing folder, show progress).
        ray: a :class:`~dpsynrag.pipeline.distributed.RayOptions` to run the reading pass's redaction, cut and
            fingerprint keys, keyword extraction, the outlier-removal embeddings
            (:mod:`dpsynrag.pipeline.ray_stages`) and private prediction
            (:mod:`dpsynrag.pipeline.distributed`) on Ray actors (``--ray``, ``--ray-address``; workers
            load ``config.model``, checked against ``lm``); None: in this process. Per-document results
            are reassembled in document order and each cluster samples from its own named stream, so a
            seeded build writes the same corpus either way.
        ledger: a :class:`~dpsynrag.privacy.ledger.PrivacyLedger` (the CLI's ``--ledger``): the build is
            checked against the dataset's lifetime budget before any model loads, and recorded just
            before the first mechanism draws; None: not recorded.
        resume: continue the build that was killed (``--resume``) from its checkpoints in
            ``.NAME.work`` beside ``out_dir`` (:mod:`dpsynrag.pipeline.checkpoint`), reusing every released
            value (histogram, kept members, finished clusters); without it, a build whose ``out_dir`` has
            such a folder is refused. A new build when there is none.

    Returns:
        The :class:`~dpsynrag.corpus.SyntheticCorpus`. When it keeps no or few texts its
        :attr:`~dpsynrag.corpus.SyntheticCorpus.content_warning` says so (also logged to build.log).

    Raises:
        InfeasibleBudgetError: the target (ε, δ) cannot pay for the parameters (nothing run).
        DataError: unusable input. ConfigError: bad parameters. ModelLoadError: a model fails to load.
        FileExistsError: ``out_dir`` exists and ``overwrite`` is False.
        PrivacyBudgetExceededError: the build would exceed the dataset's lifetime budget in ``ledger``.
        CheckpointError: a checkpoint left and not ``resume``; with ``resume``, a changed input or
            configuration, or a finished build (nothing to resume).
    """
    checkpoint = BuildCheckpoint(out_dir, resume=resume, overwrite=overwrite)
    # the public vocabulary: before any model is loaded, so an unusable vocabulary_size / language stops early
    run = BuildRun("dp-synrag", documents, out_dir, config, lm=lm, embedder=embedder, text_field=text_field,
                   id_field=id_field, identifier_fields=identifier_fields, overwrite=overwrite, progress=progress,
                   stream=True, defer_charge=True, plan=config.plan, prepare=lambda cal: None if config.open_vocabulary
                   else public_vocabulary(config.vocabulary_size, config.language))
    with run, checkpoint, (nullcontext() if ray is None else ray_session(ray)):  # one Ray for every stage
        return generate(run, checkpoint, ledger=ledger, ray=ray)


def generate(run: BuildRun, checkpoint: BuildCheckpoint, *, ledger=None, ray=None) -> SyntheticCorpus:
    """DP-SynRAG inside a :class:`~dpsynrag.pipeline.run.BuildRun` (stages 2–6 of the module docstring),
    checkpointed in ``checkpoint``; ``ledger`` and ``ray`` as in :func:`build_corpus`."""
    config, cal, vocabulary = run.config, run.cal, run.prepared
    progress, timings = run.progress, run.timings
    noise = run.stream("privacy-noise")
    sampling = run.stream("private-prediction")
    checkpoint.open(run.input_documents, config)  # under the writer's lock; a resumed build was recorded already:
    display = run.display  # the owner's console (stderr): stages, counts, times; never build.log
    reading = "reading documents (PII pass)" if config.redact_pii else "reading documents"
    display.plan([*([reading] if display.enabled and not checkpoint.resume_message else []),
                  "keywords", "keyword histogram", *([] if config.phrase_scope == "collection" else ["clustering"]),
                  *(["embeddings and outlier removal"] if config.runs_outlier_removal else []),
                  "phrase release" if config.synthesis == "phrases" else "private prediction",
                  *([run.filter_stage] if run.filter_stage else []), "index"])
    if checkpoint.resume_message:
        display.say(checkpoint.resume_message)
    charge = run.prepare_charge(None if checkpoint.ledger_recorded else ledger)
    run.start()  # logs public values only; nothing logged below may depend on the private data except through a mechanism
    lm, embedder = run.lm, run.embedder
    # before any model pass over a document or any draw: the longest prompt of every stage fits the model
    # (public numbers only; a misfit found during private prediction would stop the build after its draws)
    check_context(lm, config, public_prompt=resolve_public_prompt(config), filter_prompt=run.filter_prompt,
                  vocabulary=vocabulary)
    timings.update(checkpoint.timings)  # stages of an interrupted build: restored, not rerun

    # --ray: the reading pass's redaction and cut, the keywords and the embeddings as Ray tasks over shards of
    # documents, one pool of actors for the three (dpsynrag.pipeline.ray_stages)
    pool = None if ray is None else RayDocumentPool(ray, model=config.model, lm=lm if config.extractor == "llm" else None,
                                                    embedder=embedder if config.runs_outlier_removal else None,
                                                    tokenizer=lm.tokenizer)
    # the one pass over the input (dpsynrag.pipeline.reading): each document read, redacted, cut and keyed once,
    # here or on the workers; every later stage reads `documents` (in memory, or an owner-only checksummed
    # temporary file when large); the owner sees the pass and its cut count before any spend
    documents, tally = read_once(run, pool, name=reading, shown=display.enabled and not checkpoint.resume_message)
    texts = documents.texts
    t = time.time()
    doc_keywords = checkpoint.restore_keywords()
    if doc_keywords is None:
        display.start("keywords", total=len(texts), unit="doc")
        vocab_set = None if vocabulary is None else frozenset(vocabulary)
        # identifiers never become keywords: each document's id-shaped tokens and the placeholder are out of
        # the text the extractor reads, its own identifier words out of its candidates (functions of it alone)
        # the public strings' words (--pii-allow: the company's name...) neither: in most documents, no topic
        placeholder = config.identifier_placeholder if config.redact_identifiers or config.redact_pii else None
        spec = KeywordSpec(config.extractor, config.K, config.batch_size, config.language, placeholder,
                           excluded_words((), placeholder, config.language, public=config.pii_allow), vocab_set,
                           config.memory_budget_gb)
        pairs = ((d.text, d.identifiers) for d in documents)
        doc_keywords = (shard_keyword_sets(spec, pairs, lm=lm, on_progress=display.update) if pool is None
                        else pool.keyword_sets(spec, pairs, on_progress=display.update))  # int ids, not strings
        timings["keywords_s"] = time.time() - t
        checkpoint.save_keywords(doc_keywords, timings)
        display.end(f"{config.extractor} extractor")
    else:
        display.restored("keywords", checkpoint.path.name)
    # logged whether extracted now or restored: the public build.log of a resumed build is that of an
    # uninterrupted one (the resume is recorded only in the owner-only DIR.owner.json)
    log.info("stage 1a: keywords extracted (%s extractor)", config.extractor)
    # per person (--privacy-unit-field): at most K keywords per unit, from its documents' sets alone; the
    # histogram and the clustering count units (dpsynrag.pipeline.units)
    persons = None if config.privacy_unit_field is None else PrivacyUnits.from_documents(
        run.input_documents, config.privacy_unit_field)
    counted = doc_keywords if persons is None else unit_keyword_sets(doc_keywords, persons, max_keywords=config.K)

    accountant = run.accountant(delta_budget=cal.delta_terms)  # the histogram's δ, and L·δ_p with phrases
    keywords = checkpoint.restore_histogram(accountant, noise)  # its events composed again: nothing drawn
    if keywords is None:
        display.start("keyword histogram")
        checkpoint.record_in_ledger(charge)  # the ledger records the build before its first mechanism draws
        if vocabulary is None:
            released = gaussian_sparse_histogram(
                counted,
                max_keywords=config.K,
                sigma=cal.sigma_hist,
                threshold=cal.hist_threshold,
                accountant=accountant,
                random=noise,
            )
            keywords = top_keywords(released, config.R)
        else:
            noisy = gaussian_histogram(
                counted, vocabulary, max_keywords=config.K, sigma=cal.sigma_hist, accountant=accountant,
                random=noise,
            )
            keywords = top_keywords((vocabulary, noisy), config.R)
        checkpoint.save_histogram(keywords, accountant, noise)  # even when empty: a resume must not redraw it
        display.end(f"{len(keywords)} keywords released")
    else:
        display.restored("keyword histogram", checkpoint.path.name)
    if not keywords:
        checkpoint.remove()  # nothing to resume: the same release would fail again; private keywords go now
        raise DataError(
            "the DP histogram released no keyword above its threshold (open vocabulary); "
            "use more documents, a larger epsilon, or the public vocabulary."
        )
    W = [w for w, _ in keywords]
    log.info("stage 1a: histogram released %d keywords", len(W))
    for message in release_warnings(keywords, R=config.R, k=config.k if config.runs_outlier_removal else None):
        log.warning(message)
        warnings.warn(message, stacklevel=2)

    collection = config.synthesis == "phrases" and config.phrase_scope == "collection"
    if collection:  # the release reads every document and the released keywords: no cluster, nothing per cluster
        clusters = kept_members = branches = None
        truncation = truncation_stages(config.max_document_tokens, tally.changed)
    else:
        clusters, kept_members, branches, truncation = cluster_stage(run, checkpoint, texts, doc_keywords, counted, W,
                                                                     persons, accountant, noise, tally, pool)
    if pool is not None:
        pool.close()  # before private prediction starts its own actors
    log.info("stage 1c: outlier removal %s", "done" if config.runs_outlier_removal else
             "not run: one phrase release over the collection, no clusters" if collection else "off (every member kept)")

    t = time.time()
    if collection:
        produced = collection_phrase_synthesis(run, texts, keywords, accountant, noise, persons)
        synthetic = [y for _, y, _ in produced]
        labels = [(None if r is None else W[r], c) for r, _, c in produced]  # released values only
        unit_of = [(r, 0) for r, _, _ in produced]
        decoding, template = {"decoding": "phrase release", "phrase_n": config.phrase_n, "phrase_max": config.phrase_max,
                              "phrase_scope": "collection", "phrase_min_phrases": config.phrase_min_phrases}, None
        timings["phrase_release_s"] = time.time() - t
    elif config.synthesis == "phrases":
        synthetic = phrase_synthesis(run, texts, kept_members, W, branches, noise)
        unit_of = [(r, 0) for r in range(len(kept_members))]  # public: cluster indices only
        labels = [keywords[r] for r, _ in unit_of]
        decoding, template = {"decoding": "phrase release", "phrase_n": config.phrase_n, "phrase_max": config.phrase_max}, None
        timings["phrase_release_s"] = time.time() - t
    else:
        synthetic, unit_of, decoding, template = private_prediction(run, checkpoint, texts, kept_members, W, keywords,
                                                                    branches, sampling, ray=ray)
        labels = [keywords[r] for r, _ in unit_of]
        timings["private_prediction_s"] = time.time() - t
    log.info("stage 2d: %d synthetic texts generated", len(synthetic))
    # private: never written to the corpus
    del kept_members, clusters, doc_keywords, counted, persons

    kept = run.filter(synthetic)
    records = []
    for n, ((w, c), (_, j), y, k) in enumerate(zip(labels, unit_of, synthetic, kept)):
        record = {"id": n, "keyword": w, "noisy_count": c}
        if config.group_size is not None:
            record["group"] = j
        if config.index_copy_size is not None:
            record["copies"] = config.index_copies(c)  # released noisy count only: post-processing
        records.append({**record, "text": f"{w}: {y}" if config.keyword_title and w else y, "kept": k})
    report = run.report(
        accountant,
        plan=run.plan,  # the guarantee: fixed before any data was read (R clusters, not len(W))
        parameters={**cal.to_dict(), "decoding": decoding},
        notes=config.plan_notes,
    )
    corpus = run.finish(
        records, report,
        vocabulary=None
        if vocabulary is None
        else {"source": vocabulary_source(config.language), "size": len(vocabulary),
              "sha256": vocabulary_fingerprint(vocabulary)},
        prompt=template,
        filter_prompt=run.filter_prompt,
        decoding=decoding,
        truncation=truncation,
        owner_record={"resumes": checkpoint.resumes},  # owner-only: what each resume restored (none: [])
        fingerprinted=documents,  # each document's key from the one pass: the owner record's fingerprints
    )
    documents.close()  # the private texts are read no more
    checkpoint.remove()  # the corpus is in place: its checkpoints and private intermediates go
    return corpus


def cluster_stage(run: BuildRun, checkpoint: BuildCheckpoint, texts: SpoolTexts, doc_keywords, counted, W, persons,
                  accountant, noise, tally, pool):
    """Stages 1b–1c (METHOD.md §1b–§1c; not with the collection's phrase release): soft clustering, the clusters'
    composition paid on ``accountant``, each cluster's outlier removal when on (checkpointed); their results."""
    config, cal, display, timings, embedder = run.config, run.cal, run.display, run.timings, run.embedder
    display.start("clustering")
    # per person: one member per unit in a cluster (its most relevant document), a unit in at most L clusters
    clusters = soft_cluster(
        doc_keywords, W, L=config.L, texts=texts if config.match_text else None, rule=config.clustering,
        language=config.language, units=persons, unit_keywords=None if persons is None else counted,
    )
    display.end(f"{len(clusters)} clusters")
    parallel = accountant.open_parallel(
        cal.branch_plan(groups=config.groups), num_branches=len(W), max_branches_per_unit=config.L_effective
    )
    branches = [parallel.branch(r) for r in range(len(W))]

    t = time.time()
    restored = checkpoint.restore_clusters(branches)  # kept members; their branches' spend composed again
    if restored is not None:
        kept_members, truncation = restored
        if config.runs_outlier_removal:
            display.restored("embeddings and outlier removal", checkpoint.path.name)
    elif config.runs_outlier_removal:
        from dpsynrag.models.embedder import embed_to_file

        in_any = np.unique(np.fromiter((i for c in clusters for i in c), dtype=np.int64))
        # rows on disk (owner-only temporary file beside the corpus, deleted when closed), not in memory
        display.start("embeddings and outlier removal", total=len(in_any), unit="doc")
        member_texts = (text for _, text in texts.rows(in_any))
        emb, embedded_cut = (embed_to_file(display.counted(embedder), member_texts, folder=run.writer.out.parent,
                                           total=len(in_any)) if pool is None
                             else pool.embed_to_file(member_texts, folder=run.writer.out.parent,
                                                     on_progress=display.update))
        truncation = truncation_stages(config.max_document_tokens, tally.changed, embedder, embedded_cut=embedded_cut)
        kept_members: list[list[int]] = []
        for r, members in enumerate(clusters):
            e = emb.take(np.searchsorted(in_any, members))
            mu = noisy_unit_vector_sum(e, sigma=cal.sigma_embed, accountant=branches[r], random=noise)
            norm = np.linalg.norm(mu)
            scores = e.astype(np.float64) @ (mu / norm) if norm > 0 else np.zeros(len(members))
            theta = exponential_threshold(
                scores, target=config.k, epsilon=cal.epsilon_theta, accountant=branches[r], random=noise,
                excess_weight=config.threshold_excess_weight,
            )
            kept_members.append([i for i, s in zip(members, scores) if s > theta])
        emb.close()
        display.end()
    else:
        kept_members = clusters
        truncation = truncation_stages(config.max_document_tokens, tally.changed)
    if restored is None:
        timings["outlier_removal_s"] = time.time() - t
        checkpoint.save_clusters(kept_members, truncation, branches, timings)
    return clusters, kept_members, branches, truncation


def private_prediction(run: BuildRun, checkpoint: BuildCheckpoint, texts: SpoolTexts, kept_members, W, keywords,
                       branches, sampling, *, ray=None):
    """Stage 2d, private prediction (METHOD.md §2d): one text of T tokens per cluster (or per member group),
    charged to the cluster's branch accountant in ``branches``. Returns (texts, (cluster, group) of each,
    the decoding's public description, the rephrase template)."""
    config, cal, lm, progress, display = run.config, run.cal, run.lm, run.progress, run.display
    from dpsynrag.models import PrivatePredictionDecoder
    from dpsynrag.models.loading import decoding_row_bytes, memory_budget, small_budget_warning
    from dpsynrag.models.engine import GROUP_ROWS, default_step_rows

    # only the kept members' texts, read again from the input
    opening = config.response_prefix or ""  # public: every text starts with it (not sampled, costs nothing)
    template = config.rephrase_prompt or REPHRASE_PROMPT  # public; "{keyword}" = the cluster's released keyword
    text_of = dict(texts.rows(sorted({i for members in kept_members for i in members})))

    def prompts_of(r: int, members: Sequence[int]) -> dict[int, str]:
        """Member -> its prompt in cluster ``r``: the public template, its own text, the released keyword."""
        return {i: lm.chat_prompt(render_rephrase(template, text_of[i], keyword=W[r])) + opening for i in members}

    public_prompt = resolve_public_prompt(config)
    budget = memory_budget(config.memory_budget_gb, lm.device)  # public: a size
    row = decoding_row_bytes(lm, config.max_document_tokens, cal.T)  # at the build's public shapes
    if small_budget_warning(budget, row):
        display.say(f"warning: {small_budget_warning(budget, row)}")
    decoder_args = dict(
        clip=cal.clip,
        temperature=cal.temperature,
        max_new_tokens=cal.T,
        random=sampling,
        public_prompt=lm.chat_prompt(public_prompt) + opening if public_prompt else None,
        public_weight=config.public_weight,
        decoding=config.decoding,
        public_scale=config.invisibleink_lambda,
        top_k=config.public_top_k,
        top_k_margin=config.public_top_k_margin,
        no_repeat_ngram=config.no_repeat_ngram,
        svt_max_paid=cal.svt_max_paid,
        svt_run=cal.svt_event() if cal.sparse_vector else None,
        response_template=config.response_template,
        memory_budget_gb=budget,
        prompt_prefix=lm.public_prefix(rephrase_prefix_template(template)),  # public: template up to a slot
        rows_per_group=min(config.L, GROUP_ROWS),  # public: a document has at most L member rows
        step_rows=default_step_rows(lm.device, expected_rows=config.R * config.k),  # public sizes
    )
    decoder = PrivatePredictionDecoder(lm, **decoder_args)
    decoding = {**decoder.selector.describe(), "public_prompt": public_prompt if decoder.public_prompt else None}
    if opening:
        decoding["response_prefix"] = opening
    # the texts to write: one per cluster, or one per member group (cluster index, group index, members)
    if config.group_size is None:
        units = [(r, 0, members) for r, members in enumerate(kept_members)]
        unit_accountants = branches
        streams = [sampling.child(f"cluster-{r}") for r in range(len(kept_members))]  # batching-independent
    else:
        units, unit_accountants, streams = [], [], []
        for r, members in enumerate(kept_members):
            m = group_count(keywords[r][1], group_size=config.group_size, max_groups=config.max_groups,
                            cap=config.k if config.runs_outlier_removal else None)  # released count: public
            groups = branches[r].open_parallel(cal.token_plan(), num_branches=m, max_branches_per_unit=1,
                                               name=f"cluster {r} member groups")
            for j, group in enumerate(split_into_groups(members, prompts_of(r, members), cluster=r, num_groups=m)):
                units.append((r, j, group))
                unit_accountants.append(groups.branch(j))
                streams.append(sampling.child(f"cluster-{r}-group-{j}"))
    cluster_prompts = [list(prompts_of(r, members).values()) for r, _, members in units]
    del text_of
    # a public prompt with "{keyword}": each cluster's own, with its released keyword (public)
    public_prompts = (
        [lm.chat_prompt(public_prompt.replace(KEYWORD_SLOT, W[r])) + opening for r, _, _ in units]
        if decoder.public_prompt is not None and KEYWORD_SLOT in public_prompt else None
    )

    def predict(rs: list[int]) -> list[list[int]]:
        """Token ids of clusters ``rs`` (own streams, batch-invariant engine: any split, the same ids)."""
        prompts_r, branches_r, streams_r = ([x[r] for r in rs] for x in (cluster_prompts, unit_accountants, streams))
        return decoder.generate_ids(prompts_r, branches_r, streams=streams_r,  # the stage's one bar, per token
                                    public_prompts=None if public_prompts is None else [public_prompts[r] for r in rs],
                                    on_step=display.update, on_prefill=prefill_note)

    def ray_tasks(left: list[int]):
        """Clusters ``left`` as Ray tasks (``--ray``), each (its cluster indices, their token ids) as it finishes."""
        from dpsynrag.pipeline.distributed import model_identity, ray_prediction_tasks

        if not left:  # every cluster restored from the checkpoint: no actor started
            return
        pick = (lambda x: [x[r] for r in left])
        for chunk, ids in ray_prediction_tasks(
                ray, config.model, model_identity(lm), decoder_args, pick(cluster_prompts), pick(unit_accountants),
                pick(streams), progress=progress, public_prompts=None if public_prompts is None else pick(public_prompts)):
            yield [left[i] for i in chunk], ids

    def prefill_note(done: int, total: int) -> None:  # the bar shows the prefill before the first token
        display.note(f"prompts read {done}/{total}" if done < total else "decoding")

    # checkpointed after each batch of clusters; the finished clusters of an interrupted build are read back.
    # One bar in tokens (every text's T drawn tokens, the template's free ones included), advanced at each step
    display.start("private prediction", total=len(cluster_prompts) * decoder.steps, unit="token")
    if ray is None:
        ids = checkpoint.predict(predict, len(cluster_prompts), batches=config.prediction_checkpoints, display=display,
                                 steps=decoder.steps)
    else:  # checkpointed after each Ray task that comes back
        ids = checkpoint.predict_tasks(ray_tasks, len(cluster_prompts), display=display, steps=decoder.steps)
    display.end()
    # the echoed "Document:" label (and, when asked, a partial last clause) is cut from each released text
    # (post-processing: free)
    synthetic = [opening + strip_echoed_label(lm.tokenizer.decode(t, skip_special_tokens=True)) for t in ids]
    if config.trim_partial_ending:
        synthetic = [trim_partial_ending(y) for y in synthetic]
    unit_of = [(r, j) for r, j, _ in units]  # public: cluster and group indices only
    return synthetic, unit_of, decoding, template
