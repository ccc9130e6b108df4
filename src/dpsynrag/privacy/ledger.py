"""A persistent privacy-budget ledger per document or privacy unit (issue 15, part 2; issue 30).

Every corpus build and every DP-RAG query on a collection releases something about it; the privacy
report of one release covers that release only. This ledger — an SQLite file ``ledger.sqlite`` in a
folder (``--ledger DIR``; default :func:`default_ledger_dir`) — records each release's zCDP cost
**on every document (or privacy unit) it read**, across processes and sessions, and can refuse a
release that would take the most-spent of them over a lifetime budget **before anything is drawn**.

Documents, not files (issue 30): a collection is recorded as its set of unit fingerprints, keyed hashes
``HMAC-SHA256(key, ·)`` cut to 128 bits (:func:`~dpsynrag.privacy.fingerprints.unit_fingerprints`) of each document's unit key
(:attr:`~dpsynrag.data.io.Document.unit`, ``--privacy-unit-field``) or, without units, of its whole text's
SHA-256, both in normal form (issues 42 and 53, :mod:`dpsynrag.textkeys`: the same records with CRLF line
endings, other whitespace, invisible format characters or compatibility forms such as full-width digits are
the same units, and so are person keys that differ in case or whitespace). A ledger that already held
releases when first opened by a version with a newer rule (``exact_text_units``, ``nfc_text_units`` in its
meta table; :mod:`dpsynrag.privacy.legacy`) carries, once, what each fingerprint of the earlier rule spent
onto the document's (or person's) fingerprint of today's rule when a collection holding it is registered, so
its earlier releases keep binding (the link is made when a form an old version read is read again: an old
fingerprint cannot be traced back to another form of the document before that). The secret key is ``ledger.key`` beside the ledger (owner-only, made on first use; never any
text in the ledger). A later release that reads a recorded document composes with every earlier release
that read it, whatever file it came from: 299 of the same 300 documents get no fresh budget. A unit
that no earlier release read starts at zero: releases on disjoint sets of units compose in parallel
(McSherry 2009, PINQ, Theorem 4; per-unit accounting as in Feldman & Zrnic 2021, individual privacy
accounting). A hash collision (probability about n²·2⁻¹²⁹) merges two units' spend: conservative.

Composition (Bun & Steinke 2016, Lemma 2.3; approximate zCDP): the releases that read one unit compose
by adding ρ and adding their approximate-zCDP δ terms; the ledger also adds the releases' own δ's and
states the unit's lifetime guarantee at that summed δ: ε = conv(Σρ, Σδ − Σδ-terms), under the
Bun–Steinke (paper) and the tight CKS conversion (:mod:`dpsynrag.privacy.conversions`). The sum is
≥ Σδ-terms, so the conversion is always valid; when Σδ ≥ 1 nothing is guaranteed (ε = inf). A
collection's lifetime ε is that of its most-spent unit (:meth:`PrivacyLedger.unit_totals`).

A lifetime budget (ε_L, optionally δ_L, a conversion) is stored per collection
(:meth:`PrivacyLedger.set_budget`, ``dpsynrag ledger set-budget``) and on each of its units, so it also
binds a later release on a subset or a superset; a ledger opened with ``lifetime_epsilon``
(``--lifetime-epsilon``) adds that limit for its own releases. A release is refused when, after it, ε
of any unit it reads would exceed a limit under the limit's conversion, or that unit's Σδ would exceed
δ_L (or reach 1 under a limit). The check and the insert run in one ``BEGIN IMMEDIATE`` transaction,
so concurrent builds and query sessions never overspend together.

Migration from a ledger written before issue 30 (schema 1, keyed by the whole input's hash): it is
upgraded in place when opened (schema 2). Its releases stay recorded under their collection's
fingerprint (:func:`~dpsynrag.privacy.fingerprints.dataset_fingerprint`, unchanged) and keep composing with any later release on
exactly that collection, as before. The first time that collection is read again (a build, a DP-RAG
session, ``dpsynrag ledger show FILE`` or ``set-budget FILE``) its units are registered and its earlier
releases and budget are carried onto them: from then on subsets and supersets compose with them too.

The ledger is owner-only (folder 0700, files 0600): it holds keyed fingerprints of private documents,
times and output folders. A release is recorded when its first mechanism is about to run; a release
that fails after that stays recorded (noise may have been drawn: conservative).
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import math
import os
import secrets
import sqlite3
import sys
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from dpsynrag.errors import ConfigError, PrivacyBudgetExceededError
from dpsynrag.privacy.conversions import CONVERSIONS
from dpsynrag.privacy.fingerprints import EXACT_TEXT, dataset_fingerprint, legacy_aliases, scan_collection
from dpsynrag.privacy.legacy import carry_legacy_spend, legacy_rules_held
from dpsynrag.privacy.persons import record_persons
from dpsynrag.privacy.lifetime import Budget, Release, ledger_totals, lifetime_epsilon
from dpsynrag.privacy.sources import LedgerLookups, Source, record_source
from dpsynrag.privacy.unit_spend import RTOL, most_spent_unit, spend_groups, unit_groups

LEDGER_ENV = "DPSYNRAG_LEDGER"
LEDGER_FILE = "ledger.sqlite"
KEY_FILE = "ledger.key"
SCHEMA_VERSION = 2  # 2: per-unit fingerprints and spend (issue 30); 1 is upgraded in place
_RTOL = RTOL

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS budgets (
    dataset TEXT PRIMARY KEY, epsilon REAL NOT NULL, delta REAL, conversion TEXT NOT NULL, updated TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS releases (
    id INTEGER PRIMARY KEY AUTOINCREMENT, dataset TEXT NOT NULL, created TEXT NOT NULL, kind TEXT NOT NULL,
    method TEXT NOT NULL, label TEXT NOT NULL, count INTEGER NOT NULL, rho REAL NOT NULL,
    delta_terms REAL NOT NULL, delta REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS releases_dataset ON releases (dataset);
"""
# schema 2: `applied` = the release's cost is on its collection's units (0: a release of schema 1, or of a
# collection whose units were never given; carried onto them when they are registered)
_SCHEMA_2 = """
CREATE TABLE IF NOT EXISTS datasets (dataset TEXT PRIMARY KEY, units INTEGER NOT NULL, unit_kind TEXT NOT NULL,
    registered TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS dataset_units (dataset TEXT NOT NULL, unit BLOB NOT NULL, PRIMARY KEY (dataset, unit))
    WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS units (
    unit BLOB PRIMARY KEY, rho REAL NOT NULL DEFAULT 0, delta_terms REAL NOT NULL DEFAULT 0,
    delta REAL NOT NULL DEFAULT 0, releases INTEGER NOT NULL DEFAULT 0, budget_epsilon REAL, budget_delta REAL,
    budget_conversion TEXT
) WITHOUT ROWID;
"""


def default_ledger_dir() -> Path:
    """The ledger folder when ``--ledger`` is not given: ``$DPSYNRAG_LEDGER``, else the user's data
    folder: ``$XDG_DATA_HOME/dpsynrag`` (default ``~/.local/share/dpsynrag``) on Linux,
    ``~/Library/Application Support/dpsynrag`` on macOS, ``%LOCALAPPDATA%\\dpsynrag`` on Windows."""
    if os.environ.get(LEDGER_ENV):
        return Path(os.environ[LEDGER_ENV]).expanduser()
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support" / "dpsynrag"
    if os.name == "nt" and os.environ.get("LOCALAPPDATA"):
        return Path(os.environ["LOCALAPPDATA"]) / "dpsynrag"
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "dpsynrag"


def _check_number(name: str, value, *, lo: float, hi: float = math.inf, lo_open: bool = True) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
        raise ConfigError(f"`{name}` must be a number. Found {value!r}.")
    if value < lo or (lo_open and value == lo) or not value < hi:
        raise ConfigError(f"`{name}` must lie in {'(' if lo_open else '['}{lo:g}, {hi:g}). Found {value!r}.")
    return float(value)


def _owner_only_file(path: Path, data: bytes) -> None:
    """Create ``path`` (0600) holding ``data`` atomically; FileExistsError when it exists (another
    process made it first)."""
    tmp = path.parent / f".{path.name}.tmp-{os.getpid()}-{secrets.token_hex(4)}"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    try:
        os.link(tmp, path)  # fails if it exists: never replaces a key
    finally:
        tmp.unlink(missing_ok=True)


class PrivacyLedger(LedgerLookups):
    """The SQLite ledger in ``directory`` (created owner-only if missing; a schema-1 ledger is upgraded).

    Args:
        directory: the folder of ``ledger.sqlite`` and ``ledger.key``; None: :func:`default_ledger_dir`.
        lifetime_epsilon: an extra limit (``--lifetime-epsilon``) on the lifetime ε of every unit this
            object records a release for, checked under the Bun–Steinke conversion together with the
            stored budgets; not stored.
        source: the input read (:class:`~dpsynrag.privacy.sources.Source`), recorded with each collection registered.
        on_rerelease: called by :func:`~dpsynrag.privacy.charge.prepare_charge` (which see) or None.

    Raises:
        ConfigError: the folder cannot be created, is not a ledger, or ``lifetime_epsilon`` <= 0.
    """

    def __init__(self, directory: str | os.PathLike | None = None, *, lifetime_epsilon: float | None = None,
                 source: Source | None = None, on_rerelease=None):
        self.source, self.on_rerelease = source, on_rerelease
        self.directory = Path(directory).expanduser() if directory is not None else default_ledger_dir()
        self.lifetime_epsilon = (
            None if lifetime_epsilon is None else _check_number("lifetime_epsilon (--lifetime-epsilon)", lifetime_epsilon, lo=0)
        )
        self.path = self.directory / LEDGER_FILE
        self.key_path = self.directory / KEY_FILE
        self._key: bytes | None = None
        try:
            self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
            os.close(os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600))
        except OSError as exc:
            raise ConfigError(
                f"cannot open the privacy ledger in {self.directory} (--ledger): {exc.strerror or type(exc).__name__}."
            ) from None
        with self._transaction() as db:
            for statement in filter(str.strip, _SCHEMA.split(";")):
                db.execute(statement)
            row = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
            if row is None or row[0] == "1":
                if row is not None or not db.execute("SELECT 1 FROM pragma_table_info('releases') "
                                                     "WHERE name = 'applied'").fetchone():
                    db.execute("ALTER TABLE releases ADD COLUMN applied INTEGER NOT NULL DEFAULT 0")
                for statement in filter(str.strip, _SCHEMA_2.split(";")):
                    db.execute(statement)
                db.execute("INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
            elif row[0] != str(SCHEMA_VERSION):
                raise ConfigError(f"the privacy ledger {self.path} has schema {row[0]}; this dpsynrag reads {SCHEMA_VERSION}.")
            self.legacy_rules = legacy_rules_held(db)
            self.exact_text_units = EXACT_TEXT in self.legacy_rules

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """One ``BEGIN IMMEDIATE`` transaction (the write lock is taken at once: a concurrent writer
        waits, up to 10 minutes), committed on success, rolled back on any exception."""
        try:
            db = sqlite3.connect(self.path, timeout=600, isolation_level=None)
        except sqlite3.Error as exc:
            raise ConfigError(f"cannot open the privacy ledger {self.path} (--ledger): {exc}.") from None
        try:
            try:
                db.execute("BEGIN IMMEDIATE")
            except sqlite3.DatabaseError as exc:
                raise ConfigError(f"the privacy ledger {self.path} (--ledger) is not usable: {exc}.") from None
            try:
                yield db
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")
        finally:
            db.close()

    @property
    def key(self) -> bytes:
        """The ledger's secret HMAC key (32 bytes), read from ``ledger.key`` beside the ledger; made
        (owner-only, from the OS's secure generator) when the ledger has recorded no unit yet.

        Raises:
            ConfigError: the key file is missing or damaged while the ledger holds unit fingerprints
                (they could no longer be recognised: restore the file from a backup).
        """
        if self._key is None:
            for _ in range(50):
                try:
                    text = self.key_path.read_text(encoding="ascii").strip()
                except FileNotFoundError:
                    with self._transaction() as db:
                        recorded = db.execute("SELECT 1 FROM units LIMIT 1").fetchone() is not None
                    if recorded:
                        raise ConfigError(
                            f"the privacy ledger {self.path} records documents but its key {self.key_path} is "
                            "missing: without it no document can be recognised. Restore the key file from a backup."
                        ) from None
                    with contextlib.suppress(FileExistsError):
                        _owner_only_file(self.key_path, secrets.token_hex(32).encode("ascii") + b"\n")
                    continue
                except (OSError, UnicodeDecodeError) as exc:
                    raise ConfigError(f"cannot read the privacy ledger key {self.key_path}: {exc}.") from None
                try:
                    key = bytes.fromhex(text)
                except ValueError:
                    key = b""
                if len(key) != 32:
                    raise ConfigError(f"the privacy ledger key {self.key_path} is damaged (not 64 hex digits).")
                self._key = key
                break
            else:
                raise ConfigError(f"cannot create the privacy ledger key {self.key_path}.")
        return self._key

    # -- reading --------------------------------------------------------------------------------------

    def releases(self, dataset: str | None = None) -> list[Release]:
        """Recorded releases, oldest first (of ``dataset`` only when given)."""
        with self._transaction() as db:
            return self._releases(db, dataset)

    @staticmethod
    def _releases(db: sqlite3.Connection, dataset: str | None, *, unapplied: bool = False) -> list[Release]:
        cols = "id, dataset, created, kind, method, label, count, rho, delta_terms, delta"
        extra = " AND applied = 0" if unapplied else ""
        rows = (db.execute(f"SELECT {cols} FROM releases ORDER BY id") if dataset is None
                else db.execute(f"SELECT {cols} FROM releases WHERE dataset = ?{extra} ORDER BY id", (dataset,)))
        return [Release(*row) for row in rows]

    def datasets(self) -> list[str]:
        """Fingerprints with a release or a budget."""
        with self._transaction() as db:
            rows = db.execute("SELECT dataset FROM releases UNION SELECT dataset FROM budgets ORDER BY 1").fetchall()
        return [r[0] for r in rows]

    def budget(self, dataset: str) -> Budget | None:
        """The stored lifetime budget of ``dataset``, or None."""
        with self._transaction() as db:
            return self._budget(db, dataset)

    @staticmethod
    def _budget(db: sqlite3.Connection, dataset: str) -> Budget | None:
        row = db.execute("SELECT epsilon, delta, conversion FROM budgets WHERE dataset = ?", (dataset,)).fetchone()
        return None if row is None else Budget(*row)

    def totals(self, dataset: str) -> dict[str, Any]:
        """The composed spend of ``dataset``'s own releases: ``releases``, ``rho`` (Σρ), ``delta_terms``,
        ``delta`` (Σδ), ``epsilon`` (Bun–Steinke) and ``epsilon_tight`` (CKS) at Σδ
        (:func:`lifetime_epsilon`), the ``budget`` (a dict or None), and ``units``: its most-spent unit
        counting every release that read it, under any collection (:meth:`unit_totals`; None when the
        collection's units were never registered: a release of a schema-1 ledger)."""
        with self._transaction() as db:
            rel = self._releases(db, dataset)
            budget = self._budget(db, dataset)
            units = most_spent_unit(db, dataset)
        return {**ledger_totals(rel, budget), "units": units}

    def unit_totals(self, dataset: str | None = None) -> dict[str, Any] | None:
        """The most-spent unit (document or person) of ``dataset`` (None: of the whole ledger), counting
        every release that read it: ``units`` (how many), ``unit_kind`` ("document", "unit" or "document
        or unit"), ``max`` (its ``rho``, ``delta_terms``, ``delta``, ``releases``, ``epsilon``
        (Bun–Steinke) and ``epsilon_tight`` (CKS) at its summed δ; "most-spent" by ``epsilon``), and
        ``at_max`` (how many units are at that ε, relative tolerance 1e-9), ``persons`` and ``persons_at_max``
        (how many of those are persons, :mod:`~dpsynrag.privacy.persons`). None when no unit is recorded."""
        with self._transaction() as db:
            return most_spent_unit(db, dataset)

    def unit_spend(self, dataset: str) -> list[dict[str, Any]]:
        """How many units of ``dataset`` have spent each lifetime amount, the most spent first:
        ``[{"epsilon", "epsilon_tight", "rho", "releases", "units"}]`` (ε: Bun–Steinke and CKS at each group's
        summed δ; every release that read a unit counts, under any collection). Owner-only: how many units a
        dataset has is not DP output. Empty when the collection's units were never registered."""
        with self._transaction() as db:
            return spend_groups(db, dataset)

    # -- writing --------------------------------------------------------------------------------------

    def register(self, documents: Iterable[Any], *, unit_ids: Sequence[Any] | None = None) -> str:
        """Record which units a collection holds (their keyed fingerprints, :func:`~dpsynrag.privacy.fingerprints.unit_fingerprints`)
        and return its :func:`~dpsynrag.privacy.fingerprints.dataset_fingerprint`. Costs nothing; done once per collection. Releases of
        this collection recorded without its units (a schema-1 ledger) are then carried onto them, and
        its stored budget too.

        Args:
            documents, unit_ids: as in :func:`~dpsynrag.privacy.fingerprints.unit_fingerprints`.
        """
        dataset, units, with_units = scan_collection(documents, self.key, unit_ids=unit_ids, with_documents=True,
                                                     persons=(persons := set()))
        old_names = {dataset_fingerprint(documents, unit_ids=unit_ids, rule=rule) for rule in self.legacy_rules} - {dataset}
        aliases = legacy_aliases(documents, self.key, rules=self.legacy_rules, unit_ids=unit_ids,
                                 with_documents=True) if self.legacy_rules else None
        with self._transaction() as db:
            if self.source is not None:
                record_source(db, dataset, self.source)
            record_persons(db, persons)  # before the return: a collection registered earlier gets them too
            if db.execute("SELECT 1 FROM datasets WHERE dataset = ?", (dataset,)).fetchone():
                return dataset
            db.execute("INSERT INTO datasets VALUES (?, ?, ?, ?)",
                       (dataset, len(units), "unit" if with_units else "document", _now()))
            db.executemany("INSERT OR IGNORE INTO dataset_units VALUES (?, ?)", ((dataset, u) for u in units))
            db.executemany("INSERT OR IGNORE INTO units (unit) VALUES (?)", ((u,) for u in units))
            if aliases:
                carry_legacy_spend(db, aliases)
            legacy = self._releases(db, dataset, unapplied=True)
            for old_name in sorted(old_names):  # schema-1 releases under the name an earlier rule gave
                legacy += self._releases(db, old_name, unapplied=True)
                db.execute("UPDATE releases SET applied = 1 WHERE dataset = ? AND applied = 0", (old_name,))
            if legacy:
                t = ledger_totals(legacy, None)
                self._add_to_units(db, dataset, t["rho"], math.fsum(r.delta_terms for r in legacy), t["delta"],
                                   len(legacy))
                db.execute("UPDATE releases SET applied = 1 WHERE dataset = ? AND applied = 0", (dataset,))
            budget = self._budget(db, dataset) or next(filter(None, (self._budget(db, n) for n in sorted(old_names))), None)
            if budget is not None:
                db.execute("UPDATE units SET budget_epsilon = ?, budget_delta = ?, budget_conversion = ? WHERE "
                           "budget_epsilon IS NULL AND unit IN (SELECT unit FROM dataset_units WHERE dataset = ?)",
                           (budget.epsilon, budget.delta, budget.conversion, dataset))
        return dataset

    @staticmethod
    def _add_to_units(db: sqlite3.Connection, dataset: str, rho: float, delta_terms: float, delta: float,
                      releases: int) -> None:
        db.execute("UPDATE units SET rho = rho + ?, delta_terms = delta_terms + ?, delta = delta + ?, "
                   "releases = releases + ? WHERE unit IN (SELECT unit FROM dataset_units WHERE dataset = ?)",
                   (rho, delta_terms, delta, releases, dataset))

    @staticmethod
    def _registered(db: sqlite3.Connection, dataset: str) -> bool:
        return db.execute("SELECT 1 FROM datasets WHERE dataset = ?", (dataset,)).fetchone() is not None

    def set_budget(self, dataset: str, epsilon: float, *, delta: float | None = None,
                   conversion: str = "bun-steinke") -> Budget:
        """Store (or replace) ``dataset``'s lifetime budget, on the collection and on each of its
        registered units (so it binds later releases on subsets and supersets too; a unit's budget is
        the last one set on a collection holding it). Releases already recorded stay recorded; a budget
        below them refuses every further release.

        Raises:
            ConfigError: ``epsilon`` <= 0, ``delta`` outside (0, 1), an unknown conversion.
        """
        epsilon = _check_number("epsilon (--epsilon)", epsilon, lo=0)
        delta = None if delta is None else _check_number("delta (--delta)", delta, lo=0, hi=1)
        if conversion not in CONVERSIONS:
            raise ConfigError(f"`conversion` (--conversion) must be one of {CONVERSIONS}. Found {conversion!r}.")
        with self._transaction() as db:
            db.execute("INSERT OR REPLACE INTO budgets VALUES (?, ?, ?, ?, ?)", (dataset, epsilon, delta, conversion, _now()))
            db.execute("UPDATE units SET budget_epsilon = ?, budget_delta = ?, budget_conversion = ? WHERE unit IN "
                       "(SELECT unit FROM dataset_units WHERE dataset = ?)", (epsilon, delta, conversion, dataset))
        return Budget(epsilon, delta, conversion)

    def check(self, dataset: str, *, rho: float, delta_terms: float, delta: float) -> None:
        """Refuse (raise) if a release of this cost would exceed a limit now; records nothing.

        Raises:
            PrivacyBudgetExceededError: as :meth:`record`.
        """
        with self._transaction() as db:
            self._check(db, dataset, rho, delta_terms, delta)

    def record(self, dataset: str, *, kind: str, method: str, label: str, rho: float, delta_terms: float,
               delta: float, count: int = 1) -> Release:
        """Check the limits and record a release, in one transaction (call it just before the release's
        first mechanism draws anything). The cost is added to every unit of ``dataset`` when its units
        are registered (:meth:`register`); else it is recorded on the collection only (as schema 1) and
        carried onto its units when they are registered.

        Args:
            kind: "build", "extension" or "dp-rag query". method: e.g. "dp-synrag". label: the output
                folder, or a note (owner-only). count: runs in this release. rho, delta_terms, delta: the
                release's whole cost (its privacy report's ``rho_total``, ``delta_terms`` and ``delta``).

        Raises:
            PrivacyBudgetExceededError: a unit's lifetime ε (stored budget or ``lifetime_epsilon``) or δ
                would be exceeded; nothing recorded (and the caller must draw nothing).
            ConfigError: a negative or NaN cost.
        """
        rho = _check_number("rho", rho, lo=0, lo_open=False)
        delta_terms = _check_number("delta_terms", delta_terms, lo=0, hi=1, lo_open=False)
        delta = _check_number("delta", delta, lo=0, hi=math.inf)
        with self._transaction() as db:
            self._check(db, dataset, rho, delta_terms, delta)
            created = _now()
            applied = self._registered(db, dataset)
            cur = db.execute(
                "INSERT INTO releases (dataset, created, kind, method, label, count, rho, delta_terms, delta, applied) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (dataset, created, kind, method, label, int(count), rho, delta_terms, delta, int(applied)),
            )
            if applied:
                self._add_to_units(db, dataset, rho, delta_terms, delta, 1)
            return Release(cur.lastrowid, dataset, created, kind, method, label, int(count), rho, delta_terms, delta)

    def relabel(self, release_id: int, *, label: str, kind: str | None = None) -> None:
        """Change the owner-only ``label`` (and ``kind``) of a recorded release; its cost never changes."""
        with self._transaction() as db:
            db.execute("UPDATE releases SET label = ?, kind = COALESCE(?, kind) WHERE id = ?", (label, kind, release_id))

    def _check(self, db: sqlite3.Connection, dataset: str, rho: float, delta_terms: float, delta: float) -> None:
        budget = self._budget(db, dataset)
        common = ([] if budget is None else [(budget, "the dataset's lifetime budget (dpsynrag ledger set-budget)")])
        if self.lifetime_epsilon is not None:
            common.append((Budget(self.lifetime_epsilon), "--lifetime-epsilon"))
        if self._registered(db, dataset):
            # one group per distinct spend and budget among the collection's units, the most spent first
            groups = [(r, t, d, n, b, count) for r, t, d, n, *b, count in unit_groups(db, dataset)]
            what = "unit(s)"
        else:  # a collection recorded without its units (schema 1): its own releases, as before
            before = ledger_totals(self._releases(db, dataset), None)
            groups = [(before["rho"], before["delta_terms"], before["delta"], before["releases"], (None,) * 3, 1)]
            what = "collection"
        for rho_b, terms_b, delta_b, releases_b, (b_eps, b_delta, b_conv), count in groups:
            limits = list(common)
            if b_eps is not None:
                limits.insert(0, (Budget(b_eps, b_delta, b_conv), "the lifetime budget of these documents "
                                  "(dpsynrag ledger set-budget)"))
            rho_after, terms_after, delta_after = rho_b + rho, min(1.0, terms_b + delta_terms), delta_b + delta
            for limit, source in limits:
                if limit.delta is not None and delta_after > limit.delta * (1 + _RTOL):
                    why = f"its summed delta to {delta_after:.3g}, above {limit.delta:g}"
                else:
                    eps = lifetime_epsilon(rho_after, terms_after, delta_after, conversion=limit.conversion)
                    if eps <= limit.epsilon * (1 + _RTOL):
                        continue
                    why = (f"its lifetime epsilon to {eps:.4f} ({limit.conversion}, at summed delta "
                           f"{delta_after:.3g}), above {limit.epsilon:g}")
                who = (f"{count} {'document(s) or unit(s)' if what == 'unit(s)' else 'collection'} of dataset "
                       f"{dataset[:12]} ({releases_b} earlier release(s) read {'them' if what == 'unit(s)' else 'it'}, "
                       f"rho={rho_b:.6g})")
                raise PrivacyBudgetExceededError(
                    f"this release (rho={rho:.6g}, delta={delta:.3g}) would take {who} {why} set by {source}. "
                    f"Nothing was drawn or recorded; see `dpsynrag ledger show --ledger {self.directory}`."
                )


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat(timespec="seconds")
