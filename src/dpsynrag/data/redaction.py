"""Redaction of a document's own direct identifiers (names, e-mails, account numbers) before any model
reads it.

The columns that hold direct identifiers are declared by the user (``--identifier-field``;
``identifier_fields=`` in the API) or by the task (:attr:`~dpsynrag.tasks.base.Task.identifier_fields`),
and their values become :attr:`~dpsynrag.data.io.Document.identifiers`. Each document's text is then
rewritten from its own identifiers alone, so redaction is a per-document function of one document and
leaves the differential-privacy analysis (add or remove one document) unchanged. It removes exactly the
tokens members of a cluster disagree on (a patient's name): defence in depth against leaking names.
Nothing here counts or reports what was replaced. Identifiers that no column declares (phone numbers,
other people's e-mails, card numbers, ...) are found by the optional automatic pass :mod:`dpsynrag.data.pii`
(``--redact-pii``), which :class:`RedactedDocuments` applies first.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence

from dpsynrag.data.io import Document

__all__ = ["DEFAULT_PLACEHOLDER", "RedactedDocuments", "redact_identifiers"]

DEFAULT_PLACEHOLDER = "[REDACTED]"
"""The public text that replaces an identifier (``--identifier-placeholder``; ``identifier_placeholder``)."""

_CJK_START = 0x2E80  # from here on (CJK, kana, hangul, ...) words are not separated by spaces
_SPACED_WORD_CHAR = r"[^\W_\u2E80-\U0010FFFF]"  # a letter or digit of a script written with spaces
_NOT_AFTER_WORD = rf"(?<!{_SPACED_WORD_CHAR})"  # not preceded by such a letter or digit (a CJK character may)
_NOT_BEFORE_WORD = rf"(?!{_SPACED_WORD_CHAR})"  # not followed by such a letter or digit


def _bounded(edge: str) -> bool:
    """Whether a whole-word boundary applies beside an identifier's ``edge`` character."""
    return edge.isalnum() and ord(edge) < _CJK_START


def _candidates(identifiers: Iterable[str]) -> list[tuple[str, bool]]:
    """``(candidate, whole value)``: each identifier value (whole value: True) and each of its
    whitespace-separated parts of >= 2 characters that is not all lower case (so "van", "de" are never
    replaced alone; False), longest first."""
    found: dict[str, bool] = {}
    for value in identifiers:
        parts = value.split()
        if parts:
            found[" ".join(parts)] = True
            for p in parts:
                if len(p) >= 2 and not p.islower():
                    found.setdefault(p, False)
    return sorted(found.items(), key=lambda c: (-len(c[0]), c[0]))


def _pattern(candidate: str, whole_value: bool) -> str:
    body = r"\s+".join(re.escape(p) for p in candidate.split(" "))  # any run of whitespace between parts
    if whole_value:
        body = f"(?i:{body})"  # a whole value in any capitals: "Ada.Lee@Example.COM", "ord-123456"
    return ((_NOT_AFTER_WORD if _bounded(candidate[0]) else "") + body
            + (_NOT_BEFORE_WORD if _bounded(candidate[-1]) else ""))


def redact_identifiers(text: str, identifiers: Sequence[str], placeholder: str = DEFAULT_PLACEHOLDER) -> str:
    """``text`` with every whole-word occurrence of its document's identifiers replaced by ``placeholder``.

    Replaced: each identifier value (its parts separated by any whitespace) in any capitals ("ADA.LEE@X.COM"
    for "ada.lee@x.com"), and, case-sensitively, each whitespace-separated part of a value that has at least
    2 characters and is not all lower case ("Li" and CJK names are, the particles "van" and "de" alone are
    not; "Rose" is replaced, the word "rose" is not); the longest match wins. Whole word: not preceded or
    followed by a letter or digit of a script written with spaces (below U+2E80), checked only beside an
    edge character that is such a letter or digit, so a CJK name inside unspaced CJK text matches and so
    does "ORD-123456" between CJK characters ("订单ORD-123456的").

    Args:
        text: the document text.
        identifiers: the document's own identifier values (empty or whitespace-only values are ignored).
        placeholder: the public replacement text.

    Returns:
        The redacted text (``text`` itself when there is nothing to replace).
    """
    candidates = _candidates(identifiers)
    if not candidates:
        return text
    return re.sub("|".join(_pattern(c, whole) for c, whole in candidates), lambda _: placeholder, text)


class RedactedDocuments(Sequence[Document]):
    """A document collection whose texts are redacted each time they are read, never stored: first ``pii``
    (when given), then each document's own identifiers (:func:`redact_identifiers`, when ``identifiers``).
    Both are functions of that one document. Re-iterable as the wrapped collection is; memory: one document.

    Args:
        documents: a re-iterable collection with ``len()`` (a list of :class:`Document` or a
            :class:`~dpsynrag.data.streaming.DocumentFile`).
        placeholder: the public replacement text.
        identifiers: replace each document's own identifier values (``redact_identifiers``).
        pii: a function of one text alone, e.g. :class:`~dpsynrag.data.pii.PIIRedactor` (``redact_pii``).

    Iteration and indexing (an int or a slice, where ``documents`` supports it; else ``TypeError``) give
    ``Document(id, redacted text, identifiers)``.
    """

    def __init__(self, documents: Iterable[Document], placeholder: str = DEFAULT_PLACEHOLDER, *,
                 identifiers: bool = True, pii: Callable[[str], str] | None = None):
        self.documents = documents
        self.placeholder = placeholder
        self.identifiers, self.pii = identifiers, pii

    def _redact(self, document: Document) -> Document:
        text = document.text if self.pii is None else self.pii(document.text)
        if self.identifiers:
            text = redact_identifiers(text, document.identifiers, self.placeholder)
        return Document(document.id, text, document.identifiers, document.text_sha256)  # cut at read time: kept

    def __len__(self) -> int:
        return len(self.documents)

    def __iter__(self) -> Iterator[Document]:
        return map(self._redact, self.documents)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self._redact(d) for d in self.documents[index]]
        return self._redact(self.documents[index])

    def __repr__(self) -> str:
        return (f"RedactedDocuments({self.documents!r}, placeholder={self.placeholder!r}, "
                f"identifiers={self.identifiers!r}, pii={self.pii!r})")
