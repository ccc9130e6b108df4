"""LangChain and LlamaIndex retrievers against the real packages: in-process over a corpus folder and
through a running service on loopback; results equal :class:`CorpusRetriever`'s."""

from __future__ import annotations

import pytest
from fakes import HashEmbedder
from langchain_core.documents import Document
from llama_index.core.schema import NodeWithScore, TextNode
from servers import TEXTS, LoopbackServer, write_corpus

from dpsynrag.errors import ConfigError, EndpointError
from dpsynrag.integrations.langchain import DpsynragRetriever as LangChainRetriever
from dpsynrag.integrations.llamaindex import DpsynragRetriever as LlamaIndexRetriever
from dpsynrag.corpus.retrieval import CorpusRetriever
from dpsynrag.serve import CorpusService, create_app

QUESTIONS = ["fever and cough", "the rash", "heart"]


@pytest.fixture()
def folder(tmp_path):
    write_corpus(tmp_path / "notes", HashEmbedder(), kept=[True, True, False, True, True, True])
    return tmp_path / "notes"


def _want(folder, q, k):
    return CorpusRetriever.open(folder, embedder=HashEmbedder()).search([q], k)[0]


def test_langchain_retriever_in_process(folder):
    retriever = LangChainRetriever.from_corpus(folder, top_k=3, embedder=HashEmbedder())
    for q in QUESTIONS:
        docs = retriever.invoke(q)
        want = _want(folder, q, 3)
        assert len(docs) == 3 and all(isinstance(d, Document) for d in docs)
        assert [d.page_content for d in docs] == [h.text for h in want]
        assert [d.metadata["score"] for d in docs] == pytest.approx([h.score for h in want])
        assert [d.metadata["id"] for d in docs] == [h.id for h in want]
        assert all(d.metadata["corpus"] == "notes" and d.metadata["keyword"] == d.page_content.split()[-1] for d in docs)
    assert TEXTS[2] not in [d.page_content for d in LangChainRetriever.from_corpus(folder, top_k=10, embedder=HashEmbedder()).invoke("blood")]
    batch = retriever.batch(QUESTIONS)  # LangChain's Runnable API on top of ours
    assert [[d.page_content for d in docs] for docs in batch] == [[h.text for h in _want(folder, q, 3)] for q in QUESTIONS]
    with pytest.raises(ValueError):
        LangChainRetriever.from_corpus(folder, top_k=0, embedder=HashEmbedder())


def test_llamaindex_retriever_in_process(folder):
    retriever = LlamaIndexRetriever.from_corpus(folder, top_k=2, embedder=HashEmbedder())
    for q in QUESTIONS:
        nodes = retriever.retrieve(q)
        want = _want(folder, q, 2)
        assert all(isinstance(n, NodeWithScore) and isinstance(n.node, TextNode) for n in nodes)
        assert [n.node.get_content() for n in nodes] == [h.text for h in want]
        assert [n.score for n in nodes] == pytest.approx([h.score for h in want])
        assert [n.node.node_id for n in nodes] == [f"notes:{h.id}" for h in want]
    with pytest.raises(ConfigError, match="top_k"):
        LlamaIndexRetriever.from_corpus(folder, top_k=0, embedder=HashEmbedder())


def test_both_retrievers_through_the_service(folder):
    service = CorpusService.load([folder], embedder=HashEmbedder(), retrieval_only=True)
    with LoopbackServer(create_app(service, api_keys=["k"])) as url:
        lc = LangChainRetriever.from_service(url, corpus="notes", api_key="k", top_k=3)
        li = LlamaIndexRetriever.from_service(url, api_key="k", top_k=3)
        for q in QUESTIONS:
            want = _want(folder, q, 3)
            docs, nodes = lc.invoke(q), li.retrieve(q)
            assert [d.page_content for d in docs] == [n.node.get_content() for n in nodes] == [h.text for h in want]
            assert [d.metadata["score"] for d in docs] == pytest.approx([h.score for h in want], abs=1e-6)
            assert docs[0].metadata["noisy_count"] == want[0].metadata["noisy_count"]
        with pytest.raises(EndpointError, match="HTTP 403"):
            LangChainRetriever.from_service(url, api_key="wrong").invoke("fever")
        with pytest.raises(EndpointError, match="HTTP 404"):
            LlamaIndexRetriever.from_service(url, corpus="other", api_key="k").retrieve("fever")
