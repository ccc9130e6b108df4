"""The privacy report: what was spent where, and the resulting (ε, δ) guarantee.

Built from the run's **plan** — the composition fixed before any data is read — and checked against
the accountant's ledger; serialisable to JSON (for manifests and auditors) and printable as a table. ε
is given under both conversions (Bun–Steinke, as the paper, and the tight CKS one).

The guarantee is the plan, never the realised spend: when a run spends less than planned because of a
DP output (e.g. the open-vocabulary histogram releases fewer keywords than L, so fewer clusters are
paid for), that smaller spend depends on the private data, and claiming it would overstate the
protection (the guarantee of a privacy filter is its budget fixed in advance). It is shown only under
``realised_spend``, labelled "realised spend (not the guarantee)".
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

from rich.table import Table

from dpsynrag.errors import ConfigError
from dpsynrag.privacy.accountant import ZCDPAccountant
from dpsynrag.privacy.events import ComposedEvent, PrivacyEvent

NEIGHBOURING_RELATION = "add/remove one document (privacy unit = one document)"

WEAK_EPSILON = 20.0
"""Above this ε (Bun–Steinke) a guarantee is too weak to mean much: e^20 ≈ 5e8 is the factor by which one
document may change an output's odds. The paper's experiments use ε = 10 (METHOD.md §5-6). A warning, never
a refusal."""


def weak_epsilon_note(epsilon: float) -> str | None:
    """The warning a report carries when ``epsilon`` exceeds :data:`WEAK_EPSILON`; None otherwise."""
    if epsilon <= WEAK_EPSILON:
        return None
    return (f"epsilon={epsilon:.4g} is above {WEAK_EPSILON:g}: the guarantee is too weak to mean much (one document "
            f"may change an output's odds by up to e^{epsilon:.4g}); the paper uses epsilon=10.")


def neighbouring_relation(unit_field: str | None = None) -> str:
    """The neighbouring relation of a run: :data:`NEIGHBOURING_RELATION` (``unit_field`` None), or add/remove
    all documents of one person, the documents sharing one value of ``unit_field`` (``--privacy-unit-field``;
    :mod:`dpsynrag.pipeline.units`)."""
    if unit_field is None:
        return NEIGHBOURING_RELATION
    return f"add/remove all documents of one person (privacy unit = per person ({unit_field}))"


def _composition(unit_field: str | None) -> str:
    who = "document" if unit_field is None else f"person ({unit_field})"
    return ("zCDP: sequential composition adds rho; clusters use overlapping parallel composition "
            f"(each {who} in at most L clusters, membership depending only on that {who} and the "
            "public keywords) and cost min(L, R) x the most a cluster may spend; approximate-zCDP delta "
            "terms add to delta.")
REALISED_LABEL = "realised spend (not the guarantee)"
# Relative slack when checking that a ledger fits its plan (sums of the same terms in another order).
_PLAN_RTOL = 1e-9


@dataclass(frozen=True)
class PrivacyReport:
    """A JSON-ready account of a run's privacy.

    Attributes:
        rho_total: zCDP of the guarantee (nats): the plan's.
        delta_terms: approximate-zCDP δ terms of the plan (e.g. the open-vocabulary histogram).
        delta: the total δ of the guarantee (δ terms included).
        epsilon: ε at ``delta`` with the Bun–Steinke conversion (the paper's).
        epsilon_tight: ε at ``delta`` with the Canonne–Kamath–Steinke conversion (smaller, also valid).
        mechanisms: the plan, one nested description per composed event.
        parameters: calibrated parameters (σ's, ε_θ, c, ...), when the run was calibrated.
        secure_randomness: whether noise came from the OS's secure generator (False: seeded, not for release).
        realised_spend: only when the run spent less than its plan: ``label`` (:data:`REALISED_LABEL`),
            ``rho``, ``delta_terms``, ``epsilon``, ``epsilon_tight`` and ``mechanisms`` of the ledger.
            Data-dependent: not the guarantee.
    """

    rho_total: float
    delta_terms: float
    delta: float
    epsilon: float
    epsilon_tight: float
    mechanisms: list[dict[str, Any]]
    composition: str
    neighbouring_relation: str = NEIGHBOURING_RELATION
    parameters: dict[str, Any] | None = None
    secure_randomness: bool | None = None
    notes: list[str] = field(default_factory=list)
    realised_spend: dict[str, Any] | None = None

    @classmethod
    def from_accountant(
        cls,
        accountant: ZCDPAccountant,
        *,
        delta: float,
        plan: PrivacyEvent | None = None,
        parameters: dict[str, Any] | None = None,
        secure_randomness: bool | None = None,
        notes: list[str] | None = None,
        unit_field: str | None = None,
    ) -> "PrivacyReport":
        """The (ε, ``delta``)-DP guarantee of a run: its ``plan``, checked against ``accountant``'s ledger.
        An ε above :data:`WEAK_EPSILON` adds :func:`weak_epsilon_note` to the notes.

        Args:
            accountant: what the run spent.
            delta: the total δ of the guarantee.
            plan: the composition fixed before any data was read (e.g.
                :meth:`~dpsynrag.privacy.calibration.CalibratedBudget.plan` with the configured R). None:
                the ledger itself is the plan (for runs whose every event is fixed in advance, such as m
                DP-RAG queries). A :class:`~dpsynrag.privacy.events.ComposedEvent` is listed event by event.
            unit_field: the privacy unit field of a per-person run (:func:`neighbouring_relation`); None:
                per document.

        Raises:
            ConfigError: if ``delta`` is outside (0, 1) or not above the plan's δ terms, or if the ledger
                spent more than the plan (rho or δ terms; an internal error).
        """
        if plan is None:
            planned, realised = accountant, None
        else:
            planned = ZCDPAccountant(name="plan").compose(plan)
            over_rho = accountant.rho > planned.rho * (1 + _PLAN_RTOL)
            if over_rho or accountant.delta > planned.delta * (1 + _PLAN_RTOL):
                raise ConfigError(
                    f"internal error: the run spent rho={accountant.rho:.6g}, delta terms={accountant.delta:.3g}, "
                    f"more than its plan `{plan.name}` (rho={planned.rho:.6g}, delta terms={planned.delta:.3g})."
                )
            realised = None
            if accountant.rho < planned.rho * (1 - _PLAN_RTOL) or accountant.delta < planned.delta * (1 - _PLAN_RTOL):
                realised = {
                    "label": REALISED_LABEL,
                    "rho": accountant.rho,
                    "delta_terms": accountant.delta,
                    "epsilon": accountant.epsilon(delta, conversion="bun-steinke"),
                    "epsilon_tight": accountant.epsilon(delta, conversion="cks"),
                    "mechanisms": [entry.event.describe() for entry in accountant.ledger],
                }
        events = [entry.event for entry in planned.ledger]
        if plan is not None and isinstance(plan, ComposedEvent):
            events = list(plan.events)
        epsilon = planned.epsilon(delta, conversion="bun-steinke")
        weak = weak_epsilon_note(epsilon)
        return cls(
            rho_total=planned.rho,
            delta_terms=planned.delta,
            delta=delta,
            epsilon=epsilon,
            epsilon_tight=planned.epsilon(delta, conversion="cks"),
            mechanisms=[event.describe() for event in events],
            composition=_composition(unit_field),
            neighbouring_relation=neighbouring_relation(unit_field),
            parameters=parameters,
            secure_randomness=secure_randomness,
            notes=list(notes or []) + ([weak] if weak and weak not in (notes or []) else []),
            realised_spend=realised,
        )

    @classmethod
    def from_plan(
        cls,
        plan: PrivacyEvent,
        *,
        delta: float,
        parameters: dict[str, Any] | None = None,
        secure_randomness: bool | None = None,
        notes: list[str] | None = None,
        unit_field: str | None = None,
    ) -> "PrivacyReport":
        """The guarantee of ``plan`` before any run (what ``dpsynrag budget`` prints): as
        :meth:`from_accountant` for a run that spends exactly its plan (``unit_field`` as there).

        Raises:
            ConfigError: if ``delta`` is outside (0, 1) or not above the plan's δ terms.
        """
        return cls.from_accountant(
            ZCDPAccountant(name="plan").compose(plan), delta=delta, plan=plan, parameters=parameters,
            secure_randomness=secure_randomness, notes=notes, unit_field=unit_field,
        )

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        if self.parameters:
            for key in ("sigma_hist", "sigma_embed", "epsilon_theta", "clip", "decoding"):
                if key in self.parameters:
                    d[key] = self.parameters[key]
        return d

    def to_json(self, **kwargs: Any) -> str:
        return json.dumps(self.to_dict(), indent=kwargs.pop("indent", 2), **kwargs)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "PrivacyReport":
        names = {f for f in cls.__dataclass_fields__}
        return cls(**{k: v for k, v in data.items() if k in names})

    def table(self) -> Table:
        """A rich table: one row per mechanism (nested compositions indented), then the totals."""
        t = Table(title="Privacy report", show_lines=False)
        if self.neighbouring_relation != NEIGHBOURING_RELATION:  # per person: said under the table
            t.caption = f"neighbouring collections: {self.neighbouring_relation}"
        for col in ("mechanism", "kind", "sensitivity", "noise / parameter", "times", "rho"):
            t.add_column(col, justify="left" if col in ("mechanism", "kind") else "right")

        def add(desc: dict[str, Any], depth: int, times: str) -> None:
            kind = desc["mechanism"]
            sens, noise = "", ""
            # "gaussian_sparse_histogram": the continuous variant of corpora built before the discrete noise
            if kind in ("gaussian", "discrete_gaussian", "gaussian_sparse_histogram", "discrete_gaussian_sparse_histogram"):
                sens = f"L2 {desc['l2_sensitivity']:.4g}"
                noise = f"sigma {desc['sigma']:.4g}"
                if kind.endswith("sparse_histogram"):
                    noise += f", threshold {desc['threshold']:.4g}"
            elif kind == "exponential":
                sens, noise = "utility 1", f"epsilon {desc['epsilon']:.4g}"
            elif kind == "private_prediction_token":
                sens = f"clip {desc['clip']:.4g}"
                noise = f"tau {desc['temperature']:.4g} (BR eps {desc['bounded_range_epsilon']:.4g})"
            elif kind == "sparse_vector":
                sens = f"query {desc['sensitivity']:.4g}"
                noise = (f"eps1 {desc['epsilon1']:.4g}, eps2 {desc['epsilon2']:.4g} (Laplace "
                         f"{desc['threshold_noise_scale']:.4g} / {desc['query_noise_scale']:.4g})")
            t.add_row("  " * depth + desc["name"], kind, sens, noise, times, f"{desc['rho']:.6g}")
            if kind == "composition":
                for sub in desc["events"]:
                    add(sub, depth + 1, "")
            elif kind == "self_composition":
                add(desc["event"], depth + 1, f"x{desc['count']}")
            elif kind == "overlapping_parallel_composition":
                add(
                    desc["branch"],
                    depth + 1,
                    f"x{desc['multiplier']} (of {desc['num_branches']}, L={desc['max_branches_per_unit']})",
                )

        for desc in self.mechanisms:
            add(desc, 0, "")
        t.add_section()
        t.add_row("total rho (zCDP)", "", "", "", "", f"{self.rho_total:.6g}")
        t.add_row("delta (total)", "", "", f"delta terms {self.delta_terms:.3g}", "", f"{self.delta:.3g}")
        t.add_row("epsilon (Bun-Steinke)", "", "", "", "", f"{self.epsilon:.4f}")
        t.add_row("epsilon (tight, CKS)", "", "", "", "", f"{self.epsilon_tight:.4f}")
        if self.realised_spend:
            r = self.realised_spend
            t.add_row(
                f"{r['label']}", "", "", f"epsilon {r['epsilon']:.4f} (tight {r['epsilon_tight']:.4f})", "",
                f"{r['rho']:.6g}",
            )
        decoding = (self.parameters or {}).get("decoding")
        if isinstance(decoding, dict):  # the private-prediction variant (dpsynrag.models.decoding)
            shown = {k: v for k, v in decoding.items() if k not in ("decoding", "clip", "temperature", "public_prompt")}
            t.add_row("decoding", str(decoding.get("decoding")), "", ", ".join(f"{k} {v}" for k, v in shown.items()), "", "")
        return t

