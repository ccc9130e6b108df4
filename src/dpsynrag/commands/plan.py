"""Presets of ``dpsynrag build`` / ``budget`` and the plan of the work before the spend (issue 28).

Presets. ``--preset NAME`` takes a method's parameters from the evaluation preset of that name
(:data:`~dpsynrag.eval.presets.PRESETS`: ``cpu``, ``demo``, ``paper``, ...) through the method's own
:meth:`~dpsynrag.methods.Method.eval_params` mapping (``synrag`` for DP-SynRAG, ``dp_synth``, ``aug_pe``,
``dp_rag``, ``params[name]`` for other methods). Only the method's parameters are applied: the preset's
evaluation sizes (documents, questions, attacks), its seed, ε, δ and models are not, and redaction follows
``--identifier-field`` (a preset's ``redact_identifiers`` is for its task's identifier column). A flag the
user typed beats the preset's value. Without ``--preset`` the command line uses :func:`machine_preset`:
``paper`` on a machine with a CUDA GPU, ``cpu`` without one (the Python API's config defaults are the
paper's and do not change).

Work. :func:`estimate_work` counts the model work of a DP-SynRAG build from public values only: its
configuration and a *declared* collection size N (``--expected-documents``; the real count is private and
is never read for this), or, when the owner asks (``--measure-input``), from INPUT's own counts
(:mod:`dpsynrag.commands.input_profile`: owner-only, never written). :func:`time_model` times a few forward passes of the loaded model at the build's
shapes on public filler text, and :func:`estimate_seconds` multiplies the two.
"""

from __future__ import annotations

import dataclasses
import math
import time
from dataclasses import dataclass
from typing import Any

from dpsynrag.errors import ConfigError
from dpsynrag.pipeline.forwards import embedding_forwards, keyword_forwards, prediction_forwards

SLOW_BUILD_S = 30 * 60
"""A build estimated to take longer than this (seconds) is announced before it starts."""

KEYWORD_TOKENS_PER_K = 6
"""Greedy tokens of the LLM keyword extractor per keyword (its default ``max_new_tokens`` = 6·K)."""

_NOT_FOR_BUILD = ("seed", "task", "model", "embedder", "delta", "redact_identifiers", "identifier_placeholder")


def machine_preset() -> tuple[str, str]:
    """The preset used when ``--preset`` is not given, and why: ``("paper", ...)`` where torch sees a
    CUDA GPU, else ``("cpu", ...)`` (the paper's sizes take hours on a few CPU cores)."""
    import torch

    if torch.cuda.is_available():
        return "paper", "the default on a machine with a CUDA GPU"
    return "cpu", "the default on a machine without a CUDA GPU"


def resolve_preset(name: str | None):
    """``(preset, why)``: the :class:`~dpsynrag.eval.presets.EvalPreset` called ``name`` (None:
    :func:`machine_preset`) and a few words on how it was chosen.

    Raises:
        ConfigError: unknown name (the message names --preset and lists the presets).
    """
    from dpsynrag.eval.presets import PRESETS

    why = "--preset"
    if name is None:
        name, why = machine_preset()
    if name not in PRESETS:
        raise ConfigError(f"--preset: unknown preset {name!r}; available: {', '.join(PRESETS)}.")
    return PRESETS[name], why


def preset_fields(method, preset, *, expected_documents: int | None = None) -> dict[str, Any]:
    """The config fields of ``method`` under ``preset`` for a plain build (or budget).

    The method's :meth:`~dpsynrag.methods.Method.eval_params` with the preset's document count replaced by
    ``expected_documents`` (public, declared; None: unknown, so e.g. DP-Synth's ``batch_size`` is not turned
    into a number of batches), minus the fields a build takes from its own flags (``--epsilon``, seed,
    task, models, δ, redaction) and a task's response template (:func:`~dpsynrag.eval.presets.for_task`:
    the user's own records have their own format, ``--response-template``).

    Raises:
        ConfigError: the preset holds a field the method's config does not have.
    """
    if method.config_type is None:
        return {}
    from dpsynrag.eval.presets import for_task

    params = for_task(method.eval_params(dataclasses.replace(preset, documents=expected_documents), None))
    fields = {k: v for k, v in params.items() if k not in _NOT_FOR_BUILD and k != method.epsilon_field}
    unknown = sorted(set(fields) - set(method.config_type.model_fields))
    if unknown:
        raise ConfigError(f"--preset {preset.name}: {method.config_type.__name__} has no field(s) {', '.join(unknown)}.")
    return fields


def describe_fields(fields: dict[str, Any]) -> str:
    """``K=1, R=48, ...`` (public parameters)."""
    return ", ".join(f"{k}={v}" for k, v in fields.items()) or "no parameter of this method"


# ------------------------------------------------------------------------------------------- work


@dataclass(frozen=True)
class Work:
    """The model work of a DP-SynRAG build of a declared N documents (public values only): keyword
    extraction (METHOD.md §1a), the embeddings of the outlier removal (§1c), private prediction of T tokens
    per cluster (§2d) and the filters (§2e). The forwards are counted as the build runs them
    (:func:`keyword_forwards`, :func:`prediction_forwards`, :func:`embedding_forwards`; tests/test_plan_counts.py
    checks them against a build's counted forwards).

    Counts are upper bounds where they depend on the data: every document distinct (the build computes a
    repeated prompt once), every answer and text running its full length, every text kept; the outlier
    removal targets ``k`` members per cluster, so the member rows of private prediction are about
    min(C·k, N·L) (at most N·L, each document joins at most L clusters; L is
    :attr:`~dpsynrag.pipeline.config.BuildConfig.L_effective`), spread evenly over the clusters.

    Attributes:
        expected_documents: N, declared by the user (``--expected-documents``).
        clusters: C, the clusters the plan allows: R over the public vocabulary (its histogram releases the
            top R); with the open vocabulary at most min(R, ⌊N·K / τ⌋), τ the histogram's release threshold
            (N documents cast at most N·K votes, and a keyword is released when its noisy count exceeds τ;
            keywords below τ are seldom released, so this is an estimate).
        texts: synthetic texts written (C, or C·max_groups with member groups).
        pii_documents: documents through the automatic PII pass (``redact_pii``; N, else 0).
        keyword_documents: documents through the rarity extractor (N with it, else 0; no model work).
        keyword_prefills, keyword_decode_forwards: LLM keyword extraction (:func:`keyword_forwards`; 0 with
            the rarity extractor).
        embeddings: texts embedded: one per document for the outlier removal (N; 0 without it) and one per
            text for the corpus index.
        embed_forwards: forwards of the outlier removal's embeddings (:func:`embedding_forwards`).
        member_rows: about min(C·k, N·L) (N·L without outlier removal).
        member_rows_max: N·L.
        public_rows: rows of the public prompt (one per text with a public-prompt decoding, else 0).
        member_token_evaluations: member_rows · T, next-token logits of members that are clipped and summed.
        prediction_prefills, prediction_decode_forwards: private prediction (:func:`prediction_forwards`).
        filter_forwards: one forward per text for the self-filter and one for the fluency filter, when on.
        step_rows: rows of every private-prediction decode forward (public constant of the engine).
        keyword_step_rows: rows of every keyword-extraction decode forward.
        embed_rows: texts per embedder forward of the outlier removal (:func:`~dpsynrag.models.embedder.embed_rows`).
        distinct_documents: D, INPUT's distinct texts after redaction and the cut when the counts come from INPUT
            (:class:`~dpsynrag.commands.input_profile.InputProfile`, owner-only); None for a declared N.
        embed_width_ratio: the outlier removal's texts' mean bucket width ÷ that of a text at the full cut
            (:attr:`~dpsynrag.commands.input_profile.InputProfile.embed_width_ratio`; 1.0 for a declared N).
    """

    expected_documents: int
    clusters: int
    texts: int
    pii_documents: int
    keyword_prefills: int
    keyword_decode_forwards: int
    embeddings: int
    member_rows: int
    member_rows_max: int
    public_rows: int
    member_token_evaluations: int
    prediction_prefills: int
    prediction_decode_forwards: int
    filter_forwards: int
    step_rows: int
    keyword_step_rows: int
    embed_rows: int = 1
    embed_forwards: int = 0
    keyword_documents: int = 0
    distinct_documents: int | None = None
    embed_width_ratio: float = 1.0

    @property
    def prefills(self) -> int:
        """Prompt forwards of the language model (one prompt each)."""
        return self.keyword_prefills + self.prediction_prefills + self.filter_forwards

    @property
    def decode_forwards(self) -> int:
        """Decode forwards of the language model."""
        return self.keyword_decode_forwards + self.prediction_decode_forwards

    def to_dict(self) -> dict[str, int]:
        return {**dataclasses.asdict(self), "prefills": self.prefills, "decode_forwards": self.decode_forwards}


def estimate_work(config, expected_documents: int, *, device=None, self_filter: bool | None = None,
                  profile=None) -> Work:
    """The work of a DP-SynRAG build of ``config`` on a declared ``expected_documents`` documents (with
    ``synthesis="phrases"`` no prediction prefill, decode forward or public row: the phrase release runs no model).

    With ``profile`` the counts are INPUT's (owner-only): N its documents; LLM keyword prompts the distinct texts
    of each chunk; member rows at most D·L and a batch's member prompt forwards at most D (an identical prompt is
    computed once); the embeddings at the texts' own widths (:attr:`Work.embed_width_ratio`).

    Args:
        config: a :class:`~dpsynrag.pipeline.config.BuildConfig`.
        expected_documents: N >= 1, a public, declared size (never the private count); ignored with ``profile``.
        device: the model's device (sets the engine's rows per decode forward; None: CPU).
        self_filter: whether a self-filter runs (None: ``config.self_filter``).
        profile: an :class:`~dpsynrag.commands.input_profile.InputProfile` of INPUT (``--measure-input``), or None.

    Raises:
        ConfigError: ``expected_documents`` is not an integer >= 1.
    """
    import torch

    from dpsynrag.checks import check_int
    from dpsynrag.models.embedder import embed_rows
    from dpsynrag.models.engine import default_step_rows
    from dpsynrag.pipeline.build import resolve_public_prompt
    from dpsynrag.pipeline.prompts import KEYWORD_SLOT

    n = check_int("--expected-documents", expected_documents if profile is None else max(1, profile.documents))
    distinct = None if profile is None else max(1, profile.distinct)
    device = torch.device("cpu") if device is None else torch.device(device)
    clusters = config.R
    if config.open_vocabulary:  # at most N·K votes, a keyword released above the threshold
        clusters = max(1, min(config.R, math.floor(n * config.K / config.calibrate().hist_threshold)))
    texts = clusters * (config.max_groups if config.group_size is not None else 1)
    kw_rows = default_step_rows(device)
    if config.batch_size is not None:  # generate_greedy: forwards of min(batch_size, the device's rows)
        kw_rows = min(config.batch_size, kw_rows)
    llm = config.extractor == "llm"
    kw_prefills = kw_decode = 0
    if llm:  # with INPUT's profile: each chunk's distinct texts (computed once a chunk), one public prefix in all
        chunks = [(n, None)] if profile is None else [(d, max(1, d)) for d in profile.chunk_distinct]
        for documents, chunk in chunks:
            prefills, decode = keyword_forwards(documents, max_new_tokens=KEYWORD_TOKENS_PER_K * config.K, chunk=chunk,
                                                step_rows=default_step_rows(device), batch_size=config.batch_size)
            kw_prefills, kw_decode = kw_prefills + prefills - (kw_prefills > 0), kw_decode + decode
    most = min(n, distinct or n) * config.L_effective
    members = min(clusters * config.k, most) if config.runs_outlier_removal else most
    public = texts if config.uses_public_prompt else 0
    step_rows = default_step_rows(device, expected_rows=config.R * config.k)
    prefills = decode = 0
    prediction_members = 0
    if getattr(config, "synthesis", "prediction") != "phrases":  # a phrase release runs no model on the members
        prediction_members = members
        per_text = [members // texts + (t < members % texts) for t in range(texts)]  # spread evenly
        prefills, decode = prediction_forwards(
            per_text, public_row=bool(public), batches=config.prediction_checkpoints, steps=config.T_effective,
            step_rows=step_rows, distinct_prompts=None if distinct is None else distinct * (
                config.L_effective if KEYWORD_SLOT in (config.rephrase_prompt or "") else 1),  # {keyword}: one per cluster
            public_per_cluster=KEYWORD_SLOT in (resolve_public_prompt(config) or ""))
    else:
        public = 0
    filters = texts * (int(config.self_filter if self_filter is None else self_filter)
                       + int(config.fluency_threshold is not None))
    embedded = n if config.runs_outlier_removal else 0
    return Work(
        expected_documents=n, clusters=clusters, texts=texts, pii_documents=n if config.redact_pii else 0,
        keyword_prefills=kw_prefills, keyword_decode_forwards=kw_decode, keyword_documents=0 if llm else n,
        embeddings=embedded + texts, embed_forwards=embedding_forwards(embedded, rows=embed_rows(device)),
        member_rows=members, member_rows_max=most, public_rows=public,
        member_token_evaluations=prediction_members * config.T_effective, prediction_prefills=prefills,
        prediction_decode_forwards=decode, filter_forwards=filters, step_rows=step_rows, keyword_step_rows=kw_rows,
        embed_rows=embed_rows(device), distinct_documents=None if profile is None else profile.distinct,
        embed_width_ratio=1.0 if profile is None else profile.embed_width_ratio,
    )


@dataclass(frozen=True)
class Timing:
    """Seconds of single forward passes of the loaded models, measured on public filler text.

    Attributes:
        prefill_s: one prompt forward: the rephrase prompt around a document of ``max_document_tokens``.
        step_s: one private-prediction decode forward of ``step_rows`` rows after that prompt.
        keyword_step_s: one keyword-extraction decode forward (``keyword_step_rows`` rows).
        embed_s: embedding one such document, per text of a forward of ``embed_rows`` of them (as the build;
            0 without an embedder).
        load_s: loading the models (measured by the caller; not part of the estimate).
        pii_s: the automatic PII pass over that document (0 without ``redact_pii``).
        keyword_doc_s: the rarity extractor over that document (0 with the LLM extractor).

    Each is the fastest of a few repeats after a warm-up: other work on the machine only slows a forward down.
    """

    prefill_s: float
    step_s: float
    keyword_step_s: float
    embed_s: float
    load_s: float = 0.0
    pii_s: float = 0.0
    keyword_doc_s: float = 0.0


def _fastest(run, repeats: int) -> float:
    """The fewest seconds ``run()`` took in ``repeats`` calls (at least one)."""
    best = math.inf
    for _ in range(max(1, repeats)):
        t = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - t)
    return best


def _step_seconds(lm, ids, prefix, *, rows: int, rows_per_group: int, repeats: int) -> float:
    """Seconds of the fastest of ``repeats`` decode forwards of ``rows`` rows continuing the prompt ``ids``."""
    import torch

    from dpsynrag.models.engine import RowBatch

    batch = RowBatch(lm.runner, [ids], [0] * rows, max_new_tokens=repeats + 1, public_prefix=prefix,
                     step_rows=rows, rows_per_group=rows_per_group)
    token = torch.full((rows,), int(ids[-1]), dtype=torch.long)
    return _fastest(lambda: batch.step(token), repeats)


def time_model(lm, embedder, config, work: Work, *, repeats: int = 3, load_s: float = 0.0) -> Timing:
    """Time a few forward passes of ``lm`` (and ``embedder``) at the build's shapes.

    The prompt is the build's rephrase prompt around public filler of ``config.max_document_tokens``
    tokens (the cut every private document gets; no private text is read). After one untimed warm-up
    of each, the fastest of ``repeats`` prompt forwards (one prompt each, its public prefix reused, as the
    build) and of ``repeats`` decode forwards of ``work.step_rows`` rows (``min(L, 4)`` rows per stored
    prompt, as the build) are taken; likewise the keyword-extraction decode shape when it differs, the
    embedder's forward of ``work.embed_rows`` fillers, and the rarity extractor and the PII pass over
    public words as long as the filler when they run.
    """
    from dpsynrag.commands.input_profile import probe_filler
    from dpsynrag.models.engine import GROUP_ROWS
    from dpsynrag.pipeline.prompts import REPHRASE_PROMPT, render_rephrase, rephrase_prefix_template

    template = getattr(config, "rephrase_prompt", None) or REPHRASE_PROMPT
    filler = probe_filler(lm, config.max_document_tokens)
    prompt = lm.chat_prompt(render_rephrase(template, filler, keyword="the"))
    ids, prefix = lm.encode(prompt), lm.public_prefix(rephrase_prefix_template(template))
    lm.next_token_logits([prompt], public_prefix=prefix)  # warm-up (and the public prefix's keys/values)
    prefill = _fastest(lambda: lm.next_token_logits([prompt], public_prefix=prefix), repeats)
    group = min(config.L, GROUP_ROWS)
    _step_seconds(lm, ids, prefix, rows=work.step_rows, rows_per_group=group, repeats=1)  # warm-up
    step = _step_seconds(lm, ids, prefix, rows=work.step_rows, rows_per_group=group, repeats=repeats)
    keyword_step = step
    if work.keyword_decode_forwards and work.keyword_step_rows != work.step_rows:
        keyword_step = _step_seconds(lm, ids, prefix, rows=work.keyword_step_rows, rows_per_group=1, repeats=repeats)
    embed = 0.0
    if embedder is not None:
        fillers = [filler] * work.embed_rows
        encode = getattr(embedder, "encode_private", None) or embedder.encode
        encode(fillers)
        embed = _fastest(lambda: encode(fillers), repeats) / len(fillers)
    words = _public_words(len(lm.tokenizer.decode(lm.encode(filler), skip_special_tokens=True)))
    pii = _pii_seconds(config, words, repeats) if work.pii_documents else 0.0
    keyword_doc = _rarity_seconds(config.language, len(words), repeats) if work.keyword_documents else 0.0
    return Timing(prefill_s=prefill, step_s=step, keyword_step_s=keyword_step, embed_s=embed, load_s=load_s,
                  pii_s=pii, keyword_doc_s=keyword_doc)


PII_FILLER = "Dear support team, my card was declined at the shop on Monday and the app shows an error. "
"""Public filler for timing the PII pass: the words of a customer message, no identifier."""


def _public_words(chars: int) -> str:
    """:data:`PII_FILLER` repeated to ``chars`` characters (at least once)."""
    return (PII_FILLER * (chars // len(PII_FILLER) + 1))[: max(chars, len(PII_FILLER))]


RARITY_WARM_DOCS = 256
"""Public texts the rarity extractor reads before it is timed (:func:`_rarity_seconds`)."""


def _rarity_seconds(language: str, chars: int, repeats: int) -> float:
    """Seconds per document of the rarity extractor over public texts of about ``chars`` characters, in the
    steady state of a build: the texts are words drawn (seeded) in proportion to their public frequency in
    ``language`` (wordfreq's list of the 20,000 most frequent), and the extractor first reads
    :data:`RARITY_WARM_DOCS` of them (the list loaded; a word's public frequency is looked up once and kept,
    as after a build's first documents); then the fastest of ``repeats`` calls over 16 more, per text."""
    import numpy as np
    from wordfreq import top_n_list, word_frequency

    from dpsynrag.pipeline.keywords import RarityKeywordExtractor

    words = top_n_list(language, 20_000)
    p = np.array([word_frequency(w, language) for w in words])
    n = RARITY_WARM_DOCS + 16 * max(1, repeats)
    drawn = iter(np.random.default_rng(0).choice(len(words), size=n * max(1, chars // 2), p=p / p.sum()).tolist())

    def text() -> str:
        out = ""
        while len(out) < chars:
            out += words[next(drawn)] + " "
        return out

    extractor = RarityKeywordExtractor(language)
    extractor.extract([text() for _ in range(RARITY_WARM_DOCS)])
    batches = iter([[text() for _ in range(16)] for _ in range(max(1, repeats))])
    return _fastest(lambda: extractor.extract(next(batches)), repeats) / 16


def _pii_seconds(config, text: str, repeats: int) -> float:
    """Seconds of the build's PII pass (:class:`~dpsynrag.data.pii.PIIRedactor` with its entities, allow list
    and model) over the public ``text``: the fastest of ``repeats`` after one untimed warm-up."""
    from dpsynrag.data.pii import PIIRedactor

    redactor = PIIRedactor(config.identifier_placeholder, entities=config.pii_entities, allow=config.pii_allow,
                           model=config.pii_model, names=config.pii_names)
    redactor.find(text)
    return _fastest(lambda: redactor.find(text), repeats)


def estimate_seconds(work: Work, timing: Timing) -> float:
    """Estimated wall time (s) of the build's model work: prefills × prefill_s + decode forwards ×
    their step time + embeddings × embed_s + PII-pass documents × pii_s + rarity-extractor documents ×
    keyword_doc_s (model loading and file reading not included)."""
    return (work.prefills * timing.prefill_s + work.prediction_decode_forwards * timing.step_s
            + work.keyword_decode_forwards * timing.keyword_step_s + embedding_seconds(work, timing)
            + work.pii_documents * timing.pii_s + work.keyword_documents * timing.keyword_doc_s)


def embedding_seconds(work: Work, timing: Timing) -> float:
    """Seconds of the embeddings: the outlier removal's texts at :attr:`Work.embed_width_ratio` of the probe's
    time per text, the index's texts at the probe's."""
    return ((work.embeddings - work.texts) * work.embed_width_ratio + work.texts) * timing.embed_s


def minutes(seconds: float) -> str:
    """``"12 s"``, ``"3.4 min"`` or ``"2.1 h"``."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"


def stage_work(work: Work, timing: Timing | None = None, config=None) -> list[tuple[str, str, float]]:
    """``(stage, model work, estimated seconds)`` of each stage that runs (seconds 0 without ``timing``): the
    PII pass when on, keyword extraction (no model work with the rarity extractor), embeddings, private
    prediction (or the phrase release, with no model work) of the :attr:`Work.clusters` the plan allows, and
    the filters when on. ``config``: the build's, for the names of the extractor and the synthesis. The
    seconds add up to :func:`estimate_seconds`."""
    t = timing or Timing(prefill_s=0.0, step_s=0.0, keyword_step_s=0.0, embed_s=0.0)
    rows = []
    if work.pii_documents:
        rows.append(("PII pass", f"{work.pii_documents} documents through the automatic PII pass",
                     work.pii_documents * t.pii_s))
    extractor = getattr(config, "extractor", None)
    if work.keyword_prefills or work.keyword_decode_forwards or extractor in (None, "llm"):
        rows.append(("keyword extraction", f"{work.keyword_prefills} prefills + {work.keyword_decode_forwards} "
                     f"decode forwards of {work.keyword_step_rows} rows",
                     work.keyword_prefills * t.prefill_s + work.keyword_decode_forwards * t.keyword_step_s))
    else:
        rows.append(("keyword extraction", f"{extractor} extractor: no model work ({work.keyword_documents} documents)",
                     work.keyword_documents * t.keyword_doc_s))
    rows.append(("embeddings", f"{work.embeddings} texts: {work.embed_forwards} forwards of {work.embed_rows} for the "
                 f"outlier removal, {work.texts} for the index"
                 + (f"; the documents' mean width {work.embed_width_ratio:.2f} of the full cut's"
                    if work.distinct_documents is not None else ""), embedding_seconds(work, t)))
    clusters = f"{work.clusters} clusters (the most the plan allows), {work.texts} texts"
    if getattr(config, "synthesis", "prediction") == "phrases":
        rows.append(("phrase release", f"{clusters}: no model work", 0.0))
    else:
        rows.append(("private prediction", f"{clusters}; {work.member_rows} member rows (at most "
                     f"{work.member_rows_max}) + {work.public_rows} public rows; {work.member_token_evaluations} "
                     f"member-token evaluations; {work.prediction_prefills} prefills + "
                     f"{work.prediction_decode_forwards} decode forwards of {work.step_rows} rows",
                     work.prediction_prefills * t.prefill_s + work.prediction_decode_forwards * t.step_s))
    if work.filter_forwards:
        rows.append(("filters", f"{work.filter_forwards} forwards for {work.texts} texts",
                     work.filter_forwards * t.prefill_s))
    return rows


def work_table(work: Work, timing: Timing | None = None, config=None):
    """A rich table of :func:`stage_work` (with ``timing``, the time of each stage and the total)."""
    from rich.table import Table

    table = Table(title=f"Work for {work.expected_documents} documents (declared; estimates)"
                  if work.distinct_documents is None else
                  f"Work for the {work.expected_documents} documents of INPUT, {work.distinct_documents} distinct after "
                  "redaction and the cut (owner-only counts of the private data: do not publish; estimates)")
    table.add_column("stage")
    table.add_column("model work")
    if timing is not None:
        table.add_column("estimated time", justify="right")
    for stage, what, seconds in stage_work(work, timing, config):
        table.add_row(stage, what, *([minutes(seconds)] if timing is not None else []))
    if timing is not None:
        table.add_row("total", f"{work.prefills} prefills, {work.decode_forwards} decode forwards",
                      minutes(estimate_seconds(work, timing)))
    return table


def timing_note(timing: Timing, work: Work | None = None) -> str:
    """How the estimate was made (one line); ``work``: the counted work (whether its counts are INPUT's)."""
    counted = ("Counted at the most clusters the plan allows, distinct documents of the full --max-document-tokens "
               "and every decode step: a histogram that releases fewer keywords, shorter or repeated documents (a "
               "repeated prompt is computed once)")
    if work is not None and work.distinct_documents is not None:
        counted = ("Counted on INPUT's documents (their distinct texts after redaction and the cut, their widths in the "
                   "embedder; prompt forwards at the full cut) at the most clusters the plan allows and every decode "
                   "step: a histogram that releases fewer keywords, clusters of fewer distinct texts")
    return (f"estimated from a timing on this machine: one prompt forward {timing.prefill_s * 1e3:.0f} ms, "
            f"one decode forward {timing.step_s * 1e3:.0f} ms, one embedding {timing.embed_s * 1e3:.0f} ms"
            + (f", the PII pass over one document {timing.pii_s * 1e3:.0f} ms" if timing.pii_s else "")
            + f" (public filler text at the build's shapes; model loading {timing.load_s:.0f} s, not included). "
            + counted + " and texts that end early make the build faster; other work on the "
            "machine makes it slower. The private-prediction bar's time left counts the clusters released.")
