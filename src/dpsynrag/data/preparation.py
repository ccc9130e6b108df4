"""The one pass of a build over each private document (issue 44): its redaction (its own identifier values,
:mod:`dpsynrag.data.redaction`, and the PII pass, :mod:`dpsynrag.data.pii`), its cut to the language model's
``max_document_tokens``, and its fingerprint keys (the whole input text's :func:`~dpsynrag.textkeys.whole_text_keys`,
from which the owner record's keyed fingerprints are made) — each a function of that document alone.

:class:`DocumentPreparer` is that pass for one document, the same code in the build's process and on a Ray
worker (``dpsynrag build --ray``: :mod:`dpsynrag.pipeline.ray_stages`); :class:`RedactionSpec` is what a worker
needs to build the driver's redaction (public configuration values); :class:`ReadingTally` takes the prepared
documents in order, wherever they were prepared, keeps the owner-only counts of the pass (documents cut, spans
replaced) and hands the documents on (to a :class:`~dpsynrag.data.spool.DocumentSpool`).

Privacy: nothing here is released or logged; the counts are owner-only (not DP).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import NamedTuple

from dpsynrag.data.io import Document
from dpsynrag.data.redaction import RedactedDocuments, SpanTally
from dpsynrag.textkeys import whole_text_keys

__all__ = ["DocumentPreparer", "PreparedDocument", "ReadingTally", "RedactionSpec"]


@dataclass(frozen=True)
class RedactionSpec:
    """A build's redaction, as public configuration values (sent to the Ray workers, which build it from them).

    Attributes:
        placeholder: the public replacement text (``identifier_placeholder``).
        identifiers: replace each document's own identifier values (``redact_identifiers``).
        pii: run the PII pass (``redact_pii``) with ``entities``, ``allow`` and ``model`` (``pii_entities``,
            ``pii_allow``, ``pii_model``; see :class:`~dpsynrag.data.pii.PIIRedactor`) and ``names``
            (``pii_names``: the owner's list, not public; sent to the workers like the documents, never logged).
    """

    placeholder: str
    identifiers: bool
    pii: bool
    entities: tuple[str, ...] | None = None
    allow: tuple[str, ...] = ()
    model: str | None = None
    names: tuple[str, ...] = field(default=(), repr=False)

    @classmethod
    def of(cls, config) -> RedactionSpec | None:
        """The redaction of a method config (its ``redact_identifiers``, ``redact_pii``, ``identifier_placeholder``,
        ``pii_entities``, ``pii_allow``, ``pii_model`` and ``pii_names``; a config without the first two redacts nothing); None
        when it redacts nothing."""
        identifiers = bool(getattr(config, "redact_identifiers", False))
        pii = bool(getattr(config, "redact_pii", False))
        if not (identifiers or pii):
            return None
        entities = getattr(config, "pii_entities", None)
        return cls(config.identifier_placeholder, identifiers, pii, None if entities is None else tuple(entities),
                   tuple(getattr(config, "pii_allow", ()) or ()), getattr(config, "pii_model", None),
                   tuple(getattr(config, "pii_names", ()) or ()))

    def pii_redactor(self):
        """The PII pass (a :class:`~dpsynrag.data.pii.PIIRedactor`; its analyzer and matchers are built once per
        process), None without it.

        Raises:
            ConfigError: the optional extra is missing, an entity is unknown, or the model does not load.
        """
        if not self.pii:
            return None
        from dpsynrag.data.pii import PIIRedactor

        return PIIRedactor(self.placeholder, entities=self.entities, allow=self.allow, model=self.model, names=self.names)

    def redacting(self, documents: Iterable[Document] = (), *, pii=None) -> RedactedDocuments:
        """``documents`` redacted with this redaction (:class:`~dpsynrag.data.redaction.RedactedDocuments`);
        ``pii``: the PII pass when already built (else built here: :meth:`pii_redactor`)."""
        return RedactedDocuments(documents, self.placeholder, identifiers=self.identifiers,
                                 pii=self.pii_redactor() if pii is None else pii)


class PreparedDocument(NamedTuple):
    """One document after the pass (:class:`DocumentPreparer`).

    Attributes:
        document: the document as every later stage reads it: its text redacted, then cut; its id, identifiers,
            unit and ``text_sha256`` as read; ``text_key``: the whole input text's key (as read, before the
            redaction and any cut), the document's fingerprint key (private, never written).
        spans: spans replaced per entity type (owner-only; empty: none, or no redaction).
        changed: whether its text was cut, at read time (``text_sha256`` set) or by the cut here (owner-only).
    """

    document: Document
    spans: dict[str, int]
    changed: bool


class DocumentPreparer:
    """The pass for one document (:meth:`__call__`): redact, cut, key.

    Args:
        redactor: the redaction, whose :meth:`~dpsynrag.data.redaction.RedactedDocuments.redact` is applied to
            each document; None: none.
        cut: a function of one text alone applied to the redacted text (the language model's cut,
            :meth:`~dpsynrag.models.lm.LanguageModel.truncate`); None: texts kept.
    """

    def __init__(self, redactor: RedactedDocuments | None, cut: Callable[[str], str] | None):
        self.redactor, self.cut = redactor, cut

    def __call__(self, document: Document) -> PreparedDocument:
        """``document`` redacted, cut and keyed (:class:`PreparedDocument`)."""
        key = document.text_key or whole_text_keys(document.text)  # the whole text's: as the owner record keys it
        text, spans = document.text, {}
        if self.redactor is not None:
            redacted, counts = self.redactor.redact(document)
            text, spans = redacted.text, dict(counts)
        cut = text if self.cut is None else self.cut(text)
        return PreparedDocument(Document(document.id, cut, document.identifiers, document.text_sha256, document.unit,
                                         key), spans, cut != text or document.text_sha256 is not None)


class ReadingTally:
    """The owner-only counts of a pass over prepared documents, kept as :meth:`documents` hands them on.

    Attributes:
        changed: how many texts were cut (:attr:`PreparedDocument.changed`; never which).
        spans: the redaction's counts (:class:`~dpsynrag.data.redaction.SpanTally`; ``spans.counts()`` is
            :meth:`~dpsynrag.data.redaction.RedactedDocuments.span_counts`' record).
    """

    def __init__(self):
        self.changed = 0
        self.spans = SpanTally()

    def documents(self, prepared: Iterable[PreparedDocument]) -> Iterator[Document]:
        """The documents of ``prepared``, in order, each counted as it passes."""
        for item in prepared:
            self.changed += item.changed
            self.spans.add(item.spans)
            yield item.document
