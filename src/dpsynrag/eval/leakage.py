"""Leakage checks beyond names: identifier values in any format, PII patterns and long copied n-grams.

:class:`LeakageChecker` indexes a private collection once and then checks texts (RAG answers, synthetic
corpus texts) for three kinds of leak:

* **identifier** — a value of a document's identifier fields (:attr:`~dpsynrag.data.io.Document.identifiers`:
  ``--identifier-field``) written in any format. Text and values are compared as *alphanumeric streams*:
  Unicode NFKC, case-folded, every character that is not a letter or digit dropped, so ``GB47 NWBK 2158``,
  ``gb47-nwbk.2158`` and ``GB47NWBK2158`` are one stream, and so are ``+44 (7700) 900-123`` and
  ``447700900123``. A value is found when (a) its whole stream occurs in the text's stream starting and
  ending at word edges ("Ann Lee" in "ANN LEE said" and in "Ann-Lee", not in "Joann Leeds"), values of at
  least :data:`MIN_VALUE_CHARS` characters; or (b) the value is code-like (at least :data:`CODE_DIGITS`
  digits: IBANs, account, card and phone numbers, order numbers) and any :data:`FRAGMENT_CHARS` consecutive
  characters of its stream occur anywhere in the text's stream: the first 12 characters of a customer's
  IBAN, or a phone number written nationally (``07700 900123``) where the file holds it internationally;
  a code-like value's runs of :data:`CODE_DIGITS` or more digits are also looked for as whole words
  (``#943408`` for ``CASE-943408``). A first name alone is not its full name's value.
* **pii** — text shaped like an IBAN (two capitals, two digits, then capitals and digits in groups of four,
  15–35 in all, at least 6 digits), an e-mail address, a card number (13–19 digits in groups that pass the
  Luhn check) or a phone number (9–15 digits in groups, optionally after ``+``; no date among them, not an
  amount such as ``1000000.00``, not a placeholder such as ``123-456-7890``), wherever it comes from,
  unless it is public (``allow``); and the postal addresses and full names of people (two words or more)
  that the rule-based finders see in the *private documents* (:func:`~dpsynrag.data.pii_rules.address_spans`,
  :func:`~dpsynrag.data.pii_rules.person_spans`: a third person's name or address in a customer's message,
  which no field holds), looked for as whole values in any format. Names need the census name lists
  (``pip install 'dpsynrag[pii]'``; :func:`name_lists_available`); a name a model makes up is not a leak,
  so names are never matched by shape. Shapes cannot tell a leaked number from one a model made up.
* **ngram** — a run of :data:`NGRAM_WORDS` consecutive words (letters and digits, case-folded) shared with a
  private document; **unique_ngram** when that n-gram occurs in exactly one private document (a phrase many
  documents share is what a DP release may carry; one document's phrase is not).

Public strings (``allow``: the company's support number, its name, its own IBAN) never count: a PII match
inside one is public (phone numbers: the same last 9 digits as a public number, so the national and
international forms of one number are one), and identifier matches whose characters all lie inside a
public string's :data:`FRAGMENT_CHARS`-character windows are ignored (a customer's phone number sharing
the switchboard's prefix with the public support number is not found in the support number).

Memory: the n-gram index keeps one 64-bit hash and one 32-bit count per distinct n-gram of the collection
(12 bytes; about 1.2 MB per 100,000 distinct n-grams), built by streaming the documents once; identifier
values, names and addresses are kept as their streams (Medical Synth's 8,000 notes: 18 s, 70 MB at peak).
Hashes are Python's ``hash`` of the word tuple (salted per process): the index is never written, and a
64-bit collision (about 1 in 10^9 at 10^5 n-grams per text) could only add a finding. Reports hold counts and text ids, never the private values.
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from dpsynrag.data.io import Document
from dpsynrag.data.pii_rules import address_spans, person_spans, require_name_lists
from dpsynrag.errors import ConfigError, DataError

__all__ = ["CODE_DIGITS", "FRAGMENT_CHARS", "KINDS", "MIN_VALUE_CHARS", "NGRAM_WORDS", "PATTERN_TYPES", "PII_TYPES",
           "LeakageChecker", "TextLeaks", "corpus_leakage", "name_lists_available", "pii_matches",
           "read_public_strings"]

FRAGMENT_CHARS = 8
"""Consecutive characters of a code-like identifier value's stream that count as a leak of it."""
CODE_DIGITS = 6
"""Digits a value needs to be code-like (its fragments are looked for, not only the whole value)."""
MIN_VALUE_CHARS = 4
"""Shortest value stream looked for as a whole value (shorter values are ignored: "Li", "Bo")."""
NGRAM_WORDS = 8
"""Words of a copied n-gram."""
KINDS = ("identifier", "pii", "unique_ngram", "ngram")
"""The kinds of finding, as :meth:`LeakageChecker.summary` reports them; a text *leaks* when it has one of
the first three (``ngram``, an n-gram of any number of private documents, is reported beside them)."""
PATTERN_TYPES = ("iban", "email", "card", "phone")
"""The PII shapes, in the order they are matched (a span taken by one is not matched again)."""
PII_TYPES = (*PATTERN_TYPES, "address", "name")
"""The PII types reported: the shapes, then the addresses and names found in the private documents."""

_WORD = re.compile(r"[^\W_]+")
_PII = {
    "iban": re.compile(r"(?<![^\W_])[A-Z]{2}[0-9]{2}(?:[ -]?[A-Z0-9]{4}){2,7}(?:[ -]?[A-Z0-9]{1,3})?(?![^\W_])"),
    "email": re.compile(r"(?<![\w.+-])[\w.+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}(?![\w])"),
    "card": re.compile(r"(?<![\w+])(?<![0-9][.,])[0-9](?:[ -]?[0-9]){12,18}(?![\w])(?![.,][0-9])"),  # not a decimal's part
    "phone": re.compile(r"(?<![\w+])(?:\+|00)?\(?[0-9]{1,5}\)?(?:[ .-]?\(?[0-9]{1,5}\)?){1,6}(?![\w])"),
}
_PHONE_DIGITS = (9, 15)
_AMOUNT = re.compile(r"[0-9]+[.,][0-9]+")  # one decimal separator: an amount or a decimal, not a phone number
_COUNTING = "0123456789" * 3  # "1234567890", "123-456-7890": a model's placeholder, no one's number
_DATE = re.compile(r"(?:19|20)[0-9]{2}[-./][0-9]{1,2}[-./][0-9]{1,2}|[0-9]{1,2}[-./][0-9]{1,2}[-./](?:19|20)[0-9]{2}")
_DIGIT_RUN = re.compile(rf"[0-9]{{{CODE_DIGITS},}}")
_PHONE_TAIL = 9  # digits compared with public numbers (national and international forms share them)


def _stream(text: str) -> tuple[str, list[int], str]:
    """``(stream, positions, normalised text)``: the alphanumeric stream of ``text`` (NFKC, case-folded,
    letters and digits only) and, per stream character, its index in the NFKC text."""
    norm = unicodedata.normalize("NFKC", text)
    chars: list[str] = []
    positions: list[int] = []
    for i, c in enumerate(norm):
        for f in c.casefold():
            if f.isalnum():
                chars.append(f)
                positions.append(i)
    return "".join(chars), positions, norm


def _digits(text: str) -> str:
    return "".join(c for c in text if c.isdigit())


def _placeholder(digits: str) -> bool:
    """Digits counting up or down (``1234567890``) or one digit repeated (``0000000000``)."""
    return digits in _COUNTING or digits in _COUNTING[::-1] or len(set(digits)) == 1


def _luhn(digits: str) -> bool:
    total = 0
    for i, d in enumerate(reversed(digits)):
        n = int(d) * (2 if i % 2 else 1)
        total += n - 9 if n > 9 else n
    return total % 10 == 0


def name_lists_available() -> bool:
    """Whether person names can be looked for (the census name lists of the package ``names``)."""
    try:
        require_name_lists()
    except ConfigError:
        return False
    return True


def pii_matches(text: str) -> list[tuple[str, str]]:
    """The PII-shaped spans of ``text``: ``(type, span)`` pairs in :data:`PATTERN_TYPES` order, each span of
    the (NFKC) text taken by the first type that matches it (an IBAN's digits are not also a phone number).
    Card numbers must pass the Luhn check; phone numbers hold 9 to 15 digits and no date (``2022-01-01 23``
    is not a phone number); an IBAN is written in capitals,
    compact or in groups of four, with 15 to 35 characters of which at least 6 are digits."""
    norm = unicodedata.normalize("NFKC", text)
    taken = [False] * len(norm)
    found: list[tuple[str, str]] = []
    for kind in PATTERN_TYPES:
        for m in _PII[kind].finditer(norm):
            start, end = m.span()
            if any(taken[start:end]):
                continue
            span, digits = m.group(0), _digits(m.group(0))
            if kind == "iban" and (len(digits) < 6 or len(_stream(span)[0]) < 15):
                continue
            if kind == "card" and (not _luhn(digits) or len(set(digits)) == 1):  # 0000000000000: no one's card
                continue
            if kind == "phone" and (not (_PHONE_DIGITS[0] <= len(digits) <= _PHONE_DIGITS[1]) or _DATE.search(span)
                                    or _AMOUNT.fullmatch(span) or _placeholder(digits)):
                continue
            taken[start:end] = [True] * (end - start)
            found.append((kind, span))
    return found


@dataclass
class TextLeaks:
    """What one text leaks.

    Attributes:
        identifiers: indices of the identifier values found (into the checker's private value list).
        pii: ``(type, alphanumeric stream)`` of each non-public PII span.
        ngrams: hashes of the n-grams shared with private documents; ``unique_ngrams``: those of them that
            occur in exactly one private document.
    """

    identifiers: set[int] = field(default_factory=set)
    pii: set[tuple[str, str]] = field(default_factory=set)
    ngrams: set[int] = field(default_factory=set)
    unique_ngrams: set[int] = field(default_factory=set)

    def __sub__(self, other: "TextLeaks") -> "TextLeaks":
        return TextLeaks(self.identifiers - other.identifiers, self.pii - other.pii, self.ngrams - other.ngrams,
                         self.unique_ngrams - other.unique_ngrams)

    def kinds(self) -> tuple[str, ...]:
        """The :data:`KINDS` this text has."""
        have = {"identifier": self.identifiers, "pii": self.pii, "unique_ngram": self.unique_ngrams,
                "ngram": self.ngrams}
        return tuple(k for k in KINDS if have[k])

    @property
    def leaks(self) -> bool:
        """An identifier value, a non-public PII span or an n-gram of exactly one private document."""
        return bool(self.identifiers or self.pii or self.unique_ngrams)


class LeakageChecker:
    """An index of a private collection for leakage checks (see the module docstring).

    Args:
        documents: the private documents, iterated once (a list, or a streamed
            :class:`~dpsynrag.data.streaming.DocumentFile`); their ``identifiers`` are the values looked for.
            Plain strings count as documents without identifiers.
        identifiers: further private values to look for (e.g. names from a side list).
        allow: public strings whose occurrences never count (see the module docstring).
        ngram_words: words of a copied n-gram (default :data:`NGRAM_WORDS`, >= 2).
        fragment_chars: characters of a code-like value's fragment (default :data:`FRAGMENT_CHARS`, >= 4).
        names: collect the full names the private documents hold (default: where :func:`name_lists_available`);
            :attr:`names` says whether they are.

    Raises:
        ConfigError: ``ngram_words`` < 2 or ``fragment_chars`` < 4; ``names=True`` without the name lists.
    """

    def __init__(self, documents: Iterable[Document | str], *, identifiers: Iterable[str] = (),
                 allow: Sequence[str] = (), ngram_words: int = NGRAM_WORDS, fragment_chars: int = FRAGMENT_CHARS,
                 names: bool | None = None):
        for name, value, low in (("ngram_words", ngram_words, 2), ("fragment_chars", fragment_chars, 4)):
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ConfigError(f"`{name}` must be an integer >= {low}. Found {value!r}.")
        self.ngram_words, self.fragment_chars = ngram_words, fragment_chars
        if names:
            require_name_lists()
        self.names = name_lists_available() if names is None else names
        self._values: dict[str, int] = {}  # value stream -> index
        self._found: dict[str, list[tuple[str, str]]] = {}  # first characters -> (stream, type): names, addresses
        self._whole: dict[str, list[tuple[str, int]]] = {}  # first MIN_VALUE_CHARS characters -> (stream, index)
        self._fragments: dict[str, set[int]] = {}  # fragment -> value indices
        self._allow_windows: set[str] = set()
        self._allow_streams: list[str] = []
        self._allow_phones: set[str] = set()
        for text in allow:
            stream = _stream(text)[0]
            if stream:
                self._allow_streams.append(stream)
                self._allow_windows.update(self._windows(stream))
            digits = _digits(unicodedata.normalize("NFKC", text))
            if len(digits) >= _PHONE_TAIL:
                self._allow_phones.add(digits[-_PHONE_TAIL:])
        hashes: list[np.ndarray] = []
        index = (np.zeros(0, np.uint64), np.zeros(0, np.uint32))
        pending = 0
        self.documents = 0
        for doc in documents:
            self.documents += 1
            if isinstance(doc, Document):
                for value in doc.identifiers:
                    self._add_value(value)
                text = doc.text
            else:
                text = str(doc)
            self._add_found(text)
            grams = np.fromiter(self._ngram_hashes(text), np.uint64)
            if grams.size:
                hashes.append(np.unique(grams))  # a document counts once per n-gram
                pending += grams.size
            if pending > 1_000_000:
                index, hashes, pending = _merge(index, hashes), [], 0
        for value in identifiers:
            self._add_value(value)
        self._ngram_hash, self._ngram_count = _merge(index, hashes)

    # ------------------------------------------------------------------ index

    @property
    def values(self) -> int:
        """Distinct identifier values looked for."""
        return len(self._values)

    @property
    def found(self) -> int:
        """Distinct names and addresses found in the private documents (looked for as PII)."""
        return sum(len(v) for v in self._found.values())

    @property
    def ngrams(self) -> int:
        """Distinct n-grams of the private collection."""
        return int(self._ngram_hash.size)

    def _windows(self, stream: str) -> set[str]:
        f = self.fragment_chars
        return {stream[i:i + f] for i in range(len(stream) - f + 1)}

    def _add_value(self, value: str) -> None:
        stream = _stream(str(value))[0]
        if len(stream) < MIN_VALUE_CHARS or stream in self._values:
            return
        idx = self._values[stream] = len(self._values)
        self._whole.setdefault(stream[:MIN_VALUE_CHARS], []).append((stream, idx))
        if sum(c.isdigit() for c in stream) >= CODE_DIGITS:
            for window in self._windows(stream):
                self._fragments.setdefault(window, set()).add(idx)
            for run in _DIGIT_RUN.findall(stream):  # "943408" of "CASE-943408", as a whole word ("#943408")
                if run != stream:
                    self._whole.setdefault(run[:MIN_VALUE_CHARS], []).append((run, idx))

    def _add_found(self, text: str) -> None:
        """The addresses and (with :attr:`names`) full names of ``text``, as whole values of their type."""
        norm = unicodedata.normalize("NFKC", text)
        spans = [("address", a, b) for a, b in address_spans(norm)]
        if self.names:
            spans += [("name", a, b) for a, b in person_spans(norm) if len(norm[a:b].split()) >= 2]
        for kind, a, b in spans:
            stream = _stream(norm[a:b])[0]
            if len(stream) >= MIN_VALUE_CHARS and (stream, kind) not in self._found.get(stream[:MIN_VALUE_CHARS], ()):
                self._found.setdefault(stream[:MIN_VALUE_CHARS], []).append((stream, kind))

    def _ngram_hashes(self, text: str) -> Iterable[int]:
        words = _WORD.findall(unicodedata.normalize("NFKC", text).casefold())
        n = self.ngram_words
        return (hash(tuple(words[i:i + n])) & 0xFFFF_FFFF_FFFF_FFFF for i in range(len(words) - n + 1))

    # ------------------------------------------------------------------ checks

    def check(self, text: str, *, exclude: str | None = None) -> TextLeaks:
        """The leaks of ``text``; with ``exclude`` (e.g. the question an answer replies to), what ``exclude``
        itself holds does not count (an answer repeating the question's own IBAN leaks nothing new)."""
        found = self._check(text)
        return found - self._check(exclude) if exclude else found

    def _check(self, text: str) -> TextLeaks:
        stream, positions, norm = _stream(text)
        out = TextLeaks()
        masked = self._masked(stream)
        f = self.fragment_chars
        for i in range(len(stream)):
            if i + f <= len(stream) and not all(masked[i:i + f]):
                out.identifiers |= self._fragments.get(stream[i:i + f], set())
            key = stream[i:i + MIN_VALUE_CHARS]
            if not (key in self._whole or key in self._found) or not _edge_before(norm, positions[i]):
                continue
            for value, idx in self._whole.get(key, ()):
                if self._whole_at(stream, positions, norm, masked, i, value):
                    out.identifiers.add(idx)
            for value, kind in self._found.get(key, ()):
                if self._whole_at(stream, positions, norm, masked, i, value):
                    out.pii.add((kind, value))
        for kind, span in pii_matches(norm):
            if not self._public(kind, span):
                out.pii.add((kind, _stream(span)[0]))
        grams = np.fromiter(self._ngram_hashes(text), np.uint64)
        if grams.size and self._ngram_hash.size:
            pos = np.minimum(np.searchsorted(self._ngram_hash, grams), self._ngram_hash.size - 1)
            hit = self._ngram_hash[pos] == grams
            out.ngrams = {int(g) for g in grams[hit]}
            out.unique_ngrams = {int(g) for g in grams[hit & (self._ngram_count[pos] == 1)]}
        return out

    @staticmethod
    def _whole_at(stream: str, positions: list[int], norm: str, masked: list[bool], i: int, value: str) -> bool:
        """``value`` starts at stream position ``i``, ends at a word edge, and is not all inside public text."""
        end = i + len(value)
        return stream.startswith(value, i) and _edge_after(norm, positions[end - 1]) and not all(masked[i:end])

    def _masked(self, stream: str) -> list[bool]:
        """Per stream character: inside a window of a public string."""
        masked = [False] * len(stream)
        if self._allow_windows:
            f = self.fragment_chars
            for i in range(len(stream) - f + 1):
                if stream[i:i + f] in self._allow_windows:
                    masked[i:i + f] = [True] * f
        return masked

    def _public(self, kind: str, span: str) -> bool:
        if kind == "phone" and _digits(span)[-_PHONE_TAIL:] in self._allow_phones:
            return True
        stream = _stream(span)[0]
        return any(stream in allowed for allowed in self._allow_streams)

    def summary(self, texts: Sequence[str], *, ids: Sequence[str] | None = None,
                exclude: Sequence[str | None] | None = None, show: int = 5) -> dict:
        """Counts over ``texts`` (answers or synthetic texts).

        Args:
            texts: the texts to check.
            ids: per text, its id in the report (default: the 0-based position).
            exclude: per text, a text whose own content does not count (:meth:`check`), or None.
            show: how many ids of leaking texts to list per kind.

        Returns:
            ``{"texts": n, "texts_with_leak": int, "leak_rate": float in [0, 1] (0 when n = 0),
            "<kind>_texts": int for each of :data:`KINDS`, "identifier_values": distinct values found,
            "pii_by_type": {type: texts with one}, "first_ids": {kind: up to ``show`` ids}}``. No private value
            is returned.

        Raises:
            ConfigError: ``ids`` or ``exclude`` has another length than ``texts``.
        """
        for name, seq in (("ids", ids), ("exclude", exclude)):
            if seq is not None and len(seq) != len(texts):
                raise ConfigError(f"`{name}` has {len(seq)} entries for {len(texts)} texts.")
        counts = {k: 0 for k in KINDS}
        first: dict[str, list[str]] = {k: [] for k in KINDS}
        by_type = {t: 0 for t in PII_TYPES}
        values: set[int] = set()
        leaking = 0
        for pos, text in enumerate(texts):
            found = self.check(text, exclude=exclude[pos] if exclude is not None else None)
            leaking += found.leaks
            values |= found.identifiers
            for t in {t for t, _ in found.pii}:
                by_type[t] += 1
            for kind in found.kinds():
                counts[kind] += 1
                if len(first[kind]) < show:
                    first[kind].append(str(ids[pos]) if ids is not None else str(pos))
        n = len(texts)
        return {"texts": n, "texts_with_leak": leaking, "leak_rate": leaking / n if n else 0.0,
                **{f"{k}_texts": counts[k] for k in KINDS}, "identifier_values": len(values),
                "pii_by_type": by_type, "first_ids": first}


def read_public_strings(path: str | os.PathLike[str]) -> list[str]:
    """The public strings of a text file, one per line (``--allow-file``), stripped, blank lines skipped.

    Raises:
        DataError: the file cannot be read as UTF-8 text.
    """
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError(f"`allow_file` {str(path)!r}: cannot read it as UTF-8 text ({type(exc).__name__}).") from None
    return [line.strip() for line in lines if line.strip()]


def corpus_leakage(corpus, checker: LeakageChecker, *, show: int = 5) -> dict:
    """The leakage of a synthetic corpus's texts (the owner-side ``dpsynrag leakage`` command).

    Args:
        corpus: a :class:`~dpsynrag.corpus.SyntheticCorpus` (its ``records``: ``id``, ``text``, ``kept``).
        checker: the index of the private collection the corpus was built from.
        show: ids of leaking texts listed per kind.

    Returns:
        ``{"all": summary, "kept": summary}``: :meth:`LeakageChecker.summary` of every text of the corpus
        folder and of the kept ones (what retrieval serves), ids = the records' ids.
    """
    records = list(corpus.records)
    kept = [r for r in records if r.get("kept")]
    return {name: checker.summary([str(r.get("text", "")) for r in rows],
                                  ids=[str(r.get("id", i)) for i, r in enumerate(rows)], show=show)
            for name, rows in (("all", records), ("kept", kept))}


def _edge_before(text: str, i: int) -> bool:
    return i == 0 or not text[i - 1].isalnum()


def _edge_after(text: str, i: int) -> bool:
    return i + 1 >= len(text) or not text[i + 1].isalnum()


def _merge(index: tuple[np.ndarray, np.ndarray], chunks: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Sorted distinct hashes with their document counts: ``index`` plus each chunk (distinct per document)."""
    if not chunks:
        return index
    hashes = np.concatenate([index[0], *chunks])
    weights = np.concatenate([index[1], np.ones(hashes.size - index[0].size, np.uint32)])
    unique, inverse = np.unique(hashes, return_inverse=True)
    return unique, np.bincount(inverse, weights=weights, minlength=unique.size).astype(np.uint32)
