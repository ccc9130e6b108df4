"""The corpus on disk: its format (:mod:`~dpsynrag.corpus.format`), the writer a build finishes with
(:mod:`~dpsynrag.corpus.writer`), the reader (:mod:`~dpsynrag.corpus.reader`: :class:`SyntheticCorpus`,
RAG over it, no budget), scored retrieval (:mod:`~dpsynrag.corpus.retrieval`) and export
(:mod:`~dpsynrag.corpus.export`). Growing a corpus by a later build of its method is
:mod:`dpsynrag.methods.extend` (it runs the registered method).
"""

from dpsynrag.corpus.reader import FEW_KEPT_FRACTION, SyntheticCorpus, content_warning
from dpsynrag.corpus.writer import CorpusWriter

__all__ = ["FEW_KEPT_FRACTION", "CorpusWriter", "SyntheticCorpus", "content_warning"]
