"""`dpsynrag serve`: every endpoint on loopback, bad requests, API keys, concurrency, answering with an
OpenAI-compatible endpoint (a tiny local server), and serving at load (micro-batching equal to unbatched
retrieval, full queue -> 503, timeout -> 504, graceful shutdown). Corpora are written directly; the models
are the tiny fakes (hash embedder, tiny Llama, a tiny sentence-transformers BERT where padding matters)."""

from __future__ import annotations

import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import numpy as np
import pytest
from fakes import HashEmbedder
from fastapi.testclient import TestClient
from servers import TEXTS, LoopbackServer, fake_openai_app, free_port, write_corpus
from test_embedder import tiny_st_folder  # noqa: F401 - a fixture: the tiny sentence-transformers model
from typer.testing import CliRunner

from dpsynrag.cli import app as cli_app
from dpsynrag.corpus import SyntheticCorpus
from dpsynrag.errors import ConfigError, CorpusError, EndpointError
from dpsynrag.models.endpoint import OpenAIChatModel
from dpsynrag.rag import DEFAULT_SYSTEM_PROMPT, answer_user_prompt
from dpsynrag.serve import (BatchPolicy, CorpusService, MicroBatcher, ServiceLimits, ServiceUnavailable, create_app,
                            read_api_keys)

runner = CliRunner()
LIMITS = ServiceLimits(max_question_chars=200, max_top_k=5, max_answer_tokens=8, default_answer_tokens=4, max_body_bytes=2048)
QUESTIONS = ["fever and cough", "rash on the skin", "heart test", "pain in the ear", "old patient rest", "drug dose"]


@pytest.fixture()
def folders(tmp_path):
    emb = HashEmbedder()
    write_corpus(tmp_path / "notes", emb)
    write_corpus(tmp_path / "half", emb, kept=[True, False, True, False, True, False])
    write_corpus(tmp_path / "empty", emb, kept=[False] * len(TEXTS))
    return tmp_path


@pytest.fixture()
def service(folders, tiny_lm):
    return CorpusService.load([folders / n for n in ("notes", "half", "empty")], lm=tiny_lm, embedder=HashEmbedder())


@pytest.fixture()
def client(service):
    return TestClient(create_app(service, limits=LIMITS))


def expected_ranking(corpus_dir, question, k):
    """Brute-force cosine ranking of the kept texts (record id, score), best first."""
    corpus = SyntheticCorpus.load(corpus_dir)
    emb = HashEmbedder()
    scores = emb.encode(corpus.texts) @ emb.encode([question])[0]
    order = np.argsort(-scores, kind="stable")[:k]
    return [(corpus.index_ids[i], float(scores[i])) for i in order]


def test_healthz_corpora_and_report(client, folders):
    assert client.get("/healthz").json() == {"status": "ok", "corpora": 3, "queued": 0}
    listing = {c["name"]: c for c in client.get("/v1/corpora").json()["corpora"]}
    assert set(listing) == {"notes", "half", "empty"}
    assert (listing["notes"]["num_kept"], listing["half"]["num_kept"], listing["empty"]["num_kept"]) == (6, 3, 0)
    assert listing["empty"]["content_warning"].startswith("no synthetic text was kept (0 of 6)")
    assert listing["notes"]["not_for_release"] is True and listing["notes"]["answer_model"] == "tiny-llama"
    manifest = json.loads((folders / "notes" / "manifest.json").read_text())
    assert listing["notes"]["epsilon"] == pytest.approx(manifest["privacy"]["epsilon"])
    assert client.get("/v1/corpora/notes/report").json() == manifest["privacy"]
    assert client.get("/v1/corpora/nope/report").status_code == 404
    assert client.get("/openapi.json").json()["paths"].keys() >= {"/v1/retrieve", "/v1/query", "/v1/corpora"}


@pytest.mark.parametrize("name, k", [("notes", 3), ("half", 5), ("notes", 1)])
def test_retrieve_matches_brute_force_cosine(client, folders, name, k):
    for q in QUESTIONS:
        r = client.post("/v1/retrieve", json={"corpus": name, "question": q, "top_k": k})
        assert r.status_code == 200, r.text
        got = r.json()["results"]
        want = expected_ranking(folders / name, q, k)
        assert [h["id"] for h in got] == [i for i, _ in want]
        assert [h["score"] for h in got] == pytest.approx([s for _, s in want], abs=1e-6)
        by_id = {10 + i: t for i, t in enumerate(TEXTS)}
        assert all(h["text"] == by_id[h["id"]] and h["noisy_count"] == h["id"] - 5 for h in got)
        assert all("kept" not in h for h in got)


def test_retrieve_default_top_k_and_empty_corpus(client):
    r = client.post("/v1/retrieve", json={"corpus": "notes", "question": "fever"})
    assert len(r.json()["results"]) == 6  # default 10 (no task), at most the 6 kept texts
    assert client.post("/v1/retrieve", json={"corpus": "empty", "question": "fever"}).json()["results"] == []


def test_query_answers_as_the_library_does(client, folders, tiny_lm):
    corpus = SyntheticCorpus.load(folders / "notes")
    for q, k, n in [("fever and cough", 2, 4), ("the doctor", 3, 8)]:
        r = client.post("/v1/query", json={"corpus": "notes", "question": q, "top_k": k, "max_tokens": n})
        assert r.status_code == 200, r.text
        body = r.json()
        want = corpus.answerer(lm=tiny_lm, embedder=HashEmbedder(), top_k=k, max_new_tokens=n).answer([q])[0]
        assert body["answer"] == want.text and body["model"] == "tiny-llama"
        assert [c["text"] for c in body["contexts"]] == list(want.context)
    r = client.post("/v1/query", json={"corpus": "empty", "question": "fever"})
    assert r.status_code == 409 and "keeps no synthetic text" in r.json()["detail"]


@pytest.mark.parametrize(
    "path, body, status, field",
    [
        ("/v1/retrieve", {"corpus": "notes", "question": "x" * 201}, 422, "question"),  # over max_question_chars
        ("/v1/retrieve", {"corpus": "notes", "question": "   "}, 422, "question"),
        ("/v1/retrieve", {"corpus": "notes", "question": ""}, 422, "question"),
        ("/v1/retrieve", {"corpus": "notes"}, 422, "question"),
        ("/v1/retrieve", {"corpus": "notes", "question": "fever", "top_k": 0}, 422, "top_k"),
        ("/v1/retrieve", {"corpus": "notes", "question": "fever", "top_k": 6}, 422, "top_k"),
        ("/v1/retrieve", {"corpus": "notes", "question": "fever", "top_k": "many"}, 422, "top_k"),
        ("/v1/retrieve", {"corpus": "notes", "question": "fever", "top_k": "3"}, 422, "top_k"),  # strict types
        ("/v1/retrieve", {"corpus": "notes", "question": "fever", "top_k": True}, 422, "top_k"),
        ("/v1/retrieve", {"corpus": "notes", "question": "fever", "repeat_copies": "yes"}, 422, "repeat_copies"),
        ("/v1/retrieve", {"corpus": "notes", "question": 42}, 422, "question"),
        ("/v1/retrieve", {"corpus": "notes", "question": "fever", "epsilon": 1}, 422, "epsilon"),
        ("/v1/query", {"corpus": "notes", "question": "fever", "max_tokens": 9}, 422, "max_tokens"),
        ("/v1/query", {"corpus": "notes", "question": "fever", "max_tokens": 0}, 422, "max_tokens"),
    ],
)
def test_bad_requests_get_422_naming_the_field_without_echoing_it(client, path, body, status, field):
    r = client.post(path, json=body)
    assert r.status_code == status
    detail = r.json()["detail"]
    assert any(d["loc"][-1] == field for d in detail)
    assert "x" * 50 not in r.text and "input" not in detail[0]


def test_limits_on_corpus_and_body(client):
    assert client.post("/v1/retrieve", json={"corpus": "notes", "question": "x" * 200}).status_code == 200
    r = client.post("/v1/retrieve", json={"corpus": "nope", "question": "fever"})
    assert r.status_code == 404 and "unknown corpus" in r.json()["detail"]
    r = client.post("/v1/retrieve", json={"question": "fever"})  # three corpora served: name one
    assert r.status_code == 422 and "3 corpora are served" in r.json()["detail"]
    r = client.post("/v1/retrieve", content=json.dumps({"corpus": "notes", "question": "fever", "pad": "y" * 3000}),
                    headers={"content-type": "application/json"})
    assert r.status_code == 413 and "2048 bytes" in r.json()["detail"]
    r = client.post("/v1/retrieve", content=iter([b'{"question": "fever"}']), headers={"content-type": "application/json"})
    assert r.status_code == 411


def test_single_corpus_needs_no_name_and_retrieval_only_refuses_query(folders):
    service = CorpusService.load([folders / "notes"], embedder=HashEmbedder(), retrieval_only=True)
    client = TestClient(create_app(service, limits=LIMITS))
    r = client.post("/v1/retrieve", json={"question": "fever", "top_k": 2})
    assert r.json()["corpus"] == "notes" and len(r.json()["results"]) == 2
    r = client.post("/v1/query", json={"question": "fever"})
    assert r.status_code == 501 and "--retrieval-only" in r.json()["detail"]


def test_api_keys(service, tmp_path):
    (tmp_path / "keys").write_text("# service keys\nk-one\n\n  k-two  \n")
    keys = read_api_keys(tmp_path / "keys")
    assert keys == ["k-one", "k-two"]
    client = TestClient(create_app(service, api_keys=keys, limits=LIMITS))
    ask = {"corpus": "notes", "question": "fever", "top_k": 1}
    r = client.post("/v1/retrieve", json=ask)
    assert r.status_code == 401 and r.headers["www-authenticate"] == "Bearer"
    assert client.post("/v1/retrieve", json=ask, headers={"Authorization": "Bearer k-three"}).status_code == 403
    assert client.get("/v1/corpora", headers={"X-API-Key": "k-on"}).status_code == 403
    assert client.post("/v1/retrieve", json=ask, headers={"Authorization": "Bearer k-two"}).status_code == 200
    assert client.get("/v1/corpora/notes/report", headers={"X-API-Key": "k-one"}).status_code == 200
    assert client.get("/healthz").status_code == 200  # liveness stays open
    (tmp_path / "none").write_text("# nothing\n\n")
    with pytest.raises(ConfigError, match="holds no key"):
        read_api_keys(tmp_path / "none")
    with pytest.raises(ConfigError, match="cannot read --api-key-file"):
        read_api_keys(tmp_path / "missing")


def test_load_refuses_bad_inputs(folders, tmp_path):
    emb = HashEmbedder()
    with pytest.raises(CorpusError, match="does not exist"):
        CorpusService.load([tmp_path / "nothing"], embedder=emb, retrieval_only=True)
    (tmp_path / "other").mkdir()
    write_corpus(tmp_path / "other" / "notes", emb)
    with pytest.raises(CorpusError, match="two corpus folders are named 'notes'"):
        CorpusService.load([folders / "notes", tmp_path / "other" / "notes"], embedder=emb, retrieval_only=True)
    with pytest.raises(ConfigError, match="go together"):
        CorpusService.load([folders / "notes"], embedder=emb, answer_endpoint="http://127.0.0.1:1/v1")
    with pytest.raises(CorpusError, match="dimension"):
        CorpusService.load([folders / "notes"], embedder=HashEmbedder(dim=8), retrieval_only=True)


def test_concurrent_requests_on_a_real_socket(service, folders, tiny_lm):
    """8 clients at once over TCP: every answer is the one the request gets alone."""
    jobs = [(name, q, k) for name in ("notes", "half") for q in QUESTIONS for k in (1, 2, 3)] * 4
    with LoopbackServer(create_app(service, limits=LIMITS, request_threads=8)) as url:
        with httpx.Client(base_url=url) as http:
            def retrieve(job):
                name, q, k = job
                r = http.post("/v1/retrieve", json={"corpus": name, "question": q, "top_k": k})
                return r.status_code, [(h["id"], round(h["score"], 5)) for h in r.json()["results"]]

            with ThreadPoolExecutor(8) as pool:
                results = list(pool.map(retrieve, jobs))
            for (name, q, k), (status, got) in zip(jobs, results):
                want = [(i, round(s, 5)) for i, s in expected_ranking(folders / name, q, k)]
                assert status == 200 and got == want

            asks = [{"corpus": "notes", "question": q, "top_k": 2, "max_tokens": 4} for q in QUESTIONS]
            alone = [http.post("/v1/query", json=a).json()["answer"] for a in asks]
            with ThreadPoolExecutor(6) as pool:
                together = list(pool.map(lambda a: http.post("/v1/query", json=a).json()["answer"], asks))
            assert together == alone


def test_openai_compatible_endpoint_client():
    fake = fake_openai_app()
    with LoopbackServer(fake) as url:
        lm = OpenAIChatModel(f"{url}/v1/", "tiny-chat", api_key="secret")
        prompts = [lm.chat_prompt(answer_user_prompt(q, ["a text", "b text"]), system="Be brief.") for q in ("why fever", "why rash")]
        assert lm.generate_greedy(prompts, max_new_tokens=7) == ["echo tiny-chat 2 7 fever", "echo tiny-chat 2 7 rash"]
        sent = sorted(fake.state.requests, key=lambda b: b["messages"][1]["content"])
        assert sent[0]["temperature"] == 0 and sent[0]["max_tokens"] == 7
        assert sent[0]["messages"] == [{"role": "system", "content": "Be brief."},
                                       {"role": "user", "content": "Documents:\n[1] a text\n[2] b text\n\nQuestion: why fever"}]
        with pytest.raises(EndpointError, match=r"HTTP 404: model 'other' not found"):
            OpenAIChatModel(f"{url}/v1", "other").generate_greedy([prompts[0]], max_new_tokens=3)
    with LoopbackServer(fake_openai_app(fail_first=1)) as url:  # a 503 is retried
        assert OpenAIChatModel(f"{url}/v1", "tiny-chat").generate_greedy([prompts[0]], max_new_tokens=2) == ["echo tiny-chat 2 2 fever"]
    with LoopbackServer(fake_openai_app(fail_first=5)) as url:
        with pytest.raises(EndpointError, match="HTTP 503: overloaded"):
            OpenAIChatModel(f"{url}/v1", "tiny-chat", retries=1).generate_greedy([prompts[0]], max_new_tokens=2)
    with pytest.raises(EndpointError, match="cannot reach"):
        OpenAIChatModel(url + "/v1", "tiny-chat", retries=0).generate_greedy([prompts[0]], max_new_tokens=2)
    with pytest.raises(ConfigError, match="--answer-endpoint"):
        OpenAIChatModel("ftp://x", "tiny-chat")


def test_serve_and_query_answer_with_an_endpoint(folders, monkeypatch):
    from dpsynrag.models import Embedder, LanguageModel

    monkeypatch.setattr(LanguageModel, "load", classmethod(lambda cls, *a, **k: pytest.fail("a local model was loaded")))
    monkeypatch.setattr(Embedder, "load", classmethod(lambda cls, *a, **k: HashEmbedder()))
    fake = fake_openai_app()
    with LoopbackServer(fake) as url:
        service = CorpusService.load([folders / "notes"], answer_endpoint=f"{url}/v1", answer_model="tiny-chat")
        client = TestClient(create_app(service, limits=LIMITS))
        r = client.post("/v1/query", json={"question": "skin rash", "top_k": 2, "max_tokens": 5})
        assert r.status_code == 200, r.text
        assert r.json()["answer"] == "echo tiny-chat 2 5 rash" and r.json()["model"] == f"tiny-chat @ {url}/v1"
        user = fake.state.requests[-1]["messages"][1]["content"]
        assert user == answer_user_prompt("skin rash", [c["text"] for c in r.json()["contexts"]])
        assert fake.state.requests[-1]["messages"][0] == {"role": "system", "content": DEFAULT_SYSTEM_PROMPT}

        result = runner.invoke(cli_app, ["query", str(folders / "notes"), "skin rash", "--top-k", "3",
                                         "--answer-endpoint", f"{url}/v1", "--answer-model", "tiny-chat"])
        assert result.exit_code == 0, result.output
        assert result.output.strip() == "echo tiny-chat 2 24 rash"  # query's answer length: DEFAULT_ANSWER_TOKENS
        result = runner.invoke(cli_app, ["query", str(folders / "notes"), "skin rash", "--answer-endpoint", f"{url}/v1",
                                         "--answer-model", "gpt-x"])
        assert result.exit_code == 2 and "model 'gpt-x' not found" in result.output
        bad = TestClient(create_app(CorpusService.load([folders / "notes"], answer_endpoint=f"{url}/v1", answer_model="nope")))
        r = bad.post("/v1/query", json={"question": "skin rash"})
        assert r.status_code == 502 and "model 'nope' not found" in r.json()["detail"]
    result = runner.invoke(cli_app, ["query", str(folders / "notes"), "rash", "--answer-model", "tiny-chat"])
    assert result.exit_code == 2 and "go together" in result.output
    result = runner.invoke(cli_app, ["query", "rash", "--method", "dp-rag", "--answer-endpoint", "http://x/v1",
                                     "--answer-model", "m"])
    assert result.exit_code == 2 and "do not apply to --method dp-rag" in " ".join(result.output.split())


def test_serve_command_errors(folders, tmp_path):
    result = runner.invoke(cli_app, ["serve", str(tmp_path / "nothing"), "--retrieval-only"])
    assert result.exit_code == 2 and "does not exist" in result.output
    (tmp_path / "keys").write_text("\n")
    result = runner.invoke(cli_app, ["serve", str(folders / "notes"), "--api-key-file", str(tmp_path / "keys")])
    assert result.exit_code == 2 and "holds no key" in result.output
    result = runner.invoke(cli_app, ["serve", str(folders / "notes"), "--port", "0"])
    assert result.exit_code == 2 and "--port" in result.output
    result = runner.invoke(cli_app, ["serve", str(folders / "notes"), "--max-top-k", "0"])
    assert result.exit_code == 2 and "--max-top-k" in result.output


@pytest.mark.slow
def test_serve_command_end_to_end(tmp_path, offline_embedder):
    """`dpsynrag serve` as a process with the offline default embedder: health, key check, retrieval."""
    import subprocess
    import sys
    import time

    from servers import free_port

    write_corpus(tmp_path / "notes", offline_embedder)
    (tmp_path / "keys").write_text("k-one\n")
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "dpsynrag.cli", "serve", str(tmp_path / "notes"), "--port", str(port),
         "--retrieval-only", "--api-key-file", str(tmp_path / "keys")],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):  # readiness (model loading), not a timing assertion: give up after ~5 min
            try:
                if httpx.get(f"{url}/healthz").json() == {"status": "ok", "corpora": 1, "queued": 0}:
                    break
            except httpx.TransportError:
                pass
            assert proc.poll() is None, proc.stdout.read()
            time.sleep(0.5)
        else:
            pytest.fail("the service did not start")
        ask = {"question": "fever and cough", "top_k": 2}
        assert httpx.post(f"{url}/v1/retrieve", json=ask).status_code == 401
        r = httpx.post(f"{url}/v1/retrieve", json=ask, headers={"Authorization": "Bearer k-one"})
        assert r.status_code == 200
        corpus = SyntheticCorpus.load(tmp_path / "notes")
        scores = offline_embedder.encode(corpus.texts) @ offline_embedder.encode(["fever and cough"])[0]
        assert [h["text"] for h in r.json()["results"]] == [corpus.texts[i] for i in np.argsort(-scores)[:2]]
        assert [h["score"] for h in r.json()["results"]] == pytest.approx(sorted(scores, reverse=True)[:2], abs=1e-5)
    finally:
        proc.terminate()
        out = proc.communicate(timeout=60)[0]
    assert "serving notes: 6 of 6 texts kept" in out and "NOT for release" in out
    assert "fever and cough" not in out  # the access log never quotes a request


# --- serving at load (issue 31): micro-batching, bounded queue, timeout, graceful shutdown ---------------------

class GatedEmbedder(HashEmbedder):
    """A HashEmbedder whose :meth:`encode` waits until ``gate`` is set (``entered`` is set on entry), and
    records each call's number of texts in ``sizes``."""

    def __init__(self):
        super().__init__()
        self.gate, self.entered, self.sizes = threading.Event(), threading.Event(), []

    def encode(self, texts, batch_size=64, progress=False):
        self.sizes.append(len(texts))
        self.entered.set()
        assert self.gate.wait(30), "the test never opened the gate"
        return super().encode(texts, batch_size, progress)


def wait_until(condition, what: str) -> None:
    for _ in range(3000):  # readiness, not a timing assertion: give up after ~30 s
        if condition():
            return
        time.sleep(0.01)
    pytest.fail(f"timed out waiting for {what}")


def test_batched_retrieval_equals_alone_with_a_padded_model(tmp_path, tiny_st_folder):
    """Questions of different lengths embedded in one padded forward pass: ranking equal to each question
    alone, scores within the documented 1e-5 (float rounding), and each result routed to its own request."""
    from dpsynrag.models import Embedder

    emb = Embedder.load(tiny_st_folder, device="cpu")
    texts = ["the patient has fever and cough", "the doctor gave a drug dose for the rash", "blood test of the heart and lung",
             "red skin and blue skin", "the flu", "pain in the lung and the heart of the patient", "green drug", "a rash"]
    write_corpus(tmp_path / "notes", emb, texts=texts)
    questions = ["fever", "the doctor and the patient", "heart lung blood pain red blue green flu rash the a",
                 "drug dose", "skin", "cough cough", "a patient with a rash and a fever and a cough", "the the the"]
    service = CorpusService.load([tmp_path / "notes"], embedder=emb, retrieval_only=True,
                                 batching=BatchPolicy(max_batch=len(questions), max_wait_ms=2000))
    r = service.retrievers["notes"]
    alone = {(q, k): r.search([q], k)[0] for q in questions for k in (3, 8)}
    sizes = []
    encode = emb.encode
    emb.encode = lambda texts, batch_size=1, progress=False: (sizes.append(batch_size), encode(texts, batch_size=batch_size))[1]
    futures = {(q, k): service.submit_search("notes", q, k) for k in (3, 8) for q in questions}
    batched = {key: f.result(30) for key, f in futures.items()}
    assert sizes and max(sizes) == len(questions)  # the questions were embedded together
    for key in alone:
        assert [h.id for h in batched[key]] == [h.id for h in alone[key]], key
        assert [h.score for h in batched[key]] == pytest.approx([h.score for h in alone[key]], abs=1e-5)
        assert [h.text for h in batched[key]] == [h.text for h in alone[key]]
    assert service.close(10)


@pytest.mark.slow
def test_batched_ranking_equals_alone_on_the_benchmark_questions(tmp_path, offline_embedder):
    """all-MiniLM-L6-v2 on the 100 questions of benchmarks/bench_serve.py over 60 of its stand-in texts."""
    import importlib.util
    from pathlib import Path

    spec = importlib.util.spec_from_file_location("bench_serve", Path(__file__).parents[1] / "benchmarks" / "bench_serve.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    texts = [f"The patient reports {a} and {b}; the doctor advised rest."
             for a, b in zip(bench.SYMPTOMS * 4, bench.SYMPTOMS[3:] + bench.SYMPTOMS[:3] + bench.SYMPTOMS[::-1] * 3)][:60]
    write_corpus(tmp_path / "standin", offline_embedder, texts=texts)
    service = CorpusService.load([tmp_path / "standin"], embedder=offline_embedder, retrieval_only=True,
                                 batching=BatchPolicy(max_batch=32, max_wait_ms=2000))
    r = service.retrievers["standin"]
    futures = [service.submit_search("standin", q, 5) for q in bench.QUESTIONS]
    for q, f in zip(bench.QUESTIONS, futures):
        alone, batched = r.search([q], 5)[0], f.result(60)
        assert [h.id for h in batched] == [h.id for h in alone]
        assert [h.score for h in batched] == pytest.approx([h.score for h in alone], abs=bench.SCORE_TOLERANCE)


def test_full_queue_gets_503_with_retry_after(folders):
    emb = GatedEmbedder()
    service = CorpusService.load([folders / "notes"], embedder=emb, retrieval_only=True,
                                 batching=BatchPolicy(max_batch=1, queue_size=2))
    client = TestClient(create_app(service, limits=LIMITS))
    running = service.submit_search("notes", "fever and cough", 2)
    wait_until(emb.entered.is_set, "the first batch")
    queued = [service.submit_search("notes", q, 2) for q in ("rash on the skin", "heart test")]
    assert client.get("/healthz").json()["queued"] == 2
    r = client.post("/v1/retrieve", json={"corpus": "notes", "question": "drug dose secret", "top_k": 2})
    assert r.status_code == 503 and "at capacity (2 questions wait)" in r.json()["detail"]
    assert int(r.headers["retry-after"]) >= 1 and "secret" not in r.text
    r = client.post("/v1/query", json={"corpus": "notes", "question": "drug dose"})
    assert r.status_code == 501  # retrieval-only is decided before queueing
    emb.gate.set()
    for f, (q, k) in zip([running, *queued], [("fever and cough", 2), ("rash on the skin", 2), ("heart test", 2)]):
        assert [(h.id, pytest.approx(h.score, abs=1e-6)) for h in f.result(30)] == expected_ranking(folders / "notes", q, k)
    r = client.post("/v1/retrieve", json={"corpus": "notes", "question": "drug dose", "top_k": 2})
    assert r.status_code == 200 and [h["id"] for h in r.json()["results"]] == [i for i, _ in expected_ranking(folders / "notes", "drug dose", 2)]


def test_request_timeout_gets_504_and_drops_the_waiting_search(folders, tiny_lm):
    emb = GatedEmbedder()
    service = CorpusService.load([folders / "notes"], embedder=emb, lm=tiny_lm, batching=BatchPolicy(max_batch=1))
    limits = ServiceLimits(max_question_chars=200, max_top_k=5, max_answer_tokens=8, default_answer_tokens=4,
                           request_timeout_s=0.2)
    client = TestClient(create_app(service, limits=limits))
    running = service.submit_search("notes", "fever", 1)
    wait_until(emb.entered.is_set, "the first batch")
    r = client.post("/v1/retrieve", json={"corpus": "notes", "question": "rash", "top_k": 1})
    assert r.status_code == 504 and "request timeout (0.2 s)" in r.json()["detail"]
    r = client.post("/v1/query", json={"corpus": "notes", "question": "rash", "top_k": 1})
    assert r.status_code == 504
    wait_until(lambda: service.queued() == 0, "the timed-out searches to leave the queue")
    emb.gate.set()
    assert [h.id for h in running.result(30)] == [expected_ranking(folders / "notes", "fever", 1)[0][0]]
    assert client.post("/v1/retrieve", json={"corpus": "notes", "question": "heart", "top_k": 1}).status_code == 200
    assert emb.sizes == [1, 1]  # "fever", then "heart": the two timed-out searches were never embedded
    lock = service._lm_locks[id(tiny_lm)]  # the local model busy with another answer past the timeout
    with lock:
        r = client.post("/v1/query", json={"corpus": "notes", "question": "rash", "top_k": 1})
    assert r.status_code == 504
    assert client.post("/v1/query", json={"corpus": "notes", "question": "rash", "top_k": 1}).status_code == 200


def test_batcher_batches_and_close_finishes_queued_items():
    gate, sizes = threading.Event(), []

    def double(items):
        sizes.append(len(items))
        assert gate.wait(30)
        return [2 * x for x in items]

    batcher = MicroBatcher(double, BatchPolicy(max_batch=3, max_wait_ms=1000, queue_size=10))
    futures = [batcher.submit(x) for x in range(7)]
    wait_until(lambda: sizes, "the first batch")
    assert not batcher.close(timeout=0.05)  # still running: gated
    with pytest.raises(ServiceUnavailable, match="shutting down") as info:
        batcher.submit(99)
    assert info.value.retry_after >= 1
    gate.set()
    assert batcher.close(timeout=30)
    assert [f.result(0) for f in futures] == [0, 2, 4, 6, 8, 10, 12]
    assert sizes == [3, 3, 1]  # full batches, then what was left when closing (no wait for more)

    boom = MicroBatcher(lambda items: 1 / 0, BatchPolicy(max_batch=2, max_wait_ms=0))
    with pytest.raises(ZeroDivisionError):
        boom.submit(1).result(30)
    assert boom.close(30)


def test_batcher_closes_a_batch_after_max_wait():
    sizes = []
    batcher = MicroBatcher(lambda items: sizes.append(len(items)) or items, BatchPolicy(max_batch=100, max_wait_ms=50))
    first = batcher.submit("a")
    assert first.result(30) == "a"  # alone: the batch closed after its wait, not at max_batch
    assert sizes == [1]
    assert batcher.close(30)
    for bad in (dict(max_batch=0), dict(queue_size=0), dict(max_wait_ms=-1), dict(max_wait_ms=float("nan")), dict(max_batch=2.5)):
        with pytest.raises(ConfigError):
            BatchPolicy(**bad)


def test_batcher_waits_after_a_busy_batch_so_returning_clients_join():
    """The wait counts from the end of the batch before, not only from the item's arrival: ``c`` arrives during
    a gated batch and waits past its own ``max_wait_ms``; ``d``, sent when the gate opens (a client whose
    answer just came back), joins it. Counted from ``c``'s arrival alone, ``c`` would run by itself at once
    and ``d`` after it (sizes [2, 1, 1]): the clients would stay split in two batches."""
    gate, sizes = threading.Event(), []

    def gated(items):
        sizes.append(len(items))
        assert gate.wait(30)
        return items

    batcher = MicroBatcher(gated, BatchPolicy(max_batch=2, max_wait_ms=1000, queue_size=10))
    first = [batcher.submit(x) for x in "ab"]  # a full batch: runs at once, held at the gate
    wait_until(lambda: sizes, "the first batch")
    c = batcher.submit("c")
    time.sleep(1.5)  # c's own max_wait_ms passes while the worker is busy
    gate.set()
    assert [f.result(30) for f in first] == ["a", "b"]
    d = batcher.submit("d")  # within max_wait_ms of the first batch's end (1 s of margin)
    assert (c.result(30), d.result(30)) == ("c", "d")
    assert sizes == [2, 2]
    assert batcher.close(30)
    with pytest.raises(ConfigError, match="--request-timeout"):
        ServiceLimits(request_timeout_s=0)


def test_sigterm_answers_the_requests_in_flight(folders):
    """uvicorn's SIGTERM handler (``handle_exit``) while 3 requests wait for the embedder: all 3 get their
    answers, new connections are refused, and the application's shutdown closes the batchers."""
    import signal

    emb = GatedEmbedder()
    service = CorpusService.load([folders / "notes"], embedder=emb, retrieval_only=True, batching=BatchPolicy(max_batch=1))
    asks = [("fever and cough", 2), ("rash on the skin", 3), ("heart test", 1)]
    server = LoopbackServer(create_app(service, limits=LIMITS))
    with server as url:
        with ThreadPoolExecutor(3) as pool:
            futures = [pool.submit(httpx.post, f"{url}/v1/retrieve", json={"corpus": "notes", "question": q, "top_k": k},
                                   timeout=60) for q, k in asks]
            wait_until(lambda: emb.entered.is_set() and service.queued() == 2, "3 requests in flight")
            server.server.handle_exit(signal.SIGTERM, None)

            def refused() -> bool:
                try:
                    httpx.get(f"{url}/healthz", timeout=5)
                except httpx.TransportError:
                    return True
                return False

            wait_until(refused, "uvicorn to stop accepting connections")
            emb.gate.set()
            responses = [f.result(60) for f in futures]
        server.thread.join(30)
        assert not server.thread.is_alive()
    for (q, k), r in zip(asks, responses):
        assert r.status_code == 200
        assert [(h["id"], pytest.approx(h["score"], abs=1e-6)) for h in r.json()["results"]] == expected_ranking(folders / "notes", q, k)
    with pytest.raises(ServiceUnavailable, match="shutting down"):
        service.submit_search("notes", "fever")


def test_serve_refuses_before_loading_a_port_in_use_an_unknown_host_and_a_wait_past_the_timeout(folders, monkeypatch):
    import socket

    monkeypatch.setattr(CorpusService, "load", classmethod(lambda cls, *a, **k: pytest.fail("loaded the corpora")))
    serve = ["serve", str(folders / "notes"), "--retrieval-only"]
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = runner.invoke(cli_app, [*serve, "--port", str(port)])
    assert result.exit_code == 2, result.output
    assert f"error: cannot listen on 127.0.0.1:{port}: Address already in use" in " ".join(result.output.split())
    result = runner.invoke(cli_app, [*serve, "--host", "999.1.1.1"])
    assert result.exit_code == 2 and "`--host` '999.1.1.1' is not an address of this machine" in result.output, result.output
    result = runner.invoke(cli_app, [*serve, "--max-wait-ms", "2000", "--request-timeout", "2", "--port", str(free_port())])
    assert result.exit_code == 2, result.output
    assert "`max_wait_ms` (--max-wait-ms, 2000) must be below `request_timeout_s` (--request-timeout, 2 s = 2000 ms)" in " ".join(result.output.split())


def test_a_graceful_stop_exits_0(folders, monkeypatch):
    """uvicorn raises SIGTERM again after its graceful shutdown; the command line makes that SystemExit(143):
    ``serve`` exits 0 then, and passes any other exit on."""
    import signal

    import uvicorn

    from dpsynrag.models import Embedder

    monkeypatch.setattr(Embedder, "load", classmethod(lambda cls, *a, **k: HashEmbedder()))
    serve = ["serve", str(folders / "notes"), "--retrieval-only", "--port", str(free_port())]
    for code, expected in ((128 + signal.SIGTERM, 0), (3, 3)):
        def run(app, code=code, **kw):
            raise SystemExit(code)

        monkeypatch.setattr(uvicorn, "run", run)
        assert runner.invoke(cli_app, serve).exit_code == expected


def test_serve_command_passes_the_load_settings(folders, monkeypatch):
    import uvicorn

    from dpsynrag.models import Embedder

    monkeypatch.setattr(Embedder, "load", classmethod(lambda cls, *a, **k: HashEmbedder()))
    seen = {}
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: seen.update(app=app, **kw))
    result = runner.invoke(cli_app, ["serve", str(folders / "notes"), "--retrieval-only", "--max-batch", "7",
                                     "--max-wait-ms", "2.5", "--queue-size", "9", "--request-timeout", "12",
                                     "--port", str(free_port())])
    assert result.exit_code == 0, result.output
    assert seen["timeout_graceful_shutdown"] == 17  # the request timeout plus 5 s
    said = " ".join(result.output.split())
    assert "up to 7 questions per forward pass, 2.5 ms wait, 9 queued at most; request timeout 12 s; request bodies up to 28096 bytes" in said
    assert "cannot hold" not in said
    for flag, value in (("--max-batch", "0"), ("--queue-size", "0"), ("--max-wait-ms", "-1"), ("--request-timeout", "0")):
        result = runner.invoke(cli_app, ["serve", str(folders / "notes"), "--retrieval-only", flag, value])
        assert result.exit_code == 2 and flag in result.output, (flag, result.output)


def test_create_app_refuses_a_batch_wait_not_below_the_request_timeout(tmp_path):
    """The library refuses what the command line refuses: every lone question would wait out its timeout."""
    write_corpus(tmp_path / "notes", HashEmbedder())
    for wait_ms, ok in ((1999.0, True), (2000.0, False)):
        service = CorpusService.load([tmp_path / "notes"], embedder=HashEmbedder(), retrieval_only=True,
                                     batching=BatchPolicy(max_wait_ms=wait_ms))
        try:
            if ok:
                create_app(service, limits=ServiceLimits(request_timeout_s=2.0))
            else:
                with pytest.raises(ConfigError, match=r"`max_wait_ms` \(--max-wait-ms, 2000\) must be below `request_timeout_s` \(--request-timeout, 2 s"):
                    create_app(service, limits=ServiceLimits(request_timeout_s=2.0))
        finally:
            service.close()


def test_a_body_that_is_not_json_gets_415_naming_the_content_type(tmp_path):
    write_corpus(tmp_path / "notes", HashEmbedder())
    client = TestClient(create_app(CorpusService.load([tmp_path / "notes"], embedder=HashEmbedder(), retrieval_only=True)))
    body = json.dumps({"question": "fever and rash", "top_k": 1})
    for ctype in ("text/plain", "text/foo+json"):
        r = client.post("/v1/retrieve", content=body, headers={"content-type": ctype})
        assert r.status_code == 415 and "Content-Type: application/json" in r.json()["detail"], (ctype, r.text)
    r = client.post("/v1/retrieve", content=json.dumps({"question": "fever", "top_k": 999}), headers={"content-type": "text/plain"})
    assert r.status_code == 415  # never parsed, so its top_k is not judged
    for ctype in ("application/json; charset=utf-8", "application/vnd.api+json"):
        r = client.post("/v1/retrieve", content=body, headers={"content-type": ctype})
        assert r.status_code == 200, (ctype, r.text)
    r = client.post("/v1/retrieve", content=json.dumps({"question": "fever", "top_k": "3"}),
                    headers={"content-type": "application/json"})
    assert r.status_code == 422  # a JSON body of the wrong shape is still 422, naming the field


def test_serve_max_body_bytes_sets_the_body_limit(folders, monkeypatch):
    import uvicorn

    from dpsynrag.models import Embedder

    monkeypatch.setattr(Embedder, "load", classmethod(lambda cls, *a, **k: HashEmbedder()))
    seen = {}
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: seen.update(app=app))
    serve = ["serve", str(folders / "notes"), "--retrieval-only", "--port", str(free_port())]
    result = runner.invoke(cli_app, [*serve, "--max-body-bytes", "300"])
    assert result.exit_code == 0, result.output
    said = " ".join(result.output.split())
    assert "request bodies up to 300 bytes" in said
    assert "warning: --max-body-bytes 300 cannot hold a 2000-character question (2016 bytes as JSON)" in said
    client = TestClient(seen["app"])
    for size, status in ((250, 200), (400, 413)):
        body = json.dumps({"question": "q" * (size - 16)})
        r = client.post("/v1/retrieve", content=body, headers={"content-type": "application/json"})
        assert r.status_code == status, (size, len(body), r.text)
    result = runner.invoke(cli_app, [*serve, "--max-body-bytes", "0"])
    assert result.exit_code == 2 and "--max-body-bytes" in result.output, result.output


def test_a_longest_question_json_escaped_fits_the_default_body_limit(tmp_path):
    """2,000 emoji, as Python's json.dumps writes them (12 bytes each), fit the default body limit (28,096 bytes)."""
    write_corpus(tmp_path / "notes", HashEmbedder())
    limits = ServiceLimits()
    assert limits.body_limit == 12 * 2000 + 4096
    client = TestClient(create_app(CorpusService.load([tmp_path / "notes"], embedder=HashEmbedder(), retrieval_only=True),
                                   limits=limits))
    body = json.dumps({"question": "\U0001F600" * 2000, "top_k": 1})
    assert len(body) > 24000
    r = client.post("/v1/retrieve", content=body, headers={"content-type": "application/json"})
    assert r.status_code == 200, r.text
    r = client.post("/v1/retrieve", content=json.dumps({"question": "\U0001F600" * 2001}), headers={"content-type": "application/json"})
    assert r.status_code == 422  # one character over: the question's bound, not the body's
