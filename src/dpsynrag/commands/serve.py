"""``dpsynrag serve``: the HTTP query service over synthetic corpora (:mod:`dpsynrag.serve`)."""

import ctypes
import ipaddress
import json
import math
import os
import signal
from pathlib import Path
from typing import Optional

import typer

from dpsynrag.errors import ConfigError, DpsynragError
from dpsynrag.serve import BatchPolicy, CorpusService, ServiceLimits, create_app, read_api_keys
from dpsynrag.serve.batching import check_wait_below_timeout

SHUTDOWN_GRACE_S = 5.0
"""Seconds uvicorn waits for requests in flight beyond ``request_timeout_s`` when shutting down."""


MALLOC_ARENAS = 2
"""glibc malloc arenas of the server process unless ``MALLOC_ARENA_MAX`` is set (see :func:`limit_malloc_arenas`)."""

_M_ARENA_MAX = -8  # glibc's mallopt parameter number of M_ARENA_MAX (malloc.h)


def limit_malloc_arenas(arenas: int = MALLOC_ARENAS, env: dict | None = None) -> bool:
    """Cap glibc's malloc arenas (``mallopt(M_ARENA_MAX, arenas)``), as ``MALLOC_ARENA_MAX=arenas`` would.

    glibc gives each thread that allocates concurrently its own arena, up to 8 per core, and keeps the memory
    they held: under load the server's request threads made its resident memory grow 4.5 MiB/min for 10 minutes;
    with 2 arenas it stayed flat at the same throughput (benchmarks/results/soak_serve*.md).

    Args:
        arenas: the most arenas (>= 1).
        env: the environment (``os.environ``): a ``MALLOC_ARENA_MAX`` or a ``glibc.malloc.arena_max`` in
            ``GLIBC_TUNABLES`` set there wins (glibc read it at start).

    Returns:
        True when the cap was set; False when the environment sets it, or where the C library is not glibc.

    Call it before the threads that allocate start (the models load in several): an arena already made stays.
    """
    env = os.environ if env is None else env
    if env.get("MALLOC_ARENA_MAX", "").strip() or "malloc.arena_max" in env.get("GLIBC_TUNABLES", ""):
        return False
    try:
        mallopt = ctypes.CDLL("libc.so.6").mallopt
    except (OSError, AttributeError):  # not glibc (musl, macOS, Windows)
        return False
    return mallopt(_M_ARENA_MAX, int(arenas)) == 1


def _check_bindable(host: str, port: int) -> None:
    """Raise ConfigError when ``host:port`` cannot be listened on now (address in use, unknown host, no permission)."""
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise ConfigError(f"`--host` {host!r} is not an address of this machine ({exc.strerror}).") from None
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
        try:
            probe.bind(address)
        except OSError as exc:
            raise ConfigError(f"cannot listen on {host}:{port}: {exc.strerror} (another server on that port? "
                              "choose one with --port).") from None


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
    max_body_bytes: Optional[int] = typer.Option(None, "--max-body-bytes", help="Largest request body in bytes (413 beyond). Default: 12 bytes per --max-question-chars character (a JSON-escaped emoji) + 4096."),
    request_threads: int = typer.Option(16, "--request-threads", help="Requests handled at once by /v1/query and the listings (their thread pool's size)."),
    max_batch: int = typer.Option(32, "--max-batch", help="Most questions embedded in one forward pass (1: one question per pass, unbatched)."),
    max_wait_ms: float = typer.Option(5.0, "--max-wait-ms", help="Longest a batch waits for more questions, in milliseconds, after the later of its first question and the end of the batch before."),
    queue_size: int = typer.Option(256, "--queue-size", help="Most questions waiting for a batch; beyond it: 503 with Retry-After."),
    request_timeout: float = typer.Option(30.0, "--request-timeout", help="Seconds a request may wait for its retrieval (and /v1/query for the model) before 504; also the shutdown grace."),
    threads: Optional[int] = typer.Option(None, "--threads", hidden=True, help="Deprecated spelling of --request-threads."),
) -> None:
    """Serve synthetic corpora over HTTP: retrieval, answers and privacy reports (read-only, no budget spent)."""
    from rich.console import Console

    err = Console(stderr=True, soft_wrap=True)
    limit_malloc_arenas()  # before the models load: their loading threads would make arenas that then stay
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
                               default_answer_tokens=min(64, max_answer_tokens), request_timeout_s=request_timeout,
                               max_body_bytes=max_body_bytes)
        batching = BatchPolicy(max_batch=max_batch, max_wait_ms=max_wait_ms, queue_size=queue_size)
        check_wait_below_timeout(batching, limits)
        keys = read_api_keys(api_key_file) if api_key_file is not None else None
        _check_bindable(host, port)  # before the models load: a port in use fails in a second, not after them
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
              f"{queue_size} queued at most; request timeout {request_timeout:g} s; request bodies up to "
              f"{limits.body_limit} bytes")
    shortest = len(json.dumps({"question": "q" * max_question_chars}))  # a longest question of plain ASCII
    if limits.body_limit < shortest:
        err.print(f"[yellow]warning:[/] --max-body-bytes {limits.body_limit} cannot hold a {max_question_chars}-character "
                  f"question ({shortest} bytes as JSON): longer questions get 413 before their length is checked.")
    # SIGTERM / Ctrl-C: uvicorn stops accepting, answers the requests in flight (at most the timeout plus a grace),
    # then the application's shutdown closes the batchers
    app = create_app(service, api_keys=keys, limits=limits, request_threads=request_threads)
    try:
        uvicorn.run(app, host=host, port=port, log_level="info",
                    timeout_graceful_shutdown=math.ceil(request_timeout + SHUTDOWN_GRACE_S))
    except SystemExit as exc:
        # uvicorn raises a SIGTERM again once its graceful shutdown is over, and the command line turns it into
        # exit 128 + 15: here the stop was clean, so exit 0 (as a service manager expects)
        if exc.code != 128 + signal.SIGTERM:
            raise
