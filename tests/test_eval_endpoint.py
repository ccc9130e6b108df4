"""`dpsynrag eval --answer-endpoint`: the synthetic-corpus methods and Non-RAG answered by an
OpenAI-compatible endpoint (a local server on loopback), never with a private document in a request."""

import json

import pytest
from fakes import HashEmbedder
from servers import LoopbackServer, fake_openai_app

from dpsynrag.errors import ConfigError
from dpsynrag.eval import EvalConfig, run_eval

TINY = dict(documents=60, questions=3, attacks=1, answer_tokens=6, top_k=2,
            synrag=dict(K=3, R=3, L=2, k=10, T=4, extractor="rarity", open_vocabulary=True, max_document_tokens=32,
                        fluency_threshold=None))


def test_endpoint_answers_corpus_methods_without_private_text(tmp_path, tiny_lm):
    app = fake_openai_app()
    with LoopbackServer(app) as url:
        config = EvalConfig.create(task="medical", out=tmp_path / "e", methods="non-rag,dp-synrag", preset="cpu",
                                   answer_endpoint=url + "/v1", answer_model="tiny-chat", **TINY)
        results = run_eval(config, lm=tiny_lm, embedder=HashEmbedder(), progress=False, log=lambda s: None,
                           plots=False)
    bodies = app.state.requests
    assert bodies and all(b["model"] == "tiny-chat" for b in bodies)
    answers = [json.loads(line) for f in (tmp_path / "e" / "cache" / "answers").glob("*.jsonl")
               for line in f.read_text().splitlines() if line.startswith("{")]
    assert any("echo tiny-chat" in json.dumps(a) for a in answers)  # the answers are the endpoint's
    assert results["answering"]["answer_model"].startswith("tiny-chat @ http://127.0.0.1")
    # what reached the endpoint: questions and released synthetic texts, never a private document
    from dpsynrag.eval.data import load_eval_data

    documents = load_eval_data(config).documents
    sent = json.dumps(bodies)
    assert not any(json.dumps(d.text)[1:-1] in sent for d in documents)


def test_endpoint_refuses_rag_and_dp_rag_and_needs_a_model(tmp_path):
    for methods in ("rag", "dp-rag", "non-rag,rag"):
        with pytest.raises(ConfigError, match="cannot answer"):
            EvalConfig.create(task="medical", out=tmp_path, methods=methods, answer_endpoint="http://127.0.0.1:9/v1",
                              answer_model="m")
    with pytest.raises(ConfigError, match="go together"):
        EvalConfig.create(task="medical", out=tmp_path, methods="non-rag", answer_endpoint="http://127.0.0.1:9/v1")
