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
"""

import contextlib
import hmac
import ipaddress
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from pydantic import BaseModel, ConfigDict, Field, field_validator

from dpsynrag.errors import ConfigError, CorpusError, DataError, DpsynragError, EndpointError
from dpsynrag.retrieval import CorpusRetriever

__all__ = ["CorpusService", "ServiceLimits", "create_app", "read_api_keys", "serve_command"]


@dataclass(frozen=True)
class ServiceLimits:
    """Bounds on every request (a request outside them gets a 4xx answer before any model runs).

    Attributes:
        max_question_chars: longest question, in characters (422 beyond).
        max_top_k: largest ``top_k`` (422 beyond).
        max_answer_tokens: largest ``max_tokens`` of ``/v1/query`` (422 beyond); default_answer_tokens: when not given.
        max_body_bytes: largest request body, in bytes (413 beyond; 411 without a Content-Length).
    """

    max_question_chars: int = 2000
    max_top_k: int = 50
    max_answer_tokens: int = 256
    default_answer_tokens: int = 64
    max_body_bytes: int = 16384

    def __post_init__(self):
        for name in ("max_question_chars", "max_top_k", "max_answer_tokens", "default_answer_tokens", "max_body_bytes"):
            if getattr(self, name) < 1:
                raise ConfigError(f"`{name}` (--{name.replace('_', '-')}) must be >= 1. Found {getattr(self, name)}.")
        if self.default_answer_tokens > self.max_answer_tokens:
            raise ConfigError("`default_answer_tokens` must be <= `max_answer_tokens`.")


class CorpusService:
    """The served corpora and their models, loaded once.

    Args:
        retrievers: name -> :class:`~dpsynrag.retrieval.CorpusRetriever`.
        lms: name -> answering model (a :class:`~dpsynrag.models.LanguageModel` or an
            :class:`~dpsynrag.models.endpoint.OpenAIChatModel`); empty: retrieval only (``/v1/query`` -> 501).
    """

    def __init__(self, retrievers: dict[str, CorpusRetriever], lms: dict[str, Any] | None = None):
        if not retrievers:
            raise ConfigError("give at least one corpus folder to serve (CORPUS).")
        self.retrievers = dict(retrievers)
        self.lms = dict(lms or {})
        self._answerers = {n: r.corpus.answerer(lm=self.lms[n], embedder=r.embedder) for n, r in self.retrievers.items() if n in self.lms}
        from dpsynrag.models.endpoint import OpenAIChatModel

        # a local model runs one generation at a time; an endpoint takes concurrent requests (it batches them)
        self._lm_locks = {id(lm): contextlib.nullcontext() if isinstance(lm, OpenAIChatModel) else threading.Lock()
                          for lm in self.lms.values()}

    @classmethod
    def load(cls, corpus_dirs, *, lm=None, embedder=None, answer_endpoint: Optional[str] = None,
             answer_model: Optional[str] = None, answer_api_key: Optional[str] = None,
             retrieval_only: bool = False) -> "CorpusService":
        """Open corpus folders and load each distinct model once.

        Args:
            corpus_dirs: corpus folders; each is served under its folder name.
            lm, embedder: models to use for every corpus (tests); else each corpus's own, loaded once per spec.
            answer_endpoint, answer_model, answer_api_key: answer with an OpenAI-compatible endpoint instead.
            retrieval_only: load no answering model.

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
        return cls(retrievers, answer_lms)

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

    def answer(self, name: str, question: str, top_k: Optional[int], max_tokens: int, *,
               repeat_copies: bool = False) -> tuple[str, list]:
        """A greedy answer from the top-k texts of corpus ``name``, and those texts (as :class:`Hit`;
        distinct unless ``repeat_copies``, see :meth:`~dpsynrag.retrieval.CorpusRetriever.search`).

        Raises:
            NotImplementedError: no answering model is loaded (--retrieval-only).
            CorpusError: the corpus keeps no text (an answer would come from the model alone).
            EndpointError: the answering endpoint failed.
        """
        r = self.retrievers[name]
        if name not in self.lms:
            raise NotImplementedError("this service runs --retrieval-only: /v1/query is off; use /v1/retrieve.")
        if not len(r):
            raise CorpusError(f"corpus {name!r} keeps no synthetic text: there is no context, so an answer would come "
                              "from the model alone.")
        hits = r.search([question], top_k, repeat_copies=repeat_copies)[0]
        lm, answerer = self.lms[name], self._answerers[name]
        prompt = answerer.prompt(question, [h.text for h in hits])
        with self._lm_locks[id(lm)]:
            text = lm.generate_greedy([prompt], max_new_tokens=max_tokens)[0]
        return text.strip(), hits


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
        limits: request bounds.
        request_threads: requests handled at once (the thread pool of the synchronous routes; None:
            anyio's 40).

    Raises:
        ImportError: the ``swagger-ui-bundle-v2`` package (of ``dpsynrag[serve]``) is missing.
    """
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

    def check_key(request: Request) -> None:
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

    @asynccontextmanager
    async def lifespan(app):
        if request_threads is not None:
            import anyio.to_thread

            anyio.to_thread.current_default_thread_limiter().total_tokens = request_threads
        yield

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
    def healthz() -> dict:
        return {"status": "ok", "corpora": len(service.retrievers)}

    v1 = APIRouter(prefix="/v1", dependencies=[Depends(check_key)])

    @v1.get("/corpora")
    def corpora() -> dict:
        return {"corpora": [service.info(n) for n in service.retrievers]}

    @v1.get("/corpora/{name}/report")
    def report(name: str) -> dict:
        return retriever(name).corpus.privacy_report.to_dict()

    @v1.post("/retrieve", response_model=RetrieveResponse)
    def retrieve(req: RetrieveRequest):
        r = retriever(req.corpus)
        hits = r.search([req.question], req.top_k, repeat_copies=req.repeat_copies)[0]
        return {"corpus": r.name, "results": [h.to_dict() for h in hits]}

    @v1.post("/query", response_model=QueryResponse)
    def query(req: QueryRequest):
        r = retriever(req.corpus)
        try:
            answer, hits = service.answer(r.name, req.question, req.top_k, req.max_tokens,
                                          repeat_copies=req.repeat_copies)
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
    request_threads: int = typer.Option(16, "--request-threads", help="Requests handled at once (the request thread pool's size)."),
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
                               default_answer_tokens=min(64, max_answer_tokens))
        keys = read_api_keys(api_key_file) if api_key_file is not None else None
        service = CorpusService.load(corpus_dirs, answer_endpoint=answer_endpoint, answer_model=answer_model,
                                     answer_api_key=os.environ.get("DPSYNRAG_ANSWER_API_KEY"), retrieval_only=retrieval_only)
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
    uvicorn.run(create_app(service, api_keys=keys, limits=limits, request_threads=request_threads), host=host, port=port,
                log_level="info")
