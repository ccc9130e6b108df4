"""The corpora and models a query service holds (:class:`CorpusService`; see :mod:`dpsynrag.serve`):
batched retrieval, answers, privacy reports; read-only post-processing of released corpora."""

import threading
import time
from collections import defaultdict
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from dpsynrag.errors import ConfigError, CorpusError
from dpsynrag.rag.answer import check_questions
from dpsynrag.corpus.retrieval import CorpusRetriever, Hit as SearchHit
from dpsynrag.serve.batching import BatchPolicy, MicroBatcher


@dataclass(frozen=True)
class _Search:
    retriever: CorpusRetriever
    question: str
    top_k: int
    repeat_copies: bool


def _search_batch(searches: list[_Search]) -> list[list[SearchHit]]:
    """Embed the questions of ``searches`` (one embedder) in one forward pass, then search each in its corpus."""
    vectors = searches[0].retriever.encode([s.question for s in searches], batch_size=len(searches))
    groups: dict[tuple, list[int]] = defaultdict(list)
    for i, s in enumerate(searches):
        groups[(id(s.retriever), s.top_k, s.repeat_copies)].append(i)
    out: list[list[SearchHit]] = [[] for _ in searches]
    for rows in groups.values():
        first = searches[rows[0]]
        hits = first.retriever.search_vectors(vectors[rows], first.top_k, repeat_copies=first.repeat_copies)
        for i, h in zip(rows, hits):
            out[i] = h
    return out


class CorpusService:
    """The served corpora and their models, loaded once.

    Args:
        retrievers: name -> :class:`~dpsynrag.corpus.retrieval.CorpusRetriever`.
        lms: name -> answering model (a :class:`~dpsynrag.models.LanguageModel` or an
            :class:`~dpsynrag.models.endpoint.OpenAIChatModel`); empty: retrieval only (``/v1/query`` -> 501).
        batching: how concurrent questions are micro-batched: one :class:`MicroBatcher` per embedding model
            (corpora sharing a model share its batches).
    """

    def __init__(self, retrievers: dict[str, CorpusRetriever], lms: dict[str, Any] | None = None, *,
                 batching: BatchPolicy = BatchPolicy()):
        if not retrievers:
            raise ConfigError("give at least one corpus folder to serve (CORPUS).")
        self.retrievers = dict(retrievers)
        self.batching = batching
        self._batchers: dict[int, MicroBatcher] = {}
        for r in self.retrievers.values():
            if id(r.embedder) not in self._batchers:
                self._batchers[id(r.embedder)] = MicroBatcher(_search_batch, batching,
                                                              name=f"dpsynrag-batcher-{len(self._batchers)}")
        self.lms = dict(lms or {})
        self._answerers = {n: r.corpus.answerer(lm=self.lms[n], embedder=r.embedder) for n, r in self.retrievers.items() if n in self.lms}
        from dpsynrag.models.endpoint import OpenAIChatModel

        # a local model runs one generation at a time; an endpoint takes concurrent requests (it batches them)
        self._lm_locks = {id(lm): None if isinstance(lm, OpenAIChatModel) else threading.Lock() for lm in self.lms.values()}

    @classmethod
    def load(cls, corpus_dirs, *, lm=None, embedder=None, answer_endpoint: Optional[str] = None,
             answer_model: Optional[str] = None, answer_api_key: Optional[str] = None,
             retrieval_only: bool = False, batching: BatchPolicy = BatchPolicy()) -> "CorpusService":
        """Open corpus folders and load each distinct model once.

        Args:
            corpus_dirs: corpus folders; each is served under its folder name.
            lm, embedder: models to use for every corpus (tests); else each corpus's own, loaded once per spec.
            answer_endpoint, answer_model, answer_api_key: answer with an OpenAI-compatible endpoint instead.
            retrieval_only: load no answering model.
            batching: see the class.

        Raises:
            CorpusError: a folder is not a corpus, or two share a name.
            ConfigError: an endpoint without a model name, or both ``retrieval_only`` and an endpoint.
        """
        from dpsynrag.corpus import SyntheticCorpus

        if (answer_endpoint is None) != (answer_model is None):
            raise ConfigError("--answer-endpoint and --answer-model go together: give both or neither.")
        if retrieval_only and answer_endpoint is not None:
            raise ConfigError("--retrieval-only answers nothing: drop --answer-endpoint or --retrieval-only.")
        corpora = {}
        for d in corpus_dirs:
            corpus = SyntheticCorpus.load(Path(d))
            name = corpus.path.resolve().name
            if name in corpora:
                raise CorpusError(f"two corpus folders are named {name!r}: each is served under its folder name; rename one.")
            corpora[name] = corpus
        embedders: dict[Any, Any] = {}
        locks: dict[int, threading.Lock] = {}
        lms: dict[Any, Any] = {}
        if answer_endpoint is not None:
            from dpsynrag.models.endpoint import OpenAIChatModel

            lm = OpenAIChatModel(answer_endpoint, answer_model, api_key=answer_api_key)
        retrievers, answer_lms = {}, {}
        for name, corpus in corpora.items():
            spec = corpus.manifest["embedder"].get("spec")
            if spec not in embedders:
                if embedder is None:
                    from dpsynrag.models import Embedder

                    embedders[spec] = Embedder.load(spec)
                else:
                    embedders[spec] = embedder
            model = embedders[spec]
            retrievers[name] = CorpusRetriever(corpus, model, lock=locks.setdefault(id(model), threading.Lock()), name=name)
            if retrieval_only:
                continue
            if lm is not None:
                answer_lms[name] = lm
            else:
                lm_spec = corpus.manifest["model"].get("spec")
                if lm_spec not in lms:
                    from dpsynrag.models import LanguageModel

                    lms[lm_spec] = LanguageModel.load(lm_spec)
                answer_lms[name] = lms[lm_spec]
        return cls(retrievers, answer_lms, batching=batching)

    def retriever(self, name: Optional[str]) -> CorpusRetriever:
        """The corpus ``name`` (None: the only one served). Raises KeyError (-> 404) or LookupError (-> 422)."""
        if name is None:
            if len(self.retrievers) > 1:
                raise LookupError(f"{len(self.retrievers)} corpora are served: name one in `corpus` (see GET /v1/corpora).")
            return next(iter(self.retrievers.values()))
        return self.retrievers[name]

    def info(self, name: str) -> dict:
        """Public facts of a served corpus (manifest fields and the guarantee; post-processing only)."""
        r = self.retrievers[name]
        m, report = r.corpus.manifest, r.corpus.privacy_report
        return {
            "name": name, "method": m.get("method"), "num_texts": m.get("num_texts"), "num_kept": m.get("num_kept"),
            "epsilon": report.epsilon, "epsilon_tight": report.epsilon_tight, "delta": report.delta,
            "embedder": m.get("embedder", {}).get("name"), "answer_model": getattr(self.lms.get(name), "name", None),
            "default_top_k": r.default_top_k, "created": m.get("created"),
            "not_for_release": bool(m.get("not_for_release")), "content_warning": r.corpus.content_warning,
        }

    def submit_search(self, name: str, question: str, top_k: Optional[int] = None, *,
                      repeat_copies: bool = False) -> Future:
        """Queue a search of corpus ``name`` for its micro-batch (see the module docstring).

        Returns:
            A future of the hits (:class:`~dpsynrag.corpus.retrieval.Hit`, best first), as
            ``self.retrievers[name].search([question], top_k, repeat_copies=repeat_copies)[0]`` up to the
            float rounding of a batched forward pass. Cancel it to drop a search no batch has taken yet.

        Raises:
            KeyError: no such corpus. DataError: a blank question. ConfigError: bad ``top_k``.
            ServiceUnavailable: the queue is full or the service is closing.
        """
        r = self.retrievers[name]
        question = check_questions([question])[0]
        return self._batchers[id(r.embedder)].submit(_Search(r, question, r.resolve_top_k(top_k), repeat_copies))

    def answer(self, name: str, question: str, top_k: Optional[int], max_tokens: int, *,
               repeat_copies: bool = False, timeout: Optional[float] = None) -> tuple[str, list]:
        """A greedy answer from the top-k texts of corpus ``name``, and those texts (as :class:`Hit`;
        distinct unless ``repeat_copies``, see :meth:`~dpsynrag.corpus.retrieval.CorpusRetriever.search`).

        Args:
            timeout: seconds to wait for the retrieval and then for the answering model (a local model
                answers one request at a time); None: no limit. The generation itself is not interrupted.

        Raises:
            NotImplementedError: no answering model is loaded (--retrieval-only).
            CorpusError: the corpus keeps no text (an answer would come from the model alone).
            EndpointError: the answering endpoint failed.
            ServiceUnavailable: the retrieval queue is full or the service is closing.
            TimeoutError: ``timeout`` passed before the answer could start.
        """
        r = self.retrievers[name]
        if name not in self.lms:
            raise NotImplementedError("this service runs --retrieval-only: /v1/query is off; use /v1/retrieve.")
        if not len(r):
            raise CorpusError(f"corpus {name!r} keeps no synthetic text: there is no context, so an answer would come "
                              "from the model alone.")
        deadline = None if timeout is None else time.monotonic() + timeout
        future = self.submit_search(name, question, top_k, repeat_copies=repeat_copies)
        try:
            hits = future.result(timeout)
        except FutureTimeout:
            future.cancel()
            raise TimeoutError("no retrieval within the request timeout.") from None
        lm, answerer = self.lms[name], self._answerers[name]
        prompt = answerer.prompt(question, [h.text for h in hits])
        lock = self._lm_locks[id(lm)]
        if lock is not None and not lock.acquire(timeout=-1 if deadline is None else max(0.0, deadline - time.monotonic())):
            raise TimeoutError("the answering model stayed busy past the request timeout.")
        try:
            text = lm.generate_greedy([prompt], max_new_tokens=max_tokens)[0]
        finally:
            if lock is not None:
                lock.release()
        return text.strip(), hits

    def queued(self) -> int:
        """Questions waiting for a batch, over every embedder (not counting the batches running)."""
        return sum(len(b) for b in self._batchers.values())

    def close(self, timeout: Optional[float] = None) -> bool:
        """Refuse new searches and finish the queued ones (graceful shutdown).

        Args:
            timeout: seconds to wait for each embedder's queue to drain (None: as long as it takes).

        Returns:
            True when every queue drained in time.
        """
        return all([b.close(timeout) for b in self._batchers.values()])


def read_api_keys(path: Path) -> list[str]:
    """API keys from a file, one per line (blank lines and ``#`` comments ignored).

    Raises:
        ConfigError: the file cannot be read or holds no key (named by --api-key-file).
    """
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read --api-key-file {path}: {getattr(exc, 'strerror', None) or type(exc).__name__}.") from None
    keys = [s.strip() for s in lines if s.strip() and not s.strip().startswith("#")]
    if not keys:
        raise ConfigError(f"--api-key-file {path} holds no key (one key per line).")
    return keys
