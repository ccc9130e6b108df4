"""What the LangChain and LlamaIndex retrievers share: how they are made from a corpus folder or a
running ``dpsynrag serve``, and the error when their framework is missing."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import Optional, TypeVar

from dpsynrag.corpus.retrieval import CorpusRetriever, RemoteRetriever

_R = TypeVar("_R", bound="SearcherFactories")


@contextlib.contextmanager
def framework(module: str, package: str, extra: str) -> Iterator[None]:
    """Around the imports of ``module``'s framework: an ImportError inside becomes one that says which
    package ``module`` needs and the extra that installs it (``pip install 'dpsynrag[extra]'``)."""
    try:
        yield
    except ImportError as exc:
        raise ImportError(f"{module} needs {package}: pip install 'dpsynrag[{extra}]'.") from exc


class SearcherFactories:
    """``from_corpus`` / ``from_service`` of a retriever built as ``cls(searcher=..., top_k=..., **kwargs)``.

    The retrievers' fields:
        searcher: a :class:`~dpsynrag.corpus.retrieval.CorpusRetriever` or
            :class:`~dpsynrag.corpus.retrieval.RemoteRetriever` (see :meth:`from_corpus`, :meth:`from_service`).
        top_k: texts per query (>= 1; None: the corpus's default, or the service's).
        repeat_copies: a text with m index copies may fill up to m of the top_k places (default: each
            once; the texts are distinct, :mod:`dpsynrag.corpus.retrieval`).
    """

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
