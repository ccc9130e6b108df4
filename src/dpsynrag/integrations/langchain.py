"""LangChain retriever over a synthetic corpus (``pip install 'dpsynrag[langchain]'``).

Example::

    from dpsynrag.integrations.langchain import DpsynragRetriever
    retriever = DpsynragRetriever.from_corpus("runs/demo/corpus", top_k=4)
    docs = retriever.invoke("I feel dizzy. What is my disease?")
"""

from __future__ import annotations

import os
from typing import Any, Optional

try:
    from langchain_core.callbacks import CallbackManagerForRetrieverRun
    from langchain_core.documents import Document
    from langchain_core.retrievers import BaseRetriever
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError("dpsynrag.integrations.langchain needs langchain-core: pip install 'dpsynrag[langchain]'.") from exc

from pydantic import Field

from dpsynrag.retrieval import CorpusRetriever, RemoteRetriever

__all__ = ["DpsynragRetriever"]


class DpsynragRetriever(BaseRetriever):
    """A LangChain ``BaseRetriever`` returning the top-k kept synthetic texts as ``Document`` objects.

    Each document's ``page_content`` is the text; its ``metadata`` holds ``id`` (record id), ``score``
    (cosine similarity, in [-1, 1]), ``corpus`` and the record's released fields (``keyword``,
    ``noisy_count``, ...).

    Attributes:
        searcher: a :class:`~dpsynrag.retrieval.CorpusRetriever` or
            :class:`~dpsynrag.retrieval.RemoteRetriever` (see :meth:`from_corpus`, :meth:`from_service`).
        top_k: texts per query (>= 1; None: the corpus's default, or the service's).
    """

    searcher: Any
    top_k: Optional[int] = Field(default=None, ge=1)

    @classmethod
    def from_corpus(cls, corpus_dir: str | os.PathLike, *, top_k: Optional[int] = None, embedder=None, **kwargs) -> "DpsynragRetriever":
        """Search a corpus folder in-process (loads the corpus's embedder unless one is given)."""
        return cls(searcher=CorpusRetriever.open(corpus_dir, embedder=embedder), top_k=top_k, **kwargs)

    @classmethod
    def from_service(cls, base_url: str, *, corpus: Optional[str] = None, api_key: Optional[str] = None,
                     top_k: Optional[int] = None, **kwargs) -> "DpsynragRetriever":
        """Search through a running ``dpsynrag serve`` at ``base_url``."""
        return cls(searcher=RemoteRetriever(base_url, corpus=corpus, api_key=api_key), top_k=top_k, **kwargs)

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        hits = self.searcher.search([query], self.top_k)[0]
        return [
            Document(page_content=h.text, metadata={**h.metadata, "id": h.id, "score": h.score, "corpus": self.searcher.name})
            for h in hits
        ]
