"""Configuration of a DP-SynRAG build (validated with pydantic; serialised into the manifest)."""

from __future__ import annotations

from typing import Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, model_validator

from dpsynrag.privacy.calibration import CalibratedBudget, calibrate, make_split


class BuildConfig(BaseModel):
    """Every parameter of a build. Privacy parameters are keyword-only and validated on creation.

    Privacy (METHOD.md §3): ``epsilon`` > 0 and ``delta`` in (0, 1) are the target; ``split`` and the
    three overrides share the budget; ``conversion`` chooses the ρ → ε conversion used to calibrate.

    Stage 1 (§1): ``K`` keywords per document; ``R`` keywords released (clusters); ``L`` clusters per
    document; ``k`` the target cluster size after outlier removal; ``open_vocabulary`` switches from
    the public word list (``vocabulary_size`` words) to the thresholded sparse histogram, whose δ term
    is ``open_vocabulary_delta`` (default δ/10); ``match_text`` matches keywords against the text.

    Stage 2 (§2): ``T`` tokens per text, ``temperature`` τ, optional public prompt (plain text, rendered
    with the model's chat template; it holds no private data) with weight ω = ``public_weight``.
    Self-filtering uses ``filter_prompt`` (a template with ``{document}``) when ``self_filter``.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    epsilon: float = Field(gt=0)
    delta: float = Field(gt=0, lt=1)
    K: int = Field(10, ge=1)
    R: int = Field(500, ge=1)
    L: int = Field(5, ge=1)
    k: int = Field(80, ge=0)
    T: int = Field(70, ge=1)
    temperature: float = Field(1.0, gt=0)
    conversion: Literal["bun-steinke", "cks"] = "bun-steinke"
    split: Literal["paper", "fractions"] = "paper"
    rho_hist: Optional[float] = Field(None, gt=0)
    epsilon_theta: Optional[float] = Field(None, gt=0)
    rho_embed: Optional[float] = Field(None, gt=0)
    outlier_removal: bool = True
    open_vocabulary: bool = False
    open_vocabulary_delta: Optional[float] = Field(None, gt=0, lt=1)
    vocabulary_size: int = Field(50_000, ge=100)
    match_text: bool = False
    extractor: Literal["llm", "rarity"] = "llm"
    self_filter: bool = True
    filter_prompt: Optional[str] = None
    task: Optional[str] = None
    model: Optional[str] = None
    embedder: Optional[str] = None
    max_document_tokens: int = Field(256, ge=8)
    public_prompt: Optional[str] = None
    public_weight: float = Field(0.0, ge=0)
    seed: Optional[int] = Field(None, ge=0)
    batch_size: Optional[int] = Field(None, ge=1)
    memory_budget_gb: float = Field(2.0, gt=0)

    @model_validator(mode="after")
    def _consistent(self) -> "BuildConfig":
        if self.open_vocabulary_delta is not None and not self.open_vocabulary:
            raise ValueError("`open_vocabulary_delta` is set but `open_vocabulary` is False.")
        if self.open_vocabulary_delta is not None and self.open_vocabulary_delta >= self.delta:
            raise ValueError(
                f"`open_vocabulary_delta` must be below `delta` ({self.delta}). Found {self.open_vocabulary_delta}."
            )
        if self.filter_prompt is not None and "{document}" not in self.filter_prompt:
            raise ValueError("`filter_prompt` must contain the placeholder {document}.")
        if self.public_weight > 0 and not self.public_prompt:
            raise ValueError("`public_weight` > 0 needs a `public_prompt`.")
        return self

    @property
    def hist_delta(self) -> float | None:
        """The δ term of the open-vocabulary histogram (None with the public vocabulary)."""
        if not self.open_vocabulary:
            return None
        return self.open_vocabulary_delta if self.open_vocabulary_delta is not None else self.delta / 10

    @property
    def L_effective(self) -> int:
        """min(L, R): a document can join at most R clusters when only R exist, so the overlapping
        parallel composition charges at most min(L, R) branches and the calibration spends the budget
        over that many."""
        return min(self.L, self.R)

    def calibrate(self) -> CalibratedBudget:
        """The calibrated noise scales and clip for this configuration (with L = :attr:`L_effective`).

        Raises:
            InfeasibleBudgetError: when the target cannot pay for the split (nothing is run).
        """
        split = make_split(
            self.split,
            L=self.L_effective,
            hist=self.rho_hist,
            theta=self.epsilon_theta,
            embed=self.rho_embed,
            outlier_removal=self.outlier_removal,
        )
        return calibrate(
            epsilon=self.epsilon,
            delta=self.delta,
            K=self.K,
            L=self.L_effective,
            T=self.T,
            temperature=self.temperature,
            split=split,
            conversion=self.conversion,
            open_vocabulary_delta=self.hist_delta,
        )
