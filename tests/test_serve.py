"""`dpsynrag serve`: every endpoint on loopback, bad requests, API keys, concurrency, and answering with an
OpenAI-compatible endpoint (a tiny local server). Corpora are written directly; the models are the tiny
fakes (hash embedder, tiny Llama)."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import httpx
import numpy as np
import pytest
from fakes import HashEmbedder
from fastapi.testclient import TestClient
from servers import TEXTS, LoopbackServer, fake_openai_app, write_corpus
from typer.testing import CliRunner

from dpsynrag.cli import app as cli_app
from dpsynrag.corpus import SyntheticCorpus
from dpsynrag.errors import ConfigError, CorpusError, EndpointError
from dpsynrag.models.endpoint import OpenAIChatModel
from dpsynrag.rag import DEFAULT_SYSTEM_PROMPT, answer_user_prompt
from dpsynrag.serve import CorpusService, ServiceLimits, create_app, read_api_keys

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
    assert client.get("/healthz").json() == {"status": "ok", "corpora": 3}
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
        assert result.output.strip() == "echo tiny-chat 2 64 rash"
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
                if httpx.get(f"{url}/healthz").json() == {"status": "ok", "corpora": 1}:
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
