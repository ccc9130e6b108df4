"""Downstream RAG (METHOD.md §4): top-k retrieval from a vector index and greedy answers.

Used over a synthetic corpus (post-processing: queries never touch the private data or the budget)
and, for the non-private baselines, over the private documents themselves.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from dpsynrag.errors import ConfigError, DataError
from dpsynrag.rag.index import VectorIndex

DEFAULT_SYSTEM_PROMPT = "Answer the question using the documents provided. Answer briefly."


def answer_user_prompt(question: str, context: Sequence[str]) -> str:
    """The user turn of the answer prompt: numbered documents ``[1] …`` then the question; only the
    question when there is no context (Non-RAG)."""
    if not context:
        return f"Question: {question}"
    numbered = "\n".join(f"[{i}] {t}" for i, t in enumerate(context, start=1))
    return f"Documents:\n{numbered}\n\nQuestion: {question}"


@dataclass(frozen=True)
class Answer:
    """A generated answer and the texts it was given."""

    question: str
    text: str
    context: tuple[str, ...]


def check_questions(questions: Sequence[str]) -> list[str]:
    """The questions as a list.

    Raises:
        DataError: ``questions`` is one string (or not a sequence), or holds an empty or non-string question.
    """
    if isinstance(questions, (str, bytes)) or not isinstance(questions, Sequence):
        raise DataError("`questions` must be a sequence of strings (wrap a single question in a list).")
    questions = list(questions)
    for i, q in enumerate(questions):
        if not isinstance(q, str) or not q.strip():
            raise DataError(f"questions[{i}] must be a non-empty string. Found {q!r:.60}.")
    return questions


class RAGAnswerer:
    """Retrieve the top-k texts for each question and answer greedily with the language model.

    With no texts (``texts=[]``) it is the Non-RAG baseline: the model answers from the question alone.

    Args:
        lm: a :class:`dpsynrag.models.LanguageModel`.
        embedder: a :class:`dpsynrag.models.Embedder` (unused without texts).
        texts: the retrievable texts (synthetic corpus, or private documents for plain RAG).
        top_k: retrieved texts per question.
        system_prompt: the answering system prompt (public).
        max_new_tokens: answer length.
        index: a prebuilt index over ``texts`` (else built here).
    """

    def __init__(
        self,
        lm,
        embedder,
        texts: Sequence[str],
        *,
        top_k: int = 10,
        system_prompt: str = DEFAULT_SYSTEM_PROMPT,
        max_new_tokens: int = 64,
        index: VectorIndex | None = None,
        batch_size: int | None = None,
    ):
        self.lm, self.embedder = lm, embedder
        self.texts = list(texts)
        self.top_k, self.system_prompt, self.max_new_tokens = top_k, system_prompt, max_new_tokens
        self.batch_size = batch_size
        if index is None and self.texts:
            index = VectorIndex(embedder.encode(self.texts))
        if index is not None and len(index) != len(self.texts):
            raise ConfigError(f"the index holds {len(index)} vectors for {len(self.texts)} texts.")
        self.index = index

    def retrieve(self, questions: Sequence[str]) -> list[list[str]]:
        """The top-k texts per question (most similar first); empty lists without texts."""
        if not self.texts or self.index is None:
            return [[] for _ in questions]
        _, ids = self.index.search(self.embedder.encode(list(questions)), self.top_k)
        return [[self.texts[i] for i in row if i >= 0] for row in ids]

    def prompt(self, question: str, context: Sequence[str]) -> str:
        """The rendered answer prompt: numbered documents then the question (EVALUATION.md)."""
        return self.lm.chat_prompt(answer_user_prompt(question, context), system=self.system_prompt)

    def answer(self, questions: Sequence[str], *, progress: bool = False) -> list[Answer]:
        """Greedy answers, one per question.

        Raises:
            DataError: a question that is not a string or is blank (see :func:`check_questions`).
        """
        questions = check_questions(questions)
        contexts = self.retrieve(questions)
        prompts = [self.prompt(q, c) for q, c in zip(questions, contexts)]
        outputs = self.lm.generate_greedy(
            prompts, max_new_tokens=self.max_new_tokens, batch_size=self.batch_size, progress=progress
        )
        return [Answer(q, o.strip(), tuple(c)) for q, o, c in zip(questions, outputs, contexts)]

