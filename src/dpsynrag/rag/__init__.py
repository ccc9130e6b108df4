"""Downstream RAG (METHOD.md §4): the vector index (:mod:`~dpsynrag.rag.index`), top-k retrieval and
greedy answers (:mod:`~dpsynrag.rag.answer`). Over a synthetic corpus this is post-processing; for the
non-private baselines it runs over the private documents themselves. Retrieval from a corpus folder or a
running service is :mod:`dpsynrag.corpus.retrieval`.
"""

from dpsynrag.rag.answer import (
    DEFAULT_SYSTEM_PROMPT,
    NOT_COVERED,
    Answer,
    RAGAnswerer,
    answer_user_prompt,
    check_questions,
)
from dpsynrag.rag.index import VectorIndex

__all__ = ["DEFAULT_SYSTEM_PROMPT", "NOT_COVERED", "Answer", "RAGAnswerer", "VectorIndex", "answer_user_prompt",
           "check_questions"]
