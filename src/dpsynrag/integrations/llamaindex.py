"""LlamaIndex retriever over a synthetic corpus (``pip install 'dpsynrag[llamaindex]'``; example in
:mod:`dpsynrag.integrations`)."""

from __future__ import annotations

from typing import Optional

from dpsynrag.integrations.common import SearcherFactories, framework

with framework(__name__, "llama-index-core", "llamaindex"):
    from llama_index.core.retrievers import BaseRetriever
    from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode

from dpsynrag.errors import ConfigError

__all__ = ["DpsynragRetriever"]


class DpsynragRetriever(SearcherFactories, BaseRetriever):
    """A LlamaIndex ``BaseRetriever`` returning the top-k kept synthetic texts as ``NodeWithScore``.

    Each node is a ``TextNode`` with ``id_`` ``"{corpus}:{record id}"``, the text, and ``metadata``
    holding ``id``, ``corpus``, ``copies`` (the text's index copies, >= 1) and the record's released
    fields; its score is the cosine similarity (in [-1, 1]). The texts are distinct unless
    ``repeat_copies``; then the c-th repeat (c >= 2) of a text has ``id_`` ``"{corpus}:{record id}#c"``,
    since LlamaIndex drops nodes whose ``id_`` it has seen.

    Args:
        searcher, top_k, repeat_copies: see :class:`~dpsynrag.integrations.common.SearcherFactories`.
        kwargs: passed to LlamaIndex's ``BaseRetriever`` (``callback_manager``, ``verbose``).

    Raises:
        ConfigError: ``top_k`` < 1.
    """

    def __init__(self, searcher, *, top_k: Optional[int] = None, repeat_copies: bool = False, **kwargs):
        if top_k is not None and (isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 1):
            raise ConfigError(f"`top_k` must be an integer >= 1. Found {top_k!r}.")
        if not isinstance(repeat_copies, bool):
            raise ConfigError(f"`repeat_copies` must be True or False. Found {repeat_copies!r}.")
        self.searcher, self.top_k, self.repeat_copies = searcher, top_k, repeat_copies
        super().__init__(**kwargs)

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        hits = self.searcher.search([query_bundle.query_str], self.top_k, repeat_copies=self.repeat_copies)[0]
        name = self.searcher.name
        seen: dict[int, int] = {}
        nodes = []
        for h in hits:
            seen[h.id] = seen.get(h.id, 0) + 1
            node_id = f"{name}:{h.id}" + (f"#{seen[h.id]}" if seen[h.id] > 1 else "")
            nodes.append(NodeWithScore(node=TextNode(id_=node_id, text=h.text,
                                                     metadata={**h.metadata, "id": h.id, "corpus": name}), score=h.score))
        return nodes
