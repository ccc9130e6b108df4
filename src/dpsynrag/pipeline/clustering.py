"""Stage 1b: top-R keywords from the noisy histogram and soft clustering (METHOD.md §1b), and the
optional split of each cluster into disjoint member groups (one text per group).

All are post-processing of the DP histogram plus per-document computations: cluster membership of
a document depends only on that document's keywords (or text) and the public, already-released
keyword list W, and its group only on its own text and released or public values. This is what
overlapping parallel composition needs.

Per person (:func:`soft_cluster` with ``units``, ``--privacy-unit-field``): the same rules cluster privacy units on
their capped keyword sets, and each unit is one member of a cluster, its most relevant document holding the
cluster's keyword: a function of that unit's documents and W only.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Mapping, Sequence

import numpy as np

from dpsynrag.errors import ConfigError
from dpsynrag.data.words import DEFAULT_LANGUAGE, text_words
from dpsynrag.pipeline.units import PrivacyUnits


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


DOMINANT_SHARE = 0.5
"""A released keyword whose noisy count is more than this share of all released counts dominates the corpus."""
FEW_TOPICS = 3
"""Fewer released keywords than this (when R allows more) make a corpus of a few texts."""


def release_warnings(keywords: Sequence[tuple[str, int | float]], *, R: int, k: int | None) -> list[str]:
    """Warnings about a histogram release that will give a poor corpus, with their likely cause.

    Post-processing of released values only (the keywords and their noisy counts, and public parameters),
    so the messages may be logged and shown to anyone.

    Args:
        keywords: the released ``[(word, noisy count)]``, most frequent first (:func:`top_keywords`).
        R: the number of keywords asked for. k: the target cluster size after outlier removal (None: no
            outlier removal runs, so no warning about k).

    Returns:
        Messages (empty when nothing looks wrong): one keyword holding more than :data:`DOMINANT_SHARE` of
        the released counts (a word most documents share: a placeholder, a template or greeting word, a
        field label); fewer than :data:`FEW_TOPICS` keywords; ``k`` above every released count.
    """
    out = []
    counts = [max(float(c), 0.0) for _, c in keywords]
    total = sum(counts)
    if len(keywords) > 0 and total > 0 and counts[0] > DOMINANT_SHARE * total:
        word = keywords[0][0]
        out.append(
            f"the released keyword {word!r} holds {counts[0] / total:.0%} of all released keyword counts: one "
            f"cluster covers most documents. This is usually a word every document shares rather than a topic: "
            f"a name or identifier column that was not declared (--identifier-field), a greeting, signature or "
            f"field label in every text (remove it before the build), or a K too small to reach the topic words "
            f"(--K)."
        )
    if len(keywords) < min(FEW_TOPICS, R):
        out.append(
            f"only {len(keywords)} keyword(s) released, so the corpus will hold at most that many topics: more "
            f"documents, a larger --epsilon, a smaller --K, or the public vocabulary (without --open-vocabulary) help."
        )
    if counts and k is not None and k > max(counts):
        out.append(
            f"the target cluster size k = {k} (--k) is larger than every released keyword "
            f"count (largest {max(counts):.1f}): no cluster reaches the target size, so outlier removal keeps "
            f"whole clusters or nothing; choose --k below the typical cluster size."
        )
    return out


def _check_walk(L: int, rule: str, texts: Iterable[str] | None) -> None:
    """Refuse a bad ``L``, an unknown ``rule`` and ``rule="primary"`` with ``texts`` (ConfigError)."""
    if isinstance(L, bool) or not isinstance(L, int) or L < 1:
        raise ConfigError(f"`L` must be an integer >= 1. Found {L!r}.")
    if rule not in ("paper", "primary"):
        raise ConfigError(f"`clustering` must be 'paper' or 'primary'. Found {rule!r}.")
    if rule == "primary" and texts is not None:
        raise ConfigError("`clustering` 'primary' ranks extracted keywords; it cannot match the text (--match-text).")


def _released_words(texts: Iterable[str], keywords: Sequence[str], language: str) -> Iterator[frozenset[str]]:
    """Per text (read once, in order), the released keywords that occur in it as words (``match_text``)."""
    released = frozenset(keywords)  # only these words decide memberships: keep no other word per text
    return (released.intersection(text_words(t, language)) for t in texts)


def _walk(word_sets: Iterable[Iterable[str]], keywords: Sequence[str], *, L: int,
          rule: str) -> tuple[list[list[int]], int]:
    """The walk of METHOD.md §1b over members (documents, or privacy units): which clusters each member joins.

    Args:
        word_sets: each member's words, in member order, read once: its capped keyword set in the
            extractor's order of importance, or (``rule="paper"`` only) the released keywords in its text.
        keywords: the released keywords W, most frequent first.
        L, rule: validated by :func:`_check_walk`; as in :func:`soft_cluster`.

    Returns:
        (one increasing list of member indices per keyword in the order of ``keywords``, with no member in
        more than L lists; the number of members read).
    """
    clusters: list[list[int]] = [[] for _ in keywords]
    n = 0
    if rule == "primary":
        position = {w: r for r, w in enumerate(keywords)}
        for i, words in enumerate(word_sets):
            n += 1
            joined = 0
            seen: set[str] = set()
            for w in words:
                if joined == L:
                    break
                if w in position and w not in seen:
                    seen.add(w)
                    clusters[position[w]].append(i)
                    joined += 1
        return clusters, n
    released = frozenset(keywords)
    index: dict[str, list[int]] = {}  # released keyword -> the members holding it, in order
    for i, words in enumerate(word_sets):
        n += 1
        for w in released.intersection(words):
            index.setdefault(w, []).append(i)
    joined = np.zeros(n, dtype=np.int64)
    for r in range(len(keywords) - 1, -1, -1):  # least frequent keyword first
        members = [i for i in index.get(keywords[r], ()) if joined[i] < L]
        for i in members:
            joined[i] += 1
        clusters[r] = members
    return clusters, n


def soft_cluster(
    doc_keywords: Sequence[Sequence[str]],
    keywords: Sequence[str],
    *,
    L: int,
    texts: Iterable[str] | None = None,
    rule: str = "paper",
    language: str = DEFAULT_LANGUAGE,
    units=None,
    unit_keywords: Sequence[Sequence[str]] | None = None,
) -> list[list[int]]:
    """Soft clustering: each document (with ``units``: each privacy unit) joins at most L of the clusters
    whose keyword it contains.

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

    Per privacy unit (person; ``units``, :mod:`dpsynrag.pipeline.units`): the same walk runs over the units
    on their keyword sets (``unit_keywords``, :func:`~dpsynrag.pipeline.keywords.unit_keyword_sets`), or with
    ``texts`` on the released keywords that occur in any of their documents' texts, so a unit joins at most L
    clusters, and it is **one member** of each: in cluster r, unit u's member is the document of u holding
    ``keywords[r]`` (in its own keyword set; with ``texts``, in its text) where the word ranks best in that
    document's keyword set (not in it: after every ranked one), ties to the first in file order. Memberships
    and members are functions of the unit's own documents and the released W, so adding or removing a unit
    (any number of documents) adds or removes one member in each of at most L clusters and changes nothing
    else: overlapping parallel composition per unit, each cluster's mechanisms with their per-document
    sensitivity. With one document per unit the clusters are the per-document ones.

    Args:
        doc_keywords: each document's capped keyword set (as used in the histogram), in file order.
        keywords: the released keywords W, most frequent first.
        L: the most clusters a document (a unit) may join (>= 1).
        texts: when given, "contains" means the keyword occurs as a word in the document's text
            (case-insensitive) instead of being among its keywords (``rule="paper"`` only). Any
            iterable, one text per document in order (e.g. a stream read from the file): it is read
            once and only each text's words among ``keywords`` are kept.
        rule: ``"paper"`` or ``"primary"`` (see above).
        language: the documents' language: ``texts`` are split into words with
            :func:`dpsynrag.data.words.text_words`, the tokenisation of the keyword extractors.
        units: the :class:`~dpsynrag.pipeline.units.PrivacyUnits` of the documents; None: one per document.
        unit_keywords: with ``units``, each unit's capped keyword set, in unit order
            (:func:`~dpsynrag.pipeline.keywords.unit_keyword_sets` of ``doc_keywords``); not read with ``texts``.

    Returns:
        One sorted list of document indices per keyword, in the order of ``keywords``. No document (with
        ``units``: no unit's documents) in more than L lists; with ``units``, at most one document of each
        unit per list.

    Raises:
        ConfigError: bad ``L`` or ``rule``, ``rule="primary"`` with ``texts``, a string where a sequence of
            words is expected, ``units`` that is not a PrivacyUnits, ``units`` without ``unit_keywords`` or
            ``texts`` (or ``unit_keywords`` without ``units``), a unit keyword no document of the unit holds,
            or lengths that differ.
    """
    _check_walk(L, rule, texts)
    if isinstance(keywords, str) or (len(doc_keywords) > 0 and isinstance(doc_keywords[0], str)):
        raise ConfigError("`keywords` and each document's keyword set must be sequences of words, not strings.")
    if unit_keywords is not None and units is None:
        raise ConfigError("`unit_keywords` goes with `units` (per person); per document give neither.")
    if units is not None:
        if not isinstance(units, PrivacyUnits):
            raise ConfigError(f"`units` must be a PrivacyUnits (PrivacyUnits.from_documents). Found {type(units).__name__}.")
        if unit_keywords is None and texts is None:
            raise ConfigError("per person, give each unit's keyword set (`unit_keywords`, unit_keyword_sets), "
                              "or `texts` to match.")
        if units.num_documents != len(doc_keywords) or (unit_keywords is not None and len(units) != len(unit_keywords)):
            raise ConfigError(f"`units` ({len(units)} units of {units.num_documents} documents), `unit_keywords` "
                              f"({'-' if unit_keywords is None else len(unit_keywords)}) and `doc_keywords` "
                              f"({len(doc_keywords)}) differ in length.")
    matched = None if texts is None else list(_released_words(texts, keywords, language))
    if matched is not None and len(matched) != len(doc_keywords):
        raise ConfigError(f"`texts` ({len(matched)}) and `doc_keywords` ({len(doc_keywords)}) differ in length.")
    if units is None:
        clusters, _ = _walk(doc_keywords if matched is None else matched, keywords, L=L, rule=rule)
        return clusters
    unit_sets: Iterable[Iterable[str]] = unit_keywords if matched is None else (
        frozenset().union(*(matched[int(i)] for i in units.documents(u))) for u in range(len(units)))
    unit_clusters, _ = _walk(unit_sets, keywords, L=L, rule=rule)
    return [sorted(_unit_member(u, units.documents(u), keywords[r], doc_keywords, matched) for u in members)
            for r, members in enumerate(unit_clusters)]


def _unit_member(unit: int, documents, w: str, doc_keywords: Sequence[Sequence[str]], matched) -> int:
    """The unit's document (of ``documents``, file order) holding ``w`` where ``w`` ranks best (see
    :func:`soft_cluster`); ``matched``: the released words of each text, or None.

    Raises:
        ConfigError: no document of the unit holds ``w`` (``unit_keywords`` not made from ``doc_keywords``).
    """
    best = None
    for i in documents:
        i = int(i)
        own = doc_keywords[i]
        if w not in own and (matched is None or w not in matched[i]):
            continue
        rank = (own.index(w) if w in own else len(own), i)
        best = rank if best is None or rank < best else best
    if best is None:  # the word is not quoted: it may come from a private document
        raise ConfigError(f"unit {unit}'s keyword set holds a released keyword that none of its documents' keyword sets "
                          "holds: make `unit_keywords` with unit_keyword_sets(doc_keywords, units).")
    return best[1]


def group_count(noisy_count: float, *, group_size: int, max_groups: int, cap: int | None = None) -> int:
    """How many member groups a cluster is split into: ⌊min(noisy_count, cap) / group_size⌋, at least 1
    and at most ``max_groups``.

    A function of the cluster's *released* noisy count and public parameters only (post-processing of
    the keyword histogram). ``cap`` is the outlier removal's target size k when it runs (a cluster is cut
    to about k members), else None.

    Raises:
        ConfigError: ``group_size`` or ``max_groups`` < 1.
    """
    for name, value in (("group_size", group_size), ("max_groups", max_groups)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ConfigError(f"`{name}` must be an integer >= 1. Found {value!r}.")
    expected = float(noisy_count) if cap is None else min(float(noisy_count), float(cap))
    if not np.isfinite(expected):
        raise ConfigError(f"`noisy_count` must be finite. Found {noisy_count!r}.")
    return int(min(max_groups, max(1, expected // group_size)))


def group_of(text: str, *, cluster: int, num_groups: int) -> int:
    """The member group (0 ≤ g < ``num_groups``) of a document with text ``text`` in cluster ``cluster``:
    SHA-256 of the cluster index and the text, modulo ``num_groups``.

    A function of that document and public values only — not of the other members (a rank or an equal
    split of the members would move others when one document is added, and then one document would
    change every group's text). So a member is in exactly one group, adding or removing one document
    changes one group, and the groups of a cluster compose in parallel.
    """
    digest = hashlib.sha256(f"{cluster}\x00{text}".encode("utf-8", "surrogatepass")).digest()
    return int.from_bytes(digest[:8], "big") % num_groups


def split_into_groups(members: Sequence[int], texts: Mapping[int, str], *, cluster: int,
                      num_groups: int) -> list[list[int]]:
    """Disjoint member groups of one cluster (:func:`group_of` of each member's text).

    Args:
        members: the cluster's kept members (document indices).
        texts: document index -> the text the member is read by (e.g. its rendered prompt).
        cluster: the cluster's index (public), which salts the hash.
        num_groups: >= 1, from :func:`group_count`.

    Returns:
        ``num_groups`` lists (some possibly empty) that partition ``members``, each in the order of
        ``members``.
    """
    if isinstance(num_groups, bool) or not isinstance(num_groups, int) or num_groups < 1:
        raise ConfigError(f"`num_groups` must be an integer >= 1. Found {num_groups!r}.")
    groups: list[list[int]] = [[] for _ in range(num_groups)]
    for i in members:
        groups[0 if num_groups == 1 else group_of(texts[i], cluster=cluster, num_groups=num_groups)].append(i)
    return groups
