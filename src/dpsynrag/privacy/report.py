"""The privacy report: what was spent where, and the resulting (ε, δ) guarantee.

Built from an accountant's ledger; serialisable to JSON (for manifests and auditors) and printable
as a table. ε is given under both conversions (Bun–Steinke, as the paper, and the tight CKS one).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

from rich.table import Table

from dpsynrag.privacy.accountant import ZCDPAccountant

NEIGHBOURING_RELATION = "add/remove one document (privacy unit = one document)"


@dataclass(frozen=True)
class PrivacyReport:
    """A JSON-ready account of a run's privacy.

    Attributes:
        rho_total: zCDP spent (nats), sum over the ledger.
        delta_terms: approximate-zCDP δ terms spent by mechanisms (e.g. the open-vocabulary histogram).
        delta: the total δ of the guarantee (δ terms included).
        epsilon: ε at ``delta`` with the Bun–Steinke conversion (the paper's).
        epsilon_tight: ε at ``delta`` with the Canonne–Kamath–Steinke conversion (smaller, also valid).
        mechanisms: the ledger, one nested description per composed event.
        parameters: calibrated parameters (σ's, ε_θ, c, ...), when the run was calibrated.
        secure_randomness: whether noise came from the OS's secure generator (False: seeded, not for release).
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

    @classmethod
    def from_accountant(
        cls,
        accountant: ZCDPAccountant,
        *,
        delta: float,
        parameters: dict[str, Any] | None = None,
        secure_randomness: bool | None = None,
        notes: list[str] | None = None,
    ) -> "PrivacyReport":
        """Report everything ``accountant`` composed, as an (ε, ``delta``)-DP guarantee.

        Raises:
            ConfigError: if ``delta`` is outside (0, 1) or not above the δ terms spent.
        """
        return cls(
            rho_total=accountant.rho,
            delta_terms=accountant.delta,
            delta=delta,
            epsilon=accountant.epsilon(delta, conversion="bun-steinke"),
            epsilon_tight=accountant.epsilon(delta, conversion="cks"),
            mechanisms=[entry.event.describe() for entry in accountant.ledger],
            composition=(
                "zCDP: sequential composition adds rho; clusters use overlapping parallel composition "
                "(each document in at most L clusters, membership depending only on that document and the "
                "public keywords) and cost min(L, R) x the most a cluster may spend; approximate-zCDP delta "
                "terms add to delta."
            ),
            parameters=parameters,
            secure_randomness=secure_randomness,
            notes=list(notes or []),
        )

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        if self.parameters:
            for key in ("sigma_hist", "sigma_embed", "epsilon_theta", "clip"):
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
        for col in ("mechanism", "kind", "sensitivity", "noise / parameter", "times", "rho"):
            t.add_column(col, justify="left" if col in ("mechanism", "kind") else "right")

        def add(desc: dict[str, Any], depth: int, times: str) -> None:
            kind = desc["mechanism"]
            sens, noise = "", ""
            if kind in ("gaussian", "gaussian_sparse_histogram"):
                sens = f"L2 {desc['l2_sensitivity']:.4g}"
                noise = f"sigma {desc['sigma']:.4g}"
                if kind == "gaussian_sparse_histogram":
                    noise += f", threshold {desc['threshold']:.4g}"
            elif kind == "exponential":
                sens, noise = "utility 1", f"epsilon {desc['epsilon']:.4g}"
            elif kind == "private_prediction_token":
                sens = f"clip {desc['clip']:.4g}"
                noise = f"tau {desc['temperature']:.4g} (BR eps {desc['bounded_range_epsilon']:.4g})"
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
        return t

