"""The skeleton every corpus build shares (DP-SynRAG, DP-Synth, Aug-PE and any registered corpus method).

A :class:`BuildRun` owns what is the same in every build, in this order:

1. the output folder's :class:`~dpsynrag.corpus.CorpusWriter` (a temporary folder renamed into place at
   the end; ``--out`` locked against a second build);
2. the calibration of the method's config (refused before anything is loaded when the target (ε, δ)
   cannot pay), the self-filter prompt (an unknown task stops the build here), the input documents (each
   one's own direct identifiers redacted when the config says so: :mod:`dpsynrag.data.redaction`; and the
   personal identifiers found in its text with ``redact_pii``: :mod:`dpsynrag.data.pii`);
3. the randomness: one root source (:func:`~dpsynrag.rng.make_random`: secure unless a seed is given for
   tests) and its named child streams (:meth:`BuildRun.stream`);
4. the privacy-ledger charge, checked now and recorded by the method before its first draw;
5. the models (the embedder first: a bad embedder name fails before the larger language model loads);
6. stage wall times (owner-only: they depend on the data), the self-filter and fluency filter
   (post-processing of released texts), the privacy report and the final manifest;
7. what the build shows its owner while it runs (:class:`~dpsynrag.pipeline.display.BuildDisplay`, with ``progress``): one bar per
   stage, "stage i of N: NAME", counts, ETA and the stage's wall time, on stderr only (never in the
   corpus folder's ``build.log``: the counts and times depend on the data).

The method itself — the part that reads private documents through mechanisms — is a function
``generate(run)`` called inside ``with run:`` (see :mod:`dpsynrag.methods`).
"""

from __future__ import annotations

import json
import logging
import os
import time
import warnings
from collections.abc import Callable, Iterable, Sequence
from contextlib import contextmanager

import numpy as np

from dpsynrag import __version__
from dpsynrag.corpus import CorpusWriter, SyntheticCorpus, content_warning
from dpsynrag.data.io import Document, as_documents, max_document_chars
from dpsynrag.data.streaming import open_documents
from dpsynrag.data.preparation import RedactionSpec
from dpsynrag.data.redaction import RedactedDocuments
from dpsynrag.errors import ConfigError
from dpsynrag.privacy.accountant import ZCDPAccountant
from dpsynrag.privacy.events import PrivacyEvent
from dpsynrag.privacy.charge import PendingCharge, prepare_charge
from dpsynrag.pipeline.display import BuildDisplay
from dpsynrag.privacy.report import PrivacyReport
from dpsynrag.rng import RandomSource, make_random

log = logging.getLogger("dpsynrag.build")

NOT_FOR_RELEASE_NOTE = "seeded randomness: reproducible output, NOT FOR RELEASE"


def resolve_filter_prompt(config) -> str | None:
    """The self-filter prompt of a build (None when self-filtering is off).

    The task, when one is named, is resolved first whatever the self-filter setting: the corpus's query
    side needs it, so an unknown task name must stop the build before any budget is spent.

    Args:
        config: a method config with ``task``, ``self_filter`` and ``filter_prompt``.

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


def self_filter(lm, texts: Sequence[str], filter_prompt: str, *,
                on_batch: Callable[[int], None] | None = None) -> list[bool]:
    """Keep a text when the model's next-token score for YES beats NO (METHOD.md §2e; post-processing).

    Args:
        filter_prompt: a template with ``{document}``.
        on_batch: called with the number of texts scored after each batch (a progress display).

    Returns:
        One bool per text; empty texts are never kept.
    """
    if not texts:
        return []
    prompts = [lm.chat_prompt(filter_prompt.replace("{document}", t)) for t in texts]
    lp = np.asarray(lm.choice_logprobs(prompts, ["YES", "Yes", "NO", "No"], on_batch=on_batch), dtype=np.float64)
    yes = np.logaddexp(lp[:, 0], lp[:, 1])
    no = np.logaddexp(lp[:, 2], lp[:, 3])
    return [bool(y > n) and bool(t.strip()) for y, n, t in zip(yes, no, texts)]


def truncation_stages(
    max_document_tokens: int, documents_cut: int, embedder=None, embedded_texts: Sequence[str] = (), *,
    embedded_cut: int | None = None,
) -> list[dict]:
    """Where the private documents were cut, and how many were (never which), for
    :meth:`~dpsynrag.corpus.CorpusWriter.finish_build`: the limits go to the manifest, the counts
    (data-dependent, not DP) only to the owner-only ``DIR.owner.json``.

    Args:
        max_document_tokens: the language-model cut (``lm.truncate``), after the cut at read time to
            ``max_chars`` characters (:func:`~dpsynrag.data.io.max_document_chars`); ``documents_cut``
            documents were longer.
        embedder: when private texts were embedded: its cut (``max_tokens``) and count
            (``count_truncated(embedded_texts)``); ``None`` in both for an embedder that reports neither.
        embedded_texts: the private texts given to the embedder.
        embedded_cut: the embedder's count when already made (e.g. by
            :func:`~dpsynrag.models.embedder.embed_to_file`); ``embedded_texts`` is then not used.
    """
    stages = [{"stage": "language model (max_document_tokens)", "max_tokens": max_document_tokens,
               "max_chars": max_document_chars(max_document_tokens), "documents_cut": int(documents_cut)}]
    if embedder is not None:
        count = getattr(embedder, "count_truncated", None)
        if embedded_cut is None and count is not None:
            embedded_cut = int(count(list(embedded_texts)))
        stages.append({"stage": "embedder (max_seq_length)", "max_tokens": getattr(embedder, "max_tokens", None),
                       "documents_cut": embedded_cut})
    return stages


class BuildRun:
    """One corpus build: the writer, calibration, documents, randomness, ledger charge, models, timings,
    filters, report and manifest that every corpus method shares.

    Args:
        method: the method name recorded in the manifest and the ledger (e.g. ``"dp-synth"``).
        documents: the private collection (Documents, strings, or a JSONL/CSV/Parquet path).
        out_dir: the corpus folder to create (must not exist unless ``overwrite``).
        config: the method's config: a pydantic model with ``calibrate()``, ``epsilon``, ``delta``,
            ``seed``, ``model``, ``embedder``, ``task``, ``self_filter``, ``filter_prompt``.
        lm, embedder: loaded models (else loaded from ``config.model`` / ``config.embedder`` by
            :meth:`load_models`).
        text_field, id_field: fields of a file input.
        identifier_fields: fields of a file input holding each document's direct identifiers
            (:attr:`~dpsynrag.data.io.Document.identifiers`); needed with ``config.redact_identifiers``
            and a file input. With redaction on they are recorded in the manifest (``redaction``; for
            Documents given in memory, the fields their identifiers came from, when the caller names them).
        overwrite: replace an existing folder once the new build has succeeded.
        progress: show the owner the build's stages on stderr (:class:`BuildDisplay`); False: silent.
        ledger: a :class:`~dpsynrag.privacy.ledger.PrivacyLedger`, or None (not recorded).
        stream: read a file input in a stream, re-read at each pass (:func:`~dpsynrag.data.streaming.open_documents`);
            False: load it as a list (:func:`~dpsynrag.data.io.as_documents`).
        plan: ``plan(calibration)`` -> the release's privacy plan (its guarantee, fixed before any data is
            read; default ``calibration.plan()``).
        defer_charge: do not check the ledger here; the method calls :meth:`prepare_charge` itself (e.g.
            a resumed build that was recorded already).
        prepare: called with the calibration between the filter prompt and reading the documents (checks
            that must stop a build before it reads anything, e.g. the public vocabulary).

    Attributes:
        cal: the calibration; filter_prompt: the self-filter prompt or None; documents: what the method
        reads (redacted when ``config.redact_identifiers`` or ``config.redact_pii``, as ``redaction_spec`` says:
        a :class:`~dpsynrag.data.preparation.RedactionSpec`, None without redaction); input_documents: the
        input as read (its fingerprints identify the dataset in the ledger and the owner-only record; with
        a config's ``privacy_unit_field``, kept in ``unit_field``, each Document carries its person's key
        ``unit``); each text is cut at read time to ``max_chars`` = :func:`~dpsynrag.data.io.max_document_chars` of
        ``config.max_document_tokens`` (None for a config without it); random: the root source; charge: the
        :class:`~dpsynrag.privacy.charge.PendingCharge` to commit before the first draw; timings: stage wall
        times (s); lm, embedder: after :meth:`load_models`; display: the :class:`BuildDisplay`; span_counts:
        the owner-only redaction counts when the method's own pass over the documents counted them
        (:meth:`~dpsynrag.data.redaction.SpanTally.counts`; DP-SynRAG's one pass), else None.

    Raises:
        InfeasibleBudgetError: the target (ε, δ) cannot pay for the parameters (nothing run).
        ConfigError, DataError: bad parameters or input (``config.redact_identifiers`` with a file input
            and no ``identifier_fields``; ``config.redact_pii`` without the optional extra ``pii``).
            FileExistsError: ``out_dir`` exists.
        PrivacyBudgetExceededError: the build would exceed the dataset's lifetime budget.
    """

    def __init__(self, method: str, documents, out_dir: str | os.PathLike, config, *, lm=None, embedder=None,
                 text_field: str = "text", id_field: str | None = None, identifier_fields: Sequence[str] = (),
                 overwrite: bool = False, progress: bool = False, ledger=None, stream: bool = False, plan=None,
                 defer_charge: bool = False, prepare=None):
        self.t_start = time.time()
        self.method, self.config, self.progress = method, config, progress
        self.display = BuildDisplay(progress)
        redact = getattr(config, "redact_identifiers", False)
        if redact and isinstance(documents, (str, os.PathLike)) and not identifier_fields:
            raise ConfigError(
                "redact_identifiers needs the input's columns of direct identifiers: name them with "
                "--identifier-field NAME (identifier_fields=[...] in the API)."
            )
        self.redaction_spec: RedactionSpec | None = RedactionSpec.of(config)
        # the PII pass built now: a missing extra or model stops the build here
        pii = None if self.redaction_spec is None else self.redaction_spec.pii_redactor()
        self.writer = CorpusWriter(out_dir, overwrite=overwrite)
        self.cal = config.calibrate()  # raises before anything is loaded if the budget cannot pay
        self.filter_prompt = resolve_filter_prompt(config)
        self.prepared = prepare(self.cal) if prepare is not None else None
        opener = open_documents if stream else as_documents
        max_tokens = getattr(config, "max_document_tokens", None)
        self.max_chars = None if max_tokens is None else max_document_chars(max_tokens)
        # per person (--privacy-unit-field): every document's unit key is read and checked here, before any model
        self.unit_field: str | None = getattr(config, "privacy_unit_field", None)
        self.input_documents: Sequence[Document] = opener(documents, text_field=text_field, id_field=id_field,
                                                          identifier_fields=identifier_fields, max_chars=self.max_chars,
                                                          unit_field=self.unit_field)
        self.documents: Sequence[Document] = (
            self.input_documents if self.redaction_spec is None
            else self.redaction_spec.redacting(self.input_documents, pii=pii))
        self.identifier_fields = tuple(identifier_fields)
        if redact and not any(d.identifiers for d in self.input_documents):
            warnings.warn("redact_identifiers is on but no document has an identifier value (empty or null "
                          "identifier fields, or documents given without identifiers): nothing is redacted.",
                          stacklevel=2)
        self.plan: PrivacyEvent = plan(self.cal) if plan is not None else self.cal.plan()
        self.charge: PendingCharge = PendingCharge(None, None)
        if not defer_charge:
            self.prepare_charge(ledger)
        self.random: RandomSource = make_random(config.seed)
        self.lm, self.embedder = lm, embedder
        self.timings: dict[str, float] = {}
        self.span_counts: dict | None = None

    # ------------------------------------------------------------------ set-up

    def prepare_charge(self, ledger) -> PendingCharge:
        """Check the plan against ``ledger`` now and keep the charge to commit before the first draw."""
        self.charge = prepare_charge(ledger, self.input_documents, self.plan, delta=self.config.delta, kind="build",
                                     method=self.method, label=str(self.writer.out.resolve()))
        return self.charge

    def stream(self, name: str) -> RandomSource:
        """The root source's child stream ``name`` (independent of the order streams are made in)."""
        return self.random.child(name)

    def __enter__(self) -> "BuildRun":
        self.writer.__enter__()
        return self

    def __exit__(self, *exc) -> bool | None:
        self.display.close()
        return self.writer.__exit__(*exc)

    def start(self) -> None:
        """Log the configuration and calibration (public values only) and load the models."""
        log.info("dpsynrag %s %s build: %s", __version__, self.method, self.config.model_dump_json())
        log.info("calibrated: %s", json.dumps(self.cal.to_dict()))
        self.load_models()

    def load_models(self, *, need_embedder: bool = True) -> None:
        """Load the models not given: the embedder first (a bad name fails before the language model loads)."""
        device, dtype = getattr(self.config, "device", None), getattr(self.config, "dtype", None)  # None: defaults
        if self.embedder is None and need_embedder:
            from dpsynrag.models import Embedder

            self.embedder = Embedder.load(self.config.embedder, device=device)
        if self.lm is None:
            from dpsynrag.models import LanguageModel

            self.lm = LanguageModel.load(self.config.model, device=device, dtype=dtype)

    @contextmanager
    def timed(self, name: str):
        """Add the wall time of the block to ``timings[name]`` (seconds; owner-only)."""
        t = time.time()
        try:
            yield
        finally:
            self.timings[name] = self.timings.get(name, 0.0) + time.time() - t

    def accountant(self, *, delta_budget: float = 0.0) -> ZCDPAccountant:
        """The build's zCDP accountant, capped at the calibrated ρ (``cal.rho_total``)."""
        return ZCDPAccountant(rho_budget=self.cal.rho_total, delta_budget=delta_budget, name="build")

    # ------------------------------------------------------------------ finish

    @property
    def filter_stage(self) -> str | None:
        """The name of :meth:`filter`'s stage in :attr:`display` ("self-filter", "fluency filter" or both),
        None when it runs no model (only empty texts are dropped)."""
        passes = [name for name, on in (("self-filter", self.filter_prompt),
                                        ("fluency filter", getattr(self.config, "fluency_threshold", None) is not None))
                  if on]
        return " and ".join(passes) or None

    def filter(self, synthetic: Sequence[str]) -> list[bool]:
        """Which released texts to keep: the self-filter (when on), else non-empty; then the fluency
        threshold when the config has one. Post-processing of released texts: free."""
        stage = self.filter_stage
        if stage is not None:
            self.display.start(stage, total=len(synthetic) * (1 + (" and " in stage)), unit="text")
        with self.timed("self_filter_s"):
            if self.filter_prompt:
                kept = self_filter(self.lm, synthetic, self.filter_prompt, on_batch=self.display.update)
            else:
                kept = [bool(s.strip()) for s in synthetic]
            threshold = getattr(self.config, "fluency_threshold", None)
            if threshold is not None:
                fluency = self.lm.reply_logprobs(list(synthetic), on_batch=self.display.update)
                kept = [k and bool(f >= threshold) for k, f in zip(kept, fluency)]
        if stage is not None:
            self.display.end(f"{sum(kept)} of {len(kept)} texts kept")
        log.info("%s kept %d of %d texts", stage or "empty-text filter", sum(kept), len(kept))  # the filter that ran
        empty = content_warning(sum(kept), len(kept))
        if empty:
            log.warning(empty)
        return kept

    def report(self, accountant: ZCDPAccountant, *, parameters: dict, plan: PrivacyEvent | None = None,
               notes: Sequence[str] = (), composition: str | None = None) -> PrivacyReport:
        """The privacy report: the plan fixed before any data was read (the guarantee), the accountant's
        ledger, the method's parameters and notes (a seeded run is marked NOT FOR RELEASE)."""
        all_notes = list(notes)
        if getattr(self.config, "redact_pii", False):
            from dpsynrag.data.pii import pii_note

            note = pii_note(self.config.identifier_placeholder, self.config.pii_entities)
            if note not in all_notes:  # a method's plan notes may have it
                all_notes.append(note)
        all_notes += [] if self.random.is_secure else [NOT_FOR_RELEASE_NOTE]
        report = PrivacyReport.from_accountant(accountant, delta=self.config.delta, plan=plan, parameters=parameters,
                                               secure_randomness=self.random.is_secure, notes=all_notes,
                                               unit_field=self.unit_field)
        if composition is not None:
            import dataclasses

            report = dataclasses.replace(report, composition=composition)
        return report

    @property
    def redaction(self) -> dict | None:
        """The manifest's ``redaction`` record (public), None without redaction: ``identifier_fields`` (with
        ``redact_identifiers``), ``pii`` (with ``redact_pii``: :func:`~dpsynrag.data.pii.pii_record`, the
        analyzer, its entities and score threshold) and the ``placeholder``."""
        record: dict = {}
        if getattr(self.config, "redact_identifiers", False):
            record["identifier_fields"] = list(self.identifier_fields)
        if getattr(self.config, "redact_pii", False):
            from dpsynrag.data.pii import pii_record

            record["pii"] = pii_record(self.config.pii_entities, self.config.pii_allow, self.config.pii_model,
                                       names=bool(self.config.pii_names))
        return {**record, "placeholder": self.config.identifier_placeholder} if record else None

    def finish(self, records: Sequence[dict], report: PrivacyReport, *, fingerprinted: Iterable[Document] | None = None,
               **manifest) -> SyntheticCorpus:
        """Write the corpus (:meth:`~dpsynrag.corpus.CorpusWriter.finish_build`): records of released values,
        the report, the common manifest plus ``manifest`` (prompts, truncation, ...). The display's
        "index" stage: the kept texts embedded and the folder written.

        Args:
            fingerprinted: the input's documents each carrying its whole text's key (``text_key``) and unit,
                read for the owner record's fingerprints (a :class:`~dpsynrag.data.spool.DocumentSpool` of
                :mod:`dpsynrag.data.preparation`'s documents); None: :attr:`input_documents`, keyed here.

        The owner record's ``redaction_counts`` are :attr:`span_counts` when the method's own pass counted
        them, else counted from :attr:`documents` (the first complete iteration's, or a counting pass); with
        ``pii_names``, its ``pii_names`` holds the list's count and SHA-256."""
        self.display.start("index", total=None, unit="text")
        counts = (None if not isinstance(self.documents, RedactedDocuments)
                  else self.span_counts if self.span_counts is not None else self.documents.span_counts())
        owner = dict(manifest.get("owner_record") or {})
        if counts is not None:
            owner["redaction_counts"] = counts
        if getattr(self.config, "pii_names", ()):
            from dpsynrag.data.pii_names import names_digest

            owner["pii_names"] = {"names": len(self.config.pii_names), "sha256": names_digest(self.config.pii_names)}
        corpus = self.writer.finish_build(
            records, method=self.method, config=self.config, report=report, lm=self.lm, embedder=self.embedder,
            documents=self.input_documents, secure=self.random.is_secure, timings=self.timings, t_start=self.t_start,
            fingerprinted=fingerprinted, **({"redaction": self.redaction} if self.redaction else {}),
            **{**manifest, **({"owner_record": owner} if owner else {})})  # owner-only: span counts, the names' digest
        self.display.end(f"{corpus.manifest['num_kept']} kept texts indexed")
        return corpus
