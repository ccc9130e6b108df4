"""Phrase synthesis (issue 41): what a member contributes to its cluster's DP phrase release, and the text
made from the released phrases.

**Contribution** (:func:`document_phrases`, private, never written): a function of one document's text (as
the build reads it: redacted, cut to ``max_document_tokens``), the cluster's released keyword and public
constants alone. English figures are first written in one form (:func:`~dpsynrag.data.figures.canonical_figures`:
"forty-five pounds", "GBP 45" and "£45.00" are all "£45"), so a fact's paraphrases pool their counts. The text is
split into segments at sentence ends (``. ! ? ; :`` before a space or the end, line breaks, and the redaction
placeholder: no phrase spans a redacted value); a segment is tokenised by a public rule (:data:`TOKEN`: words,
numbers with their inner ``. , : /`` and an optional currency sign, ``%``, ordinal or unit suffix — "45p",
"10GB", "5G" —, lone currency signs), kept as written (a name keeps its capital: records of one topic write it
alike); a comma right after a token stays on it ("cramps,"). **Units**: each public string (``--pii-allow``: the
support number, a web address, a product's name), found however it is written, is one token written as the
allow-list writes it, and any e-mail or web address is one token (:data:`WEB`): a phrase may contain them and
they carry content. The candidates are the segment's word n-grams (a segment shorter than n words, of at least
2, is one candidate), minus those made only of stop words (scikit-learn's English list, or wordfreq's most
frequent words; compared lower-cased). When there are more than m distinct candidates the document keeps the m
first by the public order:

1. those holding the cluster's released keyword (in any case) first;
2. then those holding a number (:data:`NUMBER`) in less than half of their words: a stated figure ("the fee
   is €15") rather than a run of digits (a phone number, an account number);
3. then those holding a contact unit (:func:`is_contact`: a support number, an e-mail, a web address);
4. then the larger rarity Σ_w max(0, 8 − Zipf(w)) over its words (wordfreq's public frequencies; stop
   words and numbers of 5 or more digits, identifier-like, count 0; a unit counts 8);
5. then the earlier first position in the text.

Nothing about another document enters, so adding or removing a document changes no other document's set;
the cap m is enforced again by the mechanism (:func:`~dpsynrag.privacy.phrase_release.release_phrases`).

**Text** (:func:`phrase_text`, post-processing of released values only): the released phrases in order of
noisy count (ties by the phrase), chained where one's last n − 1 words are the next one's first n − 1 into
longer spans, each span written as a clause (stop words that cannot end one dropped from its end, a
conjunction from its start: no "...5 working days and.") and a sentence, a sentence said already left out; the
spans holding the cluster's released keyword first.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from functools import lru_cache

import regex

from dpsynrag.data.figures import canonical_figures
from dpsynrag.data.redaction import value_spans
from dpsynrag.data.words import check_language, stop_words

TOKEN = regex.compile(
    r"\ue000[\ue100-\uefff]\ue001"  # a protected unit (a public string, a URL, an e-mail): see segment_tokens
    r"|\p{Sc}?\d+(?:[.,:/]\d+)*(?:%|(?:st|nd|rd|th)\b|[A-Za-z]{1,3}\b)?(?:-\p{L}+)?"  # €15, 20%, 1st, 45p, 5G, 6-month
    r"|[\p{L}\p{M}\p{N}]+(?:['’\-][\p{L}\p{M}\p{N}]+)*"  # words, with inner ' and -
    r"|\p{Sc}"  # a lone currency sign
)
"""A phrase token (matched on the original text; a comma directly after it is kept on it)."""

SEGMENT_END = regex.compile(r"[.!?;:]+(?=\s|$)|\n+")
"""Where a segment ends: sentence punctuation before a space or the end, or a line break."""

NUMBER = regex.compile(r"\p{Sc}?\d")
"""A number token: one that starts with a digit, or a currency sign and a digit."""

UNIT_SPACE = "\u00a0"
"""Joins the words of a protected unit inside a phrase ("0808\u00a0157\u00a00264"): a phrase's tokens are
separated by plain spaces, so a unit stays one token; texts write it back with spaces."""

WEB = regex.compile(r"(?i)(?<![\w@.])(?:[\w.+-]+@[\w-]+(?:\.[\w-]+)+|(?:https?://|www\.)[^\s<>()\[\]]+"
                    r"|[\w-]+(?:\.[\w-]+)*\.(?:com|org|net|co\.uk|uk|io|gov|edu)(?:/[^\s<>()\[\]]*)?)(?<![.,;:!?])")
"""E-mail addresses and web addresses, each one token (never split at its dots)."""

ZIPF_CEILING = 8.0
"""A word's rarity is max(0, ZIPF_CEILING − its wordfreq Zipf frequency): 8 is above every English word's."""

ID_DIGITS = 5
"""A token with at least this many digits is identifier-like: its rarity counts 0 (it is still a word)."""


@lru_cache(maxsize=200_000)
def _rarity(word: str, language: str) -> float:
    import wordfreq

    if UNIT_SPACE in word or "@" in word or "." in word.strip(".,"):
        return ZIPF_CEILING  # a protected unit: a public string, a URL, an e-mail
    if sum(ch.isdigit() for ch in word) >= ID_DIGITS:
        return 0.0
    return max(0.0, ZIPF_CEILING - wordfreq.zipf_frequency(word.rstrip(","), language))


def is_contact(token: str) -> bool:
    """Whether a token is a contact unit: a protected unit holding a digit, "@" or a web address (a support
    number, an e-mail, a URL): it states a fact as a figure does."""
    return (UNIT_SPACE in token or "@" in token or WEB.fullmatch(token.rstrip(",")) is not None) and (
        any(ch.isdigit() for ch in token) or "@" in token or "." in token)


def segment_tokens(text: str, *, public: Sequence[str] = (), placeholder: str | None = None,
                   canonical: bool = False) -> list[list[str]]:
    """The segments of ``text`` (module docstring), each the list of its tokens as written; a comma right
    after a token stays on it. Empty segments are left out.

    Args:
        public: public strings (``--pii-allow``): each found however it is written
            (:func:`~dpsynrag.data.redaction.value_spans`) is one token, written as the allow-list writes it
            (its spaces as :data:`UNIT_SPACE`), so its forms pool; e-mail and web addresses (:data:`WEB`) are
            one token each too.
        placeholder: the redaction's placeholder: where it stands a segment ends (no phrase spans it).
        canonical: write figures in one form first (:func:`~dpsynrag.data.figures.canonical_figures`).
    """
    units: list[tuple[int, int, str]] = []
    for value in public:
        clean = " ".join(value.split())
        if clean:
            units += [(a, b, clean) for a, b in value_spans(text, [clean])]
    units += [(m.start(), m.end(), m.group()) for m in WEB.finditer(text)]
    kept: list[tuple[int, int, str]] = []
    for a, b, value in sorted(units, key=lambda u: (u[0], -(u[1] - u[0]))):
        if not kept or a >= kept[-1][1]:
            kept.append((a, b, value))
    table, parts, at = [], [], 0
    for a, b, value in kept[:0x0F00]:
        parts += [text[at:a], f"\ue000{chr(0xE100 + len(table))}\ue001"]
        table.append(value.replace(" ", UNIT_SPACE))
        at = b
    masked = "".join(parts) + text[at:]
    if placeholder:
        masked = masked.replace(placeholder, "\n")
    if canonical:
        masked = canonical_figures(masked)
    segments = []
    for segment in SEGMENT_END.split(masked):
        tokens = []
        for match in TOKEN.finditer(segment):
            comma = segment[match.end():match.end() + 1] == ","
            token = match.group()
            if token.startswith("\ue000"):
                token = table[ord(token[1]) - 0xE100]
            tokens.append(token + ("," if comma else ""))
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
        language: a wordfreq language code (stop words and rarity; English figures are written in one form,
            :func:`~dpsynrag.data.figures.canonical_figures`).
        placeholder: the redaction's public replacement text; a segment ends where it stands.
        public: public strings (``--pii-allow``): each is one token wherever it is written, and carries
            content; a contact unit (a number, an e-mail, a web address) states a fact as a figure does.

    Returns:
        A tuple of at most m distinct phrases: tokens joined by single spaces.

    Raises:
        ConfigError: an unknown ``language``.
    """
    language = check_language(language)
    empty = set(stop_words(language))
    if placeholder:
        empty |= {t.rstrip(",").lower() for seg in segment_tokens(placeholder) for t in seg}
    key = None if keyword is None else keyword.lower()
    best: dict[str, tuple] = {}
    position = 0
    for tokens in segment_tokens(text, public=public, placeholder=placeholder, canonical=language == "en"):
        size = min(n, len(tokens))
        if size < min(n, 2) and not (tokens and is_contact(tokens[0])):
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
                numbers = sum(NUMBER.match(w) is not None and not is_contact(w) for w in words)
                best[phrase] = (key is not None and key in words, 0 < 2 * numbers < len(words),
                                any(is_contact(w) for w in words), rarity, -(position + i))
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


_LEADING = frozenset("and or but so which that then also".split())
def _cut(words: Sequence[str]) -> bool:
    """Whether a clause ends cut before its unit: on a bare number ("within 90") or "working", "business"."""
    last = words[-1].rstrip(",").lower() if words else ""
    return last.isdigit() or last in ("working", "business", "calendar")
_DANGLING = frozenset("""you're you'll you've you'd we're we'll we've it's it'll they're they'll that's there's
here's let's please i'm i've i'll""".split())


def _clause(span: Sequence[str], language: str = "en") -> list[str]:
    """``span`` as a clause: stop words that cannot end one dropped from its end ("...5 working days and" ->
    "...5 working days"), a conjunction dropped from its start."""
    empty = stop_words(language) | _DANGLING
    words = list(span)
    while words and words[-1].rstrip(",").lower() in empty:
        words.pop()
    while words and words[0].rstrip(",").lower() in _LEADING:
        words.pop(0)
    return words


def _sentence(span: Sequence[str], language: str = "en", public: Sequence[str] = (), *, trim: bool = True) -> str:
    """A span written as a sentence (:func:`_clause` when ``trim``; a public string as the allow-list writes it — the release
    counts lower-cased phrases —, first letter upper case, a trailing comma dropped, a full stop added, a unit's
    words spaced again); "" when nothing is left."""
    cased = {p.lower().replace(" ", UNIT_SPACE): p for p in public}
    words = []
    for t in (_clause(span, language) if trim else span):
        comma = "," if t.endswith(",") else ""
        words.append(cased.get(t.rstrip(",").lower(), t.rstrip(",")) + comma)
    text = " ".join(words).rstrip(",").replace(UNIT_SPACE, " ")
    if not text:
        return ""
    return (text if is_contact(words[0].rstrip(",")) else text[:1].upper() + text[1:]) + "."  # "www." stays


def _join(sentences: Sequence[str]) -> str:
    """Sentences joined by spaces, an empty one or one already said (case and punctuation aside, or inside a
    longer one) left out."""
    def norm(sentence: str) -> str:
        return " " + " ".join(regex.findall(r"[\p{L}\p{N}%£€$]+", sentence.lower())) + " "

    order = sorted((i for i, s in enumerate(sentences) if s), key=lambda i: (-len(sentences[i]), i))
    kept: list[int] = []
    for i in order:
        if not any(norm(sentences[i]) in norm(sentences[j]) for j in kept):
            kept.append(i)
    return " ".join(sentences[i] for i in sorted(kept))


def phrase_text(released: Mapping[str, float], *, n: int, keyword: str | None = None,
                public: Sequence[str] = ()) -> str:
    """A cluster's synthetic text: its :func:`phrase_spans`, those holding ``keyword`` (the cluster's released
    keyword, any case; None: no preference) first, each written as a sentence (:func:`_sentence`, its words as
    released: the clause trimming of :func:`collection_texts` cost the 135M answerer 6 points on Medical Synth,
    ``benchmarks/results/medical_issue51.md``), a sentence said already left out, joined by spaces. "" when
    nothing was released."""
    spans = phrase_spans(released, n=n)
    if keyword is not None:
        key = keyword.lower()
        spans.sort(key=lambda span: key not in {t.rstrip(",").lower() for t in span})  # stable: count order kept
    return _join([_sentence(span, public=[" ".join(p.split()) for p in public], trim=False) for span in spans])


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
    and inner points ("£500" gives "500"), the unit the next word lower-cased that is not in ``empty`` (stop
    words), past "per", "a", "each" ("45p per mile": "mile"): "30 minutes" and "30 days" are two figures, "£500
    a day" and "£500" one; a contact unit (:func:`is_contact`: a support number, an e-mail, a web address) is a
    figure of its own. A bare number ending the span (digits only: no currency sign, ``%``, ordinal or unit
    suffix) states none: the span was cut before its unit ("Mailbox limit is 50.")."""
    out = set()
    for i, t in enumerate(span):
        if is_contact(t):
            out.add((t.rstrip(",").lower(), None))
            continue
        if i == len(span) - 1 and t[0].isdigit() and t.rstrip(",")[-1].isdigit():
            continue
        if NUMBER.match(t) and (number := regex.sub(r"[^\d.]", "", t).strip(".")):
            j = i + 1
            while j < len(span) and span[j].rstrip(",").lower() in _PER:
                j += 1
            unit = span[j].rstrip(",").lower() if j < len(span) else None
            out.add((number, unit if unit and unit not in empty and not NUMBER.match(unit) else None))
    return out


_PER = frozenset("per a an each every".split())
_FIRST_PERSON = frozenset("i i'm i've i'd i'll im ive my me mine myself".split())
MINORITY = 3.0
"""A figure text is dropped when another states the same unit on a shared topic with at least this many times
its count: the figure that only a few records state ("I was told £40"), beside the one most of them state."""


def _minority(groups: dict[int, list[int]], spans, figures, top: Mapping[int, float],
              empty: set[str]) -> set[int]:
    """The figure groups to drop (:data:`MINORITY`): one that another group, counted at least :data:`MINORITY`
    times more, matches in a measure (a number's sign or suffix and its unit: "£…", "…p per mile") and in a
    topic word (not a stop word, number, unit or contact unit), with no figure in common."""
    def measures(g: int) -> set[tuple[str, str]]:
        found = set()
        for i in groups[g]:
            span = spans[i]
            for j, t in enumerate(span):
                if NUMBER.match(t) and not is_contact(t):
                    kind = regex.sub(r"[\d.,]", "", t.rstrip(",")).lower()
                    units = {u for _, u in _figures(span[j:j + 4], empty) if u} or {""}
                    found |= {(kind, u) for u in units}
        return found

    def figures_of(g: int) -> set:
        return set().union(*(figures[i] for i in groups[g]))

    def topic(g: int) -> set[str]:
        units = {u for _, u in figures_of(g) if u}
        return {w for i in groups[g] for t in spans[i] if (w := t.rstrip(",").lower()) not in empty
                and w not in units and not NUMBER.match(w) and not is_contact(w)}

    info = {g: (measures(g), topic(g), figures_of(g)) for g in groups}
    return {g for g in groups for h in groups
            if h != g and top[h] >= MINORITY * top[g] and info[g][0] & info[h][0] and info[g][1] & info[h][1]
            and not info[g][2] & info[h][2]}


def collection_texts(released: Mapping[str, float], keywords: Sequence[tuple[str, float]], *, n: int,
                     language: str = "en", min_phrases: int = 1,
                     public: Sequence[str] = ()) -> list[tuple[int | None, str, float]]:
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

    So that the texts read as statements of the organisation's facts (issue 51): a span in the first person
    ("i was told £40") is a customer's story and is left out; a figure stated without its unit joins the one
    figure of that number that has a unit ("claim 45p" with "45p per mile"); a contact unit (:func:`is_contact`)
    is a figure of its own, and a text of contact units and stop words only is dropped; a figure group that
    another, counted at least :data:`MINORITY` times more, matches in measure and topic (:func:`_minority`) is
    dropped; each span is written as a clause (:func:`_sentence`: ``public`` strings as the allow-list writes
    them), and a sentence already said is left out (:func:`_join`).

    Returns:
        One ``(r, text, count)`` per cluster, in cluster order (``text`` its spans as sentences in count order,
        "" when none); then one ``(r, text, count)`` per figure group (r: the least counted keyword any of its
        spans holds, or None) and one ``(None, sentence, count)`` per other span. ``count`` is the largest noisy
        count of a text's phrases (a cluster without spans: its keyword's noisy count).
    """
    order = sorted(range(len(keywords)), key=lambda r: (keywords[r][1], r))
    lowered = [keywords[r][0].lower() for r in range(len(keywords))]
    empty = set(stop_words(check_language(language)))
    spans = [span for span in phrase_spans(released, n=n, reuse=True)  # a customer's story is not a fact
             if not any(t.rstrip(",").lower() in _FIRST_PERSON for t in span)]
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

    units: dict[str, set[str]] = {}
    for found in figures:
        for number, unit in found:
            if unit is not None:
                units.setdefault(number, set()).add(unit)
    figures = [{(number, next(iter(units[number])) if unit is None and len(units.get(number, ())) == 1 else unit)
                for number, unit in found} for found in figures]  # "claim 45p" is "45p per mile" when alone
    public = [" ".join(p.split()) for p in public]
    cased = {p.lower().replace(" ", UNIT_SPACE) for p in public}
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
    top = {g: max(counts[i] for i in members) for g, members in extra.items()}
    for g in _minority(extra, spans, figures, top, empty):
        del extra[g], top[g]
    held_pairs = {g: set().union(*(pairs(spans[i]) for i in members)) for g, members in extra.items()}
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
        if not any(t.rstrip(",").lower() not in empty | cased and not is_contact(t) for i in members for t in spans[i]):
            return ""  # contact units, public names and stop words only: "People Services help@x.com." says nothing
        sentences = [_sentence(spans[i], language, public) for i in sorted(members)]
        whole = [x for i, x in zip(sorted(members), sentences) if x and not _cut(_clause(spans[i], language))]
        return _join(whole if whole else sentences)  # "Be submitted within 90.": cut before its unit, if another says it

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
