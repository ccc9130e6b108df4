"""Recompute a stored privacy report from the mechanisms it lists (issue 15: a corpus never reports
numbers its mechanisms do not give).

A :class:`~dpsynrag.privacy.report.PrivacyReport` stores, for every mechanism, its parameters (σ and
sensitivity, ε of an exponential mechanism, clip c and temperature τ, counts of a composition) *and*
its cost. :func:`verify_report` rebuilds each event from the parameters with the classes of
:mod:`dpsynrag.privacy.events` (so with the same cost formulas the build used), and checks that every
stated ρ and δ term, the totals ``rho_total`` and ``delta_terms``, and ε under both conversions
(:func:`~dpsynrag.privacy.conversions.epsilon_from_rho` at ``delta`` − δ terms) are what the
parameters give. A report edited by hand (ε set to 0.1, a σ changed, a mechanism removed from the
totals) no longer matches and is refused.

This is an integrity check, not an authenticity one: someone who edits the parameters *and* every
derived number consistently describes a different, self-consistent plan.
"""

from __future__ import annotations

import math
from typing import Any

from dpsynrag.errors import ConfigError
from dpsynrag.privacy.conversions import epsilon_from_rho
from dpsynrag.privacy import events as ev

# Relative tolerance between a stored number and its recomputation. The recomputation runs the same
# formulas on the same JSON-round-tripped floats, so they agree to the last bits; 1e-9 only absorbs
# summation order. A hand edit that matters (ε 10 → 0.1, or even 10 → 9.99) is far outside it.
RTOL = 1e-9


class ReportMismatchError(ConfigError):
    """A stored privacy report whose numbers do not follow from the mechanisms it lists."""


def _close(stated: Any, computed: float, rtol: float = RTOL) -> bool:
    if isinstance(stated, bool) or not isinstance(stated, (int, float)) or math.isnan(stated):
        return False
    return math.isclose(float(stated), computed, rel_tol=rtol, abs_tol=1e-300)


def event_from_description(desc: dict[str, Any]) -> ev.PrivacyEvent:
    """The event a :meth:`PrivacyEvent.describe` dictionary was written from.

    Raises:
        ReportMismatchError: an unknown mechanism, a missing or invalid parameter.
    """
    if not isinstance(desc, dict):
        raise ReportMismatchError(f"a mechanism entry is not an object: {type(desc).__name__}.")
    kind, name = desc.get("mechanism"), desc.get("name", "?")
    try:
        if kind in ("gaussian", "discrete_gaussian"):
            cls = ev.GaussianEvent if kind == "gaussian" else ev.DiscreteGaussianEvent
            return cls(name=name, sensitivity=desc["l2_sensitivity"], sigma=desc["sigma"], dimension=desc.get("dimension"))
        if kind == "discrete_gaussian_sparse_histogram":
            return ev.SparseDiscreteGaussianHistogramEvent(
                name=name, max_contributions=desc["max_contributions"], sigma=desc["sigma"], threshold=desc["threshold"]
            )
        if kind == "exponential":
            return ev.ExponentialMechanismEvent(name=name, epsilon=desc["epsilon"])
        if kind == "private_prediction_token":
            return ev.PrivatePredictionTokenEvent(name=name, clip=desc["clip"], temperature=desc["temperature"])
        if kind == "sparse_vector":
            return ev.SparseVectorEvent(name=name, epsilon1=desc["epsilon1"], epsilon2=desc["epsilon2"],
                                        beta=desc["beta"], gap=desc["gap"], grid=desc["grid"])
        if kind == "zcdp":
            return ev.ZCDPEvent(name=name, rho_value=desc["rho"], delta_value=desc.get("delta", 0.0))
        if kind == "self_composition":
            return ev.SelfComposedEvent(event_from_description(desc["event"]), desc["count"], name=name)
        if kind == "composition":
            return ev.ComposedEvent(name=name, events=tuple(event_from_description(e) for e in desc["events"]))
        if kind == "overlapping_parallel_composition":
            return ev.OverlappingParallelEvent(
                name=name, branch=event_from_description(desc["branch"]), num_branches=desc["num_branches"],
                max_branches_per_unit=desc["max_branches_per_unit"],
            )
    except KeyError as exc:
        raise ReportMismatchError(f"mechanism `{name}` ({kind}) lacks its parameter {exc.args[0]!r}.") from None
    except (ConfigError, TypeError) as exc:
        raise ReportMismatchError(f"mechanism `{name}` ({kind}) has an invalid parameter: {exc}") from None
    raise ReportMismatchError(f"mechanism `{name}` has an unknown kind {kind!r}.")


def _check_description(desc: dict[str, Any], event: ev.PrivacyEvent) -> None:
    """Every stated rho / delta (and multiplier) in ``desc`` equals the event's, recursively."""
    for key, value in (("rho", event.rho), ("delta", event.delta)):
        if key in desc and not _close(desc[key], value):
            raise ReportMismatchError(
                f"mechanism `{event.name}` states {key}={desc[key]!r} but its parameters give {key}={value!r}."
            )
    if isinstance(event, ev.OverlappingParallelEvent):
        if desc.get("multiplier", event.multiplier) != event.multiplier:
            raise ReportMismatchError(
                f"mechanism `{event.name}` states multiplier {desc.get('multiplier')!r}; min(L, branches) is {event.multiplier}."
            )
        _check_description(desc["branch"], event.branch)
    elif isinstance(event, ev.SelfComposedEvent):
        _check_description(desc["event"], event.event)
    elif isinstance(event, ev.ComposedEvent):
        for sub_desc, sub in zip(desc["events"], event.events):
            _check_description(sub_desc, sub)


def recompute_totals(report: dict[str, Any]) -> dict[str, float]:
    """The totals a stored report's mechanisms give: ``rho_total`` (sum of ρ, zCDP sequential
    composition), ``delta_terms`` (sum of approximate-zCDP δ terms, capped at 1), and at the report's
    ``delta``: ``epsilon`` (Bun–Steinke) and ``epsilon_tight`` (CKS).

    Raises:
        ReportMismatchError: an unknown or invalid mechanism, or a ``delta`` that does not exceed the δ
            terms.
    """
    mechanisms = report.get("mechanisms")
    if not isinstance(mechanisms, list) or not mechanisms:
        raise ReportMismatchError("the privacy report lists no mechanism.")
    events = [event_from_description(d) for d in mechanisms]
    for d, e in zip(mechanisms, events):
        _check_description(d, e)
    rho = sum(e.rho for e in events)
    delta_terms = min(1.0, sum(e.delta for e in events))
    delta = report.get("delta")
    if isinstance(delta, bool) or not isinstance(delta, (int, float)) or not (delta_terms < delta < 1):
        raise ReportMismatchError(f"the report's delta {delta!r} must lie in (delta terms {delta_terms:.3g}, 1).")
    return {
        "rho_total": rho,
        "delta_terms": delta_terms,
        "epsilon": epsilon_from_rho(rho, delta - delta_terms, conversion="bun-steinke"),
        "epsilon_tight": epsilon_from_rho(rho, delta - delta_terms, conversion="cks"),
    }


def verify_report(report: dict[str, Any]) -> dict[str, float]:
    """Check that a stored privacy report's totals follow from its mechanisms (:func:`recompute_totals`).

    Returns:
        The recomputed totals.

    Raises:
        ReportMismatchError: a stated number differs from its recomputation (the message names it, with
            both values), or a mechanism cannot be rebuilt.
    """
    if not isinstance(report, dict):
        raise ReportMismatchError("the privacy report is not an object.")
    totals = recompute_totals(report)
    for key, value in totals.items():
        # ε goes through a root search (CKS): allow its tolerance, still far below any edit that matters
        if not _close(report.get(key), value, rtol=RTOL if key in ("rho_total", "delta_terms") else 1e-7):
            raise ReportMismatchError(
                f"the privacy report states {key}={report.get(key)!r} but its mechanisms give {key}={value!r}."
            )
    return totals
