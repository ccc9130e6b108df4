"""Which of the ledger's units are persons (``--privacy-unit-field``), so that ``ledger show`` counts a
per-person collection's persons and documents apart.

A per-person release is recorded against each person and against each document it read
(:func:`~dpsynrag.privacy.fingerprints.scan_collection`), so a collection's units mix both kinds and their
keyed fingerprints cannot tell them apart. The ledger therefore also keeps the persons' fingerprints
in a table of their own (``person_units``; keyed hashes only, never a key or text), filled when a
collection is registered, and when a collection registered before it existed is read again.
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Iterable

from dpsynrag.privacy.lifetime import lifetime_epsilon

_SCHEMA = "CREATE TABLE IF NOT EXISTS person_units (unit BLOB PRIMARY KEY) WITHOUT ROWID"


def record_persons(db: sqlite3.Connection, persons: Iterable[bytes]) -> None:
    """Mark ``persons`` (unit fingerprints) as persons; call inside the ledger's write transaction."""
    db.execute(_SCHEMA)
    db.executemany("INSERT OR IGNORE INTO person_units VALUES (?)", ((u,) for u in persons))


def count_persons(db: sqlite3.Connection, dataset: str | None, epsilon: float, rho: float,
                  rtol: float) -> tuple[int, int]:
    """``(persons, persons_at_max)``: how many of ``dataset``'s units (None: the whole ledger's) are
    persons, and how many of those are at the most-spent unit's lifetime ``epsilon`` and ``rho`` (relative
    tolerance ``rtol``, as the ledger's ``at_max``). ``(0, 0)`` for a per-document collection."""
    db.execute(_SCHEMA)
    cols = "u.rho, u.delta_terms, u.delta, COUNT(*) FROM units u JOIN person_units p ON p.unit = u.unit"
    if dataset is None:
        groups = db.execute(f"SELECT {cols} GROUP BY 1, 2, 3").fetchall()
    else:
        groups = db.execute(f"SELECT {cols} JOIN dataset_units du ON du.unit = u.unit WHERE du.dataset = ? "
                            "GROUP BY 1, 2, 3", (dataset,)).fetchall()
    at_max = 0
    for r, terms, delta, n in groups:
        eps = lifetime_epsilon(r, min(1.0, terms), delta)
        same = eps == epsilon if math.isinf(epsilon) else math.isclose(eps, epsilon, rel_tol=rtol)
        at_max += n if same and math.isclose(r, rho, rel_tol=rtol, abs_tol=1e-300) else 0
    return sum(g[3] for g in groups), at_max
