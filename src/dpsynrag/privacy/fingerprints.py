"""Keyed fingerprints of a private collection's privacy units, and the name of the collection, for the
privacy-budget ledger (:mod:`dpsynrag.privacy.ledger`) and a corpus lineage's disjointness check: keyed
hashes only, never any text.

A document is recognised by its text in normal form and a person by their key in normal form
(:mod:`dpsynrag.textkeys`: invisible format characters, compatibility forms, whitespace runs and line endings;
person keys also case-folded), so the same records saved with CRLF line endings, a doubled space, a zero-width
space or full-width digits are the same units (issues 42 and 53): :data:`COMPATIBILITY_TEXT`. Ledgers and
corpus lineages written before are still honoured (:data:`LEGACY_RULES`: the fingerprints of the exact text,
:data:`EXACT_TEXT`, and of issue 42's normal form, :data:`NORMALIZED_TEXT`): :func:`legacy_aliases` maps each
unit's fingerprint under an earlier rule to today's where they differ.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from dpsynrag.errors import ConfigError
from dpsynrag.textkeys import nfc_text_key, nfc_unit_key, text_key, unit_key

FINGERPRINT_BYTES = 16  # HMAC-SHA256 cut to 128 bits
COMPATIBILITY_TEXT = "compatibility-text"
"""Texts and person keys fingerprinted in normal form (:mod:`dpsynrag.textkeys`: format characters removed,
NFKC, whitespace), from issue 53 on."""
NORMALIZED_TEXT = "normalized-text"
"""Texts and person keys fingerprinted in issue 42's normal form (NFC, whitespace): ledgers and owner records
written from issue 42 to issue 53."""
EXACT_TEXT = "exact-text"
"""Texts and person keys fingerprinted exactly as read (ledgers and owner records written before issue 42)."""
LEGACY_RULES = (NORMALIZED_TEXT, EXACT_TEXT)
"""The earlier rules, whose fingerprints a ledger or an owner record may still hold."""
_RULES = (COMPATIBILITY_TEXT, *LEGACY_RULES)


def _text_digest(document: Any) -> bytes:
    """A document's :func:`~dpsynrag.textkeys.text_key` (SHA-256 of its whole text in normal form; the first
    half of its ``text_key`` when it was cut before it is keyed)."""
    keys = getattr(document, "text_key", None)
    return keys[:32] if keys else text_key(getattr(document, "text", document))


def _nfc_digest(document: Any) -> bytes:
    """A document's :func:`~dpsynrag.textkeys.nfc_text_key` (issue 42's rule: :data:`NORMALIZED_TEXT`; the
    second half of its ``text_key`` when it was cut before it is keyed)."""
    keys = getattr(document, "text_key", None)
    return keys[32:64] if keys else nfc_text_key(getattr(document, "text", document))


def _exact_digest(document: Any) -> bytes:
    """SHA-256 (32 bytes) of a document's whole text as read (its ``text_sha256`` when cut at read time):
    the rule of :data:`EXACT_TEXT`."""
    return getattr(document, "text_sha256", None) or hashlib.sha256(
        getattr(document, "text", document).encode("utf-8", "surrogatepass")).digest()


def _unit_keys(documents: Iterable[Any], unit_ids: Sequence[Any] | None, *, rule: str = COMPATIBILITY_TEXT
               ) -> Iterator[tuple[bytes, bytes | None]]:
    """Per document: (its text's digest, the message naming its unit or None when it is its own unit), under
    ``rule`` (:data:`COMPATIBILITY_TEXT`: text key and unit key in normal form; :data:`NORMALIZED_TEXT`: in
    issue 42's; :data:`EXACT_TEXT`: as read).

    The unit is ``unit_ids[i]`` when given, else the document's ``unit`` (``--privacy-unit-field``), else
    none (the document is its own unit, named by its text)."""
    if rule not in _RULES:
        raise ConfigError(f"unknown fingerprint rule {rule!r}: one of {', '.join(map(repr, _RULES))}.")
    for keys in _keys_by_rule(documents, unit_ids, (rule,)):
        yield keys[0]


def _keys_by_rule(documents: Iterable[Any], unit_ids: Sequence[Any] | None, rules: Sequence[str]
                  ) -> Iterator[tuple[tuple[bytes, bytes | None], ...]]:
    """Per document, in one pass: its (text digest, unit message) under each of ``rules``."""
    documents = list(documents) if unit_ids is not None else documents
    if unit_ids is not None and len(unit_ids) != len(documents):
        raise ConfigError(f"`unit_ids` gives {len(unit_ids)} unit keys for {len(documents)} documents.")
    for i, d in enumerate(documents):
        unit = unit_ids[i] if unit_ids is not None else getattr(d, "unit", None)
        if unit is not None and str(unit).strip() == "":
            raise ConfigError(f"document {i + 1} has an empty privacy-unit key.")
        yield tuple(_rule_keys(d, None if unit is None else str(unit), rule) for rule in rules)


def _rule_keys(document: Any, unit: str | None, rule: str) -> tuple[bytes, bytes | None]:
    """(text digest, unit message) of one document under ``rule``."""
    if rule == EXACT_TEXT:
        return _exact_digest(document), None if unit is None else unit.encode("utf-8", "surrogatepass")
    if rule == NORMALIZED_TEXT:
        return _nfc_digest(document), None if unit is None else nfc_unit_key(unit).encode("utf-8", "surrogatepass")
    return _text_digest(document), None if unit is None else unit_key(unit).encode("utf-8", "surrogatepass")


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


def unit_fingerprint_per_document(documents: Iterable[Any], key: bytes, *, unit_ids: Sequence[Any] | None = None,
                                  rule: str = COMPATIBILITY_TEXT) -> list[bytes]:
    """Each document's unit fingerprint, in the documents' order (:func:`unit_fingerprints` before the
    set is taken: the documents of one unit share theirs), e.g. to leave out the documents of units an
    earlier build already read (``dpsynrag build --extend``). ``rule``: :data:`COMPATIBILITY_TEXT` (default)
    or one of :data:`LEGACY_RULES` (to compare with an owner record written before). Args and errors as
    :func:`unit_fingerprints`."""
    return [keyed_fingerprint(key, unit_message(digest, unit))
            for digest, unit in _unit_keys(documents, unit_ids, rule=rule)]


def fingerprints_under_every_rule(documents: Iterable[Any], key: bytes, *, unit_ids: Sequence[Any] | None = None
                                  ) -> list[tuple[bytes, ...]]:
    """Each document's unit fingerprint under today's rule and each of :data:`LEGACY_RULES`, in the documents'
    order (today's first): to tell whether an owner record written by any version holds the document's unit
    (conservative: a unit whose forms differ has several fingerprints and any of them matches). Args and
    errors as :func:`unit_fingerprints`."""
    return [tuple(keyed_fingerprint(key, unit_message(*keys)) for keys in per_rule)
            for per_rule in _keys_by_rule(documents, unit_ids, _RULES)]


def dataset_fingerprint(documents: Sequence[Any], *, unit_ids: Sequence[Any] | None = None,
                        rule: str = COMPATIBILITY_TEXT) -> str:
    """SHA-256 (hex) naming a private collection in the ledger (its releases are listed under it).

    Computed over the documents' texts in normal form (not ids, field names, file format, line endings or
    whitespace runs), as the sorted multiset of each text's :func:`~dpsynrag.textkeys.text_key`: the same collection read from JSONL or CSV, in any order, with any ids, is
    one collection. With privacy units (``unit_ids``, or the documents' ``unit``), over the sorted
    multiset of (text, unit key) digest pairs instead, so another grouping of the same texts is another
    collection. What composes is decided per unit (:func:`unit_fingerprints`), not by this name.

    Args:
        documents: :class:`~dpsynrag.data.io.Document` objects (their ``text`` in normal form; a text cut at
            read time by its whole text's key, ``text_key``, so the cut never changes the fingerprint) or strings.
        unit_ids: as in :func:`unit_fingerprints`.
        rule: :data:`COMPATIBILITY_TEXT`, or one of :data:`LEGACY_RULES` for the name a ledger gave the
            collection before.
    """
    if rule == COMPATIBILITY_TEXT:
        return scan_collection(documents, None, unit_ids=unit_ids)[0]
    keys = list(_unit_keys(documents, unit_ids, rule=rule))
    return _collection_name([d if u is None else d + hashlib.sha256(u).digest() for d, u in keys],
                            any(u is not None for _, u in keys))


def legacy_aliases(documents: Iterable[Any], key: bytes, *, rules: Sequence[str] = LEGACY_RULES,
                   unit_ids: Sequence[Any] | None = None, with_documents: bool = False) -> dict[bytes, bytes]:
    """For a ledger written before: each unit's fingerprint under each of ``rules`` (:data:`LEGACY_RULES`)
    mapped to its fingerprint under today's rule, where the two differ (a text or person key not in today's
    normal form), with the documents' own fingerprints too when ``with_documents`` (as :func:`scan_collection`).
    The ledger carries what an old fingerprint spent onto today's, once. Args and errors as
    :func:`unit_fingerprints`; ``rules`` must be among :data:`LEGACY_RULES`."""
    if not set(rules) <= set(LEGACY_RULES):
        raise ConfigError(f"legacy_aliases: rules must be among {LEGACY_RULES}. Found {tuple(rules)}.")
    aliases: dict[bytes, bytes] = {}
    for (digest, unit), *olds in _keys_by_rule(documents, unit_ids, (COMPATIBILITY_TEXT, *rules)):
        for old_digest, old_unit in olds:
            pairs = [((old_digest, old_unit), (digest, unit))]
            if with_documents and unit is not None:
                pairs.append(((old_digest, None), (digest, None)))
            for old, new in pairs:
                old_fp, new_fp = (keyed_fingerprint(key, unit_message(*m)) for m in (old, new))
                if old_fp != new_fp:
                    aliases[old_fp] = new_fp
    return aliases


def _collection_name(digests: list[bytes], with_units: bool) -> str:
    h = hashlib.sha256(b"dpsynrag-dataset-units-v1\x00" if with_units else b"dpsynrag-dataset-v1\x00")
    for d in sorted(digests):
        h.update(d if with_units else d[:32])
    return h.hexdigest()


def scan_collection(documents: Iterable[Any], key: bytes | None, *, unit_ids: Sequence[Any] | None = None,
                    with_documents: bool = False, persons: set[bytes] | None = None) -> tuple[str, set[bytes], bool]:
    """One pass over a collection: its :func:`dataset_fingerprint`, its unit fingerprints under ``key``
    (:func:`unit_fingerprints`; empty when ``key`` is None) and whether it has privacy units (``unit_ids``
    or a document's ``unit``).

    ``with_documents=True`` (the ledger) adds, for a collection with privacy units, each document's own
    text fingerprint beside its unit's: a per-person release then also charges every document it read, so
    it composes with per-document releases of the same texts (an ε-DP guarantee per person implies the same
    ε per document: removing one document of a person moves each statistic by at most the per-person
    sensitivity). The converse is not charged: a per-document release is not recorded against persons.
    ``persons``: when given (with a ``key``), the units that are persons are also added to it."""
    digests, units, with_units = [], set(), False
    for digest, unit in _unit_keys(documents, unit_ids):
        with_units |= unit is not None
        digests.append(digest if unit is None else digest + hashlib.sha256(unit).digest())
        if key is not None:
            units.add(fp := keyed_fingerprint(key, unit_message(digest, unit)))
            if persons is not None and unit is not None:
                persons.add(fp)
            if with_documents and unit is not None:
                units.add(keyed_fingerprint(key, unit_message(digest, None)))
    return _collection_name(digests, with_units), units, with_units
