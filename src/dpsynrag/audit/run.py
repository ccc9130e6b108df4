"""Empirical privacy audit of a corpus build: DP-SynRAG, DP-Synth or Aug-PE (EVALUATION.md "Privacy
audit"; issue 12, item 8; issue 29).

One-run auditing (Steinke, Nasr, Jagielski 2023, "Privacy Auditing with One (1) Training Run",
NeurIPS 2023, arXiv 2305.08846), with canaries in the style of "The Canary's Echo" (Meeus et al. 2025):

0. **Design, before any data is read** (:func:`~dpsynrag.audit.bound.design_audit`): m canaries by a
   public rule (the smallest of 1,000 … 16,000 whose design can reach a bound above the claimed ε, from
   ε, δ and the confidence only) and m/4 guesses IN, m/4 OUT; the largest bound it can reach is said
   before the build (``log``).
1. **Canaries.** ``m`` documents in the format of the private records (the task's document template:
   for Medical Synth a patient record with a plain name and common symptoms) whose diagnosis is an
   invented word, the canary's **secret**: unique, alphabetic and absent from public English usage
   (wordfreq Zipf frequency 0), so that it appears in a release only through the canary.
2. **Public coins.** Canary i is added to the private documents iff its coin S_i = +1 (probability ½).
   The coins, the secrets and the tie-breaking below come from the audit's own seed (independent streams),
   never from the data or from the build's randomness: the coin is part of the audit design.
3. **One seeded build** of the corpus method (``get_method(method).build``; DP-SynRAG:
   :func:`~dpsynrag.pipeline.build.build_corpus`) on the private documents plus the included canaries. The audit refuses to build without a seed: its corpus holds invented records
   and is never released (manifest ``not_for_release``), so secure randomness would protect nothing,
   while the seed makes the verdict reproducible; a seeded build is no DP release (its noise is known to
   whoever holds the seed), so nothing is charged to the privacy ledger.
4. **Membership scores from the released corpus folder only** (:func:`membership_scores`): exact
   occurrences of the canary's secret among the released keywords and synthetic texts first, then its
   "echo", the likelihood of the secret under a character n-gram model of the released texts (The
   Canary's Echo, Meeus et al., ICML 2025): partial copies raise it.
5. **Guesses.** The ``k_in`` highest-scored canaries are guessed IN, the ``k_out`` lowest OUT, the rest
   abstain (r = k_in + k_out guesses; both fixed before the build). Ties are broken by a public coin.
6. **Lower bound.** With v correct guesses of r (abstentions count neither way), :func:`epsilon_lower_bound` returns the ε below which
   every value is refuted at the given confidence, from the paper's main theorem: for an (ε, δ)-DP build,

       P[V ≥ v] ≤ f(v) + 2mδ · max_{1≤i≤m} (f(v − i) − f(v)) / i,   f(v) = P[Binomial(r, e^ε/(1 + e^ε)) ≥ v]

   (δ = 0: the plain binomial tail; i > v adds nothing), the p-value of the paper's appendix code.

What a result means: the audit rejects a claimed ε when the lower bound exceeds it. The largest bound
m canaries can produce (every guess correct) is :func:`max_epsilon_lower_bound`; a claim above it
can never be refuted by this design, so a *pass* only says "no leak larger than that bound was seen
through this score" (:attr:`AuditResult.verdict`: "not refutable"). With the DP histogram and clipped private prediction, a secret that one document
holds should almost never be released: an honest build gives about r/2 correct guesses and a bound near 0.
"""


from __future__ import annotations

import json
import math
import os
import shutil
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
from scipy.special import expit

from dpsynrag.audit.bound import AuditDesign, check_confidence, design_audit, epsilon_lower_bound
from dpsynrag.audit.canaries import CANARY_ID_PREFIX, make_canaries
from dpsynrag.audit.scoring import guess_membership, score_parts
from dpsynrag.data.io import Document, as_documents
from dpsynrag.errors import ConfigError

__all__ = ["AuditResult", "audit_row", "plan_message", "run_audit", "run_audit_sweep", "write_audit_table"]

AUDIT_FILE = "audit.json"
CORPUS_SUBDIR = "corpus"

# ---------------------------------------------------------------------------------------------- the audit

SEED_REQUIRED = ("the audit builds with a seed only (--seed; BuildConfig(seed=...)): its corpus holds invented "
                 "canaries and is never released, and a seed makes the verdict reproducible. Give a seed.")
NOT_FOR_RELEASE_NOTE = ("audit corpus: it holds invented canary records and was built with a seed (reproducible "
                        "noise): NOT FOR RELEASE, neither the corpus nor its audit record")
TABLE_MD, TABLE_JSON, TABLE_PLOT = "audit-table.md", "audit-table.json", "audit-plot.png"
VERDICTS = {
    "refuted": "REFUTED: the build leaks more than its claimed epsilon",
    "consistent": "consistent with the claim",
    "not refutable": "not refuted, but the claim is above the largest bound this design can reach",
}


@dataclass(frozen=True)
class AuditResult:
    """The outcome of :func:`run_audit` (JSON-ready through :meth:`to_dict`).

    Attributes:
        claimed_epsilon, claimed_delta: the build's guarantee (its calibration target).
        claimed_epsilon_tight: the report's ε for the same ρ and δ under the tight conversion
            (Canonne–Kamath–Steinke); the build claims this smaller ε too, so it is the one tested.
        confidence: confidence of the lower bounds.
        canaries: m. included: canaries whose coin put them in the build.
        k_in, k_out: guesses IN and OUT (r = k_in + k_out; fixed before the build); correct: v.
        epsilon_lower_bound: the bound at the claimed δ (the one compared with the claim).
        max_epsilon_lower_bound: the largest bound this design can report (v = r) at the claimed δ,
            known before the build (:func:`~dpsynrag.audit.bound.design_audit`).
        refuted: True when the lower bound exceeds the smaller claimed ε (``claimed_epsilon_tight``):
            a privacy failure. (No pure-DP bound is reported: the build claims δ > 0, and a δ = 0
            bound is not a valid lower bound for it.)
        corpus: the audited corpus folder (seeded, NOT for release). seed: the audit's seed.
        details: per canary id, secret, coin, exact occurrences, echo score, score and guess.
        corpus_method: the audited corpus method (registry name, e.g. ``"dp-synrag"``).
    """

    claimed_epsilon: float
    claimed_delta: float
    claimed_epsilon_tight: float
    confidence: float
    canaries: int
    included: int
    k_in: int
    k_out: int
    correct: int
    epsilon_lower_bound: float
    max_epsilon_lower_bound: float
    refuted: bool
    corpus: str
    seed: int
    details: list[dict[str, Any]]
    corpus_method: str = "dp-synrag"

    @property
    def guesses(self) -> int:
        """r = k_in + k_out."""
        return self.k_in + self.k_out

    @property
    def verdict(self) -> str:
        """``"refuted"`` (bound above the tested claim), ``"consistent"`` (not refuted by a design that could
        have refuted it) or ``"not refutable"`` (not refuted; the tested claim is at or above the largest
        reachable bound, so no outcome of this design could have refuted it)."""
        if self.refuted:
            return "refuted"
        tested = min(self.claimed_epsilon, self.claimed_epsilon_tight)
        return "consistent" if self.max_epsilon_lower_bound > tested else "not refutable"

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "guesses": self.guesses, "verdict": self.verdict, "not_for_release": True,
                "note": NOT_FOR_RELEASE_NOTE, "method": "one-run audit (Steinke, Nasr, Jagielski 2023)",
                "score": "2 x exact occurrences of the secret in released keywords and texts + expit(echo: "
                         "per-character log-likelihood ratio of the secret under a character 4-gram model of "
                         "the released texts vs. of the canary secrets)"}

    def summary(self) -> str:
        """One paragraph for people: the bound next to the claim, and what a pass means."""
        return (
            f"claimed epsilon={self.claimed_epsilon:g} (tight conversion: {self.claimed_epsilon_tight:.3f}), "
            f"delta={self.claimed_delta:g}; {self.canaries} canaries "
            f"({self.included} included), {self.guesses} guesses ({self.k_in} IN, {self.k_out} OUT), "
            f"{self.correct} correct; epsilon lower bound at {100 * self.confidence:g}% confidence: "
            f"{self.epsilon_lower_bound:.3f} at the claimed delta; largest bound this "
            f"design can reach: {self.max_epsilon_lower_bound:.3f} "
            f"-> {VERDICTS[self.verdict]}. A pass only rules out leaks that this design could detect: claims above "
            f"{self.max_epsilon_lower_bound:.3f} cannot be refuted with {self.canaries} canaries."
        )


def plan_message(design: AuditDesign, epsilon: float, delta: float, confidence: float) -> str:
    """The design and its largest reachable bound, said before the build (public values only)."""
    rule = "public sizing rule" if design.target is not None else "given"
    reach = ("it can refute the claim" if design.reachable > epsilon
             else "it cannot refute the claim whatever the build leaks")
    return (f"audit design ({rule}): {design.canaries} canaries, {design.guesses} guesses ({design.k_in} IN, "
            f"{design.k_out} OUT, {design.canaries - design.guesses} abstain); largest reachable epsilon lower "
            f"bound at delta={delta:g}, {100 * confidence:g}% confidence: {design.reachable:.3f} against the "
            f"claimed epsilon={epsilon:g}: {reach}.")


def run_audit(
    documents: Sequence[Document] | Sequence[str] | str | os.PathLike,
    out_dir: str | os.PathLike,
    config,
    *,
    canaries: int | None = None,
    k_in: int | None = None,
    k_out: int | None = None,
    template: str | None = None,
    seed: int | None = None,
    confidence: float = 0.95,
    lm=None,
    embedder=None,
    text_field: str = "text",
    id_field: str | None = None,
    overwrite: bool = False,
    progress: bool = False,
    log: Callable[[str], None] | None = None,
    method: str = "dp-synrag",
) -> AuditResult:
    """Audit one DP-SynRAG build with canaries (module docstring): design, build, score, guess, bound.

    The audit builds with a seed only (``config.seed``): its corpus holds invented canaries and is never
    released, so secure randomness would protect nothing, while a seed makes the verdict reproducible.
    A seeded build's noise is known to whoever holds the seed (recorded in ``audit.json``), so it is no
    DP release and nothing is charged to the privacy ledger: corpus (manifest ``not_for_release``, report
    note) and audit record stay with the data owner.

    Writes ``out_dir/corpus`` (the audited build, with its ``corpus.owner.json`` beside it) and
    ``out_dir/audit.json`` (the canaries with their coins, scores, guesses and the bounds; no private text).

    Args:
        documents: the private collection (as for :func:`~dpsynrag.pipeline.build.build_corpus`).
        out_dir: a new folder (replaced only with ``overwrite`` and only if it holds an ``audit.json``).
        config: the :class:`~dpsynrag.pipeline.config.BuildConfig` audited; its ε and δ are the claim; its
            ``seed`` must be set.
        canaries: m >= 2; None: the public sizing rule (:func:`~dpsynrag.audit.bound.design_audit`, 1,000
            canaries or more, from ε, δ and the confidence).
        k_in, k_out: guesses IN and OUT (default m // 4 each: half the canaries abstain).
        template: canary text with ``{secret}`` (default: the task's built-in record; medical only).
        seed: the audit's seed (coins, secrets, tie-breaks; streams distinct from the build's); None: the
            build's ``config.seed``.
        confidence: of the lower bounds.
        lm, embedder, text_field, id_field, progress: passed to the build.
            With ``config.privacy_unit_field`` (a per-person build) the collection's documents carry their
            persons' keys (a file: read from that field) and each canary is a person of its own (its unit key
            is its id), so the audit tests the per-person claim: a canary in or out is one whole unit.
        log: called with the design and its largest reachable bound before the build (e.g. ``print``).
        method: the corpus method audited (``"dp-synrag"``, ``"dp-synth"``, ``"aug-pe"``, ...; its config
            type is ``config``'s).

    Returns:
        The :class:`AuditResult`.

    Raises:
        ConfigError: no build seed, bad audit parameters (named by their CLI flag) or build parameters;
        InfeasibleBudgetError, DataError, ModelLoadError: from the build. FileExistsError: ``out_dir`` exists.
    """
    from dpsynrag.methods import get_method

    builder = get_method(method)
    if builder.kind != "corpus":
        raise ConfigError(f"the audit audits a corpus built once; {method!r} is not a corpus method.")
    if builder.config_type is not None and not isinstance(config, builder.config_type):
        raise ConfigError(f"method {method}: `config` must be a {builder.config_type.__name__}. "
                          f"Found {type(config).__name__}.")
    check_confidence(confidence)
    if config.seed is None:
        raise ConfigError(SEED_REQUIRED)
    seed = config.seed if seed is None else seed
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ConfigError(f"the audit seed (--seed; seed=) must be an integer >= 0. Found {seed!r}.")
    delta = float(config.delta)
    design = design_audit(float(config.epsilon), delta, canaries=canaries, k_in=k_in, k_out=k_out,
                          confidence=confidence)
    if log is not None:
        log(plan_message(design, float(config.epsilon), delta, confidence))
    canary_set = make_canaries(design.canaries, seed=seed, task=config.task, template=template)
    config.calibrate()  # an infeasible budget stops the audit before anything is written
    out = Path(out_dir)
    if out.exists():
        if not overwrite:
            raise FileExistsError(f"`out_dir` {out} already exists; choose another folder or pass --overwrite.")
        if not (out / AUDIT_FILE).is_file():
            raise FileExistsError(f"`out_dir` {out} exists and holds no {AUDIT_FILE}; refusing to replace it.")
        shutil.rmtree(out)
    out.mkdir(parents=True)
    corpus_dir = out / CORPUS_SUBDIR
    try:
        unit_field = getattr(config, "privacy_unit_field", None)
        private = as_documents(documents, text_field=text_field, id_field=id_field, unit_field=unit_field)
        if {d.id for d in private} & {c.id for c in canary_set}:
            raise ConfigError(f"document ids starting with {CANARY_ID_PREFIX!r} are reserved for the audit's canaries.")
        if unit_field is not None and any((d.unit or "").startswith(CANARY_ID_PREFIX) for d in private):
            raise ConfigError(f"privacy unit values starting with {CANARY_ID_PREFIX!r} are reserved for the audit's "
                              "canaries (each canary is a person of its own).")
        audited = private + [Document(id=c.id, text=c.text, unit=None if unit_field is None else c.id)
                             for c in canary_set if c.included]
        corpus = builder.build(audited, corpus_dir, config, lm=lm, embedder=embedder, progress=progress)
        del audited, private
        if corpus.manifest.get("not_for_release") is not True:
            raise ConfigError("internal error: the audit's corpus is not marked not_for_release.")
    except BaseException:
        shutil.rmtree(out, ignore_errors=True)  # a failed audit leaves no folder (the build left no corpus)
        raise

    secrets = [c.secret for c in canary_set]
    exact, echo = score_parts(corpus_dir, secrets)
    scores = 2.0 * exact + expit(echo)  # as membership_scores, without reading the corpus twice
    guesses = guess_membership(scores, k_in=design.k_in, k_out=design.k_out, seed=seed)
    truth = np.array([1 if c.included else -1 for c in canary_set], dtype=np.int8)
    correct = int(np.sum(guesses == truth))  # abstentions (0) never match
    m, r = design.canaries, design.guesses
    bound = epsilon_lower_bound(m, r, correct, delta=delta, confidence=confidence)
    tight = float(corpus.privacy_report.epsilon_tight)
    result = AuditResult(
        claimed_epsilon=float(config.epsilon),
        claimed_delta=delta,
        claimed_epsilon_tight=tight,
        confidence=float(confidence),
        canaries=m,
        included=int(sum(c.included for c in canary_set)),
        k_in=design.k_in,
        k_out=design.k_out,
        correct=correct,
        epsilon_lower_bound=bound,
        max_epsilon_lower_bound=design.reachable,
        refuted=bool(bound > min(float(config.epsilon), tight)),
        corpus=str(corpus.path),
        corpus_method=method,
        seed=seed,
        details=[{"id": c.id, "secret": c.secret, "included": c.included, "exact": int(x), "echo": float(e),
                  "score": float(sc), "guess": int(g)}
                 for c, x, e, sc, g in zip(canary_set, exact, echo, scores, guesses)],
    )
    (out / AUDIT_FILE).write_text(json.dumps({**result.to_dict(), "config": config.model_dump()}, indent=2))
    return result


# ---------------------------------------------------------------------------------------------- ε sweep


def audit_row(result: AuditResult | None, *, claimed_epsilon: float, build: str = "honest",
              method: str | None = None, error: str | None = None) -> dict[str, Any]:
    """One row of the ε-sweep table: the result's numbers (no per-canary details), or the build's error.
    ``method``: the corpus method (default: the result's; ``"dp-synrag"`` for an error row)."""
    name = method or (result.corpus_method if result is not None else "dp-synrag")
    row: dict[str, Any] = {"build": build, "method": name, "claimed_epsilon": float(claimed_epsilon)}
    if result is None:
        return {**row, "verdict": "build failed", "error": error}
    keep = ("claimed_delta", "claimed_epsilon_tight", "confidence", "canaries", "included", "k_in", "k_out",
            "correct", "epsilon_lower_bound", "max_epsilon_lower_bound", "refuted")
    return {**row, **{k: getattr(result, k) for k in keep}, "guesses": result.guesses, "verdict": result.verdict}


def write_audit_table(rows: Sequence[dict[str, Any]], out_dir: str | os.PathLike, *, title: str,
                      note: str = "") -> dict[str, Path]:
    """Write the ε-sweep table (:func:`audit_row` rows) as markdown, JSON and a plot in ``out_dir``.

    Columns: build, method, claimed ε, tight ε (the claim tested), canaries m, guesses r, correct v,
    ε lower bound, largest reachable bound, verdict. The plot (matplotlib, PNG) draws, against the
    claimed ε, the tested claim, the largest reachable bound and each build's lower bound (refuted
    rows as crosses); when no row was audited (every build failed) it says so, with no legend.

    Returns:
        {"md": path, "json": path, "plot": path}.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    lines = [f"# {title}", ""]
    if note:
        lines += [note, ""]
    lines += ["| build | method | claimed ε | tight ε (tested) | canaries m | guesses r | correct v | ε lower bound "
              "| largest reachable bound | verdict |", "|" + "---|" * 10]
    for row in rows:
        if "error" in row:
            lines.append(f"| {row['build']} | {row['method']} | {row['claimed_epsilon']:g} | | | | | | | "
                         f"build failed: {row['error']} |")
            continue
        lines.append(
            f"| {row['build']} | {row['method']} | {row['claimed_epsilon']:g} | {row['claimed_epsilon_tight']:.3f} "
            f"| {row['canaries']} | {row['guesses']} | {row['correct']} | {row['epsilon_lower_bound']:.3f} "
            f"| {row['max_epsilon_lower_bound']:.3f} | {row['verdict']} |"
        )
    paths = {"md": out / TABLE_MD, "json": out / TABLE_JSON, "plot": out / TABLE_PLOT}
    paths["md"].write_text("\n".join(lines) + "\n")
    paths["json"].write_text(json.dumps({"title": title, "note": note, "rows": list(rows)}, indent=2))

    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    done = [r for r in rows if "error" not in r]
    claims = sorted({r["claimed_epsilon"] for r in done})
    if claims:
        tested = {r["claimed_epsilon"]: r["claimed_epsilon_tight"] for r in done}
        reach = {r["claimed_epsilon"]: r["max_epsilon_lower_bound"] for r in done}
        ax.plot(claims, [tested[c] for c in claims], "k--", label="tight ε (claim tested)")
        ax.plot(claims, [reach[c] for c in claims], "g:", marker="^", label="largest reachable bound")
        for build in dict.fromkeys((r["build"], r["method"]) for r in done):
            sel = sorted((r for r in done if (r["build"], r["method"]) == build), key=lambda r: r["claimed_epsilon"])
            (line,) = ax.plot([r["claimed_epsilon"] for r in sel], [r["epsilon_lower_bound"] for r in sel],
                              marker="o", label=f"lower bound: {build[0]} ({build[1]})")
            bad = [r for r in sel if r["refuted"]]
            ax.scatter([r["claimed_epsilon"] for r in bad], [r["epsilon_lower_bound"] for r in bad], marker="x",
                       s=90, color="red", zorder=3)
        ax.set_xscale("log", base=2)
        ax.set_xticks(claims, [f"{c:g}" for c in claims])
        ax.legend(fontsize=7)
    else:  # no row audited: nothing to draw, so no legend (matplotlib would warn of an empty one)
        ax.text(0.5, 0.5, "no build was audited (every build failed: see the table)", ha="center", va="center",
                transform=ax.transAxes)
    ax.set_xlabel("claimed ε")
    ax.set_ylabel("ε")
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(paths["plot"], dpi=120)
    plt.close(fig)
    return paths


def run_audit_sweep(
    documents: Sequence[Document] | Sequence[str] | str | os.PathLike,
    out_dir: str | os.PathLike,
    config,
    epsilons: Sequence[float],
    *,
    build: str = "honest",
    overwrite: bool = False,
    log: Callable[[str], None] | None = None,
    **audit_options,
) -> list[dict[str, Any]]:
    """:func:`run_audit` at each claimed ε (the same config otherwise) into ``out_dir/eps-{ε}``, then the
    table, JSON and plot of :func:`write_audit_table` in ``out_dir``.

    A build that fails (e.g. the open-vocabulary histogram releases nothing at a small ε) becomes a row
    with its error; the others still run. Canary counts follow the public rule at each ε unless
    ``canaries`` is given.

    Args:
        documents, config, audit_options: as for :func:`run_audit` (``config.epsilon`` is replaced).
        out_dir: a new folder (replaced only with ``overwrite`` and only if it holds an earlier table).
        epsilons: the claimed ε's (each > 0). build: the label of these builds in the table.
        log: as for :func:`run_audit`; also gets each result's summary.

    Returns:
        The table's rows (:func:`audit_row`).

    Raises:
        ConfigError: no build seed, bad ε's or audit parameters. FileExistsError: ``out_dir`` exists.
    """
    from dpsynrag.errors import DpsynragError

    if config.seed is None:
        raise ConfigError(SEED_REQUIRED)
    values = [float(e) for e in epsilons]
    if not values or any(not (0 < e < math.inf) for e in values) or len(set(values)) != len(values):
        raise ConfigError(f"the claimed epsilons (--epsilons) must be distinct finite numbers > 0. Found {list(epsilons)!r}.")
    out = Path(out_dir)
    if out.exists():
        if not overwrite:
            raise FileExistsError(f"`out_dir` {out} already exists; choose another folder or pass --overwrite.")
        if not (out / TABLE_JSON).is_file():
            raise FileExistsError(f"`out_dir` {out} exists and holds no {TABLE_JSON}; refusing to replace it.")
        shutil.rmtree(out)
    out.mkdir(parents=True)
    rows = []
    for eps in values:
        cfg = type(config).model_validate({**config.model_dump(), "epsilon": eps})
        try:
            result = run_audit(documents, out / f"eps-{eps:g}", cfg, log=log, **audit_options)
        except DpsynragError as exc:
            rows.append(audit_row(None, claimed_epsilon=eps, build=build, error=f"{type(exc).__name__}: {exc}",
                                  method=audit_options.get("method", "dp-synrag")))
            continue
        if log is not None:
            log(result.summary())
        rows.append(audit_row(result, claimed_epsilon=eps, build=build))
    write_audit_table(rows, out, title=f"Privacy audit, one run per claimed ε ({build} builds)",
                      note=NOT_FOR_RELEASE_NOTE)
    return rows
