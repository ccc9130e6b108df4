"""The individual privacy filter (Feldman & Zrnic, "Individual Privacy Accounting via a Rényi Filter",
NeurIPS 2021, Alg. 3 and Thm. 4.5), in its zCDP form, for query-time methods whose privacy loss should
grow with how often a document is *used*, not with how many queries are asked (MuRAG, MuRAG-Ada:
:mod:`dpsynrag.baselines.murag`).

**The filter.** Every privacy unit (document) i carries its accumulated individual loss
L_i = Σ_t ρ_t^(i), where ρ_t^(i) is the individual zCDP cost of mechanism t for unit i: the cost of
that mechanism between a collection holding i and the same collection without i, *given everything
released before t*. Before mechanism t runs, a unit whose loss would pass the budget B,
L_i + ρ_t^(i) > B, is dropped from that mechanism's input (it is not retrieved, it does not count);
the others are charged ρ_t^(i). A unit that the mechanism cannot notice (ρ_t^(i) = 0: a document
that the query's public relevance test rejects) is never charged: its loss grows only when it is used.

**Why this is private (proof sketch).** Feldman & Zrnic (Thm. 4.5) show, for one Rényi order α, that
an adaptive composition whose individual RDP losses ε_t^(i)(α) are known before step t (they may
depend on the past outputs and on unit i itself, never on the other units) and which drops i once
Σ_t ε_t^(i)(α) would exceed B(α), is (α, B(α))-RDP for unit i. A ρ-zCDP mechanism has
ε(α) = α ρ at every order α > 1, so a filter on Σ ρ^(i) <= B drops a unit at the same step for every
order: the run is (α, α B)-RDP for all α, i.e. **B-zCDP** for every unit — the guarantee of the whole
session whatever the number of queries, converted to (ε, δ) as any zCDP budget
(:mod:`dpsynrag.privacy.conversions`). The per-unit losses are private (they say which documents were
used); only the budget B, fixed before any document is read, is released.

Units: ρ in zCDP nats; the losses are float64 [n_units].
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from dpsynrag.errors import ConfigError, PrivacyBudgetExceededError
from dpsynrag.privacy.events import ZCDPEvent

_RTOL = 1e-9
"""Relative slack when comparing a loss with the budget (sums of the same terms in another order)."""


class IndividualRenyiFilter:
    """Per-unit zCDP budgets with Feldman–Zrnic filtering (see the module docstring).

    Args:
        num_units: n >= 1, the number of privacy units (their indices are 0 .. n − 1).
        rho_budget: B > 0, the zCDP budget of every unit (nats), fixed before any data is read.
        name: shown in errors and in :meth:`guarantee`.

    Raises:
        ConfigError: a bad ``num_units`` or ``rho_budget``.
    """

    def __init__(self, num_units: int, rho_budget: float, *, name: str = "individual Renyi filter"):
        if isinstance(num_units, bool) or not isinstance(num_units, (int, np.integer)) or num_units < 1:
            raise ConfigError(f"`num_units` must be an integer >= 1. Found {num_units!r}.")
        if isinstance(rho_budget, bool) or not isinstance(rho_budget, (int, float)) or not (0 < rho_budget < math.inf):
            raise ConfigError(f"`rho_budget` must be a finite number > 0. Found {rho_budget!r}.")
        self.num_units = int(num_units)
        self.rho_budget = float(rho_budget)
        self.name = name
        self._loss = np.zeros(self.num_units, dtype=np.float64)  # private: which units were used

    def _units(self, units: Sequence[int] | np.ndarray) -> np.ndarray:
        idx = np.asarray(units, dtype=np.int64).reshape(-1)
        if idx.size and (idx.min() < 0 or idx.max() >= self.num_units):
            raise ConfigError(f"unit indices must lie in 0..{self.num_units - 1}.")
        if np.unique(idx).size != idx.size:
            raise ConfigError("unit indices must be distinct (a unit is charged once per mechanism).")
        return idx

    @staticmethod
    def _costs(rho, n: int) -> np.ndarray:
        costs = np.broadcast_to(np.asarray(rho, dtype=np.float64), (n,)).copy()
        if not np.isfinite(costs).all() or (costs < 0).any():
            raise ConfigError("individual costs `rho` must be finite numbers >= 0.")
        return costs

    def admits(self, units: Sequence[int] | np.ndarray, rho) -> np.ndarray:
        """Which of ``units`` can still pay ``rho`` (a number, or one per unit): L_i + ρ_i <= B.

        Returns:
            bool array, one per unit of ``units``. Changes nothing.
        """
        idx = self._units(units)
        costs = self._costs(rho, idx.size)
        return self._loss[idx] + costs <= self.rho_budget * (1 + _RTOL)

    def active(self, rho: float) -> np.ndarray:
        """Indices of every unit that can still pay ``rho`` (the input of a mechanism that may charge each
        unit up to ``rho``), int64, increasing."""
        return np.flatnonzero(self.admits(np.arange(self.num_units), rho))

    def charge(self, units: Sequence[int] | np.ndarray, rho) -> None:
        """Add ``rho`` (a number, or one per unit) to the loss of each of ``units``, all or nothing.

        Units with ρ_i = 0 are unchanged. Call it for the units a mechanism may notice, with their
        individual costs, *before* it draws (after dropping the units :meth:`admits` refuses).

        Raises:
            PrivacyBudgetExceededError: some unit cannot pay (nothing charged): filter it out first.
            ConfigError: bad indices or costs.
        """
        idx = self._units(units)
        costs = self._costs(rho, idx.size)
        over = self._loss[idx] + costs > self.rho_budget * (1 + _RTOL)
        if over.any():
            raise PrivacyBudgetExceededError(
                f"{int(over.sum())} unit(s) of `{self.name}` cannot pay rho={float(costs[over].max()):.6g} within their "
                f"budget rho={self.rho_budget:.6g}: drop them from the mechanism first. Nothing was charged."
            )
        self._loss[idx] += costs

    def loss(self, unit: int) -> float:
        """The accumulated individual loss of one unit (private: for tests and owner-side diagnostics)."""
        return float(self._loss[self._units([unit])[0]])

    def guarantee(self) -> ZCDPEvent:
        """The session's guarantee as an event: B-zCDP for every unit (Feldman & Zrnic Thm. 4.5 at every
        order), whatever the number of mechanisms run through the filter."""
        return ZCDPEvent(name=f"{self.name} (budget rho={self.rho_budget:.6g} per unit)", rho_value=self.rho_budget)
