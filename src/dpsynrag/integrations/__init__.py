"""Retrievers for LangChain and LlamaIndex over a synthetic corpus (optional extras:
``pip install 'dpsynrag[langchain]'`` / ``'dpsynrag[llamaindex]'``).

* :class:`dpsynrag.integrations.langchain.DpsynragRetriever` — a ``langchain_core`` ``BaseRetriever``.
* :class:`dpsynrag.integrations.llamaindex.DpsynragRetriever` — a ``llama_index.core`` ``BaseRetriever``.

Both search either a corpus folder in-process (:class:`~dpsynrag.corpus.retrieval.CorpusRetriever`) or a running
``dpsynrag serve`` (:class:`~dpsynrag.corpus.retrieval.RemoteRetriever`). Retrieval from a synthetic corpus is
post-processing: any number of queries, no privacy cost. The submodules import their framework only
when imported themselves, so the rest of dpsynrag never needs either package.

Example (``from_service("http://127.0.0.1:8000")`` searches a running service instead)::

    from dpsynrag.integrations.langchain import DpsynragRetriever
    docs = DpsynragRetriever.from_corpus("runs/demo/corpus", top_k=4).invoke("I feel dizzy. What is my disease?")

    from dpsynrag.integrations.llamaindex import DpsynragRetriever as LlamaRetriever
    nodes = LlamaRetriever.from_corpus("runs/demo/corpus", top_k=4).retrieve("I feel dizzy. What is my disease?")
"""
