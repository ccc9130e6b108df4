"""Downstream RAG (METHOD.md §4): the vector index (:mod:`~dpsynrag.rag.index`), top-k retrieval and
answers (:mod:`~dpsynrag.rag.answer`): greedy generation, or the best-matching sentence of the retrieved
texts (``answer_mode="extractive"``). Over a synthetic corpus this is post-processing; for the
non-private baselines it runs over the private documents themselves. Retrieval from a corpus folder or a
running service is :mod:`dpsynrag.corpus.retrieval`.
"""

from dpsynrag.rag.answer import (
    ANSWER_MODES,
    DEFAULT_ANSWER_TOKENS,
    DEFAULT_SYSTEM_PROMPT,
    NOT_COVERED,
    Answer,
    RAGAnswerer,
    answer_user_prompt,
    check_questions,
    extract_answers,
    split_sentences,
)
from dpsynrag.rag.index import VectorIndex

__all__ = ["ANSWER_MODES", "DEFAULT_ANSWER_TOKENS", "DEFAULT_SYSTEM_PROMPT", "NOT_COVERED", "Answer", "RAGAnswerer",
           "VectorIndex", "answer_user_prompt", "check_questions", "extract_answers", "split_sentences"]
