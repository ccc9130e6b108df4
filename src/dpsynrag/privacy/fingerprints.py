"""Keyed fingerprints of a private collection's privacy units, and the name of the collection, for the
privacy-budget ledger (:mod:`dpsynrag.privacy.ledger`) and a corpus lineage's disjointness check: keyed
hashes only, never any text.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from dpsynrag.errors import ConfigError

FINGERPRINT_BYTES = 16  # HMAC-SHA256 cut to 128 bits


def _text_digest(document: Any) -> bytes:
    """SHA-256 (32 bytes) of a document's whole text (its ``text_sha256`` when it was cut at read time)."""
    return getattr(document, "text_sha256", None) or hashlib.sha256(
        getattr(document, "text", document).encode("utf-8", "surrogatepass")).digest()


def _unit_keys(documents: Iterable[Any], unit_ids: Sequence[Any] | None) -> Iterator[tuple[bytes, bytes | None]]:
    """Per document: (its text's SHA-256, the message naming its unit or None when it is its own unit).

    The unit is ``unit_ids[i]`` when given, else the document's ``unit`` (``--privacy-unit-field``), else
    none (the document is its own unit, named by its text)."""
    documents = list(documents) if unit_ids is not None else documents
    if unit_ids is not None and len(unit_ids) != len(documents):
        raise ConfigError(f"`unit_ids` gives {len(unit_ids)} unit keys for {len(documents)} documents.")
    for i, d in enumerate(documents):
        unit = unit_ids[i] if unit_ids is not None else getattr(d, "unit", None)
        if unit is not None and str(unit) == "":
            raise ConfigError(f"document {i + 1} has an empty privacy-unit key.")
        yield _text_digest(d), None if unit is None else str(unit).encode("utf-8", "surrogatepass")


def unit_message(text_digest: bytes, unit: bytes | None) -> bytes:
    """The bytes a unit's fingerprint is the keyed hash of: ``b"unit\\0" + key`` for a privacy unit,
    ``b"text\\0" + SHA-256(text)`` for a document that is its own unit."""
    return b"unit\x00" + unit if unit is not None else b"text\x00" + text_digest


def keyed_fingerprint(key: bytes, message: bytes) -> bytes:
    """``HMAC-SHA256(key, message)`` cut to :data:`FINGERPRINT_BYTES` (RFC 2104)."""
    return hmac.new(key, message, hashlib.sha256).digest()[:FINGERPRINT_BYTES]


def unit_fingerprints(documents: Iterable[Any], key: bytes, *, unit_ids: Sequence[Any] | None = None) -> set[bytes]:
    """The distinct keyed fingerprints of a collection's privacy units (:func:`keyed_fingerprint` of
    :func:`unit_message`): one per unit, never any text.

    Args:
        documents: :class:`~dpsynrag.data.io.Document` objects or strings.
        key: the secret HMAC key (the ledger's :attr:`PrivacyLedger.key`, or a corpus lineage's owner key).
        unit_ids: one unit key per document (e.g. a person id); None: each document's ``unit``
            (``--privacy-unit-field``) when it has one, else the document is its own unit, named by its text.

    Raises:
        ConfigError: ``unit_ids`` of another length than ``documents``, or an empty unit key.
    """
    return {keyed_fingerprint(key, unit_message(digest, unit)) for digest, unit in _unit_keys(documents, unit_ids)}


def unit_fingerprint_per_document(documents: Iterable[Any], key: bytes, *,
                                  unit_ids: Sequence[Any] | None = None) -> list[bytes]:
    """Each document's unit fingerprint, in the documents' order (:func:`unit_fingerprints` before the
    set is taken: the documents of one unit share theirs), e.g. to leave out the documents of units an
    earlier build already read (``dpsynrag build --extend``). Args and errors as :func:`unit_fingerprints`."""
    return [keyed_fingerprint(key, unit_message(digest, unit)) for digest, unit in _unit_keys(documents, unit_ids)]


def dataset_fingerprint(documents: Sequence[Any], *, unit_ids: Sequence[Any] | None = None) -> str:
    """SHA-256 (hex) naming a private collection in the ledger (its releases are listed under it).

    Computed over the documents' texts (not ids, field names or file format), as the sorted multiset
    of each text's SHA-256: the same collection read from JSONL or CSV, in any order, with any ids, is
    one collection. With privacy units (``unit_ids``, or the documents' ``unit``), over the sorted
    multiset of (text, unit key) digest pairs instead, so another grouping of the same texts is another
    collection. What composes is decided per unit (:func:`unit_fingerprints`), not by this name.

    Args:
        documents: :class:`~dpsynrag.data.io.Document` objects (their ``text``; a text cut at read time by
            its whole text's digest, ``text_sha256``, so the cut never changes the fingerprint) or strings.
        unit_ids: as in :func:`unit_fingerprints`.
    """
    return scan_collection(documents, None, unit_ids=unit_ids)[0]


def scan_collection(documents: Iterable[Any], key: bytes | None, *, unit_ids: Sequence[Any] | None = None,
                    with_documents: bool = False) -> tuple[str, set[bytes], bool]:
    """One pass over a collection: its :func:`dataset_fingerprint`, its unit fingerprints under ``key``
    (:func:`unit_fingerprints`; empty when ``key`` is None) and whether it has privacy units (``unit_ids``
    or a document's ``unit``).

    ``with_documents=True`` (the ledger) adds, for a collection with privacy units, each document's own
    text fingerprint beside its unit's: a per-person release then also charges every document it read, so
    it composes with per-document releases of the same texts (an ε-DP guarantee per person implies the same
    ε per document: removing one document of a person moves each statistic by at most the per-person
    sensitivity). The converse is not charged: a per-document release is not recorded against persons."""
    digests, units, with_units = [], set(), False
    for digest, unit in _unit_keys(documents, unit_ids):
        with_units |= unit is not None
        digests.append(digest if unit is None else digest + hashlib.sha256(unit).digest())
        if key is not None:
            units.add(keyed_fingerprint(key, unit_message(digest, unit)))
            if with_documents and unit is not None:
                units.add(keyed_fingerprint(key, unit_message(digest, None)))
    h = hashlib.sha256(b"dpsynrag-dataset-units-v1\x00" if with_units else b"dpsynrag-dataset-v1\x00")
    for d in sorted(digests):
        h.update(d if with_units else d[:32])
    return h.hexdigest(), units, with_units
