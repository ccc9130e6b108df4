"""The privacy ledger's upgrades to the normal-form fingerprints of issues 42 and 53 (:mod:`dpsynrag.textkeys`).

A ledger written before issue 42 keyed each document by the SHA-256 of its exact bytes (and each person by
their key as read); one written from issue 42 to issue 53 by its text in NFC with whitespace runs as one space
(and each person by that form, case folded), not yet without invisible format characters or in compatibility
form. Such a ledger is marked in its meta table the first time a version that knows the newer rule opens it
(``exact_text_units = 1``, ``nfc_text_units = 1``: it already held units, releases or budgets). From then on,
when a collection is registered, each of its units' fingerprints under an earlier rule that the ledger holds
gives what it spent, once, to the unit's fingerprint under today's rule (:func:`carry_legacy_spend`), so the
old releases keep binding whatever form the documents come in next. The link is made when a form an old
version read is read again (an old fingerprint cannot be traced back to another form before that).
"""

from __future__ import annotations

import sqlite3

from dpsynrag.privacy.fingerprints import EXACT_TEXT, NORMALIZED_TEXT


_MARKS = {EXACT_TEXT: "exact_text_units", NORMALIZED_TEXT: "nfc_text_units"}


def holds_exact_text_units(db: sqlite3.Connection) -> bool:
    """Whether the ledger may hold fingerprints of the exact-text rule (before issue 42)
    (:func:`legacy_rules_held`)."""
    return EXACT_TEXT in legacy_rules_held(db)


def legacy_rules_held(db: sqlite3.Connection) -> tuple[str, ...]:
    """The earlier fingerprint rules (:data:`~dpsynrag.privacy.fingerprints.LEGACY_RULES`) whose fingerprints
    the ledger may hold: read from the meta table, each decided (and stored) the first time a version that
    knows the next rule opens the ledger: held when it already had units, releases or budgets then. Call
    inside the ledger's write transaction."""
    held = []
    for rule, mark in _MARKS.items():
        row = db.execute("SELECT value FROM meta WHERE key = ?", (mark,)).fetchone()
        if row is None:
            legacy = any(db.execute(f"SELECT 1 FROM {table} LIMIT 1").fetchone()
                         for table in ("units", "releases", "budgets"))
            db.execute("INSERT INTO meta VALUES (?, ?)", (mark, "1" if legacy else "0"))
        else:
            legacy = row[0] == "1"
        if legacy:
            held.append(rule)
    return tuple(held)


def carry_legacy_spend(db: sqlite3.Connection, aliases: dict[bytes, bytes]) -> None:
    """Add what each recorded fingerprint of an earlier rule spent (ρ, δ terms, δ, releases; its budget
    where the new one has none) to today's fingerprint of the same unit, once per old fingerprint (table
    ``carried_exact``, named after the first such rule): each form of a document that an old version
    released is charged to the document, and never twice.

    Args:
        db: the ledger's connection, inside its write transaction.
        aliases: old fingerprint -> today's fingerprint
            (:func:`~dpsynrag.privacy.fingerprints.legacy_aliases`); the new ones already in ``units``.
    """
    db.execute("CREATE TABLE IF NOT EXISTS carried_exact (unit BLOB PRIMARY KEY) WITHOUT ROWID")
    for old, new in aliases.items():
        row = db.execute("SELECT rho, delta_terms, delta, releases, budget_epsilon, budget_delta, budget_conversion "
                         "FROM units WHERE unit = ? AND unit NOT IN (SELECT unit FROM carried_exact)", (old,)).fetchone()
        if row is None:
            continue
        db.execute("UPDATE units SET rho = rho + ?, delta_terms = delta_terms + ?, delta = delta + ?, "
                   "releases = releases + ? WHERE unit = ?", (*row[:4], new))
        if row[4] is not None:
            db.execute("UPDATE units SET budget_epsilon = ?, budget_delta = ?, budget_conversion = ? WHERE "
                       "unit = ? AND budget_epsilon IS NULL", (*row[4:], new))
        db.execute("INSERT INTO carried_exact VALUES (?)", (old,))
