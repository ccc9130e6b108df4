"""``dpsynrag serve``: an HTTP query service over synthetic corpora (FastAPI + uvicorn; ``pip install
dpsynrag[serve]``).

Endpoints: ``POST /v1/retrieve`` (question, top_k -> top_k distinct kept synthetic texts with cosine
scores and their index ``copies``; ``"repeat_copies": true``: a text once per index copy, as
:mod:`dpsynrag.retrieval`), ``POST /v1/query`` (-> a greedy answer and the texts it was given),
``GET /v1/corpora``, ``GET /v1/corpora/{name}/report`` (the privacy report), ``GET /healthz``; the
OpenAPI page is ``/docs``: Swagger UI served from the files of the ``swagger-ui-bundle-v2`` package
(``/docs/assets``), so it works offline (no ReDoc page: it would load from a CDN).

Read-only post-processing (METHOD.md §4): the service opens corpus folders only — never private
documents, never the owner-only ``NAME.owner.json`` — and spends no privacy budget, so it answers any
number of questions. DP-RAG, which spends budget per query over the private documents, is not served.
Models are loaded once at start; a lock per local model serialises calls into it (tokenizers and the
generation engine are not thread-safe), so concurrent requests get the answers they would get alone; an
OpenAI-compatible answering endpoint (``--answer-endpoint``) gets concurrent requests.
Request bodies, questions, ``top_k`` and answer lengths are bounded (:class:`ServiceLimits`; 4xx
errors name the field and never echo the request). Error messages and logs never quote corpus texts.

Serving at load: concurrent questions are micro-batched (:class:`MicroBatcher`, one per embedding model):
the first waiting question opens a batch, which takes whatever else arrives within ``max_wait_ms`` (or
until ``max_batch`` questions), and the batch is embedded in one forward pass; each question is then
searched in its own corpus with its own ``top_k``. Questions are public (METHOD.md §0: retrieval is
post-processing of the released corpus), so nothing asks the query side to be batch-invariant; only the
build's private computations are (:meth:`~dpsynrag.models.Embedder.encode`). A batched question's
cosine scores differ from its scores alone by float32 rounding only (the padded forward pass; under 1e-5
absolute, see :meth:`~dpsynrag.retrieval.CorpusRetriever.encode`), so its ranking is the same except
between texts whose scores are that close. ``max_batch=1`` is the unbatched service (one question per
forward pass). The queue of waiting questions is bounded (``queue_size``): a question beyond it gets
503 with ``Retry-After``; a request not answered within ``request_timeout_s`` gets 504. On SIGTERM or
Ctrl-C uvicorn stops accepting connections and the requests in flight are answered before the process
exits (the batchers drain their queues; uvicorn gives them ``request_timeout_s`` plus 5 s); keep-alive
connections idle at that moment are closed, so a client that sends on one just then sees a connection
error and should retry elsewhere.
"""

import hmac
import ipaddress
import math
import os
import threading
import time
from collections import defaultdict, deque
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from pydantic import BaseModel, ConfigDict, Field, field_validator

from dpsynrag.errors import ConfigError, CorpusError, DataError, DpsynragError, EndpointError
from dpsynrag.rag import check_questions
from dpsynrag.retrieval import CorpusRetriever, Hit as SearchHit

__all__ = ["BatchPolicy", "CorpusService", "MicroBatcher", "ServiceLimits", "ServiceUnavailable", "create_app",
           "read_api_keys", "serve_command"]

SHUTDOWN_GRACE_S = 5.0
"""Seconds uvicorn waits for requests in flight beyond ``request_timeout_s`` when shutting down."""


@dataclass(frozen=True)
class ServiceLimits:
    """Bounds on every request (a request outside them gets a 4xx answer before any model runs).

    Attributes:
        max_question_chars: longest question, in characters (422 beyond).
        max_top_k: largest ``top_k`` (422 beyond).
        max_answer_tokens: largest ``max_tokens`` of ``/v1/query`` (422 beyond); default_answer_tokens: when not given.
        max_body_bytes: largest request body, in bytes (413 beyond; 411 without a Content-Length).
        request_timeout_s: seconds a ``/v1/retrieve`` or ``/v1/query`` request may wait for its retrieval (and
            a ``/v1/query`` for the answering model) before it gets 504 (> 0). An answer already being
            generated is not interrupted.
    """

    max_question_chars: int = 2000
    max_top_k: int = 50
    max_answer_tokens: int = 256
    default_answer_tokens: int = 64
    max_body_bytes: int = 16384
    request_timeout_s: float = 30.0

    def __post_init__(self):
        for name in ("max_question_chars", "max_top_k", "max_answer_tokens", "default_answer_tokens", "max_body_bytes"):
            if getattr(self, name) < 1:
                raise ConfigError(f"`{name}` (--{name.replace('_', '-')}) must be >= 1. Found {getattr(self, name)}.")
        if self.default_answer_tokens > self.max_answer_tokens:
            raise ConfigError("`default_answer_tokens` must be <= `max_answer_tokens`.")
        if not self.request_timeout_s > 0 or not math.isfinite(self.request_timeout_s):
            raise ConfigError(f"`request_timeout_s` (--request-timeout) must be a finite number > 0. Found {self.request_timeout_s}.")


@dataclass(frozen=True)
class BatchPolicy:
    """How concurrent questions are micro-batched (public settings: questions are not private).

    Attributes:
        max_batch: most questions per forward pass of the embedder (>= 1; 1: one question per pass, the
            unbatched service).
        max_wait_ms: longest a batch waits for more questions after its first one arrived, in
            milliseconds (>= 0); a batch closes earlier when ``max_batch`` questions wait.
        queue_size: most questions waiting for a batch (>= 1); one more gets 503 with ``Retry-After``.
    """

    max_batch: int = 32
    max_wait_ms: float = 5.0
    queue_size: int = 256

    def __post_init__(self):
        for name in ("max_batch", "queue_size"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"`{name}` (--{name.replace('_', '-')}) must be an integer >= 1. Found {value!r}.")
        if not 0 <= self.max_wait_ms < math.inf:
            raise ConfigError(f"`max_wait_ms` (--max-wait-ms) must be a finite number >= 0. Found {self.max_wait_ms}.")


class ServiceUnavailable(DpsynragError):
    """The service cannot take a request now (its queue is full, or it is shutting down): HTTP 503.

    Attributes:
        retry_after: whole seconds after which a retry may succeed (>= 1; the ``Retry-After`` header).
    """

    def __init__(self, message: str, retry_after: int):
        super().__init__(message)
        self.retry_after = retry_after


class MicroBatcher:
    """Calls ``fn`` on batches of items submitted concurrently, from one worker thread.

    A batch opens with the oldest waiting item and closes when ``max_batch`` items wait or ``max_wait_ms``
    after that item was submitted, whichever comes first (at once when the worker was busy longer than
    that). Items wait in a bounded FIFO queue; the worker starts on the first :meth:`submit`.

    Args:
        fn: ``items -> results``, one result per item, in order. When it raises, every item of the batch
            gets the exception.
        policy: batch size, wait and queue bound.
        name: the worker thread's name.

    Raises:
        ConfigError: a bad policy (from :class:`BatchPolicy`).
    """

    def __init__(self, fn: Callable[[list], Sequence], policy: BatchPolicy = BatchPolicy(), *, name: str = "batcher"):
        self.fn, self.policy, self.name = fn, policy, name
        self._queue: deque[tuple[float, Any, Future]] = deque()
        self._cond = threading.Condition()
        self._closed = False
        self._thread: threading.Thread | None = None
        self._batch_s = 0.0  # exponential moving average of a batch's seconds (for Retry-After)

    def __len__(self) -> int:
        """Items waiting for a batch (not counting the batch running, nor cancelled items)."""
        with self._cond:
            return sum(not future.cancelled() for _, _, future in self._queue)

    def retry_after(self) -> int:
        """Whole seconds to drain the queue at the recent pace, at least 1 (``Retry-After``)."""
        batches = math.ceil(len(self._queue) / self.policy.max_batch) + 1
        return max(1, math.ceil(batches * self._batch_s))

    def submit(self, item) -> Future:
        """Queue ``item``; the future gets ``fn``'s result for it (or its exception).

        Cancel the future (``Future.cancel``) to drop an item that no batch has taken yet.

        Raises:
            ServiceUnavailable: the queue holds ``queue_size`` items, or :meth:`close` was called.
        """
        with self._cond:
            if self._closed:
                raise ServiceUnavailable("the service is shutting down.", retry_after=self.retry_after())
            if len(self._queue) >= self.policy.queue_size:  # cancelled items (timed out) free their places
                self._queue = deque(entry for entry in self._queue if not entry[2].cancelled())
            if len(self._queue) >= self.policy.queue_size:
                raise ServiceUnavailable(f"the service is at capacity ({self.policy.queue_size} questions wait); "
                                         "retry later.", retry_after=self.retry_after())
            future: Future = Future()
            self._queue.append((time.monotonic(), item, future))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
                self._thread.start()
            self._cond.notify()
        return future

    def close(self, timeout: float | None = None) -> bool:
        """Refuse new items, finish every queued one, stop the worker.

        Args:
            timeout: seconds to wait for the queue to drain (None: as long as it takes).

        Returns:
            True when the worker has finished (every queued item answered) within ``timeout``.
        """
        with self._cond:
            self._closed = True
            self._cond.notify_all()
            thread = self._thread
        if thread is None:
            return True
        thread.join(timeout)
        return not thread.is_alive()

    def _next_batch(self) -> list[tuple[Any, Future]] | None:
        """The next batch, up to ``max_batch`` items not cancelled (None: closed and drained)."""
        with self._cond:
            while not self._queue and not self._closed:
                self._cond.wait()
            if not self._queue:
                return None
            deadline = self._queue[0][0] + self.policy.max_wait_ms / 1000
            while len(self._queue) < self.policy.max_batch and not self._closed:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._cond.wait(left)
            batch = []
            while self._queue and len(batch) < self.policy.max_batch:
                _, item, future = self._queue.popleft()
                if future.set_running_or_notify_cancel():  # False: cancelled (timed out) while waiting
                    batch.append((item, future))
        return batch

    def _run(self) -> None:
        while (batch := self._next_batch()) is not None:
            if not batch:
                continue
            start = time.monotonic()
            try:
                results = list(self.fn([item for item, _ in batch]))
                if len(results) != len(batch):
                    raise RuntimeError(f"{self.name}: {len(results)} results for {len(batch)} items.")
            except Exception as exc:  # noqa: BLE001 - handed to every caller of the batch
                for _, future in batch:
                    future.set_exception(exc)
            else:
                for (_, future), result in zip(batch, results):
                    future.set_result(result)
            elapsed = time.monotonic() - start
            self._batch_s = 0.8 * self._batch_s + 0.2 * elapsed if self._batch_s else elapsed


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
        retrievers: name -> :class:`~dpsynrag.retrieval.CorpusRetriever`.
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
            A future of the hits (:class:`~dpsynrag.retrieval.Hit`, best first), as
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
        distinct unless ``repeat_copies``, see :meth:`~dpsynrag.retrieval.CorpusRetriever.search`).

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


class Hit(BaseModel):
    model_config = ConfigDict(extra="allow")
    id: int
    text: str
    score: float = Field(description="Cosine similarity to the question, in [-1, 1].")
    copies: int = Field(description="The text's rows in the corpus index (>= 1; > 1 with index_copy_size).")


class RetrieveResponse(BaseModel):
    corpus: str
    results: list[Hit]


class QueryResponse(BaseModel):
    corpus: str
    answer: str
    model: str
    contexts: list[Hit]


class _BodyLimit:
    """ASGI middleware: 413 for a body over ``max_bytes``, 411 for a POST without Content-Length."""

    def __init__(self, app, max_bytes: int):
        self.app, self.max_bytes = app, max_bytes

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http" and scope["method"] in ("POST", "PUT", "PATCH"):
            length = dict(scope["headers"]).get(b"content-length")
            status, msg = None, None
            if length is None:
                status, msg = 411, "send a Content-Length header (chunked request bodies are not accepted)."
            elif not length.isdigit() or int(length) > self.max_bytes:
                status, msg = 413, f"the request body is over {self.max_bytes} bytes."
            if status:
                from fastapi.responses import JSONResponse

                await JSONResponse({"detail": msg}, status_code=status)(scope, receive, send)
                return
        await self.app(scope, receive, send)


def create_app(service: CorpusService, *, api_keys: Optional[list[str]] = None, limits: ServiceLimits = ServiceLimits(),
               request_threads: Optional[int] = None):
    """The FastAPI application of ``service``.

    Args:
        service: the corpora and models.
        api_keys: accepted keys (``Authorization: Bearer KEY`` or ``X-API-Key: KEY``) for every ``/v1``
            route: a missing key gets 401, a wrong one 403. None or empty: no authentication.
        limits: request bounds (and the request timeout: 504 past it).
        request_threads: requests handled at once by the synchronous routes (``/v1/query``, the listings;
            their thread pool; None: anyio's 40). ``/v1/retrieve`` waits in the event loop for its batch.

    A full retrieval queue gives 503 with ``Retry-After`` (whole seconds). When the application shuts down
    it closes ``service`` (:meth:`CorpusService.close`), which finishes the searches still queued.

    Raises:
        ImportError: the ``swagger-ui-bundle-v2`` package (of ``dpsynrag[serve]``) is missing.
    """
    import asyncio
    from contextlib import asynccontextmanager

    from fastapi import APIRouter, Depends, FastAPI, HTTPException, Request
    from fastapi.exceptions import RequestValidationError
    from fastapi.openapi.docs import get_swagger_ui_html
    from fastapi.responses import JSONResponse
    from fastapi.staticfiles import StaticFiles
    from swagger_ui_bundle import swagger_ui_path

    from dpsynrag import __version__

    keys = [k.encode("utf-8") for k in (api_keys or [])]
    TopK = Annotated[Optional[int], Field(ge=1, le=limits.max_top_k, description="Texts retrieved (default: the corpus's).")]

    class _Ask(BaseModel):
        model_config = ConfigDict(extra="forbid")
        question: str = Field(min_length=1, max_length=limits.max_question_chars)
        corpus: Optional[str] = Field(None, description="A served corpus (optional when only one is served).")
        top_k: TopK = None
        repeat_copies: bool = Field(False, description="Give a text once per index copy (up to its `copies` of "
                                                       "the top_k places), as the evaluation harness; default: "
                                                       "top_k distinct texts.")

        @field_validator("question")
        @classmethod
        def _not_blank(cls, v: str) -> str:
            if not v.strip():
                raise ValueError("the question is blank")
            return v

    class RetrieveRequest(_Ask):
        pass

    class QueryRequest(_Ask):
        max_tokens: int = Field(limits.default_answer_tokens, ge=1, le=limits.max_answer_tokens,
                                description="Most answer tokens.")

    async def check_key(request: Request) -> None:
        if not keys:
            return
        auth = request.headers.get("authorization", "")
        token = auth[7:].strip() if auth[:7].lower() == "bearer " else request.headers.get("x-api-key", "")
        if not token:
            raise HTTPException(401, "missing API key: send `Authorization: Bearer KEY` or `X-API-Key: KEY`.",
                                headers={"WWW-Authenticate": "Bearer"})
        given = token.encode("utf-8")
        if not any(hmac.compare_digest(given, k) for k in keys):
            raise HTTPException(403, "invalid API key.")

    def retriever(name: Optional[str]) -> CorpusRetriever:
        try:
            return service.retriever(name)
        except KeyError:
            raise HTTPException(404, "unknown corpus: see GET /v1/corpora for the served ones.") from None
        except LookupError as exc:
            raise HTTPException(422, str(exc)) from None

    def unavailable(exc: ServiceUnavailable) -> HTTPException:
        return HTTPException(503, str(exc), headers={"Retry-After": str(exc.retry_after)})

    def timed_out() -> HTTPException:
        return HTTPException(504, f"no answer within the request timeout ({limits.request_timeout_s:g} s); retry later.")

    @asynccontextmanager
    async def lifespan(app):
        import anyio.to_thread

        if request_threads is not None:
            anyio.to_thread.current_default_thread_limiter().total_tokens = request_threads
        yield
        await anyio.to_thread.run_sync(service.close, limits.request_timeout_s)  # uvicorn has answered the requests in flight

    app = FastAPI(title="dpsynrag query service", version=__version__, lifespan=lifespan, docs_url=None, redoc_url=None,
                  description="Retrieval and answers over differentially private synthetic corpora "
                              "(post-processing: no privacy cost per query).")
    app.add_middleware(_BodyLimit, max_bytes=limits.max_body_bytes)
    # Swagger UI from the installed package's files, not a CDN: the page works offline
    app.mount("/docs/assets", StaticFiles(directory=str(swagger_ui_path)), name="swagger-ui")

    @app.get("/docs", include_in_schema=False)
    def docs():
        return get_swagger_ui_html(openapi_url=app.openapi_url, title=f"{app.title} - API",
                                   swagger_js_url="/docs/assets/swagger-ui-bundle.js",
                                   swagger_css_url="/docs/assets/swagger-ui.css",
                                   swagger_favicon_url="/docs/assets/favicon-32x32.png",
                                   swagger_ui_parameters={"validatorUrl": None})  # no badge from validator.swagger.io

    @app.exception_handler(RequestValidationError)
    async def _invalid(request, exc):  # the errors without the input (never echo a request back)
        detail = [{"loc": list(e.get("loc", ())), "msg": e.get("msg", ""), "type": e.get("type", "")} for e in exc.errors()]
        return JSONResponse({"detail": detail}, status_code=422)

    @app.get("/healthz")
    async def healthz() -> dict:
        """Liveness: the corpora served and the questions waiting for a batch (``queued``)."""
        return {"status": "ok", "corpora": len(service.retrievers), "queued": service.queued()}

    v1 = APIRouter(prefix="/v1", dependencies=[Depends(check_key)])

    @v1.get("/corpora")
    def corpora() -> dict:
        return {"corpora": [service.info(n) for n in service.retrievers]}

    @v1.get("/corpora/{name}/report")
    def report(name: str) -> dict:
        return retriever(name).corpus.privacy_report.to_dict()

    @v1.post("/retrieve", response_model=RetrieveResponse,
             responses={503: {"description": "The queue is full (see Retry-After)."},
                        504: {"description": "No answer within the request timeout."}})
    async def retrieve(req: RetrieveRequest):
        r = retriever(req.corpus)
        try:
            future = service.submit_search(r.name, req.question, req.top_k, repeat_copies=req.repeat_copies)
        except ServiceUnavailable as exc:
            raise unavailable(exc) from None
        try:  # a timeout cancels the search if no batch has taken it yet
            hits = await asyncio.wait_for(asyncio.wrap_future(future), limits.request_timeout_s)
        except asyncio.TimeoutError:
            raise timed_out() from None
        return {"corpus": r.name, "results": [h.to_dict() for h in hits]}

    @v1.post("/query", response_model=QueryResponse,
             responses={503: {"description": "The queue is full (see Retry-After)."},
                        504: {"description": "No answer within the request timeout."}})
    def query(req: QueryRequest):
        r = retriever(req.corpus)
        try:
            answer, hits = service.answer(r.name, req.question, req.top_k, req.max_tokens,
                                          repeat_copies=req.repeat_copies, timeout=limits.request_timeout_s)
        except ServiceUnavailable as exc:
            raise unavailable(exc) from None
        except TimeoutError:
            raise timed_out() from None
        except NotImplementedError as exc:
            raise HTTPException(501, str(exc)) from None
        except CorpusError as exc:
            raise HTTPException(409, str(exc)) from None
        except EndpointError as exc:
            raise HTTPException(502, str(exc)) from None
        except DataError as exc:  # e.g. a prompt longer than the local model's context
            raise HTTPException(422, str(exc)) from None
        return {"corpus": r.name, "answer": answer, "model": service.lms[r.name].name,
                "contexts": [h.to_dict() for h in hits]}

    app.include_router(v1)
    return app


def _is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def serve_command(
    corpus_dirs: list[Path] = typer.Argument(..., help="Corpus folders made by `dpsynrag build`; each is served under its folder name."),
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on (0.0.0.0: every interface; use --api-key-file then)."),
    port: int = typer.Option(8000, "--port", help="TCP port."),
    api_key_file: Optional[Path] = typer.Option(None, "--api-key-file", help="File of accepted API keys, one per line: /v1 routes then need `Authorization: Bearer KEY`."),
    answer_endpoint: Optional[str] = typer.Option(None, "--answer-endpoint", help="OpenAI-compatible API root (e.g. http://127.0.0.1:8080/v1) to answer with, instead of the corpus's model; key from $DPSYNRAG_ANSWER_API_KEY."),
    answer_model: Optional[str] = typer.Option(None, "--answer-model", help="The model name the --answer-endpoint serves."),
    retrieval_only: bool = typer.Option(False, "--retrieval-only", help="Load no answering model: /v1/query is off (501)."),
    max_question_chars: int = typer.Option(2000, "--max-question-chars", help="Longest question accepted."),
    max_top_k: int = typer.Option(50, "--max-top-k", help="Largest top_k accepted."),
    max_answer_tokens: int = typer.Option(256, "--max-answer-tokens", help="Largest max_tokens of /v1/query."),
    request_threads: int = typer.Option(16, "--request-threads", help="Requests handled at once by /v1/query and the listings (their thread pool's size)."),
    max_batch: int = typer.Option(32, "--max-batch", help="Most questions embedded in one forward pass (1: one question per pass, unbatched)."),
    max_wait_ms: float = typer.Option(5.0, "--max-wait-ms", help="Longest a batch waits for more questions after its first, in milliseconds."),
    queue_size: int = typer.Option(256, "--queue-size", help="Most questions waiting for a batch; beyond it: 503 with Retry-After."),
    request_timeout: float = typer.Option(30.0, "--request-timeout", help="Seconds a request may wait for its retrieval (and /v1/query for the model) before 504; also the shutdown grace."),
    threads: Optional[int] = typer.Option(None, "--threads", hidden=True, help="Deprecated spelling of --request-threads."),
) -> None:
    """Serve synthetic corpora over HTTP: retrieval, answers and privacy reports (read-only, no budget spent)."""
    from rich.console import Console

    err = Console(stderr=True, soft_wrap=True)
    try:
        import fastapi  # noqa: F401
        import swagger_ui_bundle  # noqa: F401
        import uvicorn
    except ImportError:
        err.print("[bold red]error:[/] `dpsynrag serve` needs FastAPI, uvicorn and swagger-ui-bundle-v2: "
                  "pip install 'dpsynrag\\[serve]'.")
        raise typer.Exit(code=2) from None
    if threads is not None:
        err.print("[yellow]warning:[/] serve --threads is deprecated: it is --request-threads (build --threads sets "
                  "torch threads).")
        request_threads = threads
    try:
        if not 0 < port < 65536:
            raise ConfigError(f"`--port` must be in 1..65535. Found {port}.")
        if request_threads < 1:
            raise ConfigError(f"`--request-threads` must be >= 1. Found {request_threads}.")
        limits = ServiceLimits(max_question_chars=max_question_chars, max_top_k=max_top_k, max_answer_tokens=max_answer_tokens,
                               default_answer_tokens=min(64, max_answer_tokens), request_timeout_s=request_timeout)
        batching = BatchPolicy(max_batch=max_batch, max_wait_ms=max_wait_ms, queue_size=queue_size)
        keys = read_api_keys(api_key_file) if api_key_file is not None else None
        service = CorpusService.load(corpus_dirs, answer_endpoint=answer_endpoint, answer_model=answer_model,
                                     answer_api_key=os.environ.get("DPSYNRAG_ANSWER_API_KEY"), retrieval_only=retrieval_only,
                                     batching=batching)
    except DpsynragError as exc:
        err.print(f"[bold red]error:[/] {exc}")
        raise typer.Exit(code=2) from None
    for name in service.retrievers:
        info = service.info(name)
        err.print(f"serving {name}: {info['num_kept']} of {info['num_texts']} texts kept, epsilon={info['epsilon']:.4g}, "
                  f"delta={info['delta']:g}" + (" [yellow](built with a seed: NOT for release)[/]" if info["not_for_release"] else ""))
        if info["content_warning"]:
            err.print(f"[bold yellow]warning:[/] {name}: {info['content_warning']}")
    if keys is None and not _is_loopback(host):
        err.print(f"[bold yellow]warning:[/] listening on {host} without --api-key-file: anyone who reaches it can query.")
    err.print(f"micro-batching: up to {max_batch} questions per forward pass, {max_wait_ms:g} ms wait, "
              f"{queue_size} queued at most; request timeout {request_timeout:g} s")
    # SIGTERM / Ctrl-C: uvicorn stops accepting, answers the requests in flight (at most the timeout plus a grace),
    # then the application's shutdown closes the batchers
    uvicorn.run(create_app(service, api_keys=keys, limits=limits, request_threads=request_threads), host=host, port=port,
                log_level="info", timeout_graceful_shutdown=math.ceil(request_timeout + SHUTDOWN_GRACE_S))
