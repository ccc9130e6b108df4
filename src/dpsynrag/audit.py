"""Empirical privacy audit of a corpus build: DP-SynRAG, DP-Synth or Aug-PE (EVALUATION.md "Privacy
audit"; issue 12, item 8; issue 29).

One-run auditing (Steinke, Nasr, Jagielski 2023, "Privacy Auditing with One (1) Training Run",
NeurIPS 2023, arXiv 2305.08846), with canaries in the style of "The Canary's Echo" (Meeus et al. 2025):

0. **Design, before any data is read** (:func:`~dpsynrag.audit_bound.design_audit`): m canaries by a
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
import re
import shutil
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
from scipy.special import expit

from dpsynrag.audit_bound import AuditDesign, check_confidence, design_audit, epsilon_lower_bound
from dpsynrag.data.io import Document, as_documents
from dpsynrag.errors import ConfigError

__all__ = [
    "AuditResult",
    "Canary",
    "audit_row",
    "guess_membership",
    "make_canaries",
    "membership_scores",
    "plan_message",
    "run_audit",
    "run_audit_sweep",
    "score_parts",
    "write_audit_table",
]

AUDIT_FILE = "audit.json"
CORPUS_SUBDIR = "corpus"
CANARY_ID_PREFIX = "audit-canary-"

# ---------------------------------------------------------------------------------------------- canaries

_ONSETS = ("b", "d", "f", "g", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z", "br", "dr", "gl", "pl", "sn",
           "st", "tr", "zl")
_VOWELS = ("a", "e", "i", "o", "u")
_SUFFIXES = ("itis", "osis", "emia", "algia")
# Public, generic material for the Medical Synth record template (no value is read from the data).
_FIRST_NAMES = ("Anna", "Peter", "Maria", "Lucas", "Emma", "Noah", "Julia", "Felix", "Clara", "Oscar", "Nina", "Hugo")
_LAST_NAMES = ("Miller", "Schmidt", "Moreau", "Rossi", "Jansen", "Novak", "Keller", "Dubois", "Larsen", "Costa",
               "Weber", "Fischer")
_SYMPTOMS = ("Abdominal cramps", "Fatigue", "Rash on the palms", "Loss of appetite", "Dizziness", "Bloating",
             "Headache", "Nausea", "Fever", "Cough", "Sneezing", "Joint pain")
_TREATMENTS = ("Rest Therapy", "Herbal Tea Therapy", "Vitamin Drops", "Warm Compress Therapy", "Breathing Exercises")


@dataclass(frozen=True)
class Canary:
    """One canary document.

    Attributes:
        id: document id (``audit-canary-{j}``).
        secret: the invented word (capitalised) that only this canary holds.
        text: the full document text (it contains ``secret``).
        included: the public coin: True when the canary was added to the build's input.
    """

    id: str
    secret: str
    text: str
    included: bool


def _stream(seed: int, k: int) -> np.random.Generator:
    """Independent stream k of the audit's seed: 0 coins, 1 secrets, 2 record fields, 3 tie-breaks (keys
    distinct from the build's :class:`~dpsynrag.rng.SeededRandom` streams of the same seed)."""
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(0xA0D17, k)))


def _invented_word(rng: np.random.Generator) -> str:
    syllables = "".join(str(rng.choice(_ONSETS)) + str(rng.choice(_VOWELS)) for _ in range(3))
    return (syllables[:-1] + str(rng.choice(_SUFFIXES))).capitalize()  # "zlubomi" + "itis" -> "Zlubomitis"


def _medical_canary(rng: np.random.Generator, secret: str) -> str:
    from dpsynrag.tasks.medical_source import medical_document_text

    symptoms = [str(s) for s in rng.choice(_SYMPTOMS, size=int(rng.integers(3, 6)), replace=False)]
    name = f"{rng.choice(_FIRST_NAMES)} {rng.choice(_LAST_NAMES)}"
    return medical_document_text(name, secret, symptoms, str(rng.choice(_TREATMENTS)))


def make_canaries(m: int, *, seed: int, task: str | None = None, template: str | None = None) -> list[Canary]:
    """``m`` canaries with unique invented secrets and their public inclusion coins.

    The secret of each canary is an invented word (three syllables and a medical suffix, e.g.
    "Zlubomitis") with wordfreq Zipf frequency 0, distinct from every other canary's secret and not
    contained in one. Coins, secrets and record fields come from independent streams of ``seed``.

    Args:
        m: number of canaries (>= 2).
        seed: the audit's seed (public; not the build's).
        task: ``"medical"`` uses the Medical Synth record template (plain name, common symptoms and
            treatment, the secret as the diagnosis) unless ``template`` is given.
        template: a canary text with the placeholder ``{secret}`` (for other tasks: write one record in
            your documents' format by hand, with no private value in it).

    Returns:
        The canaries, in id order.

    Raises:
        ConfigError: m < 2, a template without ``{secret}``, or no template for a task other than medical.
    """
    from wordfreq import zipf_frequency

    if isinstance(m, bool) or not isinstance(m, int) or m < 2:
        raise ConfigError(f"the number of canaries (--canaries; canaries=) must be an integer >= 2. Found {m!r}.")
    if template is not None and "{secret}" not in template:
        raise ConfigError("the canary template (--canary-template; template=) must contain the placeholder {secret}.")
    if template is None and task != "medical":
        raise ConfigError(
            "the audit needs a canary in your documents' format: give a canary template with the placeholder "
            "{secret} (--canary-template; template=), or use --task medical for the built-in Medical Synth record."
        )
    coins = _stream(seed, 0).integers(0, 2, size=m).astype(bool)
    words_rng = _stream(seed, 1)
    fields_rng = _stream(seed, 2)
    chosen: list[str] = []
    lowered: set[str] = set()  # the chosen secrets, lower case
    inside: set[str] = set()  # every substring of a chosen secret
    while len(chosen) < m:
        word = _invented_word(words_rng)
        low = word.lower()
        subs = {low[i:j] for i in range(len(low)) for j in range(i + 1, len(low) + 1)}
        if low in inside or subs & lowered or zipf_frequency(low, "en") > 0:
            continue  # contained in a chosen secret, containing one, or a word of public English
        chosen.append(word)
        lowered.add(low)
        inside |= subs
    out = []
    for j, (secret, included) in enumerate(zip(chosen, coins)):
        text = template.replace("{secret}", secret) if template is not None else _medical_canary(fields_rng, secret)
        out.append(Canary(id=f"{CANARY_ID_PREFIX}{j}", secret=secret, text=text, included=bool(included)))
    return out


# ---------------------------------------------------------------------------------------------- scores


_NGRAM_ORDER = 4
_ALPHABET = 27  # a-z and the word boundary


def _letters(text: str) -> str:
    """Lower-case letters with every other run of characters as one space (the n-gram models' alphabet)."""
    return " " + re.sub(r"[^a-z]+", " ", text.lower()).strip() + " "


class _CharNgram:
    """Character n-gram model with hierarchical Dirichlet smoothing (MacKay & Peto 1995, "A hierarchical
    Dirichlet language model"): P(c | h) = (N(h c) + β · P(c | h')) / (N(h) + β), with h' the context h
    without its first character, down to the uniform 1/27 over a-z and the boundary. No character has
    probability 0, whatever the training text."""

    def __init__(self, text: str, order: int = _NGRAM_ORDER, beta: float = 1.0):
        self.order, self.beta = order, beta
        self.grams: Counter[str] = Counter()
        self.contexts: Counter[str] = Counter()
        for n in range(1, order + 1):
            for i in range(len(text) - n + 1):
                self.grams[text[i:i + n]] += 1
                self.contexts[text[i:i + n - 1]] += 1

    def log_likelihood(self, word: str) -> float:
        """Natural-log probability of ``word`` (lower-case letters) after a boundary, with its closing boundary."""
        s = " " + word + " "
        total = 0.0
        for i in range(1, len(s)):
            h, c = s[max(0, i - self.order + 1):i], s[i]
            p = 1.0 / _ALPHABET
            for k in range(len(h) + 1):  # the empty context first, then longer ones
                ctx = h[len(h) - k:]
                p = (self.grams[ctx + c] + self.beta * p) / (self.contexts[ctx] + self.beta)
            total += math.log(p)
        return total


def score_parts(corpus_dir: str | os.PathLike, secrets: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """The two membership signals of each secret, functions of the released corpus folder only.

    * **exact**: released keywords equal to the secret plus whole-word occurrences in every released
      synthetic text (kept or not), case-insensitively.
    * **echo**: the per-character log-likelihood ratio log P_synth(secret) − log P_ref(secret), divided
      by the secret's length + 1, where P_synth is a character 4-gram model (:class:`_CharNgram`) of the
      released texts and keywords and P_ref the same model of the m secrets themselves (the public design,
      each once, whatever the coins). The n-gram model of the synthetic data is the membership signal of
      "The Canary's Echo" (Meeus et al., ICML 2025, arXiv 2502.14921): a canary whose secret shaped the
      synthetic texts raises its own likelihood even when it is never copied whole; the reference
      removes how typical the invented word is.

    Args:
        corpus_dir: a corpus folder (``texts.jsonl`` records with ``text`` and, for DP-SynRAG, ``keyword``).
        secrets: one secret (letters only) per canary.

    Returns:
        (exact: int64 [m], echo: float64 [m]).

    Raises:
        CorpusError: the folder is not a corpus folder.
    """
    from dpsynrag.corpus import SyntheticCorpus

    records = SyntheticCorpus.load(corpus_dir).records
    keywords = Counter(str(r.get("keyword", "")).lower() for r in records)
    texts = [str(r.get("text", "")) for r in records]
    words = Counter(re.findall(r"[a-z]+", "\n".join(texts).lower()))  # whole words: maximal runs of letters
    released = _CharNgram(_letters("\n".join(texts + list(keywords.elements()))))
    lowered = [s.lower() for s in secrets]
    reference = _CharNgram(_letters(" ".join(lowered)))
    exact = np.array([keywords[s] + words[s] for s in lowered], dtype=np.int64)
    echo = np.array([(released.log_likelihood(s) - reference.log_likelihood(s)) / (len(s) + 1) for s in lowered],
                    dtype=np.float64)
    return exact, echo


def membership_scores(corpus_dir: str | os.PathLike, secrets: Sequence[str]) -> np.ndarray:
    """Membership score of each secret from the released corpus folder only (:func:`score_parts`):
    2 · exact + expit(echo), so any exact occurrence outranks every echo (expit lies in (0, 1)) and the
    echo orders the rest.

    Returns:
        float64 array [len(secrets)].

    Raises:
        CorpusError: the folder is not a corpus folder.
    """
    exact, echo = score_parts(corpus_dir, secrets)
    return 2.0 * exact + expit(echo)


def guess_membership(scores: Sequence[float], *, k_in: int, k_out: int, seed: int) -> np.ndarray:
    """Guesses: +1 (IN) for the ``k_in`` highest scores, −1 (OUT) for the ``k_out`` lowest, 0 (abstain)
    for the rest; ties are ordered by a random permutation from ``seed`` (independent of the coins).

    Returns:
        int8 array [m] in {−1, 0, +1}.

    Raises:
        ConfigError: negative counts, or k_in + k_out > m or = 0.
    """
    s = np.asarray(scores, dtype=np.float64).reshape(-1)
    m = len(s)
    for name, value in (("k_in", k_in), ("k_out", k_out)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ConfigError(f"`{name}` (guesses, --guesses-in/--guesses-out) must be an integer >= 0. Found {value!r}.")
    if not (1 <= k_in + k_out <= m):
        raise ConfigError(f"need 1 <= guesses IN + OUT <= canaries. Found {k_in} + {k_out} for {m} canaries.")
    tiebreak = _stream(seed, 3).permutation(m)
    order = np.lexsort((tiebreak, -s))  # highest score first, ties in random order
    out = np.zeros(m, dtype=np.int8)
    out[order[:k_in]] = 1
    if k_out:
        out[order[m - k_out:]] = -1
    return out


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
            known before the build (:func:`~dpsynrag.audit_bound.design_audit`).
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
        canaries: m >= 2; None: the public sizing rule (:func:`~dpsynrag.audit_bound.design_audit`, 1,000
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
    rows as crosses).

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
    ax.set_xlabel("claimed ε")
    ax.set_ylabel("ε")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7)
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
