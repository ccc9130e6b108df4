"""``dpsynrag serve``: an HTTP query service over synthetic corpora (FastAPI + uvicorn; ``pip install
dpsynrag[serve]``).

Endpoints: ``POST /v1/retrieve`` (question, top_k -> top_k distinct kept synthetic texts with cosine
scores and their index ``copies``; ``"repeat_copies": true``: a text once per index copy, as
:mod:`dpsynrag.corpus.retrieval`), ``POST /v1/query`` (-> a greedy answer and the texts it was given),
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
absolute, see :meth:`~dpsynrag.corpus.retrieval.CorpusRetriever.encode`), so its ranking is the same except
between texts whose scores are that close. ``max_batch=1`` is the unbatched service (one question per
forward pass). The queue of waiting questions is bounded (``queue_size``): a question beyond it gets
503 with ``Retry-After``; a request not answered within ``request_timeout_s`` gets 504. On SIGTERM or
Ctrl-C uvicorn stops accepting connections and the requests in flight are answered before the process
exits (the batchers drain their queues; uvicorn gives them ``request_timeout_s`` plus 5 s); keep-alive
connections idle at that moment are closed, so a client that sends on one just then sees a connection
error and should retry elsewhere.
"""

from dpsynrag.serve.app import create_app
from dpsynrag.serve.batching import BatchPolicy, MicroBatcher, ServiceLimits, ServiceUnavailable
from dpsynrag.serve.service import CorpusService, read_api_keys

__all__ = ["BatchPolicy", "CorpusService", "MicroBatcher", "ServiceLimits", "ServiceUnavailable", "create_app",
           "read_api_keys"]
