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
NOT_COVERED = "The corpus does not cover this question."
"""The answer when no retrieved text reaches the similarity floor (:class:`RAGAnswerer` ``min_similarity``):
said instead of letting the model answer from its prior (issue 41: confident wrong figures)."""


def answer_user_prompt(question: str, context: Sequence[str]) -> str:
    """The user turn of the answer prompt: numbered documents ``[1] …`` then the question; only the
    question when there is no context (Non-RAG)."""
    if not context:
        return f"Question: {question}"
    numbered = "\n".join(f"[{i}] {t}" for i, t in enumerate(context, start=1))
    return f"Documents:\n{numbered}\n\nQuestion: {question}"


@dataclass(frozen=True)
class Answer:
    """A generated answer and the texts it was given.

    Attributes:
        question, text: the question and the answer.
        context: the retrieved texts given to the model, best first (those at or above the floor).
        scores: their similarity scores (cosine for unit-norm embeddings), same order; empty without texts.
        covered: False when a similarity floor was set and no retrieved text reached it: ``text`` is then
            :data:`NOT_COVERED` and the model was not asked.
    """

    question: str
    text: str
    context: tuple[str, ...]
    scores: tuple[float, ...] = ()
    covered: bool = True


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
        min_similarity: a public similarity floor (cosine, in [-1, 1]) or None: retrieved texts below it are
            not given to the model, and a question none of whose top-k texts reaches it is answered
            :data:`NOT_COVERED` without asking the model. Choose it on public or validation questions, never
            on the private documents' answers (it is post-processing of the corpus either way).
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
        min_similarity: float | None = None,
    ):
        if min_similarity is not None and (isinstance(min_similarity, bool) or not isinstance(min_similarity, (int, float))
                                           or not -1.0 <= min_similarity <= 1.0):
            raise ConfigError(f"`min_similarity` (--min-similarity) must be a number in [-1, 1] or None. Found {min_similarity!r}.")
        self.min_similarity = None if min_similarity is None else float(min_similarity)
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
        return [[t for t, _ in hits] for hits in self.retrieve_scored(questions)]

    def retrieve_scored(self, questions: Sequence[str]) -> list[list[tuple[str, float]]]:
        """The top-k ``(text, similarity)`` per question, most similar first; empty lists without texts."""
        if not self.texts or self.index is None:
            return [[] for _ in questions]
        scores, ids = self.index.search(self.embedder.encode(list(questions)), self.top_k)
        return [[(self.texts[i], float(s)) for s, i in zip(srow, row) if i >= 0]
                for srow, row in zip(scores.tolist(), ids.tolist())]

    def prompt(self, question: str, context: Sequence[str]) -> str:
        """The rendered answer prompt: numbered documents then the question (EVALUATION.md)."""
        return self.lm.chat_prompt(answer_user_prompt(question, context), system=self.system_prompt)

    def answer(self, questions: Sequence[str], *, progress: bool = False) -> list[Answer]:
        """Greedy answers, one per question.

        Raises:
            DataError: a question that is not a string or is blank (see :func:`check_questions`).
        """
        questions = check_questions(questions)
        hits = self.retrieve_scored(questions)
        floor = self.min_similarity
        if floor is not None and self.texts:
            hits = [[(t, s) for t, s in h if s >= floor] for h in hits]
        covered = [floor is None or not self.texts or bool(h) for h in hits]
        asked = [i for i, c in enumerate(covered) if c]
        outputs = self.lm.generate_greedy(
            [self.prompt(questions[i], [t for t, _ in hits[i]]) for i in asked], max_new_tokens=self.max_new_tokens,
            batch_size=self.batch_size, progress=progress,
        ) if asked else []
        text = dict(zip(asked, outputs))
        return [Answer(q, text[i].strip() if covered[i] else NOT_COVERED, tuple(t for t, _ in h),
                       tuple(s for _, s in h), covered[i])
                for i, (q, h) in enumerate(zip(questions, hits))]

