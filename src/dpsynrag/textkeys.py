"""How a private document and a person are recognised across files and builds (issues 42 and 53): the
normal form behind the privacy ledger's and a corpus lineage's keyed fingerprints
(:mod:`dpsynrag.privacy.fingerprints`) and behind the grouping of documents by person
(:class:`~dpsynrag.pipeline.units.PrivacyUnits`).

* A **document** is recognised by the SHA-256 of its text in normal form (:func:`normalized_text`):
  invisible characters removed (:data:`INVISIBLE`: Unicode's format characters, category Cf — zero-width space
  and joiners, soft hyphen, byte-order mark, word joiner, directional marks, tags —, the other default-ignorable
  code points — combining grapheme joiner, variation selectors, Hangul fillers, Khmer inherent vowels, Mongolian
  free variation selectors —, control characters that are not whitespace, and the blank Braille pattern), then
  Unicode NFKC (compatibility forms: full-width digits
  and letters, ligatures, superscripts, composed and decomposed accents all in one form), then every run of
  whitespace (spaces, tabs, CR, LF, CRLF, no-break and other Unicode spaces) one space, none at either end.
  The same record saved with CRLF line endings, a trailing space, a zero-width space or full-width digits is
  the same document; any other edit (a letter's case, punctuation, one visible character more or less) makes
  another document.
* A **person key** (``--privacy-unit-field``) is recognised in normal form (:func:`unit_key`): the same, and
  case folded ("Alice Smith", "alice  smith" and "Alice\u200bSmith" are one person).

Both rules only ever merge: two inputs that differ in the original and agree in normal form share one key.
Merging is conservative for privacy: a merged document or person is charged every release of each, and
per person the contributions of the merged unit are bounded together. The invisible characters and the
compatibility mappings are those of the running Python's Unicode database (``unicodedata.unidata_version``).

The rule of issue 42 (NFC and whitespace only: :func:`nfc_text_key`, :func:`nfc_unit_key`) is kept to read
ledgers and owner records written before (:mod:`dpsynrag.privacy.legacy`).
"""

from __future__ import annotations

import codecs
import functools
import hashlib
import re
import sys
import unicodedata
from collections.abc import Callable, Iterable

__all__ = ["TextKeyHasher", "compatible_text", "nfc_text_key", "nfc_unit_key", "normalized_text", "text_key", "text_key_of_utf8",
           "unit_key", "whole_text_keys", "whole_text_keys_of_utf8"]

_CHUNK = 1 << 16  # characters normalised at a time for long texts (memory stays O(chunk), not O(text))
_WHITESPACE = re.compile(r"\s+")  # for str patterns, re's \s is str.split's whitespace (Py_UNICODE_ISSPACE)
_LAST_WORD = re.compile(r"\S+\Z")
_ASCII_CONTROLS = re.compile("[\x00-\x08\x0e-\x1b\x7f]")  # ASCII's Cc that str.split does not take for whitespace
COMPATIBILITY = "compatibility"
"""The rule of :func:`normalized_text` (issue 53): invisible characters removed, NFKC, whitespace."""
INVISIBLE = "Cf, Cc other than whitespace, Default_Ignorable_Code_Point, U+2800"
"""What :func:`normalized_text` removes before NFKC (the table: ``_invisible()``)."""
NFC = "nfc"
"""The rule of issue 42: NFC and whitespace (:func:`nfc_text_key`), to read what was written under it."""


_DEFAULT_IGNORABLE = ((0x034F, 0x034F), (0x115F, 0x1160), (0x17B4, 0x17B5), (0x180B, 0x180F), (0x2800, 0x2800),
                      (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0xE0000, 0xE0FFF))
"""Invisible code points that are not format characters: Unicode's Default_Ignorable_Code_Point beyond Cf
(DerivedCoreProperties.txt; unassigned ones included), and U+2800 BRAILLE PATTERN BLANK."""


@functools.lru_cache(maxsize=1)
def _invisible() -> dict[int, None]:
    """``str.translate`` table of :data:`INVISIBLE`: removed."""
    table = {c: None for c in range(sys.maxunicode + 1)
             if unicodedata.category(chr(c)) == "Cf" or (unicodedata.category(chr(c)) == "Cc" and not chr(c).isspace())}
    table.update({c: None for lo, hi in _DEFAULT_IGNORABLE for c in range(lo, hi + 1)})
    return table


def _compatible(text: str) -> str:
    """``text`` without invisible characters, in NFKC (ASCII text: only its controls that are not whitespace
    removed; NFKC leaves ASCII as it is)."""
    if text.isascii():
        return _ASCII_CONTROLS.sub("", text)
    return unicodedata.normalize("NFKC", text.translate(_invisible()))


def compatible_text(text: str) -> str:
    """``text`` with its invisible characters (:data:`INVISIBLE`) removed, in Unicode NFKC, its whitespace as it
    is: the text redaction reads (:class:`~dpsynrag.data.redaction.RedactedDocuments`), so an identifier written
    in full-width digits or split by a zero-width space is the identifier.

    Raises:
        TypeError: ``text`` is not a str.
    """
    return _compatible(text)


def normalized_text(text: str) -> str:
    """``text`` in normal form (issue 53): invisible characters (:data:`INVISIBLE`) removed, then Unicode NFKC,
    then whitespace runs (``str.split``'s definition: ASCII and Unicode spaces, line and paragraph
    separators) one space, none at either end.

    Raises:
        TypeError: ``text`` is not a str.
    """
    return " ".join(_compatible(text).split())


def _nfc_normalized_text(text: str) -> str:
    """The normal form of issue 42: whitespace runs one space, none at either end, then Unicode NFC."""
    return unicodedata.normalize("NFC", " ".join(text.split()))


class TextKeyHasher:
    """SHA-256 of a text's :func:`normalized_text`, fed in pieces of any size (:meth:`update`); the digest
    equals ``sha256(normalized_text(whole).encode("utf-8", "surrogatepass"))``. Memory: one piece and the
    word that straddles two pieces. ``rule=NFC``: of the normal form of issue 42 instead.

    The normal form per piece is the normal form of the whole: pieces are cut only at whitespace, removing a
    invisible character is per character, and no canonical or compatibility composition involves a whitespace
    character (a compatibility mapping may produce a space, which the whitespace rule then treats alike)."""

    def __init__(self, rule: str = COMPATIBILITY) -> None:
        if rule not in (COMPATIBILITY, NFC):
            raise ValueError(f"unknown text key rule {rule!r}: {COMPATIBILITY!r} or {NFC!r}.")
        self._nfc = rule == NFC
        self._hash = hashlib.sha256()
        self._pending = ""  # the end of the last piece: a word that may go on in the next one
        self._started = False  # a word was written: the next one is preceded by a space

    def update(self, piece: str) -> None:
        """Feed the next piece of the text (any length, cut anywhere)."""
        piece = self._pending + piece
        last = _LAST_WORD.search(piece)  # a word at the end may continue in the next piece
        cut = len(piece) if last is None else last.start()
        self._pending = piece[cut:]
        self._write(piece[:cut])

    def _write(self, text: str) -> None:
        if self._nfc:
            body = _WHITESPACE.sub(" ", text).strip(" ")  # no list of words: memory O(piece)
            body = unicodedata.normalize("NFC", body) if body else body
        else:
            body = _WHITESPACE.sub(" ", _compatible(text)).strip(" ")
        if body:
            self._hash.update(((" " if self._started else "") + body).encode("utf-8", "surrogatepass"))
            self._started = True

    def digest(self) -> bytes:
        """The 32-byte SHA-256 of the normal form of everything fed (the object is then spent)."""
        self._write(self._pending)
        self._pending = ""
        return self._hash.digest()


def _key(text: str, rule: str) -> bytes:
    if len(text) <= 1 << 20:
        normal = normalized_text(text) if rule == COMPATIBILITY else _nfc_normalized_text(text)
        return hashlib.sha256(normal.encode("utf-8", "surrogatepass")).digest()
    hasher = TextKeyHasher(rule)
    for start in range(0, len(text), _CHUNK):
        hasher.update(text[start:start + _CHUNK])
    return hasher.digest()


def text_key(text: str) -> bytes:
    """SHA-256 (32 bytes) of ``normalized_text(text)`` as UTF-8 (lone surrogates passed through).

    Raises:
        TypeError: ``text`` is not a str."""
    return _key(text, COMPATIBILITY)


def nfc_text_key(text: str) -> bytes:
    """SHA-256 (32 bytes) of ``text`` in the normal form of issue 42 (whitespace runs one space, stripped,
    NFC): how ledgers and owner records written before issue 53 keyed a document.

    Raises:
        TypeError: ``text`` is not a str."""
    return _key(text, NFC)


def whole_text_keys(text: str) -> bytes:
    """What a document cut before it is keyed keeps of its whole text (64 bytes): :func:`text_key`, then
    :func:`nfc_text_key` (to match what an earlier version recorded)."""
    return text_key(text) + nfc_text_key(text)


def text_key_of_utf8(chunks: Iterable[bytes | memoryview], rule: str = COMPATIBILITY) -> bytes:
    """:func:`text_key` (``rule=NFC``: :func:`nfc_text_key`) of a text given as UTF-8 bytes in chunks (e.g.
    an Arrow buffer), decoded incrementally (a character split between two chunks is joined; invalid bytes
    are replaced by U+FFFD, as Python decodes them with ``errors="replace"``)."""
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    hasher = TextKeyHasher(rule)
    for chunk in chunks:
        hasher.update(decoder.decode(chunk))
    hasher.update(decoder.decode(b"", final=True))
    return hasher.digest()


def whole_text_keys_of_utf8(chunks: Callable[[], Iterable[bytes | memoryview]]) -> bytes:
    """:func:`whole_text_keys` of a text given as UTF-8 bytes in chunks; ``chunks()`` is called once per rule."""
    return text_key_of_utf8(chunks()) + text_key_of_utf8(chunks(), NFC)


def unit_key(value: str) -> str:
    """A person key in normal form (issue 53): invisible characters removed, NFKC, case folded
    (``str.casefold``, then NFKC again: close to Unicode's NFKC_Casefold),
    whitespace runs one space, stripped.

    Raises:
        TypeError: ``value`` is not a str."""
    return " ".join(_compatible(_compatible(value).casefold()).split())


def nfc_unit_key(value: str) -> str:
    """A person key in the normal form of issue 42 (NFC, case folded, whitespace runs one space, stripped):
    how ledgers written before issue 53 keyed a person.

    Raises:
        TypeError: ``value`` is not a str."""
    return unicodedata.normalize("NFC", " ".join(unicodedata.normalize("NFC", value).casefold().split()))
