"""Redaction of a document's own direct identifiers (names, e-mails, account numbers) before any model
reads it.

The columns that hold direct identifiers are declared by the user (``--identifier-field``;
``identifier_fields=`` in the API) or by the task (:attr:`~dpsynrag.tasks.base.Task.identifier_fields`),
and their values become :attr:`~dpsynrag.data.io.Document.identifiers`. Each document's text is then
rewritten from its own identifiers alone, so redaction is a per-document function of one document and
leaves the differential-privacy analysis (add or remove one document) unchanged. A value is found however
it is written (:func:`value_spans`): a structured value (an IBAN, phone, card, order or account number)
with any separators between its characters and in any capitals, a phone number in its international and
national forms, an e-mail in any capitals, a name with any whitespace between its parts. Identifiers that
no column declares (other people's names, addresses, phone numbers, ...) are found by the optional
automatic pass :mod:`dpsynrag.data.pii` (``--redact-pii``), which :class:`RedactedDocuments` applies with
them. :class:`RedactedDocuments` counts the spans it replaced, per entity type, for the owner-only record.
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from functools import lru_cache
from typing import Protocol

import phonenumbers

from dpsynrag.data.io import Document
from dpsynrag.textkeys import compatible_text

__all__ = ["DEFAULT_PLACEHOLDER", "IDENTIFIER", "RedactedDocuments", "SpanFinder", "SpanTally", "identifier_spans",
           "merge_spans", "redact_identifiers", "replace_spans", "value_spans"]

DEFAULT_PLACEHOLDER = "[REDACTED]"
"""The public text that replaces an identifier (``--identifier-placeholder``; ``identifier_placeholder``)."""

IDENTIFIER = "IDENTIFIER"
"""The entity type of a document's own identifier values in span counts."""

_CJK_START = 0x2E80  # from here on (CJK, kana, hangul, ...) words are not separated by spaces
_SEP = r"[\s\-./()]*"  # what may stand between two characters of a structured value
_EMAIL = re.compile(r"[^\s@]+@[^\s@]+\.[^\s@]+")
_URL = re.compile(r"(?:https?://)?(?:www\.)?(?P<rest>[\w-]+(?:\.[\w-]+)*\.[a-z]{2,}(?:/\S*)?)", re.IGNORECASE)
_PHONE = re.compile(r"(?:\+|00)?[\d\s\-./()]+")
_ORDER = re.compile(r"([A-Za-z]{1,5})[\s\-#./:]*(\d{4,})")  # "ORD-123456": a short prefix, then the number
_MIN_PHONE_DIGITS, _MAX_PHONE_DIGITS = 7, 15
_MIN_STRUCTURED = 4  # shorter values (a 3-digit code) are matched as written, not with separators


def _spaced_word_char(ch: str) -> bool:
    """A letter or digit of a script written with spaces (below U+2E80)."""
    return ch.isalnum() and ord(ch) < _CJK_START


def _whole_word(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is not glued to a letter or digit of a spaced script on either side
    (checked only beside an edge character that is such a letter or digit, so a CJK name inside unspaced
    CJK text is a whole word)."""
    before = start == 0 or not (_spaced_word_char(text[start]) and _spaced_word_char(text[start - 1]))
    after = end == len(text) or not (_spaced_word_char(text[end - 1]) and _spaced_word_char(text[end]))
    return before and after


def _spaced(chars: str) -> str:
    return _SEP.join(re.escape(c) for c in chars)


def _phone_body(value: str, digits: str) -> str:
    """Every form of a phone number: ``+CC``/``00CC`` or a trunk ``0`` (also ``(0)``, ``(0``) before its national
    significant number, any separators between its digits. A value without ``+`` may carry any country
    code in the text."""
    country, national = r"\d{1,3}", digits
    if value.startswith(("+", "00")):
        try:
            number = phonenumbers.parse("+" + digits[2:] if value.startswith("00") else value, None)
        except phonenumbers.NumberParseException:
            number = None
        if number is not None and number.country_code:
            country = _spaced(str(number.country_code))
            national = ("0" if number.italian_leading_zero else "") + str(number.national_number)
    elif national.startswith("0"):
        national = national[1:]  # the trunk prefix of a national number
    return rf"(?:(?:\+|00){_SEP}{country}{_SEP})?(?:\(?0{_SEP}|\()?{_spaced(national)}"


@lru_cache(maxsize=4096)
def _matchers(value: str) -> tuple[tuple[re.Pattern, int | str], ...]:
    """``(pattern, group)`` pairs that find ``value`` (already whitespace-normalised) however it is written;
    ``group`` is the part of a match that is replaced (0: all of it). Built once per value."""
    flags = re.IGNORECASE
    if _EMAIL.fullmatch(value):
        return ((re.compile(r"\s*@\s*".join(re.escape(p) for p in value.split("@")), flags), 0),)
    url = _URL.fullmatch(value)
    if url:  # with or without its scheme and "www.", a final slash or not
        return ((re.compile(r"(?:https?://)?(?:www\.)?" + re.escape(url.group("rest").rstrip("/"))
                            + r"(?![\w-]|\.\w)", flags), 0),)  # a longer path may follow: it is not public
    alnum = "".join(ch for ch in value if ch.isalnum())
    digits = "".join(ch for ch in value if ch.isdigit())
    if digits and len(alnum) >= _MIN_STRUCTURED:
        if _PHONE.fullmatch(value) and _MIN_PHONE_DIGITS <= len(digits) <= _MAX_PHONE_DIGITS:
            return ((re.compile(_phone_body(value, digits)), 0),)
        found = [(re.compile(_spaced(alnum), flags), 0)]
        order = _ORDER.fullmatch(value)
        if order:  # "#123456", "order no. 123456" for "ORD-123456": the number after a cue is replaced
            prefix, number = order.groups()
            found.append((re.compile(rf"#\s*{_spaced(number)}"), 0))
            cue = rf"{re.escape(prefix)}\w*(?:[\s.:#-]+(?:no|nr|num|number|id|ref|is))*\.?[\s.:#-]*"
            found.append((re.compile(rf"{cue}(?P<v>{_spaced(number)})", flags), "v"))
        return tuple(found)
    return ((re.compile(r"\s+".join(re.escape(p) for p in value.split(" ")), flags), 0),)


@lru_cache(maxsize=4096)
def _part_matcher(part: str) -> re.Pattern:
    """A name part, case-sensitively when it is a common English word ("Rose", "Hope": the words "rose" and
    "hope" stay), in any case otherwise ("tracey" for "Tracey")."""
    return re.compile(re.escape(part), 0 if _common_word(part) else re.IGNORECASE)


@lru_cache(maxsize=65536)
def _common_word(part: str) -> bool:
    import wordfreq

    return wordfreq.zipf_frequency(part.lower(), "en") >= COMMON_ZIPF


COMMON_ZIPF = 3.5
"""A name part at or above this wordfreq Zipf frequency is an ordinary word too ("Rose", "Hope", "Mark"): it is
matched with its capital only."""


def _finditer(pattern: re.Pattern, group: int | str, text: str) -> Iterator[tuple[int, int]]:
    for m in pattern.finditer(text):
        if _whole_word(text, m.start(), m.end()):
            yield m.span(group)


def _is_name(value: str) -> bool:
    """A value that is neither an e-mail nor structured (no digit): its parts are names."""
    return not any(ch.isdigit() for ch in value) and not _EMAIL.fullmatch(value)


def value_spans(text: str, values: Iterable[str]) -> list[tuple[int, int]]:
    """The character spans ``[start, end)`` of ``text`` holding one of ``values`` however it is written,
    merged and in order (:func:`merge_spans`); a value's parts are not looked for on their own.

    Forms found: a value with a digit and at least 4 letters or digits (IBAN, card, account, order
    number) with any of space, ``-``, ``.``, ``/``, ``(``, ``)`` between its characters, in any capitals
    ("GB47 NWBK 2158 ..." for "GB47NWBK2158..."); a phone number (7-15 digits, optional ``+``) also with
    ``+CC``/``00CC`` or the trunk ``0`` (``+44 (0)20 ...``, ``020 ...``, ``+44 20 ...`` for each other); an
    order number ``ABC-123456`` also as ``#123456`` and, after a word starting with its prefix,
    ``order no. 123456`` (only the number replaced); an e-mail in any capitals; a web address with or without
    its ``https://`` and ``www.``, in any capitals; any other value (a name)
    with any whitespace between its parts, in any capitals. Whole words only: not glued to a letter or
    digit of a script written with spaces (CJK text around a value may be).

    Args:
        text: the text to search.
        values: the values (empty or whitespace-only ones are ignored).
    """
    found: list[tuple[int, int]] = []
    for value in values:
        value = " ".join(value.split())
        if value:
            for pattern, group in _matchers(value):
                found.extend(_finditer(pattern, group, text))
    return merge_spans(found)


def _inside(span: tuple[int, int], protected: Sequence[tuple[int, int]]) -> bool:
    return any(s < span[1] and span[0] < e for s, e in protected)


def identifier_spans(text: str, identifiers: Sequence[str],
                     protected: Sequence[tuple[int, int]] = ()) -> list[tuple[int, int]]:
    """The spans of ``text`` that :func:`redact_identifiers` replaces, merged and in order.

    Args:
        text: the document text.
        identifiers: the document's own identifier values.
        protected: spans of public strings (the PII pass's allow-list): a name's part found overlapping
            one is kept; whole values are replaced wherever they are found.
    """
    found = value_spans(text, identifiers)
    parts: set[str] = set()
    for value in identifiers:
        if _is_name(value):
            parts.update(p for p in value.split() if len(p) >= 2 and not p.islower())
    for part in sorted(parts):
        found.extend(s for s in _finditer(_part_matcher(part), 0, text) if not _inside(s, protected))
    return merge_spans(found)


def merge_spans(spans: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """``spans`` sorted, overlapping or touching ones merged into one."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def replace_spans(text: str, spans: Iterable[tuple[int, int]], placeholder: str) -> str:
    """``text`` with each of the merged ``spans`` replaced by ``placeholder`` (taken literally)."""
    parts, at = [], 0
    for start, end in merge_spans(spans):
        parts += [text[at:start], placeholder]
        at = end
    return "".join(parts) + text[at:] if parts else text


def redact_identifiers(text: str, identifiers: Sequence[str], placeholder: str = DEFAULT_PLACEHOLDER) -> str:
    """``text`` with every whole-word occurrence of its document's identifiers replaced by ``placeholder``.

    Replaced: each identifier value however it is written (:func:`value_spans`: IBANs, phone, card and
    order numbers with any separators and capitals, phones in international or national form, e-mails
    and names in any capitals), and each whitespace-separated part of a *name* value (one without a digit or
    ``@``) that has at least 2 characters and is not all lower case ("Li" and CJK names are, the particles
    "van" and "de" alone are not): in any case, or with its capital where the part is also a common English
    word (:data:`COMMON_ZIPF`: "Rose" is replaced, the word "rose" is not; "tracey" is).
    The parts of a structured value ("+44", "7700" of a phone number) are never replaced on their own.
    Overlapping or touching occurrences become one placeholder.

    Args:
        text: the document text.
        identifiers: the document's own identifier values (empty or whitespace-only values are ignored).
        placeholder: the public replacement text.

    Returns:
        The redacted text (``text`` itself when there is nothing to replace).
    """
    return replace_spans(text, identifier_spans(text, identifiers), placeholder)


class SpanFinder(Protocol):
    """What :class:`RedactedDocuments` asks the automatic pass (a :class:`~dpsynrag.data.pii.PIIRedactor`):
    ``find(text)`` -> ``(spans, protected)``, the ``(start, end, entity type)`` spans to replace and the
    ``(start, end)`` spans of allow-listed public strings, both a function of ``text`` alone."""

    def find(self, text: str) -> tuple[list[tuple[int, int, str]], list[tuple[int, int]]]: ...


class SpanTally:
    """The owner-only counts of a redaction pass over a collection, one document at a time (:meth:`add`):
    :meth:`counts` is :meth:`RedactedDocuments.span_counts`' record (never publish: not DP)."""

    def __init__(self):
        self.documents, self.touched, self.spans = 0, 0, Counter()

    def add(self, counts: Mapping[str, int]) -> None:
        """Count one document whose redaction replaced ``counts`` spans per entity type (empty: none)."""
        self.documents += 1
        self.touched += bool(counts)
        self.spans.update(counts)

    def counts(self) -> dict:
        """``{"documents": n, "documents_with_spans": m, "spans": {entity type: count}}`` (types sorted)."""
        return {"documents": self.documents, "documents_with_spans": self.touched,
                "spans": dict(sorted(self.spans.items()))}


class RedactedDocuments(Sequence[Document]):
    """A document collection whose texts are redacted each time they are read, never stored: the spans of
    ``pii`` (when given) and each document's own identifiers (:func:`identifier_spans`, when
    ``identifiers``; a name's parts are kept inside ``pii``'s allow-listed strings), both found in the
    document's text and replaced together. Both are functions of that one document. Re-iterable as the
    wrapped collection is; memory: one document.

    Args:
        documents: a re-iterable collection with ``len()`` (a list of :class:`Document` or a
            :class:`~dpsynrag.data.streaming.DocumentFile`).
        placeholder: the public replacement text.
        identifiers: replace each document's own identifier values.
        pii: the automatic pass, e.g. :class:`~dpsynrag.data.pii.PIIRedactor` (``redact_pii``).

    Iteration and indexing (an int or a slice, where ``documents`` supports it; else ``TypeError``) give
    ``Document(id, redacted text, identifiers)``. The first iteration that reaches the end counts the
    replaced spans (:meth:`span_counts`).
    """

    def __init__(self, documents: Iterable[Document], placeholder: str = DEFAULT_PLACEHOLDER, *,
                 identifiers: bool = True, pii: SpanFinder | None = None):
        self.documents = documents
        self.placeholder = placeholder
        self.identifiers, self.pii = identifiers, pii
        self._counts: dict | None = None

    @staticmethod
    def normal(document: Document) -> Document:
        """``document`` as redaction reads it: its text and identifier values without invisible characters and
        in Unicode NFKC (:func:`~dpsynrag.textkeys.compatible_text`: full-width digits, ligatures, zero-width
        spaces inside a number), its whitespace kept; ``document`` itself when nothing changes (ASCII text)."""
        text = compatible_text(document.text)
        identifiers = tuple(compatible_text(v) for v in document.identifiers)
        if text == document.text and identifiers == tuple(document.identifiers):
            return document
        return dataclasses.replace(document, text=text, identifiers=identifiers)

    def find(self, document: Document) -> list[tuple[int, int, str]]:
        """The ``(start, end, entity type)`` spans of ``normal(document).text`` (:meth:`normal`) that
        :meth:`redact` replaces: the PII pass's (merged per entity type) and, as :data:`IDENTIFIER`, the
        document's own values (merged), in that order; spans of different types may overlap (they become one
        placeholder)."""
        document = self.normal(document)
        spans, protected = self.pii.find(document.text) if self.pii is not None else ([], [])
        if self.identifiers:
            spans = [*spans, *((s, e, IDENTIFIER)
                               for s, e in identifier_spans(document.text, document.identifiers, protected))]
        return spans

    def redact(self, document: Document, spans: list[tuple[int, int, str]] | None = None) -> tuple[Document, Counter]:
        """``(redacted document, spans replaced per entity type)``: :data:`IDENTIFIER` for the document's
        own values, the PII pass's entity types (``"PERSON"``, ``"PHONE_NUMBER"``, ...) for the rest; a
        span found by both counts for each. ``spans``: :meth:`find`'s, when already found. The redacted text
        is :meth:`normal`'s with the spans replaced."""
        spans = self.find(document) if spans is None else spans
        document = self.normal(document)
        redacted = replace_spans(document.text, [(s, e) for s, e, _ in spans], self.placeholder)
        counts = Counter(entity for _, _, entity in spans)
        return Document(document.id, redacted, document.identifiers, document.text_sha256), counts  # cut: kept

    def _redact(self, document: Document) -> Document:
        return self.redact(document)[0]

    def span_counts(self) -> dict:
        """Owner-only counts of what was replaced in the whole collection (never publish: they are not
        DP): ``{"documents": n, "documents_with_spans": m, "spans": {entity type: count}}``. From the first
        complete iteration, or one counting pass over the documents when none has completed yet."""
        if self._counts is None:
            for _ in self:
                pass
        return self._counts

    def __len__(self) -> int:
        return len(self.documents)

    def __iter__(self) -> Iterator[Document]:
        tally = SpanTally() if self._counts is None else None
        for document in self.documents:
            redacted, counts = self.redact(document)
            if tally is not None:
                tally.add(counts)
            yield redacted
        if tally is not None and self._counts is None:
            self._counts = tally.counts()

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self._redact(d) for d in self.documents[index]]
        return self._redact(self.documents[index])

    def __repr__(self) -> str:
        return (f"RedactedDocuments({self.documents!r}, placeholder={self.placeholder!r}, "
                f"identifiers={self.identifiers!r}, pii={self.pii!r})")
