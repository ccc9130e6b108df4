"""Charging a release to the privacy-budget ledger (:mod:`dpsynrag.privacy.ledger`): checked before any
model loads, recorded just before the first draw. A release that reads documents (or persons) earlier
releases already read is a *re-release*: :func:`prepare_charge` describes it (:class:`Rerelease`) to the
ledger's ``on_rerelease`` before anything is recorded (``dpsynrag build`` asks there, issue 43)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from dpsynrag.privacy.ledger import PrivacyLedger
from dpsynrag.privacy.lifetime import Release, lifetime_epsilon


@dataclass(frozen=True)
class Rerelease:
    """A planned release on units that earlier releases already read (owner-only facts of the ledger).

    Attributes:
        dataset: the collection's fingerprint. unit_kind: "document" or "unit" (a person, with
        ``--privacy-unit-field``). units: the collection's units. released: how many of them earlier
        releases read (>= 1). releases: the most earlier releases on one unit. epsilon_now: the lifetime ε
        of the most-spent unit before this release; epsilon_after: the most-spent unit's after it (both
        Bun–Steinke at the unit's summed δ; inf when that δ reaches 1). delta_after: that unit's summed δ
        after it. sources: the input paths those earlier releases read them from (:meth:`PrivacyLedger.release_sources`).
    """

    dataset: str
    unit_kind: str
    units: int
    released: int
    releases: int
    epsilon_now: float
    epsilon_after: float
    delta_after: float
    sources: tuple[str, ...]


def find_rerelease(ledger: PrivacyLedger, dataset: str, *, rho: float, delta_terms: float,
                   delta: float) -> Rerelease | None:
    """The :class:`Rerelease` a release of this cost (ρ, δ terms, δ) on registered ``dataset`` would be, or
    None when no unit of it has a release yet (or its units were never registered)."""
    spends = ledger.unit_spends(dataset)
    earlier = [g for g in spends if g[3] > 0]
    if not earlier:
        return None
    now = max(lifetime_epsilon(r, min(1.0, t), d) for r, t, d, _, _ in earlier)
    after = max(((lifetime_epsilon(r + rho, min(1.0, t + delta_terms), d + delta), d + delta)
                 for r, t, d, _, _ in spends), key=lambda a: (a[0], a[1]))
    kind = (ledger.unit_totals(dataset) or {}).get("unit_kind", "document")
    return Rerelease(dataset, kind, sum(g[4] for g in spends), sum(g[4] for g in earlier), max(g[3] for g in earlier),
                     now, after[0], after[1], tuple(ledger.release_sources(dataset)))


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
                   method: str, label: str, count: int = 1, unit_ids: Sequence[Any] | None = None) -> PendingCharge:
    """Check a planned release against ``ledger`` now (fail early, before any model is loaded) and
    return the :class:`PendingCharge` to :meth:`~PendingCharge.commit` before the first draw.

    Args:
        ledger: None: nothing is checked or recorded.
        documents: the private collection: its units are registered (:meth:`PrivacyLedger.register`)
            and the release is charged to each of them.
        plan: the release's :class:`~dpsynrag.privacy.events.PrivacyEvent` (its guarantee, fixed before
            any data is read): its ρ and δ terms are charged. delta: the release's total δ.
        unit_ids: one privacy-unit key per document (None: the documents' ``unit``, else each document
            is its own unit; :func:`~dpsynrag.privacy.fingerprints.unit_fingerprints`).

    Raises:
        PrivacyBudgetExceededError: the release would exceed a lifetime limit.
        Whatever ``ledger.on_rerelease`` raises: called with the :class:`Rerelease` when units of the
        collection already have releases (after the limits are checked, before anything is recorded).
    """
    if ledger is None:
        return PendingCharge(None, None)
    dataset = ledger.register(documents, unit_ids=unit_ids)
    cost = {"rho": float(plan.rho), "delta_terms": float(plan.delta), "delta": float(delta)}
    ledger.check(dataset, **cost)
    if ledger.on_rerelease is not None:
        found = find_rerelease(ledger, dataset, rho=cost["rho"], delta_terms=cost["delta_terms"], delta=cost["delta"])
        if found is not None:
            ledger.on_rerelease(found)
    return PendingCharge(ledger, dataset, kind=kind, method=method, label=label, count=count, **cost)
