"""LangChain retriever over a synthetic corpus (``pip install 'dpsynrag[langchain]'``; example in
:mod:`dpsynrag.integrations`)."""

from __future__ import annotations

from typing import Any, Optional

from dpsynrag.integrations.common import SearcherFactories, framework

with framework(__name__, "langchain-core", "langchain"):
    from langchain_core.callbacks import CallbackManagerForRetrieverRun
    from langchain_core.documents import Document
    from langchain_core.retrievers import BaseRetriever

from pydantic import Field

__all__ = ["DpsynragRetriever"]


class DpsynragRetriever(SearcherFactories, BaseRetriever):
    """A LangChain ``BaseRetriever`` returning the top-k kept synthetic texts as ``Document`` objects.

    Each document's ``page_content`` is the text; its ``metadata`` holds ``id`` (record id), ``score``
    (cosine similarity, in [-1, 1]), ``corpus``, ``copies`` (the text's index copies, >= 1) and the
    record's released fields (``keyword``, ``noisy_count``, ...). Fields ``searcher``, ``top_k``,
    ``repeat_copies``: see :class:`~dpsynrag.integrations.common.SearcherFactories`.
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
