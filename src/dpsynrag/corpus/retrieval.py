"""Scored top-k search over a synthetic corpus: the retrieval behind ``dpsynrag serve`` and the LangChain
and LlamaIndex retrievers (:mod:`dpsynrag.integrations`).

Post-processing of the released corpus (METHOD.md §4): any number of searches, no privacy cost; the
private documents are never opened.

Every interface (this module, ``dpsynrag query``, ``dpsynrag serve``, the LangChain and LlamaIndex
retrievers) returns ``top_k`` *distinct* texts by default, each hit carrying its text's index copies
(``copies``; 1 without ``index_copy_size``). ``repeat_copies=True`` (``--repeat-copies``, JSON
``"repeat_copies": true``) searches the index as built instead: a text with m copies fills up to m of the
``top_k`` places, the context the evaluation harness gives its answerer
(:meth:`~dpsynrag.corpus.SyntheticCorpus.view`).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from dpsynrag.errors import ConfigError, CorpusError, EndpointError
from dpsynrag.rag.answer import check_questions


@dataclass(frozen=True)
class Hit:
    """One retrieved synthetic text.

    Attributes:
        id: its record id in ``texts.jsonl``. text: the text. score: cosine similarity to the question,
        in [-1, 1] (inner product of unit-norm embeddings). metadata: the record's other released fields
        (``keyword``, ``noisy_count``, ...; never ``kept``, always true here) and ``copies``, the text's
        rows in the index (>= 1).
    """

    id: int
    text: str
    score: float
    metadata: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"id": self.id, "text": self.text, "score": self.score, **self.metadata}


def default_top_k(corpus) -> int:
    """The corpus's retrieval depth (:attr:`SyntheticCorpus.default_top_k
    <dpsynrag.corpus.reader.SyntheticCorpus.default_top_k>`)."""
    return corpus.default_top_k


class CorpusRetriever:
    """Top-k kept texts of one corpus, with scores. Thread-safe.

    Args:
        corpus: a :class:`~dpsynrag.corpus.SyntheticCorpus`.
        embedder: the corpus's embedder (same dimension as its index).
        lock: held while embedding and searching (share one lock among retrievers sharing an embedder:
            tokenizers and models are not safe to call from several threads at once); None: a new lock.
        name: shown in errors and results (default: the folder name).

    Raises:
        CorpusError: the embedder's dimension is not the index's.
    """

    def __init__(self, corpus, embedder, *, lock: threading.Lock | None = None, name: str | None = None):
        if embedder.dim != corpus.index.dim:
            raise CorpusError(f"the embedder has dimension {embedder.dim}, the corpus index {corpus.index.dim}.")
        self.corpus, self.embedder = corpus, embedder
        self.name = name or corpus.path.name
        self.lock = lock or threading.Lock()
        by_id = {r["id"]: r for r in corpus.records}
        self._meta = {i: {**{k: v for k, v in by_id[i].items() if k not in ("id", "text", "kept")}, "copies": m}
                      for i, m in corpus.copies.items()}
        corpus.view()  # the distinct index, made once here rather than by the first concurrent searches
        self.default_top_k = default_top_k(corpus)

    @classmethod
    def open(cls, corpus_dir: str | os.PathLike, *, embedder=None) -> "CorpusRetriever":
        """Load a corpus folder and (unless given) the embedder it was built with."""
        from dpsynrag.corpus.reader import SyntheticCorpus

        corpus = SyntheticCorpus.load(corpus_dir)
        if embedder is None:
            from dpsynrag.models import Embedder

            embedder = Embedder.load(corpus.manifest["embedder"]["spec"])
        return cls(corpus, embedder)

    def __len__(self) -> int:
        """The number of distinct kept texts."""
        return len(self.corpus.copies)

    def search(self, questions: Sequence[str], top_k: int | None = None, *, repeat_copies: bool = False) -> list[list[Hit]]:
        """The ``top_k`` kept texts most similar to each question, best first.

        Args:
            questions: non-empty strings.
            top_k: >= 1 (None: :attr:`default_top_k`); at most ``len(self)`` hits are returned (with
                ``repeat_copies``: at most the number of index rows).
            repeat_copies: a text with m index copies may fill up to m places (the index as built);
                default: each text at most once.

        Returns:
            One list of :class:`Hit` per question (empty lists when the corpus keeps no text).

        Raises:
            ConfigError: bad ``top_k``. DataError: a blank or non-string question.
        """
        questions = check_questions(questions)
        top_k = self.resolve_top_k(top_k)
        if not len(self) or not questions:
            return [[] for _ in questions]
        return self.search_vectors(self.encode(questions), top_k, repeat_copies=repeat_copies)

    def encode(self, questions: Sequence[str], *, batch_size: int = 1) -> np.ndarray:
        """The questions' unit-norm embeddings, float32 ``[len(questions), dim]``, under :attr:`lock`.

        Args:
            questions: non-empty strings.
            batch_size: questions per forward pass (>= 1). 1, the default, calls ``embedder.encode(questions)``
                as :meth:`search` does: an :class:`~dpsynrag.models.Embedder` then embeds each question alone,
                bit for bit the same whatever else is asked. A larger batch is faster, but the model pads the
                batch to its longest question and padding changes float rounding: cosine scores then differ
                from the unbatched ones by float32 rounding only. Tolerance: 1e-5 absolute (measured: at most
                5.1e-7 with all-MiniLM-L6-v2 on the 100 questions of benchmarks/bench_serve.py; tested in
                tests/test_serve.py), so rankings are equal except between texts whose scores are that close.
                Questions are public (METHOD.md §0: everything after the build is post-processing), so
                batching them is allowed; private documents are never batched (:meth:`Embedder.encode
                <dpsynrag.models.Embedder.encode>`).

        Raises:
            DataError: a blank or non-string question. ConfigError: bad ``batch_size``.
        """
        questions = check_questions(questions)
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise ConfigError(f"`batch_size` must be an integer >= 1. Found {batch_size!r}.")
        with self.lock:  # batch_size only when batching: an embedder with ``encode(texts)`` alone still serves unbatched
            return self.embedder.encode(questions, batch_size=batch_size) if batch_size > 1 else self.embedder.encode(questions)

    def search_vectors(self, vectors: np.ndarray, top_k: int | None = None, *,
                       repeat_copies: bool = False) -> list[list[Hit]]:
        """As :meth:`search`, from question embeddings already made (:meth:`encode`).

        Args:
            vectors: float32 ``[n, dim]``, unit-norm rows.
            top_k, repeat_copies: as :meth:`search`.

        Returns:
            One list of :class:`Hit` per row, best first.

        Raises:
            ConfigError: bad ``top_k``, or ``vectors`` not of shape ``[n, dim]``.
        """
        top_k = self.resolve_top_k(top_k)
        vectors = np.asarray(vectors, dtype=np.float32)
        if vectors.ndim != 2 or vectors.shape[1] != self.embedder.dim:
            raise ConfigError(f"`vectors` must have shape [n, {self.embedder.dim}]. Found {list(vectors.shape)}.")
        if not len(self) or not len(vectors):
            return [[] for _ in range(len(vectors))]
        ids_of_rows, texts, index = self.corpus.view(repeat_copies=repeat_copies)
        with self.lock:
            scores, rows = index.search(vectors, top_k)
        return [
            [Hit(ids_of_rows[j], texts[j], float(s), dict(self._meta[ids_of_rows[j]])) for s, j in zip(srow, jrow) if j >= 0]
            for srow, jrow in zip(scores.tolist(), rows.tolist())
        ]

    def resolve_top_k(self, top_k: int | None) -> int:
        """``top_k``, or :attr:`default_top_k` when None. Raises ConfigError: not an integer >= 1."""
        top_k = self.default_top_k if top_k is None else top_k
        if isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 1:
            raise ConfigError(f"`top_k` must be an integer >= 1. Found {top_k!r}.")
        return top_k


class RemoteRetriever:
    """The same search through a running ``dpsynrag serve`` (``POST /v1/retrieve``), and its answers
    (``POST /v1/query``, :meth:`answer`). Thread-safe.

    Args:
        base_url: the service root, e.g. ``http://127.0.0.1:8000``.
        corpus: the served corpus to search (None: the only one served).
        api_key: sent as ``Authorization: Bearer KEY`` (None: none).
        timeout: seconds per request.

    Raises:
        ConfigError: ``base_url`` is not an http(s) URL.
    """

    def __init__(self, base_url: str, *, corpus: str | None = None, api_key: str | None = None, timeout: float = 30.0):
        import httpx

        if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
            raise ConfigError(f"`base_url` must be an http:// or https:// URL. Found {base_url!r}.")
        self.base_url, self.corpus = base_url.rstrip("/"), corpus
        self.name = corpus or self.base_url
        self._client = httpx.Client(timeout=timeout, headers={"Authorization": f"Bearer {api_key}"} if api_key else {})
        self._errors = (httpx.TransportError,)

    def close(self) -> None:
        self._client.close()

    def search(self, questions: Sequence[str], top_k: int | None = None, *, repeat_copies: bool = False) -> list[list[Hit]]:
        """As :meth:`CorpusRetriever.search`, one request per question.

        Raises:
            EndpointError: the service cannot be reached or answers with an error status (its message given).
        """
        return [[self._hit(h) for h in self._post("/v1/retrieve", self._body(q, top_k, repeat_copies))["results"]]
                for q in check_questions(questions)]

    def answer(self, question: str, top_k: int | None = None, *, max_tokens: int | None = None,
               repeat_copies: bool = False) -> tuple[str, list[Hit], str]:
        """A greedy answer by the service's answering model from the ``top_k`` texts it retrieves
        (``POST /v1/query``; the same search as :meth:`search`).

        Args:
            question: a non-empty string. top_k: >= 1 (None: the corpus's default).
            max_tokens: most answer tokens (None: the service's default, 64 unless configured).
            repeat_copies: as :meth:`search`.

        Returns:
            ``(answer, hits, model)``: the answer text, the texts it was given (best first) and the name of
            the model that answered.

        Raises:
            EndpointError: the service cannot be reached or answers with an error status, e.g. HTTP 501 from
                a ``dpsynrag serve --retrieval-only`` (it retrieves but answers nothing) or 409 for a corpus
                that keeps no text (the service's message given).
        """
        body = self._body(check_questions([question])[0], top_k, repeat_copies)
        reply = self._post("/v1/query", {**body, **({} if max_tokens is None else {"max_tokens": max_tokens})})
        return reply["answer"], [self._hit(h) for h in reply["contexts"]], reply["model"]

    def _body(self, question: str, top_k: int | None, repeat_copies: bool) -> dict:
        return {"question": question, **({"corpus": self.corpus} if self.corpus else {}),
                **({"top_k": top_k} if top_k is not None else {}), **({"repeat_copies": True} if repeat_copies else {})}

    @staticmethod
    def _hit(h: dict) -> Hit:
        h = dict(h)
        return Hit(h.pop("id"), h.pop("text"), float(h.pop("score")), h)

    def _post(self, route: str, body: dict) -> dict:
        """The JSON reply of ``POST route`` (EndpointError when unreachable or an error status)."""
        try:
            resp = self._client.post(f"{self.base_url}{route}", json=body)
        except self._errors as exc:
            raise EndpointError(f"cannot reach the dpsynrag service {self.base_url}: {type(exc).__name__}.") from None
        if resp.status_code >= 400:
            try:
                detail = resp.json().get("detail")
            except ValueError:
                detail = resp.reason_phrase
            raise EndpointError(f"the dpsynrag service {self.base_url} answered HTTP {resp.status_code}: {detail}")
        return resp.json()
