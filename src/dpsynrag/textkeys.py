"""How a private document and a person are recognised across files and builds (issue 42): the normal form
behind the privacy ledger's and a corpus lineage's keyed fingerprints
(:mod:`dpsynrag.privacy.fingerprints`) and behind the grouping of documents by person
(:class:`~dpsynrag.pipeline.units.PrivacyUnits`).

* A **document** is recognised by the SHA-256 of its text in normal form (:func:`normalized_text`): Unicode
  NFC, every run of whitespace (spaces, tabs, CR, LF, CRLF, no-break and other Unicode spaces) one space,
  none at either end. The same record saved with CRLF line endings, a trailing space or a doubled space is
  the same document; any other edit (a letter's case, punctuation, one character more or less) makes
  another document.
* A **person key** (``--privacy-unit-field``) is recognised in normal form (:func:`unit_key`): NFC, case
  folded, whitespace runs one space, stripped ("Alice Smith" and "alice  smith" are one person).

Both rules only ever merge: two inputs that differ in the original and agree in normal form share one key.
Merging is conservative for privacy: a merged document or person is charged every release of each, and
per person the contributions of the merged unit are bounded together.
"""

from __future__ import annotations

import codecs
import hashlib
import re
import unicodedata
from collections.abc import Iterable

__all__ = ["TextKeyHasher", "normalized_text", "text_key", "text_key_of_utf8", "unit_key"]

_CHUNK = 1 << 16  # characters normalised at a time for long texts (memory stays O(chunk), not O(text))
_WHITESPACE = re.compile(r"\s+")  # for str patterns, re's \s is str.split's whitespace (Py_UNICODE_ISSPACE)
_LAST_WORD = re.compile(r"\S+\Z")


def normalized_text(text: str) -> str:
    """``text`` in normal form: whitespace runs (``str.split``'s definition: ASCII and Unicode spaces, line
    and paragraph separators) one space, none at either end, then Unicode NFC.

    Raises:
        TypeError: ``text`` is not a str.
    """
    return unicodedata.normalize("NFC", " ".join(text.split()))


class TextKeyHasher:
    """SHA-256 of a text's :func:`normalized_text`, fed in pieces of any size (:meth:`update`); the digest
    equals ``sha256(normalized_text(whole).encode("utf-8", "surrogatepass"))``. Memory: one piece and the
    word that straddles two pieces.

    NFC per piece is NFC of the whole: pieces are cut only at whitespace, and no canonical composition
    involves a whitespace character."""

    def __init__(self) -> None:
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
        body = _WHITESPACE.sub(" ", text).strip(" ")  # no list of words: memory O(piece)
        if body:
            body = unicodedata.normalize("NFC", body)
            self._hash.update(((" " if self._started else "") + body).encode("utf-8", "surrogatepass"))
            self._started = True

    def digest(self) -> bytes:
        """The 32-byte SHA-256 of the normal form of everything fed (the object is then spent)."""
        self._write(self._pending)
        self._pending = ""
        return self._hash.digest()


def text_key(text: str) -> bytes:
    """SHA-256 (32 bytes) of ``normalized_text(text)`` as UTF-8 (lone surrogates passed through).

    Raises:
        TypeError: ``text`` is not a str."""
    if len(text) <= 1 << 20:
        return hashlib.sha256(normalized_text(text).encode("utf-8", "surrogatepass")).digest()
    hasher = TextKeyHasher()
    for start in range(0, len(text), _CHUNK):
        hasher.update(text[start:start + _CHUNK])
    return hasher.digest()


def text_key_of_utf8(chunks: Iterable[bytes | memoryview]) -> bytes:
    """:func:`text_key` of a text given as UTF-8 bytes in chunks (e.g. an Arrow buffer), decoded
    incrementally (a character split between two chunks is joined; invalid bytes are replaced by U+FFFD,
    as Python decodes them with ``errors="replace"``)."""
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    hasher = TextKeyHasher()
    for chunk in chunks:
        hasher.update(decoder.decode(chunk))
    hasher.update(decoder.decode(b"", final=True))
    return hasher.digest()


def unit_key(value: str) -> str:
    """A person key in normal form: NFC, case folded (``str.casefold``), whitespace runs one space, stripped.

    Raises:
        TypeError: ``value`` is not a str."""
    return unicodedata.normalize("NFC", " ".join(unicodedata.normalize("NFC", value).casefold().split()))
