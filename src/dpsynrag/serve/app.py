"""The HTTP face of the query service (FastAPI; see :mod:`dpsynrag.serve`): routes, authentication,
request bounds and the response models."""

import hmac
from typing import Annotated, Optional

from pydantic import BaseModel, ConfigDict, Field, field_validator

from dpsynrag.errors import CorpusError, DataError, EndpointError
from dpsynrag.corpus.retrieval import CorpusRetriever
from dpsynrag.serve.batching import ServiceLimits, ServiceUnavailable, check_wait_below_timeout
from dpsynrag.serve.service import CorpusService


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
        ConfigError: the service's ``batching.max_wait_ms`` is not below ``limits.request_timeout_s``.
        ImportError: the ``swagger-ui-bundle-v2`` package (of ``dpsynrag[serve]``) is missing.
    """
    import asyncio
    from contextlib import asynccontextmanager

    from fastapi import APIRouter, Depends, FastAPI, HTTPException, Request
    from fastapi.exceptions import RequestValidationError
    from fastapi.openapi.docs import get_swagger_ui_html
    from fastapi.responses import HTMLResponse, JSONResponse
    from fastapi.staticfiles import StaticFiles

    from dpsynrag.corpus.card import CARD_CSP
    from swagger_ui_bundle import swagger_ui_path

    from dpsynrag import __version__

    check_wait_below_timeout(service.batching, limits)
    keys = [k.encode("utf-8") for k in (api_keys or [])]
    TopK = Annotated[Optional[int], Field(ge=1, le=limits.max_top_k, description="Texts retrieved (default: the corpus's).")]

    class _Ask(BaseModel):
        model_config = ConfigDict(extra="forbid", strict=True)  # strict: "top_k": true or "3", "repeat_copies": "yes" are 422
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
    app.add_middleware(_BodyLimit, max_bytes=limits.body_limit)
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
        media = request.headers.get("content-type", "").split(";")[0].strip().lower()
        json_media = media == "application/json" or (media.startswith("application/") and media.endswith("+json"))
        if not json_media and any(tuple(e.get("loc", ())) == ("body",) for e in exc.errors()):
            # the body as a whole was refused and was not sent as JSON: FastAPI did not parse it (which media types
            # it parses depends on its version), so say what to send rather than "Input should be a valid dictionary"
            return JSONResponse({"detail": "send the request body as JSON, with the header Content-Type: "
                                           "application/json."}, status_code=415)
        detail = [{"loc": list(e.get("loc", ())), "msg": e.get("msg", ""), "type": e.get("type", "")} for e in exc.errors()]
        return JSONResponse({"detail": detail}, status_code=422)

    @app.get("/", include_in_schema=False)
    def page():
        """The page to try a corpus in a browser (:mod:`dpsynrag.serve.page`); it calls the /v1 routes."""
        from fastapi.responses import HTMLResponse

        from dpsynrag.serve.page import PAGE, PAGE_CSP

        return HTMLResponse(PAGE, headers={"Content-Security-Policy": PAGE_CSP, "X-Content-Type-Options": "nosniff"})

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

    @v1.get("/corpora/{name}/card", response_class=HTMLResponse)
    def card(name: str):
        """The corpus's publishable corpus card (:mod:`dpsynrag.corpus.card`): DP output and public settings."""
        from dpsynrag.corpus.card import corpus_card_html

        return HTMLResponse(corpus_card_html(retriever(name).corpus.path, variant="publishable"),
                            headers={"Content-Security-Policy": CARD_CSP, "X-Content-Type-Options": "nosniff"})

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
