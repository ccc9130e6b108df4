"""Downstream RAG (METHOD.md §4): top-k retrieval from a vector index, and answers: greedy generation
from the retrieved texts, or the best-matching sentence of them (``answer_mode="extractive"``).

Used over a synthetic corpus (post-processing: queries never touch the private data or the budget)
and, for the non-private baselines, over the private documents themselves.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from dpsynrag.errors import ConfigError, DataError
from dpsynrag.rag.index import VectorIndex

DEFAULT_SYSTEM_PROMPT = "Answer the question using the documents provided. Answer briefly."
DEFAULT_ANSWER_TOKENS = 24
"""The greedy answer length (tokens) of ``dpsynrag query`` and of the evaluation presets ``cpu``, ``demo``,
``own-cpu`` and ``searchqa-cpu`` (:mod:`dpsynrag.eval.presets` reads it; the ``paper`` presets set the paper's
64), and of :class:`RAGAnswerer` and the corpus's answers: one definition, so that a query's answer and an
evaluation's score the same text."""
ANSWER_MODES = ("generate", "extractive")
"""How an answer is made from the retrieved texts: ``generate`` (the language model answers greedily from
them) or ``extractive`` (the sentence of the top-k texts most similar to the question, as it is: no model)."""
OWN_DATA_ANSWER_MODE = "extractive"
"""The answer mode of a corpus built by a phrase release over the whole collection (the ``own-cpu`` preset's
builds; :attr:`~dpsynrag.corpus.SyntheticCorpus.default_answer_mode`) and of the ``own-cpu`` evaluation preset:
measured against the 135M generator on the tuning domains of ``benchmarks/blind``
(``benchmarks/results/answer_mode.md``)."""
_SENTENCE_END = re.compile(r"[.!?][\"')\]]*(?=\s)|\n")
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


def split_sentences(text: str) -> list[str]:
    """The sentences of ``text``, in order: split after ``.``, ``!`` or ``?`` (and any closing quote or
    bracket) followed by white space, and at line breaks; each stripped, empty ones dropped. A text with
    no such boundary is one sentence ("£7.50" and "e-mail.example.com" are not split)."""
    parts, start = [], 0
    for m in _SENTENCE_END.finditer(text):
        parts.append(text[start:m.end()])
        start = m.end()
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def extract_answers(embedder, questions: Sequence[str], contexts: Sequence[Sequence[str]]) -> list[str]:
    """The extractive answer of each question: the sentence (:func:`split_sentences`) of its retrieved
    texts ``contexts[i]`` (best first) whose embedding is most similar to the question's (cosine: the
    embedder's rows are unit-norm); a tie goes to the earlier text in retrieval order, then to the earlier
    sentence of the text. "" for a question without context. No language model is used.

    Args:
        embedder: an object with ``encode(list[str]) -> float32 [n, dim]`` unit-norm rows.
        questions: the questions. contexts: per question, its retrieved texts in retrieval order.
    """
    if len(questions) != len(contexts):
        raise ConfigError(f"{len(questions)} questions for {len(contexts)} contexts.")
    sentences = [[s for text in texts for s in split_sentences(text)] for texts in contexts]
    flat = [s for group in sentences for s in group]
    if not flat:
        return ["" for _ in questions]
    q = np.asarray(embedder.encode(list(questions)), dtype=np.float32)
    e = np.asarray(embedder.encode(flat), dtype=np.float32)
    out, start = [], 0
    for i, group in enumerate(sentences):
        if not group:
            out.append("")
            continue
        scores = e[start:start + len(group)] @ q[i]
        out.append(group[int(np.argmax(scores))])  # argmax: the first of equal maxima, i.e. retrieval order
        start += len(group)
    return out


def check_answer_mode(mode: str) -> str:
    """``mode`` if it is one of :data:`ANSWER_MODES`. Raises ConfigError naming ``--answer-mode``."""
    if mode not in ANSWER_MODES:
        raise ConfigError(f"`answer_mode` (--answer-mode) must be one of {', '.join(ANSWER_MODES)}. Found {mode!r}.")
    return mode


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
    """Retrieve the top-k texts for each question and answer greedily with the language model, or
    (``answer_mode="extractive"``) with the best-matching sentence of those texts.

    With no texts (``texts=[]``) it is the Non-RAG baseline: the model answers from the question alone.

    Args:
        lm: a :class:`dpsynrag.models.LanguageModel`.
        embedder: a :class:`dpsynrag.models.Embedder` (unused without texts).
        texts: the retrievable texts (synthetic corpus, or private documents for plain RAG).
        top_k: retrieved texts per question.
        system_prompt: the answering system prompt (public).
        max_new_tokens: answer length (default :data:`DEFAULT_ANSWER_TOKENS`; unused by extractive answers).
        index: a prebuilt index over ``texts`` (else built here).
        min_similarity: a public similarity floor (cosine, in [-1, 1]) or None: retrieved texts below it are
            not given to the model, and a question none of whose top-k texts reaches it is answered
            :data:`NOT_COVERED` without asking the model. Choose it on public or validation questions, never
            on the private documents' answers (it is post-processing of the corpus either way).
        answer_mode: ``"generate"`` (the default: the model answers from the retrieved texts) or
            ``"extractive"``: the answer is the sentence of the retrieved texts (those at or above the floor)
            most similar to the question by the embedder's cosine similarity, ties going to the earlier text
            in retrieval order (:func:`extract_answers`); no generation, ``lm`` is not used (may be None).
            Needs texts: Non-RAG cannot extract.
    """

    def __init__(
        self,
        lm,
        embedder,
        texts: Sequence[str],
        *,
        top_k: int = 10,
        system_prompt: str = DEFAULT_SYSTEM_PROMPT,
        max_new_tokens: int = DEFAULT_ANSWER_TOKENS,
        index: VectorIndex | None = None,
        batch_size: int | None = None,
        min_similarity: float | None = None,
        answer_mode: str = "generate",
    ):
        self.answer_mode = check_answer_mode(answer_mode)
        if min_similarity is not None and (isinstance(min_similarity, bool) or not isinstance(min_similarity, (int, float))
                                           or not -1.0 <= min_similarity <= 1.0):
            raise ConfigError(f"`min_similarity` (--min-similarity) must be a number in [-1, 1] or None. Found {min_similarity!r}.")
        self.min_similarity = None if min_similarity is None else float(min_similarity)
        self.lm, self.embedder = lm, embedder
        self.texts = list(texts)
        if self.answer_mode == "extractive" and not self.texts:
            raise ConfigError("extractive answers (answer_mode='extractive', --answer-mode extractive) take a sentence "
                              "of the retrieved texts: there are no texts to retrieve (Non-RAG generates).")
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
        """Answers, one per question: greedy generation, or the best-matching sentence (``answer_mode``).

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
        if self.answer_mode == "extractive":
            outputs = extract_answers(self.embedder, [questions[i] for i in asked],
                                      [[t for t, _ in hits[i]] for i in asked]) if asked else []
        else:
            outputs = self.lm.generate_greedy(
                [self.prompt(questions[i], [t for t, _ in hits[i]]) for i in asked], max_new_tokens=self.max_new_tokens,
                batch_size=self.batch_size, progress=progress,
            ) if asked else []
        text = dict(zip(asked, outputs))
        return [Answer(q, text[i].strip() if covered[i] else NOT_COVERED, tuple(t for t, _ in h),
                       tuple(s for _, s in h), covered[i])
                for i, (q, h) in enumerate(zip(questions, hits))]

