"""Empirical privacy audit of a DP-SynRAG build (EVALUATION.md "Privacy audit"; issue 12, item 8).

One-run auditing (Steinke, Nasr, Jagielski 2023, "Privacy Auditing with One (1) Training Run",
NeurIPS 2023, arXiv 2305.08846), with canaries in the style of "The Canary's Echo" (Meeus et al. 2025):

1. **Canaries.** ``m`` documents in the format of the private records (the task's document template:
   for Medical Synth a patient record with a plain name and common symptoms) whose diagnosis is an
   invented word, the canary's **secret**: unique, alphabetic and absent from public English usage
   (wordfreq Zipf frequency 0), so that it appears in a release only through the canary.
2. **Public coins.** Canary i is added to the private documents iff its coin S_i = +1 (probability ½).
   The coins, the secrets and the tie-breaking below come from the audit's own seed (independent streams),
   never from the data or from the build's randomness: the coin is part of the audit design.
3. **One build** (:func:`~dpsynrag.pipeline.build.build_corpus`) on the private documents plus the
   included canaries.
4. **Membership scores from the released corpus folder only** (:func:`membership_scores`): how often
   and how completely the canary's secret appears among the released keywords and synthetic texts.
5. **Guesses.** The ``k_in`` highest-scored canaries are guessed IN, the ``k_out`` lowest OUT, the rest
   abstain (r = k_in + k_out guesses; both fixed before the build). Ties are broken by a public coin.
6. **Lower bound.** With v correct guesses of r, :func:`epsilon_lower_bound` returns the ε below which
   every value is refuted at the given confidence, from the paper's main theorem: for an (ε, δ)-DP build,

       P[V ≥ v] ≤ f(v) + 2mδ · max_{1≤i≤m} (f(v − i) − f(v)) / i,   f(v) = P[Binomial(r, e^ε/(1 + e^ε)) ≥ v]

   (δ = 0: the plain binomial tail; i > v adds nothing), the p-value of the paper's appendix code.

What a result means: the audit rejects a claimed ε when the lower bound exceeds it. The largest bound
m canaries can produce (every guess correct) is :func:`max_epsilon_lower_bound`; a claim above it
can never be refuted by this design, so a *pass* only says "no leak larger than that bound was seen
through this score". With the DP histogram and clipped private prediction, a secret that one document
holds should almost never be released: an honest build gives about r/2 correct guesses and a bound near 0.
"""

from __future__ import annotations

import json
import os
import re
import secrets as _secrets
import shutil
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from dpsynrag.audit_bound import check_confidence, epsilon_lower_bound, max_epsilon_lower_bound
from dpsynrag.data.io import Document, as_documents
from dpsynrag.errors import ConfigError

__all__ = [
    "AuditResult",
    "Canary",
    "guess_membership",
    "make_canaries",
    "membership_scores",
    "run_audit",
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
    while len(chosen) < m:
        word = _invented_word(words_rng)
        low = word.lower()
        if zipf_frequency(low, "en") > 0 or any(low in c.lower() or c.lower() in low for c in chosen):
            continue
        chosen.append(word)
    out = []
    for j, (secret, included) in enumerate(zip(chosen, coins)):
        text = template.replace("{secret}", secret) if template is not None else _medical_canary(fields_rng, secret)
        out.append(Canary(id=f"{CANARY_ID_PREFIX}{j}", secret=secret, text=text, included=bool(included)))
    return out


# ---------------------------------------------------------------------------------------------- scores


def membership_scores(corpus_dir: str | os.PathLike, secrets: Sequence[str]) -> np.ndarray:
    """Membership score of each secret, a function of the released corpus folder only.

    score = 2 · (exact occurrences) + (share of the secret's character 4-grams found), where exact
    occurrences count released keywords equal to the secret and whole-word occurrences in every
    released synthetic text (kept or not), case-insensitively; the 4-gram share in [0, 1] ranks partial
    copies. Any exact occurrence therefore outranks every partial one.

    Args:
        corpus_dir: a corpus folder (``texts.jsonl`` records with ``text`` and, for DP-SynRAG, ``keyword``).
        secrets: one secret per canary.

    Returns:
        float64 array [len(secrets)].

    Raises:
        CorpusError: the folder is not a corpus folder.
    """
    from dpsynrag.corpus import SyntheticCorpus

    records = SyntheticCorpus.load(corpus_dir).records
    keywords = [str(r.get("keyword", "")).lower() for r in records]
    texts = "\n".join(str(r.get("text", "")) for r in records).lower()
    haystack = texts + "\n" + "\n".join(keywords)
    scores = np.zeros(len(secrets), dtype=np.float64)
    for i, secret in enumerate(secrets):
        s = secret.lower()
        exact = keywords.count(s) + len(re.findall(rf"(?<![a-z]){re.escape(s)}(?![a-z])", texts))
        grams = {s[j:j + 4] for j in range(max(1, len(s) - 3))}
        partial = sum(g in haystack for g in grams) / len(grams)
        scores[i] = 2.0 * exact + partial
    return scores


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


@dataclass(frozen=True)
class AuditResult:
    """The outcome of :func:`run_audit` (JSON-ready through :meth:`to_dict`).

    Attributes:
        claimed_epsilon, claimed_delta: the build's guarantee (its calibration target).
        claimed_epsilon_tight: the report's ε for the same ρ and δ under the tight conversion
            (Canonne–Kamath–Steinke); the build claims this smaller ε too, so it is the one tested.
        confidence: confidence of the lower bounds.
        canaries: m. included: canaries whose coin put them in the build.
        k_in, k_out: guesses IN and OUT (r = k_in + k_out); correct: v.
        epsilon_lower_bound: the bound at the claimed δ (the one compared with the claim).
        max_epsilon_lower_bound: the largest bound this design can report (v = r) at the claimed δ.
        refuted: True when the lower bound exceeds the smaller claimed ε (``claimed_epsilon_tight``):
            a privacy failure. (No pure-DP bound is reported: the build claims δ > 0, and a δ = 0
            bound is not a valid lower bound for it.)
        corpus: the audited corpus folder. seed: the audit's seed. details: per canary id, secret, coin,
            score and guess.
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

    @property
    def guesses(self) -> int:
        """r = k_in + k_out."""
        return self.k_in + self.k_out

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "guesses": self.guesses, "method": "one-run audit (Steinke, Nasr, Jagielski 2023)",
                "score": "2 x exact occurrences of the secret in released keywords and texts + share of its 4-grams"}

    def summary(self) -> str:
        """One paragraph for people: the bound next to the claim, and what a pass means."""
        verdict = ("REFUTED: the build leaks more than its claimed epsilon" if self.refuted
                   else "consistent with the claim")
        return (
            f"claimed epsilon={self.claimed_epsilon:g} (tight conversion: {self.claimed_epsilon_tight:.3f}), "
            f"delta={self.claimed_delta:g}; {self.canaries} canaries "
            f"({self.included} included), {self.guesses} guesses ({self.k_in} IN, {self.k_out} OUT), "
            f"{self.correct} correct; epsilon lower bound at {100 * self.confidence:g}% confidence: "
            f"{self.epsilon_lower_bound:.3f} at the claimed delta; largest bound this "
            f"design can reach: {self.max_epsilon_lower_bound:.3f} "
            f"-> {verdict}. A pass only rules out leaks that this design could detect: claims above "
            f"{self.max_epsilon_lower_bound:.3f} cannot be refuted with {self.canaries} canaries."
        )


def run_audit(
    documents: Sequence[Document] | Sequence[str] | str | os.PathLike,
    out_dir: str | os.PathLike,
    config,
    *,
    canaries: int = 64,
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
) -> AuditResult:
    """Audit one DP-SynRAG build with canaries (module docstring): build, score, guess, bound.

    Writes ``out_dir/corpus`` (the audited build, with its ``corpus.owner.json`` beside it) and
    ``out_dir/audit.json`` (the canaries with their coins, scores, guesses and the bounds; no private text).

    Args:
        documents: the private collection (as for :func:`~dpsynrag.pipeline.build.build_corpus`).
        out_dir: a new folder (replaced only with ``overwrite`` and only if it holds an ``audit.json``).
        config: the :class:`~dpsynrag.pipeline.config.BuildConfig` audited; its ε and δ are the claim.
        canaries: m >= 2.
        k_in, k_out: guesses IN and OUT (default m // 4 each: half the canaries are guessed).
        template: canary text with ``{secret}`` (default: the task's built-in record; medical only).
        seed: the audit's seed (coins, secrets, tie-breaks); None draws one from the OS and records it.
        confidence: of the lower bounds.
        lm, embedder, text_field, id_field, progress: passed to the build.

    Returns:
        The :class:`AuditResult`.

    Raises:
        ConfigError: bad audit parameters (named by their CLI flag) or build parameters;
        InfeasibleBudgetError, DataError, ModelLoadError: from the build. FileExistsError: ``out_dir`` exists.
    """
    from dpsynrag.pipeline.build import build_corpus

    check_confidence(confidence)
    seed = _secrets.randbits(63) if seed is None else seed
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ConfigError(f"the audit seed (--seed; seed=) must be an integer >= 0. Found {seed!r}.")
    design = make_canaries(canaries, seed=seed, task=config.task, template=template)
    k_in = canaries // 4 if k_in is None else k_in
    k_out = canaries // 4 if k_out is None else k_out
    guess_membership(np.zeros(canaries), k_in=k_in, k_out=k_out, seed=seed)  # checks the counts before the build
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
        private = as_documents(documents, text_field=text_field, id_field=id_field)
        if {d.id for d in private} & {c.id for c in design}:
            raise ConfigError(f"document ids starting with {CANARY_ID_PREFIX!r} are reserved for the audit's canaries.")
        audited = private + [Document(id=c.id, text=c.text) for c in design if c.included]
        corpus = build_corpus(audited, corpus_dir, config, lm=lm, embedder=embedder, progress=progress)
        del audited, private
    except BaseException:
        shutil.rmtree(out, ignore_errors=True)  # a failed audit leaves no folder (the build left no corpus)
        raise

    scores = membership_scores(corpus_dir, [c.secret for c in design])
    guesses = guess_membership(scores, k_in=k_in, k_out=k_out, seed=seed)
    truth = np.array([1 if c.included else -1 for c in design], dtype=np.int8)
    correct = int(np.sum(guesses == truth))  # abstentions (0) never match
    r, m = k_in + k_out, canaries
    delta = float(config.delta)
    bound = epsilon_lower_bound(m, r, correct, delta=delta, confidence=confidence)
    result = AuditResult(
        claimed_epsilon=float(config.epsilon),
        claimed_delta=delta,
        claimed_epsilon_tight=float(corpus.privacy_report.epsilon_tight),
        confidence=float(confidence),
        canaries=m,
        included=int(sum(c.included for c in design)),
        k_in=k_in,
        k_out=k_out,
        correct=correct,
        epsilon_lower_bound=bound,
        max_epsilon_lower_bound=max_epsilon_lower_bound(m, r, delta=delta, confidence=confidence),
        refuted=bool(bound > min(float(config.epsilon), float(corpus.privacy_report.epsilon_tight))),
        corpus=str(corpus.path),
        seed=seed,
        details=[{"id": c.id, "secret": c.secret, "included": c.included, "score": float(s), "guess": int(g)}
                 for c, s, g in zip(design, scores, guesses)],
    )
    (out / AUDIT_FILE).write_text(json.dumps({**result.to_dict(), "config": config.model_dump()}, indent=2))
    return result
