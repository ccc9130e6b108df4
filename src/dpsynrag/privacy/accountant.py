"""The zCDP accountant: a ledger of privacy events with an optional budget.

Usage pattern of a build (plan, pay, run):

1. ``accountant = ZCDPAccountant(rho_budget=..., delta_budget=...)``.
2. Sequential mechanisms compose their event *before* drawing noise (the mechanism functions in
   :mod:`dpsynrag.privacy.mechanisms` do this themselves): ``accountant.compose(event)``.
3. Parallel branches (one per cluster) are paid up front with
   ``parallel = accountant.open_parallel(branch_plan, num_branches=R, max_branches_per_unit=L)``,
   which charges min(L, R) × cost(branch_plan); each branch then gets its own accountant
   ``parallel.branch(r)`` whose budget is the plan's cost, so no branch can spend more than was paid.

Every ``compose`` validates fully and checks the budget before it changes any state, and raises
:class:`~dpsynrag.errors.PrivacyBudgetExceededError` when the budget would be exceeded.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from dpsynrag.errors import ConfigError, PrivacyBudgetExceededError, UnsupportedEventError
from dpsynrag.privacy.conversions import Conversion, epsilon_from_rho
from dpsynrag.privacy.events import OverlappingParallelEvent, PrivacyEvent, SelfComposedEvent

# Relative slack when comparing spent and budgeted rho: floating-point sums of the same terms in
# another order differ by a few ulps; 1e-9 relative is far below any meaningful privacy difference.
_BUDGET_RTOL = 1e-9


@dataclass(frozen=True)
class LedgerEntry:
    """One composed event."""

    event: PrivacyEvent

    @property
    def rho(self) -> float:
        return self.event.rho

    @property
    def delta(self) -> float:
        return self.event.delta


class ZCDPAccountant:
    """Sequential zCDP composition with δ terms (approximate zCDP) and an optional budget.

    Args:
        rho_budget: the most rho (nats) this accountant may spend; None for no limit.
        delta_budget: the most total δ-term it may spend; None for no limit.
        name: shown in errors and reports.

    Raises:
        ConfigError: on a negative or NaN budget.
    """

    def __init__(self, *, rho_budget: float | None = None, delta_budget: float | None = None, name: str = "build"):
        for label, value in (("rho_budget", rho_budget), ("delta_budget", delta_budget)):
            if value is not None and (
                isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value) or value < 0
            ):
                raise ConfigError(f"`{label}` must be a number >= 0 or None. Found {value!r}.")
        self.rho_budget = rho_budget
        self.delta_budget = delta_budget
        self.name = name
        self._entries: list[LedgerEntry] = []
        self._rho = 0.0
        self._delta = 0.0

    @property
    def rho(self) -> float:
        """zCDP spent so far (nats)."""
        return self._rho

    @property
    def delta(self) -> float:
        """Sum of the approximate-zCDP δ terms spent so far."""
        return self._delta

    @property
    def ledger(self) -> tuple[LedgerEntry, ...]:
        """The composed events, in order (a copy)."""
        return tuple(self._entries)

    def check(self, event: PrivacyEvent) -> tuple[float, float]:
        """Validate ``event`` and check it fits the budget; returns the (rho, delta) totals after it.

        Changes nothing.

        Raises:
            PrivacyBudgetExceededError, UnsupportedEventError, ConfigError: as ``compose``.
        """
        if not isinstance(event, PrivacyEvent):
            raise UnsupportedEventError(
                f"`event` must be a PrivacyEvent from dpsynrag.privacy.events. Found {type(event).__name__}."
            )
        rho, delta = event.rho, event.delta
        if not (math.isfinite(rho) and rho >= 0) or not (0 <= delta <= 1):
            raise ConfigError(f"event `{event.name}` has an invalid cost (rho={rho!r}, delta={delta!r}).")
        new_rho, new_delta = self._rho + rho, self._delta + delta
        if self.rho_budget is not None and new_rho > self.rho_budget * (1 + _BUDGET_RTOL):
            raise PrivacyBudgetExceededError(
                f"composing `{event.name}` (rho={rho:.6g}) would spend rho={new_rho:.6g} in accountant "
                f"`{self.name}`, above its budget rho={self.rho_budget:.6g}. Nothing was released."
            )
        if self.delta_budget is not None and new_delta > self.delta_budget * (1 + _BUDGET_RTOL):
            raise PrivacyBudgetExceededError(
                f"composing `{event.name}` (delta={delta:.3g}) would spend delta={new_delta:.3g} in accountant "
                f"`{self.name}`, above its budget delta={self.delta_budget:.3g}. Nothing was released."
            )
        return new_rho, new_delta

    def can_compose(self, event: PrivacyEvent, count: int = 1) -> bool:
        """Whether ``compose(event, count)`` would succeed. Changes nothing."""
        try:
            self.check(event if count == 1 else SelfComposedEvent(event, count))
        except (PrivacyBudgetExceededError, ConfigError, UnsupportedEventError):
            return False
        return True

    def compose(self, event: PrivacyEvent, count: int = 1) -> "ZCDPAccountant":
        """Record ``count`` sequential runs of ``event``; returns self so calls chain.

        Raises:
            PrivacyBudgetExceededError: if the budget would be exceeded (state unchanged).
            UnsupportedEventError: if ``event`` is not a PrivacyEvent.
            ConfigError: on a bad ``count`` or an event with an invalid cost.
        """
        if count != 1:
            event = SelfComposedEvent(event, count)
        new_rho, new_delta = self.check(event)
        self._entries.append(LedgerEntry(event))
        self._rho, self._delta = new_rho, new_delta
        return self

    def open_parallel(
        self, branch_plan: PrivacyEvent, *, num_branches: int, max_branches_per_unit: int, name: str = "clusters"
    ) -> "ParallelComposition":
        """Pay for ``num_branches`` parallel branches up front (overlapping parallel composition).

        Args:
            branch_plan: the event every branch may spend at most (e.g. the composition of one
                cluster's embedding mean, threshold and T tokens).
            num_branches: number of branches (clusters), R.
            max_branches_per_unit: the most branches any unit is in, L. The caller must guarantee it
                and that membership depends only on the unit and public data.

        Returns:
            A :class:`ParallelComposition` whose ``branch(i)`` accountants enforce ``branch_plan``'s cost.

        Raises:
            PrivacyBudgetExceededError: if min(L, R) × cost(branch_plan) does not fit (nothing spent).
        """
        event = OverlappingParallelEvent(
            name=name, branch=branch_plan, num_branches=num_branches, max_branches_per_unit=max_branches_per_unit
        )
        self.compose(event)
        return ParallelComposition(event)

    def epsilon(self, delta: float, *, conversion: Conversion = "bun-steinke") -> float:
        """ε of everything composed so far, at total δ = ``delta``.

        The approximate-zCDP δ terms are subtracted first: ρ converts at δ − (δ terms).

        Raises:
            ConfigError: if ``delta`` does not exceed the δ terms already spent.
        """
        if not (0.0 < delta < 1.0):
            raise ConfigError(f"`delta` must lie strictly between 0 and 1. Found {delta!r}.")
        if delta <= self._delta:
            raise ConfigError(
                f"`delta`={delta:.3g} must exceed the δ terms already spent ({self._delta:.3g}) by the mechanisms."
            )
        return epsilon_from_rho(self._rho, delta - self._delta, conversion=conversion)


class ParallelComposition:
    """Branch accountants of a paid overlapping parallel composition (see ``open_parallel``)."""

    def __init__(self, event: OverlappingParallelEvent):
        self.event = event
        self._branches: dict[int, ZCDPAccountant] = {}

    def branch(self, index: int) -> ZCDPAccountant:
        """The accountant of branch ``index`` (0 ≤ index < num_branches), budget = cost of the plan.

        Raises:
            ConfigError: if ``index`` is out of range.
        """
        if isinstance(index, bool) or not isinstance(index, int) or not (0 <= index < self.event.num_branches):
            raise ConfigError(f"`index` must be an integer in [0, {self.event.num_branches}). Found {index!r}.")
        if index not in self._branches:
            plan = self.event.branch
            self._branches[index] = ZCDPAccountant(
                rho_budget=plan.rho, delta_budget=plan.delta, name=f"{self.event.name}[{index}]"
            )
        return self._branches[index]

    def max_branch_rho(self) -> float:
        """The most any branch has spent so far (≤ the plan's rho)."""
        return max((b.rho for b in self._branches.values()), default=0.0)
