"""Charging a release to the privacy-budget ledger (:mod:`dpsynrag.privacy.ledger`): checked before any
model loads, recorded just before the first draw."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dpsynrag.privacy.ledger import PrivacyLedger
from dpsynrag.privacy.lifetime import Release


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
    """
    if ledger is None:
        return PendingCharge(None, None)
    dataset = ledger.register(documents, unit_ids=unit_ids)
    cost = {"rho": float(plan.rho), "delta_terms": float(plan.delta), "delta": float(delta)}
    ledger.check(dataset, **cost)
    return PendingCharge(ledger, dataset, kind=kind, method=method, label=label, count=count, **cost)
