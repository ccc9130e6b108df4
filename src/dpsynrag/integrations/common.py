"""What the LangChain and LlamaIndex retrievers share: how they are made from a corpus folder or a
running ``dpsynrag serve``, and the error when their framework is missing."""

from __future__ import annotations

import os
from typing import Optional, TypeVar

from dpsynrag.retrieval import CorpusRetriever, RemoteRetriever

_R = TypeVar("_R", bound="SearcherFactories")


def missing_framework(module: str, package: str, extra: str) -> ImportError:
    """The ImportError raised when ``module`` is imported without its framework ``package``."""
    return ImportError(f"{module} needs {package}: pip install 'dpsynrag[{extra}]'.")


class SearcherFactories:
    """``from_corpus`` / ``from_service`` of a retriever built as ``cls(searcher=..., top_k=..., **kwargs)``."""

    @classmethod
    def from_corpus(cls: type[_R], corpus_dir: str | os.PathLike, *, top_k: Optional[int] = None, embedder=None,
                    **kwargs) -> _R:
        """Search a corpus folder in-process (loads the corpus's embedder unless one is given); ``kwargs``
        (e.g. ``repeat_copies=True``) go to the retriever."""
        return cls(searcher=CorpusRetriever.open(corpus_dir, embedder=embedder), top_k=top_k, **kwargs)

    @classmethod
    def from_service(cls: type[_R], base_url: str, *, corpus: Optional[str] = None, api_key: Optional[str] = None,
                     top_k: Optional[int] = None, **kwargs) -> _R:
        """Search through a running ``dpsynrag serve`` at ``base_url``; ``kwargs`` go to the retriever."""
        return cls(searcher=RemoteRetriever(base_url, corpus=corpus, api_key=api_key), top_k=top_k, **kwargs)
