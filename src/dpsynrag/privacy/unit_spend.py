"""What the privacy-budget ledger's units have spent (:mod:`dpsynrag.privacy.ledger`): reads of its
``units`` and ``dataset_units`` tables, grouped by spend, inside the caller's transaction.

A unit's lifetime guarantee is ε = conv(Σρ, Σδ − Σδ-terms) over every release that read it, under any
collection (Bun & Steinke 2016, Lemma 2.3; :func:`~dpsynrag.privacy.lifetime.lifetime_epsilon`).
"""

from __future__ import annotations

import math
import sqlite3
from typing import Any

from dpsynrag.privacy.lifetime import lifetime_epsilon
from dpsynrag.privacy.persons import count_persons

RTOL = 1e-9  # as the accountant: summation order only


def unit_groups(db: sqlite3.Connection, dataset: str | None) -> list[tuple]:
    """``(rho, delta_terms, delta, releases, budget_epsilon, budget_delta, budget_conversion, count)``
    groups of the units of ``dataset`` (None: all units), the most spent ρ first."""
    cols = "u.rho, u.delta_terms, u.delta, u.releases, u.budget_epsilon, u.budget_delta, u.budget_conversion"
    if dataset is None:
        return db.execute(f"SELECT {cols}, COUNT(*) FROM units u GROUP BY 1, 2, 3, 4, 5, 6, 7 "
                          "ORDER BY 1 DESC").fetchall()
    return db.execute(f"SELECT {cols}, COUNT(*) FROM dataset_units du JOIN units u ON u.unit = du.unit "
                      "WHERE du.dataset = ? GROUP BY 1, 2, 3, 4, 5, 6, 7 ORDER BY 1 DESC", (dataset,)).fetchall()


def spend_groups(db: sqlite3.Connection, dataset: str) -> list[dict[str, Any]]:
    """How many units of ``dataset`` have spent each lifetime amount, the most spent first (as
    :meth:`~dpsynrag.privacy.ledger.PrivacyLedger.unit_spend`)."""
    return [{"epsilon": lifetime_epsilon(rho, min(1.0, terms), delta),
             "epsilon_tight": lifetime_epsilon(rho, min(1.0, terms), delta, conversion="cks"),
             "rho": rho, "releases": rel, "units": n} for rho, terms, delta, rel, _, _, _, n in unit_groups(db, dataset)]


def most_spent_unit(db: sqlite3.Connection, dataset: str | None) -> dict[str, Any] | None:
    """The most-spent unit of ``dataset`` (None: of the whole ledger), as
    :meth:`~dpsynrag.privacy.ledger.PrivacyLedger.unit_totals` returns it; None when no unit is recorded."""
    groups = unit_groups(db, dataset)
    if not groups:
        return None
    spent = [(lifetime_epsilon(rho, min(1.0, terms), delta), rho, terms, delta, rel, n)
             for rho, terms, delta, rel, _, _, _, n in groups]
    eps, rho, terms, delta, rel, _ = max(spent, key=lambda g: (g[0], g[1]))
    at_max = sum(g[5] for g in spent if (g[0] == eps if math.isinf(eps) else math.isclose(g[0], eps, rel_tol=RTOL))
                 and math.isclose(g[1], rho, rel_tol=RTOL, abs_tol=1e-300))
    if dataset is None:
        kinds = {k for (k,) in db.execute("SELECT DISTINCT unit_kind FROM datasets")}
    else:
        kinds = {k for (k,) in db.execute("SELECT unit_kind FROM datasets WHERE dataset = ?", (dataset,))}
    return {
        "units": sum(g[5] for g in spent),
        "unit_kind": kinds.pop() if len(kinds) == 1 else "document or unit",
        "max": {"rho": rho, "delta_terms": min(1.0, terms), "delta": delta, "releases": rel, "epsilon": eps,
                "epsilon_tight": lifetime_epsilon(rho, min(1.0, terms), delta, conversion="cks")},
        "at_max": at_max,
        **dict(zip(("persons", "persons_at_max"), count_persons(db, dataset, eps, rho, RTOL))),
    }
