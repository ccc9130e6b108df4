"""Phrase synthesis (issue 41): what a member contributes to its cluster's DP phrase release, and the text
made from the released phrases.

**Contribution** (:func:`document_phrases`, private, never written): a function of one document's text (as
the build reads it: redacted, cut to ``max_document_tokens``), the cluster's released keyword and public
constants alone. The text is split into segments at sentence ends (``. ! ? ; :`` before a space or the end,
and line breaks); a segment is tokenised by a public rule (:data:`TOKEN`: words, numbers with their inner
``. , : /`` and an optional currency sign or ``%``, lone currency signs), kept as written (a name keeps its
capital: records of one topic write it alike); a comma right after a token stays on it ("cramps,"). The candidates are the segment's word n-grams (a segment shorter than n
words, of at least 2, is one candidate), minus those made only of stop words (scikit-learn's English list,
or wordfreq's most frequent words; compared lower-cased), words of the redaction placeholder and words of
the public strings (``--pii-allow``: the support number, the company's name...). When there are more than m
distinct candidates the document keeps the m first by the public order:

1. those holding the cluster's released keyword (in any case) first;
2. then those holding a number (:data:`NUMBER`) in less than half of their words: a stated figure ("the fee
   is 15 EUR") rather than a run of digits (a phone number, an account number);
3. then the larger rarity Σ_w max(0, 8 − Zipf(w)) over its words (wordfreq's public frequencies; stop
   words, placeholder words and numbers of 5 or more digits, identifier-like, count 0);
4. then the earlier first position in the text.

Nothing about another document enters, so adding or removing a document changes no other document's set;
the cap m is enforced again by the mechanism (:func:`~dpsynrag.privacy.phrase_release.release_phrases`).

**Text** (:func:`phrase_text`, post-processing of released values only): the released phrases in order of
noisy count (ties by the phrase), chained where one's last n − 1 words are the next one's first n − 1 into
longer spans, each span written as a sentence; the spans holding the cluster's released keyword first.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from functools import lru_cache

import regex

from dpsynrag.data.words import check_language, stop_words

TOKEN = regex.compile(
    r"\p{Sc}?\d+(?:[.,:/]\d+)*(?:%|(?:st|nd|rd|th)\b)?"  # numbers: 15, 15.00, 1,500, 2024/01, €15, 20%, 1st, 10th
    r"|[\p{L}\p{M}\p{N}]+(?:['’\-][\p{L}\p{M}\p{N}]+)*"  # words, with inner ' and -
    r"|\p{Sc}"  # a lone currency sign
)
"""A phrase token (matched on the original text; a comma directly after it is kept on it)."""

SEGMENT_END = regex.compile(r"[.!?;:]+(?=\s|$)|\n+")
"""Where a segment ends: sentence punctuation before a space or the end, or a line break."""

NUMBER = regex.compile(r"\p{Sc}?\d")
"""A number token: one that starts with a digit, or a currency sign and a digit."""

ZIPF_CEILING = 8.0
"""A word's rarity is max(0, ZIPF_CEILING − its wordfreq Zipf frequency): 8 is above every English word's."""

ID_DIGITS = 5
"""A token with at least this many digits is identifier-like: its rarity counts 0 (it is still a word)."""


@lru_cache(maxsize=200_000)
def _rarity(word: str, language: str) -> float:
    import wordfreq

    if sum(ch.isdigit() for ch in word) >= ID_DIGITS:
        return 0.0
    return max(0.0, ZIPF_CEILING - wordfreq.zipf_frequency(word.rstrip(","), language))


def segment_tokens(text: str) -> list[list[str]]:
    """The segments of ``text`` (module docstring), each the list of its tokens as written; a comma right
    after a token stays on it. Empty segments are left out."""
    segments = []
    for segment in SEGMENT_END.split(text):
        tokens = []
        for match in TOKEN.finditer(segment):
            comma = segment[match.end():match.end() + 1] == ","
            tokens.append(match.group() + ("," if comma else ""))
        if tokens:
            segments.append(tokens)
    return segments


def document_phrases(text: str, *, n: int, max_phrases: int, keyword: str | None = None, language: str = "en",
                     placeholder: str | None = None, public: Sequence[str] = ()) -> tuple[str, ...]:
    """The at most ``max_phrases`` distinct phrases one document contributes (module docstring), best first.

    Args:
        text: the document's text as the build reads it (redacted, cut).
        n: the phrase length in words (>= 1). max_phrases: m >= 1.
        keyword: the cluster's released keyword (public); its phrases come first. None: no preference.
        language: a wordfreq language code (stop words and rarity).
        placeholder: the redaction's public replacement text; its words carry no content.
        public: public strings (``--pii-allow``); their words carry no content either (a phrase made only of
            them, stop words and the placeholder's words, "on 44 20 7946", is not a candidate).

    Returns:
        A tuple of at most m distinct phrases: tokens joined by single spaces.

    Raises:
        ConfigError: an unknown ``language``.
    """
    language = check_language(language)
    empty = set(stop_words(language))
    for string in ([placeholder] if placeholder else []) + list(public):
        empty |= {t.rstrip(",").lower() for s in segment_tokens(string) for t in s}
    key = None if keyword is None else keyword.lower()
    best: dict[str, tuple] = {}
    position = 0
    for tokens in segment_tokens(text):
        size = min(n, len(tokens))
        if size < min(n, 2):
            position += len(tokens)
            continue
        for i in range(len(tokens) - size + 1):
            gram = tokens[i:i + size]
            words = [t.rstrip(",").lower() for t in gram]
            if all(w in empty for w in words):
                continue
            phrase = " ".join(gram)
            if phrase not in best:
                rarity = sum(_rarity(w, language) for w in words if w not in empty)
                numbers = sum(NUMBER.match(w) is not None for w in words)
                best[phrase] = (key is not None and key in words, 0 < 2 * numbers < len(words), rarity,
                                -(position + i))
        position += len(tokens)
    ranked = sorted(best, key=lambda p: best[p], reverse=True)
    return tuple(ranked[:max_phrases])


def phrase_spans(released: Mapping[str, float], *, n: int, reuse: bool = False) -> list[list[str]]:
    """Released phrases chained into spans (lists of tokens), most counted first.

    Phrases are taken in order of noisy count (ties by the phrase). A span starts with the next unused phrase
    and grows to the right (then the left) by the unused phrase of largest count whose first (last) n − 1
    tokens are the span's last (first) n − 1 tokens; a phrase of fewer than n tokens stays on its own. Each
    phrase is used once; with ``reuse`` a span may also grow by a phrase another span used (not one it holds
    already), so a fact's words are not cut where a more counted span took their phrase, and spans that only
    repeat used phrases are dropped. A function of the released phrases and counts only."""
    order = sorted(released, key=lambda p: (-released[p], p))
    units = {p: p.split(" ") for p in order}
    used: set[str] = set()
    spans = []
    for start in order:
        if start in used:
            continue
        used.add(start)
        span, held = list(units[start]), {start}
        if len(span) >= n > 1:
            for right in (True, False):
                while True:
                    edge = span[len(span) - n + 1:] if right else span[:n - 1]
                    nxt = next((q for q in order if (q not in held if reuse else q not in used)
                                and len(units[q]) == n and (units[q][:-1] if right else units[q][1:]) == edge), None)
                    if nxt is None:
                        break
                    used.add(nxt)
                    held.add(nxt)
                    span = span + [units[nxt][-1]] if right else [units[nxt][0]] + span
        spans.append(span)
    if reuse:  # a span inside a longer one adds nothing
        joined = [" " + " ".join(span) + " " for span in spans]
        spans = [span for i, span in enumerate(spans)
                 if not any(j != i and joined[i] in joined[j] and (len(joined[j]) > len(joined[i]) or j < i)
                            for j in range(len(spans)))]
    return spans


def _sentence(span: Sequence[str]) -> str:
    words = " ".join(span).rstrip(",")
    return words[:1].upper() + words[1:] + "."


def phrase_text(released: Mapping[str, float], *, n: int, keyword: str | None = None) -> str:
    """A cluster's synthetic text: its :func:`phrase_spans`, those holding ``keyword`` (the cluster's released
    keyword, any case; None: no preference) first, each written as a sentence (first letter upper case, a
    trailing comma dropped, a full stop added), joined by spaces. "" when nothing was released."""
    spans = phrase_spans(released, n=n)
    if keyword is not None:
        key = keyword.lower()
        spans.sort(key=lambda span: key not in {t.rstrip(",").lower() for t in span})  # stable: count order kept
    return " ".join(_sentence(span) for span in spans)


def span_count(span: Sequence[str], released: Mapping[str, float], *, n: int) -> float:
    """The largest released noisy count among the phrases a span was chained from."""
    size = min(n, len(span))
    return max(released.get(" ".join(span[i:i + size]), -math.inf) for i in range(len(span) - size + 1))


def span_phrases(span: Sequence[str], released: Mapping[str, float], *, n: int) -> list[str]:
    """The released phrases a span holds: its windows of ``min(n, len(span))`` tokens that were released."""
    size = min(n, len(span))
    return [p for i in range(len(span) - size + 1) if (p := " ".join(span[i:i + size])) in released]


def _figures(span: Sequence[str], empty: set[str]) -> set[tuple[str, str | None]]:
    """The figures a span states: ``(number, unit)`` per number token (:data:`NUMBER`), the number its digits
    and inner points ("£500" gives "500"), the unit the next token lower-cased when it is a word and not in
    ``empty`` (stop words): "30 minutes" and "30 days" are two figures, "£500 a day" and "£500" one. A bare
    number ending the span (digits only: no currency sign, ``%`` or ordinal suffix) states none: the span was
    cut before its unit ("Mailbox limit is 50.")."""
    out = set()
    for i, t in enumerate(span):
        if i == len(span) - 1 and t[0].isdigit() and t.rstrip(",")[-1].isdigit():
            continue
        if NUMBER.match(t) and (number := regex.sub(r"[^\d.]", "", t).strip(".")):
            unit = span[i + 1].rstrip(",").lower() if i + 1 < len(span) else None
            out.add((number, unit if unit and unit not in empty and not NUMBER.match(unit) else None))
    return out


def collection_texts(released: Mapping[str, float], keywords: Sequence[tuple[str, float]], *, n: int,
                     language: str = "en", min_phrases: int = 1) -> list[tuple[int | None, str, float]]:
    """The texts of a phrase release over the whole collection (``phrase_scope="collection"``), a function of
    the released phrases, their noisy counts and the released keywords only (post-processing).

    The spans are :func:`phrase_spans` with ``reuse``. Spans stating a common figure (a number and its unit
    word, :func:`_figures`: "£500" = "500", "30 minutes" ≠ "30 days") form one text, whatever their keywords:
    the ways a fact is written, side by side. A span stating no figure joins the figure group with which it
    shares the most word pairs (two adjacent words, lower case, not both stop words: "Password reset links
    expire" joins "Links expire after 30 minutes"; ties: the more counted group); sharing none, it goes to the
    cluster r whose keyword ``keywords[r][0]`` it holds (any case; the least noisy count ``keywords[r][1]``
    first, as the keyword walk, then r), or is a text of its own. A text stating no figure whose spans hold
    fewer than ``min_phrases`` distinct released phrases (:func:`span_phrases`) is dropped: a cluster's text
    becomes "", another text is not returned (1: every text kept).

    Returns:
        One ``(r, text, count)`` per cluster, in cluster order (``text`` its spans as sentences in count order,
        "" when none); then one ``(r, text, count)`` per figure group (r: the least counted keyword any of its
        spans holds, or None) and one ``(None, sentence, count)`` per other span. ``count`` is the largest noisy
        count of a text's phrases (a cluster without spans: its keyword's noisy count).
    """
    order = sorted(range(len(keywords)), key=lambda r: (keywords[r][1], r))
    lowered = [keywords[r][0].lower() for r in range(len(keywords))]
    empty = set(stop_words(check_language(language)))
    spans = phrase_spans(released, n=n, reuse=True)
    figures = [_figures(span, empty) for span in spans]
    counts = [span_count(span, released, n=n) for span in spans]
    cluster_of = []
    for span in spans:
        words = {t.rstrip(",").lower() for t in span}
        cluster_of.append(next((r for r in order if lowered[r] in words), None))
    group = list(range(len(spans)))  # union-find over spans sharing a figure

    def root(i: int) -> int:
        while group[i] != i:
            group[i] = group[group[i]]
            i = group[i]
        return i

    first: dict[tuple[str, str | None], int] = {}
    for i in range(len(spans)):
        for figure in sorted(figures[i], key=str):
            group[root(i)] = root(first.setdefault(figure, i))
    def pairs(span: Sequence[str]) -> set[tuple[str, str]]:
        words = [t.rstrip(",").lower() for t in span]
        return {(a, b) for a, b in zip(words, words[1:]) if not (a in empty and b in empty)}

    extra: dict[int, list[int]] = {}
    for i in range(len(spans)):
        if figures[i]:
            extra.setdefault(root(i), []).append(i)
    held_pairs = {g: set().union(*(pairs(spans[i]) for i in members)) for g, members in extra.items()}
    top = {g: max(counts[i] for i in members) for g, members in extra.items()}
    assigned: list[list[int]] = [[] for _ in keywords]
    for i in range(len(spans)):
        if figures[i]:
            continue
        own = pairs(spans[i])
        shared = max(((len(own & held_pairs[g]), top[g], -g) for g in held_pairs), default=(0, 0, 0))
        if shared[0] > 0:
            extra[-shared[2]].append(i)
        elif cluster_of[i] is not None:
            assigned[cluster_of[i]].append(i)
        else:
            extra.setdefault(i, []).append(i)

    def text(members: list[int]) -> str:
        if not any(figures[i] for i in members) and len(set().union(*(phrases_of[i] for i in members))) < min_phrases:
            return ""  # a fragment: too few released phrases and no figure
        return " ".join(_sentence(spans[i]) for i in sorted(members))

    phrases_of = [set(span_phrases(span, released, n=n)) for span in spans]
    texts = [(r, text(members), max((counts[i] for i in members), default=keywords[r][1]))
             for r, members in enumerate(assigned)]
    for members in extra.values():
        if not (written := text(members)):
            continue
        held = [cluster_of[i] for i in members if cluster_of[i] is not None]
        r = min(held, key=lambda r: (keywords[r][1], r)) if held else None
        texts.append((r, written, max(counts[i] for i in members)))
    return texts
