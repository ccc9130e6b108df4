"""Stage 1b: top-R keywords from the noisy histogram and soft clustering (METHOD.md §1b).

Both functions are post-processing of the DP histogram plus per-document computations: cluster
membership of a document depends only on that document's keywords (or text) and the public,
already-released keyword list W. This is what overlapping parallel composition needs.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from dpsynrag.errors import ConfigError
from dpsynrag.pipeline.keywords import DEFAULT_LANGUAGE, text_words


def top_keywords(
    noisy_counts: Mapping[str, int | float] | tuple[Sequence[str], np.ndarray], R: int
) -> list[tuple[str, int | float]]:
    """The R keywords with the largest noisy counts, most frequent first (ties, frequent with the
    integer counts of the discrete Gaussian: by word for a mapping, by vocabulary position for an
    array; both public, so the order is post-processing).

    Args:
        noisy_counts: {word: noisy count}, or (vocabulary, noisy counts array [|V|]).
        R: how many to keep (>= 1). Fewer are returned when fewer exist.

    Returns:
        [(word, noisy count)] sorted by descending noisy count; counts keep their type (Python int
        for integer counts).
    """
    if isinstance(R, bool) or not isinstance(R, int) or R < 1:
        raise ConfigError(f"`R` must be an integer >= 1. Found {R!r}.")
    if isinstance(noisy_counts, tuple):
        vocab, counts = noisy_counts
        counts = np.asarray(counts)
        if len(vocab) != len(counts):
            raise ConfigError(f"vocabulary ({len(vocab)}) and counts ({len(counts)}) differ in length.")
        # argsort on (-count, word index) is deterministic; the vocabulary order is public.
        order = np.lexsort((np.arange(len(counts)), -counts))[:R]
        return [(vocab[i], counts[i].item()) for i in order]
    items = sorted(noisy_counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return [(w, c.item() if isinstance(c, np.generic) else c) for w, c in items[:R]]


def soft_cluster(
    doc_keywords: Sequence[Sequence[str]],
    keywords: Sequence[str],
    *,
    L: int,
    texts: Iterable[str] | None = None,
    rule: str = "paper",
    language: str = DEFAULT_LANGUAGE,
) -> list[list[int]]:
    """Soft clustering: each document joins at most L of the clusters whose keyword it contains.

    ``rule="paper"`` (DP-SynRAG Alg. 1, line 8): walk r = R−1, …, 0 (``keywords`` sorted most
    frequent first): cluster r = documents that contain ``keywords[r]`` and are in fewer than L
    clusters so far (least frequent keyword first).

    ``rule="primary"``: a document joins the clusters of the first L of its own keywords (in the
    order given in ``doc_keywords``: the extractor's order of importance) that are in ``keywords``.
    Keywords that name the same topic (a disease, its treatment, one of its symptoms) select the same
    documents under ``"paper"`` and give duplicate clusters; under ``"primary"`` with a small L a
    document is spent on its most important released keyword only, so such duplicates stay (nearly)
    empty and the documents' L slots go to distinct topics.

    Either way a document's memberships are a function of that document and the released W only,
    the condition of overlapping parallel composition (METHOD.md §1b, DP-SynRAG Lemma 6).

    Args:
        doc_keywords: each document's capped keyword set (as used in the histogram).
        keywords: the released keywords W, most frequent first.
        L: the most clusters a document may join (>= 1).
        texts: when given, "contains" means the keyword occurs as a word in the document's text
            (case-insensitive) instead of being among its keywords (``rule="paper"`` only). Any
            iterable, one text per document in order (e.g. a stream read from the file): it is read
            once and only each text's words among ``keywords`` are kept.
        rule: ``"paper"`` or ``"primary"`` (see above).
        language: the documents' language: ``texts`` are split into words with
            :func:`dpsynrag.pipeline.keywords.text_words`, the tokenisation of the keyword extractors.

    Returns:
        One sorted list of document indices per keyword, in the order of ``keywords``.
        No document appears in more than L lists.
    """
    if isinstance(L, bool) or not isinstance(L, int) or L < 1:
        raise ConfigError(f"`L` must be an integer >= 1. Found {L!r}.")
    if rule not in ("paper", "primary"):
        raise ConfigError(f"`clustering` must be 'paper' or 'primary'. Found {rule!r}.")
    if rule == "primary":
        if texts is not None:
            raise ConfigError("`clustering` 'primary' ranks extracted keywords; it cannot match the text (--match-text).")
        position = {w: r for r, w in enumerate(keywords)}
        clusters = [[] for _ in keywords]
        for i, words in enumerate(doc_keywords):
            joined = 0
            seen: set[str] = set()
            for w in words:
                if joined == L:
                    break
                if w in position and w not in seen:
                    seen.add(w)
                    clusters[position[w]].append(i)
                    joined += 1
        return clusters
    released = set(keywords)  # only these words decide memberships: keep no other word per document
    if texts is not None:
        words_of = (released.intersection(text_words(t, language)) for t in texts)
    else:
        words_of = (released.intersection(k) for k in doc_keywords)
    index: dict[str, list[int]] = {}  # released keyword -> the documents containing it, in order
    n = 0
    for i, words in enumerate(words_of):
        n += 1
        for w in words:
            index.setdefault(w, []).append(i)
    if n != len(doc_keywords):
        raise ConfigError(f"`texts` ({n}) and `doc_keywords` ({len(doc_keywords)}) differ in length.")
    joined = np.zeros(n, dtype=np.int64)
    clusters: list[list[int]] = [[] for _ in keywords]
    for r in range(len(keywords) - 1, -1, -1):
        members = [i for i in index.get(keywords[r], ()) if joined[i] < L]
        for i in members:
            joined[i] += 1
        clusters[r] = members
    return clusters
