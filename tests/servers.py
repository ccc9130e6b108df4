"""Test helpers for the HTTP service and its clients (imported as ``from servers import ...``): corpora
written directly (no build), a uvicorn server on a free loopback port in a thread, and a tiny
OpenAI-compatible chat-completions server standing in for vLLM/TGI/Ollama."""

import socket
import threading
import time

from dpsynrag.corpus import CorpusWriter
from dpsynrag.privacy.accountant import ZCDPAccountant
from dpsynrag.privacy.events import GaussianEvent
from dpsynrag.privacy.report import PrivacyReport

TEXTS = [
    "the patient has fever and cough",
    "the doctor gave a drug dose for the rash",
    "blood test of the heart and lung",
    "red eye and ear pain for a week",
    "the old patient was good after rest",
    "skin rash with fever",
]


def privacy_dict(rho: float = 0.5, delta: float = 1e-3) -> dict:
    acc = ZCDPAccountant()
    acc.compose(GaussianEvent("test", sensitivity=1.0, sigma=(1 / (2 * rho)) ** 0.5))
    return PrivacyReport.from_accountant(acc, delta=delta).to_dict()


def write_corpus(path, embedder, *, kept=None, texts=TEXTS, task=None):
    """A DP-SynRAG-shaped corpus folder (records: id, keyword, noisy_count, text, kept) over ``texts``."""
    kept = [True] * len(texts) if kept is None else kept
    records = [{"id": 10 + i, "keyword": t.split()[-1], "noisy_count": 5 + i, "text": t, "kept": k}
               for i, (t, k) in enumerate(zip(texts, kept))]
    manifest = {"method": "dp-synrag", "config": {"task": task} if task else {},
                "model": {"spec": None, "name": "tiny-llama"}, "embedder": {"spec": None},
                "privacy": privacy_dict(), "not_for_release": True}
    with CorpusWriter(path) as w:
        return w.finish(records, manifest, embedder)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LoopbackServer:
    """``with LoopbackServer(app) as url:`` serves the ASGI ``app`` with uvicorn on 127.0.0.1 (a free port)
    in a daemon thread; ``url`` is ``http://127.0.0.1:PORT``."""

    def __init__(self, app):
        import uvicorn

        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)

    def __enter__(self) -> str:
        self.thread.start()
        for _ in range(3000):  # readiness, not a timing assertion: give up after ~30 s
            if self.server.started:
                return self.url
            time.sleep(0.01)
        raise RuntimeError("the loopback server did not start")

    def __exit__(self, *exc) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)
        self.sock.close()


def fake_openai_app(*, fail_first: int = 0):
    """A minimal OpenAI-compatible server: ``POST /v1/chat/completions`` answers
    ``"echo <model> <n messages> <max_tokens> <last word of the user message>"`` and records each request
    body in ``app.state.requests``; an unknown model (not ``tiny-chat``) gets 404 with an OpenAI-style
    error; the first ``fail_first`` requests get 503."""
    from fastapi import FastAPI, Request
    from fastapi.responses import JSONResponse

    app = FastAPI()
    app.state.requests = []
    app.state.failures = fail_first

    @app.post("/v1/chat/completions")
    async def chat(request: Request):
        body = await request.json()
        app.state.requests.append(body)
        if app.state.failures > 0:
            app.state.failures -= 1
            return JSONResponse({"error": {"message": "overloaded"}}, status_code=503)
        if body.get("model") != "tiny-chat":
            return JSONResponse({"error": {"message": f"model {body.get('model')!r} not found"}}, status_code=404)
        user = [m for m in body["messages"] if m["role"] == "user"][-1]["content"]
        content = f"echo {body['model']} {len(body['messages'])} {body['max_tokens']} {user.split()[-1]}"
        return {"id": "x", "object": "chat.completion", "model": body["model"],
                "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}]}

    return app
