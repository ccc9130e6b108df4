"""The two non-private baselines of DP-SynRAG's comparison (METHOD.md §5; DP-SynRAG §6.1, Table 1).

* **Non-RAG**: the language model answers from the question alone (ε = 0: it never sees the data).
* **RAG**: plain retrieval-augmented generation over the *private* documents (no DP, ε = ∞): the
  upper bound on utility, and the leakage reference.

Both are thin factories over :class:`dpsynrag.rag.RAGAnswerer` with the task's public answer prompt and
retrieval depth, so they share the answer prompt, the greedy decoding and the retriever with the RAG
over a synthetic corpus (:meth:`dpsynrag.corpus.SyntheticCorpus.answerer`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from dpsynrag.baselines._common import as_documents, check_positive_int, resolve_task
from dpsynrag.data.io import Document
from dpsynrag.errors import ConfigError
from dpsynrag.rag import DEFAULT_SYSTEM_PROMPT, RAGAnswerer


def _prompt_and_k(task, system_prompt: str | None, top_k: int | None) -> tuple[str, int]:
    t = resolve_task(task)
    prompt = system_prompt or (t.answer_system_prompt if t is not None else DEFAULT_SYSTEM_PROMPT)
    k = top_k if top_k is not None else (t.rag_top_k if t is not None else 10)
    check_positive_int("top_k", k)
    return prompt, k


def non_rag_answerer(
    lm,
    embedder=None,
    *,
    task=None,
    system_prompt: str | None = None,
    max_new_tokens: int = 64,
    batch_size: int | None = None,
) -> RAGAnswerer:
    """The Non-RAG baseline: greedy answers from the question alone (no documents, no privacy cost).

    Args:
        lm: a :class:`~dpsynrag.models.LanguageModel`.
        embedder: unused (accepted so that every answerer factory takes the same models).
        task: a :class:`~dpsynrag.tasks.Task` or its name; its ``answer_system_prompt`` is used.
        system_prompt: overrides the task's answer prompt (default: the task's, else
            :data:`dpsynrag.rag.DEFAULT_SYSTEM_PROMPT`).
        max_new_tokens: answer length in tokens (>= 1).
        batch_size: prompts per generation batch (None: automatic).

    Returns:
        A :class:`~dpsynrag.rag.RAGAnswerer` over no texts; ``answer(questions)`` gives
        :class:`~dpsynrag.rag.Answer` objects with an empty ``context``.

    Raises:
        ConfigError: an unknown task or a bad ``max_new_tokens``.
    """
    check_positive_int("max_new_tokens", max_new_tokens)
    prompt, k = _prompt_and_k(task, system_prompt, None)
    return RAGAnswerer(lm, embedder, [], top_k=k, system_prompt=prompt, max_new_tokens=max_new_tokens, batch_size=batch_size)


def rag_answerer(
    documents: Sequence[Document] | Sequence[str] | str | os.PathLike,
    lm,
    embedder,
    *,
    task=None,
    top_k: int | None = None,
    system_prompt: str | None = None,
    max_new_tokens: int = 64,
    batch_size: int | None = None,
) -> RAGAnswerer:
    """The RAG baseline: top-k retrieval over the private documents themselves, greedy answers. **No DP**:
    answers can quote private documents (it is the leakage reference of DP-SynRAG §6.2).

    Args:
        documents: the private collection (Documents, strings, or a JSONL/CSV/Parquet path).
        lm, embedder: the language model and the embedder (the same as the private methods use).
        task: a :class:`~dpsynrag.tasks.Task` or its name: answer prompt and ``rag_top_k``.
        top_k: documents retrieved per question (default: the task's, else 10).
        system_prompt: overrides the task's answer prompt.
        max_new_tokens: answer length in tokens (>= 1).
        batch_size: prompts per generation batch (None: automatic).

    Returns:
        A :class:`~dpsynrag.rag.RAGAnswerer` over the document texts (the index is built here).

    Raises:
        DataError: an empty or malformed collection. ConfigError: an unknown task, bad top_k.
    """
    if embedder is None:
        raise ConfigError("`embedder` is required for RAG (it indexes the documents).")
    check_positive_int("max_new_tokens", max_new_tokens)
    texts = [d.text for d in as_documents(documents)]
    prompt, k = _prompt_and_k(task, system_prompt, top_k)
    return RAGAnswerer(
        lm, embedder, texts, top_k=k, system_prompt=prompt, max_new_tokens=max_new_tokens, batch_size=batch_size
    )
