"""LangChain retriever over a synthetic corpus (``pip install 'dpsynrag[langchain]'``).

Example::

    from dpsynrag.integrations.langchain import DpsynragRetriever
    retriever = DpsynragRetriever.from_corpus("runs/demo/corpus", top_k=4)
    docs = retriever.invoke("I feel dizzy. What is my disease?")
"""

from __future__ import annotations

from typing import Any, Optional

from dpsynrag.integrations.common import SearcherFactories, missing_framework

try:
    from langchain_core.callbacks import CallbackManagerForRetrieverRun
    from langchain_core.documents import Document
    from langchain_core.retrievers import BaseRetriever
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise missing_framework(__name__, "langchain-core", "langchain") from exc

from pydantic import Field

__all__ = ["DpsynragRetriever"]


class DpsynragRetriever(SearcherFactories, BaseRetriever):
    """A LangChain ``BaseRetriever`` returning the top-k kept synthetic texts as ``Document`` objects.

    Each document's ``page_content`` is the text; its ``metadata`` holds ``id`` (record id), ``score``
    (cosine similarity, in [-1, 1]), ``corpus``, ``copies`` (the text's index copies, >= 1) and the
    record's released fields (``keyword``, ``noisy_count``, ...). The texts are distinct unless
    ``repeat_copies`` (:mod:`dpsynrag.retrieval`).

    Attributes:
        searcher: a :class:`~dpsynrag.retrieval.CorpusRetriever` or
            :class:`~dpsynrag.retrieval.RemoteRetriever` (see :meth:`from_corpus`, :meth:`from_service`).
        top_k: texts per query (>= 1; None: the corpus's default, or the service's).
        repeat_copies: a text with m index copies may fill up to m of the top_k places (default: each once).
    """

    searcher: Any
    top_k: Optional[int] = Field(default=None, ge=1)
    repeat_copies: bool = False

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        hits = self.searcher.search([query], self.top_k, repeat_copies=self.repeat_copies)[0]
        return [
            Document(page_content=h.text, metadata={**h.metadata, "id": h.id, "score": h.score, "corpus": self.searcher.name})
            for h in hits
        ]
