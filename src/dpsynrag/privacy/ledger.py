"""A persistent privacy-budget ledger per dataset (issue 15, part 2).

Every corpus build and every DP-RAG query on a dataset releases something about it; the privacy
report of one release covers that release only. This ledger — an SQLite file ``ledger.sqlite`` in a
folder (``--ledger DIR``; default :func:`default_ledger_dir`) — records each release's zCDP cost under
the dataset's fingerprint (:func:`dataset_fingerprint`), across processes and sessions, and can
refuse a release that would take the dataset over a lifetime budget **before anything is drawn**.

Composition (Bun & Steinke 2016, Lemma 2.3; approximate zCDP): releases on one dataset compose by
adding ρ and adding their approximate-zCDP δ terms; the ledger also adds the releases' own δ's and
states the lifetime guarantee at that summed δ: ε = conv(Σρ, Σδ − Σδ-terms), under the Bun–Steinke
(paper) and the tight CKS conversion (:mod:`dpsynrag.privacy.conversions`). The sum is ≥ Σδ-terms, so
the conversion is always valid; when Σδ ≥ 1 nothing is guaranteed (ε = inf).

A lifetime budget (ε_L, optionally δ_L, a conversion) is stored per dataset
(:meth:`PrivacyLedger.set_budget`, ``dpsynrag ledger set-budget``); a ledger opened with
``lifetime_epsilon`` (``--lifetime-epsilon``) adds that limit for its own releases. A release is
refused when, after it, ε under the budget's conversion would exceed a limit, or Σδ would exceed δ_L
(or reach 1 under a limit). The check and the insert run in one ``BEGIN IMMEDIATE`` transaction, so
concurrent builds and query sessions never overspend together.

The ledger is owner-only (folder 0700, file 0600): it holds fingerprints of private collections,
times and output folders. A release is recorded when its first mechanism is about to run; a release
that fails after that stays recorded (noise may have been drawn: conservative).
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import hashlib
import math
import os
import sqlite3
import sys
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from dpsynrag.errors import ConfigError, PrivacyBudgetExceededError
from dpsynrag.privacy.conversions import CONVERSIONS, epsilon_from_rho

LEDGER_ENV = "DPSYNRAG_LEDGER"
LEDGER_FILE = "ledger.sqlite"
SCHEMA_VERSION = 1
_RTOL = 1e-9  # as the accountant: summation order only

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


def dataset_fingerprint(documents: Sequence[Any]) -> str:
    """SHA-256 (hex) identifying a private collection in the ledger.

    Computed over the documents' texts (not ids, field names or file format), as the sorted multiset
    of each text's SHA-256: the same collection read from JSONL or CSV, in any order, with any ids, is
    one dataset. (A subset or an edited copy is another fingerprint: the ledger cannot tell that two
    collections share documents.)

    Args:
        documents: :class:`~dpsynrag.data.io.Document` objects (their ``text``; a text cut at read time by
            its whole text's digest, ``text_sha256``, so the cut never changes the fingerprint) or strings.
    """
    digests = sorted(getattr(d, "text_sha256", None) or hashlib.sha256(getattr(d, "text", d).encode("utf-8")).digest()
                     for d in documents)
    h = hashlib.sha256(b"dpsynrag-dataset-v1\x00")
    for d in digests:
        h.update(d)
    return h.hexdigest()


@dataclass(frozen=True)
class Release:
    """One recorded release: ``count`` runs (a build: 1; a DP-RAG call: its questions) costing ``rho``
    (zCDP, nats), ``delta_terms`` (approximate-zCDP δ terms) and ``delta`` (their own δ), in total."""

    id: int
    dataset: str
    created: str
    kind: str
    method: str
    label: str
    count: int
    rho: float
    delta_terms: float
    delta: float


@dataclass(frozen=True)
class Budget:
    """A dataset's lifetime budget: ε at most ``epsilon`` under ``conversion``; Σδ at most ``delta``."""

    epsilon: float
    delta: float | None = None
    conversion: str = "bun-steinke"


def lifetime_epsilon(rho: float, delta_terms: float, delta: float, *, conversion: str = "bun-steinke") -> float:
    """ε of a dataset's composed releases: conv(ρ, δ − δ-terms); inf when δ >= 1 or ρ > 0 with no room."""
    if rho == 0:
        return 0.0
    if not (delta < 1.0) or delta <= delta_terms:
        return math.inf
    return epsilon_from_rho(rho, delta - delta_terms, conversion=conversion)


def _check_number(name: str, value, *, lo: float, hi: float = math.inf, lo_open: bool = True) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
        raise ConfigError(f"`{name}` must be a number. Found {value!r}.")
    if value < lo or (lo_open and value == lo) or not value < hi:
        raise ConfigError(f"`{name}` must lie in {'(' if lo_open else '['}{lo:g}, {hi:g}). Found {value!r}.")
    return float(value)


class PrivacyLedger:
    """The SQLite ledger in ``directory`` (created owner-only if missing).

    Args:
        directory: the folder of ``ledger.sqlite``; None: :func:`default_ledger_dir`.
        lifetime_epsilon: an extra limit (``--lifetime-epsilon``) on the lifetime ε of every dataset this
            object records a release for, checked under the Bun–Steinke conversion together with the
            dataset's stored budget; not stored.

    Raises:
        ConfigError: the folder cannot be created, is not a ledger, or ``lifetime_epsilon`` <= 0.
    """

    def __init__(self, directory: str | os.PathLike | None = None, *, lifetime_epsilon: float | None = None):
        self.directory = Path(directory).expanduser() if directory is not None else default_ledger_dir()
        self.lifetime_epsilon = (
            None if lifetime_epsilon is None else _check_number("lifetime_epsilon (--lifetime-epsilon)", lifetime_epsilon, lo=0)
        )
        self.path = self.directory / LEDGER_FILE
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
            if row is None:
                db.execute("INSERT INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
            elif row[0] != str(SCHEMA_VERSION):
                raise ConfigError(f"the privacy ledger {self.path} has schema {row[0]}; this dpsynrag reads {SCHEMA_VERSION}.")

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

    # -- reading --------------------------------------------------------------------------------------

    def releases(self, dataset: str | None = None) -> list[Release]:
        """Recorded releases, oldest first (of ``dataset`` only when given)."""
        with self._transaction() as db:
            return self._releases(db, dataset)

    @staticmethod
    def _releases(db: sqlite3.Connection, dataset: str | None) -> list[Release]:
        cols = "id, dataset, created, kind, method, label, count, rho, delta_terms, delta"
        rows = (db.execute(f"SELECT {cols} FROM releases ORDER BY id") if dataset is None
                else db.execute(f"SELECT {cols} FROM releases WHERE dataset = ? ORDER BY id", (dataset,)))
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
        """The composed spend of ``dataset``: ``releases``, ``rho`` (Σρ), ``delta_terms``, ``delta`` (Σδ),
        ``epsilon`` (Bun–Steinke) and ``epsilon_tight`` (CKS) at Σδ (:func:`lifetime_epsilon`), and the
        ``budget`` (a dict or None)."""
        with self._transaction() as db:
            rel = self._releases(db, dataset)
            budget = self._budget(db, dataset)
        return _totals(rel, budget)

    # -- writing --------------------------------------------------------------------------------------

    def set_budget(self, dataset: str, epsilon: float, *, delta: float | None = None,
                   conversion: str = "bun-steinke") -> Budget:
        """Store (or replace) ``dataset``'s lifetime budget. Releases already recorded stay recorded;
        a budget below them refuses every further release.

        Raises:
            ConfigError: ``epsilon`` <= 0, ``delta`` outside (0, 1), an unknown conversion.
        """
        epsilon = _check_number("epsilon (--epsilon)", epsilon, lo=0)
        delta = None if delta is None else _check_number("delta (--delta)", delta, lo=0, hi=1)
        if conversion not in CONVERSIONS:
            raise ConfigError(f"`conversion` (--conversion) must be one of {CONVERSIONS}. Found {conversion!r}.")
        with self._transaction() as db:
            db.execute("INSERT OR REPLACE INTO budgets VALUES (?, ?, ?, ?, ?)", (dataset, epsilon, delta, conversion, _now()))
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
        first mechanism draws anything).

        Args:
            kind: "build" or "dp-rag query". method: e.g. "dp-synrag". label: the output folder, or a
                note (owner-only). count: runs in this release. rho, delta_terms, delta: the release's
                whole cost (its privacy report's ``rho_total``, ``delta_terms`` and ``delta``).

        Raises:
            PrivacyBudgetExceededError: the dataset's lifetime ε (stored budget or ``lifetime_epsilon``)
                or δ would be exceeded; nothing recorded (and the caller must draw nothing).
            ConfigError: a negative or NaN cost.
        """
        rho = _check_number("rho", rho, lo=0, lo_open=False)
        delta_terms = _check_number("delta_terms", delta_terms, lo=0, hi=1, lo_open=False)
        delta = _check_number("delta", delta, lo=0, hi=math.inf)
        with self._transaction() as db:
            self._check(db, dataset, rho, delta_terms, delta)
            created = _now()
            cur = db.execute(
                "INSERT INTO releases (dataset, created, kind, method, label, count, rho, delta_terms, delta) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (dataset, created, kind, method, label, int(count), rho, delta_terms, delta),
            )
            return Release(cur.lastrowid, dataset, created, kind, method, label, int(count), rho, delta_terms, delta)

    def _check(self, db: sqlite3.Connection, dataset: str, rho: float, delta_terms: float, delta: float) -> None:
        before = _totals(self._releases(db, dataset), None)
        budget = self._budget(db, dataset)
        limits = ([] if budget is None else [(budget, "the dataset's lifetime budget (dpsynrag ledger set-budget)")])
        if self.lifetime_epsilon is not None:
            limits.append((Budget(self.lifetime_epsilon), "--lifetime-epsilon"))
        if not limits:
            return
        rho_after, terms_after, delta_after = before["rho"] + rho, before["delta_terms"] + delta_terms, before["delta"] + delta
        for limit, source in limits:
            if limit.delta is not None and delta_after > limit.delta * (1 + _RTOL):
                why = f"its summed delta to {delta_after:.3g}, above {limit.delta:g}"
            else:
                eps = lifetime_epsilon(rho_after, terms_after, delta_after, conversion=limit.conversion)
                if eps <= limit.epsilon * (1 + _RTOL):
                    continue
                why = f"its lifetime epsilon to {eps:.4f} ({limit.conversion}, at summed delta {delta_after:.3g}), above {limit.epsilon:g}"
            raise PrivacyBudgetExceededError(
                f"this release (rho={rho:.6g}, delta={delta:.3g}) would take dataset {dataset[:12]} ({before['releases']} "
                f"earlier release(s), rho={before['rho']:.6g}) {why} set by {source}. Nothing was drawn or recorded; "
                f"see `dpsynrag ledger show --ledger {self.directory}`."
            )


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat(timespec="seconds")


def _totals(releases: Sequence[Release], budget: Budget | None) -> dict[str, Any]:
    rho = math.fsum(r.rho for r in releases)
    terms = min(1.0, math.fsum(r.delta_terms for r in releases))
    delta = math.fsum(r.delta for r in releases)
    return {
        "releases": len(releases),
        "rho": rho,
        "delta_terms": terms,
        "delta": delta,
        "epsilon": lifetime_epsilon(rho, terms, delta, conversion="bun-steinke"),
        "epsilon_tight": lifetime_epsilon(rho, terms, delta, conversion="cks"),
        "budget": None if budget is None else asdict(budget),
    }


class PendingCharge:
    """A release checked against the ledger (:func:`prepare_charge`) and recorded by :meth:`commit`
    just before its first mechanism runs. Without a ledger both are no-ops."""

    def __init__(self, ledger: PrivacyLedger | None, dataset: str | None, **release: Any):
        self.ledger, self.dataset, self.release = ledger, dataset, release
        self.recorded: Release | None = None

    def commit(self) -> Release | None:
        """Check again and record, atomically (raises PrivacyBudgetExceededError: then draw nothing)."""
        if self.ledger is not None and self.recorded is None:
            self.recorded = self.ledger.record(self.dataset, **self.release)
        return self.recorded


def prepare_charge(ledger: PrivacyLedger | None, documents: Sequence[Any], plan, *, delta: float, kind: str,
                   method: str, label: str, count: int = 1) -> PendingCharge:
    """Check a planned release against ``ledger`` now (fail early, before any model is loaded) and
    return the :class:`PendingCharge` to :meth:`~PendingCharge.commit` before the first draw.

    Args:
        ledger: None: nothing is checked or recorded.
        documents: the private collection (its :func:`dataset_fingerprint`).
        plan: the release's :class:`~dpsynrag.privacy.events.PrivacyEvent` (its guarantee, fixed before
            any data is read): its ρ and δ terms are charged. delta: the release's total δ.

    Raises:
        PrivacyBudgetExceededError: the release would exceed a lifetime limit.
    """
    if ledger is None:
        return PendingCharge(None, None)
    dataset = dataset_fingerprint(documents)
    cost = {"rho": float(plan.rho), "delta_terms": float(plan.delta), "delta": float(delta)}
    ledger.check(dataset, **cost)
    return PendingCharge(ledger, dataset, kind=kind, method=method, label=label, count=count, **cost)
