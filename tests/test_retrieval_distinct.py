"""Retrieval returns top_k distinct texts everywhere (issue 28, item 4): the library
(:class:`CorpusRetriever`, :meth:`SyntheticCorpus.answerer` / ``answer_many``), LangChain, LlamaIndex,
``dpsynrag serve`` (``/v1/retrieve``, ``/v1/query``, and through :class:`RemoteRetriever`) and
``dpsynrag query --show-context / --json`` give the same record ids in the same order on a corpus with
index copies, each hit with its ``copies``; ``repeat_copies`` / ``--repeat-copies`` / ``"repeat_copies"``
gives back the index as built (a text once per copy), the context the evaluation harness answers with.

The expected rankings are brute force: cosine scores of the hash embedder over the distinct texts (or
over every index row), sorted."""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pytest
from fakes import HashEmbedder
from fastapi.testclient import TestClient
from servers import LoopbackServer, privacy_dict
from typer.testing import CliRunner

from dpsynrag.cli import app
from dpsynrag.corpus import CorpusWriter, SyntheticCorpus
from dpsynrag.integrations.langchain import DpsynragRetriever as LangChainRetriever
from dpsynrag.integrations.llamaindex import DpsynragRetriever as LlamaIndexRetriever
from dpsynrag.rag import VectorIndex
from dpsynrag.corpus.retrieval import CorpusRetriever, RemoteRetriever
from dpsynrag.serve import CorpusService, create_app

runner = CliRunner()

# Six released texts, one rejected (id 12); the frequent topics have index copies.
TEXTS = [
    "the patient has fever and cough",
    "fever with a cough at night",
    "blood test of the heart and lung",
    "red eye and ear pain for a week",
    "the old patient was good after rest",
    "skin rash with fever",
]
COPIES = [3, 2, 4, 1, 1, 2]
KEPT = [True, True, False, True, True, True]
QUESTIONS = ["fever and cough", "skin rash", "heart test", "pain in the ear", "old patient rest"]
DISTINCT = sum(KEPT)  # 5 kept texts, 9 index rows


def write_copied_corpus(path, embedder):
    records = [{"id": 10 + i, "keyword": t.split()[-1], "noisy_count": 10 * c, "copies": c, "text": t, "kept": k}
               for i, (t, c, k) in enumerate(zip(TEXTS, COPIES, KEPT))]
    manifest = {"method": "dp-synrag", "config": {}, "model": {"spec": None, "name": "tiny-llama"},
                "embedder": {"spec": None}, "privacy": privacy_dict(), "not_for_release": True}
    with CorpusWriter(path) as w:
        return w.finish(records, manifest, embedder)


@pytest.fixture()
def folder(tmp_path):
    write_copied_corpus(tmp_path / "notes", HashEmbedder())
    return tmp_path / "notes"


def cosine(question: str) -> dict[int, float]:
    """Record id -> cosine score of its text against ``question``."""
    emb = HashEmbedder()
    return dict(zip(range(10, 10 + len(TEXTS)), (emb.encode(TEXTS) @ emb.encode([question])[0]).tolist()))


def assert_ranking(ids: list[int], scores: list[float], question: str, k: int, *, repeat_copies: bool = False) -> None:
    """``ids`` (with ``scores``) are a top-k of the brute-force ranking: the same scores, each its id's own,
    best first, each id at most once (at most its copies with ``repeat_copies``): equal up to the order of
    tied texts."""
    assert scores == pytest.approx([s for _, s in brute_force(question, k, repeat_copies=repeat_copies)], abs=1e-6)
    own = cosine(question)
    assert scores == pytest.approx([own[i] for i in ids], abs=1e-6)
    assert all(ids.count(i) <= (COPIES[i - 10] if repeat_copies else 1) and KEPT[i - 10] for i in ids)


def brute_force(question: str, k: int, *, repeat_copies: bool = False) -> list[tuple[int, float]]:
    """(record id, cosine score) of the top-k: over the kept texts once each, or over every index row."""
    emb = HashEmbedder()
    rows = [(10 + i, t) for i, (t, c, kept) in enumerate(zip(TEXTS, COPIES, KEPT)) if kept
            for _ in range(c if repeat_copies else 1)]
    scores = emb.encode([t for _, t in rows]) @ emb.encode([question])[0]
    order = np.argsort(-scores, kind="stable")[:k]
    return [(rows[j][0], float(scores[j])) for j in order]


def test_the_distinct_view_and_copies(folder):
    corpus = SyntheticCorpus.load(folder)
    assert corpus.index_ids == [10, 10, 10, 11, 11, 13, 14, 15, 15]
    assert corpus.copies == {10: 3, 11: 2, 13: 1, 14: 1, 15: 2}
    ids, texts, index = corpus.view()
    assert ids == [10, 11, 13, 14, 15] and texts == [TEXTS[i] for i in (0, 1, 3, 4, 5)] and len(index) == 5
    # the distinct index holds exactly the stored vectors of each text's first row
    q = HashEmbedder().encode(["fever"])
    assert np.allclose(index.search(q, 5)[0], np.sort(HashEmbedder().encode(texts) @ q[0])[::-1], atol=1e-6)
    assert corpus.view(repeat_copies=True) == (corpus.index_ids, corpus.texts, corpus.index)
    with pytest.raises(Exception, match="rows"):
        corpus.index.subset([9])


def test_a_corpus_without_copies_searches_its_own_index(tmp_path):
    from servers import write_corpus

    corpus = write_corpus(tmp_path / "plain", HashEmbedder())
    assert corpus.view() == (corpus.index_ids, corpus.texts, corpus.index)
    assert corpus.copies == {i: 1 for i in corpus.index_ids}


@pytest.mark.parametrize("k", [1, 3, 5, 8])
def test_library_search_returns_k_distinct_texts(folder, k):
    retriever = CorpusRetriever.open(folder, embedder=HashEmbedder())
    assert len(retriever) == DISTINCT
    for q in QUESTIONS:
        hits = retriever.search([q], k)[0]
        assert_ranking([h.id for h in hits], [h.score for h in hits], q, k)
        assert len(hits) == min(k, DISTINCT) == len({h.id for h in hits})  # k distinct when k exist
        assert all(h.metadata["copies"] == COPIES[h.id - 10] and h.text == TEXTS[h.id - 10] for h in hits)


@pytest.mark.parametrize("k", [1, 4, 9, 12])
def test_repeat_copies_is_the_index_as_built(folder, k):
    """With the option: the old search of the built index (a text once per copy, at most 9 rows)."""
    corpus = SyntheticCorpus.load(folder)
    retriever = CorpusRetriever(corpus, HashEmbedder())
    emb = HashEmbedder()
    for q in QUESTIONS:
        hits = retriever.search([q], k, repeat_copies=True)[0]
        scores, rows = corpus.index.search(emb.encode([q]), k)  # what search did before distinct retrieval
        assert [h.id for h in hits] == [corpus.index_ids[j] for j in rows[0]]
        assert_ranking([h.id for h in hits], [h.score for h in hits], q, k, repeat_copies=True)
        assert len(hits) == min(k, len(corpus.index_ids))
        assert all(h.metadata["copies"] == COPIES[h.id - 10] for h in hits)
    hits = retriever.search(["fever and cough"], 9, repeat_copies=True)[0]
    assert sorted(h.id for h in hits) == sorted(corpus.index_ids)  # every copy once


def test_answerer_context_is_distinct_unless_repeat_copies(folder, tiny_lm):
    corpus = SyntheticCorpus.load(folder)
    for repeat in (False, True):
        retriever = CorpusRetriever(corpus, HashEmbedder())
        answerer = corpus.answerer(lm=tiny_lm, embedder=HashEmbedder(), top_k=4, repeat_copies=repeat)
        for q in QUESTIONS:
            want = [h.text for h in retriever.search([q], 4, repeat_copies=repeat)[0]]
            assert answerer.retrieve([q])[0] == want
            if not repeat:
                assert len(set(want)) == len(want) == 4
        answers = corpus.answer_many(QUESTIONS[:2], top_k=4, lm=tiny_lm, embedder=HashEmbedder(), max_new_tokens=2,
                                     repeat_copies=repeat)
        assert [list(a.context) for a in answers] == [
            [h.text for h in retriever.search([q], 4, repeat_copies=repeat)[0]] for q in QUESTIONS[:2]]
        if not repeat:
            assert all(len(set(a.context)) == 4 for a in answers)


def _ids_everywhere(folder, tiny_lm, monkeypatch, q: str, k: int, repeat: bool) -> dict[str, list[int]]:
    """The record ids each interface returns for ``q`` at top-k."""
    from dpsynrag.models import Embedder, LanguageModel

    got = {"library": [h.id for h in CorpusRetriever.open(folder, embedder=HashEmbedder()).search([q], k,
                                                                                                repeat_copies=repeat)[0]]}
    lc = LangChainRetriever.from_corpus(folder, top_k=k, embedder=HashEmbedder(), repeat_copies=repeat)
    got["langchain"] = [d.metadata["id"] for d in lc.invoke(q)]
    li = LlamaIndexRetriever.from_corpus(folder, top_k=k, embedder=HashEmbedder(), repeat_copies=repeat)
    nodes = li.retrieve(q)
    got["llamaindex"] = [n.node.metadata["id"] for n in nodes]
    assert len({n.node.node_id for n in nodes}) == len(nodes)  # LlamaIndex drops repeated node ids
    service = CorpusService.load([folder], lm=tiny_lm, embedder=HashEmbedder())
    client = TestClient(create_app(service))
    body = {"question": q, "top_k": k, **({"repeat_copies": True} if repeat else {})}
    results = client.post("/v1/retrieve", json=body).json()["results"]
    got["serve /v1/retrieve"] = [h["id"] for h in results]
    assert all(h["copies"] == COPIES[h["id"] - 10] for h in results)
    got["serve /v1/query"] = [h["id"] for h in client.post("/v1/query", json={**body, "max_tokens": 2}).json()["contexts"]]
    with LoopbackServer(create_app(service)) as url:
        got["remote"] = [h.id for h in RemoteRetriever(url).search([q], k, repeat_copies=repeat)[0]]
        got["langchain remote"] = [d.metadata["id"] for d in
                                   LangChainRetriever.from_service(url, top_k=k, repeat_copies=repeat).invoke(q)]

    monkeypatch.setattr(LanguageModel, "load", classmethod(lambda cls, *a, **kw: tiny_lm))
    monkeypatch.setattr(Embedder, "load", classmethod(lambda cls, *a, **kw: HashEmbedder()))
    flags = ["--top-k", str(k), "--max-tokens", "2", *(["--repeat-copies"] if repeat else [])]
    result = runner.invoke(app, ["query", str(folder), q, *flags, "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    got["query --json"] = [c["id"] for c in payload["contexts"]]
    assert all(c["copies"] == COPIES[c["id"] - 10] and c["keyword"] == TEXTS[c["id"] - 10].split()[-1]
               for c in payload["contexts"])
    assert_ranking(got["query --json"], [c["score"] for c in payload["contexts"]], q, k, repeat_copies=repeat)
    result = runner.invoke(app, ["query", str(folder), q, *flags, "--show-context"])
    assert result.exit_code == 0, result.output
    lines = [line for line in result.stdout.splitlines() if line.startswith("context [")]
    got["query --show-context"] = [10 + TEXTS.index(line.split("): ", 1)[1]) for line in lines]
    assert result.stdout.endswith("answer: " + payload["answer"] + "\n")  # the same answer from the same context
    return got


@pytest.mark.parametrize("repeat", [False, True])
def test_every_interface_returns_the_same_ids(folder, tiny_lm, monkeypatch, repeat):
    q, k = "fever and cough", 4
    got = _ids_everywhere(folder, tiny_lm, monkeypatch, q, k, repeat)
    want = got["library"]
    assert_ranking(want, [cosine(q)[i] for i in want], q, k, repeat_copies=repeat)
    assert all(ids == want for ids in got.values()), got
    if repeat:
        assert len(set(want)) < k  # the copies fill places: today's behaviour, kept as the option
    else:
        assert len(set(want)) == k


def test_the_evaluation_harness_answers_with_the_copies(folder, tiny_lm):
    """The harness's corpus answerer repeats the copies (its measured numbers stay comparable)."""
    from dpsynrag.eval.runner import Harness

    corpus = SyntheticCorpus.load(folder)
    stub = SimpleNamespace(data=SimpleNamespace(task=SimpleNamespace(answer_system_prompt="Answer.")),
                           config=SimpleNamespace(preset=SimpleNamespace(answer_tokens=4)),
                           answer_lm=tiny_lm, embedder=HashEmbedder(), top_k=4, answer_mode=lambda spec: "generate")
    answerer = Harness.retriever(stub, None, corpus)
    assert answerer.texts == corpus.texts and len(answerer.texts) == 9
    q = "fever and cough"
    hits = CorpusRetriever(corpus, HashEmbedder()).search([q], 4, repeat_copies=True)[0]
    assert answerer.retrieve([q])[0] == [h.text for h in hits] and len({h.id for h in hits}) < 4


def test_vector_index_subset_reads_back_the_vectors():
    vectors = HashEmbedder().encode(TEXTS)
    index = VectorIndex(vectors)
    sub = index.subset([4, 0, 2])
    assert len(sub) == 3 and sub.dim == index.dim
    scores, rows = sub.search(vectors[[0]], 3)
    assert scores[0].tolist() == pytest.approx(sorted((vectors[[4, 0, 2]] @ vectors[0]).tolist(), reverse=True), abs=1e-6)
    assert len(index.subset([])) == 0
