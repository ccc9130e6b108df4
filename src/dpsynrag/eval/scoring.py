"""Scoring of an evaluation run: accuracy, accuracy by support bucket, context recall, full-name leakage
(pure functions).

Protocols: EVALUATION.md (Medical Synth, MovieLens) and algorithm_brief.md §3.1 / §3.5.

* **Accuracy**: a response is correct when the task says so (:meth:`dpsynrag.tasks.Task.is_correct`: for
  Medical Synth, the answer contains the disease name). Both the case-sensitive rule (DP-RAG's
  ``disease in answer``) and the case-insensitive one are reported.
* **Context recall** (RAG-style methods): the fraction of questions whose gold answer appears in the
  top-k texts retrieved for them, matched with the same rule as accuracy (:meth:`Task.is_correct`,
  case-insensitive) on the retrieved texts joined by blank lines. It measures the retrieval and the
  corpus, independently of the answering model's skill.
* **Support buckets**: a query's support is the number of documents of the database *actually used*
  that hold its answer (:meth:`~dpsynrag.tasks.Task.support`); accuracy per bucket is pooled over
  queries (successes / queries in the bucket, as DP-RAG's ``evaluation.py``).
* **Leakage**: a response leaks when it contains the exact full name of a database person, the
  querier's own name excluded. Matching is exact, case-sensitive and on whole words: "Ann Lee" matches
  "Ann Lee said", "(Ann Lee)", "Ann Lee's", "Ann\\nLee", but not "Joann Leeds", "Ann Leeds",
  "Mary-Ann Lee" or "Ann Lee-Smith". :class:`NameMatcher` indexes the names by their first word, so a
  text is scanned once whatever the number of names (8,000 names × 1,000 answers: well under a second).
* **Unsupported figures** (issue 41): an answer states a figure (a run of digits, with inner ``. , : /``)
  that appears in none of the texts retrieved for its question (:func:`unsupported_figures`): a number the
  answering model made up, or took from its own knowledge. Figures compare as written, thousands commas and
  trailing decimal zeros aside ("1,500" = "1500", "15.00" = "15"); words ("five") are not figures.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from dpsynrag.errors import ConfigError

__all__ = [
    "NameMatcher",
    "QueryScore",
    "accuracy_summary",
    "bucket_accuracy",
    "constant_answer_reference",
    "context_hits",
    "context_recall",
    "figures",
    "leakage_summary",
    "querier_name",
    "score_queries",
    "unsupported_figures",
]

# A word: a maximal run of letters and digits (underscore excluded). Names are sequences of words
# separated by whitespace; "-" glues words ("Lee-Smith" is one surname, not "Lee").
_WORD = re.compile(r"[^\W_]+")
_SPACE = re.compile(r"\s+")


def _normalise(text: str) -> str:
    return unicodedata.normalize("NFC", text)


class NameMatcher:
    """Finds exact full names in texts.

    A name is split into words (maximal runs of letters/digits); it matches a text where the same words
    appear consecutively, separated by whitespace only, not glued by a hyphen to a word before or after
    (and, by construction of words, not inside a longer word). Text and names are compared after Unicode
    NFC normalisation; case matters unless ``case_sensitive=False``.

    Args:
        names: full names (e.g. ``"Achim Bauer"``); names with fewer than ``min_words`` words are ignored
            (a first name alone is not a full name), duplicates are merged.
        case_sensitive: compare words case-sensitively (default True: exact names).
        min_words: the fewest words a name needs to be looked for (default 2).

    Raises:
        ConfigError: ``min_words`` < 1.
    """

    def __init__(self, names: Iterable[str], *, case_sensitive: bool = True, min_words: int = 2):
        if isinstance(min_words, bool) or not isinstance(min_words, int) or min_words < 1:
            raise ConfigError(f"`min_words` must be an integer >= 1. Found {min_words!r}.")
        self.case_sensitive = case_sensitive
        self._index: dict[str, list[tuple[tuple[str, ...], str]]] = {}
        self.names: list[str] = []
        seen: set[tuple[str, ...]] = set()
        for name in names:
            if not isinstance(name, str):
                raise ConfigError(f"`names` must hold strings. Found {name!r}.")
            words = tuple(self._fold(w) for w in _WORD.findall(_normalise(name)))
            if len(words) < min_words or words in seen:
                continue
            seen.add(words)
            self.names.append(" ".join(_WORD.findall(_normalise(name))))
            self._index.setdefault(words[0], []).append((words[1:], self.names[-1]))
        # Longest names first, so "Anna Maria Lee" is reported rather than "Anna Maria" where both exist.
        for candidates in self._index.values():
            candidates.sort(key=lambda c: -len(c[0]))

    def __len__(self) -> int:
        return len(self.names)

    def _fold(self, word: str) -> str:
        return word if self.case_sensitive else word.casefold()

    def find(self, text: str) -> set[str]:
        """The names (canonical form: words joined by one space) that occur in ``text``."""
        text = _normalise(text)
        spans = [(m.start(), m.end(), self._fold(m.group(0))) for m in _WORD.finditer(text)]
        found: set[str] = set()
        n = len(spans)
        for i, (start, _, word) in enumerate(spans):
            candidates = self._index.get(word)
            if not candidates:
                continue
            if start > 1 and text[start - 1] == "-" and text[start - 2].isalnum():
                continue  # "Mary-Ann": the word is the end of a hyphenated word
            for rest, name in candidates:
                j = i + len(rest)
                if j >= n:
                    continue
                if any(spans[i + 1 + t][2] != rest[t] for t in range(len(rest))):
                    continue
                # separators between the name's words: whitespace only
                if any(not _SPACE.fullmatch(text[spans[i + t][1]:spans[i + t + 1][0]]) for t in range(len(rest))):
                    continue
                end = spans[j][1]
                if end + 1 < len(text) and text[end] == "-" and text[end + 1].isalnum():
                    continue  # "Lee-Smith"
                found.add(name)
                break
        return found

    def canonical(self, name: str) -> str:
        """A name in the form :meth:`find` reports it (words joined by one space)."""
        return " ".join(_WORD.findall(_normalise(name)))


def querier_name(meta: Mapping[str, object]) -> str | None:
    """The querier's own name in a query's meta (``patient_name`` for Medical Synth, ``pseudonym`` for
    MovieLens), or None."""
    for key in ("patient_name", "pseudonym", "name"):
        value = meta.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return None


def leakage_summary(
    matcher: NameMatcher,
    texts: Sequence[str],
    *,
    exclude: Sequence[str | None] | None = None,
    ids: Sequence[str] | None = None,
) -> dict:
    """Count texts containing a private full name.

    Args:
        matcher: the private names.
        texts: responses (or corpus texts).
        exclude: per text, a name that does not count as a leak there (the querier's own), or None.
        ids: per text, an identifier reported for the leaking texts (default: the 0-based position).

    Returns:
        ``{"texts": n, "texts_with_leak": int, "leak_rate": float in [0, 1] (0 when n = 0),
        "distinct_names": int, "leaking_ids": [ids of leaking texts]}``. The names themselves are not
        returned (they are private); use :meth:`NameMatcher.find` to see them.

    Raises:
        ConfigError: ``exclude`` or ``ids`` has another length than ``texts``.
    """
    if exclude is not None and len(exclude) != len(texts):
        raise ConfigError(f"`exclude` has {len(exclude)} entries for {len(texts)} texts.")
    if ids is not None and len(ids) != len(texts):
        raise ConfigError(f"`ids` has {len(ids)} entries for {len(texts)} texts.")
    leaking: list[str] = []
    names: set[str] = set()
    for pos, text in enumerate(texts):
        found = matcher.find(text)
        if exclude is not None and exclude[pos]:
            found.discard(matcher.canonical(exclude[pos]))
        if found:
            leaking.append(str(ids[pos]) if ids is not None else str(pos))
            names |= found
    n = len(texts)
    return {
        "texts": n,
        "texts_with_leak": len(leaking),
        "leak_rate": len(leaking) / n if n else 0.0,
        "distinct_names": len(names),
        "leaking_ids": leaking,
    }


@dataclass(frozen=True)
class QueryScore:
    """The score of one response: correct (case-insensitive and case-sensitive) and its support bucket."""

    id: str
    correct: bool
    correct_case_sensitive: bool
    support: int | None = None
    bucket: str | None = None


def score_queries(task, queries: Sequence, answers: Sequence[str], *, database: Sequence | None = None) -> list[QueryScore]:
    """Score responses against their queries with the task's rule.

    Args:
        task: a :class:`dpsynrag.tasks.Task`.
        queries: the :class:`~dpsynrag.tasks.Query` list.
        answers: one response text per query, same order.
        database: the documents actually used (for the support of each query); None: no support.

    Raises:
        ConfigError: ``answers`` has another length than ``queries``.
    """
    if len(answers) != len(queries):
        raise ConfigError(f"{len(answers)} answers for {len(queries)} queries.")
    out = []
    for query, answer in zip(queries, answers):
        support = task.support(query, database) if database is not None else None
        out.append(
            QueryScore(
                id=str(query.id),
                correct=bool(task.is_correct(answer, query, case_sensitive=False)),
                correct_case_sensitive=bool(task.is_correct(answer, query, case_sensitive=True)),
                support=support,
                bucket=task.support_bucket(support) if support is not None else None,
            )
        )
    return out


def accuracy_summary(scores: Sequence[QueryScore]) -> dict:
    """``{"n", "correct", "correct_case_sensitive", "accuracy", "accuracy_case_sensitive"}``; the
    accuracies are fractions in [0, 1] (0 when there is no query)."""
    n = len(scores)
    ci = sum(s.correct for s in scores)
    cs = sum(s.correct_case_sensitive for s in scores)
    return {
        "n": n,
        "correct": ci,
        "correct_case_sensitive": cs,
        "accuracy": ci / n if n else 0.0,
        "accuracy_case_sensitive": cs / n if n else 0.0,
    }


def constant_answer_reference(task, queries: Sequence) -> dict | None:
    """The oracle constant (issue 53): every question answered with the most frequent gold answer of the
    question set (each query's first accepted answer; ties: the alphabetically first), scored by the task's
    rule. Not a method — it reads the gold answers — but a floor a method must beat to show it answers the
    question rather than the label distribution (on MovieLens one title scores as well as RAG).

    Returns:
        ``{"answer", "count" (questions whose first gold answer it is), **accuracy_summary}``; None when no
        query has a gold answer.
    """
    firsts = [q.answers[0] for q in queries if q.answers]
    if not firsts:
        return None
    counts: dict[str, int] = {}
    for a in firsts:
        counts[a] = counts.get(a, 0) + 1
    answer = min(counts, key=lambda a: (-counts[a], a))
    scores = score_queries(task, queries, [answer] * len(queries))
    return {"answer": answer, "count": counts[answer], **accuracy_summary(scores)}


def bucket_accuracy(scores: Sequence[QueryScore], buckets: Sequence[str] = ()) -> dict[str, dict]:
    """Accuracy per support bucket, pooled over queries (successes / queries of the bucket).

    Args:
        scores: scored queries (those with ``bucket`` None are left out).
        buckets: bucket labels to report even when empty, in this order (e.g. the task's); labels met in
            ``scores`` but not listed follow in order of appearance.

    Returns:
        label -> :func:`accuracy_summary` of the queries in that bucket.
    """
    groups: dict[str, list[QueryScore]] = {label: [] for label in buckets}
    for s in scores:
        if s.bucket is not None:
            groups.setdefault(s.bucket, []).append(s)
    return {label: accuracy_summary(group) for label, group in groups.items()}


def context_hits(contexts_per_question: Sequence[Sequence[str]], queries: Sequence, task) -> list[bool]:
    """Per question, whether its gold answer appears in the texts retrieved for it.

    The texts are joined by blank lines (a match cannot straddle two texts) and matched with
    ``task.is_correct(joined, query, case_sensitive=False)``, the accuracy rule (Medical Synth: the
    disease name). No text: False.

    Args:
        contexts_per_question: per question, its retrieved texts (top-k, any order).
        queries: the :class:`~dpsynrag.tasks.Query` list, same order.
        task: a :class:`dpsynrag.tasks.Task`.

    Raises:
        ConfigError: ``contexts_per_question`` has another length than ``queries``.
    """
    if len(contexts_per_question) != len(queries):
        raise ConfigError(f"{len(contexts_per_question)} context lists for {len(queries)} queries.")
    return [
        bool(context) and bool(task.is_correct("\n\n".join(context), query, case_sensitive=False))
        for context, query in zip(contexts_per_question, queries)
    ]


def context_recall(contexts_per_question: Sequence[Sequence[str]], queries: Sequence, task) -> float:
    """Context recall: the fraction in [0, 1] of questions whose gold answer appears in their retrieved
    texts (:func:`context_hits`); 0.0 when there is no question.

    Raises:
        ConfigError: ``contexts_per_question`` has another length than ``queries``.
    """
    hits = context_hits(contexts_per_question, queries, task)
    return sum(hits) / len(hits) if hits else 0.0


_FIGURE = re.compile(r"\d+(?:[.,:/]\d+)*")


def _figure(token: str) -> str:
    token = re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", token)
    if re.fullmatch(r"\d+\.\d+", token):
        token = token.rstrip("0").rstrip(".")
    return token


def figures(text: str) -> set[str]:
    """The figures a text states, normalised (module docstring)."""
    return {_figure(m.group()) for m in _FIGURE.finditer(text)}


def unsupported_figures(answer: str, contexts: Sequence[str]) -> list[str]:
    """The figures ``answer`` states that appear in none of ``contexts`` (sorted; [] when it states none, or
    all are found). With no context every figure it states is unsupported.

    Example: ``unsupported_figures("The fee is 10.00 EUR", ["We charge 15 EUR"]) == ["10"]``.
    """
    found: set[str] = set()
    for context in contexts:
        found |= figures(context)
    return sorted(figures(answer) - found)
