"""Retrievers for LangChain and LlamaIndex over a synthetic corpus (optional extras:
``pip install 'dpsynrag[langchain]'`` / ``'dpsynrag[llamaindex]'``).

* :class:`dpsynrag.integrations.langchain.DpsynragRetriever` — a ``langchain_core`` ``BaseRetriever``.
* :class:`dpsynrag.integrations.llamaindex.DpsynragRetriever` — a ``llama_index.core`` ``BaseRetriever``.

Both search either a corpus folder in-process (:class:`~dpsynrag.retrieval.CorpusRetriever`) or a running
``dpsynrag serve`` (:class:`~dpsynrag.retrieval.RemoteRetriever`). Retrieval from a synthetic corpus is
post-processing: any number of queries, no privacy cost. The submodules import their framework only
when imported themselves, so the rest of dpsynrag never needs either package.
"""
