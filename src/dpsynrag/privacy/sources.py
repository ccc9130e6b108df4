"""Where a ledger's collections came from (:mod:`dpsynrag.privacy.ledger`, issue 43): the input file or folder
each collection was read from, and how it was read (its fields), recorded when a command registers it.

Owner-only, as the whole ledger (folder 0700, files 0600): paths can name people or projects. Nothing
here is ever written to a corpus folder. A path is recorded as the absolute path it had when read; the
same collection read from several files lists each of them. The fields (``text_field``, ``id_field``,
``unit_field``, ``task``) let ``dpsynrag ledger show FILE`` and ``ledger set-budget FILE`` read the file
as the build did without the flags typed again.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

_SCHEMA = ("CREATE TABLE IF NOT EXISTS dataset_sources (dataset TEXT NOT NULL, path TEXT NOT NULL, reading TEXT NOT NULL, "
           "first TEXT NOT NULL, last TEXT NOT NULL, PRIMARY KEY (dataset, path))")


@dataclass(frozen=True)
class Source:
    """An input as a command read it.

    Attributes:
        path: the file (or a task's data folder), made absolute when recorded.
        reading: how it was read: ``text_field``, ``id_field``, ``unit_field`` (``--privacy-unit-field``)
            for a file, ``task`` for a folder; values None when not given (JSON-serialisable).
    """

    path: str | os.PathLike
    reading: dict[str, Any] = field(default_factory=dict)


def record_source(db: sqlite3.Connection, dataset: str, source: Source) -> None:
    """Record (or refresh the last-read time of) ``source`` as an input of ``dataset``; call inside the
    ledger's write transaction."""
    db.execute(_SCHEMA)
    now = _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat(timespec="seconds")
    path = str(Path(source.path).expanduser().resolve())
    db.execute("INSERT INTO dataset_sources VALUES (?, ?, ?, ?, ?) ON CONFLICT (dataset, path) DO UPDATE SET "
               "reading = excluded.reading, last = excluded.last",
               (dataset, path, json.dumps(source.reading, sort_keys=True), now, now))


def read_sources(db: sqlite3.Connection, dataset: str) -> list[dict[str, Any]]:
    """``dataset``'s recorded inputs, the first read first: dicts of ``path``, ``reading`` (dict), ``first``
    and ``last`` (UTC ISO times it was registered from that path). Empty for a collection registered
    without a source (the library API, or a ledger from before sources were recorded)."""
    db.execute(_SCHEMA)
    rows = db.execute("SELECT path, reading, first, last FROM dataset_sources WHERE dataset = ? ORDER BY first, path",
                      (dataset,)).fetchall()
    return [{"path": p, "reading": json.loads(r), "first": f, "last": la} for p, r, f, la in rows]


def reading_of(db: sqlite3.Connection, path: str | os.PathLike) -> dict[str, Any] | None:
    """How ``path`` was last read by a command that recorded it (the ``reading`` dict), or None."""
    db.execute(_SCHEMA)
    row = db.execute("SELECT reading FROM dataset_sources WHERE path = ? ORDER BY last DESC LIMIT 1",
                     (str(Path(path).expanduser().resolve()),)).fetchone()
    return None if row is None else json.loads(row[0])


class LedgerLookups:
    """Read-only lookups of :class:`~dpsynrag.privacy.ledger.PrivacyLedger` (its base class: they run in
    its ``_transaction``): the inputs of a collection, how a file was read, the spend of its units."""

    def sources(self, dataset: str) -> list[dict[str, Any]]:
        """The inputs ``dataset`` was registered from (:func:`read_sources`)."""
        with self._transaction() as db:
            return read_sources(db, dataset)

    def reading_of(self, path: str | os.PathLike) -> dict[str, Any] | None:
        """How ``path`` was last read when a collection was registered from it (:func:`reading_of`), or None."""
        with self._transaction() as db:
            return reading_of(db, path)

    def release_sources(self, dataset: str) -> list[str]:
        """The recorded input paths of every collection with a release that holds a unit of ``dataset``
        (``dataset`` itself included): where the earlier releases on its documents (persons) read them."""
        with self._transaction() as db:
            db.execute(_SCHEMA)
            return [p for (p,) in db.execute(
                "SELECT DISTINCT s.path FROM dataset_sources s WHERE s.dataset IN (SELECT DISTINCT r.dataset FROM "
                "releases r WHERE EXISTS (SELECT 1 FROM dataset_units a JOIN dataset_units b ON b.dataset = r.dataset "
                "AND b.unit = a.unit WHERE a.dataset = ?)) ORDER BY s.first, s.path", (dataset,))]

    def unit_spends(self, dataset: str) -> list[tuple[float, float, float, int, int]]:
        """``(rho, delta_terms, delta, releases, units)``: how many of ``dataset``'s units (documents or
        persons) spent each distinct (Σρ, Σδ terms, Σδ, release count), counting every release that read
        them on any collection; the most spent ρ first. Empty when its units were never registered."""
        with self._transaction() as db:
            return db.execute("SELECT u.rho, u.delta_terms, u.delta, u.releases, COUNT(*) FROM dataset_units du "
                              "JOIN units u ON u.unit = du.unit WHERE du.dataset = ? GROUP BY 1, 2, 3, 4 "
                              "ORDER BY 1 DESC", (dataset,)).fetchall()
