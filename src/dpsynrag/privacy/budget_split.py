"""How a DP-SynRAG build's budget is shared between its mechanisms (:class:`BudgetSplit`, :func:`make_split`);
generation gets the rest (:mod:`dpsynrag.privacy.calibration`)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from dpsynrag.errors import ConfigError
from dpsynrag.privacy.conversions import rho_from_epsilon


def _num(name: str, value: float, *, minimum: float = 0.0, strict: bool = True) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value) or math.isinf(value):
        raise ConfigError(f"`{name}` must be a finite number. Found {value!r}.")
    if (strict and value <= minimum) or (not strict and value < minimum):
        rule = ">" if strict else ">="
        raise ConfigError(f"`{name}` must be {rule} {minimum}. Found {value!r}.")
    return float(value)


@dataclass(frozen=True)
class BudgetSplit:
    """How the budget is shared between the mechanisms; generation gets the rest.

    kind="absolute" (the paper's Table 6): ``hist`` is ρ_hist (nats), ``theta`` is ε_θ, ``embed`` is
    ρ_embed = 1/(2σ_μ²) per cluster.

    kind="fraction": shares of the total ρ: ρ_hist = hist·ρ; the L threshold mechanisms together
    cost theta·ρ (ε_θ = sqrt(8·theta·ρ/L)); the L embedding sums together cost embed·ρ. The
    fractions of the paper's split at ε = 10 are ``BudgetSplit.paper_fractions()``.

    ``theta = embed = 0`` disables outlier removal (S_r = C_r; an ablation).
    """

    kind: Literal["absolute", "fraction"] = "absolute"
    hist: float = 0.1
    theta: float = 0.4
    embed: float = 0.009

    def __post_init__(self) -> None:
        if self.kind not in ("absolute", "fraction"):
            raise ConfigError(f"`kind` must be 'absolute' or 'fraction'. Found {self.kind!r}.")
        _num("hist", self.hist)
        _num("theta", self.theta, strict=False)
        _num("embed", self.embed, strict=False)
        if (self.theta == 0) != (self.embed == 0):
            raise ConfigError(
                "`theta` and `embed` must both be > 0 (outlier removal on) or both be 0 (off). "
                f"Found theta={self.theta!r}, embed={self.embed!r}."
            )
        if self.kind == "fraction" and self.hist + self.theta + self.embed >= 1:
            raise ConfigError(
                "fractions `hist + theta + embed` must be < 1 to leave budget for generation. "
                f"Found {self.hist + self.theta + self.embed!r}."
            )

    @property
    def outlier_removal(self) -> bool:
        return self.theta > 0

    @classmethod
    def paper(cls) -> "BudgetSplit":
        """The paper's constants: ρ_hist = 0.1, ε_θ = 0.4, 1/(2σ_μ²) = 0.009 (Table 6)."""
        return cls("absolute", 0.1, 0.4, 0.009)

    @classmethod
    def paper_fractions(cls, *, L: int = 5) -> "BudgetSplit":
        """The paper's split at ε = 10, δ = 1e-3 as fractions of ρ = 2.2012 (scales with ε)."""
        rho = rho_from_epsilon(10.0, 1e-3)
        return cls("fraction", 0.1 / rho, L * 0.4**2 / 8 / rho, L * 0.009 / rho)


def make_split(
    name: str,
    *,
    L: int,
    hist: float | None = None,
    theta: float | None = None,
    embed: float | None = None,
    outlier_removal: bool = True,
) -> BudgetSplit:
    """A named split ("paper": absolute constants; "fractions": the paper's shares of ρ, scaling with ε),
    with optional overrides of its three shares; ``outlier_removal=False`` zeroes theta and embed.

    Raises:
        ConfigError: on an unknown name or bad overrides.
    """
    if name == "paper":
        base = BudgetSplit.paper()
    elif name == "fractions":
        base = BudgetSplit.paper_fractions(L=L)
    else:
        raise ConfigError(f"`split` must be 'paper' or 'fractions'. Found {name!r}.")
    if not outlier_removal:
        return BudgetSplit(base.kind, base.hist if hist is None else hist, 0.0, 0.0)
    return BudgetSplit(
        base.kind,
        base.hist if hist is None else hist,
        base.theta if theta is None else theta,
        base.embed if embed is None else embed,
    )
