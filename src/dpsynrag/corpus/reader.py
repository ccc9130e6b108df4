"""A synthetic corpus on disk, and RAG over it (post-processing: unlimited queries, no budget).

Folder layout (written by :func:`dpsynrag.pipeline.build.build_corpus`):

    manifest.json   parameters, model ids, privacy report, released counts
    texts.jsonl     one record per cluster (per member group with ``group_size``): id, keyword, noisy_count (an
                    integer), group (with ``group_size``), copies (with ``index_copy_size``), text, kept
                    (self-filter)
    index.faiss     inner-product index over the kept texts' embeddings (a text with copies m: m rows)
    index_ids.json  the record ids of the index rows
    build.log       stage log (parameters and released counts only; no timestamps), written at the end

The manifest's ``checksums`` hold the SHA-256 of every other file and of the manifest itself (its
canonical JSON without ``checksums``); :meth:`SyntheticCorpus.load` verifies them and recomputes the
privacy report's totals from the mechanisms it lists (:func:`dpsynrag.privacy.verify.verify_report`),
so a damaged or hand-edited folder is refused with a :class:`~dpsynrag.errors.CorpusError`. This
detects damage and naive edits, not a forger who recomputes every checksum (there is no signature).

An extended corpus (``dpsynrag build NEW --extend CORPUS``; :mod:`dpsynrag.methods.extend`) holds the
records of every build (each with ``build``, its index in the manifest's ``builds``), one index over all,
and in its manifest ``builds`` (each build's configuration and privacy report), ``privacy`` (all builds
composed: the guarantee for a person in several builds) and ``guarantee`` (both cases; checked on load).

While a build runs, ``.NAME.lock`` beside the folder is locked (``flock``; released when the process
ends, even by SIGKILL), so a second build to the same folder is refused.

Everything in the folder is DP output or public. What only the data owner may see — the input
fingerprint (exact document count and hash), the stage wall times (they depend on the number and
lengths of the documents and on cluster sizes), how many documents were truncated and the keyed
fingerprints of the input's documents (or privacy units), which ``--extend`` checks disjointness against — goes to
``NAME.owner.json`` *beside* the folder (:func:`~dpsynrag.corpus.format.owner_audit_path`), so that publishing the folder
publishes nothing else. The folder's and its files' modification and access times are all set to the
manifest's ``created`` time (the end of the build), so they do not tell how long the build took.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path

from dpsynrag.corpus.format import (
    FORMAT_VERSION,
    INDEX,
    INDEX_IDS,
    MANIFEST,
    TEXTS,
    check_privacy,
    check_records,
    verify_checksums,
)
from dpsynrag.errors import ConfigError, CorpusError
from dpsynrag.privacy.report import PrivacyReport
from dpsynrag.rag.answer import (
    DEFAULT_ANSWER_TOKENS,
    DEFAULT_SYSTEM_PROMPT,
    OWN_DATA_ANSWER_MODE,
    Answer,
    RAGAnswerer,
    check_answer_mode,
)
from dpsynrag.rag.index import VectorIndex

__all__ = ["FEW_KEPT_FRACTION", "SyntheticCorpus", "content_warning"]

FEW_KEPT_FRACTION = 0.25
"""A corpus "keeps few texts" when fewer than this share of its released texts passed the self-filter."""


def content_warning(num_kept: int, num_texts: int) -> str | None:
    """A warning when a corpus keeps no text or few texts, else None.

    Post-processing of released values only (the counts of released and kept synthetic texts; the
    self-filter is post-processing), so it may be shown to anyone. "Few": fewer than
    :data:`FEW_KEPT_FRACTION` of the released texts.

    Args:
        num_kept: texts kept (retrievable); num_texts: texts released.
    """
    hint = ("more documents, a larger --epsilon or longer texts (--T) help; the rejected texts are in "
            "texts.jsonl with kept: false")
    if num_kept == 0:
        return (f"no synthetic text was kept ({num_kept} of {num_texts}): the corpus is empty of content and a "
                f"query on it has no context to retrieve; {hint}.")
    if num_kept < FEW_KEPT_FRACTION * num_texts:
        return (f"only {num_kept} of {num_texts} synthetic texts were kept: most released texts were rejected "
                f"by the filters (the fluency filter, and the self-filter where it runs), so the corpus covers few topics; {hint}.")
    return None


class SyntheticCorpus:
    """A built corpus. Load with :meth:`load`; ask with :meth:`answer`.

    Attributes:
        path: the folder. manifest: the parsed manifest. records: every synthetic text (kept or not).
        texts: the kept texts, in index order (a record with ``copies`` m is indexed m times, so it
        appears m times). index_ids: their record ids (row i of the index is record ``index_ids[i]``).
        copies: record id -> its index rows (1 without ``index_copy_size``).

    Retrieval (:meth:`retrieve`, :meth:`answer`, :meth:`answerer`, and
    :class:`~dpsynrag.corpus.retrieval.CorpusRetriever`) returns ``top_k`` distinct texts by default; with
    ``repeat_copies=True`` it searches the index as built, so a text with m copies fills up to m of the
    ``top_k`` places (the evaluation harness answers so; :meth:`view`).
    """

    def __init__(self, path: Path, manifest: dict, records: list[dict], index: VectorIndex, index_ids: list[int]):
        self.path = path
        self.manifest = manifest
        self.records = records
        self.index = index
        by_id = {r["id"]: r for r in records}
        self.index_ids = list(index_ids)
        self.texts = [by_id[i]["text"] for i in index_ids]
        self.copies: dict[int, int] = {}
        for i in self.index_ids:
            self.copies[i] = self.copies.get(i, 0) + 1
        self._distinct: tuple[list[int], list[str], VectorIndex] | None = None
        self._answerer: RAGAnswerer | None = None

    def view(self, *, repeat_copies: bool = False) -> tuple[list[int], list[str], VectorIndex]:
        """What retrieval searches: ``(record ids, texts, index)``, row i of the index being text i.

        Default: each kept text once (the first of its index rows, in index order), so a top-k search
        returns k distinct texts when the corpus keeps k. ``repeat_copies=True``: the index as built
        (:attr:`index_ids`, :attr:`texts`, :attr:`index`), a text with ``copies`` m present m times.
        Post-processing of the released corpus: no privacy cost.
        """
        if repeat_copies or len(self.copies) == len(self.index_ids):
            return self.index_ids, self.texts, self.index
        if self._distinct is None:
            seen: set[int] = set()
            rows = [j for j, i in enumerate(self.index_ids) if not (i in seen or seen.add(i))]
            self._distinct = ([self.index_ids[j] for j in rows], [self.texts[j] for j in rows], self.index.subset(rows))
        return self._distinct

    @classmethod
    def load(cls, path: str | os.PathLike) -> "SyntheticCorpus":
        """Open a corpus folder, verifying it first: the checksums of the manifest and of every file,
        the records and index ids, and the privacy report's totals recomputed from its mechanisms
        (:func:`dpsynrag.privacy.verify.verify_report`).

        Raises:
            CorpusError: the folder or one of its files is missing, damaged or edited (a checksum or a
                recomputed total does not match), or its format is unknown.
        """
        p = Path(path)
        if p.is_file():
            raise CorpusError(f"{p} is a file, not a corpus folder (a folder made by `dpsynrag build`).")
        if not p.is_dir():
            raise CorpusError(f"corpus folder {p} does not exist (build one with `dpsynrag build`).")
        if not (p / MANIFEST).is_file():
            raise CorpusError(f"{p} is not a corpus folder: {MANIFEST} is missing (build one with `dpsynrag build`).")
        for name in (TEXTS, INDEX, INDEX_IDS):
            if not (p / name).is_file():
                raise CorpusError(f"corpus folder {p} is incomplete: {name} is missing. Rebuild it.")
        try:
            manifest = json.loads((p / MANIFEST).read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise CorpusError(f"corpus folder {p} has a corrupt file {MANIFEST}: {exc}") from None
        if not isinstance(manifest, dict):
            raise CorpusError(f"corpus folder {p} has a corrupt file {MANIFEST}: not a JSON object.")
        if manifest.get("format_version") != FORMAT_VERSION:
            raise CorpusError(
                f"corpus folder {p} has format_version {manifest.get('format_version')!r}; "
                f"this dpsynrag reads {FORMAT_VERSION} (format 1 had no checksums: rebuild the corpus)."
            )
        verify_checksums(p, manifest)
        name = TEXTS
        try:
            records = [json.loads(line) for line in (p / TEXTS).read_text(encoding="utf-8").splitlines() if line]
            name = INDEX_IDS
            index_ids = json.loads((p / INDEX_IDS).read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise CorpusError(f"corpus folder {p} has a corrupt file {name}: {exc}") from None
        check_records(p, manifest, records, index_ids)
        if "privacy" in manifest:
            check_privacy(p, manifest)
        try:
            index = VectorIndex.load(p / INDEX)
        except RuntimeError as exc:  # faiss reports a damaged or foreign file as RuntimeError
            raise CorpusError(f"corpus folder {p} has a corrupt file {INDEX} (not a readable index). Rebuild it.") from exc
        if len(index) != len(index_ids):
            raise CorpusError(f"corpus folder {p}: the index holds {len(index)} vectors for {len(index_ids)} ids.")
        return cls(p, manifest, records, index, index_ids)

    @property
    def content_warning(self) -> str | None:
        """A warning when the corpus keeps no or few texts (:func:`content_warning`), else None."""
        return content_warning(self.manifest.get("num_kept", len(set(self.index_ids))), len(self.records))

    @property
    def privacy_report(self) -> PrivacyReport:
        """The build's privacy report (the guarantee covers everything derived from this corpus)."""
        return PrivacyReport.from_dict(self.manifest["privacy"])

    def answerer(
        self, *, lm=None, embedder=None, top_k: int | None = None, system_prompt: str | None = None,
        max_new_tokens: int = DEFAULT_ANSWER_TOKENS, repeat_copies: bool = False, min_similarity: float | None = None,
        answer_mode: str | None = None,
    ) -> RAGAnswerer:
        """A :class:`RAGAnswerer` over the kept texts. Models default to the ones the corpus was built
        with (the embedder must be the index's: same dimension). ``repeat_copies``: search the index as
        built, each text once per index copy, instead of each text once (:meth:`view`). ``min_similarity``:
        the answerer's similarity floor (:class:`RAGAnswerer`; None: none). ``answer_mode``: ``"generate"``
        or ``"extractive"`` (the best-matching sentence of the retrieved texts; no language model is loaded);
        None: :attr:`default_answer_mode`."""
        answer_mode = check_answer_mode(answer_mode or self.default_answer_mode)
        if embedder is None:
            from dpsynrag.models import Embedder

            embedder = Embedder.load(self.manifest["embedder"]["spec"])
        if embedder.dim != self.index.dim:
            raise CorpusError(f"the embedder has dimension {embedder.dim}, the corpus index {self.index.dim}.")
        if lm is None and answer_mode == "generate":
            from dpsynrag.models import LanguageModel

            lm = LanguageModel.load(self.manifest["model"]["spec"])
        task = self.manifest["config"].get("task")
        if system_prompt is None:
            system_prompt = DEFAULT_SYSTEM_PROMPT
            if task:
                from dpsynrag.tasks import get_task

                system_prompt = get_task(task).answer_system_prompt
        top_k = top_k or self.default_top_k
        _, texts, index = self.view(repeat_copies=repeat_copies)
        return RAGAnswerer(
            lm, embedder, texts, top_k=top_k, system_prompt=system_prompt, max_new_tokens=max_new_tokens, index=index,
            min_similarity=min_similarity, answer_mode=answer_mode,
        )

    @property
    def own_data(self) -> bool:
        """Whether the corpus is a phrase release over the whole collection (``phrase_scope="collection"``, the
        ``own-cpu`` preset's build for a user's own records). Public: read from the manifest."""
        return (self.manifest.get("decoding") or {}).get("phrase_scope") == "collection"

    @property
    def default_answer_mode(self) -> str:
        """How the corpus answers when no ``answer_mode`` is asked: ``"generate"``, or for a phrase release over
        the whole collection (:attr:`own_data`) the mode measured best on own-data collections
        (:data:`~dpsynrag.rag.answer.OWN_DATA_ANSWER_MODE`, ``benchmarks/results/answer_mode.md``)."""
        return OWN_DATA_ANSWER_MODE if self.own_data else "generate"

    @property
    def default_top_k(self) -> int:
        """The corpus's retrieval depth when none is asked: 1 for a phrase release over the whole collection
        (``phrase_scope="collection"``: each text holds the released phrasings of one fact, and more texts
        give a small answering model other facts' figures to pick from: issue 41,
        ``benchmarks/results/owndata_collection.md``), else its task's ``rag_top_k``, else 10. Public: read from
        the manifest."""
        if self.own_data:
            return 1
        task = self.manifest["config"].get("task")
        if task:
            from dpsynrag.tasks import get_task

            return int(get_task(task).rag_top_k)
        return 10

    def retrieve(self, question: str, *, top_k: int = 10, repeat_copies: bool = False) -> list[str]:
        """The ``top_k`` kept synthetic texts most similar to ``question``, distinct unless
        ``repeat_copies`` (:meth:`view`); empty when none is kept."""
        return self._default_answerer(top_k=top_k, repeat_copies=repeat_copies).retrieve([question])[0][:top_k]

    def answer(self, question: str, *, top_k: int | None = None, repeat_copies: bool = False) -> str:
        """Answer one question from the corpus (its :attr:`default_answer_mode`), with the corpus's model
        and embedder.

        Raises:
            CorpusError: the corpus keeps no text (see :meth:`answer_many`).
        """
        return self.answer_many([question], top_k=top_k, repeat_copies=repeat_copies)[0].text

    def answer_many(
        self, questions: Sequence[str], *, top_k: int | None = None, progress: bool = False, lm=None,
        embedder=None, max_new_tokens: int | None = None, repeat_copies: bool = False,
        min_similarity: float | None = None, answer_mode: str | None = None,
    ) -> list[Answer]:
        """Answers with their retrieved context, one per question.

        ``lm``: the answering model (a :class:`~dpsynrag.models.LanguageModel` or an endpoint,
        :class:`~dpsynrag.models.endpoint.OpenAIChatModel`); None: the model the corpus was built with.
        ``embedder``: the retrieval embedder (an :class:`~dpsynrag.models.Embedder` of the index's
        dimension); None: the corpus's. ``max_new_tokens``: the greedy answer length (default
        :data:`~dpsynrag.rag.answer.DEFAULT_ANSWER_TOKENS`). ``answer_mode``: ``"generate"`` or ``"extractive"``
        (None: :attr:`default_answer_mode`).
        ``repeat_copies``: the context holds a text once per index copy (:meth:`view`); default: ``top_k``
        distinct texts. ``min_similarity``: a public similarity floor (:class:`RAGAnswerer`): a question no
        retrieved text reaches is answered :data:`~dpsynrag.rag.answer.NOT_COVERED` (``Answer.covered`` False).

        Raises:
            CorpusError: the corpus keeps no text: there is no context to retrieve, and an answer would
                come from the model's prior alone (checked before any model is loaded). For that
                baseline on purpose use :meth:`answerer` (a :class:`RAGAnswerer` without texts is
                Non-RAG).
            ConfigError: ``top_k`` or ``max_new_tokens`` < 1.
            CorpusError: ``embedder`` has another dimension than the index.
        """
        if not self.texts:
            raise CorpusError(
                f"corpus {self.path} keeps no synthetic text ({len(self.records)} released, 0 kept): there is no "
                "context to retrieve, so an answer would come from the model alone. Rebuild it (more documents, "
                "a larger --epsilon, longer texts --T)."
            )
        if top_k is not None and (isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 1):
            raise ConfigError(f"`top_k` (--top-k) must be an integer >= 1. Found {top_k!r}.")
        if embedder is not None or max_new_tokens is not None or min_similarity is not None or answer_mode is not None:
            from dpsynrag.checks import check_int

            length = {} if max_new_tokens is None else {"max_new_tokens": check_int("max_new_tokens", max_new_tokens)}
            answerer = self.answerer(lm=lm, embedder=embedder, top_k=top_k, repeat_copies=repeat_copies,
                                     min_similarity=min_similarity, answer_mode=answer_mode, **length)
        else:
            answerer = self._default_answerer(top_k=top_k, lm=lm, repeat_copies=repeat_copies)
        return answerer.answer(questions, progress=progress)

    def _default_answerer(self, *, top_k: int | None, lm=None, repeat_copies: bool = False) -> RAGAnswerer:
        if self._answerer is None or (lm is not None and self._answerer.lm is not lm):
            self._answerer = self.answerer(lm=lm)
        a = self._answerer
        if (top_k is not None and top_k != a.top_k) or repeat_copies:
            _, texts, index = self.view(repeat_copies=repeat_copies)
            return RAGAnswerer(
                a.lm, a.embedder, texts, top_k=top_k or a.top_k, system_prompt=a.system_prompt,
                max_new_tokens=a.max_new_tokens, index=index, answer_mode=a.answer_mode,
            )
        return a
