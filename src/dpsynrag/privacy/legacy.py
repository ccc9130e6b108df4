"""The privacy ledger's upgrade to the normal-form fingerprints of issue 42 (:mod:`dpsynrag.textkeys`).

A ledger written before keyed each document by the SHA-256 of its exact bytes (and each person by their key
as read). Such a ledger is marked ``exact_text_units = 1`` in its meta table the first time this version opens
it. From then on, when a collection is registered, each of its units' old exact-text fingerprint that the
ledger holds gives what it spent, once, to the unit's normal-form fingerprint
(:func:`carry_exact_text_spend`), so the old releases keep binding whatever form the documents come in next.
An old fingerprint is of exact bytes: the link is made when a form an old version read is read again.
"""

from __future__ import annotations

import sqlite3


def holds_exact_text_units(db: sqlite3.Connection) -> bool:
    """Whether the ledger may hold fingerprints of the exact-text rule: read from the meta table, decided
    (and stored) the first time this version opens the ledger: True when it already held units, releases or
    budgets. Call inside the ledger's write transaction."""
    row = db.execute("SELECT value FROM meta WHERE key = 'exact_text_units'").fetchone()
    if row is None:
        legacy = any(db.execute(f"SELECT 1 FROM {table} LIMIT 1").fetchone() for table in ("units", "releases", "budgets"))
        db.execute("INSERT INTO meta VALUES ('exact_text_units', ?)", ("1" if legacy else "0",))
        return legacy
    return row[0] == "1"


def carry_exact_text_spend(db: sqlite3.Connection, aliases: dict[bytes, bytes]) -> None:
    """Add what each recorded exact-text fingerprint spent (ρ, δ terms, δ, releases; its budget where the
    new one has none) to its normal-form fingerprint, once per old fingerprint (table ``carried_exact``):
    each form of a document that an old version released is charged to the document, and never twice.

    Args:
        db: the ledger's connection, inside its write transaction.
        aliases: old fingerprint -> normal-form fingerprint
            (:func:`~dpsynrag.privacy.fingerprints.exact_text_aliases`); the new ones already in ``units``.
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
