"""The per-document stages of a build on Ray (``dpsynrag build --ray``): the reading pass's redaction (the PII
pass included), cut and fingerprint keys, keyword extraction (rarity or the LLM extractor) and the embeddings of
outlier removal, as Ray tasks over shards of consecutive documents, all on the actors of one
:class:`RayDocumentPool`.

What runs where: the driver reads each row once (:mod:`dpsynrag.pipeline.reading`: parsed, checked, cut at read
time to :func:`~dpsynrag.data.io.max_document_chars`) and sends shards of :data:`SHARD_DOCUMENTS` documents to the
actors, at most two shards in flight per actor (the driver's memory stays flat); a shard whose worker is lost
runs again on a live one (nothing is drawn here). Each actor runs the local stage's own function on its shard —
:class:`~dpsynrag.data.preparation.DocumentPreparer` with the driver's redaction (rebuilt on the actor from its
:class:`~dpsynrag.data.preparation.RedactionSpec`, once per actor: the PII analyzer and compiled matchers serve
every later shard) and the driver's tokenizer's cut (:func:`~dpsynrag.models.lm.truncate_text`);
:func:`~dpsynrag.pipeline.keywords.extract_keyword_sets` with the same extractor, cap, vocabulary and excluded
words, on the spooled documents (text and identifier values, exactly what its own stage would read);
:func:`~dpsynrag.models.embedder.embed_to_file` with the driver's embedder — and the driver reassembles the
results in document order (the prepared documents into the build's :class:`~dpsynrag.data.spool.DocumentSpool`,
with the owner-only counts and each document's fingerprint key). Each document's result is a function of that
document alone (the redaction and the cut by construction; the extractors and the embedder's full batches are
batch-invariant), so the result is the local build's, byte for byte, given the same model files, dtype, hardware
kind and threads per process.

Models: an actor loads the language model (only for the LLM extractor) from ``BuildConfig.model`` on the
driver's device kind and dtype, checked against the driver's like the prediction actors
(:func:`~dpsynrag.pipeline.distributed.model_identity`); the embedder and the tokenizer are the driver's own
objects, sent once.

Privacy: nothing here is released or logged; the shards are private documents (before redaction, in the reading
pass), so the Ray cluster must sit inside the data owner's trust boundary, as for private prediction. The pool is
closed (its actors and their models gone) before private prediction starts its own actors.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import islice, repeat

import numpy as np

from dpsynrag.data.preparation import RedactionSpec
from dpsynrag.errors import ConfigError, DpsynragError
from dpsynrag.pipeline.distributed import RayOptions, identity_mismatch, model_identity

SHARD_DOCUMENTS = 1024
"""Documents per Ray task of a per-document stage: two chunks of
:data:`~dpsynrag.pipeline.keywords.EXTRACT_CHUNK` (a shard's transfer and its task's start-up are
amortised over a second or more of work)."""


@dataclass(frozen=True)
class PrepareSpec:
    """What the reading pass does to each document besides reading it (public: the configuration's values).

    Attributes:
        redaction: the build's redaction (:attr:`~dpsynrag.pipeline.run.BuildRun.redaction_spec`; None: none).
        max_tokens: the language model's cut (``max_document_tokens``), with the driver's tokenizer.
    """

    redaction: RedactionSpec | None
    max_tokens: int


@dataclass(frozen=True)
class KeywordSpec:
    """What the keyword stage needs besides the documents (public: the configuration's values).

    Attributes:
        extractor: "rarity" or "llm" (``BuildConfig.extractor``).
        K: keywords per document.
        batch_size: the LLM extractor's prompts per batch (None: the model's default).
        language: the documents' language.
        placeholder: the redaction placeholder removed from the text the extractor reads (None: none).
        public: lower-case public words never keywords (the placeholder's, ``--pii-allow``'s).
        vocabulary: the public vocabulary (None: open vocabulary).
        memory_budget_gb: the LLM extractor's batch budget (``--memory-budget-gb``; None: the device's default).
    """

    extractor: str
    K: int
    batch_size: int | None
    language: str
    placeholder: str | None
    public: frozenset
    vocabulary: frozenset | None
    memory_budget_gb: float | None = None


def shard_keyword_sets(spec: KeywordSpec, shard: Iterable[tuple[str, Sequence[str]]], lm=None,
                       on_progress: Callable[[int], None] | None = None):
    """Each document's capped keyword set, for documents given as (text, identifier values) pairs — the
    keyword stage of a build, on the driver (whole input) or on a Ray actor (a shard).

    Returns:
        A :class:`~dpsynrag.pipeline.keywords.KeywordSets` (one set per pair, in order).
    """
    from dpsynrag.data.words import excluded_words, keyword_view
    from dpsynrag.pipeline.keywords import extract_keyword_sets, make_extractor

    extractor = make_extractor(spec.extractor, lm=lm, K=spec.K, batch_size=spec.batch_size, language=spec.language,
                               memory_budget_gb=spec.memory_budget_gb)
    held: deque = deque()  # the identifier values of the texts read but not yet capped (one chunk at most)

    def views():
        for text, ids in shard:
            held.append(ids)
            yield keyword_view(text, spec.placeholder)

    return extract_keyword_sets(
        extractor, views(), max_keywords=spec.K, vocabulary=spec.vocabulary,
        excluded=(spec.public | excluded_words(held.popleft(), None, spec.language) for _ in repeat(None)),
        on_progress=on_progress)


class _DocumentWorker:
    """One Ray actor of a :class:`RayDocumentPool`: the language model when the LLM extractor needs it, the
    driver's embedder when embeddings are asked for, the driver's tokenizer for the reading pass's cut."""

    def __init__(self, model: str | None, device: str | None, dtype: str | None, embedder, tokenizer):
        self.lm = None
        if device is not None:
            from dpsynrag.models import LanguageModel

            self.lm = LanguageModel.load(model, device=device, dtype=dtype.removeprefix("torch."))
        self.embedder, self.tokenizer = embedder, tokenizer
        self._preparer: tuple[PrepareSpec, Callable] | None = None  # built at the first shard, kept for the rest

    def describe(self) -> dict | None:
        return None if self.lm is None else model_identity(self.lm)

    def prepare(self, spec: PrepareSpec, shard: list) -> list:
        """Each document of ``shard`` redacted, cut and keyed (:class:`~dpsynrag.data.preparation.PreparedDocument`),
        by the driver's own :class:`~dpsynrag.data.preparation.DocumentPreparer`, built once per actor (the PII
        analyzer and the compiled matchers with it)."""
        if self._preparer is None or self._preparer[0] != spec:
            from dpsynrag.data.preparation import DocumentPreparer
            from dpsynrag.models.lm import truncate_text

            tokenizer, n = self.tokenizer, spec.max_tokens
            redactor = None if spec.redaction is None else spec.redaction.redacting()
            self._preparer = (spec, DocumentPreparer(redactor, lambda text: truncate_text(tokenizer, text, n)))
        return [self._preparer[1](d) for d in shard]

    def keywords(self, spec: KeywordSpec, shard) -> list[tuple[str, ...]]:
        return list(shard_keyword_sets(spec, shard, lm=self.lm))

    def embed(self, texts: list[str]) -> tuple[np.ndarray, int | None]:
        import tempfile

        from dpsynrag.models.embedder import embed_to_file

        with tempfile.TemporaryDirectory() as folder:  # the actor's own temporary folder, deleted at once
            rows, cut = embed_to_file(self.embedder, texts, folder=folder)
            with rows:
                return rows.take(np.arange(len(texts))), cut


class RayDocumentPool:
    """Actors for the per-document stages of one build, started at the first use and stopped by :meth:`close`.

    Args:
        options: the cluster and its width (``--ray``, ``--ray-address``, ``--ray-workers``, ``--threads``);
            Ray must be initialised (:func:`~dpsynrag.pipeline.distributed.ray_session`).
        model: ``BuildConfig.model``, loaded by the actors for the LLM extractor.
        lm: the driver's language model (its identity is the actors' reference); None: no actor loads one.
        embedder: the driver's embedder, sent to the actors; None: no embeddings asked.
        tokenizer: the driver's tokenizer, sent to the actors for the reading pass's cut; None: no reading pass.
    """

    def __init__(self, options: RayOptions, *, model: str | None = None, lm=None, embedder=None, tokenizer=None):
        self.options, self.model, self.lm, self.embedder, self.tokenizer = options, model, lm, embedder, tokenizer
        self._actors: list | None = None

    def _start(self, ray) -> list:
        if self._actors is not None:
            return self._actors
        expected = None if self.lm is None else model_identity(self.lm)
        embedder_device = str(getattr(self.embedder, "device", "cpu"))
        on_gpu = (expected is not None and expected["device"] != "cpu") or not embedder_device.startswith("cpu")
        resources = ray.cluster_resources()
        threads = self.options.threads or 1
        gpus, cpus = int(resources.get("GPU", 0)), int(resources.get("CPU", 1))
        workers = self.options.workers or (gpus if on_gpu else max(1, cpus // threads))
        if (on_gpu and workers > gpus) or (not on_gpu and workers * threads > cpus):
            have = f"{gpus} GPUs" if on_gpu else f"{cpus} CPUs"
            raise ConfigError(f"--ray-workers {workers} (x --threads {threads} CPUs) does not fit the Ray cluster ({have}).")
        cls = ray.remote(num_cpus=0 if on_gpu else threads, num_gpus=1 if on_gpu else 0)(_DocumentWorker)
        embedder, tokenizer = ray.put(self.embedder), ray.put(self.tokenizer)  # sent once, not once per actor
        self._actors = [cls.remote(self.model, None if expected is None else expected["device"],
                                   None if expected is None else expected["dtype"], embedder, tokenizer)
                        for _ in range(workers)]
        if expected is not None:
            for identity in ray.get([a.describe.remote() for a in self._actors]):
                wrong = identity_mismatch(identity, expected)
                if wrong is not None:
                    raise ConfigError(
                        f"a Ray worker loaded another model than the driver's {expected['name']!r}: {wrong}. Pass "
                        "the model as --model (a path every node can read, holding the same files).")
        return self._actors

    def _in_order(self, method: str, args: Callable[[list], tuple], items: Iterable, on_done) -> Iterator:
        """Results of ``actor.method(*args(shard))`` for consecutive shards of ``items``, in shard order."""
        from dpsynrag.pipeline.distributed import _import_ray

        ray = _import_ray()
        items = iter(items)
        window: deque = deque()  # (result, shard, actor) of the shards sent, oldest first
        live: list = []
        n = 0

        def get(entry):
            ref, shard, actor = entry
            while True:
                try:
                    out = ray.get(ref)
                    break
                except ray.exceptions.RayActorError:  # a lost worker: its shard runs again on a live one
                    for pool in (live, self._actors or []):
                        if actor in pool:
                            pool.remove(actor)
                    if not live:
                        raise ConfigError("every Ray worker of the per-document stages was lost.") from None
                    actor = live[0]
                    ref = getattr(actor, method).remote(*args(shard))
                except ray.exceptions.RayTaskError as exc:
                    cause = getattr(exc, "cause", None)
                    if isinstance(cause, DpsynragError):
                        raise cause from None
                    raise
            if on_done is not None:
                on_done(len(shard))
            return out

        while shard := list(islice(items, SHARD_DOCUMENTS)):
            if not live:  # at the first shard: no actor for an empty stage
                live.extend(self._start(ray))  # a copy: the pool's live actors
            actor = live[n % len(live)]
            window.append((getattr(actor, method).remote(*args(shard)), shard, actor))
            n += 1
            if len(window) >= 2 * len(live):
                yield get(window.popleft())
        while window:
            yield get(window.popleft())

    def prepared(self, spec: PrepareSpec, documents: Iterable, *,
                 on_progress: Callable[[int], None] | None = None) -> Iterator:
        """Each of ``documents`` (as read: :class:`~dpsynrag.data.io.Document`) redacted, cut and keyed by the
        actors (:meth:`~dpsynrag.data.preparation.DocumentPreparer.__call__`), in the order of ``documents``.

        Yields:
            :class:`~dpsynrag.data.preparation.PreparedDocument` objects.

        Raises:
            ConfigError: on an actor, the PII pass cannot be built (a missing extra or model); the cluster is
                too small.
        """
        if self.tokenizer is None:
            raise ConfigError("internal: the Ray pool was started without the tokenizer.")
        from dpsynrag.pipeline.distributed import _import_ray

        spec_ref = _import_ray().put(spec)  # the redaction's values, sent once for every shard
        for shard in self._in_order("prepare", lambda shard: (spec_ref, shard), documents, on_progress):
            yield from shard

    def keyword_sets(self, spec: KeywordSpec, shard_items: Iterable[tuple[str, Sequence[str]]], *,
                     on_progress: Callable[[int], None] | None = None):
        """:func:`shard_keyword_sets` of every (text, identifier values) pair, computed by the actors.

        Returns:
            A :class:`~dpsynrag.pipeline.keywords.KeywordSets`, in the order of ``shard_items``.

        Raises:
            ConfigError: the actors' model differs from the driver's, or the cluster is too small.
        """
        from dpsynrag.pipeline.keywords import KeywordSets

        if spec.extractor == "llm" and self.lm is None:
            raise ConfigError("the 'llm' keyword extractor needs a language model.")
        from dpsynrag.pipeline.distributed import _import_ray

        spec_ref = _import_ray().put(spec)  # the vocabulary and exclusions, sent once for every shard
        out = KeywordSets()
        for sets in self._in_order("keywords", lambda shard: (spec_ref, shard), shard_items, on_progress):
            for keywords in sets:
                out.append(keywords)
        return out

    def embed_to_file(self, texts: Iterable[str], *, folder, on_progress: Callable[[int], None] | None = None):
        """As :func:`~dpsynrag.models.embedder.embed_to_file` with the driver's embedder, computed by the
        actors: the rows written to an owner-only temporary file in ``folder``, in the order of ``texts``.

        Returns:
            ``(file, cut)`` as ``embed_to_file``.
        """
        from dpsynrag.models.embedder import EmbeddingFile

        if self.embedder is None:
            raise ConfigError("internal: the Ray pool was started without an embedder.")
        out = EmbeddingFile(self.embedder.dim, folder)
        cut = None if getattr(self.embedder, "count_truncated", None) is None else 0
        try:
            for rows, shard_cut in self._in_order("embed", lambda shard: (shard,), texts, on_progress):
                out.append(rows)
                if cut is not None:
                    cut += shard_cut
        except BaseException:
            out.close()
            raise
        return out, cut

    def close(self) -> None:
        """Stop the actors (their models and any shard they hold go with them)."""
        if self._actors:
            from dpsynrag.pipeline.distributed import _import_ray

            ray = _import_ray()
            for actor in self._actors:
                ray.kill(actor)
        self._actors = None

