"""What the privacy-budget ledger (:mod:`dpsynrag.privacy.ledger`) records: releases and lifetime
budgets, and the lifetime ε of composed releases (Bun & Steinke 2016, Lemma 2.3: ρ and δ terms add)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from dpsynrag.privacy.conversions import epsilon_from_rho


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


def ledger_totals(releases: Sequence[Release], budget: Budget | None) -> dict[str, Any]:
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
